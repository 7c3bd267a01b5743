//! The specification language: global protocols as Rust values.
//!
//! A [`Spec`] is a main [`Term`] plus named, parametrised sub-protocols
//! ([`Spec::define`]) that terms call with [`call`]. Terms are built with
//! the functions of this module, which follow Discourje's notation:
//!
//! | Discourje            | here                                   |
//! |----------------------|----------------------------------------|
//! | `(-->> T p q)`       | [`msg`]`("T", p, q)` (asynchronous)    |
//! | `(--> T p q)`        | [`sync`]`("T", p, q)` (synchronous)    |
//! | `(close p q)`        | [`close`]`(p, q)`                      |
//! | `(cat a b)`          | [`seq`]`([a, b])` or `a.then(b)`       |
//! | `(alt a b)`          | [`alt`]`([a, b])` or `a.or(b)`         |
//! | `(par a b)`          | [`par`]`([a, b])`                      |
//! | `(* a)` `(+ a)` `(? a)` | `a.star()`, `a.plus()`, `a.opt()`   |
//! | `(cat-every [i r] a)`| [`cat_every`]`(r, \|i\| a)`            |
//! | `(par-every [i r] a)`| [`par_every`]`(r, \|i\| a)`            |
//! | `(alt-every [i r] a)`| [`alt_every`]`(r, \|i\| a)`            |
//! | `(X i j)`            | [`call`]`("X", [i, j])`                |
//! | `worker[i]`          | [`Role::indexed`]`("worker", i)` = `worker_i_` |
//!
//! # Semantics
//! A specification denotes a global LTS ([`Spec::compile`]) by the
//! process-algebra rules of the Discourje calculus, with residual terms as
//! states (hash-consed, so equal residuals are one state):
//!
//! - `msg(T, p, q)` is two actions: `!(T,p,q)` (p puts a `T` into the FIFO
//!   channel p→q) and later `?(T,p,q)` (q takes it). In a sequence nothing
//!   happens between them, but in an interleaving ([`par`]) other actions
//!   may come between the send and its receive: that is the buffering.
//! - `sync(T, p, q)` is `!(T,p,q)` immediately followed by `?(T,p,q)`:
//!   after the send the whole protocol can do nothing but that receive
//!   (no role, not only the sender, takes a step in between).
//! - `close(p, q)` is the single action `C(p,q)`.
//! - sequence, choice, interleaving (shuffle), `*` (zero or more), `+`
//!   (one or more), `?` (zero or one) as usual; a named call unfolds to the
//!   body of its definition (recursion must be guarded: a call may not be
//!   reached again before some action is taken, or compilation fails).
//!   Every call the main term can reach in the text is unfolded and
//!   checked before any state is built, also where no run gets to it, and
//!   roles and types are numbered in that walk's order (declared ones
//!   first); so a compiled and an [on-the-fly](crate::Strict::on_the_fly)
//!   object of one specification have the same names and the same errors.
//! - quantifiers expand eagerly over the (finite) index collection: they
//!   are ordinary Rust functions.
//!
//! **Channels.** The global state is the residual term *plus the contents
//! of every channel* (the sequence of message types in transit per ordered
//! pair of roles). A receive `?(T,p,q)` is enabled only if `T` is at the
//! head of channel p→q, so the compiled LTS alone has FIFO semantics even
//! when interleaved branches send on the same channel. (A specification
//! whose order of receives contradicts FIFO gets stuck there; the stuck
//! state is not final, and the engine reports it as a deadlock.)
//!
//! **Final states.** A state is final if its residual may terminate and
//! all channels are empty.
//!
//! ```
//! use protocols::spec::*;
//! // white → black, then black → white, one or more times
//! let chess = Spec::new(
//!     "chess",
//!     seq([msg("Move", "white", "black"), msg("Move", "black", "white")]).plus(),
//! );
//! let lts = chess.compile().unwrap();
//! assert_eq!((lts.num_states(), lts.num_transitions()), (5, 5));
//!
//! // a token ring as a recursive, parametrised sub-protocol
//! let ring = Spec::new("ring", call("ring", [0]))
//!     .define("ring", 1, |a| {
//!         let (i, j) = (a[0], (a[0] + 1) % 3);
//!         msg("Boolean", Role::indexed("worker", i), Role::indexed("worker", j))
//!             .then(call("ring", [j]))
//!     });
//! assert_eq!(ring.compile().unwrap().num_states(), 6);
//! ```

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use crate::{Error, Liberal, Lts, Strict};

/// A role name. Indexed roles `worker[i]` are named `worker_i_`, as in
/// Prut4j, so that formulas written for Prut4j run unchanged.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Role(pub Arc<str>);

impl Role {
    /// A plain role: `Role::new("white")`.
    pub fn new(name: impl AsRef<str>) -> Role {
        Role(Arc::from(name.as_ref()))
    }

    /// An indexed role: `Role::indexed("worker", 3)` is `worker_3_`.
    pub fn indexed(base: &str, i: usize) -> Role {
        Role(Arc::from(format!("{base}_{i}_")))
    }

    /// The name.
    pub fn name(&self) -> &str {
        &self.0
    }
}

impl From<&str> for Role {
    fn from(s: &str) -> Role {
        Role::new(s)
    }
}
impl From<String> for Role {
    fn from(s: String) -> Role {
        Role::new(s)
    }
}
impl From<&Role> for Role {
    fn from(r: &Role) -> Role {
        r.clone()
    }
}
impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A global protocol term. Build terms with the functions of this module;
/// the variants are public so that tools (and the reference semantics in
/// the tests) can walk them.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Term {
    /// The protocol that does nothing and ends (`skip`).
    End,
    /// Communication of a `ty` from `from` to `to`.
    Comm {
        /// Message type name.
        ty: Arc<str>,
        /// Sender.
        from: Role,
        /// Receiver.
        to: Role,
        /// Synchronous (`-->`) rather than asynchronous (`-->>`).
        sync: bool,
    },
    /// `from` closes its channel to `to`.
    Close {
        /// Channel owner.
        from: Role,
        /// Peer.
        to: Role,
    },
    /// One after the other (empty: [`Term::End`]).
    Seq(Vec<Term>),
    /// One of them (empty: the protocol that can do nothing and never ends).
    Alt(Vec<Term>),
    /// All of them, interleaved (empty: [`Term::End`]).
    Par(Vec<Term>),
    /// Zero or more times.
    Star(Box<Term>),
    /// The body of a named definition, with arguments.
    Call(Arc<str>, Vec<usize>),
}

/// Asynchronous communication `(-->> ty from to)`: the send, later its
/// receive, through the FIFO channel from → to.
pub fn msg(ty: &str, from: impl Into<Role>, to: impl Into<Role>) -> Term {
    Term::Comm {
        ty: Arc::from(ty),
        from: from.into(),
        to: to.into(),
        sync: false,
    }
}

/// Synchronous communication `(--> ty from to)`: the send immediately
/// followed by its receive.
pub fn sync(ty: &str, from: impl Into<Role>, to: impl Into<Role>) -> Term {
    Term::Comm {
        ty: Arc::from(ty),
        from: from.into(),
        to: to.into(),
        sync: true,
    }
}

/// `from` closes its channel to `to`.
pub fn close(from: impl Into<Role>, to: impl Into<Role>) -> Term {
    Term::Close {
        from: from.into(),
        to: to.into(),
    }
}

/// The empty protocol (`skip`, `end`).
pub fn end() -> Term {
    Term::End
}

/// Sequence `(cat ...)`.
pub fn seq(terms: impl IntoIterator<Item = Term>) -> Term {
    Term::Seq(terms.into_iter().collect())
}

/// Choice `(alt ...)`.
pub fn alt(terms: impl IntoIterator<Item = Term>) -> Term {
    Term::Alt(terms.into_iter().collect())
}

/// Interleaving `(par ...)`.
pub fn par(terms: impl IntoIterator<Item = Term>) -> Term {
    Term::Par(terms.into_iter().collect())
}

/// A call of the named definition with arguments.
pub fn call(name: &str, args: impl IntoIterator<Item = usize>) -> Term {
    Term::Call(Arc::from(name), args.into_iter().collect())
}

/// `(cat-every [i indices] body)`: the bodies in index order.
pub fn cat_every<I: IntoIterator<Item = usize>>(
    indices: I,
    body: impl FnMut(usize) -> Term,
) -> Term {
    seq(indices.into_iter().map(body))
}

/// `(par-every [i indices] body)`: the bodies interleaved.
pub fn par_every<I: IntoIterator<Item = usize>>(
    indices: I,
    body: impl FnMut(usize) -> Term,
) -> Term {
    par(indices.into_iter().map(body))
}

/// `(alt-every [i indices] body)`: one of the bodies.
pub fn alt_every<I: IntoIterator<Item = usize>>(
    indices: I,
    body: impl FnMut(usize) -> Term,
) -> Term {
    alt(indices.into_iter().map(body))
}

impl Term {
    /// `self` then `next`.
    pub fn then(self, next: Term) -> Term {
        match self {
            Term::Seq(mut v) => {
                v.push(next);
                Term::Seq(v)
            }
            t => Term::Seq(vec![t, next]),
        }
    }

    /// `self` or `other`.
    pub fn or(self, other: Term) -> Term {
        match self {
            Term::Alt(mut v) => {
                v.push(other);
                Term::Alt(v)
            }
            t => Term::Alt(vec![t, other]),
        }
    }

    /// Zero or more times.
    pub fn star(self) -> Term {
        Term::Star(Box::new(self))
    }

    /// One or more times (`self` then `self*`).
    pub fn plus(self) -> Term {
        Term::Seq(vec![self.clone(), self.star()])
    }

    /// Zero or one time.
    pub fn opt(self) -> Term {
        Term::Alt(vec![self, Term::End])
    }
}

type Body = Arc<dyn Fn(&[usize]) -> Term + Send + Sync>;

/// A named, parametrised sub-protocol.
#[derive(Clone)]
pub struct Definition {
    pub(crate) params: usize,
    pub(crate) body: Body,
}

impl Definition {
    /// Number of parameters.
    pub fn params(&self) -> usize {
        self.params
    }

    /// The body for these arguments.
    pub fn body(&self, args: &[usize]) -> Term {
        (self.body)(args)
    }
}

impl fmt::Debug for Definition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Definition({} params)", self.params)
    }
}

/// A global protocol specification: a main term and the named
/// sub-protocols it calls. See the [module docs](self).
#[derive(Clone, Debug)]
pub struct Spec {
    pub(crate) name: String,
    pub(crate) roles: Vec<String>,
    pub(crate) types: Vec<String>,
    pub(crate) defs: BTreeMap<String, Definition>,
    pub(crate) main: Term,
}

impl Spec {
    /// A specification named `name` with main term `main`.
    pub fn new(name: impl Into<String>, main: Term) -> Spec {
        Spec {
            name: name.into(),
            roles: Vec::new(),
            types: Vec::new(),
            defs: BTreeMap::new(),
            main,
        }
    }

    /// Declares the roles, in this order (their [`engine::RoleId`]s). The
    /// declared set is closed: a role the specification uses but does not
    /// declare, or one declared twice, is an [`Error::Undeclared`] (with
    /// the closest declared name) from [`compile`](Self::compile) and
    /// [`Strict::on_the_fly`](crate::Strict::on_the_fly) alike, so that a
    /// typo cannot make a new role. Without a declaration the roles are
    /// numbered in order of first use. A declared role may go unused.
    ///
    /// ```
    /// use protocols::spec::{msg, Spec};
    /// let spec = Spec::new("rpc", msg("Req", "client", "sever")).roles(["client", "server"]);
    /// let e = spec.compile().unwrap_err();
    /// assert!(e.to_string().contains("role `sever`"), "{e}");
    /// assert!(e.to_string().contains("did you mean `server`?"), "{e}");
    /// ```
    pub fn roles<R: Into<Role>>(mut self, roles: impl IntoIterator<Item = R>) -> Spec {
        self.roles = roles.into_iter().map(|r| r.into().0.to_string()).collect();
        self
    }

    /// Declares the message types, in this order. As for
    /// [`roles`](Self::roles), the declared set is closed: a type used but
    /// not declared (or declared twice) is an [`Error::Undeclared`];
    /// without a declaration the types are numbered in order of first use.
    pub fn types<S: AsRef<str>>(mut self, types: impl IntoIterator<Item = S>) -> Spec {
        self.types = types.into_iter().map(|t| t.as_ref().to_string()).collect();
        self
    }

    /// Defines the sub-protocol `name` with `params` parameters: `body`
    /// gives the term for the arguments of a call.
    pub fn define(
        mut self,
        name: &str,
        params: usize,
        body: impl Fn(&[usize]) -> Term + Send + Sync + 'static,
    ) -> Spec {
        self.defs.insert(
            name.to_string(),
            Definition {
                params,
                body: Arc::new(body),
            },
        );
        self
    }

    /// The name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The main term.
    pub fn main(&self) -> &Term {
        &self.main
    }

    /// The named definition.
    pub fn definition(&self, name: &str) -> Option<&Definition> {
        self.defs.get(name)
    }

    /// The declared roles.
    pub fn declared_roles(&self) -> &[String] {
        &self.roles
    }

    /// The declared types.
    pub fn declared_types(&self) -> &[String] {
        &self.types
    }

    /// Compiles to the global LTS with the default limits
    /// ([`engine::Limits`]: 1,000,000 states; see [`Spec::compile_with`]).
    pub fn compile(&self) -> Result<Lts, Error> {
        self.compile_with(&engine::Limits::default())
    }

    /// Compiles to the global LTS, failing with [`Error::StateBound`] if
    /// it has more than `max_states` states (the other
    /// [limits](engine::Limits) are the defaults).
    pub fn compile_bounded(&self, max_states: usize) -> Result<Lts, Error> {
        let max_states = u64::try_from(max_states).unwrap_or(u64::MAX);
        self.compile_with(&engine::Limits::default().max_states(max_states))
    }

    /// Compiles the specification and returns its [`Strict`] object, with
    /// the default limits ([`Strict::from_spec`]; for a specification too
    /// large to compile whole, [`Strict::on_the_fly`]).
    ///
    /// ```
    /// use engine::{Message, Protocol};
    /// let mut chess = protocols::chess::spec().strict().unwrap();
    /// let (white, black) = (0, 1);
    /// assert!(chess.try_send(black, white, Message::named("Move", ())).is_err());
    /// chess.try_send(white, black, Message::named("Move", ())).unwrap();
    /// ```
    pub fn strict(&self) -> Result<Strict, Error> {
        Strict::from_spec(self)
    }

    /// Compiles the specification and returns its [`Liberal`] object, with
    /// the default limits ([`Liberal::from_spec`]).
    ///
    /// ```
    /// use engine::{Message, Protocol};
    /// let mut chess = protocols::chess::spec().liberal().unwrap();
    /// let (white, black) = (0, 1);
    /// chess.try_send(white, black, Message::named("Move", ())).unwrap();
    /// // White may not move again before black has: its projection waits.
    /// assert!(chess.try_send(white, black, Message::named("Move", ())).is_err());
    /// ```
    pub fn liberal(&self) -> Result<Liberal, Error> {
        Liberal::from_spec(self)
    }
}
