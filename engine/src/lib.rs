//! prust's engine: adaptation-based LTL model checking of protocol objects.
//!
//! # Background
//!
//! Threads that talk through channels are easy to get wrong: a message
//! overtakes another, a reply never comes, two roles wait for each other
//! forever. prust lets you put the *communication* of a program into one
//! **protocol object** — every role's control state and every message in
//! transit — and prove properties of it in an ordinary `cargo test`.
//!
//! The engine explores every run of the object. It clones the object and
//! probes each possible action with the non-blocking try-operations of the
//! [`Protocol`] trait: the very code that real threads run, in a loop with
//! parking, through the blocking API. The property is an LTL formula (Owl
//! syntax) whose atomic propositions are patterns over actions; its negation
//! is translated into a Büchi automaton (by `owl-lite`) and the product of
//! the object's runs and the automaton is searched on the fly for an
//! accepting cycle (Couvreur's SCC algorithm). No cycle: the property holds
//! on every run — proven, not sampled. A cycle: here is a run that violates
//! it.
//!
//! # Writing tests
//!
//! ```
//! use engine::{check, check_violated, dummies, Message, Protocol, Refused, RoleId};
//!
//! #[derive(Clone, Debug)]
//! struct Move;
//!
//! /// White and black alternate moves; one message in transit at a time.
//! #[derive(Clone, Debug, PartialEq, Eq, Hash)]
//! struct Chess { turn: RoleId, in_transit: bool }
//!
//! impl Protocol for Chess {
//!     fn roles(&self) -> Vec<String> { vec!["white".into(), "black".into()] }
//!     fn try_send(&mut self, role: RoleId, to: RoleId, msg: Message) -> Result<(), Refused<Message>> {
//!         if role == self.turn && to != role && !self.in_transit {
//!             self.in_transit = true;
//!             Ok(())
//!         } else {
//!             Err(Refused(msg)) // refusals hand the message back, object unchanged
//!         }
//!     }
//!     fn try_recv(&mut self, role: RoleId, from: Option<RoleId>) -> Result<(RoleId, Message), Refused> {
//!         let sender = self.turn;
//!         if self.in_transit && role != sender && from.is_none_or(|f| f == sender) {
//!             self.in_transit = false;
//!             self.turn = role;
//!             Ok((sender, Message::new(Move)))
//!         } else {
//!             Err(Refused(()))
//!         }
//!     }
//! }
//!
//! let game = Chess { turn: 0, in_transit: false };
//! // Black waits for white's move before it moves.
//! check(r#"!"black SEND <Move>" U "black RECV <Move>""#, game.clone(), dummies![Move]);
//! // Every move is answered.
//! check(r#"G ("white SEND *" -> F "white RECV *")"#, game.clone(), dummies![Move]);
//! // Properties that must fail: get the run that shows it.
//! let run = check_violated(r#"G !"black SEND *""#, game, dummies![Move]);
//! assert_eq!(run.steps().nth(2).unwrap().to_string(), "black SEND <Move> TO white");
//! ```
//!
//! - The **dummies** are one sample message per type; every send is probed
//!   with each dummy to each other role. A type's name is the last segment
//!   of its Rust path, or set it with [`Message::named`].
//! - An object that declares its message types ([`Protocol::type_names`];
//!   every strict and liberal object of the `protocols` crate does) needs
//!   no hand-written dummies: `dummies![]` means "the object's own" (see
//!   [`declared_dummies`]). Dummies given for it must stand for exactly
//!   the declared types, one each, or the check is an [`Error::Dummies`]
//!   that lists both sets and suggests the closest name: a missing type
//!   would never be sent, so a property could hold only because part of
//!   the object was not explored. A dummy stands for the declared type that
//!   is its short name or its full path (a `chess::Move` for `Move`); two
//!   dummies of different paths with one short name (`a::Move`, `b::Move`)
//!   are ambiguous, an error too, since the object tells types apart by
//!   short name. An object that
//!   declares nothing (the `type_names` default) is checked with the
//!   dummies as given: **the sends of a type without a dummy are never
//!   probed**, and the check covers only the runs that use the types given.
//! - **Atoms** are `"ROLE SEND|RECV|CLOSE TYPE [TO|FROM PEER]"`: every
//!   position may be `*` (or contain `*`, as in `worker_*`), types are
//!   `<Short>` or `path::To::Type`, keywords are case-insensitive, and
//!   `"True"`, `"False"`, `"END"`, `"DEADLOCK"` are special. A name that the
//!   protocol and the dummies do not have is an [`Error`] that lists the
//!   names that exist and suggests the closest — a typo never makes a
//!   property hold vacuously.
//! - [`check`] panics with the full [`Report`] unless the property holds;
//!   [`check_violated`] is its mirror; [`try_check`] and the [`Checker`]
//!   builder return `Result<Report, Error>`. A [`CheckSession`] checks many
//!   formulas on one object and reuses the states found so far.
//! - Options default from environment variables, so a failing test can be
//!   rerun with other settings without editing it (`PRUST_MAX_STATES`,
//!   `PRUST_TIMEOUT`, `PRUST_SEMANTICS`, …): the [table of every
//!   variable](mod@env) says what each means and takes, and which front ends
//!   read it. [`Checker::from_env`] reports a bad value as
//!   [`Error::Config`].
//!
//! # Partial-order reduction
//!
//! An object that declares which of its actions do not interfere
//! ([`Protocol::independence`]: per state, *components* whose actions
//! nothing else enables, disables or fails to commute with) is searched
//! with ample sets: where it is sound, a state is expanded by the enabled
//! actions of one component only. It applies when
//! - the object declares it (the strict object built on the fly, from its
//!   specification's parallel branches; the liberal object, from its
//!   roles; nothing else by default),
//! - the formula does not depend on where the steps its atoms cannot see
//!   fall: no `X`, and no reference to a bare first step
//!   ([`por::applicability`] decides it syntactically; `G !"DEADLOCK"`,
//!   `G (p -> F q)`, `G F p`, `!p U q` are in),
//! - and it is not switched off ([`Checker::partial_order`], `PRUST_POR=0`,
//!   `prust check --no-por`).
//!
//! Ample sets hold no action that an atom of the formula sees, and obey the
//! cycle proviso (breadth-first: every ample successor is new or one level
//! deeper; depth-first: none is on the stack). States where nothing is
//! enabled are the same as in the full search, so every deadlock and
//! termination is found. The verdict is the full search's; a
//! counterexample is a real run (replayed under the determinism check),
//! though not always the shortest one. The determinism check also tests
//! each declaration it uses (both orders on clones) and reports a wrong one
//! as [`Error::Contract`]. The report says whether the reduction was used
//! ([`Stats::reduction`]); exactly what is assumed is in [`por`].
//!
//! # Every core, and more than one machine
//!
//! Safety properties (the ones searched breadth-first: every `G !bad`, and
//! any formula whose violations all show in a finite prefix) are searched
//! on [`Checker::threads`] threads, by default every core
//! (`PRUST_THREADS`, `prust check --threads N`). The search is
//! level-synchronous: the store has one shard per thread, each owned by
//! one thread for a level; a thread expands the level's states of its
//! shards in place and deduplicates the successors that fall in them, and
//! hands the others to their owners. No lock is taken per successor and no
//! object is cloned; objects need only be `Send` (as [`Protocol`]
//! requires), since a stored object is only used by its shard's owner. An
//! object stored as bytes ([`Protocol::encode`], [`Checker::collapse`]) is
//! searched over bytes: each thread decodes the states it expands and
//! encodes the successors it makes, and only bytes go between the threads
//! (about the one-thread collapse store's bytes a state; a state that
//! writes no bytes, or whose bytes do not decode to it, sends the search
//! back to one thread, said in the report). The
//! next level is put in the order in which one thread would have found it,
//! so the verdict and the counterexample (a shortest one) are the
//! one-thread search's, whatever the thread count and however the threads
//! race; a differential test holds them to it. Only the statistics differ:
//! a violation is reported when its level is done, so more states may be
//! counted. Levels of fewer than 1,024 states
//! ([`Checker::parallel_level`], `PRUST_PARALLEL_LEVEL`) are expanded by
//! the calling thread alone, and the other threads start only when a level
//! reaches that size: a small check starts no thread (the report says
//! so). Every limit holds as on one thread: the state limit is counted in
//! the store, and the time and memory are watched while the threads run; a
//! search cut short is inconclusive, never "holds". The counterexample is
//! rebuilt as the one-thread search rebuilds its own (a breadth-first
//! search through the stored states, which keep no parent link).
//!
//! Liveness properties (and every formula under
//! [`Semantics::InfiniteRunsOnly`]) are decided by Couvreur's depth-first
//! SCC search, which stays one search on one thread; the threads do its
//! expensive part. A check first runs it bounded to
//! [`Checker::parallel_level`] product states; past that, the object's
//! reachable states are expanded breadth-first on the threads (the
//! try-operations, the clones: what a product search spends its time on),
//! each state's complete successor list is kept, and the depth-first
//! search runs again reading those lists instead of probing. They are what
//! probing gives, and a state without one (its expansion panicked, or a
//! limit cut the phase) is probed as on one thread, so the verdict, the
//! counterexample, the product state, transition and depth counts and any
//! error are the one-thread search's; a differential test holds them to
//! it. (The protocol states stored may be more: the threads expand every
//! reachable one, also those the automaton never pairs with.) The price: the early exit of the
//! depth-first search on a violation is lost past the bound (the states
//! are all expanded first), and the lists cost 8 bytes a transition of
//! the object while the check runs. The time and memory limits are
//! watched while the threads expand; a limit there makes the check
//! inconclusive.
//!
//! What runs on one thread, saying so in the report
//! ([`Stats::single_thread`]; [`Stats::threads`] is what was used):
//! partial-order reduction, hash compaction, the determinism check (on by
//! default in debug builds), the collapse store for liveness (it drops
//! objects that the threads would need; the safety search over bytes runs
//! on every thread), and, unless threads are asked for
//! ([`Checker::threads`], `PRUST_THREADS`, `--threads`), objects stored
//! whole that may hold heap allocations (whose
//! [`Protocol::prefers_bytes`] is `true`, as by default): two threads
//! storing and freeing each other's heap blocks cost them more than one.
//! `threads(1)` is the one-thread search exactly.
//!
//! A check too big for one machine can be spread over several with what
//! exists now, soundly:
//! - *One formula per machine.* Each formula of a suite is an independent
//!   check: run `prust check PROTOCOL 'F1'` on one machine, `'F2'` on the
//!   next (a shell loop over `ssh`, GNU `parallel --sshlogin`, a CI
//!   matrix). The suite holds when every run exits 0; exit 1 is a
//!   violation, 2 inconclusive (see `prust check --help`).
//! - *One instance per machine.* Parameterised protocols
//!   (`npb-is-concurrent:K`) are separate checks per parameter.
//! - *Bounded depth first, then deeper.* `PRUST_MAX_DEPTH=d` proves or
//!   refutes a safety property for every run up to `d` steps with little
//!   memory; a violation found is real and shortest, and an inconclusive
//!   verdict says only that the bound was hit.
//! - *Swarm-style bug hunting* (as SPIN's swarm): many searches with
//!   different limits (`PRUST_MAX_DEPTH`, `PRUST_MAX_STATES`,
//!   `PRUST_TIMEOUT`) and, for liveness, different formulas over the same
//!   protocol, each on its own machine; any violation found is real, but
//!   only a search that finishes proves a property. prust has no
//!   randomised search order (and its hash compaction uses one fixed
//!   seed), so the searches of one configuration are the same search:
//!   vary the limits, not a seed.
//!
//! - *One formula's state space over N machines:* [`Checker::share`]
//!   (`prust check --share I/N`, `PRUST_SHARE=I/N`). Run shares `1/N` to
//!   `N/N`, one a machine, with nothing passed between them; the property
//!   holds when every share holds, and a violation that any share reports
//!   is a whole run from the initial state, replayable as any other.
//!   `scripts/share-check.sh` runs the N shares (local processes or `ssh`)
//!   and combines their exit statuses.
//! - *One state space over N processes that talk:* the `prust-distributed`
//!   crate (`prust check --distributed`) owns each product state on one
//!   process, by hash, and exchanges successors over the network: no
//!   redundancy, for any formula, with or without weak fairness (safety
//!   breadth first, liveness by OWCTY's search for accepting cycles). It
//!   walks the
//!   product through
//!   [`ProductGraph`] ([`CheckSession::product_graph`]), the same
//!   successors and reports the engine's own searches use.
//!
//! How a share searches: breadth-first from the initial product state
//! (protocol state × automaton state) down to a *split level* `k`, the
//! first level with [`Checker::SHARE_STATES`] (32) states a share, or
//! [`Checker::share_level`]. The states at distance exactly `k`, the
//! *frontier*, are dealt out round robin in the order the breadth-first
//! search found them, which is the same on every machine: the search is
//! deterministic for one program, object, formula and semantics (the
//! report's split digest, [`ShareStats::digest`], lets the runs confirm it).
//! Share `i` then searches (1) every state at distance below `k`, as every
//! share does, and (2) everything reachable from its own frontier states,
//! without bound: safety properties breadth-first from those states, the
//! rest depth-first (Couvreur's search, one tree a frontier state).
//!
//! Why that decides the property. A step changes the distance from the
//! initial state by at most one, so any path from the initial state to a
//! state at distance `k` or more passes through a state at distance
//! exactly `k`. A violation is a reachable bad state (safety) or a
//! reachable accepting cycle with a path to it (a lasso). If every state
//! of the violation lies at distance below `k`, (1) finds it in every
//! share: the bad state is seen by the levels, and the cycle lies in the
//! part of the product below `k`, which a depth-first search confined to it
//! finds. Otherwise some state of the lasso (its prefix or its cycle) lies
//! at distance exactly `k`: a frontier state `f`, from which the rest of
//! the violation is reachable (the bad state, or the whole cycle: a cycle
//! through `f` or after it). The share that owns `f` searches everything
//! reachable from `f`, so it finds *a* violation. It must not stop at other
//! shares' frontier states, since a cycle may run through several: each
//! share's search past the split is unrestricted. Conversely, whatever a
//! share reports is a real run: the path of the levels to its frontier
//! state, then the path its search found, each step a product step; the
//! determinism check (and hash compaction) re-execute it before it is
//! reported, and `Counterexample::replay` re-checks it. So "every share
//! holds" is "no violation", and a share cut short by a limit is
//! inconclusive, as any search.
//!
//! The price of no communication is redundancy: the levels above the
//! split are searched by every share, and the futures of the frontier
//! states overlap (two shares' states often reach the same states later),
//! so N shares together store more than one search would, and one share
//! stores less than the whole only where the futures fan out (BENCHMARKS.md,
//! "one check over several machines"). A share runs
//! on one thread and without partial-order reduction (the reduction's
//! provisos are stated for a search from the initial state; both said in
//! the report). The state limit counts each part of a share's search on
//! its own. `share(1, 1)` is the whole check, searched the share's way.
//!
//! # Finite runs: the two semantics
//!
//! A run can stop: the protocol terminated, or every role waits for
//! something that never comes. By default ([`Semantics::Stutter`], SPIN's
//! convention) a run that stops is extended with *stutter steps* forever:
//! no action atom holds on them, `"END"` holds if the object says
//! [`Protocol::is_terminated`], and `"DEADLOCK"` holds otherwise. A state
//! stutters only when no action of the whole alphabet is enabled.
//!
//! [`Semantics::InfiniteRunsOnly`] is Prut4j's: only infinite runs count, so
//! a run that stops can never be a counterexample. Take a client whose
//! request is never answered:
//!
//! ```
//! # use engine::{check_violated, dummies, Checker, Message, Protocol, Refused, RoleId, Semantics};
//! # #[derive(Clone, Debug)] struct Req;
//! /// client sends a request, server receives it, and then nothing.
//! #[derive(Clone, Debug, PartialEq, Eq, Hash)]
//! struct OneShot { step: u8 }
//! impl Protocol for OneShot {
//!     fn roles(&self) -> Vec<String> { vec!["client".into(), "server".into()] }
//!     fn try_send(&mut self, r: RoleId, to: RoleId, m: Message) -> Result<(), Refused<Message>> {
//!         if self.step == 0 && r == 0 && to == 1 { self.step = 1; Ok(()) } else { Err(Refused(m)) }
//!     }
//!     fn try_recv(&mut self, r: RoleId, _: Option<RoleId>) -> Result<(RoleId, Message), Refused> {
//!         if self.step == 1 && r == 1 { self.step = 2; Ok((0, Message::new(Req))) } else { Err(Refused(())) }
//!     }
//! }
//! let answered = r#"G ("client SEND *" -> F "client RECV *")"#;
//! // Stutter semantics: the run stops after the request, unanswered.
//! let run = check_violated(answered, OneShot { step: 0 }, dummies![Req]);
//! assert!(run.to_string().contains("then nothing can happen: deadlock"));
//! // Infinite runs only: there is no infinite run, so it "holds".
//! let r = Checker::new()
//!     .semantics(Semantics::InfiniteRunsOnly)
//!     .check(answered, OneShot { step: 0 }, dummies![Req])
//!     .unwrap();
//! assert!(r.holds());
//! ```
//!
//! Use `InfiniteRunsOnly` to reproduce Prut4j's published verdicts; use the
//! default for everything else. `G !"DEADLOCK"` is deadlock freedom.
//!
//! ## Fairness
//!
//! A liveness property of a protocol with concurrent parts is refuted, by
//! default, also by runs that no scheduler produces: a cycle of one part
//! in which a role of another part can move in every state and never
//! does. [`Checker::fairness`]`(`[`Fairness::Weak`]`)` (`PRUST_FAIRNESS=weak`,
//! `prust check --fairness weak`) counts only weakly fair runs: no role
//! stays enabled from some point on without ever moving. It is decided
//! exactly, as acceptance marks of the product, not by copies of the state
//! space ([`Fairness`] says why that is exact); safety verdicts do not
//! change. The default, [`Fairness::None`], is SPIN's default and Prut4j's.
//!
//! # Debugging failures
//!
//! A violation prints a [`Counterexample`]: numbered steps, one action per
//! line, the start of the repeated cycle marked, or for a run that stops the
//! last line "then nothing can happen: deadlock (waiting: …)" or "then the
//! protocol has terminated". When the steps shown already violate the
//! property whatever comes next (a safety property broken at the last
//! step), the search stops there and says so: "then, whatever happens next,
//! the property is already violated". The counterexample is a shortest
//! one where that costs at most one and a half times the search, and says
//! so where it is not shown to be: [`Checker::shortest`] gives the terms.
//!
//! - [`Counterexample::replay`] re-executes the steps on a fresh object and
//!   returns a transcript with the object's state (`Debug`) after each step;
//!   it panics if the object behaves differently (a protocol that is not
//!   deterministic, or a different initial object).
//! - [`Counterexample::to_dot`] draws the run as a message sequence chart
//!   (Graphviz: one lifeline per role, an arrow from each send to its
//!   receive, the cycle boxed, the ending shown).
//! - A counterexample can be kept as a **trail file**
//!   ([`Counterexample::to_trail`], [`Report::to_trail`]): a small,
//!   versioned text format with one step per line, to read, edit and
//!   replay later on a fresh object with [`Trail::parse`] /
//!   [`Trail::read`] and [`Trail::replay`], which says at which step and
//!   why a trail no longer replays. With `PRUST_TRAIL_DIR=dir` (or
//!   [`Checker::trail_dir`]) every failing [`check`] saves its
//!   counterexample there and names the file in its panic message.
//! - Protocol code that panics during the search is reported as
//!   [`Error::ProtocolPanic`] with the action and the trace that led there;
//!   a panic in the object's own Clone, Hash or Eq (which the engine calls
//!   on every state it stores) or in `roles()` is [`Error::ObjectPanic`],
//!   naming the object's type and the operation.
//! - With the determinism check (on by default in debug builds) every probe
//!   runs on two clones; different outcomes are [`Error::Nondeterminism`],
//!   and a refusal that changed the object is [`Error::Contract`].
//! - A long search shows a progress line on stderr after a second when
//!   stderr is a terminal (`PRUST_PROGRESS=1` forces it).
//!
//! # Limitations
//!
//! - The search is explicit-state: it stores every distinct protocol state
//!   once (and a few bytes per product state). Infinite-state objects (an
//!   unbounded counter, an unbounded queue) need a limit, and a limit gives
//!   [`Verdict::Inconclusive`], never [`Verdict::Holds`].
//! - A counterexample is a lasso or, for a violation that a finite prefix
//!   already seals (safety properties, under the default semantics), that
//!   prefix. On an infinite-state object a *liveness* violation whose runs
//!   never repeat a state (every run of an unbounded counter violates
//!   `F G !"watch RECV *"`, but no run is a lasso) is reported as
//!   inconclusive when a limit stops the search.
//! - Messages compare by type, not by value: the object's state is *which*
//!   types are in transit; payloads are the dummies.
//! - Every probe goes through the object's try-operations, so the cost per
//!   state grows with the alphabet (channels × types; roles² × types for an
//!   object that declares no topology). Objects with many roles pay for it
//!   unless they declare their topology: [`Protocol::sends_to`] (each
//!   role's outgoing channels) or [`Protocol::peers`] (each role's
//!   partners, both directions); the alphabet then has letters only along
//!   the declared channels, and the determinism check probes the other
//!   pairs to verify the declaration. An object that knows its moves can
//!   skip probing altogether by listing them ([`Protocol::enabled`]); the
//!   engine then performs only the listed actions, and the determinism
//!   check compares the list with probing in every state. The strict and
//!   liberal objects of the `protocols` crate declare their topology and
//!   list their moves.
//! - At most 64 distinct atoms per formula and 32 acceptance sets (limits of
//!   the automaton representation).

// A model checker's verdicts rest on safe Rust: no crate here needs unsafe.
#![forbid(unsafe_code)]

// The modules, in the order of a check: `checker` (the builder and the
// pipeline) turns the formula into atoms (`pattern`) and an automaton
// (`property`), evaluates it over the object's letters (`alphabet`,
// `product`), and runs a `search` (Couvreur's DFS or the safety BFS, under
// a `budget`) over the product with the object's states, which
// `successors` interns, probes and caches; the result is a `report`, a
// counterexample can be kept as a `trail`. `ids` names the integers they
// share, `error` says what went wrong.
mod alphabet;
mod budget;
mod checker;
pub mod env;
mod error;
mod fairness;
pub mod hint;
// Self-contained HTML pages of results (`Report::write_html`, and the
// page model other front ends fill).
pub mod html;
mod ids;
mod limits;
mod machine;
// Plumbing for the workspace's other crates, not the checker's API:
// spelling hints (`closest`).
#[doc(hidden)]
pub mod names;
mod panic_text;
mod pattern;
pub mod por;
mod product;
mod property;
mod protocol;
// Plumbing: the one panic hook, shared with `prust::explore`.
#[doc(hidden)]
pub mod quiet;
mod report;
mod search;
mod semantics;
mod share;
pub mod shortest_lasso;
// Plumbing: threads with room for deep recursion, shared with the CLI.
#[doc(hidden)]
pub mod stack;
mod successors;
mod tag_table;
// Test support (random protocol objects), shared by the unit tests and,
// through the `testing` feature, the integration tests.
#[cfg(any(test, feature = "testing"))]
#[doc(hidden)]
pub mod testing;
pub mod trail;

pub use budget::{parse_memory_size, parse_timeout};
pub use protocol::ActionKind;
// The one time check, shared with the protocols crate's builds and with
// `prust::explore` (see `Deadline`'s docs): plumbing, not the library's
// surface.
#[doc(hidden)]
pub use budget::Deadline;
// The limits of a check as a test for a translation with no check around
// it (`prust translate`): plumbing too.
#[doc(hidden)]
pub use budget::Watch;
pub use checker::{
    check, check_violated, try_check, CheckSession, Checker, ProductEdge, ProductGraph, Share,
};
pub use error::{AtomError, DummiesError, Error, NameKind};
pub use fairness::{Fairness, UnknownFairness};
pub use limits::{DefaultBudgets, Limits, TEST_MAX_MEMORY, TEST_TIMEOUT};
pub use machine::{default_max_memory, peak_resident_bytes, resident_bytes};
#[doc(hidden)]
pub use panic_text::panic_message;
pub use por::ReductionStatus;
pub use protocol::origin;
pub use protocol::{
    declared_dummies, interned_type_path, Enabled, Message, MessageEnum, MessageType, Payload,
    Protocol, Refused, RoleId,
};
pub use protocol::{ActionRef, Independence};

/// What `#[derive(prust::Message)]` expands to names, through the crate
/// that re-exports this module (`prust`, or the engine itself): not API.
#[doc(hidden)]
pub mod __private {
    pub use super::{EnumEntry, MessageEnum};
    pub use inventory;
}
#[doc(hidden)]
pub use protocol::EnumEntry;
pub use report::{
    Bitstate, Counterexample, CounterexampleStep, Ending, Limit, ReplayError, Report, ShareStats,
    Shortness, Stats, Verdict,
};
pub use semantics::{Semantics, UnknownSemantics};
pub use trail::{Trail, TrailError, TrailStep};

/// Parses an atom's text (without its quotes) as a formula's atom would be
/// parsed, and says only whether it is well-formed. Not part of the API: it
/// exists so that the fuzz targets and the smoke tests can reach the atom
/// parser directly, without a protocol object around it.
///
/// ```
/// assert!(engine::fuzz_parse_atom("black SEND <Move> TO white").is_ok());
/// assert!(engine::fuzz_parse_atom("black SNED <Move>").is_err());
/// ```
#[doc(hidden)]
pub fn fuzz_parse_atom(text: &str) -> Result<(), AtomError> {
    pattern::parse_atom(text).map(|_| ())
}
