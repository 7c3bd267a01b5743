//! The exhaustive search: a depth-first enumeration of schedules
//! (stateless: every execution re-runs the program from the start,
//! following a prefix of choices, as Déjà Fu and loom do), pruned by the
//! reduction that runs.

use std::sync::Arc;

use engine::Protocol;

use super::tally::{Job, Tally};
use super::{Explorer, STOPPED_AT_FAILURE};
use crate::dfs::Dfs;
use crate::end::End;
use crate::error::ExploreError;
use crate::observe::Observe;
use crate::reduction::Reduction;
use crate::roles::Roles;
use crate::scheduler::{Run, Search};

impl Search for Dfs {
    fn begin(&mut self) {
        self.depth = 0;
    }

    fn ran(&mut self, run: &Run) {
        // Stopped before it was maximal (see `Dfs::cut_short`).
        if matches!(
            run.end,
            End::Violation { .. } | End::Panicked { .. } | End::Awaiting { .. }
        ) {
            self.cut_short();
        }
    }

    fn next(&mut self) -> bool {
        self.backtrack()
    }
}

/// What an enumeration skipped: choices the preemption bound cut, and
/// executions that ended redundant (sleep-set blocked).
pub(super) struct Skipped {
    pub(super) pruned: usize,
    pub(super) redundant: usize,
}

impl Explorer {
    /// Runs every schedule of `job` (up to `max_executions`), as
    /// `reduction` prunes them.
    pub(super) fn enumerate<P, F, O>(
        &self,
        job: &Job<'_, P, F>,
        tally: &mut Tally<O::Value>,
        reduction: Reduction,
        max_executions: usize,
    ) -> Result<Skipped, ExploreError>
    where
        P: Protocol,
        F: Fn(&mut Roles<'_, P>) -> O + Sync,
        O: Observe,
        O::Value: PartialEq,
    {
        // DPOR under a bound adds conservative points instead of sleep
        // sets (see `Dfs::add_backtracks`).
        let bounded = self.preemption_bound.is_some();
        let mut dfs = Dfs {
            stack: Vec::new(),
            depth: 0,
            bound: self.preemption_bound,
            sleep_sets: !bounded && reduction != Reduction::None,
            dpor: reduction == Reduction::Dpor,
            pruned: 0,
            names: Arc::clone(&job.names),
            hb: Default::default(),
        };
        let mut redundant = 0;
        // With `batches`, batches grow from one execution (a program that
        // fails at once is called once), doubling; of one only where the
        // executor cannot tell whether an execution stops the search (a
        // property may fail it, see `scheduler::batch`).
        let limit = self.batch_limit(tally.property.is_some());
        let mut size = 1;
        'search: loop {
            if tally.executions >= max_executions {
                // A bound, not a failure of the program: the exploration
                // is only incomplete.
                tally.cut(|| {
                    format!(
                        "stopped after max_executions = {max_executions} with schedules left \
                         to run (raise it with Explorer::max_executions or \
                         PRUST_MAX_EXECUTIONS)"
                    )
                });
                break;
            }
            let n = size.min(max_executions - tally.executions);
            size = (size * 2).min(limit);
            // The search moves into the executions and back (its
            // decisions are made on the executor's thread).
            let batch = job.run_batch(dfs, n, self.stop_on_failure);
            dfs = batch.search;
            let ran = batch.runs.len();
            for (i, (run, observed)) in batch.runs.into_iter().enumerate() {
                // Whether the search had a schedule left after this one.
                let more = i + 1 < ran || batch.more;
                tally.executions += 1;
                // A redundant execution that left a role's thread behind
                // (stuck after the stop) stops the search as any such
                // execution does: the tally reports the role.
                if matches!(run.end, End::Redundant) && run.left_behind.is_empty() {
                    redundant += 1;
                    tally
                        .progress
                        .tick(tally.executions, tally.found.failures.len());
                    if !more {
                        break 'search;
                    }
                    continue;
                }
                if tally.add(&job.names, run, observed)? || !more {
                    break 'search;
                }
                if self.stop_on_failure && tally.found.last_failed {
                    tally.cut(|| STOPPED_AT_FAILURE.to_string());
                    break 'search;
                }
            }
            // A batch stops only where the explorer stops.
            debug_assert_eq!(ran, n, "a batch stopped where the search goes on");
        }
        if dfs.pruned > 0 {
            let bound = self.preemption_bound.unwrap_or_default();
            let pruned = dfs.pruned;
            tally.cut(|| {
                format!(
                    "the preemption bound {bound} skipped {pruned} choice{}",
                    if pruned == 1 { "" } else { "s" }
                )
            });
        }
        Ok(Skipped {
            pruned: dfs.pruned,
            redundant,
        })
    }
}
