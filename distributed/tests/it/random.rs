//! The distributed search against the one-machine search on random
//! objects and random formulas, under both semantics: the same verdict,
//! the same number of states where the property holds, and a
//! counterexample as short as a plain search of the product finds, on one
//! to three workers.

use engine::testing::{LtsProtocol, Rng};
use engine::{Checker, Fairness, Semantics, Shortness, Verdict};
use proptest::prelude::*;
use prust_distributed::{check, Cluster};

use crate::shortest::{length, plain_shortest};

/// Atoms over the roles and types of a drawn object (at most 4 roles, 3
/// types; an atom over one it lacks is an error on both sides alike).
fn atom() -> impl Strategy<Value = String> {
    let action = (0..2usize, 0..3u8, 0..2usize).prop_map(|(r, k, t)| match k {
        0 => format!("\"r{r} SEND <T{t}>\""),
        1 => format!("\"r{r} RECV *\""),
        _ => format!("\"* SEND <T{t}>\""),
    });
    prop_oneof![
        6 => action,
        1 => Just("\"END\"".to_string()),
        1 => Just("\"DEADLOCK\"".to_string()),
    ]
}

/// Formulas of both kinds: the operators whose violations are bad
/// prefixes, and `F`, `U` and `G F`, whose violations are cycles.
pub(crate) fn formula() -> impl Strategy<Value = String> {
    atom().prop_recursive(3, 10, 2, |inner| {
        prop_oneof![
            3 => inner.clone().prop_map(|a| format!("G ({a})")),
            2 => inner.clone().prop_map(|a| format!("!({a})")),
            2 => inner.clone().prop_map(|a| format!("X ({a})")),
            2 => inner.clone().prop_map(|a| format!("F ({a})")),
            2 => inner.clone().prop_map(|a| format!("G F ({a})")),
            3 => (inner.clone(), inner.clone(), 0..5u8).prop_map(|(a, b, op)| {
                let op = ["&", "|", "->", "W", "U"][op as usize];
                format!("({a}) {op} ({b})")
            }),
        ]
    })
}

pub(crate) fn object(seed: u64) -> LtsProtocol {
    let mut o = LtsProtocol::draw(&mut Rng::new(seed));
    o.bytes = true;
    o
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn random_objects_agree_with_one_machine(
        seed in any::<u64>(),
        formula in formula(),
        threads in 1..=3usize,
        omega in any::<bool>(),
    ) {
        agrees(seed, &formula, threads, omega, Fairness::None)?;
    }
}

/// The object of `seed` checked for `formula` on `threads` workers and on
/// one machine, under `fairness`, both asked for a shortest
/// counterexample: the same verdict, the same states where it holds, and
/// a counterexample as long as a plain search of the product finds (and
/// fair, under weak fairness).
pub(crate) fn agrees(
    seed: u64,
    formula: &str,
    threads: usize,
    omega: bool,
    fairness: Fairness,
) -> Result<(), TestCaseError> {
    let obj = object(seed);
    let dummies = obj.lts.dummies();
    let semantics = if omega {
        Semantics::InfiniteRunsOnly
    } else {
        Semantics::Stutter
    };
    // A shortest counterexample whatever it costs: the search then goes on
    // past a bad prefix where a cycle may be shorter.
    let checker = Checker::new()
        .partial_order(false)
        .semantics(semantics)
        .fairness(fairness)
        .shortest(true);
    let one = match checker.clone().check(formula, obj.clone(), dummies.clone()) {
        Ok(r) => r,
        // An atom over a role the object lacks: not this test's case.
        Err(_) => return Ok(()),
    };
    let mut session = checker
        .clone()
        .session(obj.clone(), dummies.clone())
        .unwrap();
    let got = check(&Cluster::threads(threads), formula, move || {
        checker.session(obj.clone(), dummies.clone())
    });
    let o = match got {
        Ok(o) => o,
        Err(e) => return Err(TestCaseError::fail(format!("{e}\n---\n{one}"))),
    };
    let r = &o.report;
    match (&one.verdict, &r.verdict) {
        (Verdict::Holds, Verdict::Holds) => {
            prop_assert_eq!(r.stats.product_states, one.stats.product_states);
        }
        (Verdict::Violated(_), Verdict::Violated(c)) => {
            prop_assert!(fairness != Fairness::Weak || c.starved.is_empty(), "{}", r);
            // As short as a plain search of the whole product finds.
            let want = plain_shortest(&mut session.product_graph(formula).unwrap(), 100_000)
                .expect("a small product")
                .expect("a violation");
            prop_assert_eq!(&c.shortness, &Shortness::Shortest, "{}", r);
            prop_assert_eq!(c.product_length, Some(want), "{}\n---\n{}", r, one);
            // And as long as the one-machine check's shortest.
            prop_assert_eq!(length(&one), Some(want), "{}", one);
        }
        _ => prop_assert!(false, "{}\n---\n{}", r, one),
    }
    Ok(())
}
