//! Differential test: the engine against the brute-force reference checker
//! on random explicit LTSs × random formulas, under both semantics. Every
//! counterexample must also be a real run of the object (replay) that
//! really violates the formula (direct evaluation on the lasso).

use crate::common;

use common::{eval_lasso, lasso_letters, reference_violated, Lts, LtsProtocol};
use engine::{Checker, Counterexample, Report, Semantics, Verdict};
use proptest::prelude::*;

fn lts_strategy() -> impl Strategy<Value = Lts> {
    common::lts_strategy(40)
}

fn atom_strategy(roles: usize, types: usize) -> BoxedStrategy<String> {
    let role = prop_oneof![Just("*".to_string()), (0..roles).prop_map(Lts::role_name)];
    let ty = prop_oneof![
        Just("*".to_string()),
        (0..types).prop_map(|t| format!("<{}>", Lts::type_name(t)))
    ];
    let peer = prop::option::of(prop_oneof![
        Just("*".to_string()),
        (0..roles).prop_map(Lts::role_name)
    ]);
    let action = (role, 0..4u8, ty, peer).prop_map(|(role, k, ty, peer)| {
        let (kw, ty, dir) = match k {
            0 => ("SEND", ty.as_str(), "TO"),
            1 => ("RECV", ty.as_str(), "FROM"),
            2 => ("CLOSE", "*", "TO"),
            _ => (
                "*",
                ty.as_str(),
                if ty.len() % 2 == 0 { "TO" } else { "FROM" },
            ),
        };
        match peer {
            Some(p) => format!("{role} {kw} {ty} {dir} {p}"),
            None => format!("{role} {kw} {ty}"),
        }
    });
    prop_oneof![
        6 => action,
        1 => Just("END".to_string()),
        1 => Just("DEADLOCK".to_string()),
        1 => Just("True".to_string()),
    ]
    .boxed()
}

pub(crate) fn formula_strategy(roles: usize, types: usize) -> impl Strategy<Value = String> {
    let leaf = atom_strategy(roles, types).prop_map(|a| format!("\"{a}\""));
    leaf.prop_recursive(3, 12, 2, |inner| {
        prop_oneof![
            inner.clone().prop_map(|a| format!("!({a})")),
            inner.clone().prop_map(|a| format!("X ({a})")),
            inner.clone().prop_map(|a| format!("F ({a})")),
            inner.clone().prop_map(|a| format!("G ({a})")),
            (inner.clone(), inner.clone(), 0..7u8).prop_map(|(a, b, op)| {
                let op = ["&", "|", "->", "U", "R", "W", "M"][op as usize];
                format!("({a}) {op} ({b})")
            }),
        ]
    })
}

/// A random LTS and a random formula over its roles and types (also the
/// cases of the fairness test).
pub(crate) fn case() -> impl Strategy<Value = (Lts, String)> {
    lts_strategy().prop_flat_map(|lts| {
        let f = formula_strategy(lts.roles, lts.types);
        (Just(lts), f)
    })
}

/// Whether `c`, the counterexample of `report`, is one: it replays on a
/// fresh `proto` (a run of the object) and its lasso, evaluated directly,
/// violates `formula`.
pub(crate) fn is_a_counterexample(
    lts: &Lts,
    proto: LtsProtocol,
    formula: &str,
    c: &Counterexample,
    report: &Report,
) -> Result<(), TestCaseError> {
    if let Err(e) = c.try_replay(proto) {
        return Err(TestCaseError::fail(format!(
            "counterexample does not replay: {e}\n{report}"
        )));
    }
    let (prefix, cycle) = lasso_letters(lts, c);
    let f = owl_lite::parse(formula).unwrap();
    prop_assert!(
        !eval_lasso(&f, &prefix, &cycle),
        "counterexample satisfies the formula\n{report}"
    );
    Ok(())
}

/// The object and checker of one case, with the engine internals that
/// `tweak` varies (see [`agree`]); shared with the fairness test.
pub(crate) fn tweaked(lts: &Lts, tweak: u8) -> (LtsProtocol, Checker) {
    let mut proto = LtsProtocol::new(lts.clone());
    proto.topology = tweak & 4 != 0;
    proto.directed = tweak & 8 != 0;
    proto.bytes = tweak & 32 != 0;
    let checker = Checker::new()
        .determinism_check(tweak & 1 == 0)
        .cache_limit(if tweak & 2 != 0 { 0 } else { 1 << 20 })
        .hash_compaction(tweak & 16 != 0);
    (proto, checker)
}

/// Checks one case under one semantics; returns whether it was violated.
/// `tweak` varies the engine's internals that must not change verdicts:
/// bit 0 turns the determinism check off (it disables the receive
/// shortcut), bit 1 shrinks the successor cache so it is flushed
/// constantly, bit 2 makes the object declare its topology (`peers`), bit 3
/// its directed topology (`sends_to`), bit 4 turns hash compaction on (the
/// store keeps fingerprints and drops objects the search does not hold:
/// the same verdicts, a property that holds said "probabilistic"), bit 5
/// makes the object write its state as bytes (the collapse store; hash
/// compaction wins over it).
fn agree(lts: &Lts, formula: &str, semantics: Semantics, tweak: u8) -> Result<bool, TestCaseError> {
    let (proto, checker) = tweaked(lts, tweak);
    let report = checker
        .semantics(semantics)
        .check(formula, proto.clone(), lts.dummies())
        .map_err(|e| TestCaseError::fail(format!("engine error: {e}")))?;
    let expected = reference_violated(lts, formula, semantics == Semantics::Stutter);
    match &report.verdict {
        Verdict::Holds => {
            prop_assert!(
                tweak & 16 == 0,
                "plain holds under hash compaction\n{report}"
            );
            prop_assert!(!expected, "engine: holds, reference: violated\n{report}")
        }
        Verdict::HoldsOnShare { .. } => {
            return Err(TestCaseError::fail(format!(
                "no share was asked for\n{report}"
            )));
        }
        Verdict::HoldsProbabilistic { .. } => {
            prop_assert!(
                tweak & 16 != 0,
                "probabilistic without hash compaction\n{report}"
            );
            prop_assert!(!expected, "engine: holds, reference: violated\n{report}")
        }
        Verdict::Violated(c) => {
            prop_assert!(expected, "engine: violated, reference: holds\n{report}");
            is_a_counterexample(lts, proto, formula, c, &report)?;
            if semantics == Semantics::InfiniteRunsOnly {
                prop_assert!(
                    c.ending.is_none(),
                    "a finite run under infinite-runs-only semantics\n{report}"
                );
            }
        }
        Verdict::Inconclusive { .. } => {
            prop_assert!(false, "inconclusive without limits\n{report}")
        }
    }
    Ok(expected)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn engine_agrees_with_reference((lts, formula) in case(), tweak in 0..64u8) {
        agree(&lts, &formula, Semantics::Stutter, tweak)?;
        agree(&lts, &formula, Semantics::InfiniteRunsOnly, tweak)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 50_000, ..ProptestConfig::default() })]

    #[test]
    #[ignore = "soak: cargo test -p prust-engine --test differential -- --ignored"]
    fn engine_agrees_with_reference_soak((lts, formula) in case(), tweak in 0..64u8) {
        agree(&lts, &formula, Semantics::Stutter, tweak)?;
        agree(&lts, &formula, Semantics::InfiniteRunsOnly, tweak)?;
    }
}

/// Under hash compaction the breadth-first search gives the ids of the
/// states it let go to new states; what the successor generator had
/// worked out under such an id (an object's listing, its scratch clone)
/// was once taken for the new state's: here a state with an action was
/// probed as the deadlocked state that had its id before, and the
/// counterexample could not be rebuilt (it could as well have hidden a
/// violation). Found by the soak; tweak 27 is hash compaction with the
/// successor cache off, a directed topology and no determinism check.
#[test]
fn a_reused_compacted_id_is_probed_as_its_new_object() {
    use common::Label;
    use engine::ActionKind;
    // (from, role, kind, type, peer, to)
    let edges = [
        (0, 2, ActionKind::Send, 1, 1, 1),
        (0, 2, ActionKind::Close, 0, 1, 8),
        (2, 2, ActionKind::Send, 2, 1, 13),
        (2, 1, ActionKind::Send, 0, 0, 1),
        (3, 0, ActionKind::Send, 1, 1, 18),
        (3, 1, ActionKind::Send, 1, 0, 6),
        (3, 0, ActionKind::Close, 0, 1, 10),
        (4, 2, ActionKind::Recv, 2, 0, 14),
        (5, 0, ActionKind::Send, 1, 2, 0),
        (6, 1, ActionKind::Close, 0, 2, 6),
        (8, 0, ActionKind::Recv, 0, 2, 5),
        (10, 0, ActionKind::Recv, 0, 2, 0),
        (11, 2, ActionKind::Send, 0, 0, 5),
        (12, 1, ActionKind::Recv, 0, 0, 1),
        (12, 0, ActionKind::Close, 0, 2, 10),
        (12, 1, ActionKind::Recv, 1, 2, 7),
        (13, 0, ActionKind::Send, 2, 2, 11),
        (15, 1, ActionKind::Recv, 1, 2, 7),
        (15, 0, ActionKind::Send, 1, 1, 13),
        (16, 0, ActionKind::Recv, 1, 1, 7),
        (16, 2, ActionKind::Close, 0, 1, 16),
        (16, 2, ActionKind::Close, 0, 0, 8),
        (17, 0, ActionKind::Send, 0, 1, 9),
        (17, 2, ActionKind::Close, 0, 0, 10),
        (17, 1, ActionKind::Recv, 0, 0, 8),
        (18, 2, ActionKind::Close, 0, 0, 1),
    ];
    let mut lts = Lts {
        roles: 3,
        types: 3,
        trans: vec![Vec::new(); 19],
        terminal: vec![false; 19],
    };
    for (from, role, kind, ty, peer, to) in edges {
        lts.trans[from].push((Label::new(role, kind, ty, peer), to));
    }
    for s in [0, 1, 2, 10, 11, 12, 18] {
        lts.terminal[s] = true;
    }
    let formula = r#"X ("END" | X "* CLOSE *")"#;
    for semantics in [Semantics::Stutter, Semantics::InfiniteRunsOnly] {
        let violated = agree(&lts, formula, semantics, 27).unwrap();
        assert!(violated, "{semantics:?}");
    }
}
