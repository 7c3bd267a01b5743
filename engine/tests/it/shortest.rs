//! The shortest counterexample (`Checker::shortest`): on random explicit
//! LTSs × random formulas, both semantics, with and without weak fairness,
//! and with the engine's storage, probing and threading variants, the
//! counterexample has no more actions in all than the brute-force shortest
//! one (`common::reference_shortest`), of as many no longer a prefix, and
//! it is a real run that violates the formula.

use crate::common;
use crate::differential::{case, is_a_counterexample, tweaked};

use common::{reference_shortest, reference_shortest_on, Lts};
use engine::{Checker, Fairness, Semantics, Shortness, Verdict};
use proptest::prelude::*;

/// `tweak` as in the differential test (bits 0 to 5), and bit 6: two
/// threads from the first level (the parallel searches).
fn checker_for(lts: &Lts, tweak: u8) -> (common::LtsProtocol, Checker) {
    let (proto, checker) = tweaked(lts, tweak & 63);
    let checker = if tweak & 64 != 0 {
        checker.threads(2).parallel_level(1)
    } else {
        checker
    };
    (proto, checker)
}

/// Checks one case with `shortest` (`None`: the default) against the
/// reference; returns whether the engine's counterexample was longer than
/// the shortest (only possible when not asked for it).
fn shortest_agrees(
    lts: &Lts,
    formula: &str,
    semantics: Semantics,
    fairness: Fairness,
    tweak: u8,
    shortest: Option<bool>,
) -> Result<bool, TestCaseError> {
    let (proto, checker) = checker_for(lts, tweak);
    let checker = checker.semantics(semantics).fairness(fairness);
    let checker = match shortest {
        Some(on) => checker.shortest(on),
        None => checker,
    };
    let engine_error = |e: engine::Error| TestCaseError::fail(format!("engine error: {e}"));
    // The lengths are the product's: the reference searches the product
    // with the engine's own automaton (the reference's translation, not
    // knowing which atoms exclude each other, may settle sooner or later).
    let mut session = checker
        .session(proto.clone(), lts.dummies())
        .map_err(engine_error)?;
    let own = session.negated_automaton(formula).map_err(engine_error)?;
    let report = session.check(formula).map_err(engine_error)?;
    let expected = reference_shortest(
        lts,
        formula,
        semantics == Semantics::Stutter,
        fairness == Fairness::Weak,
    );
    let Verdict::Violated(c) = &report.verdict else {
        prop_assert!(
            expected.is_none(),
            "engine: not violated, reference: {expected:?}\n{report}"
        );
        return Ok(false);
    };
    let Some(e) = expected else {
        return Err(TestCaseError::fail(format!(
            "engine: violated, reference: holds\n{report}"
        )));
    };
    is_a_counterexample(lts, proto, formula, c, &report)?;
    let (p, cy) = (c.prefix.len(), c.cycle.len());
    let longer = p + cy > e.total();
    let e = reference_shortest_on(
        lts,
        &own,
        semantics == Semantics::Stutter,
        fairness == Fairness::Weak,
    )
    .ok_or_else(|| TestCaseError::fail("the engine's automaton: no violation"))?;
    // Under the stutter convention a bad prefix ends where the engine's
    // automaton turns universal on the engine's alphabet, and the
    // reference judges universality on all its letters: the lengths are
    // exact only without bad prefixes. A declared directed topology
    // shrinks the engine's alphabet the same way.
    let exact = semantics == Semantics::InfiniteRunsOnly && tweak & 8 == 0;
    // Never longer than the brute force's in all in the same product, and
    // of lassos as long never one with a longer prefix; the check may show
    // a shorter one, folded to the run's own steps (see
    // `a_run_that_repeats_itself_is_shown_folded`).
    if shortest != Some(false) && exact {
        prop_assert!(
            p + cy < e.total() || (p + cy == e.total() && p <= e.prefix),
            "longer than the shortest ({e:?})\n{report}"
        );
    }
    if shortest == Some(true) {
        prop_assert_eq!(&c.shortness, &Shortness::Shortest, "{}", report);
    }
    Ok(longer)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, ..ProptestConfig::default() })]

    #[test]
    fn counterexamples_are_the_shortest((lts, formula) in case(), tweak in 0..128u8) {
        for semantics in Semantics::ALL {
            for fairness in [Fairness::None, Fairness::Weak] {
                shortest_agrees(&lts, &formula, semantics, fairness, tweak, Some(true))?;
            }
        }
    }

    /// The default shortens these small products too (they are far below
    /// the default's floor of states).
    #[test]
    fn by_default_counterexamples_are_the_shortest((lts, formula) in case(), tweak in 0..128u8) {
        shortest_agrees(&lts, &formula, Semantics::InfiniteRunsOnly, Fairness::None, tweak, None)?;
    }

    /// Safety properties, whose violations come from the breadth-first
    /// search (on one thread or two) or, past a deadlock, from its
    /// stutter steps.
    #[test]
    fn safety_violations_are_the_shortest(
        (lts, atom) in common::lts_strategy(40).prop_flat_map(|lts| {
            let atoms = prop_oneof![
                Just("DEADLOCK".to_string()),
                Just("END".to_string()),
                (0..lts.roles, 0..lts.types).prop_map(|(r, t)| format!("r{r} SEND <T{t}>")),
                (0..lts.roles, 0..lts.types).prop_map(|(r, t)| format!("r{r} RECV <T{t}>")),
            ];
            (Just(lts), atoms)
        }),
        tweak in 0..128u8,
    ) {
        let formula = format!("G !\"{atom}\"");
        shortest_agrees(&lts, &formula, Semantics::Stutter, Fairness::None, tweak, Some(true))?;
    }
}

/// The nearest violation is not the shortest: state 1, one action away,
/// lies on a cycle of six; state 7, two away, on a cycle of two. A
/// shortest prefix first would show seven steps where four will do.
#[test]
fn the_shortest_lasso_counts_prefix_and_cycle_together() {
    use common::Label;
    use engine::ActionKind;
    let step = |role: usize, to: usize| {
        (
            Label {
                role,
                kind: ActionKind::Send,
                ty: 0,
                peer: 1 - role,
            },
            to,
        )
    };
    let lts = Lts {
        roles: 2,
        types: 1,
        trans: vec![
            vec![step(0, 1)],
            vec![step(0, 2), step(1, 7)],
            vec![step(0, 3)],
            vec![step(0, 4)],
            vec![step(0, 5)],
            vec![step(0, 6)],
            vec![step(0, 1)],
            vec![step(0, 8)],
            vec![step(0, 7)],
        ],
        terminal: vec![false; 9],
    };
    let formula = r#"F "END""#;
    let expected = reference_shortest(&lts, formula, false, false).expect("violated");
    assert_eq!((expected.prefix, expected.cycle), (2, 2));
    // By default (a product far below the default's allowance) and when
    // asked for.
    for checker in [Checker::new(), Checker::new().shortest(true)] {
        let report = checker
            .semantics(Semantics::InfiniteRunsOnly)
            .check(
                formula,
                common::LtsProtocol::new(lts.clone()),
                lts.dummies(),
            )
            .unwrap();
        let Verdict::Violated(c) = &report.verdict else {
            panic!("{report}");
        };
        assert_eq!((c.prefix.len(), c.cycle.len()), (2, 2), "{report}");
        assert_eq!(c.shortness, Shortness::Shortest, "{report}");
    }
}

/// A one-state object whose only step loops: the run is that step
/// forever, a cycle of one step and no prefix. Knowing that a send is
/// no END, the engine's automaton for the negation reads two letters
/// before its accepting loop, so its product's shortest lasso has two
/// steps of prefix where the run repeats its cycle; the check shows the
/// run folded, in every storage and probing variant.
#[test]
fn a_run_that_repeats_itself_is_shown_folded() {
    use common::Label;
    use engine::ActionKind;
    let recv = Label {
        role: 1,
        kind: ActionKind::Recv,
        ty: 2,
        peer: 0,
    };
    let lts = Lts {
        roles: 2,
        types: 3,
        trans: vec![vec![(recv, 0)]],
        terminal: vec![false],
    };
    let formula = r#"X ((X "* SEND *") U "END")"#;
    let expected = reference_shortest(&lts, formula, false, false).expect("violated");
    for tweak in 0..128u8 {
        let (proto, checker) = checker_for(&lts, tweak);
        let report = checker
            .semantics(Semantics::InfiniteRunsOnly)
            .shortest(true)
            .check(formula, proto, lts.dummies())
            .unwrap();
        let Verdict::Violated(c) = &report.verdict else {
            panic!("tweak {tweak}: {report}");
        };
        assert_eq!(
            (c.prefix.len(), c.cycle.len()),
            (0, 1),
            "tweak {tweak}: not the run's own lasso (the reference's product: {expected:?})\n{report}"
        );
        assert_eq!(c.shortness, Shortness::Shortest, "tweak {tweak}: {report}");
    }
}

/// How often the search's own counterexample (shortening off, as before
/// it existed) is longer than the shortest: printed, for the docs.
#[test]
#[ignore = "measure: cargo test -p prust-engine --test it shortest::how_often -- --ignored --nocapture"]
fn how_often_the_search_alone_is_longer() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let (mut cases, mut violated, mut longer) = (0, 0, 0);
    for _ in 0..2000 {
        let (lts, formula) = case().new_tree(&mut runner).unwrap().current();
        for fairness in [Fairness::None, Fairness::Weak] {
            cases += 1;
            let off = shortest_agrees(
                &lts,
                &formula,
                Semantics::InfiniteRunsOnly,
                fairness,
                1,
                Some(false),
            )
            .unwrap();
            let on = Checker::new()
                .fairness(fairness)
                .check(
                    &formula,
                    common::LtsProtocol::new(lts.clone()),
                    lts.dummies(),
                )
                .unwrap();
            violated += usize::from(on.counterexample().is_some());
            longer += usize::from(off);
        }
    }
    println!("{cases} cases, {violated} violated, the search's counterexample longer in {longer}");
}
