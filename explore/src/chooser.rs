//! [`Chooser`]: what decides, at each scheduling point, which enabled
//! choice runs (a search, or a replay).

use engine::RoleId;

use super::dpor::{Backtrack, HbCache};
use super::step::Alt;

/// What the chooser decides at a scheduling point.
pub(crate) enum Decision {
    /// Take `alts[i]`.
    Take(usize),
    /// Every enabled choice is asleep: this execution can only repeat
    /// schedules equivalent to ones already run. Stop it.
    Redundant,
    /// The enabled choices are not what they were (or should be): stop.
    Diverged { expected: String, found: String },
}

/// Picks the next step at each scheduling point.
pub(crate) trait Chooser {
    /// `alts` are the enabled choices (the previously running role's
    /// first, then by role), `prev` the role that made the last step;
    /// `independent(i, j)` says whether `alts[i]` and `alts[j]` commute
    /// here (see [`independent`]).
    fn choose(
        &mut self,
        step: usize,
        alts: &[Alt],
        prev: Option<RoleId>,
        independent: &dyn Fn(usize, usize) -> bool,
    ) -> Decision;

    /// Whether the chooser wants the races of each execution (DPOR): the
    /// run then keeps a [`History`] and calls
    /// [`add_backtracks`](Self::add_backtracks) at its end.
    fn wants_races(&self) -> bool {
        false
    }

    /// The races of the execution just run: at each [`Backtrack`]'s
    /// scheduling point, choices that must be explored too.
    fn add_backtracks(&mut self, _backtracks: Vec<Backtrack>) {}

    /// Where the race analysis keeps what the next execution can reuse
    /// (a search that re-runs prefixes; `None`: nothing kept).
    fn hb_cache(&mut self) -> Option<&mut HbCache> {
        None
    }
}
