//! prust's protocols: global specifications, the strict and liberal
//! runtimes that turn them into protocol objects, the blocking API that real
//! threads use, and the bundled protocols.
//!
//! # The pipeline
//! ```text
//! Spec (spec.rs: Rust combinators)  ──compile──▶  Lts (lts.rs)  ◀──from_aut──  .aut file (aut.rs)
//!     │                                             │ determinise (subset construction)
//!     │ on the fly       ┌──────────────────────────┴─────────────────────────┐
//!     └─────────────────▶▼                                                    ▼
//!        Strict (strict.rs): global state + channels            Liberal (liberal.rs): per-role projections
//!                         └──────────── both implement engine::Protocol ────────┘
//! ```
//!
//! Inside, one concept per file: `compile.rs` is the breadth-first
//! compiler over the global states, `compile/terms.rs` the hash-consed
//! terms and their rules, `compile/global.rs` a global state and its FIFO
//! channels; `on_the_fly.rs` explores the same global states on demand;
//! `graph.rs` is the one interface through which a [`Strict`] runs either
//! kind of LTS; `liberal/projection.rs` is the projection a [`Liberal`]
//! object runs and `liberal/build.rs` how it is computed.
//!
//! # Writing a protocol
//! A global protocol is a [`Spec`]: a [`Term`] built with the functions of
//! [`spec`] (Discourje's `-->>`, `-->`, `close`, `cat`, `alt`, `par`, `*`,
//! `+`, `?`, `cat-every`, `par-every`, `alt-every`) and named, parametrised
//! sub-protocols that may call each other recursively:
//!
//! ```
//! use protocols::spec::{alt_every, call, msg, Role, Spec};
//! // a token ring of 3 workers, as a recursive sub-protocol `ring(i)`
//! let ring = Spec::new("ring", call("ring", [0]))
//!     .roles((0..3).map(|i| Role::indexed("worker", i)))
//!     .define("ring", 1, |a| {
//!         let (i, j) = (a[0], (a[0] + 1) % 3);
//!         msg("Boolean", Role::indexed("worker", i), Role::indexed("worker", j))
//!             .then(call("ring", [j]))
//!     });
//! let lts = ring.compile().unwrap();
//! assert_eq!(lts.roles(), ["worker_0_", "worker_1_", "worker_2_"]);
//! let object = protocols::Strict::new(lts); // an engine::Protocol
//! # let _ = object;
//! ```
//!
//! # Semantics in one paragraph
//! States of the global LTS are residual terms (hash-consed) *plus the
//! contents of every channel*: an asynchronous `msg(T, p, q)` is the send
//! `!(T,p,q)`, which appends `T` to the FIFO channel p→q, and later the
//! receive `?(T,p,q)`, enabled only when `T` is at the head of that channel.
//! In a sequence the receive comes right after its send; inside `par` other
//! actions may come between (that is where buffering shows in the global
//! LTS). A synchronous `sync(T, p, q)` is the send immediately followed by
//! its receive, with no other action in between. A state is final when its
//! residual may terminate and all channels are empty. See [`spec`] for the
//! rules.
//!
//! # Strict or liberal
//! A specification gives either object: [`Spec::strict`] and
//! [`Spec::liberal`] compile it and build one (`chess::spec().liberal()?`;
//! each bundled module's `strict()` is the shorthand of the first).
//! - [`Strict`] keeps the global state in one object: runs are exactly the
//!   runs of the global LTS. Real threads share it under one lock. Its LTS
//!   is compiled whole ([`Strict::from_spec`]) or computed state by state as
//!   runs reach them ([`Strict::on_the_fly`]: the same object, for
//!   specifications with too many states to compile, such as many workers
//!   in parallel).
//! - [`Liberal`] gives every role its projection of the global LTS and an
//!   inbox; roles share no lock. A role acts on what *it* knows, so actions
//!   of different roles that no message orders may happen in any order
//!   (a master may send its next work item before the previous one is
//!   received), and choices that no single role makes may be taken
//!   differently by different roles. Check the same properties on both:
//!   `tests/it/liberal_differs.rs` shows properties that hold on the strict
//!   object and fail on the liberal one.
//!
//! Both runtimes go by message *type names* ([`engine::Message::type_name`])
//! and deliver the payloads sent. Both declare their types
//! ([`engine::Protocol::type_names`]), so a check needs no hand-written
//! dummies: `dummies![]` means one `Message::named(type, ())` per declared
//! type ([`Strict::dummies`], [`Liberal::dummies`]), and dummies given by
//! hand must stand for exactly those types, or the check is an
//! [`engine::Error::Dummies`].
//!
//! ```
//! use engine::{Message, Protocol};
//! let mut chess = protocols::chess::strict();
//! let (white, black) = (0, 1);
//! assert!(chess.try_send(black, white, Message::named("Move", ())).is_err()); // white begins
//! chess.try_send(white, black, Message::named("Move", ())).unwrap();
//! let (from, m) = chess.try_recv(black, None).unwrap();
//! assert_eq!((from, m.type_name()), (white, "Move"));
//! ```
//!
//! # States, roles and types
//! A state, a role and a message type of an [`Lts`] are all small numbers,
//! and as bare `u32`s a label's fields and a transition's target were easy
//! to swap without the compiler noticing. Each is its own type
//! ([`StateId`], [`RoleIndex`], [`TypeIndex`]), `#[repr(transparent)]` over
//! a `u32` (one macro makes them all, as regex-automata makes its ids), so
//! no label, transition or packed state grows. A role here is an index
//! into [`Lts::roles`]; the engine's [`RoleId`](engine::RoleId) is the same
//! number as a `usize` ([`RoleIndex::index`], [`RoleIndex::from_index`]).
//!
//! ```
//! use protocols::{RoleIndex, StateId};
//! let lts = protocols::chess::spec().compile().unwrap();
//! let white = lts.role_id("white").unwrap();
//! assert_eq!(white, RoleIndex::new(0));
//! assert_eq!(white.index(), 0); // the engine's `RoleId`
//! assert_eq!(lts.initial(), StateId::new(0));
//! ```
//!
//! # Bundled protocols
//! [`bundled::list`] lists them (name, parameter, roles, types) and
//! [`bundled::by_name`] compiles one from a name like `"token-star:4"`;
//! each also has a module with its specification (`spec()`, or one
//! function per variant) and, for most, the shorthand `strict()`:
//! [`token`], [`chess`],
//! [`tic_tac_toe`], [`rock_paper_scissors`], [`go_fish`], [`npb`],
//! [`two_buyer`], [`load_balancer`], [`micro`].
//!
//! # Limitations
//! - `.aut` files have no final states: a state without outgoing
//!   transitions is an end, so a compiled state that may end but may also
//!   continue, or a stuck (non-final) one, is not distinguished there.
//! - Determinisation is done once, when an object is made (not lazily);
//!   like compilation and projection, it is bounded by an
//!   [`engine::Limits`] (states, time, memory: [`Strict::try_new_with`],
//!   [`Liberal::try_new_with`], [`Spec::compile_with`]; the simple entry
//!   points use [`engine::Limits::default`]). (An object built
//!   [on the fly](Strict::on_the_fly) determinises as it goes.)
//! - An object built on the fly keeps every state it has met for as long
//!   as it (or a clone) lives; there is no eviction yet. A long run of a
//!   protocol with very many reachable states grows with the states it
//!   meets (about 10,000 states, a few MB, in 1,500 rounds of 16
//!   concurrent workers).
//! - The liberal object needs the whole global LTS (its projections are
//!   computed from it), so it has no on-the-fly form.
//! - The liberal object does not make synchronous communications wait:
//!   the sender's local state moves on at the send.

// A model checker's verdicts rest on safe Rust: no crate here needs unsafe.
#![forbid(unsafe_code)]

use std::fmt;

mod aut;
mod bisim;
pub mod bundled;
mod compile;
// The command line's file reading (hints per kind of file): plumbing
// shared with the `prust` binary, not part of the library's surface.
#[doc(hidden)]
pub mod files;
mod graph;
mod ids;
pub mod liberal;
// The accounting of a build against its `engine::Limits`.
mod limits;
pub mod lint;
mod lts;
mod object;
mod on_the_fly;
mod packed;
pub mod session;
pub mod spec;
mod strict;

pub use aut::AutError;
// The caret lines under a `.dcj` error's column: shared with prust-dcj,
// which shows its errors as `.aut` errors are shown.
#[doc(hidden)]
pub use aut::caret_lines;
pub use bisim::NotBisimilar;
// Each bundled module is documented once, at `protocols::bundled::*`; the
// short paths (`protocols::chess::strict()`) are what examples and users
// write, so they stay, as re-exports listed but not documented twice.
#[doc(no_inline)]
pub use bundled::{
    chess, go_fish, load_balancer, micro, npb, rock_paper_scissors, tic_tac_toe, token, two_buyer,
};
pub use ids::{RoleIndex, StateId, TypeIndex};
pub use liberal::{Liberal, LocalRole, Projection};
pub use lts::{Action, Label, Lts};
pub use object::Object;
pub use spec::{Role, Spec, Term};
pub use strict::Strict;

/// What a construction was building when it stopped (the `what` of
/// [`Error::StateBound`], [`Error::Timeout`], [`Error::MemoryBound`] and
/// [`Error::TooLarge`]); its text is how the messages name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Built {
    /// The global LTS of a specification ([`Spec::compile_with`]).
    GlobalLts,
    /// The subset construction of an LTS ([`Lts::determinise_with`]).
    DeterminisedLts,
    /// The liberal object's projection ([`Projection::new_with`]).
    LiberalProjection,
    /// The terms of a specification's calls, unfolded: a limit here is a
    /// runaway recursion, an error of the specification.
    UnfoldedSpec,
    /// The LTS that `lint --runtime on-the-fly` explores.
    LintExploration,
    /// The product that the `realizable` lint searches.
    RealizableProduct,
    /// The search tables and witness runs of the other lint checks.
    LintSearch,
}

impl fmt::Display for Built {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Built::GlobalLts => "global LTS",
            Built::DeterminisedLts => "determinised LTS",
            Built::LiberalProjection => "liberal projection",
            Built::UnfoldedSpec => "unfolded specification",
            Built::LintExploration => "LTS explored on the fly for lint",
            Built::RealizableProduct => "realizable product (liberal object × strict LTS)",
            Built::LintSearch => "search tables and witnesses of lint's checks",
        })
    }
}

/// What kind of [`Error`] it is ([`Error::kind`]): what a caller decides
/// on, without reading a message or a field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A state limit stopped a construction (the protocol may be fine,
    /// only too big for the limit).
    StateLimit,
    /// The deadline stopped a construction.
    TimeLimit,
    /// The memory limit stopped a construction.
    MemoryLimit,
    /// More than the representation numbers; no limit raises it.
    TooLarge,
    /// An ill-formed specification, a runaway recursion included.
    Spec,
    /// A name a closed declaration does not have.
    Undeclared,
    /// No bundled protocol has the name.
    UnknownProtocol,
    /// A bad parameter of a bundled protocol.
    BadParameter,
    /// A bad `.aut` file.
    Aut,
}

/// What can go wrong when building protocols.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// The state space exceeds the configured bound
    /// ([`engine::Limits::max_states`]; raise it with
    /// `--max-states`).
    StateBound {
        /// The bound.
        limit: usize,
        /// What was being built.
        what: Built,
    },
    /// Building the `what` went past the deadline of its
    /// [`engine::Limits`] (raise it with `--timeout`).
    Timeout {
        /// What was being built.
        what: Built,
        /// How many states it had made by then.
        states: usize,
    },
    /// Building the `what` needed more memory than its
    /// [`engine::Limits`] allow (raise it with `--max-memory`).
    MemoryBound {
        /// The bound, in bytes (an estimate of the construction's tables).
        limit: usize,
        /// What was being built.
        what: Built,
        /// How many states it had made by then.
        states: usize,
    },
    /// Building the `what` made more `items` than its representation can
    /// number: the compiled LTS numbers its states, transitions and
    /// channel contents with 32-bit offsets. No limit raises this; a smaller
    /// instance or an object built on the fly (which keeps no table of
    /// the whole) does not reach it.
    ///
    /// ```
    /// use protocols::{Built, Error};
    /// let e = Error::TooLarge { what: Built::GlobalLts, items: "transitions", max: 4_294_967_295 };
    /// assert!(e.to_string().contains("more than 4294967295 transitions"), "{e}");
    /// assert!(e.to_string().contains("on the fly"), "{e}");
    /// ```
    TooLarge {
        /// What was being built.
        what: Built,
        /// What it made too many of ("transitions", "channel contents").
        items: &'static str,
        /// The most the representation numbers.
        max: usize,
    },
    /// An ill-formed specification (unknown definition, wrong number of
    /// arguments, unguarded recursion, a role talking to itself).
    Spec(String),
    /// A specification that declares its roles ([`Spec::roles`]) or its
    /// message types ([`Spec::types`]) uses a name it did not declare, or
    /// declares one twice. A declared set is closed, so that a typo
    /// (`"sever"` for `"server"`) cannot make a new role that no other role
    /// talks to, and with it a property that holds for the wrong reason.
    ///
    /// ```
    /// use protocols::spec::{msg, Spec};
    /// let spec = Spec::new("rpc", msg("Req", "client", "sever")).roles(["client", "server"]);
    /// let e = spec.compile().unwrap_err();
    /// assert!(matches!(&e, protocols::Error::Undeclared { name, suggestion, .. }
    ///     if name == "sever" && suggestion.as_deref() == Some("server")));
    /// assert!(e.to_string().contains("did you mean `server`?"), "{e}");
    /// ```
    Undeclared {
        /// The specification's name.
        spec: String,
        /// A role or a message type ([`engine::NameKind::Role`] or
        /// [`engine::NameKind::Type`]).
        kind: engine::NameKind,
        /// The name as used (or as declared twice).
        name: String,
        /// Where: the communication or close that uses it, or "declared
        /// twice".
        context: String,
        /// The names the specification declares, in their order.
        declared: Vec<String>,
        /// The declared name closest to `name`, if one is close
        /// ([`engine::names::closest`]).
        suggestion: Option<String>,
    },
    /// A bundled protocol name that does not exist.
    UnknownProtocol {
        /// The name asked for.
        name: String,
        /// The names that exist.
        known: Vec<String>,
    },
    /// A bad parameter for a bundled protocol.
    BadParameter {
        /// The protocol.
        protocol: String,
        /// What is wrong.
        message: String,
    },
    /// A bad `.aut` file.
    Aut(AutError),
}

/// [`Error::Undeclared`]'s `context` for a name declared twice.
pub(crate) const DECLARED_TWICE: &str = "declared twice";

/// [`Error::StateBound`]'s `what` when unfolding a specification's calls
/// creates too many terms.
pub(crate) const UNFOLDED: Built = Built::UnfoldedSpec;

impl Error {
    /// Its [`ErrorKind`]. A state limit reached while unfolding a
    /// specification's calls is [`ErrorKind::Spec`]: a runaway recursion
    /// is an error of the specification, whatever bound caught it.
    ///
    /// ```
    /// use engine::Limits;
    /// use protocols::{token, ErrorKind};
    /// let spec = token::spec(token::Topology::FullMesh, 6);
    /// let e = spec.compile_with(&Limits::default().max_states(10)).unwrap_err();
    /// assert_eq!(e.kind(), ErrorKind::StateLimit);
    /// ```
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::StateBound { what, .. } if *what == UNFOLDED => ErrorKind::Spec,
            Error::StateBound { .. } => ErrorKind::StateLimit,
            Error::Timeout { .. } => ErrorKind::TimeLimit,
            Error::MemoryBound { .. } => ErrorKind::MemoryLimit,
            Error::TooLarge { .. } => ErrorKind::TooLarge,
            Error::Spec(_) => ErrorKind::Spec,
            Error::Undeclared { .. } => ErrorKind::Undeclared,
            Error::UnknownProtocol { .. } => ErrorKind::UnknownProtocol,
            Error::BadParameter { .. } => ErrorKind::BadParameter,
            Error::Aut(_) => ErrorKind::Aut,
        }
    }

    /// Whether a limit stopped the construction (not an error of its
    /// input): [`ErrorKind::StateLimit`], [`ErrorKind::TimeLimit`] or
    /// [`ErrorKind::MemoryLimit`].
    pub fn is_limit(&self) -> bool {
        matches!(
            self.kind(),
            ErrorKind::StateLimit | ErrorKind::TimeLimit | ErrorKind::MemoryLimit
        )
    }
}

/// An [`Error`] worded for one reader ([`Error::for_audience`]).
struct ForAudience<'a> {
    error: &'a Error,
    audience: engine::hint::Audience,
}

impl Error {
    /// The error worded for `audience`: a limit names what that reader
    /// sets (`Limits::max_states` for a program, `--max-states or
    /// PRUST_MAX_STATES` for a user of the `prust` command line, which
    /// reads the variables; this crate reads none). Its `Display` is the
    /// library's wording.
    ///
    /// ```
    /// use engine::hint::Audience;
    /// use engine::Limits;
    /// use protocols::token;
    /// let spec = token::spec(token::Topology::FullMesh, 6);
    /// let e = spec.compile_with(&Limits::default().max_states(10)).unwrap_err();
    /// assert!(e.to_string().contains("raise it with Limits::max_states"), "{e}");
    /// let cli = e.for_audience(Audience::CommandLine).to_string();
    /// assert!(cli.contains("raise it with --max-states or PRUST_MAX_STATES"), "{cli}");
    /// ```
    pub fn for_audience(&self, audience: engine::hint::Audience) -> impl fmt::Display + '_ {
        ForAudience {
            error: self,
            audience,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.for_audience(engine::hint::Audience::Library).fmt(f)
    }
}

impl fmt::Display for ForAudience<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use engine::hint::{Audience, Setting};
        let cli = self.audience == Audience::CommandLine;
        // What raises a limit, for this reader.
        let raise = |setting: Setting, method: &str| -> String {
            if cli {
                setting.named(Audience::CommandLine).to_string()
            } else {
                method.to_string()
            }
        };
        match self.error {
            Error::StateBound { limit, what } if *what == UNFOLDED => write!(
                f,
                "the {what} has more than {limit} terms: the specification is too large to \
                 compile (use a smaller instance), or a recursion's argument grows without end"
            ),
            Error::StateBound { limit, what } => write!(
                f,
                "the {what} has more than {limit} states (the state limit); raise it with \
                 {}, or use a smaller instance{}",
                raise(Setting::MaxStates, "Limits::max_states"),
                match (*what == Built::GlobalLts, cli) {
                    (true, true) => {
                        ", or build the strict object on the fly (Strict::on_the_fly; \
                         prust check --runtime on-the-fly), which computes only the states \
                         a run or a check reaches"
                    }
                    (true, false) => {
                        ", or build the strict object on the fly (Strict::on_the_fly), \
                         which computes only the states a run or a check reaches"
                    }
                    _ => "",
                }
            ),
            Error::Timeout { what, states } => write!(
                f,
                "building the {what} stopped at the time limit ({states} states made); \
                 raise it with {}, or use a smaller instance",
                raise(Setting::Timeout, "Limits::timeout")
            ),
            Error::MemoryBound {
                limit,
                what,
                states,
            } => write!(
                f,
                "building the {what} stopped at the memory limit ({limit} bytes, {states} \
                 states made); raise it with {}, or use a smaller instance",
                raise(Setting::MaxMemory, "Limits::max_memory")
            ),
            Error::TooLarge { what, items, max } => write!(
                f,
                "the {what} has more than {max} {items}, more than its 32-bit numbering \
                 holds; use a smaller instance, or build the strict object on the fly \
                 (Strict::on_the_fly; prust check --runtime on-the-fly), which keeps no \
                 table of the whole"
            ),
            Error::Spec(m) => write!(f, "bad specification: {m}"),
            Error::Undeclared {
                spec,
                kind,
                name,
                context,
                declared,
                suggestion,
            } => {
                let (plural, method) = match kind {
                    engine::NameKind::Type => ("message types", "Spec::types"),
                    _ => ("roles", "Spec::roles"),
                };
                let hint = if context == DECLARED_TWICE {
                    write!(
                        f,
                        "bad specification `{spec}`: {kind} `{name}` is declared twice"
                    )?;
                    format!("list each name once in {method}([..])")
                } else {
                    write!(
                        f,
                        "bad specification `{spec}`: {kind} `{name}` in {context} is not declared"
                    )?;
                    if let Some(s) = suggestion {
                        write!(f, "; did you mean `{s}`?")?;
                    }
                    format!(
                        "a declared set is closed (no name may be used that is not in it): \
                         fix the name, or add it to {method}([..])"
                    )
                };
                write!(
                    f,
                    "\n  the declared {plural} are: {}\n  hint: {hint}",
                    declared.join(", ")
                )
            }
            Error::UnknownProtocol { name, known } => {
                write!(f, "unknown protocol `{name}`")?;
                let base = name.split(':').next().unwrap_or(name).trim();
                if let Some(close) = engine::names::closest(base, known.iter().map(String::as_str))
                {
                    write!(f, "; did you mean `{close}`?")?;
                }
                write!(f, " The bundled protocols are: {}", known.join(", "))
            }
            Error::BadParameter { protocol, message } => write!(f, "{protocol}: {message}"),
            Error::Aut(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for Error {}

impl From<AutError> for Error {
    fn from(e: AutError) -> Error {
        Error::Aut(e)
    }
}
