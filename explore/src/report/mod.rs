//! What an exploration answers: [`Exploration`], its [`Failure`]s and
//! their [`Outcome`]s, with the trace of each failing execution.

use std::collections::BTreeSet;
use std::fmt;
use std::time::Duration;

use super::reduction::Reduction;
use super::schedule::Schedule;

mod display;
mod outcome;
pub use outcome::{Action, Failure, Outcome, TraceStep};

/// What [`explore`](super::explore) found: failures, and the results of
/// the complete executions (of type `T`, what the program observes; `()`
/// for a program that returns nothing, see [`Observe`](super::Observe)).
#[derive(Debug, Clone)]
pub struct Exploration<T = ()> {
    pub(crate) executions: usize,
    pub(crate) failures: Vec<Failure>,
    /// How many executions ended in each failure (same index).
    pub(crate) counts: Vec<usize>,
    /// Whether each failure's schedule is a shortest one (same index).
    pub(crate) shortness: Vec<Shortness>,
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

/// Whether a failure's schedule is a shortest one (see
/// [`Explorer::simplify`](super::Explorer::simplify)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Shortness {
    /// Not simplified (simplification off, or an outcome that depends on
    /// more than the schedule): nothing is said.
    Unknown,
    /// No schedule fails the same way in fewer steps, nor in as many with
    /// fewer context switches.
    Shortest,
    /// Simplified, but not shown to be a shortest one: why.
    NotShown(String),
    /// Simplified, but the search for a shortest one ran out of the
    /// executions it may run: why (the report adds how to lift that).
    OverBudget(String),
    /// Simplified, not searched for a shortest one: the search is off.
    Off,
}

impl Shortness {
    /// The line a report prints under the failure (the text report and
    /// the HTML page alike), if anything is said.
    pub(crate) fn note(&self) -> Option<String> {
        Some(match self {
            Shortness::Unknown => return None,
            Shortness::Shortest => "a shortest failing schedule: none fails this way in fewer \
                                    steps, nor in as many with fewer context switches"
                .into(),
            Shortness::NotShown(why) => {
                format!("not shown to be a shortest failing schedule: {why}")
            }
            Shortness::OverBudget(why) => format!(
                "not shown to be a shortest failing schedule: {why} (to search whatever it \
                 costs, within the timeout: PRUST_SHORTEST=1 or Explorer::shortest(true))"
            ),
            Shortness::Off => "not searched for a shortest failing schedule: the search is off \
                               (PRUST_SHORTEST=0 or Explorer::shortest(false))"
                .into(),
        })
    }
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

    /// Whether `failures()[i]`'s schedule is a shortest one: no schedule
    /// fails the same way (the same outcome) in fewer steps, nor in as
    /// many steps with fewer context switches (see
    /// [`Explorer::simplify`](super::Explorer::simplify)). `false` when it
    /// was not shown (the search for it ran out of executions, the
    /// failure was not simplified); the report then says why.
    pub fn is_shortest(&self, i: usize) -> bool {
        self.shortness.get(i) == Some(&Shortness::Shortest)
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

    /// Why the reduction asked for did not run, or not in full: a
    /// preemption bound turns sleep sets off, a sampled search every
    /// reduction. (A property does not: see
    /// [`Explorer::property`](super::Explorer::property).)
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
