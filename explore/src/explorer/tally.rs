//! What one exploration shares between its executions ([`Job`]) and what
//! it has found so far ([`Tally`]): every search (replay, sample,
//! enumeration) runs its executions through the one and records them in
//! the other, so that an execution counts the same whichever search ran
//! it.

use std::collections::BTreeSet;
use std::sync::Arc;

use engine::Protocol;

use crate::end::End;
use crate::error::ExploreError;
use crate::found::to_schedule;
use crate::found::Found;
use crate::observe::Observe;
use crate::pool::Pool;
use crate::progress::Progress;
use crate::property::Property;
use crate::replay::Replay;
use crate::report::{Failure, Outcome, Returned, Shortness};
use crate::results::{result_of, Observed};
use crate::roles::Roles;
use crate::schedule::Schedule;
use crate::scheduler::{self, Batch, Run, RunLimits, Search};
use crate::shortest::{self, Bounded, Probe, Shortest};
use crate::visible::Visibility;

/// What every execution of one exploration runs on.
pub(super) struct Job<'a, P, F> {
    pub(super) pool: &'a Pool,
    pub(super) object: &'a P,
    pub(super) program: &'a F,
    pub(super) limits: RunLimits,
    pub(super) names: Arc<[String]>,
    /// Under a property, the actions it sees: the reductions keep every
    /// order of those (see `independence`).
    pub(super) visible: Option<Arc<Visibility>>,
}

impl<P, F, O> Job<'_, P, F>
where
    P: Protocol,
    F: Fn(&mut Roles<'_, P>) -> O + Sync,
    O: Observe,
{
    /// Runs the program once, as `chooser` schedules it: a batch of one
    /// (the program called on the executor's thread, as in every batch);
    /// its result.
    pub(super) fn run<C: Search>(&self, chooser: C) -> (Run, C, Option<O::Value>) {
        let mut batch = self.run_batch(chooser, 1, false);
        let (run, value) = batch.runs.pop().expect("a batch of one runs one execution");
        (run, batch.search, value)
    }

    /// Runs up to `n` executions back to back (see `scheduler::batch`),
    /// `search` deciding, with each one's result; with role threads
    /// (`Explorer::role_threads`), one at a time, the program called on
    /// the caller's thread.
    pub(super) fn run_batch<S: Search>(
        &self,
        search: S,
        n: usize,
        stop_on_failure: bool,
    ) -> Batch<S, Option<O::Value>> {
        if !self.pool.os_threads {
            return scheduler::run_batch(
                self.pool,
                self.object,
                self.program,
                self.limits,
                self.visible.as_ref(),
                search,
                n,
                stop_on_failure,
                result_of::<O>,
            );
        }
        let mut search = search;
        search.begin();
        let (run, mut search, observed) = scheduler::run(
            self.pool,
            self.object,
            self.program,
            self.limits,
            search,
            self.visible.as_ref(),
        );
        let (more, _) = scheduler::after(&mut search, &run, stop_on_failure);
        let value = result_of(&run, observed);
        Batch {
            runs: vec![(run, value)],
            search,
            more,
        }
    }

    /// Runs the program once along `schedule`. A program that returns
    /// with choices of the schedule left is no run of it (a schedule of
    /// another program, or of this one before a change): it diverged
    /// where the next choice was due, not "no failure".
    pub(super) fn replay(&self, schedule: &Schedule) -> (Run, Option<O::Value>) {
        let chooser = Replay {
            schedule: schedule.clone(),
            names: Arc::clone(&self.names),
        };
        let (mut run, _, mut value) = self.run(chooser);
        let taken = run.schedule.len();
        if let (End::Success, Some(next)) = (&run.end, schedule.choices().get(taken)) {
            run.end = End::Diverged {
                step: taken + 1,
                expected: format!("the choice {next}"),
                found: "nothing more (every role had returned)".into(),
            };
            // No run of the schedule, so no result of it (read before
            // its end was judged).
            value = None;
        }
        (run, value)
    }
}

/// What the executions so far have found.
pub(super) struct Tally<T> {
    pub(super) found: Found,
    pub(super) property: Option<Property>,
    pub(super) incomplete: Option<String>,
    pub(super) executions: usize,
    pub(super) final_states: BTreeSet<u64>,
    pub(super) left_running: Vec<String>,
    pub(super) results: Vec<Returned<T>>,
    pub(super) progress: Progress,
    /// Whether each failure's schedule is a shortest one (filled by
    /// `simplify_failures`).
    pub(super) shortness: Vec<Shortness>,
    /// Executions run by the searches for shortest failing schedules
    /// (not counted in `executions`, which are the exploration's).
    pub(super) shortening_runs: usize,
}

/// Why the search for a shortest schedule stopped when a thread was left
/// behind.
const LEFT_RUNNING: &str =
    "a role's thread was left running (stuck outside the session): nothing more is run";

impl<T: PartialEq> Tally<T> {
    pub(super) fn new(property: Option<Property>, progress: Progress) -> Self {
        Tally {
            found: Found::default(),
            property,
            incomplete: None,
            executions: 0,
            final_states: BTreeSet::new(),
            left_running: Vec::new(),
            results: Vec::new(),
            progress,
            shortness: Vec::new(),
            shortening_runs: 0,
        }
    }

    /// Notes why the exploration is incomplete, unless an earlier reason
    /// was noted (the first one is the one a user must lift first).
    pub(super) fn cut(&mut self, why: impl FnOnce() -> String) {
        if self.incomplete.is_none() {
            self.incomplete = Some(why());
        }
    }

    /// Makes `why` the first reason the exploration is incomplete, for a
    /// search that is never a proof whatever else stopped it.
    pub(super) fn never_complete(&mut self, why: &str) {
        self.incomplete = Some(match self.incomplete.take() {
            None => why.to_string(),
            Some(other) => format!("{why}; and {other}"),
        });
    }

    /// Records the execution `run` (counted already in `executions`) and
    /// its result (`results::result_of`). Returns whether the exploration
    /// must stop: a role out of time, stuck outside the session or
    /// diverged, or a thread left behind (running on could leave one
    /// behind per execution).
    pub(super) fn add(
        &mut self,
        names: &[String],
        run: Run,
        value: Option<T>,
    ) -> Result<bool, ExploreError> {
        // The same predicates as a batch's on the executor's thread (see
        // `scheduler::batch`), so that it stops where this does.
        let stop_all = run.stops_exploration();
        let fails = run.fails_without_property();
        if run.end.is_maximal() {
            self.final_states.insert(run.final_state);
        }
        self.note_left_behind(names, &run);
        let result = Observed::new(names, &run, value, &self.results);
        if let Some(cut) = self.found.add(names, run, self.property.as_mut())? {
            self.cut(|| cut);
        }
        debug_assert!(
            self.property.is_some() || fails == self.found.last_failed,
            "a batch judges failures as the tally does"
        );
        result.record(&self.found, &mut self.results);
        self.progress
            .tick(self.executions, self.found.failures.len());
        Ok(stop_all)
    }

    /// Notes the roles whose threads `run` left behind.
    fn note_left_behind(&mut self, names: &[String], run: &Run) {
        for &r in &run.left_behind {
            if !self.left_running.contains(&names[r]) {
                self.left_running.push(names[r].clone());
            }
        }
    }

    /// Replaces each failure's schedule by a simpler one that fails the
    /// same way, confirmed by running it: a shortest one (fewest steps,
    /// then fewest context switches; see `shortest`) if the search for it
    /// fits its budget, else the heuristic's (see `simplify`). Failures
    /// whose outcome depends on more than the schedule (a bound, a role
    /// stuck outside the session, nondeterminism) keep theirs, and nothing
    /// is run once a thread has been left behind.
    ///
    /// `shortest`: `Some(true)` searches whatever it costs (within the
    /// time), `Some(false)` not at all, `None` within the default budget.
    pub(super) fn simplify_failures<P, F, O>(&mut self, job: &Job<'_, P, F>, shortest: Option<bool>)
    where
        P: Protocol,
        F: Fn(&mut Roles<'_, P>) -> O + Sync,
        O: Observe,
    {
        let mut failures = std::mem::take(&mut self.found.failures);
        self.shortness = vec![Shortness::Unknown; failures.len()];
        // The searches may cost as much as the exploration did, and at
        // least a few thousand executions, in all: the first failures (the
        // one the report says how to replay first) are searched first.
        let total = match shortest {
            Some(true) => usize::MAX,
            Some(false) => 0,
            None => shortest::FLOOR.max(self.executions),
        };
        let mut left = total;
        for (i, failure) in failures.iter_mut().enumerate() {
            if matches!(
                failure.outcome,
                Outcome::Aborted { .. } | Outcome::Stuck { .. } | Outcome::Nondeterministic { .. }
            ) {
                continue;
            }
            let key = failure.outcome.to_string();
            let simpler = crate::simplify::simplify(&failure.schedule, 100, |c| {
                self.confirm(job, c, &key).map(|f| f.schedule)
            });
            if simpler != failure.schedule {
                if let Some(f) = self.confirm(job, &simpler, &key) {
                    failure.schedule = f.schedule;
                    failure.trace = f.trace;
                }
            }
            if total == 0 {
                self.shortness[i] = Shortness::Off;
                continue;
            }
            if left == 0 {
                self.shortness[i] = Shortness::OverBudget(format!(
                    "the {total} executions that shortening may run were spent on the failures \
                     before it"
                ));
                continue;
            }
            let (found, runs) =
                shortest::shortest(failure.schedule.len(), left, |c| self.probe(job, c, &key));
            left -= runs;
            self.shortening_runs += runs;
            self.shortness[i] = match found {
                Shortest::Exact(alts) => {
                    let exact = to_schedule(&job.names, &alts);
                    let measure = |s: &Schedule| (s.len(), s.context_switches());
                    if measure(&exact) >= measure(&failure.schedule) {
                        // The heuristic's is as short: it stays.
                        Shortness::Shortest
                    } else if let Some(f) = self.confirm(job, &exact, &key) {
                        failure.schedule = f.schedule;
                        failure.trace = f.trace;
                        Shortness::Shortest
                    } else {
                        Shortness::NotShown(
                            "a shorter schedule found did not fail the same way when replayed"
                                .into(),
                        )
                    }
                }
                Shortest::Stopped(why) => Shortness::NotShown(why),
                Shortest::OverBudget(why) => Shortness::OverBudget(why),
            };
        }
        self.found.failures = failures;
    }

    /// Runs one execution of the search for a shortest failing schedule:
    /// whether it failed with the outcome `key`.
    fn probe<P, F, O>(
        &mut self,
        job: &Job<'_, P, F>,
        chooser: Bounded,
        key: &str,
    ) -> (Bounded, Probe)
    where
        P: Protocol,
        F: Fn(&mut Roles<'_, P>) -> O + Sync,
        O: Observe,
    {
        if !self.left_running.is_empty() {
            return (chooser, Probe::Stop(LEFT_RUNNING.into()));
        }
        let (run, chooser, _) = job.run(chooser);
        self.note_left_behind(&job.names, &run);
        if !run.left_behind.is_empty() {
            return (chooser, Probe::Stop(LEFT_RUNNING.into()));
        }
        match run.end {
            End::Diverged { .. } => {
                return (
                    chooser,
                    Probe::Stop("the program is not deterministic".into()),
                )
            }
            End::Time => return (chooser, Probe::Stop("the time ran out".into())),
            End::Redundant => return (chooser, Probe::Other),
            _ => {}
        }
        let alts = run.schedule.clone();
        // These stop every role where it is (see `Bounded::cut_short`).
        let stopped = matches!(
            run.end,
            End::Violation { .. } | End::Panicked { .. } | End::Awaiting { .. }
        );
        let mut again = Found::default();
        let probe = match again.add(&job.names, run, self.property.as_mut()) {
            Err(e) => Probe::Stop(e.to_string()),
            Ok(_) => match again.failures.first() {
                Some(f) if f.outcome.to_string() == key => Probe::Fails(alts),
                _ if stopped => Probe::Cut,
                _ => Probe::Other,
            },
        };
        (chooser, probe)
    }

    /// The failure that running `candidate` gives, if its outcome reads
    /// `key`.
    fn confirm<P, F, O>(
        &mut self,
        job: &Job<'_, P, F>,
        candidate: &Schedule,
        key: &str,
    ) -> Option<Failure>
    where
        P: Protocol,
        F: Fn(&mut Roles<'_, P>) -> O + Sync,
        O: Observe,
    {
        if !self.left_running.is_empty() {
            return None;
        }
        let (run, _) = job.replay(candidate);
        self.note_left_behind(&job.names, &run);
        if !run.left_behind.is_empty() {
            return None;
        }
        let mut again = Found::default();
        again.add(&job.names, run, self.property.as_mut()).ok()?;
        let f = again.failures.pop()?;
        (f.outcome.to_string() == key).then_some(f)
    }
}
