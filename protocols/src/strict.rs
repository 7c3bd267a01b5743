//! The strict runtime: one object holds the global state (documented on
//! [`Strict`], re-exported at the crate root).

use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use engine::{Message, RoleId};

use crate::graph::LtsGraph;
use crate::ids::{RoleIndex, StateId, TypeIndex};
use crate::limits::Bounds;
use crate::lts::{Label, Lts};
use crate::packed::{Kept, Layout, Packed};
use crate::{Error, Spec};
use engine::Limits;

mod graph;
mod protocol;

use graph::Graph;

/// A strict protocol object: one object holds the global state.
///
/// A `Strict` object is the current state of the deterministic global LTS
/// plus the messages in transit (FIFO per ordered pair of roles). An
/// operation is allowed iff the LTS has a transition with its label from the
/// current state; a receive additionally needs the message at the head of
/// its channel to have the label's type (so an `.aut` LTS that does not
/// track channels still gets FIFO semantics; a compiled LTS tracks them
/// already and the check always agrees).
///
/// - `try_send(p, q, m)`: label `!(type of m, p, q)`; `m` joins channel p→q.
/// - `try_recv(q, Some(p))`: the head `m` of channel p→q, if `?(type of m,
///   p, q)` is enabled. `try_recv(q, None)`: the first sender `p` (in role
///   order) for which that holds.
/// - `try_close(p, q)`: label `C(p,q)`. Channels are not otherwise affected.
/// - [`is_terminated`](engine::Protocol::is_terminated): the LTS state is
///   final ([`Lts::is_final`]) and no message is in transit.
/// - [`is_finished`](engine::Protocol::is_finished)`(r)`: no message is in
///   transit to `r` and no action of `r` is reachable in the LTS.
///
/// The LTS is either compiled whole ([`Strict::new`], [`Strict::from_spec`])
/// or computed on demand from the specification
/// ([`Strict::on_the_fly`]): the object is the same, only when a global
/// state is computed differs.
///
/// Messages go by [`Message::type_name`]: the dummies of a check are
/// `Message::named(type, ())`. The object keeps each message in transit as
/// `(from, to, type number)`, packed into a byte or a few (as many bits as
/// the numbers of roles and types need) in one inline buffer: during a
/// check every message is a dummy, all type and no payload, so that is all
/// there is to keep, and a receive rebuilds the message from its type. A
/// message with more (a payload, a type path other than the LTS's name) is
/// kept beside, in a side list that does not take part in equality. So in a
/// check the object is 56 bytes with no heap allocation (up to 22 bytes of
/// messages in transit: 22 messages of a protocol with up to 16 roles and
/// one type, 11 with up to 64 roles and 16 types), a clone is a copy,
/// equality compares bytes and the hash is one pass over them. Real
/// threads share one `Strict` object under one lock (the blocking API in
/// [`crate::session`]).
///
/// ```
/// use engine::{Message, Protocol};
/// use protocols::spec::{msg, Spec};
/// let lts = Spec::new("ping", msg("Ping", "a", "b")).compile().unwrap();
/// let mut p = protocols::Strict::new(lts);
/// assert!(!p.is_terminated());
/// p.try_send(0, 1, Message::named("Ping", 7)).unwrap();
/// let (from, m) = p.try_recv(1, None).unwrap();
/// assert_eq!((from, m.downcast_ref::<i32>()), (0, Some(&7)));
/// assert!(p.is_terminated());
/// ```
#[derive(Clone)]
pub struct Strict {
    /// The global LTS, compiled or built on the fly: one interface
    /// ([`LtsGraph`]), so every operation below is written once for both.
    lts: Graph,
    state: StateId,
    /// How a message in transit is packed: fields `(from, to, type id)`,
    /// as many bits as the numbers of roles and types need.
    layout: Layout,
    /// The messages in transit as packed `(from, to, type id)`, sorted by
    /// channel, FIFO within a channel. The type id (the LTS's number of
    /// the message's type, found once when the message is sent) spares
    /// every receive, and every listing of the enabled receives, a lookup
    /// of the type by name.
    in_transit: Packed<22>,
    /// The messages that a receive cannot rebuild from their type id
    /// (a payload other than `()`, a type path other than the LTS's type
    /// name), at the index of their entry in `in_transit`; empty, with no
    /// allocation, when every message in transit can be rebuilt (always,
    /// in a check with the object's own dummies). Not part of the object's
    /// identity: messages compare by type.
    payloads: Kept,
}

/// How many states [`Strict::is_finished`](engine::Protocol::is_finished)
/// explores of an object built [on the fly](Strict::on_the_fly) before it
/// gives up and answers "not finished" (the safe answer for a deadlock
/// report: the role is listed as waiting).
const FINISHED_SEARCH_LIMIT: usize = 100_000;

impl Strict {
    /// The object in the initial state of `lts`, determinised first if it
    /// is not deterministic.
    ///
    /// # Panics
    /// If determinising exceeds the default [limits](Limits); use
    /// [`Strict::try_new`] to get an error instead.
    pub fn new(lts: impl Into<Arc<Lts>>) -> Strict {
        Strict::try_new(lts).unwrap_or_else(|e| panic!("{e}"))
    }

    /// The object in the initial state of `lts` (determinised if needed,
    /// within the default [limits](Limits)).
    pub fn try_new(lts: impl Into<Arc<Lts>>) -> Result<Strict, Error> {
        Strict::try_new_with(lts, &Limits::default())
    }

    /// The object in the initial state of `lts`, determinised if needed
    /// within `limits` (see [`Lts::determinise_with`]).
    pub fn try_new_with(lts: impl Into<Arc<Lts>>, limits: &Limits) -> Result<Strict, Error> {
        let lts = deterministic(lts.into(), &Bounds::new(limits))?;
        Ok(Strict::with_graph(lts.initial(), Graph::Compiled(lts)))
    }

    /// Compiles `spec` and returns its strict object.
    pub fn from_spec(spec: &Spec) -> Result<Strict, Error> {
        Strict::try_new(spec.compile()?)
    }

    /// The strict object of `spec` without compiling its LTS first: each
    /// global state is computed the first time a run (or the model checker)
    /// reaches it, and kept for every clone of the object.
    ///
    /// Use it for specifications whose LTS is too large to compile whole
    /// but whose runs visit few of its states: many workers in parallel
    /// (`par_every`), each a few steps long, have a number of global states
    /// exponential in the number of workers, of which a real run of the
    /// program meets a handful per round. Its behaviour is exactly that of
    /// [`Strict::from_spec`]'s object: the same roles and types, traces,
    /// refusals and final states (only its
    /// [`sends_to`](engine::Protocol::sends_to) is read off the
    /// specification's text, so it may name a channel that no run uses, and
    /// its state numbers follow the order in which states are first
    /// reached). Errors in the specification (undefined or unguarded calls,
    /// a role talking to itself) are found here, as by [`Spec::compile`].
    /// The states it has met stay in memory as long as the object or a
    /// clone of it lives.
    ///
    /// ```
    /// use engine::{Message, Protocol};
    /// use protocols::spec::{msg, par_every, seq, Role, Spec};
    /// // 20 workers, each gets a job and replies, all in parallel: 5^20
    /// // global states, far too many to compile.
    /// let jobs = par_every(0..20, |i| {
    ///     let w = Role::indexed("worker", i);
    ///     seq([msg("Job", "boss", w.clone()), msg("Done", w, "boss")])
    /// });
    /// // A declared role set is closed: declare all 21 (boss is role 0).
    /// let roles = std::iter::once(Role::new("boss")).chain((0..20).map(|i| Role::indexed("worker", i)));
    /// let spec = Spec::new("jobs", jobs).roles(roles);
    /// let mut p = protocols::Strict::on_the_fly(&spec).unwrap();
    /// let (boss, w1) = (0, 2);
    /// p.try_send(boss, w1, Message::named("Job", ())).unwrap();
    /// p.try_recv(w1, None).unwrap();
    /// assert!(p.try_send(w1, boss, Message::named("Done", ())).is_ok());
    /// assert!(p.try_send(w1, boss, Message::named("Done", ())).is_err());
    /// assert_eq!(p.num_states(), 4); // of 5^20
    /// ```
    pub fn on_the_fly(spec: &Spec) -> Result<Strict, Error> {
        let graph = crate::on_the_fly::build(spec, crate::compile::MAX_TERMS)?;
        Ok(Strict::with_graph(
            StateId::new(0),
            Graph::OnTheFly(Arc::new(graph)),
        ))
    }

    /// The object in `state` of `lts`, nothing in transit.
    fn with_graph(state: StateId, lts: Graph) -> Strict {
        let (roles, types) = (lts.roles().len(), lts.type_names().len());
        Strict {
            state,
            layout: Layout::new([roles, roles, types, 0]),
            lts,
            in_transit: Packed::default(),
            payloads: Kept::default(),
        }
    }

    /// The dummies for checking this object: one `Message::named(type, ())`
    /// per message type of its specification (what an empty dummy list
    /// means to the engine; see [`engine::declared_dummies`]).
    ///
    /// ```
    /// let chess = protocols::chess::strict();
    /// let d = chess.dummies();
    /// assert_eq!(d.len(), 1);
    /// assert_eq!(d[0].type_name(), "Move");
    /// engine::check(r#"G F "black RECV <Move>""#, chess, d);
    /// ```
    pub fn dummies(&self) -> Vec<Message> {
        engine::declared_dummies(self)
    }

    /// The (deterministic) LTS this object runs, without the synchronous
    /// bit ([`Lts::asynchronous`]); `None` for an object built
    /// [on the fly](Strict::on_the_fly).
    pub fn lts(&self) -> Option<&Arc<Lts>> {
        match &self.lts {
            Graph::Compiled(l) => Some(l),
            Graph::OnTheFly(_) => None,
        }
    }

    /// The current LTS state (for an object built
    /// [on the fly](Strict::on_the_fly): states are numbered in the order
    /// they were first reached).
    pub fn state(&self) -> StateId {
        self.state
    }

    /// The number of LTS states: all of them for a compiled LTS; for an
    /// object built [on the fly](Strict::on_the_fly), those computed so far
    /// (by this object and all its clones).
    pub fn num_states(&self) -> usize {
        self.lts.num_states()
    }

    /// The messages in transit as `(from, to, message)`, sorted by
    /// channel, FIFO within a channel. The messages are given by value:
    /// the object keeps most of them as their type alone (see the
    /// [type docs](Strict)) and rebuilds them, which allocates nothing for
    /// a message without payload.
    ///
    /// ```
    /// use engine::{Message, Protocol};
    /// let mut p = protocols::chess::strict();
    /// p.try_send(0, 1, Message::named("Move", 7)).unwrap();
    /// let v: Vec<_> = p.in_transit().collect();
    /// assert_eq!(v, [(0, 1, Message::named("Move", ()))]);
    /// assert_eq!(v[0].2.downcast_ref::<i32>(), Some(&7));
    /// ```
    pub fn in_transit(&self) -> impl ExactSizeIterator<Item = (RoleId, RoleId, Message)> + '_ {
        (0..self.in_transit.len(self.layout)).map(|i| {
            let (f, t, _) = self.entry(i);
            (f.index(), t.index(), self.message(i))
        })
    }

    /// Entry `i` of `in_transit` as `(from, to, type id)`.
    #[inline]
    fn entry(&self, i: usize) -> (RoleIndex, RoleIndex, TypeIndex) {
        let (l, v) = (self.layout, self.in_transit.get(self.layout, i));
        (
            RoleIndex::new(l.field(v, 0)),
            RoleIndex::new(l.field(v, 1)),
            TypeIndex::new(l.field(v, 2)),
        )
    }

    /// The message of entry `i`: the one kept beside if there is one,
    /// else rebuilt from its type.
    fn message(&self, i: usize) -> Message {
        if let Some(m) = self.payloads.get(i) {
            return m.clone();
        }
        let (_, _, ty) = self.entry(i);
        self.rebuilt(ty)
    }

    /// The message of type id `ty` that the object rebuilds on a receive.
    fn rebuilt(&self, ty: TypeIndex) -> Message {
        // Only entries whose message had this interned type and a unit
        // payload are kept without their message (see `try_send`).
        let t = self.lts.message_type(ty).expect("kept only if interned");
        Message::with_type(t, ())
    }

    /// Removes entry `i` and returns its sender and message.
    fn take(&mut self, i: usize) -> (RoleIndex, Message) {
        let (f, _, ty) = self.entry(i);
        self.in_transit.remove(self.layout, i);
        let kept = self.payloads.remove(i);
        (f, kept.unwrap_or_else(|| self.rebuilt(ty)))
    }

    fn step(&mut self, label: Label) -> bool {
        match self.lts.next(self.state, label) {
            Some(next) => {
                self.state = next;
                true
            }
            None => false,
        }
    }

    fn enabled(&self, label: Label) -> bool {
        self.lts.next(self.state, label).is_some()
    }

    /// Takes the receive of the message at `in_transit[i]` in the LTS, if
    /// it is enabled (the message stays where it is).
    fn step_recv(&mut self, i: usize) -> bool {
        let (from, to, ty) = self.entry(i);
        self.step(Label::recv(ty, from, to))
    }

    /// The channel `from` → `to` as the packed entries sort by it.
    #[inline]
    fn channel(&self, from: RoleIndex, to: RoleIndex) -> u128 {
        self.layout
            .prefix(self.layout.pack([from.raw(), to.raw(), 0, 0]), 1)
    }

    /// Where the first message in the channel `from` → `to` is, if any.
    fn head(&self, from: RoleIndex, to: RoleIndex) -> Option<usize> {
        let (l, c) = (self.layout, self.channel(from, to));
        let i = self.in_transit.partition_point(l, |v| l.prefix(v, 1) < c);
        (i < self.in_transit.len(l) && l.prefix(self.in_transit.get(l, i), 1) == c).then_some(i)
    }

    fn valid(&self, a: RoleId, b: RoleId) -> bool {
        let n = self.lts.roles().len();
        a < n && b < n && a != b
    }
}

/// `lts` itself if it is deterministic, else its subset construction
/// (within `limits`); first without the synchronous bit
/// ([`Lts::asynchronous`]), so that the runtimes execute exactly the LTS
/// they did before labels carried it: a handshake's send is asked for as a
/// send, and a state with both a handshake and an ordinary send of one
/// type on one channel is one choice, resolved by the subset construction.
pub(crate) fn deterministic(lts: Arc<Lts>, limits: &Bounds) -> Result<Arc<Lts>, Error> {
    let lts = if lts.has_sync() {
        Arc::new(lts.asynchronous())
    } else {
        lts
    };
    if lts.is_deterministic() {
        Ok(lts)
    } else {
        Ok(Arc::new(lts.determinise_within(limits)?))
    }
}

impl Strict {
    /// Whether `role` could send a `ty` to `to` now (without doing it).
    pub fn can_send(&self, role: RoleId, to: RoleId, ty: &str) -> bool {
        self.valid(role, to)
            && self.lts.type_id(ty).is_some_and(|ty| {
                let (from, to) = (RoleIndex::from_index(role), RoleIndex::from_index(to));
                self.enabled(Label::send(ty, from, to))
            })
    }
}

/// Equal iff in the same state of the same LTS with the same messages in
/// transit, compared by type (the packed entries: a compare of bytes; the
/// messages kept beside do not count, as [`Message`]s compare by type).
impl PartialEq for Strict {
    fn eq(&self, other: &Self) -> bool {
        self.state == other.state
            && self.in_transit == other.in_transit
            && match (&self.lts, &other.lts) {
                (Graph::Compiled(a), Graph::Compiled(b)) => Arc::ptr_eq(a, b) || a == b,
                // State numbers are only comparable within one graph (an
                // object built on the fly numbers its states in the order
                // it meets them).
                (Graph::OnTheFly(a), Graph::OnTheFly(b)) => Arc::ptr_eq(a, b),
                _ => false,
            }
    }
}
impl Eq for Strict {}

impl Hash for Strict {
    fn hash<H: Hasher>(&self, h: &mut H) {
        h.write_u32(self.state.raw());
        self.in_transit.hash(h);
    }
}

impl fmt::Debug for Strict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let roles = self.lts.roles();
        write!(f, "Strict {{ state: {}, in transit: [", self.state)?;
        for (i, (a, b, m)) in self.in_transit().enumerate() {
            let sep = if i == 0 { "" } else { ", " };
            write!(f, "{sep}{}→{}: {m:?}", roles[a], roles[b])?;
        }
        write!(f, "] }}")
    }
}
