//! prust: protocol unit testing for Rust by adaptation-based LTL model
//! checking.
//!
//! This crate is the one a user depends on: it re-exports everything a test
//! needs (the checker, the specification language, the two runtimes, the
//! blocking API for real threads, the bundled protocols) and holds the
//! runner of data-driven `.owl` property suites ([`suite`]). The three
//! crates it is made of stay reachable as [`engine`], [`protocols`] and
//! [`owl_lite`] for everything else.
//!
//! The [user guide](guide) is a chapter a page:
//!
//! - [Background](guide::background): what prust does, and why
//! - [Writing tests](guide::writing_tests): specification → object → check
//! - [Real threads on the same object](guide::threads)
//! - [From `std::sync::mpsc` to `prust::channel`, side by side](guide::from_mpsc)
//! - [Exploring your program's schedules](guide::exploring)
//! - [Debugging failures](guide::debugging)
//! - [The command line](guide::command_line)
//! - [Limitations](guide::limitations)

// A model checker's verdicts rest on safe Rust: no crate here needs unsafe.
#![forbid(unsafe_code)]

// The command line's modules name the library as `prust::…`, as the
// binary that holds `main` does.
extern crate self as prust;

pub mod cli;
pub mod guide;

/// Discourje's `.dcj` specifications, imported into a [`Spec`].
pub use dcj;
pub use engine;
pub use owl_lite;
pub use protocols;

/// Typed channels (std `mpsc` shape) over protocol sessions.
#[doc(inline)]
pub use channel;
/// `select!` over typed [`channel`] receivers (crossbeam's macro shape).
pub use channel::select;
#[doc(inline)]
pub use prust_explore as explore;
pub mod load;
// `prust serve`'s server: used by the command line only.
mod runtime;
pub(crate) mod serve;
pub mod suite;
pub use runtime::{Runtime, UnknownRuntime};

// One import path for users: everything a test needs, from the crate they
// depend on. The member crates stay reachable above for the rest.

// The checker, its options and its answers.
pub use engine::{
    check, check_violated, try_check, ActionKind, AtomError, CheckSession, Checker, Counterexample,
    CounterexampleStep, Ending, Error, Fairness, Limit, Limits, Message, NameKind, Payload,
    Protocol, Refused, ReplayError, Report, RoleId, Semantics, Stats, Verdict,
};
/// `#[derive(prust::Message)]`: a message enum, each variant one protocol
/// message type named by the variant (see [`engine::MessageEnum`]). The
/// derive macro shares its name with the [`Message`](struct@Message) type: they live in
/// different namespaces.
///
/// ```
/// #![forbid(unsafe_code)] // the expansion needs no unsafe of the user's crate
/// #[derive(Clone, Debug, PartialEq, prust::Message)]
/// enum Cmd {
///     Job(u32),
///     Stop,
/// }
/// let m = prust::Message::new(Cmd::Job(7));
/// assert_eq!(m.type_name(), "Job");
/// assert_eq!(m.downcast::<Cmd>(), Ok(Cmd::Job(7)));
/// ```
pub use prust_derive::Message;
// What the derive's expansion names (`::prust::__private`): not API.
#[doc(hidden)]
pub use engine::__private;
// What keeps a counterexample (trail files) and what explains bad dummies.
pub use engine::{declared_dummies, DummiesError, Trail, TrailError, TrailStep};

// `dummies!` is `#[macro_export]`ed by the engine; its body names the
// message type through `$crate`, which resolves to the engine crate even
// when the macro is called as `prust::dummies!` by a crate that does not
// depend on the engine itself.
pub use engine::dummies;

// The runtimes, the specification language, the blocking API and the
// bundled protocols.
pub use protocols::{bundled, session, spec, Liberal, Spec, Strict};

// The README's Rust examples are compiled and run as doctests, so the front
// page cannot drift from the code.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
