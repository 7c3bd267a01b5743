//! The explorer's sampled searches: [`Explorer::random`] and
//! [`Explorer::pct`] in place of an enumeration, for programs too big to
//! exhaust, and stopping at the first failure.

use engine::Protocol;

use super::tally::{Job, Tally};
use super::{SAMPLED, STOPPED_AT_FAILURE};
use crate::error::ExploreError;
use crate::observe::Observe;
use crate::report::Sampled;
use crate::roles::Roles;
use crate::sampler::{Sampler, Strategy};
use crate::scheduler::Search;

impl Search for Sampler {
    fn begin(&mut self) {
        self.start_execution();
    }

    fn next(&mut self) -> bool {
        true
    }
}
use crate::Explorer;

/// What [`Explorer::random`] and [`Explorer::pct`] ask for.
#[derive(Debug, Clone, Copy)]
pub(super) struct Sampling {
    pub(super) strategy: Strategy,
    pub(super) seed: Option<u64>,
    pub(super) executions: usize,
}

impl Explorer {
    /// Samples `executions` random schedules instead of running every
    /// one, for a program too big to exhaust: at each scheduling point a
    /// role chosen uniformly among the enabled ones takes its step (and,
    /// where that role has several choices, the sender of a receive from
    /// anyone or the value of a [`choose`](crate::choose), one of them
    /// uniformly).
    ///
    /// `seed` fixes the search: the same seed on the same program runs
    /// the same schedules. `None` takes `PRUST_SEED`, or a fresh seed
    /// if that is unset; the report prints the seed either way
    /// ([`Exploration::seed`](crate::Exploration::seed)), and each failure's schedule, which
    /// [`replay`](Self::replay) (or `PRUST_SCHEDULE`) runs again.
    ///
    /// A sample is no proof: the exploration is never complete nor
    /// successful ([`Exploration::is_sampled`](crate::Exploration::is_sampled)), its report reads "no
    /// failure found" in so many executions, and a predicate over every
    /// schedule ([`Exploration::always_same`](crate::Exploration::always_same)) is inconclusive unless the
    /// sample refutes it. The [`reduction`](Self::reduction) and the
    /// [`preemption_bound`](Self::preemption_bound) do not apply (they
    /// prune an enumeration; a sample has none): the exploration says so
    /// ([`Exploration::reduction_off`](crate::Exploration::reduction_off)). `max_executions` and the timeout
    /// still stop it early (a further reason in the report).
    ///
    /// ```
    /// use prust::explore::Explorer;
    /// let ex = Explorer::new()
    ///     .random(7, 20)
    ///     .explore(prust::protocols::chess::strict(), |_| {});
    /// assert!(ex.is_sampled() && !ex.is_complete() && !ex.is_successful());
    /// assert_eq!((ex.seed(), ex.executions()), (Some(7), 20));
    /// ```
    pub fn random(mut self, seed: impl Into<Option<u64>>, executions: usize) -> Self {
        self.sampling = Some(Sampling {
            strategy: Strategy::Random,
            seed: seed.into(),
            executions,
        });
        self
    }

    /// Samples `executions` schedules with PCT, the probabilistic
    /// concurrency testing of Burckhardt, Kothari, Musuvathi and
    /// Nagarakatte (ASPLOS 2010), otherwise as [`random`](Self::random).
    ///
    /// Each execution gives the roles distinct random priorities and
    /// picks `depth - 1` random change points among its steps; at each
    /// scheduling point the enabled role of highest priority runs, and
    /// the role that takes a change-point step drops below every initial
    /// priority. A receive from anyone takes the message of the
    /// highest-priority sender that has one waiting; the value of a
    /// [`choose`](crate::choose) is drawn uniformly.
    ///
    /// **The guarantee.** A bug of depth `d` (it shows when `d` ordering
    /// constraints between steps of different roles hold, e.g. 1 for an
    /// order violation, 2 for an atomicity violation) is found by each
    /// execution with probability at least `1/(n·k^(d-1))`, `n` the
    /// object's roles and `k` the number of steps, when `depth >= d`;
    /// `n·k^(d-1)` executions thus find it with probability at least
    /// about 63%. Steps are counted, for the change points and for `k`,
    /// only where two roles or more are enabled (a change point where one
    /// role can run changes nothing), and `k` is estimated as the most
    /// any execution so far had: the first execution has no change point,
    /// and the bound holds once an execution as long as the bug's has
    /// run. The values of `choose`s, drawn at random, multiply the bound
    /// by their probability. Roles that wait (a receive with nothing to
    /// take) keep their priority and are passed over until they can
    /// move; no role can spin (every role's step is a session
    /// operation), so no priority is lowered for yielding.
    ///
    /// `depth` 0 counts as 1 (no change point: each execution runs the
    /// roles in one random priority order).
    ///
    /// ```
    /// use prust::explore::Explorer;
    /// let ex = Explorer::new()
    ///     .pct(7, 3, 20)
    ///     .explore(prust::protocols::chess::strict(), |_| {});
    /// assert!(ex.is_sampled() && !ex.is_successful());
    /// assert!(ex.to_string().contains("20 PCT (depth 3) executions, seed 7"), "{ex}");
    /// ```
    pub fn pct(mut self, seed: impl Into<Option<u64>>, depth: usize, executions: usize) -> Self {
        self.sampling = Some(Sampling {
            strategy: Strategy::Pct {
                depth: depth.max(1),
            },
            seed: seed.into(),
            executions,
        });
        self
    }

    /// Stops the exploration after the first execution that fails (it is
    /// then incomplete if any schedule is left; off by default). A
    /// sampled search's [`Exploration::executions`](crate::Exploration::executions) then says how many
    /// executions it took to find a failure.
    pub fn stop_on_failure(mut self, on: bool) -> Self {
        self.stop_on_failure = on;
        self
    }

    /// Runs the sample that `sampling` asks for.
    pub(super) fn sample<P, F, O>(
        &self,
        sampling: Sampling,
        job: &Job<'_, P, F>,
        tally: &mut Tally<O::Value>,
    ) -> Result<Sampled, ExploreError>
    where
        P: Protocol,
        F: Fn(&mut Roles<'_, P>) -> O + Sync,
        O: Observe,
        O::Value: PartialEq,
    {
        let seed = sampling
            .seed
            .or(self.env_seed)
            .unwrap_or_else(crate::rng::fresh_seed);
        let mut sampler = Sampler::new(sampling.strategy, seed, job.names.len());
        // An explicit `max_executions` (or `PRUST_MAX_EXECUTIONS`) still
        // bounds the sample; the default does not.
        let cap = self
            .limits
            .max_executions
            .map_or(usize::MAX, |n| usize::try_from(n).unwrap_or(usize::MAX));
        // Batches as in `enumerate`.
        let limit = self.batch_limit(tally.property.is_some());
        let mut size = 1;
        'sample: while tally.executions < sampling.executions {
            if tally.executions >= cap {
                tally.cut(|| {
                    format!(
                        "stopped after max_executions = {cap} of the {} asked for \
                         (raise it with Explorer::max_executions or PRUST_MAX_EXECUTIONS)",
                        sampling.executions
                    )
                });
                break;
            }
            let n = size
                .min(sampling.executions - tally.executions)
                .min(cap - tally.executions);
            size = (size * 2).min(limit);
            let batch = job.run_batch(sampler, n, self.stop_on_failure);
            sampler = batch.search;
            let ran = batch.runs.len();
            for (run, observed) in batch.runs {
                tally.executions += 1;
                if tally.add(&job.names, run, observed)? {
                    break 'sample;
                }
                if self.stop_on_failure
                    && tally.found.last_failed
                    && tally.executions < sampling.executions
                {
                    tally.cut(|| STOPPED_AT_FAILURE.to_string());
                    break 'sample;
                }
            }
            // A batch stops only where the explorer stops.
            debug_assert_eq!(ran, n, "a batch stopped where the search goes on");
        }
        // A sample is never a proof, whatever else stopped it.
        tally.never_complete(SAMPLED);
        Ok(Sampled {
            strategy: sampling.strategy.to_string(),
            seed,
        })
    }
}
