//! [`Deadline`]: the one time check of prust, shared by the search, the
//! builds of the protocols crate (and its `.dcj` evaluator) and
//! `prust::explore`, so that a timeout means the same everywhere.
//!
//! Why these intervals: the clock is read every `most` ticks at most
//! (`Instant::now` costs ~25 ns; a search's tick at least a few hundred),
//! and more often when ticks are slow: the interval adapts so that about
//! [`CLOCK_TARGET`] passes between two reads, down to every tick (one
//! state of an object with thousands of roles under the determinism check
//! can take most of a second). A limit then overshoots by at most one
//! slow tick, or about a millisecond.

use std::time::{Duration, Instant};

/// Wall time wanted between two reads of the clock.
const CLOCK_TARGET: Duration = Duration::from_millis(1);

/// A deadline, and when next to read the clock against it.
///
/// Plumbing, public only for the other prust crates (a user bounds work
/// with [`Limits`](crate::Limits), not with this).
#[doc(hidden)]
#[derive(Debug, Clone)]
pub struct Deadline {
    at: Option<Instant>,
    /// Most ticks between two reads.
    most: u32,
    ticks: u64,
    countdown: u32,
    /// The clock reading and tick count of the last read, to adapt the
    /// interval to the time a tick takes.
    read_at: Instant,
    read_ticks: u64,
}

impl Deadline {
    /// A deadline `at` (`None`: never) for work that started at `started`,
    /// the clock read every `most` ticks at most (at least 1). The first
    /// tick reads it: a deadline already passed stops the work at once.
    pub fn new(at: Option<Instant>, started: Instant, most: u32) -> Deadline {
        Deadline {
            at,
            most: most.max(1),
            ticks: 0,
            countdown: 1,
            read_at: started,
            read_ticks: 0,
        }
    }

    /// The deadline (`None`: none).
    pub fn at(&self) -> Option<Instant> {
        self.at
    }

    /// One unit of work; `Some(now)` when this tick read the clock (the
    /// moment for any other periodic check).
    #[inline]
    pub fn tick(&mut self) -> Option<Instant> {
        self.ticks += 1;
        self.countdown -= 1;
        if self.countdown != 0 {
            return None;
        }
        Some(self.read())
    }

    #[cold]
    fn read(&mut self) -> Instant {
        let now = Instant::now();
        // Ticks that fit in CLOCK_TARGET at the rate since the last read.
        let per_tick = now.duration_since(self.read_at).as_secs_f64()
            / (self.ticks - self.read_ticks).max(1) as f64;
        let fit = CLOCK_TARGET.as_secs_f64() / per_tick.max(1e-12);
        // Grow the interval by doubling at most: the first ticks of the
        // work say little about the later ones. The first read comes
        // before any work: no rate is known yet.
        let interval = if self.read_ticks == 0 {
            0.5
        } else {
            (self.ticks - self.read_ticks) as f64
        };
        self.countdown = fit.clamp(1.0, f64::from(self.most).min(2.0 * interval)) as u32;
        self.read_at = now;
        self.read_ticks = self.ticks;
        now
    }

    /// Whether the deadline has passed at `now`.
    pub fn passed_at(&self, now: Instant) -> bool {
        self.at.is_some_and(|d| now >= d)
    }

    /// One unit of work; whether it found the deadline passed.
    #[inline]
    pub fn expired(&mut self) -> bool {
        self.tick().is_some_and(|now| self.passed_at(now))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_passed_deadline_stops_the_first_tick_and_none_never_stops() {
        let now = Instant::now();
        let mut passed = Deadline::new(Some(now), now, 64);
        assert!(passed.expired());
        let mut never = Deadline::new(None, now, 64);
        assert!((0..10_000).all(|_| !never.expired()));
    }

    #[test]
    fn the_clock_is_read_at_least_every_most_ticks() {
        let now = Instant::now();
        let mut d = Deadline::new(None, now, 16);
        let mut gap = 0;
        let mut widest = 0;
        for _ in 0..10_000 {
            gap += 1;
            if d.tick().is_some() {
                widest = widest.max(gap);
                gap = 0;
            }
        }
        assert!((1..=16).contains(&widest), "{widest}");
        let mut every = Deadline::new(None, now, 1);
        assert!((0..100).all(|_| every.tick().is_some()));
    }
}
