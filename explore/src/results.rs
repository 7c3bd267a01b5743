//! The results of complete executions: the distinct values found, each
//! with one schedule that produces it ([`Returned`]), gathered as the
//! exploration runs.

use super::end::End;
use super::found::{to_schedule, to_step, Found};
use super::observe::Observe;
use super::report::{Returned, TraceStep};
use super::schedule::Schedule;
use super::scheduler::Run;

/// Adds `value` to the distinct results (compared with `==`: results need
/// no hash or order).
pub(crate) fn record<T: PartialEq>(
    results: &mut Vec<Returned<T>>,
    value: T,
    schedule: impl FnOnce() -> (Schedule, Vec<TraceStep>),
) {
    match results.iter_mut().find(|r| r.value == value) {
        Some(r) => r.count += 1,
        None => {
            let (schedule, trace) = schedule();
            results.push(Returned {
                value,
                schedule,
                trace,
                count: 1,
            });
        }
    }
}

/// The result of one execution, read before its failures are recorded
/// and kept only if there was none (a complete execution).
pub(crate) struct Observed<T> {
    value: Option<T>,
    /// The schedule and trace, where the value is new.
    fresh: Option<(Schedule, Vec<TraceStep>)>,
}

/// The result of the execution `run`, read from what the program returned
/// in it. Read right after the execution, where it ran (on the executor's
/// thread for a batch), before the program is called again: a result may
/// read state that the next call resets.
pub(crate) fn result_of<O: Observe>(run: &Run, observed: O) -> Option<O::Value> {
    // Only an execution that ran to its end has a result: one stopped by
    // a failure or a bound has roles that did not return.
    (matches!(run.end, End::Success) && run.left_behind.is_empty())
        .then(|| observed.observe())
        .flatten()
}

impl<T: PartialEq> Observed<T> {
    /// `value`: the execution's [`result_of`].
    pub(crate) fn new(
        names: &[String],
        run: &Run,
        value: Option<T>,
        results: &[Returned<T>],
    ) -> Self {
        let fresh = value
            .as_ref()
            .filter(|v| !results.iter().any(|r| r.value == **v))
            .map(|_| {
                (
                    to_schedule(names, &run.schedule),
                    run.trace.iter().map(|a| to_step(names, a)).collect(),
                )
            });
        Observed { value, fresh }
    }

    /// Records the value unless the execution failed (a property it
    /// violates, a role stuck after it).
    pub(crate) fn record(self, found: &Found, results: &mut Vec<Returned<T>>) {
        let (Some(value), false) = (self.value, found.last_failed) else {
            return;
        };
        let mut fresh = self.fresh;
        record(results, value, || {
            fresh.take().expect("a new value's schedule was kept")
        });
    }
}
