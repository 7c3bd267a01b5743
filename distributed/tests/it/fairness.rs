//! Liveness under weak fairness: the distributed search against the
//! one-machine search on every bundled protocol and on random objects,
//! the bundled case whose verdict fairness changes, the one-machine
//! check's refusal of too many roles, and the replay's refusal of a cycle
//! whose roles' marks are not the object's or that starves a role.

use engine::testing::{Label, Lts, LtsProtocol};
use engine::{ActionKind, CheckSession, Checker, Fairness, Semantics, Verdict};
use proptest::prelude::*;
use prust_distributed::{check, Cluster, Error};

use crate::liveness::{formulas, MAX_STATES};

/// The check under weak fairness, without the shortening (on either
/// side: the proptest below checks the lengths) and without the
/// one-machine determinism check: they change no verdict and would double
/// the test's time.
fn fair(semantics: Semantics) -> Checker {
    Checker::new()
        .shortest(false)
        .determinism_check(false)
        .fairness(Fairness::Weak)
        .partial_order(false)
        .max_states(MAX_STATES)
        .semantics(semantics)
}

/// `liveness`'s formulas on every bundled protocol, both runtimes and both
/// semantics, under weak fairness. Each check runs on one worker or on
/// three, in turn (each costs a few milliseconds of start and rounds, and
/// there are some 800): both counts meet every kind of formula.
#[test]
fn bundled_protocols_agree_under_weak_fairness() {
    let (mut holds, mut violated, mut runs) = (0, 0, 0usize);
    for info in protocols::bundled::list() {
        let spec = protocols::bundled::spec_by_name(info.name).unwrap();
        for runtime in ["strict", "liberal"] {
            for semantics in [Semantics::Stutter, Semantics::InfiniteRunsOnly] {
                let make = {
                    let spec = spec.clone();
                    move || -> Result<CheckSession<protocols::Object>, engine::Error> {
                        let obj = crate::object(&spec, runtime);
                        fair(semantics).session(obj, Vec::new())
                    }
                };
                for formula in formulas(&info.roles) {
                    let one = make().unwrap().check(&formula).unwrap();
                    if matches!(one.verdict, Verdict::Inconclusive { .. }) {
                        continue;
                    }
                    runs += 1;
                    let threads = [1, 3][runs % 2];
                    let ctx = format!(
                        "{} {runtime} {} `{formula}` on {threads} workers",
                        info.name,
                        semantics.name()
                    );
                    let o = check(&Cluster::threads(threads), &formula, make.clone())
                        .unwrap_or_else(|e| panic!("{ctx}: {e}"));
                    assert_eq!(o.report.fairness, Fairness::Weak, "{ctx}");
                    match (&one.verdict, &o.report.verdict) {
                        (Verdict::Holds, Verdict::Holds) => {
                            holds += 1;
                            assert_eq!(
                                o.report.stats.product_states, one.stats.product_states,
                                "{ctx}"
                            );
                        }
                        (Verdict::Violated(_), Verdict::Violated(c)) => {
                            violated += 1;
                            // Replayed, its marks checked, and fair: shown
                            // as the engine shows a fair cycle.
                            assert!(!c.cycle.is_empty() || c.ending.is_some(), "{ctx}");
                            assert!(c.starved.is_empty(), "{ctx}:\n{}", o.report);
                        }
                        _ => panic!("{ctx}:\n{}\n---\n{one}", o.report),
                    }
                }
            }
        }
    }
    assert!(
        holds > 200 && violated > 400,
        "{holds} hold, {violated} violated"
    );
}

/// The one bundled case whose verdict weak fairness changes (see
/// `engine::Fairness`): on the liberal object `player_0_` can be left
/// able to receive for ever while the two others play on. Without
/// fairness that cycle is the counterexample; with it the formula holds.
#[test]
fn weak_fairness_changes_the_verdict_of_rock_paper_scissors() {
    let spec = protocols::bundled::spec_by_name("rock-paper-scissors:3").unwrap();
    let formula = r#"G ("player_2_ SEND * TO player_0_" -> F "player_0_ RECV * FROM player_2_")"#;
    for threads in [1, 3] {
        for fairness in Fairness::ALL {
            let spec = spec.clone();
            let o = check(&Cluster::threads(threads), formula, move || {
                Checker::new()
                    .fairness(fairness)
                    .partial_order(false)
                    .semantics(Semantics::InfiniteRunsOnly)
                    .session(spec.liberal().unwrap(), Vec::new())
            })
            .unwrap();
            let ctx = format!("{fairness} fairness on {threads} workers:\n{}", o.report);
            match (fairness, &o.report.verdict) {
                (Fairness::None, Verdict::Violated(c)) => {
                    assert!(c.starved.contains(&"player_0_".to_string()), "{ctx}");
                }
                (Fairness::Weak, Verdict::Holds) => {}
                _ => panic!("{ctx}"),
            }
        }
    }
}

/// 32 roles and an automaton with an acceptance set need 33 marks: the
/// distributed check refuses as the one-machine check does, with its
/// error.
#[test]
fn too_many_roles_for_the_marks_is_the_engines_error() {
    let lts = Lts {
        roles: 32,
        types: 1,
        trans: vec![Vec::new()],
        terminal: vec![true],
    };
    let mut obj = LtsProtocol::new(lts);
    obj.bytes = true;
    obj.names_types = true;
    let dummies = obj.lts.dummies();
    let formula = r#"G F "r0 SEND *""#;
    let checker = Checker::new().fairness(Fairness::Weak).partial_order(false);
    let one = checker
        .clone()
        .check(formula, obj.clone(), dummies.clone())
        .unwrap_err();
    assert!(matches!(one, engine::Error::Fairness { .. }), "{one}");
    let got = check(&Cluster::threads(2), formula, move || {
        checker.session(obj.clone(), dummies.clone())
    });
    match got {
        Err(Error::Engine(e)) => assert_eq!(e.to_string(), one.to_string()),
        other => panic!("{other:?}"),
    }
}

/// Two roles: in state 0, `r0` sends on a loop while `r1` could close
/// (and go to state 1, where only `r0`'s loop is left).
fn starving() -> LtsProtocol {
    let send = Label {
        role: 0,
        kind: ActionKind::Send,
        ty: 0,
        peer: 1,
    };
    let close = Label {
        role: 1,
        kind: ActionKind::Close,
        ty: 0,
        peer: 0,
    };
    let lts = Lts {
        roles: 2,
        types: 1,
        trans: vec![vec![(send, 0), (close, 1)], vec![(send, 1)]],
        terminal: vec![false, false],
    };
    let mut obj = LtsProtocol::new(lts);
    obj.names_types = true;
    obj
}

/// The replay checks the cycle's roles' marks against the object, not
/// the caller's word: a cycle that starves `r1` (its loop in state 0) is
/// refused with the marks the object gives and with the ones it lacks
/// claimed; the fair loop of state 1 is a counterexample, but not with
/// its roles' marks dropped (all of them, or `r0`'s alone).
#[test]
fn violated_lasso_refuses_wrong_role_marks() {
    let obj = starving();
    let dummies = obj.lts.dummies();
    let mut session = Checker::new()
        .fairness(Fairness::Weak)
        .session(obj, dummies)
        .unwrap();
    let mut graph = session.product_graph(r#"F G !"r0 SEND <T0>""#).unwrap();
    assert_eq!(
        graph.all_marks(),
        0b111,
        "an acceptance set, then a mark a role"
    );
    // From the initial state, each time the first edge to an object in
    // state `to`, until a product state repeats.
    let lasso = |graph: &mut engine::ProductGraph<'_, LtsProtocol>, to: usize| {
        let (mut o, mut q) = graph.initial();
        let mut seen = vec![(o.state, q)];
        let mut steps: Vec<(u32, u32, u32)> = Vec::new();
        let mut edges = Vec::new();
        let start = loop {
            graph.successors(&o, q, &mut edges).unwrap();
            let i = edges.iter().position(|e| e.object.state == to).unwrap();
            let e = edges.swap_remove(i);
            steps.push((e.letter, e.state, e.marks));
            (o, q) = (e.object, e.state);
            if let Some(i) = seen.iter().position(|&s| s == (o.state, q)) {
                break i;
            }
            seen.push((o.state, q));
        };
        let prefix: Vec<(u32, u32)> = steps[..start].iter().map(|&(l, q, _)| (l, q)).collect();
        (prefix, steps[start..].to_vec())
    };
    let stats = engine::Stats::default;
    let not = || engine::Shortness::NotShown(String::new());
    let with = |cycle: &[(u32, u32, u32)], f: fn(u32) -> u32| -> Vec<(u32, u32, u32)> {
        cycle.iter().map(|&(l, q, m)| (l, q, f(m))).collect()
    };

    // State 0's loop: r0 moves, r1 is enabled and never does.
    let (prefix, cycle) = lasso(&mut graph, 0);
    assert!(cycle.iter().all(|&(_, _, m)| m & 0b100 == 0), "{cycle:?}");
    let err = graph
        .violated_lasso(&prefix, &cycle, stats(), not())
        .unwrap_err()
        .to_string();
    assert!(err.contains("starves r1"), "{err}");
    let claimed = with(&cycle, |m| m | 0b100);
    let err = graph
        .violated_lasso(&prefix, &claimed, stats(), not())
        .unwrap_err()
        .to_string();
    assert!(err.contains("are not those of"), "{err}");

    // State 1's loop: r1 can do nothing there, so it is fair.
    let (prefix, cycle) = lasso(&mut graph, 1);
    let report = graph
        .violated_lasso(&prefix, &cycle, stats(), not())
        .unwrap();
    match &report.verdict {
        Verdict::Violated(c) => assert!(c.starved.is_empty(), "{report}"),
        _ => panic!("{report}"),
    }
    for wrong in [with(&cycle, |m| m & 1), with(&cycle, |m| m ^ 0b010)] {
        assert!(graph
            .violated_lasso(&prefix, &wrong, stats(), not())
            .is_err());
    }
}

/// The distributed search on the same object: under weak fairness the
/// unfair loop of state 0 is no counterexample, so the cycle shown is
/// state 1's, after `r1`'s close.
#[test]
fn the_cycle_found_is_the_fair_one() {
    let formula = r#"F G !"r0 SEND <T0>""#;
    for threads in [1, 2] {
        let o = check(&Cluster::threads(threads), formula, || {
            let mut obj = starving();
            obj.bytes = true;
            let dummies = obj.lts.dummies();
            Checker::new()
                .fairness(Fairness::Weak)
                .session(obj, dummies)
        })
        .unwrap();
        let Verdict::Violated(c) = &o.report.verdict else {
            panic!("{}", o.report)
        };
        assert!(c.starved.is_empty(), "{}", o.report);
        assert!(
            c.prefix.iter().any(|s| s.to_string().contains("CLOSE")),
            "{}",
            o.report
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 150, ..ProptestConfig::default() })]

    /// `random`'s objects and formulas, the fairness drawn too: the same
    /// verdict, and a shortest counterexample as long as a plain search
    /// of the product (with the roles' marks under weak fairness) and the
    /// one-machine check find.
    #[test]
    fn random_objects_agree_under_either_fairness(
        seed in any::<u64>(),
        formula in crate::random::formula(),
        threads in 1..=3usize,
        omega in any::<bool>(),
        weak in any::<bool>(),
    ) {
        let fairness = if weak { Fairness::Weak } else { Fairness::None };
        crate::random::agrees(seed, &formula, threads, omega, fairness)?;
    }
}
