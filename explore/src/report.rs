//! What an exploration answers: [`Exploration`], its [`Failure`]s and
//! their [`Outcome`]s, with the trace of each failing execution.

use std::collections::BTreeSet;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use protocols::session::{Deadlock, WaitsFor};

use super::reduction::Reduction;
use super::schedule::Schedule;

/// One action of an execution, as the protocol saw it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Action {
    /// The role sent a message of this type to `to`.
    Send {
        /// The receiver.
        to: String,
        /// The message's short type name.
        type_name: String,
    },
    /// The role received a message of this type from `from`.
    Recv {
        /// The sender.
        from: String,
        /// The message's short type name.
        type_name: String,
    },
    /// The role closed its channel to `to`.
    Close {
        /// The peer.
        to: String,
    },
    /// The role's program chose `value` among `of` values
    /// ([`choose`](super::choose)); not an action of the protocol.
    Choose {
        /// The value chosen.
        value: usize,
        /// How many there were.
        of: usize,
    },
}

/// One numbered step of a trace: who did what.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TraceStep {
    /// The role that acted.
    pub role: String,
    /// What it did.
    pub action: Action,
}

impl fmt::Display for TraceStep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.action {
            Action::Send { to, type_name } => {
                write!(f, "{} sends <{type_name}> to {to}", self.role)
            }
            Action::Recv { from, type_name } => {
                write!(f, "{} receives <{type_name}> from {from}", self.role)
            }
            Action::Close { to } => write!(f, "{} closes its channel to {to}", self.role),
            Action::Choose { value, of } => {
                write!(f, "{} chooses {value} (of 0..{of})", self.role)
            }
        }
    }
}

/// How an execution (or the exploration) went wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Nothing could move while some roles waited at their endpoints. The
    /// waiting endpoints got `Err(Deadlock)` with this report, as in a
    /// [`Session`](protocols::session::Session); panics that followed from
    /// that error are part of the deadlock.
    Deadlock {
        /// Who waited for what.
        deadlock: Arc<Deadlock>,
    },
    /// A role asked for an operation that the protocol can never accept
    /// from where it is, reported as soon as that is certain: a send or
    /// close that no sequence of the other roles' actions makes
    /// acceptable (found by a bounded search of the object's states, even
    /// while the other roles could still go on), or any operation still
    /// waiting when the protocol has terminated and nothing else can
    /// move. A receive waiting for a message the protocol will not
    /// deliver is a [`Deadlock`](Outcome::Deadlock) instead (it does
    /// nothing illegal).
    Violation {
        /// The role.
        role: String,
        /// The operation it asked for.
        operation: WaitsFor,
    },
    /// A role's code panicked (a failed assertion, an `expect`).
    Panicked {
        /// The role.
        role: String,
        /// The panic message.
        message: String,
        /// Where it panicked (`file:line:column`), if known.
        location: Option<String>,
    },
    /// Every role returned, but the protocol had not terminated.
    Unfinished {
        /// The roles the object says have not finished their part.
        not_finished: Vec<String>,
    },
    /// The execution's trace violates the property given with
    /// [`Explorer::property`](super::Explorer::property) (checked under
    /// the stutter semantics).
    PropertyViolated {
        /// The formula.
        formula: String,
    },
    /// A bound on one execution was hit (`max_steps`, or a limit of the
    /// property check): this execution was cut short, and the exploration
    /// is then not complete. The exploration's own bounds
    /// (`max_executions`, the timeout) are no failure of the program: they
    /// only make it incomplete ([`Exploration::incomplete_reason`]).
    Aborted {
        /// Which bound, with its value.
        reason: String,
    },
    /// A role did not reach an endpoint operation (or return) within the
    /// role time limit ([`Explorer::role_timeout`](super::Explorer::role_timeout)):
    /// blocked or busy outside the session (a `Condvar`, a lock, a sleep,
    /// a busy loop)? Threads may share nothing but the session. Also
    /// reported for a role that does not return within that time after
    /// its execution was stopped. Nothing can stop a thread from outside,
    /// so the exploration stops, and leaves the thread running
    /// ([`Exploration::threads_left_running`]).
    ///
    /// An async role ([`Roles::spawn_async`](super::Roles::spawn_async))
    /// whose task returns `Pending` without awaiting a session operation
    /// (a timer, I/O, a `tokio::sync` primitive, a future never woken) is
    /// reported as stuck at once, with `waited` zero: nothing under
    /// exploration would ever complete what it awaits. Its task is
    /// dropped, so the exploration goes on.
    Stuck {
        /// The role.
        role: String,
        /// How long it was given (zero for an async role that awaits
        /// something other than a session operation).
        waited: Duration,
    },
    /// Running the same schedule again gave different choices: the
    /// program (or the object) is not deterministic given its messages,
    /// or a replayed schedule does not fit the program.
    Nondeterministic {
        /// The 1-based step at which the executions parted.
        step: usize,
        /// What was expected there.
        expected: String,
        /// What the program offered instead.
        found: String,
    },
}

impl Outcome {
    /// A short name of the kind of outcome (`deadlock`, `panic`, …).
    pub fn kind(&self) -> &'static str {
        match self {
            Outcome::Deadlock { .. } => "deadlock",
            Outcome::Violation { .. } => "protocol violation",
            Outcome::Panicked { .. } => "panic",
            Outcome::Unfinished { .. } => "unfinished protocol",
            Outcome::PropertyViolated { .. } => "property violated",
            Outcome::Aborted { .. } => "aborted",
            Outcome::Stuck { .. } => "role stuck outside the session",
            Outcome::Nondeterministic { .. } => "nondeterminism",
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Deadlock { deadlock } => deadlock.fmt(f),
            Outcome::Violation { role, operation } => write!(
                f,
                "protocol violation: {role} waits to {operation}, \
                 which the protocol can never accept from here, whatever the other roles do"
            ),
            Outcome::Panicked {
                role,
                message,
                location,
            } => {
                write!(f, "{role} panicked: {message}")?;
                if let Some(at) = location {
                    write!(f, " (at {at})")?;
                }
                Ok(())
            }
            Outcome::Unfinished { not_finished } => {
                write!(f, "every role returned but the protocol had not terminated")?;
                if !not_finished.is_empty() {
                    write!(f, " (not finished: {})", not_finished.join(", "))?;
                }
                Ok(())
            }
            Outcome::PropertyViolated { formula } => {
                write!(f, "the trace violates the property {formula}")
            }
            Outcome::Aborted { reason } => write!(f, "aborted: {reason}"),
            Outcome::Stuck { role, waited } if waited.is_zero() => write!(
                f,
                "{role} (an async role) awaits something other than a session \
                 operation (a timer, I/O, another runtime's primitive, a future \
                 never woken): under exploration only session operations complete"
            ),
            Outcome::Stuck { role, waited } => write!(
                f,
                "{role} did not reach an endpoint operation or return within {waited:?}: \
                 blocked or busy outside the session? (threads may share nothing \
                 but the session; raise the limit with Explorer::role_timeout or \
                 PRUST_ROLE_TIMEOUT)"
            ),
            Outcome::Nondeterministic {
                step,
                expected,
                found,
            } => write!(
                f,
                "nondeterminism at step {step}: expected {expected}, the program offered \
                 {found} (the roles must decide only on what they receive)"
            ),
        }
    }
}

/// A failing execution: what went wrong, the schedule that leads there,
/// and the trace of the protocol's actions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// What went wrong.
    pub outcome: Outcome,
    /// The scheduling choices; replay them with
    /// [`Explorer::replay`](super::Explorer::replay) or `PRUST_SCHEDULE`.
    pub schedule: Schedule,
    /// The actions performed, in order.
    pub trace: Vec<TraceStep>,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Some outcomes' own text already begins with their kind
        // (`protocol violation: …`, `deadlock: …`): say it once.
        let (kind, text) = (self.outcome.kind(), self.outcome.to_string());
        if text.starts_with(kind) {
            writeln!(f, "{text}")?;
        } else {
            writeln!(f, "{kind}: {text}")?;
        }
        if self.trace.is_empty() {
            writeln!(f, "  (no action happened)")?;
        }
        for (i, step) in self.trace.iter().enumerate() {
            writeln!(f, "  {:>3}. {step}", i + 1)?;
        }
        write!(f, "  schedule: {}", self.schedule)
    }
}

/// What [`explore`](super::explore) found: failures, and the results of
/// the complete executions (of type `T`, what the program observes; `()`
/// for a program that returns nothing, see [`Observe`](super::Observe)).
#[derive(Debug, Clone)]
pub struct Exploration<T = ()> {
    pub(crate) executions: usize,
    pub(crate) failures: Vec<Failure>,
    /// How many executions ended in each failure (same index).
    pub(crate) counts: Vec<usize>,
    /// Why the exploration is not complete, if it is not.
    pub(crate) incomplete: Option<String>,
    pub(crate) pruned: usize,
    pub(crate) redundant: usize,
    pub(crate) elapsed: Duration,
    pub(crate) replayed: bool,
    /// The reduction that ran.
    pub(crate) reduction: Reduction,
    /// Why it is not (in full) the one asked for.
    pub(crate) reduction_off: Option<String>,
    /// Fingerprints of the object at the end of each maximal execution.
    pub(crate) final_states: BTreeSet<u64>,
    /// The roles whose threads were left running (stuck outside the
    /// session).
    pub(crate) left_running: Vec<String>,
    /// The distinct results of the complete executions.
    pub(crate) results: Vec<Returned<T>>,
    /// How the schedules were sampled, for a sampled search.
    pub(crate) sampled: Option<Sampled>,
}

/// What a sampled search ran ([`Explorer::random`](super::Explorer::random),
/// [`Explorer::pct`](super::Explorer::pct)).
#[derive(Debug, Clone)]
pub(crate) struct Sampled {
    /// `random`, or `PCT (depth d)`.
    pub(crate) strategy: String,
    pub(crate) seed: u64,
}

impl<T> Exploration<T> {
    /// Whether every schedule was explored (no bound cut anything). A
    /// replay ([`is_replay`](Self::is_replay)) runs one schedule, a
    /// sampled search ([`is_sampled`](Self::is_sampled)) some: never
    /// complete.
    pub fn is_complete(&self) -> bool {
        self.incomplete.is_none()
    }

    /// Complete and without failure: the program is correct in every
    /// schedule. Never true when a bound cut the exploration short, nor
    /// for a replay, nor for a sampled search, however many executions
    /// it ran without failure.
    pub fn is_successful(&self) -> bool {
        self.is_complete() && self.failures.is_empty()
    }

    /// Whether this was a replay of one schedule
    /// ([`Explorer::replay`](super::Explorer::replay) or `PRUST_SCHEDULE`),
    /// not an exploration.
    pub fn is_replay(&self) -> bool {
        self.replayed
    }

    /// Whether the schedules were sampled
    /// ([`Explorer::random`](super::Explorer::random) or
    /// [`Explorer::pct`](super::Explorer::pct)) rather than enumerated:
    /// then the exploration is never complete, and "no failure" means
    /// none was found in [`executions`](Self::executions) random
    /// schedules.
    ///
    /// ```
    /// use prust::explore::Explorer;
    /// use prust::session::BlockingEndpoint;
    /// #[derive(Clone, Debug)] struct Move;
    /// let ex = Explorer::new()
    ///     .random(3, 5)
    ///     .explore(prust::protocols::chess::strict(), |r| {
    ///         r.spawn("white", |mut ep| {
    ///             ep.send("black", Move).unwrap();
    ///             ep.recv_from("black").unwrap();
    ///         });
    ///         r.spawn("black", |mut ep| {
    ///             ep.recv_from("white").unwrap();
    ///             ep.send("white", Move).unwrap();
    ///         });
    ///     });
    /// assert!(ex.failures().is_empty(), "{ex}");
    /// assert!(ex.is_sampled() && !ex.is_successful());
    /// assert_eq!(ex.incomplete_reason(), Some("sampled, not exhaustive"));
    /// assert!(ex.to_string().contains("5 random executions, seed 3: no failure found"), "{ex}");
    /// ```
    pub fn is_sampled(&self) -> bool {
        self.sampled.is_some()
    }

    /// The seed a sampled search ran with (`None` for an exhaustive one):
    /// the one the program gave, or `PRUST_SEED`, or a fresh one. The
    /// same seed runs the same schedules again; a failure's
    /// [`schedule`](Failure::schedule) replays that one execution.
    pub fn seed(&self) -> Option<u64> {
        self.sampled.as_ref().map(|s| s.seed)
    }

    /// What the sampled search ran, as the report says it: `5 random
    /// executions, seed 3`.
    fn sample(&self) -> Option<String> {
        self.sampled.as_ref().map(|s| {
            format!(
                "{} {} execution{}, seed {}",
                self.executions,
                s.strategy,
                if self.executions == 1 { "" } else { "s" },
                s.seed
            )
        })
    }

    /// Why the exploration proves nothing about the schedules it did not
    /// run, for an inconclusive verdict (`None`: it is complete).
    pub(crate) fn no_proof(&self) -> Option<String> {
        let why = self.incomplete.as_deref()?;
        Some(match self.sample() {
            Some(sample) => format!("the search was {why} ({sample})"),
            None => format!("the exploration was cut short: {why}"),
        })
    }

    /// The roles whose threads were left running: stuck outside the
    /// session ([`Outcome::Stuck`]), they could not be stopped. Such a
    /// thread keeps only its own, stopped execution (its every session
    /// operation fails at once, and no later execution or exploration can
    /// be reached from it); it ends when its code returns, or with the
    /// process, which it does not keep from exiting.
    pub fn threads_left_running(&self) -> &[String] {
        &self.left_running
    }

    /// How many executions were run (for a sampled search, its sample).
    pub fn executions(&self) -> usize {
        self.executions
    }

    /// The distinct failures found (one per distinct outcome), each with
    /// the first schedule that led to it.
    pub fn failures(&self) -> &[Failure] {
        &self.failures
    }

    /// How many executions ended in `failures()[i]`'s outcome.
    pub fn failure_count(&self, i: usize) -> usize {
        self.counts.get(i).copied().unwrap_or(0)
    }

    /// Why the exploration is incomplete (`None` if it is complete).
    pub fn incomplete_reason(&self) -> Option<&str> {
        self.incomplete.as_deref()
    }

    /// How many choices the preemption bound skipped (each one the root
    /// of schedules not run).
    pub fn skipped_by_bound(&self) -> usize {
        self.pruned
    }

    /// How many executions were cut short by the sleep sets (of
    /// [`Reduction::SleepSets`](super::Reduction::SleepSets) or
    /// [`Reduction::Dpor`](super::Reduction::Dpor): they could
    /// only repeat schedules equivalent to ones run); included in
    /// [`executions`](Self::executions).
    pub fn redundant(&self) -> usize {
        self.redundant
    }

    /// How long the exploration took.
    pub fn elapsed(&self) -> Duration {
        self.elapsed
    }

    /// The reduction the exploration ran: the one asked for
    /// ([`Explorer::reduction`](super::Explorer::reduction)), or
    /// [`Reduction::None`] where it was off (see
    /// [`reduction_off`](Self::reduction_off)); `None` for a replay, which
    /// follows one schedule.
    pub fn reduction(&self) -> Reduction {
        self.reduction
    }

    /// Why the reduction asked for did not run, or not in full: a property
    /// turns every reduction off, a preemption bound turns sleep sets off.
    /// `None` if it ran as asked. Also a line of the report, as a check's
    /// report says why partial-order reduction was off.
    ///
    /// ```
    /// use prust::explore::{Explorer, Reduction};
    /// let ex = Explorer::new()
    ///     .reduction(Reduction::SleepSets)
    ///     .preemption_bound(Some(1))
    ///     .explore(prust::protocols::two_buyer::strict(), |r| {
    ///         r.spawn("buyer1", |_| {});
    ///     });
    /// assert_eq!(ex.reduction(), Reduction::None);
    /// assert!(ex.reduction_off().unwrap().starts_with("sleep-sets off"));
    /// assert!(ex.to_string().contains("reduction: sleep-sets off"), "{ex}");
    /// ```
    pub fn reduction_off(&self) -> Option<&str> {
        self.reduction_off.as_deref()
    }

    /// Fingerprints (64-bit hashes) of the object's states at the ends of
    /// the maximal executions: those where every role returned or waited
    /// with nothing able to move (a success, a deadlock, an unfinished
    /// protocol), not those a panic, a violation or a bound stopped.
    ///
    /// Independent steps commute on the object, so every schedule of one
    /// equivalence class ends in the same state, and a reduction that
    /// runs one schedule of each class reaches exactly the final states
    /// of the plain search: the tests compare the two sets. The hashes are
    /// comparable within one process.
    ///
    /// ```
    /// use prust::explore::{Explorer, Reduction};
    /// use prust::session::BlockingEndpoint;
    /// #[derive(Clone, Debug)]
    /// struct Move;
    /// let explore = |reduction| {
    ///     Explorer::new()
    ///         .reduction(reduction)
    ///         .explore(prust::protocols::chess::strict(), |r| {
    ///             r.spawn("white", |mut ep| {
    ///                 let _ = ep.send("black", Move);
    ///             });
    ///         })
    /// };
    /// let (plain, dpor) = (explore(Reduction::None), explore(Reduction::Dpor));
    /// assert_eq!(plain.final_states().len(), 1);
    /// assert_eq!(plain.final_states(), dpor.final_states());
    /// ```
    pub fn final_states(&self) -> &BTreeSet<u64> {
        &self.final_states
    }

    /// The distinct results of the complete executions (every role
    /// returned, the protocol terminated, no failure), in the order found,
    /// each with one schedule that produces it. Executions cut short by a
    /// bound or ending in a failure give none (see
    /// [`failures`](Self::failures)). A reduction runs fewer schedules per
    /// result but finds every result of the plain search. A sampled
    /// search ([`is_sampled`](Self::is_sampled)) lists the results of
    /// its sample: others may exist, and the counts are of the sample.
    ///
    /// ```
    /// use prust::explore::explore;
    /// use prust::session::BlockingEndpoint;
    /// #[derive(Clone, Debug)] struct Move;
    /// let ex = explore(prust::protocols::chess::strict(), |r| {
    ///     r.spawn("white", |mut ep| {
    ///         ep.send("black", Move).unwrap();
    ///         ep.recv_from("black").unwrap();
    ///     });
    ///     r.spawn("black", |mut ep| {
    ///         ep.recv_from("white").unwrap();
    ///         ep.send("white", Move).unwrap();
    ///         "black's result"
    ///     })
    /// });
    /// assert_eq!(ex.results().len(), 1);
    /// assert_eq!(ex.results()[0].value, "black's result");
    /// println!("replay it: {}", ex.results()[0].schedule);
    /// ```
    pub fn results(&self) -> &[Returned<T>] {
        &self.results
    }
}

impl<T> fmt::Display for Exploration<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = if self.replayed {
            "replayed 1 schedule".to_string()
        } else if let Some(sample) = self.sample() {
            format!("sampled {sample},")
        } else {
            format!(
                "explored {} execution{}",
                self.executions,
                if self.executions == 1 { "" } else { "s" }
            )
        };
        write!(f, "{what} in {:.2?}", self.elapsed)?;
        if self.redundant > 0 {
            write!(f, " ({} cut short by sleep sets)", self.redundant)?;
        }
        match &self.incomplete {
            None => write!(f, " (complete)")?,
            Some(why) => write!(f, " (INCOMPLETE: {why})")?,
        }
        // Said where the reduction is not the one asked for: the count of
        // executions means something else then.
        let off = |f: &mut fmt::Formatter<'_>| {
            if let Some(why) = &self.reduction_off {
                writeln!(f, "reduction: {why}")?;
            }
            if !self.left_running.is_empty() {
                writeln!(
                    f,
                    "left running: the thread{} of {}, stuck outside the session (it cannot \
                     be stopped; it can reach no other execution, and ends when its code \
                     returns or with the process)",
                    if self.left_running.len() == 1 {
                        ""
                    } else {
                        "s"
                    },
                    self.left_running.join(", ")
                )?;
            }
            Ok(())
        };
        if self.failures.is_empty() {
            writeln!(f, ": no failure")?;
            off(f)?;
            if self.is_complete() {
                write!(f, "the program is correct in every schedule")?;
            } else if let Some(sample) = self.sample() {
                write!(
                    f,
                    "not a proof: sampled, not exhaustive ({sample}: no failure found)"
                )?;
            } else if self.replayed {
                write!(f, "not a proof: only the replayed schedule ran")?;
            } else {
                write!(f, "not a proof: the exploration was cut short")?;
            }
            return Ok(());
        }
        writeln!(
            f,
            ": {} distinct failure{}",
            self.failures.len(),
            if self.failures.len() == 1 { "" } else { "s" }
        )?;
        off(f)?;
        for (i, fail) in self.failures.iter().enumerate() {
            // A sampled failure names its seed, so that a report cut to
            // one failure still says how to run its search again.
            let seed = self.seed().map_or(String::new(), |s| format!(", seed {s}"));
            writeln!(
                f,
                "\nfailure {} (in {} execution{}{seed}) {fail}",
                i + 1,
                self.counts[i],
                if self.counts[i] == 1 { "" } else { "s" }
            )?;
        }
        // The first failure with a schedule (a bound that stopped the
        // whole exploration has none to replay).
        let Some((i, first)) = self
            .failures
            .iter()
            .enumerate()
            .find(|(_, f)| !f.schedule.is_empty())
            .map(|(i, f)| (i, &f.schedule))
        else {
            return Ok(());
        };
        write!(
            f,
            "\nto replay failure {}, run the same test with PRUST_SCHEDULE=\"{first}\" \
             (or Explorer::new().replay(&\"{first}\".parse()?))",
            i + 1
        )?;
        if let Some(seed) = self.seed() {
            write!(
                f,
                "\nto run the same sampled search again, give it the seed {seed} (or \
                 PRUST_SEED={seed}, where the program gives no seed)"
            )?;
        }
        Ok(())
    }
}

/// One distinct result of the complete executions (every role returned,
/// the protocol terminated, no failure), with the first schedule found
/// that produces it: replay it with
/// [`Explorer::replay`](super::Explorer::replay) or `PRUST_SCHEDULE`.
///
/// ```
/// use prust::explore::explore;
/// let ex = explore(prust::protocols::two_buyer::strict(), |_| {});
/// // Nothing spawned: one execution, which is no complete run of the
/// // protocol (it has not terminated), so it gives no result.
/// assert!(ex.results().is_empty());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Returned<T> {
    /// The result.
    pub value: T,
    /// A schedule that produces it.
    pub schedule: Schedule,
    /// The actions of that schedule's execution, in order.
    pub trace: Vec<TraceStep>,
    /// How many executions produced it (with a reduction, one schedule
    /// stands for several equivalent ones: counts differ between
    /// reductions, the set of values does not).
    pub count: usize,
}

impl<T: fmt::Debug> fmt::Display for Returned<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}  schedule: {}", self.value, self.schedule)
    }
}
