//! Systematic exploration of the schedules of your program's own threads
//! talking through a session.
//!
//! [`explore`] runs your program's role bodies, ordinary blocking code,
//! **one at a time** (each a coroutine with a stack of its own, on one
//! thread, see [`Roles::spawn`]): every endpoint operation (`send`, `recv`, `recv_from`, `close`)
//! is a scheduling point at which the explorer decides which pending
//! operation the protocol object takes next (probing it on a clone, as the
//! model checker does, or reading the object's own word where it gives
//! one: its answer for one action, [`Protocol::is_enabled`](engine::Protocol::is_enabled),
//! else its list of its enabled actions, [`Protocol::enabled`](engine::Protocol::enabled);
//! trusted as the checker trusts the list, and compared with the probes in debug
//! builds, where a difference is reported as nondeterminism), and a `recv()` from anyone branches over every
//! sender that could deliver. Each execution re-runs the program from the
//! start; a depth-first search over the choices runs every schedule (or
//! those within a preemption bound), except orders of independent steps
//! that dynamic partial-order reduction proves equivalent to ones it ran
//! ([`Reduction::Dpor`], the default: source sets and sleep sets, as in
//! Abdulla et al.'s "Optimal DPOR" without wakeup trees; under a
//! preemption bound, with Déjà Fu's conservative backtrack points, and
//! the report says so, [`Exploration::reduction_off`]; with a property,
//! only orders of steps whose actions none of its atoms matches, since a
//! formula over the order of actions tells apart orders the program
//! cannot, see [`Explorer::property`]). Each execution ends in success or in
//! an [`Outcome`]: a deadlock, a protocol violation, a panic (a failed
//! assertion of your code), an unfinished protocol, a violated LTL
//! property, or a bound hit (then the exploration is not complete, never
//! "successful").
//!
//! A send or close that the protocol can never accept, whatever the other
//! roles do, is reported as [`Outcome::Violation`] as soon as that is
//! certain (a bounded search of the object's states reachable by the
//! other roles' actions, kept across executions), not later as a
//! deadlock. Real sessions do not search: there such a send waits, and
//! is named in the deadlock report once every role waits.
//!
//! A receiver sees a close as in real sessions: a loop that receives until
//! its peer closes ends with `Err(Closed)` in every schedule (see
//! [`ExploreEndpoint`]).
//!
//! **Results across schedules** (Déjà Fu's predicates). A role body may
//! return a value ([`Roles::spawn`] returns a [`Handle`] to it), and what
//! the program returns ([`Observe`]: `()`, handles, tuples of them) is the
//! result of each complete execution. [`Exploration::results`] lists the
//! distinct results, each with a schedule that replays to it;
//! [`Exploration::always_same`], [`not_always_same`](Exploration::not_always_same),
//! [`always`](Exploration::always), [`somewhere`](Exploration::somewhere)
//! and [`gives`](Exploration::gives) answer a [`Verdict`] that names the
//! results (and failing executions) breaking it, and is never
//! [`Status::Holds`] for a universal predicate on an exploration cut
//! short ([`Status::Inconclusive`]). [`autocheck`] asks whether the program
//! never deadlocks, never panics and always gives the same result.
//!
//! **Async roles.** [`Roles::spawn_async`] runs an async role body (the
//! same `async fn` that runs inside `tokio::spawn` in production, over
//! `prust::channel`'s `send_async`/`recv_async` or the endpoint's
//! `poll_op`) on the exploration's own deterministic executor: no
//! runtime, and no thread hand-over between async roles. Every session
//! operation a task awaits is a scheduling point exactly as a thread's
//! call is (the same program gives the same schedules, outcomes and
//! results as threads or as tasks); several receives awaited at once (a
//! `select!`) are one choice of the role, the losers doing nothing. A
//! task pending on anything else (a timer, I/O, a `tokio::sync`
//! primitive) is reported [`Outcome::Stuck`] at once; a blocking call
//! inside a task, or an awaited one in a thread role, fails at once.
//! Thread and async roles mix in one program.
//!
//! **The assumption.** Threads may share nothing but the session: no
//! `Mutex`, channel, atomic or I/O between roles. The explorer only sees
//! the session's operations, so it is exactly the interleavings of those
//! that it runs; a role that blocks on something else would wait forever
//! for a thread that is not allowed to run. Such a role (waiting on a
//! `Condvar` or a lock, sleeping, in a busy loop) is reported
//! ([`Outcome::Stuck`]) after the role time limit
//! ([`Explorer::role_timeout`]) instead of hanging, and so is a role that
//! does not return within that time after its execution was stopped; the
//! exploration then stops (incomplete). A thread cannot be stopped from
//! outside, so **the thread running it is left running**
//! ([`Exploration::threads_left_running`], and a line of the report): it
//! keeps only its own, stopped execution, whose every session operation
//! fails at once, so it can reach no later execution or exploration; it
//! ends when its own code returns, or with the process (it does not keep
//! a test binary from exiting, but a busy loop burns a core until then).
//! A program whose choices differ on a replay is reported as
//! [`Outcome::Nondeterministic`].
//!
//! **The schedule shown.** A failure is shown with a shortest schedule
//! that fails the same way (the same outcome): no schedule does in fewer
//! steps, nor in as many with fewer context switches. The search for it
//! runs the schedules up to that length, one length after the other (one
//! order of independent steps each, with sleep sets; the shortest length
//! in every order, for the fewest switches), within a budget of
//! executions (the exploration's own, and at least 2000, for all the
//! failures); past it, the report (text and HTML) says the schedule is
//! "not shown to be a shortest failing schedule", why, and how to search
//! whatever it costs (`PRUST_SHORTEST=1`, [`Explorer::shortest`]), and
//! shows the one the heuristic simplification left (steps moved next to
//! the same role's steps, as Déjà Fu does). Each schedule shown was
//! replayed and failed the same way ([`Explorer::simplify`],
//! [`Exploration::is_shortest`]).
//!
//! **When the program is too big.** Every schedule is a proof, but some
//! programs have too many to run (three producers sending three messages
//! each to one consumer already need hundreds of thousands of executions).
//! [`Explorer::random`] then samples schedules uniformly (a random enabled
//! role at each step), and [`Explorer::pct`] samples them with PCT
//! (Burckhardt et al., ASPLOS 2010): random role priorities and `d - 1`
//! random priority change points, which finds a bug of depth `d` in each
//! execution with probability at least `1/(n·k^(d-1))` for `n` roles and
//! `k` steps, far more often than the random walk does for the ordering
//! bugs of message-passing programs (a one-in-90 receive order: found in
//! a median of 6 executions against the random walk's 26, over 500 seeds;
//! the exhaustive search meets it at execution 90; see the `sampling`
//! bench).
//! A sample is no proof, and its [`Exploration`] never says so: it is
//! never complete nor successful ([`Exploration::is_sampled`]), its report
//! reads "sampled, not exhaustive (1000 random executions, seed 7: no
//! failure found)", and [`always_same`](Exploration::always_same) and the
//! other predicates over every schedule are inconclusive unless the sample
//! refutes them (the existential ones, [`somewhere`](Exploration::somewhere)
//! and [`not_always_same`](Exploration::not_always_same), hold on a
//! witness). The seed (the program's, or `PRUST_SEED`, or a fresh one) is
//! printed with the failures, and each failure's schedule replays it as
//! any other ([`Explorer::replay`], `PRUST_SCHEDULE`); the same seed runs
//! the same search again. Sampling replaces the reduction and the
//! preemption bound (the report says so). A long exploration, sampled or
//! not, prints a progress line on stderr at most once a second (executions
//! so far, distinct failures, executions per second) when
//! `PRUST_PROGRESS=1`, and nothing otherwise.
//!
//! ```
//! use prust::explore::Explorer;
//! let ex = Explorer::new()
//!     .pct(7, 3, 100) // seed, depth, executions
//!     .explore(prust::protocols::two_buyer::strict(), |_| {});
//! assert!(ex.is_sampled() && !ex.is_successful());
//! assert_eq!(ex.seed(), Some(7));
//! ```
//!
//! ```
//! use prust::explore::{explore, Outcome};
//! use prust::session::BlockingEndpoint;
//! #[derive(Clone, Debug)] struct Title;
//! #[derive(Clone, Debug)] struct Quote;
//! #[derive(Clone, Debug)] struct Contribution;
//! #[derive(Clone, Debug)] struct Decision;
//! let ex = explore(prust::protocols::two_buyer::strict(), |r| {
//!     r.spawn("buyer1", |mut e| {
//!         e.send("seller", Title).unwrap();
//!         e.recv_from("seller").unwrap();
//!         e.send("buyer2", Contribution).unwrap();
//!     });
//!     r.spawn("buyer2", |mut e| {
//!         // BUG: takes whatever arrives first and expects the seller's quote.
//!         let (from, _) = e.recv().unwrap();
//!         assert_eq!(e.roles()[from], "seller");
//!         e.recv().unwrap();
//!         e.send("seller", Decision).unwrap();
//!     });
//!     r.spawn("seller", |mut e| {
//!         e.recv_from("buyer1").unwrap();
//!         e.send("buyer1", Quote).unwrap();
//!         e.send("buyer2", Quote).unwrap();
//!         e.recv_from("buyer2").unwrap();
//!     });
//! });
//! assert!(ex.is_complete() && !ex.is_successful());
//! assert!(matches!(ex.failures()[0].outcome, Outcome::Panicked { .. }));
//! println!("{ex}"); // the schedule, numbered steps, and how to replay it
//! ```

mod autocheck;
mod choose;
mod chooser;
mod closed;
mod coroutine;
mod dfs;
mod dpor;
mod enabled;
mod end;
mod ending;
mod endpoint;
mod error;
mod executor;
mod explorer;
mod found;
// Pages of explorations (`Exploration::write_html`).
mod html;
mod independence;
mod observe;
mod op;
mod panics;
mod point;
mod pool;
mod progress;
mod property;
mod reduction;
mod replay;
mod report;
mod results;
mod rng;
mod roles;
mod same_channel;
mod sampler;
mod schedule;
mod scheduler;
mod shortest;
mod signal;
mod simplify;
mod step;
mod stuck;
mod task;
mod task_ops;
mod verdict;
mod violation;
mod visible;

pub use autocheck::{autocheck, Autocheck};
pub use choose::choose;
pub use endpoint::ExploreEndpoint;
pub use error::ExploreError;
pub use explorer::{explore, Explorer};
pub use observe::{Handle, Observe};
pub use reduction::Reduction;
pub use report::{Action, Exploration, Failure, Outcome, Returned, TraceStep};
pub use roles::Roles;
pub use schedule::{Choice, Schedule, ScheduleError};
pub use verdict::{Status, Verdict};
