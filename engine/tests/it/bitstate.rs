//! Hash compaction that stores only fingerprints, and bitstate hashing
//! (`Checker::bitstate`), against the exact search on random small LTSs ×
//! random formulas (the cases of the differential test): a violation found
//! by a compacted search is real (it replays and violates the formula on
//! its lasso), with ample bits the verdicts agree, hash compaction stores
//! as many product states as the exact search (with its frontier held as
//! objects or as bytes), and a property that holds under either is never
//! a plain "holds".

use crate::common;
use crate::differential::case;

use common::ring::{Msg, SlotRing};
use common::{eval_lasso, lasso_letters, reference_violated, Label, Lts, LtsProtocol};
use engine::{dummies, Checker, Semantics, Verdict};
use proptest::prelude::*;

/// Whether the search under `checker` found `formula` violated; fails the
/// case on a plain "holds", a counterexample that is not a run of the
/// object or satisfies the formula, or any other verdict.
fn probabilistic_verdict(
    lts: &Lts,
    formula: &str,
    checker: Checker,
) -> Result<bool, TestCaseError> {
    Ok(compacted(lts, formula, checker, false)?.0)
}

/// [`probabilistic_verdict`], and the product states stored, on the
/// object that writes its states as `bytes` or not.
fn compacted(
    lts: &Lts,
    formula: &str,
    checker: Checker,
    bytes: bool,
) -> Result<(bool, u64), TestCaseError> {
    let proto = LtsProtocol {
        bytes,
        ..LtsProtocol::new(lts.clone())
    };
    let report = checker
        .check(formula, proto.clone(), lts.dummies())
        .map_err(|e| TestCaseError::fail(format!("engine error: {e}")))?;
    match &report.verdict {
        Verdict::HoldsProbabilistic { omission_bound, .. } => {
            prop_assert!((0.0..=1.0).contains(omission_bound), "{report}");
            prop_assert!(!report.holds() && report.holds_probabilistically());
            let text = report.to_string();
            prop_assert!(text.contains("holds (probabilistic: "), "{text}");
            prop_assert!(!text.contains("property holds:"), "{text}");
            Ok((false, report.stats.product_states))
        }
        Verdict::Violated(c) => {
            if let Err(e) = c.try_replay(proto) {
                return Err(TestCaseError::fail(format!(
                    "counterexample does not replay: {e}\n{report}"
                )));
            }
            let (prefix, cycle) = lasso_letters(lts, c);
            let f = owl_lite::parse(formula).unwrap();
            prop_assert!(!eval_lasso(&f, &prefix, &cycle), "{report}");
            Ok((true, report.stats.product_states))
        }
        other => Err(TestCaseError::fail(format!(
            "neither probabilistic holds nor violated: {other:?}\n{report}"
        ))),
    }
}

fn base() -> Checker {
    Checker::new().semantics(Semantics::Stutter).progress(false)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    /// Exact vs hash compaction vs bitstate with 2²⁰ bits (at most a few
    /// hundred states: a hash factor in the thousands) and with 64 bits
    /// (states are surely missed: a violation it reports must still be
    /// real, and whatever it says is never a plain "holds").
    #[test]
    fn compacted_searches_agree_with_the_exact_one((lts, formula) in case()) {
        let expected = reference_violated(&lts, &formula, true);
        let exact = base()
            .check(&formula, LtsProtocol::new(lts.clone()), lts.dummies())
            .map_err(|e| TestCaseError::fail(format!("engine error: {e}")))?;
        for bytes in [false, true] {
            let (violated, states) = compacted(&lts, &formula, base().hash_compaction(true), bytes)?;
            prop_assert_eq!(violated, expected, "hash compaction, bytes {}", bytes);
            if !violated {
                // A few hundred fingerprints: no collision to hide a state.
                prop_assert_eq!(states, exact.stats.product_states, "bytes {}\n{}", bytes, exact);
            }
        }
        let bits = probabilistic_verdict(&lts, &formula, base().bitstate(Some(1 << 20)))?;
        prop_assert_eq!(bits, expected, "bitstate, 2^20 bits");
        let starved = probabilistic_verdict(&lts, &formula, base().bitstate(Some(64)))?;
        prop_assert!(!starved || expected, "a violation that is not one");
    }
}

/// The slot ring (3432 states) in 64 bits: bitstate hashing misses states,
/// says so, and never calls the property proven; in ample bits it explores
/// what the exact search does, and hash compaction stores the product
/// states as fingerprints, one per state.
#[test]
fn bitstate_misses_states_in_few_bits_and_says_so() {
    let ring = SlotRing::new(7);
    let f = r#"G !"DEADLOCK""#;
    let exact = base().check(f, ring.clone(), dummies![Msg]).unwrap();
    assert!(exact.holds(), "{exact}");
    let few = base().bitstate(Some(64));
    let r = few.check(f, ring.clone(), dummies![Msg]).unwrap();
    assert!(!r.holds() && r.holds_probabilistically(), "{r}");
    assert!(r.stats.product_states < exact.stats.product_states, "{r}");
    assert!(r.to_string().contains("bitstate hashing"), "{r}");
    let Verdict::HoldsProbabilistic { omission_bound, .. } = r.verdict else {
        unreachable!()
    };
    assert_eq!(omission_bound, 1.0, "{r}");
    let b = r.stats.bitstate.expect("bitstate used");
    assert_eq!((b.bits, b.hash_functions), (64, 3));

    let ample = base().bitstate(Some(1 << 24));
    let r = ample.check(f, ring.clone(), dummies![Msg]).unwrap();
    assert_eq!(r.stats.product_states, exact.stats.product_states, "{r}");
    assert_eq!(r.stats.protocol_states, exact.stats.protocol_states, "{r}");
    let Verdict::HoldsProbabilistic { omission_bound, .. } = r.verdict else {
        panic!("{r}")
    };
    assert!(omission_bound < 1e-3, "{r}");

    let r = base()
        .hash_compaction(true)
        .check(f, ring, dummies![Msg])
        .unwrap();
    let Verdict::HoldsProbabilistic { fingerprints, .. } = r.verdict else {
        panic!("{r}")
    };
    assert_eq!(fingerprints, exact.stats.product_states, "{r}");
    assert!(r.stats.bitstate.is_none());
}

/// A state that deadlocks, found in the breadth-first frontier: its
/// stutter step to itself is the violation. Under hash compaction the
/// frontier holds the state's object and the store has forgotten its id,
/// so the counterexample's rebuild meets the state again under another
/// id: it must still find it (the violation is real and shown), with or
/// without the shortening of the counterexample, and with the frontier
/// held as objects or as bytes.
#[test]
fn a_deadlock_met_in_the_frontier_is_shown_under_compaction() {
    let send = |to| Label {
        role: 0,
        kind: engine::ActionKind::Send,
        ty: 0,
        peer: to,
    };
    // 0 → 1 → 2, and 2 deadlocks (not terminal).
    let lts = Lts {
        roles: 2,
        types: 1,
        trans: vec![vec![(send(1), 1)], vec![(send(1), 2)], vec![]],
        terminal: vec![false; 3],
    };
    let formula = r#"G "* SEND *""#;
    assert!(reference_violated(&lts, formula, true));
    for (shortest, bytes) in [(false, false), (true, false), (false, true), (true, true)] {
        for checker in [base().hash_compaction(true), base().bitstate(Some(1 << 20))] {
            let checker = checker.shortest(shortest);
            // With `bytes`, the frontier holds the deadlocking state as
            // its bytes, and the store the object decoded from them.
            let (found, _) =
                compacted(&lts, formula, checker.clone(), bytes).unwrap_or_else(|e| panic!("{e}"));
            assert!(found, "shortest {shortest}, bytes {bytes}: {checker:?}");
        }
    }
}

/// An array larger than the memory limit, or than any power of two of 64
/// bits, once aborted the process (the allocation failed) or panicked on
/// the rounding: the search is inconclusive instead, never "holds". It
/// was then reported as the memory limit reached "while the formula was
/// translated and prepared", which sent the user to raise the limit: the
/// report names the array and its size, and the bits as the thing to
/// lower.
#[test]
fn an_array_beyond_the_memory_limit_is_inconclusive_and_says_why() {
    let ring = SlotRing::new(3);
    let f = r#"G !"DEADLOCK""#;
    for (bits, size) in [(1 << 62, "512 PiB"), (u64::MAX, "2 EiB")] {
        let r = base()
            .max_memory(1 << 30)
            .bitstate(Some(bits))
            .check(f, ring.clone(), dummies![Msg])
            .unwrap();
        assert!(
            matches!(
                r.verdict,
                Verdict::Inconclusive {
                    limit: engine::Limit::Bitstate { bits: b, max_memory: m },
                    explored: 0,
                } if b == bits && m == 1 << 30
            ),
            "{r}"
        );
        let text = r.to_string();
        for said in [
            format!("the bitstate array of {bits} bits ({size}) does not fit"),
            "the memory limit (1024 MiB)".to_string(),
            "fewer bits with Checker::bitstate or PRUST_BITSTATE".to_string(),
        ] {
            assert!(text.contains(&said), "{said:?} in {text}");
        }
        assert!(!text.contains("while the formula"), "{text}");
    }
}
