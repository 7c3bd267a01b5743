//! [`Explorer`]: the options of an exploration, and the one run that
//! replays, samples or enumerates its schedules (`sampling`, `enumerate`)
//! and records each execution the same way (`tally`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use engine::{Limits, Protocol};

use super::error::ExploreError;
use super::observe::Observe;
use super::pool::Pool;
use super::progress::Progress;
use super::property::Property;
use super::reduction::Reduction;
use super::report::Exploration;
use super::roles::Roles;
use super::schedule::Schedule;
use super::scheduler::RunLimits;

mod enumerate;
mod sampling;
mod tally;
use enumerate::Skipped;
use sampling::Sampling;
use tally::{Job, Tally};

/// The options of an exploration, as a builder. [`Explorer::new`] takes
/// its defaults from the `PRUST_*` variables that the
/// [table of every variable](mod@engine::env) lists as read by `explore`
/// (`PRUST_PREEMPTION_BOUND`, `PRUST_MAX_STEPS`, `PRUST_MAX_EXECUTIONS`,
/// `PRUST_TIMEOUT`, `PRUST_ROLE_TIMEOUT`, `PRUST_SCHEDULE`,
/// `PRUST_REDUCTION`, `PRUST_SEED`, `PRUST_PROGRESS`, `PRUST_SHORTEST`),
/// each read and parsed as everywhere else.
///
/// Every bound that cuts the exploration short makes it incomplete
/// ([`Exploration::is_complete`] is false, and so is
/// [`Exploration::is_successful`]): a bounded exploration is never
/// reported as a proof. The exploration's own bounds (`max_executions`,
/// the timeout) are not failures of the program: the report lists no
/// failure for them, only why it is incomplete and how to raise the
/// bound.
///
/// ```
/// use std::time::Duration;
/// use prust::explore::Explorer;
/// let explorer = Explorer::new()
///     .preemption_bound(Some(2))
///     .max_steps(1_000)
///     .timeout(Duration::from_secs(60))
///     .property(r#"F "END""#);
/// # let _ = explorer;
/// ```
#[derive(Debug, Clone)]
pub struct Explorer {
    preemption_bound: Option<usize>,
    /// Steps, executions, time and the roles' time (see the table of
    /// [`Limits`]); the defaults are applied when an exploration starts.
    limits: Limits,
    property: Option<String>,
    replay: Option<Schedule>,
    /// Whether `replay` came from `PRUST_SCHEDULE` (then each exploration
    /// warns on stderr: a variable left in the shell must not make every
    /// explore test pass on one schedule).
    replay_from_env: bool,
    reduction: Reduction,
    simplify: bool,
    /// Whether the search for a shortest failing schedule runs whatever
    /// it costs (`Some(true)`), not at all, or within its budget (`None`).
    shortest: Option<bool>,
    /// A sampled search instead of the exhaustive one (see
    /// [`Explorer::random`]).
    sampling: Option<Sampling>,
    /// `PRUST_SEED`: the seed of a sampled search whose program gives
    /// none.
    env_seed: Option<u64>,
    /// `PRUST_PROGRESS` (off unless set: an exploration is a test, whose
    /// output is its report), and when the first line may show.
    progress: bool,
    progress_after: Duration,
    stop_on_failure: bool,
    /// See [`Explorer::role_threads`].
    role_threads: bool,
    /// See [`Explorer::batches`].
    batches: bool,
}

impl Default for Explorer {
    fn default() -> Self {
        Self::new()
    }
}

impl Explorer {
    /// An explorer with the defaults, overridden by the `PRUST_*`
    /// variables (see the table above).
    ///
    /// # Panics
    /// If a variable does not parse, with the message of the error that
    /// [`from_env`](Self::from_env) returns.
    pub fn new() -> Explorer {
        Self::from_env().unwrap_or_else(|e| panic!("prust explore: {e}"))
    }

    /// An explorer with the defaults, overridden by the `PRUST_*`
    /// variables; one that does not parse is an [`ExploreError::Env`].
    pub fn from_env() -> Result<Explorer, ExploreError> {
        let env = engine::env::Environment::read(engine::env::Reader::Explore)
            .map_err(ExploreError::from_env)?;
        let count = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
        let replay = match &env.schedule {
            None => None,
            Some(v) => Some(
                v.parse::<Schedule>()
                    .map_err(|e| ExploreError::env("PRUST_SCHEDULE", v, &e.to_string()))?,
            ),
        };
        Ok(Explorer {
            preemption_bound: env.preemption_bound.flatten().map(count),
            // Sized for a test, as a check from code is.
            limits: env.limits.defaults(engine::DefaultBudgets::Test),
            property: None,
            replay_from_env: replay.is_some(),
            replay,
            simplify: true,
            shortest: env.shortest,
            sampling: None,
            env_seed: env.seed,
            progress: env.progress.unwrap_or(false),
            progress_after: env.progress_after.unwrap_or(Duration::from_secs(1)),
            stop_on_failure: false,
            role_threads: false,
            batches: true,
            reduction: match &env.reduction {
                None => Reduction::default(),
                Some(v) => v
                    .parse()
                    .map_err(|e: String| ExploreError::env("PRUST_REDUCTION", v, &e))?,
            },
        })
    }

    /// Bounds the number of preemptions per execution (switching away from
    /// a role that could go on); Déjà Fu's default is 2. `None` explores
    /// every schedule. Schedules skipped by the bound make the exploration
    /// incomplete.
    pub fn preemption_bound(mut self, bound: Option<usize>) -> Self {
        self.preemption_bound = bound;
        self
    }

    /// Stops an execution after `n` steps (endpoint operations): it is
    /// then [`Outcome::Aborted`](crate::Outcome::Aborted) and the exploration incomplete.
    pub fn max_steps(mut self, n: usize) -> Self {
        self.limits = self.limits.max_steps(n as u64);
        self
    }

    /// Stops the exploration after `n` executions (incomplete if any
    /// schedule is left; no failure of the program).
    pub fn max_executions(mut self, n: usize) -> Self {
        self.limits = self.limits.max_executions(n as u64);
        self
    }

    /// Stops the exploration after this much time (incomplete; no
    /// failure of the program).
    pub fn timeout(mut self, t: Duration) -> Self {
        self.limits = self.limits.timeout(t);
        self
    }

    /// How long a role may run its own code between two endpoint
    /// operations (or after the last, or after its execution was stopped,
    /// until it returns) before it is reported [`Outcome::Stuck`](crate::Outcome::Stuck)
    /// (blocked or busy outside the session), after between once and 1.25
    /// times this time without an operation (the explorer's thread looks
    /// four times a limit). The exploration then stops within about this
    /// time and leaves the thread running
    /// ([`Exploration::threads_left_running`]): nothing can stop a thread
    /// from outside.
    pub fn role_timeout(mut self, t: Duration) -> Self {
        self.limits = self.limits.role_timeout(t);
        self
    }

    /// The limits of its explorations as set (by the variables and the
    /// builder methods), the defaults not yet applied; see [`Limits`].
    ///
    /// ```
    /// use prust::explore::Explorer;
    /// assert_eq!(Explorer::new().max_steps(50).limits().max_steps, Some(50));
    /// ```
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Sets every limit at once (a value shared with a check, say); the
    /// fields an exploration does not use are ignored.
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Checks every execution's sequence of actions, a finite run of the
    /// protocol, against this LTL formula under the stutter semantics
    /// (`"END"` holds after a run that ends with the protocol terminated,
    /// `"DEADLOCK"` after one that does not), with the same atoms and name
    /// checking as `engine::check`: a role or type the object does not
    /// have is an error, not a silent pass. Only executions that end
    /// without another failure are checked (the others are failures
    /// already, and a run cut short by a panic is not a run of the
    /// protocol).
    ///
    /// The [`reduction`](Self::reduction) stays on. Two orders of
    /// independent steps are the same to the program, but a formula over
    /// the order of actions may tell them apart if one of the actions is
    /// *visible* to it: its letter satisfies one of the formula's action
    /// atoms (as the check itself matches atoms; `END` and `DEADLOCK` only
    /// concern how a run ends, which no order of independent steps
    /// changes). So under a property a step whose action is visible (or
    /// may be: any doubt counts as visible) is dependent on every other
    /// step, and only orders of steps that are both invisible are pruned:
    /// swapping those leaves the word of atom valuations the same, and
    /// with it the verdict of any LTL formula. A program's own
    /// [`choose`](crate::choose) is no action and never visible. The
    /// fewer actions the atoms match, the more is pruned: `G !"DEADLOCK"`
    /// prunes as much as no property, `F "* SEND *"` little.
    ///
    /// ```
    /// use prust::explore::{Explorer, Reduction};
    /// let ex = Explorer::new()
    ///     .reduction(Reduction::Dpor)
    ///     .property(r#"G !"DEADLOCK""#)
    ///     .explore(prust::protocols::two_buyer::strict(), |r| {
    ///         r.spawn("buyer1", |_| {});
    ///     });
    /// assert_eq!(ex.reduction(), Reduction::Dpor);
    /// assert_eq!(ex.reduction_off(), None);
    /// ```
    pub fn property(mut self, ltl_formula: &str) -> Self {
        self.property = Some(ltl_formula.to_string());
        self
    }

    /// Weak fairness over roles, as [`Checker::fairness`](engine::Checker::fairness)
    /// asks of a check: accepted, and it changes no outcome, so every
    /// fairness gives the same exploration. A [`property`](Self::property)
    /// is checked on each execution's finite trace, extended (as a check
    /// extends a finite run) by stutter steps forever; those steps leave
    /// no role enabled (every role returned or waits with nothing able to
    /// move), so every such run is weakly fair, and no run is unfair for
    /// fairness to discard. An execution a bound cut short counts as it
    /// does without fairness (it is never a success). `PRUST_FAIRNESS` is
    /// likewise without effect here.
    ///
    /// ```
    /// use prust::explore::Explorer;
    /// use prust::Fairness;
    /// let run = |f| Explorer::new()
    ///     .fairness(f)
    ///     .property(r#"F "buyer2 SEND *""#)
    ///     .explore(prust::protocols::two_buyer::strict(), |_| {})
    ///     .failures()
    ///     .len();
    /// assert_eq!(run(Fairness::Weak), run(Fairness::None));
    /// ```
    pub fn fairness(self, fairness: engine::Fairness) -> Self {
        // Nothing to store: see above for why no outcome depends on it.
        let _ = fairness;
        self
    }

    /// How schedules equivalent to ones already run are skipped (see
    /// [`Reduction`]; default from `PRUST_REDUCTION`, else DPOR).
    pub fn reduction(mut self, reduction: Reduction) -> Self {
        self.reduction = reduction;
        self
    }

    /// Whether each failure's schedule is simplified (on by default):
    /// steps are moved next to the same role's steps where that cuts
    /// context switches, and a change is kept only if re-running the new
    /// schedule ends in the same outcome. Then a search over every
    /// schedule, shortest first, finds one with the fewest steps that
    /// fails the same way, and among those the fewest context switches
    /// ([`Exploration::is_shortest`], and a line of the report: "a
    /// shortest failing schedule"). The search may run as many
    /// executions as the exploration did, and at least 2000, for all
    /// the failures; past that the moved steps' schedule is shown, "not shown
    /// to be a shortest failing schedule", with how to search whatever it
    /// costs ([`shortest`](Self::shortest)). Every schedule shown was run
    /// again by a replay and failed the same way. Failures whose outcome
    /// depends on more than the schedule (a bound hit, a role stuck
    /// outside the session, nondeterminism) keep their schedule.
    ///
    /// ```
    /// use prust::explore::Explorer;
    /// use prust::session::BlockingEndpoint;
    /// #[derive(Clone, Debug)]
    /// struct Title;
    /// let ex = Explorer::new().explore(prust::protocols::two_buyer::strict(), |r| {
    ///     r.spawn("buyer1", |mut e| {
    ///         e.send("seller", Title).unwrap();
    ///         panic!("buyer1 gives up");
    ///     });
    /// });
    /// assert!(ex.is_shortest(0), "{ex}");
    /// assert_eq!(ex.failures()[0].schedule.to_string(), "buyer1");
    /// ```
    pub fn simplify(mut self, on: bool) -> Self {
        self.simplify = on;
        self
    }

    /// Runs thread roles ([`Roles::spawn`](super::Roles::spawn)) on OS
    /// threads of their own, handing the turn over between threads, as
    /// before they ran as coroutines: the same schedules and outcomes,
    /// several times slower, one execution at a time, the program called
    /// on the caller's thread. Only for measuring the two side by side.
    #[doc(hidden)]
    pub fn role_threads(mut self, on: bool) -> Self {
        self.role_threads = on;
        self
    }

    /// Runs executions in batches (`true`, the default): up to 64
    /// executions run back to back on the executor's thread (the thread
    /// that runs the roles), which calls the program right before each
    /// and meets the caller's thread once a batch instead of twice an
    /// execution. `false` makes every batch one execution long: the same
    /// calls, schedules, outcomes and reports, about half the executions
    /// per CPU-second on small programs (BENCHMARKS.md). For measuring
    /// the two side by side.
    ///
    /// A program may share state with its earlier executions (clear a log
    /// its roles write, take a token they give back): each call is made
    /// after the execution before it has ended, and each execution's
    /// result is read before the next call, batches or not. A property
    /// with a stop at the first failure runs batches of one whatever this
    /// says (the executor cannot tell whether a property fails an
    /// execution).
    ///
    /// ```
    /// use std::sync::{Arc, Mutex};
    /// use prust::explore::{choose, Explorer};
    /// use prust::session::BlockingEndpoint;
    /// use prust::spec::{msg, Spec};
    /// #[derive(Clone, Debug)]
    /// struct Move(usize);
    /// let object = prust::Strict::from_spec(&Spec::new("move", msg("Move", "white", "black")))?;
    /// // A log the program clears and its roles write: black finds in it
    /// // the one value of its own execution.
    /// let log = Arc::new(Mutex::new(Vec::new()));
    /// let ex = Explorer::new().explore(object, |r| {
    ///     log.lock().unwrap().clear();
    ///     let (white_log, black_log) = (Arc::clone(&log), Arc::clone(&log));
    ///     r.spawn("white", move |mut ep| {
    ///         let v = choose(3);
    ///         white_log.lock().unwrap().push(v);
    ///         ep.send("black", Move(v)).unwrap();
    ///     });
    ///     r.spawn("black", move |mut ep| {
    ///         ep.recv_from("white").unwrap();
    ///         assert_eq!(black_log.lock().unwrap().len(), 1);
    ///     });
    /// });
    /// assert!(ex.is_successful(), "{ex}");
    /// assert_eq!(ex.executions(), 3, "{ex}");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn batches(mut self, on: bool) -> Self {
        self.batches = on;
        self
    }

    /// The most executions a batch may run (see [`batches`](Self::batches)):
    /// one where the executor cannot tell whether an execution stops the
    /// search (a property may fail it, see `scheduler::batch`).
    fn batch_limit(&self, property: bool) -> usize {
        let exact = self.stop_on_failure && property;
        if self.batches && !self.role_threads && !exact {
            crate::scheduler::MAX_BATCH
        } else {
            1
        }
    }

    /// Show a shortest failing schedule: `true` searches for it whatever
    /// it costs (within the exploration's timeout), `false` shows the
    /// simplified one without searching. By default (`PRUST_SHORTEST`
    /// unset) the search may run as many executions as the exploration
    /// did, and at least 2000, for all the failures (see
    /// [`simplify`](Self::simplify), which this needs).
    ///
    /// ```
    /// use prust::explore::Explorer;
    /// use prust::session::BlockingEndpoint;
    /// #[derive(Clone, Debug)]
    /// struct Title;
    /// let program = |r: &mut prust::explore::Roles<'_, _>| {
    ///     r.spawn("buyer1", |mut e| {
    ///         e.send("seller", Title).unwrap();
    ///         panic!("buyer1 gives up");
    ///     });
    /// };
    /// let object = prust::protocols::two_buyer::strict;
    /// let off = Explorer::new().shortest(false).explore(object(), program);
    /// assert!(!off.is_shortest(0));
    /// assert!(off.to_string().contains("not searched for a shortest"), "{off}");
    /// assert!(Explorer::new().shortest(true).explore(object(), program).is_shortest(0));
    /// ```
    pub fn shortest(mut self, on: bool) -> Self {
        self.shortest = Some(on);
        self
    }

    /// Runs exactly one execution, following `schedule` (as a failure
    /// prints it); past its end, each step takes the first enabled
    /// choice. A choice that is not enabled where the schedule says, or
    /// left over when the program has returned, is reported as
    /// [`Outcome::Nondeterministic`](crate::Outcome::Nondeterministic).
    ///
    /// A replay is no exploration: its [`Exploration`] says it replayed
    /// one schedule ([`Exploration::is_replay`]), is never complete nor
    /// successful, and one set by `PRUST_SCHEDULE` (rather than by this
    /// call) also warns on stderr each time it runs, so that the variable
    /// left set cannot make explore tests pass unseen.
    ///
    /// ```
    /// use prust::explore::Explorer;
    /// let ex = Explorer::new()
    ///     .replay(&"white black".parse().unwrap())
    ///     .explore(prust::protocols::chess::strict(), |_| {});
    /// assert!(ex.is_replay() && !ex.is_complete() && !ex.is_successful());
    /// assert!(ex.to_string().starts_with("replayed 1 schedule"), "{ex}");
    /// ```
    pub fn replay(mut self, schedule: &Schedule) -> Self {
        self.replay = Some(schedule.clone());
        self.replay_from_env = false;
        self
    }

    /// Explores `program`'s schedules on `object`.
    ///
    /// # Panics
    /// On the errors [`try_explore`](Self::try_explore) returns (a bad
    /// property or a program that spawns a role the object lacks), with
    /// their message: in a test, a misspelled role must fail the test
    /// (at the caller's line, with the closest role's name).
    ///
    /// What `program` returns ([`Observe`]: `()`, or the [`Handle`]s that
    /// [`Roles::spawn`] returned) gives the result of each complete
    /// execution ([`Exploration::results`]).
    ///
    /// `program` is called once for each execution, right before it
    /// (after the execution before it has ended), on the thread that runs
    /// the roles' bodies, not the caller's: it must be `Sync`, what it
    /// returns `Send` and `'static` ([`Observe`], whose result is read on
    /// that thread right after the execution), and it must not wait for a
    /// lock the caller holds (a re-entrant one such as `stdout().lock()`
    /// included), which would hang the exploration.
    ///
    /// [`Handle`]: super::Handle
    #[track_caller]
    pub fn explore<P, F, O>(&self, object: P, program: F) -> Exploration<O::Value>
    where
        P: Protocol,
        F: Fn(&mut Roles<'_, P>) -> O + Sync,
        O: Observe,
        O::Value: PartialEq,
    {
        // Not `unwrap_or_else`: a closure's panic would be placed here,
        // not at the caller's line.
        match self.try_explore(object, program) {
            Ok(ex) => ex,
            Err(e) => panic!("prust explore: {e}"),
        }
    }

    /// The reduction an exploration with these options runs, and why it
    /// is not (in full) the one asked for ([`reduction`](Self::reduction)):
    /// a preemption bound turns sleep sets off, since they could cut a
    /// schedule whose equivalent the bound itself cut (DPOR then runs
    /// without them, with conservative backtrack points). A replay follows
    /// one schedule: nothing to reduce, nothing to say. A property leaves
    /// the reduction on, with the steps whose actions it sees dependent on
    /// every other (see [`property`](Self::property)): nothing to say
    /// either, since no order of actions it can tell apart is pruned.
    fn reduction_used(&self) -> (Reduction, Option<String>) {
        let asked = self.reduction;
        if self.replay.is_some() {
            return (Reduction::None, None);
        }
        if self.sampling.is_some() {
            let mut off = Vec::new();
            if asked != Reduction::None {
                off.push(format!("{asked} off"));
            }
            if let Some(bound) = self.preemption_bound {
                off.push(format!("no preemption bound ({bound} asked)"));
            }
            let why = (!off.is_empty()).then(|| {
                format!(
                    "{}: a sampled search runs random schedules, it does not enumerate \
                     them, so it has nothing to prune",
                    off.join(", ")
                )
            });
            return (Reduction::None, why);
        }
        if asked == Reduction::None {
            return (asked, None);
        }
        match (asked, self.preemption_bound) {
            (_, None) => (asked, None),
            (Reduction::SleepSets, Some(_)) => (
                Reduction::None,
                Some(
                    "sleep-sets off: under a preemption bound they could cut a schedule \
                     whose equivalent the bound itself cut"
                        .to_string(),
                ),
            ),
            (_, Some(bound)) => (
                asked,
                Some(format!(
                    "{asked} without sleep sets under the preemption bound {bound}, with \
                     conservative backtrack points (so that it finds the outcomes of the \
                     bounded plain search)"
                )),
            ),
        }
    }

    /// Explores `program`'s schedules on `object`, or says why it cannot.
    pub fn try_explore<P, F, O>(
        &self,
        object: P,
        program: F,
    ) -> Result<Exploration<O::Value>, ExploreError>
    where
        P: Protocol,
        F: Fn(&mut Roles<'_, P>) -> O + Sync,
        O: Observe,
        O::Value: PartialEq,
    {
        let started = Instant::now();
        let names = object.roles();
        let property = match &self.property {
            None => None,
            Some(f) => Some(
                Property::new(f, names.clone(), object.type_names())
                    .map_err(ExploreError::Property)?,
            ),
        };
        let count = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
        let max_executions = self.limits.max_executions.map_or(MAX_EXECUTIONS, count);
        let limits = RunLimits {
            max_steps: self.limits.max_steps.map_or(MAX_STEPS, count),
            // `inf` waits a few decades, not for ever: a deadline must be
            // an instant.
            role_timeout: self
                .limits
                .role_timeout
                .unwrap_or(ROLE_TIMEOUT)
                .min(ROLE_TIMEOUT_INF),
            deadline: self.limits.deadline(started),
        };
        let (reduction, reduction_off) = self.reduction_used();
        if self.replay_from_env && self.replay.is_some() {
            eprintln!(
                "prust explore: WARNING: PRUST_SCHEDULE is set, so this exploration only \
                 replays that one schedule: it proves nothing about the others (unset \
                 PRUST_SCHEDULE to explore every schedule)"
            );
        }
        let progress = Progress::new(
            self.progress,
            self.progress_after,
            self.sampling
                .filter(|_| self.replay.is_none())
                .map(|s| s.executions),
        );
        // Decided by the property's own checker, on the same trace
        // objects as its verdicts.
        let visible = property.as_ref().map(|p| Arc::new(p.visibility()));
        let mut tally = Tally::new(property, progress);
        let mut skipped = Skipped {
            pruned: 0,
            redundant: 0,
        };
        let mut sampled = None;
        // One pool for the whole exploration: its threads run the role
        // bodies of every execution (see `Pool`).
        let mut pool = Pool::new();
        pool.os_threads = self.role_threads;
        let job = Job {
            pool: &pool,
            object: &object,
            program: &program,
            limits,
            names: names.clone().into(),
            visible,
        };
        if let Some(schedule) = &self.replay {
            let (run, observed) = job.replay(schedule);
            tally.executions = 1;
            tally.add(&names, run, observed)?;
            // One schedule is no proof, whatever it found.
            tally.never_complete(REPLAY);
        } else if let Some(sampling) = self.sampling {
            sampled = Some(self.sample(sampling, &job, &mut tally)?);
        } else {
            skipped = self.enumerate(&job, &mut tally, reduction, max_executions)?;
        }
        if self.simplify && tally.left_running.is_empty() {
            tally.simplify_failures(&job, self.shortest);
        }
        Ok(Exploration {
            executions: tally.executions,
            failures: tally.found.failures,
            counts: tally.found.counts,
            shortness: tally.shortness,
            incomplete: tally.incomplete,
            pruned: skipped.pruned,
            redundant: skipped.redundant,
            elapsed: started.elapsed(),
            replayed: self.replay.is_some(),
            reduction,
            reduction_off,
            final_states: tally.final_states,
            left_running: tally.left_running,
            results: tally.results,
            sampled,
        })
    }
}

/// The defaults of the exploration's limits (the table of [`Limits`]).
const MAX_STEPS: usize = 10_000;
const MAX_EXECUTIONS: usize = 100_000;
const ROLE_TIMEOUT: Duration = Duration::from_secs(10);
/// What a role timeout of `inf` (or too long to wait) waits.
const ROLE_TIMEOUT_INF: Duration = Duration::from_secs(1 << 30);

/// Why a replay is never complete.
const REPLAY: &str = "a replay runs one schedule, not every schedule";

/// Why a sampled search is never complete.
const SAMPLED: &str = "sampled, not exhaustive";

/// Why an exploration told to stop at its first failure is incomplete.
const STOPPED_AT_FAILURE: &str =
    "stopped at the first failure (Explorer::stop_on_failure), with schedules left to run";

/// Explores `program`'s schedules on `object` with [`Explorer::new`]'s
/// options (from the `PRUST_*` variables; `PRUST_SCHEDULE` replays one).
///
/// # Panics
/// As [`Explorer::explore`].
#[track_caller]
pub fn explore<P, O>(
    object: P,
    program: impl Fn(&mut Roles<'_, P>) -> O + Sync,
) -> Exploration<O::Value>
where
    P: Protocol,
    O: Observe,
    O::Value: PartialEq,
{
    Explorer::new().explore(object, program)
}
