//! [`TurnWatch`]: how the explorer's thread tells that the role whose
//! turn it is has run its own code past the role time limit, without the
//! roles reading the clock.
//!
//! Each turn handed out (a role started or resumed) counts one more in
//! the execution's [`turns`](super::endpoint::Ctl::turns); the watcher
//! notes when it first saw the current count and reports the role stuck
//! once that count has stood for the limit. The roles used to stamp each
//! turn with the time instead, which cost a read of the clock at every
//! step (on a virtual machine's clock, the most expensive call of a
//! sampled execution after the step itself, 7% of its time), for a
//! watcher that looks a few times a second.
//!
//! The watcher sees a turn up to a quarter of the limit after it began
//! (it looks at least that often, an execution running or not: one is
//! posted without waking it), so a role is reported after at least the
//! limit and at most 1.25 times it without an operation. Turn counts
//! are unique across executions ([`fresh_turns`]): a count seen in one
//! execution is never taken for another's.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The first turn count of a new execution: each execution gets counts
/// of its own (2³² turns each, far more than any execution's steps).
pub(crate) fn fresh_turns() -> u64 {
    static EXECUTIONS: AtomicU64 = AtomicU64::new(0);
    EXECUTIONS.fetch_add(1, Ordering::Relaxed) << 32
}

/// What the watcher last saw: a turn count and when it first saw it.
#[derive(Debug, Default)]
pub(crate) struct TurnWatch {
    seen: Option<(u64, Instant)>,
}

/// What one look found.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Turn {
    /// Look again by this instant (`None`: the limit never runs out).
    LookBy(Option<Instant>),
    /// The turn has stood for the limit: its role is stuck.
    Stuck,
}

impl TurnWatch {
    /// Looks at the current turn count `turns` at `now`, with role time
    /// limit `limit`.
    pub(crate) fn look(&mut self, turns: u64, now: Instant, limit: Duration) -> Turn {
        let since = match self.seen {
            Some((seen, since)) if seen == turns => since,
            _ => now,
        };
        self.seen = Some((turns, since));
        let Some(deadline) = since.checked_add(limit) else {
            return Turn::LookBy(None);
        };
        if now >= deadline {
            return Turn::Stuck;
        }
        // Often enough to see each turn within a quarter of the limit.
        let again = now
            .checked_add(limit / 4)
            .map_or(deadline, |a| a.min(deadline));
        Turn::LookBy(Some(again))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMIT: Duration = Duration::from_secs(8);

    /// A turn that stands for the limit is stuck, and only then; a new
    /// turn starts the count again.
    #[test]
    fn a_turn_is_stuck_once_it_has_stood_for_the_limit() {
        let t0 = Instant::now();
        let mut w = TurnWatch::default();
        assert_eq!(
            w.look(5, t0, LIMIT),
            Turn::LookBy(Some(t0 + Duration::from_secs(2)))
        );
        let t1 = t0 + Duration::from_secs(7);
        assert_eq!(w.look(5, t1, LIMIT), Turn::LookBy(Some(t0 + LIMIT)));
        assert_eq!(w.look(5, t0 + LIMIT, LIMIT), Turn::Stuck);
        // Another turn: counted from when it is first seen.
        assert_eq!(
            w.look(6, t0 + LIMIT, LIMIT),
            Turn::LookBy(Some(t0 + LIMIT + Duration::from_secs(2)))
        );
        assert_ne!(w.look(6, t0 + LIMIT + LIMIT / 2, LIMIT), Turn::Stuck);
    }

    /// An unlimited role time never runs out.
    #[test]
    fn an_unlimited_time_is_never_stuck() {
        let mut w = TurnWatch::default();
        let now = Instant::now();
        assert_eq!(w.look(1, now, Duration::MAX), Turn::LookBy(None));
        assert_eq!(w.look(1, now, Duration::MAX), Turn::LookBy(None));
    }

    /// Every execution's counts are its own.
    #[test]
    fn executions_count_turns_apart() {
        let (a, b) = (fresh_turns(), fresh_turns());
        assert!(b >= a + (1 << 32), "{a} {b}");
    }
}
