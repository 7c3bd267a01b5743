//! The options of a [`Checker`] that spread a search: its threads, the
//! level at which they start, and the share of the state space it takes
//! when several machines search one. Apart from the other options because
//! they say how the search runs, never what it answers.

use super::{Checker, Share};
#[cfg(doc)]
use crate::{Report, Stats, Verdict};

impl Checker {
    /// Search on `n` threads where the search can (default: the machine's
    /// available parallelism, `std::thread::available_parallelism`;
    /// `PRUST_THREADS`; `0` means that default, and more than
    /// [`MAX_THREADS`](Self::MAX_THREADS) are capped to it). `1` is the
    /// one-thread search exactly.
    ///
    /// Safety properties (those searched breadth-first: every `G !bad`)
    /// run on `n` threads with the same verdict and the same (shortest)
    /// counterexample as on one, whatever `n` and however the threads
    /// race; only the statistics differ (a violation is reported once its
    /// breadth-first level is done, so more states may be counted). Levels
    /// smaller than [`parallel_level`](Self::parallel_level) run on the
    /// calling thread alone, so a small check starts no thread. Liveness
    /// properties past their first `parallel_level` product states have
    /// the object's states expanded on `n` threads for the one-thread
    /// depth-first search, with its verdict, counterexample and counts.
    /// Partial-order reduction, the determinism check, hash compaction
    /// and the collapse store run on one thread; the report says so
    /// ([`Stats::single_thread`](crate::Stats::single_thread)), and
    /// [`Stats::threads`](crate::Stats::threads) says what was used. See
    /// the [crate docs](crate#every-core-and-more-than-one-machine).
    ///
    /// Without this call (or `PRUST_THREADS`), an object stored whole
    /// that does not say it is small and heap-free
    /// ([`Protocol::prefers_bytes`](crate::Protocol::prefers_bytes) left
    /// `true`, or the collapse store turned off for it) is searched on one
    /// thread: its heap blocks made by one thread and stored, cloned and
    /// freed by another made two threads cost 2.3 times the CPU of one
    /// and more wall time (BENCHMARKS.md). Asked for,
    /// the threads run.
    ///
    /// ```
    /// use engine::{dummies, Checker, Message, Protocol, Refused, RoleId};
    /// // A counter that `a` bumps by sending to `b`, up to 100.
    /// #[derive(Clone, PartialEq, Eq, Hash, Debug)]
    /// struct Count(u32);
    /// impl Protocol for Count {
    ///     fn roles(&self) -> Vec<String> { vec!["a".into(), "b".into()] }
    ///     fn try_send(&mut self, role: RoleId, _to: RoleId, m: Message)
    ///         -> Result<(), Refused<Message>> {
    ///         if role != 0 || self.0 == 100 { return Err(Refused(m)); }
    ///         self.0 += 1;
    ///         Ok(())
    ///     }
    ///     fn try_recv(&mut self, _: RoleId, _: Option<RoleId>)
    ///         -> Result<(RoleId, Message), Refused> { Err(Refused(())) }
    /// }
    /// // Every level shared, however small (see `parallel_level`).
    /// let checker = Checker::new().threads(2).parallel_level(1).determinism_check(false);
    /// let r = checker.check(r#"G !"DEADLOCK""#, Count(0), dummies![()]).unwrap();
    /// assert!(!r.holds()); // at 100 nothing is enabled
    /// assert_eq!(r.stats.threads, 2);
    /// ```
    pub fn threads(mut self, n: usize) -> Self {
        self.threads_chosen = true;
        self.threads = if n == 0 {
            crate::stack::available_threads()
        } else {
            n
        }
        .min(Self::MAX_THREADS);
        self
    }

    /// With more than one [`thread`](Self::threads), expand the
    /// breadth-first levels of fewer than `n` states on the calling thread
    /// alone (default: 1,024), and start the other threads only when a
    /// level first reaches `n` states. A liveness check (the depth-first
    /// search) runs on the calling thread alone for its first `n` product
    /// states, and starts the threads only if it is not decided by then. Sharing a level costs a wake-up and
    /// a meeting at its end, tens of microseconds: worth it for a level of
    /// a thousand states (milliseconds of work), not for a unit test's ten
    /// states. Only where the time goes changes: the verdict, the
    /// counterexample and the state counts are the same for every `n`
    /// (`0` counts as `1`: every level shared). A search that never
    /// reaches `n` says so in [`Stats::single_thread`](crate::Stats::single_thread).
    ///
    /// ```
    /// use engine::{dummies, Checker, Message, Protocol, Refused, RoleId};
    /// // A counter that `a` bumps by sending to `b`, up to 10.
    /// #[derive(Clone, PartialEq, Eq, Hash, Debug)]
    /// struct Count(u32);
    /// impl Protocol for Count {
    ///     fn roles(&self) -> Vec<String> { vec!["a".into(), "b".into()] }
    ///     fn try_send(&mut self, role: RoleId, _to: RoleId, m: Message)
    ///         -> Result<(), Refused<Message>> {
    ///         if role != 0 || self.0 == 10 { return Err(Refused(m)); }
    ///         self.0 += 1;
    ///         Ok(())
    ///     }
    ///     fn try_recv(&mut self, _: RoleId, _: Option<RoleId>)
    ///         -> Result<(RoleId, Message), Refused> { Err(Refused(())) }
    /// }
    /// let f = r#"G !"DEADLOCK""#;
    /// let two = Checker::new().threads(2).determinism_check(false);
    /// // Eleven states, one a level: too few to share.
    /// let r = two.clone().check(f, Count(0), dummies![()]).unwrap();
    /// assert_eq!(r.stats.threads, 1);
    /// assert!(r.stats.single_thread.is_some());
    /// // Every level shared, however small.
    /// let r = two.parallel_level(1).check(f, Count(0), dummies![()]).unwrap();
    /// assert_eq!(r.stats.threads, 2);
    /// ```
    pub fn parallel_level(mut self, n: usize) -> Self {
        self.parallel_level = n.max(1);
        self
    }

    /// The most threads a search uses ([`threads`](Self::threads)).
    pub const MAX_THREADS: usize = 1024;

    /// Search only share `index` of `count` (both from 1) of the product
    /// state space, for a check split over `count` machines that never talk
    /// to each other: the property holds exactly when every share holds,
    /// and a violation that any share finds is a real run of the whole
    /// object from its initial state (replayable as any other). See the
    /// [crate docs](crate#every-core-and-more-than-one-machine) for how the
    /// space is split and why that is sound, and `PRUST_SHARE=I/N` or
    /// `prust check --share I/N` for the same from outside.
    ///
    /// A share that finds no violation reports
    /// [`Verdict::HoldsOnShare`], never [`Verdict::Holds`] (nor
    /// [`Report::holds`]): one share proves nothing about the property.
    /// Limits stay limits: a share cut short is inconclusive.
    ///
    /// Every share must run the same program on the same object, formula
    /// and semantics, and with the same [`share_level`](Self::share_level):
    /// they deal out the states of one breadth-first level by their
    /// position in it. The report's split digest
    /// ([`ShareStats::digest`](crate::ShareStats::digest)) lets the runs
    /// check that they split the same level. A share runs on one thread and
    /// without partial-order reduction (both said in the report).
    /// `share(1, 1)` is the whole check, searched the share's way.
    ///
    /// # Panics
    /// Unless `1 <= index <= count <=` [`Share::MAX_COUNT`]; use
    /// [`share_of`](Self::share_of) with a [`Share`] parsed from text for
    /// an error instead.
    ///
    /// ```
    /// use engine::{Checker, Message, Protocol, Refused, RoleId, Verdict};
    /// // `a` sends `Up` or `Down` to `b`, 80 times in all.
    /// #[derive(Clone, PartialEq, Eq, Hash, Debug)]
    /// struct Walk { up: u32, down: u32 }
    /// impl Protocol for Walk {
    ///     fn roles(&self) -> Vec<String> { vec!["a".into(), "b".into()] }
    ///     fn type_names(&self) -> Vec<String> { vec!["Up".into(), "Down".into()] }
    ///     fn try_send(&mut self, role: RoleId, _to: RoleId, m: Message)
    ///         -> Result<(), Refused<Message>> {
    ///         if role != 0 || self.up + self.down == 80 { return Err(Refused(m)); }
    ///         if m.type_name() == "Up" { self.up += 1 } else { self.down += 1 }
    ///         Ok(())
    ///     }
    ///     fn try_recv(&mut self, _: RoleId, _: Option<RoleId>)
    ///         -> Result<(RoleId, Message), Refused> { Err(Refused(())) }
    ///     fn is_terminated(&self) -> bool { self.up + self.down == 80 }
    /// }
    /// let start = Walk { up: 0, down: 0 };
    /// // Three machines, each running one share (no communication):
    /// let verdicts: Vec<_> = (1..=3)
    ///     .map(|i| Checker::new().share(i, 3).check(r#"G !"DEADLOCK""#, start.clone(), vec![]))
    ///     .collect::<Result<_, _>>()
    ///     .unwrap();
    /// // The property holds: every share holds, and no share alone says "holds".
    /// assert!(verdicts.iter().all(|r| matches!(r.verdict, Verdict::HoldsOnShare { .. })));
    /// assert!(verdicts.iter().all(|r| !r.holds()));
    /// // A violation found by a share is a whole run from the initial state.
    /// let r = Checker::new().share(2, 3).check(r#"G !"END""#, start.clone(), vec![]).unwrap();
    /// let c = r.counterexample().expect("every run ends");
    /// assert_eq!(c.prefix.len(), 80);
    /// c.replay(start);
    /// ```
    pub fn share(self, index: u32, count: u32) -> Self {
        let share = Share::new(index, count).unwrap_or_else(|e| panic!("Checker::share: {e}"));
        self.share_of(Some(share))
    }

    /// Search this share of the state space (`None`: the whole check), as
    /// [`share`](Self::share) does.
    ///
    /// ```
    /// let s: engine::Share = "3/8".parse().expect("a share");
    /// let checker = engine::Checker::new().share_of(Some(s));
    /// # let _ = checker;
    /// ```
    pub fn share_of(mut self, share: Option<Share>) -> Self {
        self.share = share;
        self
    }

    /// The share this checker searches ([`share`](Self::share), or
    /// `PRUST_SHARE`), `None` for the whole check: for a caller that must
    /// word its own summary as one share's.
    ///
    /// ```
    /// let c = engine::Checker::new().share(2, 5);
    /// assert_eq!(c.current_share().map(|s| s.to_string()), Some("2/5".to_string()));
    /// ```
    pub fn current_share(&self) -> Option<Share> {
        self.share
    }

    /// Split at breadth-first level `k` (the states at distance `k` from
    /// the initial one are dealt out to the shares), instead of at the
    /// first level with [`SHARE_STATES`](Self::SHARE_STATES) states a
    /// share. A deeper level balances the shares better and costs each
    /// share the levels above it; a level that the search never reaches
    /// leaves nothing to split, and every share then searches the whole
    /// (small) space. Only a tuning knob: every level gives the same
    /// combined verdict. Every share holds the levels above the split in
    /// memory with the step that reached each state (under hash compaction
    /// and the collapse store, their objects too, until the split), so a
    /// level deep in a large space costs each share that much.
    ///
    /// ```
    /// let checker = engine::Checker::new().share(1, 4).share_level(6);
    /// # let _ = checker;
    /// ```
    pub fn share_level(mut self, k: u64) -> Self {
        self.share_level = Some(k);
        self
    }

    /// The states a share should get at the split level, by default: the
    /// search splits at the first level with this many states times the
    /// share count. More than one a share, so that one share is not left
    /// with the one state whose future is the whole space.
    pub const SHARE_STATES: u64 = 32;
}
