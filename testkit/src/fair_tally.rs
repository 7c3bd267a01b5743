//! How often the reduced search decides a weakly fair check: the floor
//! that keeps a differential test of fairness under partial-order
//! reduction from comparing the full search with itself. Counted the
//! same way by every such test (engine's random product objects,
//! protocols' random specifications).

use std::cell::Cell;

use engine::por::ReductionStatus;
use proptest::strategy::Strategy;
use proptest::test_runner::{Config, TestCaseError, TestRng, TestRunner};

/// What the weakly fair checks with the reduction on did.
#[derive(Default, Clone, Copy, Debug, PartialEq, Eq)]
pub struct FairTally {
    /// Weakly fair checks whose formula and object allow the reduction.
    pub applicable: usize,
    /// ... of which the reduced search decided, with fewer product
    /// states than the full search stored.
    pub reduced: usize,
}

impl FairTally {
    /// Counts one weakly fair check under the infinite-runs-only semantics
    /// (where every such check searches for fair cycles; under the stutter
    /// one a safety property is decided as without fairness): `status` is
    /// the reduced run's, `states` the product states of the full and the
    /// reduced run. A check counts as applicable unless the reduction was
    /// off for a reason other than weak fairness or was not declared.
    ///
    /// ```
    /// use engine::por::ReductionStatus;
    /// use testkit::fair_tally::FairTally;
    /// let mut t = FairTally::default();
    /// t.count(&ReductionStatus::On { ample_states: 3 }, [10, 7]);
    /// t.count(&ReductionStatus::Off("a formula atom".into()), [10, 10]);
    /// assert_eq!(t, FairTally { applicable: 1, reduced: 1 });
    /// ```
    pub fn count(&mut self, status: &ReductionStatus, states: [u64; 2]) {
        let allowed = match status {
            ReductionStatus::On { .. } => true,
            ReductionStatus::Off(why) => why.contains("weak fairness"),
            ReductionStatus::NotDeclared => false,
        };
        if !allowed {
            return;
        }
        self.applicable += 1;
        let ample = matches!(status, ReductionStatus::On { ample_states } if *ample_states > 0);
        self.reduced += usize::from(ample && states[1] < states[0]);
    }

    /// Panics unless at least `applicable` checks were applicable and
    /// `reduced` of them decided by the reduced search with fewer states.
    pub fn assert_at_least(self, applicable: usize, reduced: usize) {
        assert!(
            self.applicable >= applicable && self.reduced >= reduced,
            "too few weakly fair checks decided by the reduced search: {self:?}"
        );
    }
}

/// Runs `config.cases` cases of `strategy` through `case` from a fixed
/// seed (so the tally, and the floor on it, is the same every run), and
/// sums the tallies; panics with proptest's report on a failing case.
pub fn run_tallied<S: Strategy>(
    config: Config,
    strategy: &S,
    case: impl Fn(S::Value) -> Result<FairTally, TestCaseError>,
) -> FairTally {
    let config = Config {
        failure_persistence: None,
        ..config
    };
    let rng = TestRng::deterministic_rng(config.rng_algorithm);
    let mut runner = TestRunner::new_with_rng(config, rng);
    let total = Cell::new(FairTally::default());
    let result = runner.run(strategy, |value| {
        let t = case(value)?;
        let sum = total.get();
        total.set(FairTally {
            applicable: sum.applicable + t.applicable,
            reduced: sum.reduced + t.reduced,
        });
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    total.get()
}
