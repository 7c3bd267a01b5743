//! Liveness on several threads (`Checker::threads`): the object's
//! successors are computed ahead on the threads, then the one-thread
//! depth-first search decides. The verdicts, counterexamples, counts and
//! errors are the one-thread search's; limits still hold; the report says
//! which path ran. Every check names its thread count, so nothing here
//! depends on the machine's cores.

use crate::common;

use std::time::Duration;

use common::ring::{Msg, SlotRing};
use common::{
    atom_strategy as atom, eval_lasso, lasso_letters, reference_violated, Lts, LtsProtocol,
};
use engine::{dummies, Checker, Limit, Message, Protocol, Refused, Report, RoleId, Semantics};
use engine::{Error, Verdict};
use proptest::prelude::*;

/// A checker without the determinism check (which keeps a search on one
/// thread), on `threads` threads, going parallel after the first product
/// state (so that these small objects take the parallel path; the default
/// leaves checks of fewer than 1,024 states to one thread).
fn on(threads: usize) -> Checker {
    Checker::new()
        .determinism_check(false)
        .threads(threads)
        .parallel_level(1)
        .max_memory(u64::MAX)
}

/// What must not depend on the thread count: the verdict, the limit, and
/// the whole counterexample as printed.
fn outcome(r: &Result<Report, Error>) -> String {
    match r {
        Err(e) => format!("error: {e}"),
        Ok(r) => match &r.verdict {
            Verdict::Holds => "holds".to_string(),
            Verdict::Violated(c) => format!("violated, {} steps:\n{c}", c.prefix.len()),
            Verdict::Inconclusive { limit, explored } => {
                format!("inconclusive: {limit} after {explored}")
            }
            Verdict::HoldsProbabilistic { .. } => "holds (probabilistic)".to_string(),
            Verdict::HoldsOnShare { .. } => "holds on a share".to_string(),
        },
    }
}

/// Liveness patterns (none is a `G !bad` safety property, which the
/// breadth-first search decides).
fn formula(roles: usize, types: usize) -> impl Strategy<Value = String> {
    (atom(roles, types), atom(roles, types), 0..9u8).prop_map(|(a, b, k)| match k {
        0 => format!(r#"G F "{a}""#),
        1 => format!(r#"F G "{a}""#),
        2 => format!(r#"G ("{a}" -> F "{b}")"#),
        3 => format!(r#""{a}" U "{b}""#),
        4 => format!(r#"F "{a}""#),
        5 => format!(r#"(G F "{a}") -> (G F "{b}")"#),
        6 => format!(r#"G ("{a}" -> X F "{b}") | F G "{b}""#),
        7 => format!(r#"F ("{a}" & X "{b}")"#),
        _ => format!(r#"G F "{a}" & F G !"{b}""#),
    })
}

fn case() -> impl Strategy<Value = (Lts, String, bool, bool)> {
    common::lts_strategy(60).prop_flat_map(|lts| {
        let f = formula(lts.roles, lts.types);
        (Just(lts), f, any::<bool>(), any::<bool>())
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// Threads 1 and 2 (going parallel from the first state, or part
    /// way), under both semantics and state and depth limits that may cut
    /// anywhere: the same verdict, limit and counterexample, which replays
    /// on the object as a run satisfying the negation (checked against the
    /// reference of `common`); and the parallel path ran wherever the
    /// search went past the bounded first try.
    #[test]
    fn two_threads_agree_with_one(
        (lts, formula, topology, omega) in case(),
        level in prop_oneof![Just(1usize), 1..30usize],
        max_states in prop_oneof![Just(u64::MAX), 1..300u64],
        max_depth in prop_oneof![Just(u64::MAX), 0..20u64],
    ) {
        let mut proto = LtsProtocol::new(lts.clone());
        proto.topology = topology;
        let semantics = if omega { Semantics::InfiniteRunsOnly } else { Semantics::Stutter };
        let checker = |threads: usize| {
            on(threads)
                .parallel_level(level)
                .semantics(semantics)
                .max_states(max_states)
                .max_depth(max_depth)
        };
        // Which search decides the formula: a degenerate pattern (`a U a`,
        // `G (a -> F a)`) may be a safety property or a tautology, searched
        // breadth-first (tests/parallel.rs) or not at all. The depth-first
        // search, with a bound it never reaches, says so in its report.
        let probe = checker(2)
            .parallel_level(1 << 30)
            .check(&formula, proto.clone(), lts.dummies());
        let why = probe.as_ref().ok().and_then(|r| r.stats.single_thread.clone());
        if let (Ok(_), false) = (&probe, why.unwrap_or_default().contains("ended within")) {
            return Ok(());
        }
        let one = checker(1).check(&formula, proto.clone(), lts.dummies());
        prop_assert_eq!(outcome(&probe), outcome(&one), "{}", formula);
        let two = checker(2).check(&formula, proto.clone(), lts.dummies());
        prop_assert_eq!(outcome(&two), outcome(&one), "{}", formula);
        let (one, two) = (one.unwrap(), two.unwrap());
        prop_assert_eq!(one.stats.threads, 1);
        // The bounded first try is a prefix of the one-thread search: past
        // `level` states that search went on, and so did the threads.
        if one.stats.product_states > level as u64 {
            prop_assert_eq!(two.stats.threads, 2, "{}", two);
            prop_assert_eq!(two.stats.single_thread.clone(), None);
        } else {
            prop_assert_eq!(two.stats.threads, 1, "{}", two);
            let why = two.stats.single_thread.clone().unwrap_or_default();
            prop_assert!(why.contains("parallel_level"), "{}", why);
        }
        // The counts are the one-thread search's.
        prop_assert_eq!(two.stats.product_states, one.stats.product_states);
        prop_assert_eq!(two.stats.transitions, one.stats.transitions);
        prop_assert_eq!(two.stats.max_depth, one.stats.max_depth);
        let unlimited = max_states == u64::MAX && max_depth == u64::MAX;
        if unlimited {
            let expected = reference_violated(&lts, &formula, !omega);
            prop_assert_eq!(two.counterexample().is_some(), expected, "{}", two);
        }
        if let Some(c) = two.counterexample() {
            prop_assert!(c.try_replay(proto.clone()).is_ok(), "{}", two);
            let (prefix, cycle) = lasso_letters(&lts, c);
            let f = owl_lite::parse(&formula).unwrap();
            prop_assert!(!eval_lasso(&f, &prefix, &cycle), "satisfies the formula\n{}", two);
        }
    }
}

#[derive(Clone, Debug)]
struct Tick;

/// A counter that `a` increments by sending to `b`, forever (an infinite
/// state space), and that panics in the send that would reach `panic_at`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Counter {
    n: u64,
    panic_at: u64,
}

impl Protocol for Counter {
    fn roles(&self) -> Vec<String> {
        vec!["a".into(), "b".into()]
    }
    fn try_send(&mut self, role: RoleId, to: RoleId, msg: Message) -> Result<(), Refused<Message>> {
        if role == 0 && to == 1 {
            assert!(
                self.n + 1 != self.panic_at,
                "the counter broke at {}",
                self.panic_at
            );
            self.n += 1;
            Ok(())
        } else {
            Err(Refused(msg))
        }
    }
    fn try_recv(&mut self, _: RoleId, _: Option<RoleId>) -> Result<(RoleId, Message), Refused> {
        Err(Refused(()))
    }
}

fn counter(panic_at: u64) -> Counter {
    Counter { n: 0, panic_at }
}

/// `G F "a SEND *"` holds on the counter, but the search never ends (each
/// state is new): on two threads the expand phase runs into the time limit
/// and the check is inconclusive, never holds.
#[test]
fn the_time_limit_stops_the_expand_phase() {
    let r = on(2)
        .timeout(Duration::from_millis(300))
        .check(r#"G F "a SEND *""#, counter(u64::MAX), dummies![Tick])
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
    assert_eq!(r.stats.threads, 2, "{r}");
}

/// The state limit and the depth limit on an infinite object: the same
/// inconclusive outcome on one and two threads, and the expand phase does
/// not run past the depth the search can reach (else this would not end).
#[test]
fn state_and_depth_limits_are_the_searchs() {
    let f = r#"G F "a SEND *""#;
    let by_depth = |t: usize| {
        on(t)
            .max_depth(40)
            .check(f, counter(u64::MAX), dummies![Tick])
    };
    let (one, two) = (by_depth(1), by_depth(2));
    assert_eq!(outcome(&two), outcome(&one));
    let two = two.unwrap();
    assert!(
        matches!(
            two.verdict,
            Verdict::Inconclusive {
                limit: Limit::Depth(40),
                ..
            }
        ),
        "{two}"
    );
    assert_eq!(two.stats.threads, 2, "{two}");
    let by_states = |t: usize| {
        on(t)
            .max_states(500)
            .check(f, counter(u64::MAX), dummies![Tick])
    };
    let (one, two) = (by_states(1), by_states(2));
    assert_eq!(outcome(&two), outcome(&one));
    let two = two.unwrap();
    assert!(
        matches!(
            two.verdict,
            Verdict::Inconclusive {
                limit: Limit::States(500),
                ..
            }
        ),
        "{two}"
    );
    assert_eq!(two.stats.threads, 2, "{two}");
}

/// A panic in the object met on a worker is reported as one thread reports
/// it: the same error, at the same step, with the same trace.
#[test]
fn a_panic_is_reported_as_on_one_thread() {
    let f = r#"G F "b RECV *""#;
    let one = on(1).max_states(1000).check(f, counter(30), dummies![Tick]);
    let two = on(2).max_states(1000).check(f, counter(30), dummies![Tick]);
    let e = one.as_ref().expect_err("the counter panics");
    assert!(e.to_string().contains("the counter broke at 30"), "{e}");
    assert_eq!(outcome(&two), outcome(&one));
}

/// A panic that the expand phase meets but the search may not (past the
/// depth limit, where the threads still expand one level more): the
/// outcome is the one-thread search's, an error only where one thread
/// meets it too.
#[test]
fn a_panic_only_the_threads_meet_is_not_reported() {
    let f = r#"G F "b RECV *""#;
    let mut errors = 0;
    for panic_at in 2..16 {
        let run = |t: usize| {
            on(t)
                .max_depth(8)
                .check(f, counter(panic_at), dummies![Tick])
        };
        let (one, two) = (run(1), run(2));
        errors += usize::from(one.is_err());
        assert_eq!(outcome(&two), outcome(&one), "panic at {panic_at}");
        if let Ok(two) = two {
            assert_eq!(two.stats.threads, 2, "{two}");
        }
    }
    // Both kinds of case occur: the panic within reach, and past it.
    assert!(errors > 0 && errors < 14, "{errors}");
}

/// The report says which path ran: two threads past the bounded first try
/// ("searched on 2 threads"), or one thread, and why, for a check decided
/// within it (the default bound, 1,024 states) and for the searches that
/// stay on one thread (the determinism check).
#[test]
fn the_report_says_which_path_ran() {
    // A ring of 6 has 924 object states; this holds, so the search visits
    // all of its product.
    let f = r#"G ("r0 SEND *" -> F "r1 RECV *")"#;
    let one = on(1).check(f, SlotRing::new(6), dummies![Msg]).unwrap();
    assert!(one.holds(), "{one}");
    let two = on(2).check(f, SlotRing::new(6), dummies![Msg]).unwrap();
    assert!(two.holds(), "{two}");
    assert_eq!(two.stats.threads, 2);
    assert_eq!(two.stats.single_thread, None);
    assert!(two.to_string().contains("searched on 2 threads"), "{two}");
    assert_eq!(two.stats.product_states, one.stats.product_states);
    assert_eq!(two.stats.transitions, one.stats.transitions);

    let small = Checker::new()
        .determinism_check(false)
        .threads(2)
        .max_memory(u64::MAX)
        .check(f, SlotRing::new(3), dummies![Msg])
        .unwrap();
    assert_eq!(small.stats.threads, 1, "{small}");
    let why = small.stats.single_thread.clone().unwrap_or_default();
    assert!(why.contains("parallel_level"), "{why}");
    assert!(
        small.to_string().contains("searched on one thread"),
        "{small}"
    );

    let checked = Checker::new()
        .threads(2)
        .parallel_level(1)
        .max_memory(u64::MAX)
        .check(f, SlotRing::new(3), dummies![Msg])
        .unwrap();
    assert_eq!(checked.stats.threads, 1, "{checked}");
    let why = checked.stats.single_thread.clone().unwrap_or_default();
    assert!(why.contains("determinism check"), "{why}");
}

/// A violation found past the bounded first try: the counterexample on two
/// threads is the one-thread search's, run after run.
#[test]
fn a_late_violation_has_the_one_thread_counterexample() {
    let f = r#"G ("r0 SEND *" -> F "r3 RECV *") -> G F "r5 SEND *""#;
    let one = on(1).check(f, SlotRing::new(7), dummies![Msg]);
    for _ in 0..3 {
        let two = on(2).check(f, SlotRing::new(7), dummies![Msg]);
        assert_eq!(outcome(&two), outcome(&one));
        assert_eq!(two.unwrap().stats.threads, 2);
    }
}
