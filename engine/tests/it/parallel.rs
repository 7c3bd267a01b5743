//! The parallel breadth-first search (`Checker::threads`): the same
//! verdicts and counterexamples as one thread, limits that hold, and the
//! searches that stay on one thread saying so. Every check names its
//! thread count, so nothing here depends on the machine's cores.

use crate::common;

use std::hash::{Hash, Hasher};
use std::time::Duration;

use common::ring::{Msg, SlotRing, Token, TokenRing};
use common::wrapped::{Twist, Wrapped};
use common::{atom_strategy as atom, Lts, LtsProtocol};
use engine::{dummies, Checker, Limit, Message, Protocol, Refused, Report, RoleId, Verdict};
use proptest::prelude::*;

/// A checker without the determinism check (which keeps a search on one
/// thread), on `threads` threads, sharing every level however small (so
/// that these small objects exercise the threads' races; the default
/// leaves small levels to one thread).
fn on(threads: usize) -> Checker {
    Checker::new()
        .determinism_check(false)
        .threads(threads)
        .parallel_level(1)
        .max_memory(u64::MAX)
}

/// What must not depend on the thread count: the verdict, the limit, and
/// the whole counterexample as printed.
fn outcome(r: &Report) -> String {
    match &r.verdict {
        Verdict::Holds => "holds".to_string(),
        Verdict::Violated(c) => format!("violated, {} steps:\n{c}", c.prefix.len()),
        Verdict::Inconclusive { limit, .. } => format!("inconclusive: {limit}"),
        Verdict::HoldsProbabilistic { .. } => "holds (probabilistic)".to_string(),
        Verdict::HoldsOnShare { .. } => "holds on a share".to_string(),
    }
}

fn lts_strategy() -> impl Strategy<Value = Lts> {
    common::lts_strategy(200)
}

/// Mostly safety formulas (the ones searched in parallel), some liveness.
fn formula(roles: usize, types: usize) -> impl Strategy<Value = String> {
    (atom(roles, types), atom(roles, types), 0..7u8).prop_map(|(a, b, k)| match k {
        0 => format!(r#"G !"{a}""#),
        1 => format!(r#"G ("{a}" -> X !"{b}")"#),
        2 => format!(r#"G ("{a}" -> G !"{b}")"#),
        3 => format!(r#"!"{a}" W "{b}""#),
        4 => format!(r#"G !("{a}" & X X "{b}")"#),
        5 => format!(r#"G F "{a}""#),
        _ => format!(r#"F "{a}""#),
    })
}

fn case() -> impl Strategy<Value = (Lts, String, bool)> {
    lts_strategy().prop_flat_map(|lts| {
        let f = formula(lts.roles, lts.types);
        (Just(lts), f, any::<bool>())
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Verdicts, and for violations the counterexample (its length and
    /// every step), at 2 and 4 threads equal those of the one-thread
    /// search; every parallel counterexample replays on the object. Half
    /// the objects write themselves as bytes (the collapse store: the
    /// threads hand over bytes, not objects).
    #[test]
    fn threads_agree_with_one_thread((lts, formula, topology) in case(), bytes in any::<bool>()) {
        let mut proto = LtsProtocol::new(lts.clone());
        proto.topology = topology;
        proto.bytes = bytes;
        let one = on(1).check(&formula, proto.clone(), lts.dummies()).unwrap();
        prop_assert_eq!(one.stats.threads, 1);
        for n in [2, 4] {
            let r = on(n).check(&formula, proto.clone(), lts.dummies()).unwrap();
            prop_assert_eq!(outcome(&r), outcome(&one), "{} threads on {}", n, formula);
            if one.holds() {
                // An exhaustive search counts what one thread counts.
                prop_assert_eq!(r.stats.product_states, one.stats.product_states);
                prop_assert_eq!(r.stats.transitions, one.stats.transitions);
                prop_assert_eq!(r.stats.max_depth, one.stats.max_depth);
            }
            if let Some(c) = r.counterexample() {
                prop_assert!(c.try_replay(proto.clone()).is_ok(), "{}", r);
            }
            // Either it ran on n threads or it says why it did not.
            prop_assert!(
                r.stats.threads == n as u32 || r.stats.single_thread.is_some(),
                "{:?}", r.stats
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 100, ..ProptestConfig::default() })]

    /// A search that goes parallel part way (its first levels on the
    /// calling thread, the rest shared once a level reaches the
    /// threshold), under a state limit that may cut it anywhere: the
    /// verdict and the counterexample are the one-thread search's.
    #[test]
    fn going_parallel_part_way_changes_nothing(
        (lts, formula, topology) in case(),
        level in 1..40usize,
        max_states in 1..400u64,
        bytes in any::<bool>(),
    ) {
        let mut proto = LtsProtocol::new(lts.clone());
        proto.topology = topology;
        proto.bytes = bytes;
        let one = on(1).max_states(max_states).check(&formula, proto.clone(), lts.dummies()).unwrap();
        let r = on(2)
            .parallel_level(level)
            .max_states(max_states)
            .check(&formula, proto.clone(), lts.dummies())
            .unwrap();
        // As the module docs say: with the state limit inside a violation's
        // level, the parallel search may stop inconclusive where one thread
        // reports the violation; anything else must agree.
        let limited = matches!(
            r.verdict,
            Verdict::Inconclusive { limit: Limit::States(_), .. }
        ) && one.counterexample().is_some();
        if !limited {
            prop_assert_eq!(outcome(&r), outcome(&one), "level {} on {}", level, formula);
        }
    }
}

/// The default threshold: a search whose levels all stay small starts no
/// other thread, and the report says why; the same search sharing every
/// level reaches the same verdict and counts.
#[test]
fn small_searches_start_no_thread() {
    let f = r#"G !"DEADLOCK""#;
    let quiet = Checker::new()
        .determinism_check(false)
        .threads(2)
        .max_memory(u64::MAX);
    let r = quiet.check(f, SlotRing::new(4), dummies![Msg]).unwrap();
    assert!(r.holds(), "{r}");
    assert_eq!(r.stats.threads, 1, "{r}");
    let why = r.stats.single_thread.clone().unwrap_or_default();
    assert!(why.contains("parallel_level"), "{why}");
    assert!(r.to_string().contains("searched on one thread"), "{r}");
    let shared = on(2).check(f, SlotRing::new(4), dummies![Msg]).unwrap();
    assert_eq!(shared.stats.threads, 2, "{shared}");
    assert_eq!(shared.stats.single_thread, None);
    assert_eq!(r.stats.product_states, shared.stats.product_states);
    assert_eq!(r.stats.protocol_states, shared.stats.protocol_states);
    assert_eq!(r.stats.transitions, shared.stats.transitions);
    assert_eq!(r.stats.max_depth, shared.stats.max_depth);
}

/// Wherever the threads start (the first level, part way, never), the
/// counterexample and the counts are the one-thread search's; the threads
/// start once a level reaches the threshold.
#[test]
fn the_threshold_moves_only_the_threads() {
    let violated = r#"G ("r3 RECV *" -> G !"r5 RECV *")"#;
    let holds = r#"G !"DEADLOCK""#;
    let one_v = on(1)
        .check(violated, SlotRing::new(8), dummies![Msg])
        .unwrap();
    let one_h = on(1).check(holds, SlotRing::new(8), dummies![Msg]).unwrap();
    for level in [1, 40, 100, 1 << 20] {
        let two = on(2).parallel_level(level);
        let v = two
            .check(violated, SlotRing::new(8), dummies![Msg])
            .unwrap();
        assert_eq!(outcome(&v), outcome(&one_v), "level {level}");
        let h = two.check(holds, SlotRing::new(8), dummies![Msg]).unwrap();
        assert!(h.holds(), "{h}");
        assert_eq!(h.stats.product_states, one_h.stats.product_states);
        assert_eq!(h.stats.transitions, one_h.stats.transitions);
        assert_eq!(h.stats.max_depth, one_h.stats.max_depth);
        // The ring of 8's widest level has more than 100 states (its
        // 12,870 states are in 37 levels) and fewer than 2^20.
        let expect = if level <= 100 { 2 } else { 1 };
        assert_eq!(h.stats.threads, expect, "level {level}: {h}");
    }
}

/// `G ("r3 RECV *" -> G !"r5 RECV *")` on a ring of 8 one-slot channels:
/// violated after thousands of states, by many shortest runs; every thread
/// count, run after run, picks the same one as one thread does.
#[test]
fn the_counterexample_is_the_one_thread_one_on_every_run() {
    let f = r#"G ("r3 RECV *" -> G !"r5 RECV *")"#;
    let one = on(1).check(f, SlotRing::new(8), dummies![Msg]).unwrap();
    assert!(one.counterexample().is_some(), "{one}");
    for n in [2, 3, 4] {
        for _ in 0..3 {
            let r = on(n).check(f, SlotRing::new(8), dummies![Msg]).unwrap();
            assert_eq!(r.stats.threads, n as u32, "{r}");
            assert_eq!(outcome(&r), outcome(&one), "{n} threads");
            assert_eq!(r.stats.max_depth, one.stats.max_depth, "{n} threads");
        }
    }
}

/// The parallel search explores exactly the states of the one-thread
/// search when the property holds: C(16, 8) = 12,870 for the ring of 8.
#[test]
fn a_property_that_holds_counts_the_same_states() {
    let f = r#"G !"DEADLOCK""#;
    let one = on(1).check(f, SlotRing::new(8), dummies![Msg]).unwrap();
    let four = on(4).check(f, SlotRing::new(8), dummies![Msg]).unwrap();
    assert!(one.holds() && four.holds(), "{one}\n{four}");
    assert_eq!(four.stats.product_states, 12_870);
    assert_eq!(four.stats.protocol_states, 12_870);
    assert_eq!(four.stats.product_states, one.stats.product_states);
    assert_eq!(four.stats.transitions, one.stats.transitions);
    assert_eq!(four.stats.max_depth, one.stats.max_depth);
    assert_eq!(four.stats.threads, 4);
    assert!(four.to_string().contains("searched on 4 threads"), "{four}");
}

/// The state limit is exact: a search that needs every one of the 12,870
/// states holds with that many and is inconclusive with one fewer, never
/// "holds".
#[test]
fn the_state_limit_holds_exactly_in_parallel() {
    let f = r#"G !"DEADLOCK""#;
    let enough = on(3).max_states(12_870);
    assert!(enough
        .check(f, SlotRing::new(8), dummies![Msg])
        .unwrap()
        .holds());
    let short = on(3).max_states(12_869);
    let r = short.check(f, SlotRing::new(8), dummies![Msg]).unwrap();
    assert!(
        matches!(
            r.verdict,
            Verdict::Inconclusive {
                limit: Limit::States(12_869),
                ..
            }
        ),
        "{r}"
    );
}

/// The depth limit: holds when the whole space is within it, inconclusive
/// (never "holds") one level short.
#[test]
fn the_depth_limit_holds_in_parallel() {
    let f = r#"G !"DEADLOCK""#;
    let full = on(2).check(f, SlotRing::new(6), dummies![Msg]).unwrap();
    let depth = full.stats.max_depth;
    assert!(full.holds(), "{full}");
    let r = on(2)
        .max_depth(depth)
        .check(f, SlotRing::new(6), dummies![Msg])
        .unwrap();
    assert!(r.holds(), "{r}");
    let r = on(2)
        .max_depth(depth - 1)
        .check(f, SlotRing::new(6), dummies![Msg])
        .unwrap();
    assert!(
        matches!(r.verdict, Verdict::Inconclusive { limit: Limit::Depth(d), .. } if d == depth - 1),
        "{r}"
    );
}

/// Time and memory budgets stop the workers: inconclusive, never "holds".
#[test]
fn time_and_memory_limits_stop_the_workers() {
    let f = r#"G !"DEADLOCK""#;
    let r = on(2)
        .timeout(Duration::from_nanos(1))
        .check(f, SlotRing::new(8), dummies![Msg])
        .unwrap();
    assert!(
        matches!(
            r.verdict,
            Verdict::Inconclusive {
                limit: Limit::Time(_),
                ..
            }
        ),
        "{r}"
    );
    let r = on(2)
        .max_memory(1)
        .check(f, SlotRing::new(8), dummies![Msg])
        .unwrap();
    if cfg!(target_os = "linux") {
        assert!(
            matches!(
                r.verdict,
                Verdict::Inconclusive {
                    limit: Limit::Memory(1),
                    ..
                }
            ),
            "{r}"
        );
    }
}

/// What the parallel search does not do runs on one thread, and the
/// report says why: a liveness check decided within its bounded first try
/// (tests/parallel_liveness.rs has the rest), and the determinism check.
#[test]
fn one_thread_searches_say_why() {
    let r = on(2)
        .parallel_level(1 << 20)
        .check(r#"G F "p0 RECV *""#, TokenRing::new(4), dummies![Token])
        .unwrap();
    assert!(r.holds(), "{r}");
    assert_eq!(r.stats.threads, 1);
    let why = r.stats.single_thread.clone().unwrap_or_default();
    assert!(why.contains("depth-first"), "{why}");
    assert!(r.to_string().contains("searched on one thread"), "{r}");

    let r = Checker::new()
        .determinism_check(true)
        .threads(2)
        .check(r#"G !"DEADLOCK""#, TokenRing::new(4), dummies![Token])
        .unwrap();
    assert_eq!(r.stats.threads, 1);
    let why = r.stats.single_thread.clone().unwrap_or_default();
    assert!(why.contains("determinism"), "{why}");

    // Asked for one thread: nothing to explain.
    let r = on(1)
        .check(r#"G F "p0 RECV *""#, TokenRing::new(4), dummies![Token])
        .unwrap();
    assert_eq!((r.stats.threads, r.stats.single_thread), (1, None));
}

/// A ring whose role 2 panics when it receives a second time: the
/// receives counted are part of the state.
#[derive(Clone, Debug)]
struct Fragile {
    recvs: u8,
}

impl Twist<SlotRing> for Fragile {
    fn same(&self, other: &Self) -> bool {
        self.recvs == other.recvs
    }
    fn hash_state(&self, ring: &SlotRing, state: &mut dyn Hasher) {
        let mut state = state;
        ring.hash(&mut state);
        self.recvs.hash(&mut state);
    }
    fn try_recv(
        &mut self,
        ring: &mut SlotRing,
        role: RoleId,
        from: Option<RoleId>,
    ) -> Result<(RoleId, Message), Refused> {
        let r = ring.try_recv(role, from)?;
        if role == 2 {
            self.recvs += 1;
            assert!(self.recvs < 2, "role 2 received twice");
        }
        Ok(r)
    }
}

/// A panic in protocol code is the same error, with the same trace, on
/// every thread count.
#[test]
fn a_panic_is_reported_as_on_one_thread() {
    let f = r#"G !"DEADLOCK""#;
    let start = Wrapped::new(SlotRing::new(5), Fragile { recvs: 0 });
    let one = on(1)
        .check(f, start.clone(), dummies![Msg])
        .expect_err("role 2 panics")
        .to_string();
    assert!(one.contains("role 2 received twice"), "{one}");
    for n in [2, 4] {
        let e = on(n)
            .check(f, start.clone(), dummies![Msg])
            .expect_err("role 2 panics")
            .to_string();
        assert_eq!(e, one, "{n} threads");
    }
}

/// Objects stored whole that do not say they are heap-free
/// (`Protocol::prefers_bytes` left `true`) stay on one thread unless
/// threads are asked for: two threads storing and freeing each other's
/// heap blocks cost more than one. Asked for, they run; a heap-free
/// object (`prefers_bytes` false) runs on the machine's threads anyway.
#[test]
fn heap_objects_stay_on_one_thread_unless_threads_are_asked_for() {
    let f = r#"G !"DEADLOCK""#;
    let default = Checker::new()
        .determinism_check(false)
        .parallel_level(1)
        .max_memory(u64::MAX);
    if std::env::var_os("PRUST_THREADS").is_some()
        || std::thread::available_parallelism().map_or(1, |n| n.get()) < 2
    {
        // The default is one thread already, or chosen: nothing to see.
        return;
    }
    let r = default
        .clone()
        .check(f, SlotRing::new(5), dummies![Msg])
        .unwrap();
    assert_eq!(r.stats.threads, 1, "{r}");
    let why = r.stats.single_thread.clone().unwrap_or_default();
    assert!(why.contains("prefers_bytes"), "{why}");
    let asked = default
        .clone()
        .threads(2)
        .check(f, SlotRing::new(5), dummies![Msg])
        .unwrap();
    assert_eq!(asked.stats.threads, 2, "{asked}");
    assert_eq!(outcome(&asked), outcome(&r));
    let small = default
        .check(f, Wrapped::new(SlotRing::new(5), Small), dummies![Msg])
        .unwrap();
    assert!(small.stats.threads >= 2, "{small}");
    assert_eq!(outcome(&small), outcome(&r));
}

/// A ring that says it is small and heap-free.
#[derive(Clone, Debug)]
struct Small;

impl Twist<SlotRing> for Small {
    fn prefers_bytes(&self, _: &SlotRing) -> bool {
        false
    }
}

/// A ring whose `Hash` writes only how many channels are full: its 924
/// states (n = 6) share 7 hashes, so the parallel store's table holds long
/// runs of equal hashes and equal tags, and only comparing the objects
/// tells its states apart. With `panic_at` its `Hash` panics on a state
/// with that many full channels (protocol code failing in the middle of a
/// state's successors).
#[derive(Clone, Debug)]
struct Crowded {
    panic_at: Option<u32>,
}

impl Twist<SlotRing> for Crowded {
    fn hash_state(&self, ring: &SlotRing, state: &mut dyn Hasher) {
        let full = ring.full.count_ones();
        assert!(self.panic_at != Some(full), "hashing {full} full channels");
        let mut state = state;
        full.hash(&mut state);
    }
    fn prefers_bytes(&self, _: &SlotRing) -> bool {
        false
    }
}

/// States whose hashes all collide are still told apart, and equal ones
/// still found, by the parallel store: the same states, transitions and
/// counterexample as one thread at every thread count (a table that took
/// an equal hash, or an equal tag, for an equal state would merge states
/// and count fewer; one that lost a free slot or an index would count
/// more or never end).
#[test]
fn colliding_hashes_are_told_apart_in_parallel() {
    let crowded = Wrapped::new(SlotRing::new(6), Crowded { panic_at: None });
    let holds = r#"G !"DEADLOCK""#;
    let violated = r#"G ("r1 RECV *" -> G !"r4 RECV *")"#;
    let one = on(1).check(holds, crowded.clone(), dummies![Msg]).unwrap();
    assert!(one.holds(), "{one}");
    assert_eq!(one.stats.product_states, 924);
    let bad = on(1)
        .check(violated, crowded.clone(), dummies![Msg])
        .unwrap();
    assert!(bad.counterexample().is_some(), "{bad}");
    for n in [2, 3] {
        let r = on(n).check(holds, crowded.clone(), dummies![Msg]).unwrap();
        assert!(r.holds(), "{r}");
        assert_eq!(r.stats.threads, n as u32, "{r}");
        assert_eq!(r.stats.product_states, 924, "{n} threads");
        assert_eq!(r.stats.protocol_states, 924, "{n} threads");
        assert_eq!(r.stats.transitions, one.stats.transitions, "{n} threads");
        let r = on(n)
            .check(violated, crowded.clone(), dummies![Msg])
            .unwrap();
        assert_eq!(outcome(&r), outcome(&bad), "{n} threads");
    }
}

/// A panic in a successor's `Hash`, met while a state's successors are
/// deduplicated (after some of them were stored), is the error of the
/// action that made that successor, with the same trace, at every thread
/// count and whether the level is shared or not.
#[test]
fn a_panic_in_hashing_a_successor_is_that_actions_error_on_every_thread_count() {
    let f = r#"G !"DEADLOCK""#;
    let crowded = Wrapped::new(SlotRing::new(6), Crowded { panic_at: Some(3) });
    let one = on(1)
        .check(f, crowded.clone(), dummies![Msg])
        .expect_err("hashing panics")
        .to_string();
    assert!(one.contains("hashing 3 full channels"), "{one}");
    assert!(one.contains("SEND"), "the sending action's error: {one}");
    for n in [2, 3] {
        for level in [1, usize::MAX] {
            let e = on(n)
                .parallel_level(level)
                .check(f, crowded.clone(), dummies![Msg])
                .expect_err("hashing panics")
                .to_string();
            assert_eq!(e, one, "{n} threads, levels shared from {level} states");
        }
    }
}

/// A ring whose `Clone` also recurses [`DEEP_FRAMES`] frames of about a
/// kilobyte each, as if it carried a deep value: more than a default 2 MiB
/// thread stack holds, less than the stack the test gives the checking
/// thread.
#[derive(Clone, Debug)]
struct DeepClone {
    depth: u32,
}

/// How deep `DeepClone::clone` recurses.
const DEEP_FRAMES: u32 = 10_000;

/// Counts down `n` frames, each holding a kilobyte the optimiser cannot
/// drop, as a recursive clone of a deep structure would.
fn recurse(n: u32) -> u32 {
    let frame = std::hint::black_box([n as u8; 1024]);
    if n == 0 {
        0
    } else {
        // (`frame[0]` is `n as u8`: read through `black_box`, it keeps the
        // frame, and takes nothing away)
        recurse(n - 1) + 1 - u32::from(frame[0] != n as u8)
    }
}

impl Twist<SlotRing> for DeepClone {
    fn clone_twist(&self, _: &SlotRing) -> Self {
        DeepClone {
            depth: recurse(self.depth),
        }
    }
}

/// The search's worker threads have at least the stack of the thread that
/// checks (`engine::stack::WORKER_STACK_BYTES`): an object whose clone
/// recurses 10,000 frames deep gets the same verdicts on two threads as on
/// one, where the workers' default 2 MiB stack once overflowed (a crash
/// that only two threads had).
#[test]
fn deep_recursion_in_the_object_does_not_depend_on_the_thread_count() {
    let start = Wrapped::new(SlotRing::new(3), DeepClone { depth: DEEP_FRAMES });
    // The checking thread: 64 MiB, as a program's main thread (8 MiB) or
    // the `prust` command's (1 GiB) would be, more than the 10 MiB needed.
    let checks = std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(move || {
            // Safety (the parallel breadth-first search) and liveness (the
            // parallel expansion), one violated and one that holds.
            [r#"G !"r2 RECV *""#, r#"G F "r0 RECV *""#].map(|f| {
                let one = on(1).check(f, start.clone(), dummies![Msg]).unwrap();
                let two = on(2).check(f, start.clone(), dummies![Msg]).unwrap();
                assert_eq!(two.stats.threads, 2, "{f}: {two}");
                (outcome(&one), outcome(&two))
            })
        })
        .unwrap()
        .join()
        .unwrap();
    for (one, two) in checks {
        assert_eq!(one, two);
    }
}
