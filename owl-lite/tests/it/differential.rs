//! Differential test of the translator against direct evaluation on
//! ultimately periodic words: the automaton of φ accepts `u·v^ω` iff φ holds
//! on it, and exactly one of the automata of φ and ¬φ accepts it.

use crate::common;

use common::{formula, holds, lasso, obligation};
use owl_lite::{parse, translate, Ltl, TranslateError, TranslateOptions};
use proptest::prelude::*;

const ATOMS: &[&str] = &["a", "b", "c", "d", "e"];

fn atom_names() -> Vec<String> {
    ATOMS.iter().map(|s| s.to_string()).collect()
}

/// Translates with the atoms of the automaton renumbered to `ATOMS` order,
/// so that lasso letters mean the same to the evaluator and the automaton.
fn check(
    f: &Ltl,
    words: &[(Vec<u64>, Vec<u64>)],
    opts: &TranslateOptions,
) -> Result<(), TestCaseError> {
    // Pathological random formulas (nested `<->` under deep temporal
    // operators) can exceed the documented size limits: that is a typed
    // error, not a wrong automaton, so such cases are skipped.
    let (pos, neg) = match (translate(f, opts), translate(&f.negate(), opts)) {
        (Ok(p), Ok(n)) => (p, n),
        (Err(TranslateError::TooLarge), _) | (_, Err(TranslateError::TooLarge)) => {
            return Err(TestCaseError::reject("beyond the translator's size limits"))
        }
        (Err(e), _) | (_, Err(e)) => panic!("{f}: {e}"),
    };
    let names = atom_names();
    for (u, v) in words {
        let expected = holds(f, &names, u, v);
        let remap = |aut: &owl_lite::Automaton, w: &[u64]| -> Vec<u64> {
            w.iter()
                .map(|l| {
                    aut.atoms.iter().enumerate().fold(0u64, |m, (i, a)| {
                        let j = ATOMS.iter().position(|x| x == a).expect("known atom");
                        if l & (1 << j) != 0 {
                            m | 1 << i
                        } else {
                            m
                        }
                    })
                })
                .collect()
        };
        let acc_pos = pos.accepts_lasso(&remap(&pos, u), &remap(&pos, v));
        let acc_neg = neg.accepts_lasso(&remap(&neg, u), &remap(&neg, v));
        prop_assert_eq!(
            acc_pos,
            expected,
            "automaton of {} on {:?}·{:?}^ω\n{}",
            f,
            u,
            v,
            pos.to_hoa()
        );
        prop_assert_eq!(
            acc_neg,
            !expected,
            "automaton of !({}) on {:?}·{:?}^ω\n{}",
            f,
            u,
            v,
            neg.to_hoa()
        );
        prop_assert!(!(acc_pos && acc_neg));
    }
    Ok(())
}

proptest! {
    // 4,000 formulas × 3 lassos = 12,000 (formula, word) cases per run, each
    // checked on the automata of the formula and of its negation.
    #![proptest_config(ProptestConfig { cases: 4_000, ..ProptestConfig::default() })]

    #[test]
    fn automaton_agrees_with_evaluation(
        f in formula(ATOMS, 6),
        words in proptest::collection::vec(lasso(5, 5), 3),
    ) {
        check(&f, &words, &TranslateOptions::default())?;
    }

}

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, ..ProptestConfig::default() })]

    /// Obligation formulas, whose automata are replaced by minimal weak
    /// deterministic ones (syntactic obligations directly, the others after
    /// the language check).
    #[test]
    fn minimal_wdba_agrees_with_evaluation(
        f in obligation(ATOMS, 3),
        words in proptest::collection::vec(lasso(5, 5), 4),
    ) {
        check(&f, &words, &TranslateOptions::default())?;
    }
}

/// The benchmark formulas that the letter-wise rules brought down
/// to Spot's sizes (a term covered letter by letter by several dominating
/// terms; edges losing the letters a sibling dominates), with those sizes.
const SHRUNK: &[(&str, usize)] = &[
    ("!(F p0 -> (((p1 & X (!p0 U p2)) -> X (!p0 U (p2 & F p3))) U p0))", 4),
    ("!G ((p0 & F p1) -> (((p2 & X (!p1 U p3)) -> X (!p1 U (p3 & F p4))) U p1))", 5),
    (
        "!G (p0 -> (((p1 & X (!p2 U p3)) -> X (!p2 U (p3 & F p4))) U (p2 | G ((p1 & X (!p2 U p3)) -> X (!p2 U (p3 & F p4))))))",
        4,
    ),
    (
        "G (p0 -> ((p1 -> (!p2 U (!p2 & p3 & !p4 & X ((!p2 & !p4) U p5)))) U (p2 | G (p1 -> (p3 & !p4 & X (!p4 U p5))))))",
        6,
    ),
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Those automata have Spot's sizes and still agree with evaluation,
    /// as do the automata of the negations, on random lassos over their
    /// six atoms.
    #[test]
    fn letter_wise_reductions_agree_with_evaluation(
        k in 0..SHRUNK.len(),
        (u, v) in lasso(6, 6),
    ) {
        let (text, size) = SHRUNK[k];
        let f = parse(text).unwrap();
        let names: Vec<String> = (0..6).map(|i| format!("p{i}")).collect();
        let pos = translate(&f, &TranslateOptions::default()).unwrap();
        prop_assert_eq!(pos.num_states(), size, "{}", text);
        for g in [f.clone(), f.negate()] {
            let a = translate(&g, &TranslateOptions::default()).unwrap();
            let remap = |w: &[u64]| -> Vec<u64> {
                w.iter()
                    .map(|l| {
                        a.atoms.iter().enumerate().fold(0u64, |m, (i, x)| {
                            let j = names.iter().position(|n| n == x).expect("p0..p5");
                            if l & (1 << j) != 0 { m | 1 << i } else { m }
                        })
                    })
                    .collect()
            };
            prop_assert_eq!(
                a.accepts_lasso(&remap(&u), &remap(&v)),
                holds(&g, &names, &u, &v),
                "{} on {:?}·{:?}^ω\n{}",
                g,
                u,
                v,
                a.to_hoa()
            );
        }
    }
}

/// The obligation generator really reaches the minimisation: on a fixed
/// sample, the WDBA is smaller than the plain automaton for many formulas.
#[test]
fn obligation_formulas_exercise_the_minimisation() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = obligation(ATOMS, 3);
    let (mut smaller, mut larger) = (0, 0);
    for _ in 0..150 {
        let f = strategy.new_tree(&mut runner).unwrap().current();
        let (Ok(min), Ok(plain)) = (
            translate(&f, &TranslateOptions::default()),
            translate(&f, &TranslateOptions::default().wdba(false)),
        ) else {
            continue;
        };
        match min.num_states().cmp(&plain.num_states()) {
            std::cmp::Ordering::Less => smaller += 1,
            std::cmp::Ordering::Greater => larger += 1,
            std::cmp::Ordering::Equal => {}
        }
    }
    assert_eq!(larger, 0, "the minimisation is only kept when smaller");
    assert!(
        smaller >= 15,
        "only {smaller} of 150 obligations got smaller"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1_000, ..ProptestConfig::default() })]

    /// The raw construction, before simplification and reductions.
    #[test]
    fn unreduced_automaton_agrees_with_evaluation(
        f in formula(ATOMS, 5),
        words in proptest::collection::vec(lasso(5, 4), 2),
    ) {
        check(&f, &words, &TranslateOptions::default().reduce(false).simplify(false))?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1_000, ..ProptestConfig::default() })]

    /// Mutual exclusion never changes the verdict on words that respect it.
    #[test]
    fn mutual_exclusion_is_invisible_on_respecting_words(
        f in formula(ATOMS, 6),
        words in proptest::collection::vec(lasso(5, 5), 4),
    ) {
        // a, b, c exclusive: keep at most the lowest of them in each letter.
        let respect = |w: &Vec<u64>| -> Vec<u64> {
            w.iter().map(|l| {
                let abc = l & 0b111;
                let keep = abc & abc.wrapping_neg();
                (l & !0b111) | keep
            }).collect()
        };
        let words: Vec<_> = words.iter().map(|(u, v)| (respect(u), respect(v))).collect();
        let opts = TranslateOptions::default().mutually_exclusive(["a", "b", "c"]);
        check(&f, &words, &opts)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200_000, ..ProptestConfig::default() })]

    /// The long soak: `cargo test -p owl-lite --release -- --ignored`.
    #[test]
    #[ignore]
    fn soak_automaton_agrees_with_evaluation(
        f in formula(ATOMS, 8),
        words in proptest::collection::vec(lasso(5, 6), 4),
    ) {
        check(&f, &words, &TranslateOptions::default())?;
    }
}

/// The generator really produces what the issue asks for: deep formulas
/// over all five atoms with every operator.
#[test]
fn generated_formulas_are_deep_and_varied() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = formula(ATOMS, 6);
    let mut heights = vec![];
    let mut ops = std::collections::HashSet::new();
    let mut atoms = std::collections::HashSet::new();
    for _ in 0..1000 {
        let f = strategy.new_tree(&mut runner).unwrap().current();
        heights.push(f.height());
        atoms.extend(f.atoms());
        let mut stack = vec![f];
        while let Some(g) = stack.pop() {
            ops.insert(std::mem::discriminant(g.kind()));
            stack.extend(g.children());
        }
    }
    let deep = heights.iter().filter(|&&h| h >= 6).count();
    assert!(deep >= 900, "only {deep} of 1000 formulas have depth >= 6");
    assert_eq!(atoms.len(), 5);
    assert_eq!(ops.len(), 16, "every operator, constant and atoms occur");
}
