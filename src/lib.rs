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
//! - [Background](#background): what prust does, and why
//! - [Writing tests](#writing-tests): specification → object → check
//! - [Real threads on the same object](#real-threads-on-the-same-object)
//! - [Debugging failures](#debugging-failures)
//! - [The command line](#the-command-line)
//! - [Limitations](#limitations)
//!
//! # Background
//!
//! Threads that talk through channels are easy to get wrong: a message
//! overtakes another, a reply never comes, two roles wait for each other
//! forever. Tests that run the threads see one interleaving per run, and
//! the bad one is rare. prust asks you to put the *communication* of the
//! program into one **protocol object** — the control state of every role
//! and every message in transit — and then does two things with that same
//! object:
//!
//! 1. **It proves properties of it** in an ordinary `#[test]`. A property is
//!    an LTL formula over the actions of a run (`"black SEND <Move>"`); the
//!    checker explores *every* run of the object and either proves that all
//!    of them satisfy the formula or hands back one that does not, as a
//!    numbered trace.
//! 2. **Your threads run on it.** The blocking API ([`session`]) lets each
//!    thread own one role's endpoint and `send`/`recv` through the object,
//!    which refuses (blocks) every operation the protocol does not allow at
//!    that moment, and reports a communication deadlock instead of hanging.
//!
//! ## Adaptation-based model checking
//!
//! Classic model checking verifies a *model* written in a separate language
//! (Promela for SPIN), and nothing ties the model to the code that ships.
//! prust (after Prut4j, which does the same for Java) checks the object
//! itself: the engine *adapts* it to a transition system by cloning it and
//! probing its non-blocking try-operations ([`Protocol::try_send`],
//! [`Protocol::try_recv`], [`Protocol::try_close`]) — the very operations a
//! blocked thread retries at run time. The object's state (`Eq + Hash`) is
//! its identity in the search. The negation of the formula is translated to
//! a Büchi automaton (by [`owl_lite`]), and the product of the object's runs
//! with the automaton is searched on the fly for an accepting cycle. None:
//! the property **holds** on every run (a proof, not a sample). One: the
//! property is **violated** and here is the run. A search cut short by a
//! limit is **inconclusive**, never "holds" ([`Verdict`]).
//!
//! ## Strict and liberal objects
//!
//! A global protocol written once ([`spec`]) gives two objects:
//!
//! - [`Strict`] keeps the one global state: its runs are exactly the runs of
//!   the specification. Threads share it under one lock.
//! - [`Liberal`] gives every role its own projection of the protocol and an
//!   inbox; roles share no lock. A role acts on what *it* knows, so actions
//!   that no message orders may happen in any order, and runs appear that
//!   the specification does not have. Check the same property on both: the
//!   checker shows where they differ (example below).
//!
//! ## Finite runs: stutter semantics
//!
//! A run can stop: the protocol terminated, or every role waits for
//! something that never comes. prust follows SPIN here: by default
//! ([`Semantics::Stutter`]) a run that stops is extended by *stutter steps*
//! forever, on which no action atom holds, and `"END"` holds if the object
//! says it terminated, `"DEADLOCK"` otherwise. So `G !"DEADLOCK"` is
//! deadlock freedom, `F "END"` is termination, and a request that is never
//! answered because everything stopped violates `G (req -> F answer)`.
//! Prut4j counts infinite runs only, so a protocol that deadlocks at once
//! satisfies every property there; [`Semantics::InfiniteRunsOnly`]
//! (`PRUST_SEMANTICS=omega`) reproduces its published verdicts.
//!
//! # Writing tests
//!
//! ## Specification → object → check
//!
//! Write the global protocol with the combinators of [`spec`] (Discourje's
//! notation: [`msg`](spec::msg) is asynchronous `-->>`,
//! [`sync`](spec::sync) is `-->`, [`seq`](spec::seq), [`alt`](spec::alt),
//! [`par`](spec::par), `.star()`/`.plus()`/`.opt()`, named recursive
//! sub-protocols with [`Spec::define`](spec::Spec::define) and
//! [`call`](spec::call), and [`cat_every`](spec::cat_every) /
//! [`par_every`](spec::par_every) / [`alt_every`](spec::alt_every) over
//! index ranges), build an object from it and check formulas on the object:
//!
//! ```
//! use prust::spec::*;
//! use prust::{check, check_violated, dummies, Strict};
//!
//! // A client sends requests until it quits; the server answers each one.
//! let service = Spec::new(
//!     "service",
//!     seq([msg("Req", "client", "server"), msg("Resp", "server", "client")])
//!         .star()
//!         .then(msg("Quit", "client", "server")),
//! );
//! let object = Strict::from_spec(&service).unwrap();
//!
//! // Every request is answered, and nothing ever deadlocks.
//! check(r#"G ("client SEND <Req>" -> F "client RECV <Resp>")"#, object.clone(), dummies![]);
//! check(r#"G !"DEADLOCK""#, object.clone(), dummies![]);
//! // The client may keep asking forever: termination is not guaranteed.
//! let run = check_violated(r#"F "END""#, object, dummies![]);
//! assert!(run.to_string().contains("cycle starts here"));
//! ```
//!
//! [`check`] panics with the full report unless the property holds (the
//! normal `#[test]` use); [`check_violated`] is its mirror and returns the
//! counterexample; [`try_check`] and the [`Checker`] builder (limits,
//! semantics, determinism check) return `Result<Report, Error>`; a
//! [`CheckSession`] checks many formulas on one object and explores its
//! states once. An ill-formed specification (an unknown definition,
//! unguarded recursion, a role talking to itself) is an error of
//! `from_spec`, not a panic.
//!
//! ```
//! use prust::spec::*;
//! use prust::{dummies, Checker, Counterexample, Report, Semantics, Strict, Verdict};
//!
//! // a says Hi and b receives it, once or as often as they like.
//! let spec = Spec::new("lossy", msg("Hi", "a", "b").plus());
//! let mut session = Checker::new()
//!     .semantics(Semantics::Stutter) // the default, spelled out
//!     .session(Strict::from_spec(&spec).unwrap(), dummies![])
//!     .unwrap();
//! // One exploration of the object's states serves every formula.
//! let always_received: Report = session.check(r#"G ("a SEND *" -> F "b RECV *")"#).unwrap();
//! assert!(always_received.holds());
//! // ... but they may go on forever: termination is violated, by a lasso.
//! let ends: Report = session.check(r#"F "END""#).unwrap();
//! let run: &Counterexample = ends.counterexample().unwrap();
//! assert!(matches!(ends.verdict, Verdict::Violated(_)));
//! assert!(run.to_string().contains("cycle starts here"));
//! ```
//!
//! The same specification gives the liberal object; where the projection
//! lets runs through that the specification does not have, the same
//! property tells them apart:
//!
//! ```
//! use prust::spec::*;
//! use prust::{check, check_violated, dummies, Liberal, Strict};
//!
//! // a tells b something, and only then may c tell b something.
//! let relay = Spec::new("relay", seq([msg("X", "a", "b"), msg("Y", "c", "b")]));
//! let c_waits = r#"!"c SEND *" U "a SEND *""#;
//! check(c_waits, Strict::from_spec(&relay).unwrap(), dummies![]);
//! // c hears nothing from a, so its projection cannot wait for a's send.
//! let run = check_violated(c_waits, Liberal::from_spec(&relay).unwrap(), dummies![]);
//! assert_eq!(run.steps().next().unwrap().to_string(), "c SEND <Y> TO b");
//! ```
//!
//! ## Dummies
//!
//! The checker probes every send with one sample message per type, the
//! **dummies**, to each other role. An object built from a specification
//! declares its types, so it needs no hand-written dummies: pass
//! `dummies![]`, and an empty list means "one dummy for each type the
//! object declares" (`Strict::dummies()` gives the same list). A non-empty
//! list that misses or misspells a declared type is an error, never a
//! silently smaller alphabet. For your own [`Protocol`] types (which
//! declare no types unless they implement [`Protocol::type_names`]), list
//! one value of each message type: `dummies![Move, Message::named("Boolean",
//! true)]` ([`dummies!`] wraps each value in [`Message::new`]); a type's
//! name is the last segment of its Rust path, or the name given to
//! [`Message::named`]. Messages compare by type, never by payload: the
//! object's state is *which* types are in transit.
//!
//! ## Hand-written protocol objects
//!
//! Any `Clone + Eq + Hash + Send` type that implements [`Protocol`] can be
//! checked and run. The contract (see [`Protocol`]): try-operations never
//! block, are deterministic (every choice is an argument), and a refused
//! operation leaves the object unchanged and hands the message back.
//!
//! ```
//! use prust::{check, check_violated, dummies, Message, Protocol, Refused, RoleId};
//!
//! #[derive(Clone, Debug)]
//! struct Move;
//!
//! /// White and black alternate moves; one move in transit at a time.
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
//!             Err(Refused(msg)) // a refusal hands the message back, object unchanged
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
//! check(r#"!"black SEND <Move>" U "black RECV <Move>""#, game.clone(), dummies![Move]);
//! check(r#"G ("white SEND *" -> F "white RECV *")"#, game.clone(), dummies![Move]);
//! let run = check_violated(r#"G !"black SEND *""#, game, dummies![Move]);
//! assert_eq!(run.steps().nth(2).unwrap().to_string(), "black SEND <Move> TO white");
//! ```
//!
//! ## Formulas and atoms
//!
//! Formulas use Owl's LTL syntax: `!`, `&`, `|`, `->`, `<->`, `^`, `X`,
//! `F`, `G`, `U`, `W`, `R`, `M`, `true`, `false`. Unary operators bind
//! tightest (`!a U b` is `(!a) U b`); parenthesise when in doubt. Atoms are
//! quoted patterns over actions, as Prut4j users know them:
//!
//! ```text
//! "ROLE SEND|RECV|CLOSE TYPE [TO|FROM PEER]"       every position may be *, or contain it
//! "black SEND <Move> TO white"   "worker_* RECV *"   "* SEND * TO *"
//! "True"  "False"  "END" (a terminated run's stutter steps)  "DEADLOCK" (a stuck run's)
//! ```
//!
//! Types are `<Short>` or a full path (`chess::Move`), keywords are
//! case-insensitive, names are not. A role, type or peer that neither the
//! object nor the dummies have is an [`Error`] that lists the names that
//! exist and suggests the closest: a typo never makes a property hold
//! vacuously.
//!
//! ```
//! # use prust::spec::*;
//! # use prust::{dummies, try_check, Error, Strict};
//! let ping = Strict::from_spec(&Spec::new("ping", msg("Ping", "a", "b").plus())).unwrap();
//! let err = try_check(r#"G ("a SEND *" -> F "bb RECV *")"#, ping, dummies![]);
//! assert!(matches!(err, Err(Error::Atom { .. })));
//! assert!(err.unwrap_err().to_string().contains("did you mean `b`?"));
//! ```
//!
//! ## Property suites (`.owl` files)
//!
//! Formulas can live in data files instead of code: one `.owl` file per
//! protocol, each entry (a name, the expected verdict, a formula) run as its
//! own test, on both runtimes and both semantics unless the file says
//! otherwise. Add a test target with `harness = false` and one line:
//!
//! ```text
//! // tests/my-owl.rs        (Cargo.toml: [[test]] name = "my-owl", harness = false)
//! fn main() { prust::suite::main("tests/my-owl") }
//! ```
//!
//! The format is described in [`suite`]; the published Prut4j case studies
//! are in this repository's `tests/owl/`.
//!
//! # Real threads on the same object
//!
//! A [`Session`](session::Session) takes any protocol object and hands out
//! one endpoint per role; a [`SplitSession`](session::SplitSession) does the
//! same for a liberal object, without a lock common to all roles. Write the
//! role code once against [`BlockingEndpoint`](session::BlockingEndpoint)
//! and it runs on both. Every blocking call is a loop over the object's own
//! try-operations plus parking, so the code that was checked is the code
//! that runs.
//!
//! ```
//! use prust::session::{BlockingEndpoint, Session};
//! use prust::spec::*;
//! use prust::Strict;
//!
//! let ping_pong = Spec::new("ping-pong", seq([msg("Ping", "a", "b"), msg("Pong", "b", "a")]).plus());
//! let session = Session::new(Strict::from_spec(&ping_pong).unwrap());
//! let (mut a, mut b) = (session.endpoint("a").unwrap(), session.endpoint("b").unwrap());
//! drop(session); // every role has its endpoint
//!
//! fn pong(mut b: impl BlockingEndpoint, rounds: u32) -> Result<(), prust::session::Error> {
//!     for _ in 0..rounds {
//!         let n: u32 = b.recv_from("a")?.downcast().unwrap();
//!         b.send("a", prust::Message::named("Pong", n + 1))?;
//!     }
//!     Ok(())
//! }
//! let t = std::thread::spawn(move || pong(b, 3));
//! for i in 0..3u32 {
//!     a.send("b", prust::Message::named("Ping", i)).unwrap();
//!     let (_, reply) = a.recv().unwrap();
//!     assert_eq!(reply.downcast_ref::<u32>(), Some(&(i + 1)));
//! }
//! t.join().unwrap().unwrap();
//! ```
//!
//! **Deadlock detection.** When every live endpoint is blocked, nobody can
//! ever change the object again: every blocked call returns
//! [`Error::Deadlock`](session::Error::Deadlock), naming each blocked role
//! and what it waits for, instead of hanging. (An endpoint whose thread has
//! finished is not live; a role whose endpoint was never taken is live until
//! the `Session` value is dropped.)
//!
//! ```
//! use prust::session::{Error, Session};
//! use prust::spec::*;
//! use prust::Strict;
//!
//! // b expects a message that a never sends: a has finished its part.
//! let spec = Spec::new("lost", seq([msg("Hello", "a", "b"), msg("Bye", "a", "b")]));
//! let session = Session::new(Strict::from_spec(&spec).unwrap());
//! let (mut a, mut b) = (session.endpoint("a").unwrap(), session.endpoint("b").unwrap());
//! drop(session);
//! let t = std::thread::spawn(move || {
//!     a.send("b", prust::Message::named("Hello", ())).unwrap();
//!     // BUG: a forgets to say Bye and its thread ends (the endpoint is dropped).
//! });
//! b.recv_from("a").unwrap();
//! match b.recv_from("a") {
//!     Err(Error::Deadlock(d)) => assert!(d.to_string().contains("b waits to receive from a")),
//!     other => panic!("expected a deadlock, got {other:?}"),
//! }
//! t.join().unwrap();
//! ```
//!
//! The bundled protocols ([`bundled`]: chess, token rings and stars,
//! tic-tac-toe, rock-paper-scissors, go fish, the NPB kernels, two-buyer,
//! a load balancer, micro-benchmarks) each have a module of constructors
//! (the specification, the strict and the liberal object: e.g.
//! `prust::protocols::chess::strict()`), and [`bundled::by_name`] builds
//! one from a name such as `"token-star:4"`.
//! `cargo run --example chess`, `two_buyer` and `deadlock` run real threads
//! on them.
//!
//! # Exploring your program's schedules
//!
//! The checker proves properties of the object; [`explore`] checks your
//! program: the role functions you ship (`fn buyer2(ep: impl
//! BlockingEndpoint)`) run on real threads, **one at a time**, and every
//! endpoint operation is a scheduling point. The explorer runs every
//! schedule of those operations (depth-first, re-running the program for
//! each; a `recv()` from anyone branches over every possible sender) and
//! reports, for each distinct failure, the outcome, the trace as numbered
//! steps and the schedule, which replays it exactly
//! (`PRUST_SCHEDULE="…"` or [`explore::Explorer::replay`]):
//!
//! ```
//! use prust::explore::{explore, Explorer, Outcome};
//! use prust::session::BlockingEndpoint;
//! #[derive(Clone, Debug)]
//! struct Move(u32);
//! let game = |r: &mut prust::explore::Roles<'_, prust::Strict>| {
//!     r.spawn("white", |mut ep| {
//!         for i in 0..3 {
//!             ep.send("black", Move(i)).unwrap();
//!             ep.recv_from("black").unwrap();
//!         }
//!     });
//!     r.spawn("black", |mut ep| {
//!         for _ in 0..3 {
//!             let Move(i) = ep.recv_from("white").unwrap().downcast().unwrap();
//!             ep.send("white", Move(i)).unwrap();
//!         }
//!     });
//! };
//! let ex = Explorer::new()
//!     .property(r#"G ("white SEND <Move>" -> F "black RECV <Move>")"#)
//!     .explore(prust::protocols::chess::strict(), game);
//! assert!(ex.is_successful(), "{ex}");
//! ```
//!
//! A program's own decisions go through [`explore::choose`]`(n)`: under
//! exploration every value is tried; run for real, one is drawn at
//! random.
//!
//! Outcomes: a deadlock (the waiting endpoints get `Err(Deadlock)` as in
//! a session; panics that follow from it are part of it), a protocol
//! violation, a panic of your code (a failed assertion), an unfinished
//! protocol (every role returned, the object had not terminated), a
//! property violated by a trace (checked under the stutter semantics with
//! the atoms and name checks of [`check`]), and bounds hit (a preemption
//! bound, `max_steps`, `max_executions`, a timeout): an exploration cut
//! short is *incomplete* and never successful.
//!
//! **The assumption: threads may share nothing but the session.** The
//! explorer only sees endpoint operations, so the schedules it runs are
//! the interleavings of those; that is all there is to interleave only if
//! the roles share no lock, channel, atomic or I/O. A role that blocks on
//! something else would wait for a thread that is not allowed to run: it
//! is reported as stuck after a time limit (not a hang; its thread is
//! left running, cut off from every other execution), and a program
//! whose choices change between two runs of the same schedule is reported
//! as nondeterministic.
//!
//! # Debugging failures
//!
//! **Reading a counterexample.** A violation prints the steps of one bad
//! run, numbered, one action per line. An infinite run is a *lasso*: a
//! prefix, then `-- cycle starts here --` and the steps that repeat forever
//! (`(back to step N, forever)`). A run that stops ends with "then nothing
//! can happen: deadlock (waiting: …)" or "then the protocol has terminated"
//! (the stutter steps). When the steps shown already violate the property
//! whatever comes next (a safety property broken at the last step), the
//! trace ends with "then, whatever happens next, the property is already
//! violated"; the prefix is then a shortest path to where the violation
//! is certain.
//!
//! ```
//! # use prust::spec::*;
//! # use prust::{check_violated, dummies, Strict};
//! let spec = Spec::new("lost", seq([msg("Hello", "a", "b"), msg("Bye", "b", "a")]));
//! let object = Strict::from_spec(&spec).unwrap();
//! let run = check_violated(r#"G !"b SEND <Bye>""#, object.clone(), dummies![]);
//! assert_eq!(
//!     run.to_string(),
//!     "counterexample:
//!      1. a SEND <Hello> TO b
//!      2. b RECV <Hello> FROM a
//!      3. b SEND <Bye> TO a
//!   then, whatever happens next, the property is already violated
//! "
//! );
//! // Re-run the steps on a fresh object and see its state after each one.
//! let transcript = run.replay(object);
//! assert!(transcript.starts_with("initial: "));
//! // Draw the run with Graphviz: `dot -Tsvg`.
//! assert!(run.to_dot().starts_with("digraph"));
//! ```
//!
//! - [`Counterexample::replay`] re-executes the steps on a fresh object and
//!   panics, with the transcript so far, if the object behaves differently
//!   than during the search ([`Counterexample::try_replay`] returns the
//!   divergence instead).
//! - [`Counterexample::to_dot`] draws the lasso; `prust lts PROTOCOL
//!   --format dot` draws a bundled protocol's whole LTS, and `prust translate
//!   --format dot FORMULA` the automaton of a formula.
//! - Protocol code that panics during the search is reported as
//!   [`Error::ProtocolPanic`] with the action and the trace that led there;
//!   a panic in the object's own Clone, Hash or Eq (which the engine calls
//!   on every state it stores) or in `roles()` is [`Error::ObjectPanic`],
//!   naming the object's type and the operation.
//! - The determinism check (on by default in debug builds, so in `cargo
//!   test`) runs every probe on two clones: different outcomes are
//!   [`Error::Nondeterminism`], a refusal that changed the object is
//!   [`Error::Contract`].
//!
//! **Limits.** A search that a limit cuts short answers
//! [`Verdict::Inconclusive`], never "holds" (and [`check`] panics on it).
//! The liberal object of a protocol in which `a` may keep sending before `b`
//! receives has unboundedly full inboxes, so no search can cover it:
//!
//! ```
//! use prust::spec::*;
//! use prust::{check, dummies, Checker, Liberal, Limit, Strict, Verdict};
//!
//! let stream = Spec::new("stream", msg("X", "a", "b").star());
//! // Strict: each X is received before the next is sent; a finite proof.
//! check(r#"G !"DEADLOCK""#, Strict::from_spec(&stream).unwrap(), dummies![]);
//! // Liberal: a runs ahead of b without bound.
//! let report = Checker::new()
//!     .max_states(5_000)
//!     .check(r#"G !"DEADLOCK""#, Liberal::from_spec(&stream).unwrap(), dummies![])
//!     .unwrap();
//! assert!(matches!(report.verdict, Verdict::Inconclusive { limit: Limit::States(5_000), .. }));
//! assert!(!report.holds());
//! ```
//!
//! **Environment variables.** Every option of [`Checker`] defaults from the
//! environment, so a failing test can be rerun with other settings without
//! editing it: `PRUST_MAX_STATES`, `PRUST_TIMEOUT`, `PRUST_SEMANTICS`, …
//! The [table of every `PRUST_*` variable](mod@engine::env) says what each
//! means and takes, its default, and which of the checker, the `prust`
//! commands, the `.owl` suites and [`explore`] read it.
//!
//! A bad value in any of them is an [`Error`] (`Error::Config`) from
//! [`Checker::from_env`], and a panic with the same message from
//! [`Checker::new`]. The progress line is written straight to the
//! terminal's stderr, so `cargo test` does not capture it: run
//! `PRUST_PROGRESS=1 cargo test` to watch a long check.
//!
//! # The command line
//!
//! The `prust` binary (`cargo run --release -- SUBCOMMAND`, or `cargo
//! install --path .`) runs the same checks on bundled protocols, `.aut` files
//! and `.dcj` sessions; `prust help SUBCOMMAND` gives every option.
//!
//! ```text
//! prust translate [--negate] [--format hoa|dot|stats] [FORMULA]
//! prust list
//! prust lts PROTOCOL [--format dot|aut|stats]            PROTOCOL: token-star:4, chess, … or a file
//! prust check PROTOCOL FORMULA… [--runtime strict|liberal|on-the-fly] [--semantics stutter|omega]
//!                              [--max-states N] [--timeout SECS] [--max-memory SIZE]
//!                              [--format text|json] [--trail FILE] [--dot FILE] [--no-por]
//!                              [--hash-compaction] [--threads N] [--share I/N [--share-level K]]
//! prust replay PROTOCOL FILE [--runtime …] [--dot FILE]
//! prust import FILE.dcj[:SESSION[:ARG,ARG]] [--format rust|aut|dot|stats]
//! prust lint PROTOCOL [--only CHECK,…] [--exclude CHECK,…] [--format text|json] [--max-states N]
//!                    [--timeout SECS] [--max-memory SIZE] [--runtime strict|on-the-fly]
//! prust help [SUBCOMMAND]      prust SUBCOMMAND --help      prust --version
//! ```
//!
//! Without arguments `prust check` runs a demo on the bundled chess protocol
//! (one property that holds, one that does not) and exits with 0 when both
//! verdicts are the expected ones.
//!
//! **Protocols.** A PROTOCOL whose file name ends in `.dcj` (optionally
//! `:SESSION` and `:ARG,ARG` after it) is a session of a Discourje file
//! ([`dcj`]); one that ends in `.aut` or contains a `/` is an
//! Aldebaran `.aut` file; both are relative to the current folder; anything
//! else is a bundled protocol (`prust list`). `.owl` suites read their
//! `protocol` lines by the same rule ([`load`]), relative to the suite file.
//! `prust import` prints a `.dcj` session as prust combinator source (a
//! function `spec()` that compiles in a crate that depends on prust), as its
//! global LTS (`aut`, which `prust check` reads back; `dot`) or as counts.
//!
//! **Output and exit codes.** Results go to stdout, errors and diagnostics
//! to stderr. One exit-code table holds for the whole tool (and is printed
//! by every `--help`): 0 every formula holds (or success), 1 some formula is
//! violated (`replay`: the trail no longer replays; `lint`: a finding), 2
//! some formula is inconclusive (a limit was reached: never reported as
//! "holds"), 3 an error, usage errors included; 141 when stdout was closed
//! early (`prust list | head -1`). With several formulas the most severe
//! outcome wins (error > inconclusive > violated). `--format json` prints one
//! JSON object per formula (JSON Lines: verdict, limit, statistics,
//! counterexample steps). `--trail FILE` keeps a counterexample as a small
//! text file ([`Trail`]) that `prust replay PROTOCOL FILE` re-executes on a
//! fresh object, and `--dot FILE` draws it as a message sequence chart (`dot
//! -Tsvg FILE`).
//!
//! **Limits.** `--max-states`, `--timeout` (per formula) and `--max-memory`
//! (each defaulting to its `PRUST_*` variable, see
//! [Debugging failures](#debugging-failures)) bound every phase: the
//! compilation of a specification, the evaluation of a `.dcj` file, the
//! determinisation of an `.aut` file, the liberal projection and the search
//! alike. Reaching one is *inconclusive* (exit 2), never an abort. A bad file
//! is an error that names its file, line and column, shows the line with a
//! caret and gives a hint; a folder, a device or a pipe given as a file is
//! refused before it is read.
//!
//! **Big state spaces.** `--runtime on-the-fly` checks the strict object
//! built on the fly ([`Strict::on_the_fly`]) with partial-order reduction
//! where it applies (`--no-por` turns it off); `--hash-compaction` stores
//! fingerprints, and a property that holds is then only probable;
//! `--threads N` searches on N threads; `--share I/N` searches one of N
//! shares of the state space, for N machines that never talk: each run
//! says `holds on share I/N` (exit 0, never "property holds"), the
//! property holds exactly when all N runs exit 0, and the combined exit
//! status is the largest of the N (`scripts/share-check.sh` runs the
//! shares, locally or over `ssh`, and combines them). Each is explained once,
//! in the engine's docs: [partial-order reduction](engine#partial-order-reduction),
//! [threads and shares](engine#every-core-and-more-than-one-machine),
//! [hash compaction](Checker::hash_compaction) and the
//! [collapse store](Checker::collapse). The report says which of them ran.
//!
//! **Lint.** `prust lint PROTOCOL` runs Discourje's `dcj-lint` checks and
//! prust's own `deadlock-free` on the global LTS and prints each finding with
//! a shortest witness run; the checks and what they report are in
//! [`protocols::lint`]. `realizable` (runs of the liberal object that the
//! strict one refuses) is opt-in: `--only realizable`. `--runtime on-the-fly`
//! lints a specification without compiling it first; a check that a limit
//! stops is inconclusive (exit 2), never "0 findings" for what was not seen.
//!
//! # Limitations
//!
//! - **Explicit state.** Every distinct protocol state is stored exactly,
//!   whole or as its bytes ([`Protocol::encode`]):
//!   a hand-written object that keeps `Vec`s of messages and does not
//!   encode itself costs hundreds of bytes a state. Hash compaction
//!   ([`Checker::hash_compaction`]) stores fingerprints instead, and what
//!   holds under it is only probable. Objects with infinitely many states (an
//!   unbounded counter, unbounded liberal inboxes) need a limit, and a limit
//!   gives *inconclusive*: a liveness violation whose runs never repeat a
//!   state is reported that way, never as "holds".
//! - **Alphabet.** Every probe goes through the try-operations, so the cost
//!   per state grows with roles² × types, unless the object declares its
//!   topology ([`Protocol::sends_to`], [`Protocol::peers`]; the strict and
//!   liberal objects do). At most 64 distinct atoms per formula and 32
//!   acceptance sets (limits of the automaton representation).
//! - **Messages compare by type**, not by value: properties cannot speak of
//!   payloads, and the payloads in a search are the dummies.
//! - **Only the object is checked**, not the code around it: a thread that
//!   sends the wrong thing is refused (it blocks, and is reported in a
//!   deadlock) at run time, but the checker does not run your role
//!   functions; [`explore`] does, schedule by schedule.
//! - **Compilation bounds.** A specification is compiled to its whole
//!   global LTS (bounded by [`Limits`]: a million states by default); for
//!   larger ones, [`Strict::on_the_fly`] computes states as runs reach them
//!   and keeps every state it meets (no eviction yet). The liberal object
//!   needs the whole LTS, and its projection of a large, heavily
//!   interleaved specification can be slow to compute; the liberal object
//!   does not make synchronous communications wait.
//! - **Partial-order reduction** applies only to objects that declare
//!   their independence (the on-the-fly strict object and the liberal
//!   one) and to formulas without `X`; liveness formulas whose atoms see
//!   many steps (`G F "master RECV *"`) are barely reduced. A reduced
//!   search, hash compaction, the determinism check and a share of a split
//!   check run on one thread, and the liveness search gains little from a
//!   second core.
//! - **[`explore`] is a first cut:** source-set DPOR with sleep sets but no
//!   wakeup trees (not optimal), and a switch from one role to another
//!   still hands over between OS threads; a role body stuck forever
//!   outside the session (a busy loop) cannot be joined (it is named on
//!   stderr).
//! - **Run-time deadlock detection** sees only endpoints: a thread blocked on
//!   anything else (a lock, I/O, another session) counts as running, so a
//!   deadlock that involves it is not detected.
//! - **Precedence.** Unary operators bind tightest, as in Spot, SPIN and
//!   LTL3BA (`!a U b` is `(!a) U b`, `G a -> c` is `(G a) -> c`); Owl's own
//!   grammar reads both the other way. Binary temporal operators and
//!   implications bind tighter than `&` and `|`, as in Owl (`a & b -> c` is
//!   `a & (b -> c)`). Parenthesise when in doubt.
//!
//! The crates' own docs ([`engine`], [`protocols`], [`protocols::session`])
//! give the details of each point.

// A model checker's verdicts rest on safe Rust: no crate here needs unsafe.
#![forbid(unsafe_code)]

/// Discourje's `.dcj` specifications, imported into a [`Spec`].
pub use dcj;
pub use engine;
pub use owl_lite;
pub use protocols;

#[doc(inline)]
pub use prust_explore as explore;
pub mod load;
mod runtime;
pub mod suite;
pub use runtime::{Runtime, UnknownRuntime};

// One import path for users: everything a test needs, from the crate they
// depend on. The member crates stay reachable above for the rest.

// The checker, its options and its answers.
pub use engine::{
    check, check_violated, try_check, ActionKind, AtomError, CheckSession, Checker, Counterexample,
    CounterexampleStep, Ending, Error, Limit, Limits, Message, NameKind, Payload, Protocol,
    Refused, ReplayError, Report, RoleId, Semantics, Stats, Verdict,
};
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
