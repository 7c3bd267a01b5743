//! Weak fairness over roles (`Checker::fairness`): the engine against the
//! brute-force reference checker with the fairness marks written from the
//! definition (`common::reference_violated_under`), on random explicit
//! LTSs × random formulas, both semantics, with and without fairness, with
//! the engine's storage and probing variants; every counterexample under
//! fairness must be a real run whose cycle is itself fair. And the example
//! that motivates it: a request that a starved server never receives.

use crate::common;
use crate::differential::{case, is_a_counterexample, tweaked};

use common::{reference_violated_under, Label, Lts, LtsProtocol};
use engine::{ActionKind, Checker, Ending, Error, Fairness, Report, Semantics, Verdict};
use proptest::prelude::*;

/// The LTS states a counterexample's steps pass: the source state of each
/// step of the prefix and of the cycle, and the state the cycle starts in.
fn states_of(lts: &Lts, steps: &[Label]) -> Vec<usize> {
    let mut s = 0;
    let mut out = vec![s];
    for l in steps {
        s = lts.trans[s]
            .iter()
            .find(|(t, _)| t == l)
            .expect("the counterexample is a run of the LTS")
            .1;
        out.push(s);
    }
    out
}

fn label(step: &engine::CounterexampleStep) -> Label {
    let ty = step
        .type_name
        .as_deref()
        .map_or(0, |t| t[1..].parse::<usize>().unwrap());
    Label {
        role: step.role,
        kind: step.kind,
        ty,
        peer: step.peer,
    }
}

/// The roles (by name) that the lasso cycle of `c` starves in `lts`,
/// from the definition: enabled (some transition) in every state of the
/// cycle and moving in none of its steps. A weakly fair cycle starves
/// nobody; a run that stops (stutter steps) starves nobody: nobody is
/// enabled.
fn starved_in(lts: &Lts, c: &engine::Counterexample) -> Vec<String> {
    if c.ending.is_some() {
        return Vec::new();
    }
    let steps: Vec<Label> = c.prefix.iter().chain(&c.cycle).map(label).collect();
    let states = states_of(lts, &steps);
    let cycle_sources = &states[c.prefix.len()..steps.len()];
    assert_eq!(
        states[c.prefix.len()],
        states[steps.len()],
        "the cycle closes"
    );
    (0..lts.roles)
        .filter(|&r| {
            c.cycle.iter().all(|s| s.role != r)
                && cycle_sources
                    .iter()
                    .all(|&s| lts.trans[s].iter().any(|(l, _)| l.role == r))
        })
        .map(|r| format!("r{r}"))
        .collect()
}

/// One case: the engine's verdict equals the reference's; a counterexample
/// replays, violates the formula, names the roles its cycle starves and,
/// under fairness, has a fair cycle.
/// `tweak` as in the differential test: bit 0 the determinism check off,
/// bit 1 a successor cache flushed constantly, bits 2 and 3 the object's
/// topology, bit 4 hash compaction, bit 5 the collapse store.
fn agree(
    lts: &Lts,
    formula: &str,
    semantics: Semantics,
    fairness: Fairness,
    tweak: u8,
) -> Result<bool, TestCaseError> {
    let (proto, checker) = tweaked(lts, tweak);
    let report = checker
        .semantics(semantics)
        .fairness(fairness)
        .check(formula, proto.clone(), lts.dummies())
        .map_err(|e| TestCaseError::fail(format!("engine error: {e}")))?;
    prop_assert_eq!(report.fairness, fairness);
    let expected = reference_violated_under(
        lts,
        formula,
        semantics == Semantics::Stutter,
        fairness == Fairness::Weak,
    );
    match &report.verdict {
        Verdict::Holds | Verdict::HoldsProbabilistic { .. } => {
            prop_assert!(!expected, "engine: holds, reference: violated\n{report}")
        }
        Verdict::Violated(c) => {
            prop_assert!(expected, "engine: violated, reference: holds\n{report}");
            is_a_counterexample(lts, proto, formula, c, &report)?;
            prop_assert_eq!(&c.starved, &starved_in(lts, c), "{}", report);
            prop_assert_eq!(
                c.starvation_note().is_some(),
                !c.starved.is_empty(),
                "{}",
                report
            );
            if fairness == Fairness::Weak {
                prop_assert!(
                    c.starved.is_empty(),
                    "an unfair cycle under weak fairness\n{report}"
                );
            }
        }
        other => prop_assert!(false, "unexpected verdict {other:?}\n{report}"),
    }
    Ok(expected)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 800, ..ProptestConfig::default() })]

    #[test]
    fn fair_verdicts_agree_with_the_reference((lts, formula) in case(), tweak in 0..64u8) {
        for semantics in Semantics::ALL {
            agree(&lts, &formula, semantics, Fairness::Weak, tweak)?;
            agree(&lts, &formula, semantics, Fairness::None, tweak)?;
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 30_000, ..ProptestConfig::default() })]

    #[test]
    #[ignore = "soak: cargo test -p prust-engine --test it fairness -- --ignored"]
    fn fair_verdicts_agree_with_the_reference_soak((lts, formula) in case(), tweak in 0..64u8) {
        for semantics in Semantics::ALL {
            agree(&lts, &formula, semantics, Fairness::Weak, tweak)?;
            agree(&lts, &formula, semantics, Fairness::None, tweak)?;
        }
    }
}

/// Two loops side by side: `r0` sends a request `T0` to `r1`, which
/// receives it and answers `T1`, which `r0` receives; independently `r2`
/// sends `T0` to `r3`, which receives it, for ever.
fn request_and_heartbeat() -> Lts {
    let step = |role, kind, ty, peer| Label {
        role,
        kind,
        ty,
        peer,
    };
    let server_loop = [
        step(0, ActionKind::Send, 0, 1),
        step(1, ActionKind::Recv, 0, 0),
        step(1, ActionKind::Send, 1, 0),
        step(0, ActionKind::Recv, 1, 1),
    ];
    let beat_loop = [
        step(2, ActionKind::Send, 0, 3),
        step(3, ActionKind::Recv, 0, 2),
    ];
    let at = |i: usize, j: usize| i * 2 + j;
    let mut trans = vec![Vec::new(); 8];
    for i in 0..4 {
        for j in 0..2 {
            trans[at(i, j)].push((server_loop[i], at((i + 1) % 4, j)));
            trans[at(i, j)].push((beat_loop[j], at(i, (j + 1) % 2)));
        }
    }
    Lts {
        roles: 4,
        types: 2,
        trans,
        terminal: vec![false; 8],
    }
    .normalise()
}

fn check_loops(formula: &str, fairness: Fairness) -> Report {
    let lts = request_and_heartbeat();
    Checker::new()
        .fairness(fairness)
        .check(formula, LtsProtocol::new(lts.clone()), lts.dummies())
        .unwrap()
}

const RESPONSE: &str = r#"G ("r0 SEND <T0>" -> F "r1 RECV <T0>")"#;

#[test]
fn a_starved_server_refutes_a_response_only_without_fairness() {
    let unfair = check_loops(RESPONSE, Fairness::None);
    let c = unfair.counterexample().expect("violated without fairness");
    // The cycle is the heartbeat alone: the server, able to receive, never does.
    assert!(c.cycle.iter().all(|s| s.role >= 2), "{unfair}");
    // ... and the report says so, under the cycle.
    assert_eq!(c.starved, ["r1"], "{unfair}");
    let text = unfair.to_string();
    let note = "this cycle starves r1 (enabled at every step of the cycle, never moves); \
                with Checker::fairness(Fairness::Weak) it is not a counterexample";
    let forever = text.find("forever)").expect("a lasso");
    assert!(text[forever..].contains(note), "{unfair}");
    let fair = check_loops(RESPONSE, Fairness::Weak);
    assert!(fair.holds(), "{fair}");
    assert!(fair.to_string().contains("(weak fairness)"), "{fair}");
    // Recurrence of a role that fairness forces to move.
    assert!(check_loops(r#"G F "r2 SEND *""#, Fairness::None)
        .counterexample()
        .is_some());
    assert!(check_loops(r#"G F "r2 SEND *""#, Fairness::Weak).holds());
}

#[test]
fn a_fair_counterexample_moves_every_enabled_role() {
    // Violated by every run that keeps sending requests, fair ones too.
    let formula = r#"F G !"r0 SEND <T0>""#;
    let report = check_loops(formula, Fairness::Weak);
    let c = report.counterexample().expect("violated under fairness");
    assert!(c.ending.is_none());
    for role in 0..4 {
        assert!(
            c.cycle.iter().any(|s| s.role == role),
            "role r{role} starves in the cycle\n{report}"
        );
    }
    assert!(starved_in(&request_and_heartbeat(), c).is_empty());
    assert!(c.starved.is_empty() && c.starvation_note().is_none());
    assert!(!report.to_string().contains("starves"), "{report}");
}

#[test]
fn safety_verdicts_do_not_change_with_fairness() {
    for formula in [r#"G !"r1 SEND <T1>""#, r#"G !"DEADLOCK""#] {
        let unfair = check_loops(formula, Fairness::None);
        let fair = check_loops(formula, Fairness::Weak);
        assert_eq!(unfair.holds(), fair.holds(), "{formula}");
        assert_eq!(
            unfair.stats.product_states, fair.stats.product_states,
            "{formula}: the same search"
        );
    }
}

/// The liveness search under fairness stays on one thread and says why
/// (the reduction's report is pinned on objects that declare their
/// independence, in the protocols crate's fairness test).
#[test]
fn threads_are_off_under_fairness_and_the_report_says_why() {
    let lts = request_and_heartbeat();
    let report = Checker::new()
        .fairness(Fairness::Weak)
        .determinism_check(false)
        .threads(2)
        .check(RESPONSE, LtsProtocol::new(lts.clone()), lts.dummies())
        .unwrap();
    assert!(report.holds(), "{report}");
    let why = report.stats.single_thread.as_deref().unwrap_or_default();
    assert!(why.contains("fairness"), "{report}");
}

#[test]
fn a_share_of_a_split_check_refuses_fair_liveness() {
    let lts = request_and_heartbeat();
    let e = Checker::new()
        .fairness(Fairness::Weak)
        .share(1, 2)
        .check(RESPONSE, LtsProtocol::new(lts.clone()), lts.dummies())
        .unwrap_err();
    assert!(matches!(e, Error::Fairness { .. }), "{e}");
    assert!(e.to_string().contains("share"), "{e}");
}

#[test]
fn more_roles_than_marks_are_refused_not_misjudged() {
    // 40 roles, one loop of sends between the first two.
    let l = Label {
        role: 0,
        kind: ActionKind::Send,
        ty: 0,
        peer: 1,
    };
    let lts = Lts {
        roles: 40,
        types: 1,
        trans: vec![vec![(l, 0)]],
        terminal: vec![false],
    };
    let e = Checker::new()
        .fairness(Fairness::Weak)
        .check(
            r#"F "r1 RECV *""#,
            LtsProtocol::new(lts.clone()),
            lts.dummies(),
        )
        .unwrap_err();
    assert!(matches!(e, Error::Fairness { .. }), "{e}");
    assert!(e.to_string().contains("40 roles"), "{e}");
    // Without fairness, the check is as ever.
    let r = Checker::new()
        .check(
            r#"F "r1 RECV *""#,
            LtsProtocol::new(lts.clone()),
            lts.dummies(),
        )
        .unwrap();
    assert!(r.counterexample().is_some_and(|c| c.ending.is_none()));
}

#[test]
fn a_stopped_run_is_fair() {
    // r0 sends once and the protocol ends: `G F` of the send fails by the
    // stutter at the end, with or without fairness.
    let l = Label {
        role: 0,
        kind: ActionKind::Send,
        ty: 0,
        peer: 1,
    };
    let lts = Lts {
        roles: 2,
        types: 1,
        trans: vec![vec![(l, 1)], vec![]],
        terminal: vec![false, true],
    };
    let r = Checker::new()
        .fairness(Fairness::Weak)
        .check(
            r#"G F "r0 SEND *""#,
            LtsProtocol::new(lts.clone()),
            lts.dummies(),
        )
        .unwrap();
    let c = r
        .counterexample()
        .expect("violated by the stutter at the end");
    assert!(matches!(c.ending, Some(Ending::Terminated)), "{r}");
}
