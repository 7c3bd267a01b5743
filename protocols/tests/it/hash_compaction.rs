//! Hash compaction on the objects of the spec language: on random
//! specifications × random formulas × both semantics, the search that
//! stores 64-bit fingerprints gives the exact search's verdict (a property
//! that holds said "probabilistic", never plain), explores the same number
//! of states, and its counterexamples replay — for the compiled strict
//! object, the liberal one, and the strict one built on the fly with
//! partial-order reduction (whose lists of successors hold objects too).

use crate::common;

use engine::{Checker, Protocol, Report, Semantics, Verdict};
use proptest::prelude::*;
use protocols::{Liberal, Strict};

fn check<P: Protocol>(
    obj: &P,
    formula: &str,
    semantics: Semantics,
    compact: bool,
    max: u64,
) -> Report {
    Checker::new()
        .determinism_check(true)
        .hash_compaction(compact)
        .semantics(semantics)
        .max_states(max)
        .progress(false)
        .check(formula, obj.clone(), vec![])
        .unwrap_or_else(|e| panic!("{formula}: {e}"))
}

/// `max`: the state limit (liberal objects of one-sided loops are
/// unbounded, their inboxes growing with the depth: a small bound keeps
/// them cheap; checks that reach it are skipped).
fn agree<P: Protocol + std::fmt::Debug>(
    obj: &P,
    f: &str,
    semantics: Semantics,
    max: u64,
) -> Result<(), TestCaseError> {
    let exact = check(obj, f, semantics, false, max);
    let compact = check(obj, f, semantics, true, max);
    prop_assume!(!matches!(exact.verdict, Verdict::Inconclusive { .. }));
    prop_assert_eq!(
        exact.stats.product_states,
        compact.stats.product_states,
        "{}\n{}",
        exact,
        compact
    );
    match (&exact.verdict, &compact.verdict) {
        (Verdict::Holds, Verdict::HoldsProbabilistic { .. }) => {
            let text = compact.to_string();
            prop_assert!(
                text.contains("holds (probabilistic: hash compaction)"),
                "{}",
                text
            );
            prop_assert!(!text.contains("property holds:"), "{}", text);
        }
        (Verdict::Violated(_), Verdict::Violated(c)) => {
            let replayed = c.try_replay(obj.clone());
            prop_assert!(replayed.is_ok(), "{:?}\n{}", replayed.err(), compact);
        }
        (a, b) => prop_assert!(false, "{}: exact {:?}, compacted {:?}", f, a, b),
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 80, ..ProptestConfig::default() })]

    #[test]
    fn hash_compaction_gives_the_exact_verdicts_on_random_specifications(
        spec in common::gen::spec(),
        shape in common::formula::shape(),
        omega in prop::bool::ANY,
        runtime in 0..3u8,
    ) {
        let lts = common::gen::compile_or_skip(&spec)?;
        prop_assume!(!lts.type_names().is_empty());
        let semantics = if omega { Semantics::InfiniteRunsOnly } else { Semantics::Stutter };
        match runtime {
            0 => {
                let obj = Strict::new(lts);
                agree(&obj, &common::formula::render(&obj, shape), semantics, 20_000)?;
            }
            1 => {
                prop_assume!(lts.num_states() <= 60);
                let obj = Liberal::new(lts);
                agree(&obj, &common::formula::render(&obj, shape), semantics, 400)?;
            }
            _ => {
                // Declares its parallel branches: reduced searches.
                let obj = Strict::on_the_fly(&spec).expect("compiles, so builds on the fly");
                agree(&obj, &common::formula::render(&obj, shape), semantics, 20_000)?;
            }
        }
    }
}
