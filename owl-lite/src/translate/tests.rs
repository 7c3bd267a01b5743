use super::terms::{cube_covered, COVER_SPLITS};
use super::*;
use crate::automaton::Cube;
use crate::parse;
use crate::raw::Exclusions;

fn cube(pos: u64, neg: u64) -> Cube {
    Cube { pos, neg }
}

#[test]
fn a_cube_is_covered_by_a_union_no_single_cube_covers() {
    let excl = Exclusions::default();
    let mut budget = COVER_SPLITS;
    // !a&!c is covered by !a&!b and b.
    let by = [cube(0, 0b011), cube(0b010, 0)];
    assert!(cube_covered(cube(0, 0b101), &by, &excl, &mut budget));
    // c is not covered by a: the letter c&!a is in neither.
    let mut budget = COVER_SPLITS;
    assert!(!cube_covered(
        cube(0b100, 0),
        &[cube(0b001, 0)],
        &excl,
        &mut budget
    ));
    // Exclusive atoms: a&b cannot happen, so b is covered by !a.
    let excl = Exclusions {
        groups: vec![0b011],
    };
    let mut budget = COVER_SPLITS;
    assert!(cube_covered(
        cube(0b010, 0),
        &[cube(0, 0b001)],
        &excl,
        &mut budget
    ));
}

#[test]
fn a_term_covered_letter_by_letter_is_dropped() {
    // Spot's core translation gives 4 states; before the letter-wise
    // domination the state `(!p0 U p2) & G !p3 & …` made a fifth.
    let f = parse("!(F p0 -> (((p1 & X (!p0 U p2)) -> X (!p0 U (p2 & F p3))) U p0))").unwrap();
    let a = translate(&f, &TranslateOptions::default().wdba(false)).unwrap();
    assert_eq!(a.num_states(), 4);
    // Letters: bit 0 = p0, 1 = p1, 2 = p2, 3 = p3.
    assert!(a.accepts_lasso(&[0b0010, 0b0000, 0b0100], &[0b0001])); // p1, wait, p2, p0
    assert!(a.accepts_lasso(&[0b0010, 0b0100], &[0b0001])); // p1, p2, then p0 for ever
    assert!(!a.accepts_lasso(&[0b0010, 0b1100], &[0b0001])); // p3 comes with p2
    assert!(!a.accepts_lasso(&[0b0010, 0b0000], &[0b0000])); // p0 never holds
    assert!(!a.accepts_lasso(&[0b0010, 0b0001], &[0b0000])); // p0 before p2
}

#[test]
fn an_interrupt_stops_the_translation_and_is_not_asked_again() {
    use std::sync::atomic::{AtomicU32, Ordering};
    use std::sync::Arc;
    // 2^10 letters, each its own edge: thousands of units of work in
    // the construction and the reductions.
    let text: Vec<String> = (0..10).map(|i| format!("G F p{i}")).collect();
    let f = parse(&text.join(" & ")).unwrap();
    let calls = Arc::new(AtomicU32::new(0));
    let counted = calls.clone();
    let opts = TranslateOptions::default()
        .interrupt(move || counted.fetch_add(1, Ordering::Relaxed) + 1 >= 3);
    assert_eq!(translate(&f, &opts), Err(TranslateError::Interrupted));
    assert_eq!(calls.load(Ordering::Relaxed), 3);
    // The interrupt is the translation's own: the next one runs in full.
    let never = TranslateOptions::default().interrupt(|| false);
    let a = translate(&f, &never).unwrap();
    assert_eq!(a, translate(&f, &TranslateOptions::default()).unwrap());
    assert_eq!((a.num_states(), a.acceptance_sets), (1, 10));
}

#[test]
fn determinism_is_read_off_the_cubes() {
    // `G (a -> X b)`: on `a` the automaton must both stay ready and
    // remember `b`; its edges are disjoint letter by letter.
    let opts = TranslateOptions::default();
    let det = translate(&parse("G (a -> X b)").unwrap(), &opts).unwrap();
    assert!(deterministic(&det));
    // `F G a` guesses when `a` starts to hold for ever.
    let guess = translate(&parse("F G a").unwrap(), &opts).unwrap();
    assert!(!deterministic(&guess));
}
