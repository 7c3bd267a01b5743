//! The automaton API: HOA and DOT output, degeneralisation, lasso
//! acceptance, errors, mutual exclusion.

use owl_lite::{parse, translate, Automaton, Cube, Edge, Guard, TranslateError, TranslateOptions};

fn aut(s: &str) -> Automaton {
    translate(&parse(s).unwrap(), &TranslateOptions::default()).unwrap()
}

#[test]
fn hoa_header_and_body() {
    let a = aut(r#"G F "a SEND \"x\"" & G F b"#);
    let hoa = a.to_hoa();
    assert!(hoa.starts_with("HOA: v1\nStates: 1\nStart: 0\n"), "{hoa}");
    assert!(hoa.contains("AP: 2 \"a SEND \\\"x\\\"\" \"b\"\n"), "{hoa}");
    assert!(hoa.contains("acc-name: generalized-Buchi 2\nAcceptance: 2 Inf(0)&Inf(1)\n"));
    assert!(hoa.contains("[0&1] 0 {0 1}"), "{hoa}");
    assert!(hoa.ends_with("--END--\n"));

    let safety = aut("G a");
    assert!(safety.to_hoa().contains("acc-name: all\nAcceptance: 0 t\n"));
    let empty = aut("a & !a");
    assert_eq!((empty.num_states(), empty.num_edges()), (1, 0));
    assert!(empty.to_hoa().contains("States: 1\n"));
}

#[test]
fn dot_output_names_atoms() {
    let dot = aut(r#"a U "b c""#).to_dot();
    assert!(dot.starts_with("digraph automaton {"));
    assert!(dot.contains("label=\"b c\""), "{dot}");
    // The loop waits on `a` where `b c` does not hold (on `a & b c` the
    // edge to the accepting state dominates it).
    assert!(dot.contains("label=\"a & !b c\""), "{dot}");
    assert!(dot.contains("init -> 0"));
}

#[test]
fn acceptance_sets_zero_means_every_run_accepts() {
    let a = Automaton {
        atoms: vec!["p".into()],
        initial: 0,
        edges: vec![vec![Edge {
            target: 0,
            guard: Guard {
                cubes: vec![Cube { pos: 1, neg: 0 }],
            },
            acc: 0,
        }]],
        acceptance_sets: 0,
    };
    assert!(a.accepts_lasso(&[], &[1]));
    assert!(!a.accepts_lasso(&[1], &[0]));
    assert!(!a.accepts_lasso(&[1], &[]), "no infinite word");
    let b = Automaton {
        acceptance_sets: 1,
        ..a.clone()
    };
    assert!(!b.accepts_lasso(&[], &[1]), "one set, never visited");
}

#[test]
fn degeneralization_keeps_the_language() {
    let a = aut("G F a & G F b & G F c");
    assert_eq!(a.acceptance_sets, 3);
    let d = a.degeneralize();
    assert_eq!(d.acceptance_sets, 1);
    for (u, v) in [
        (vec![], vec![0b001, 0b010, 0b100]),
        (vec![0], vec![0b111]),
        (vec![], vec![0b011]),
        (vec![0b111], vec![0b110, 0b001]),
        (vec![], vec![0b101, 0b000]),
    ] {
        assert_eq!(
            a.accepts_lasso(&u, &v),
            d.accepts_lasso(&u, &v),
            "{u:?} {v:?}"
        );
    }
    let b = aut("F G a");
    assert_eq!(b.degeneralize(), b, "already at most one set");
}

#[test]
fn more_than_64_atoms_is_an_error() {
    let text: Vec<String> = (0..65).map(|i| format!("F p{i}")).collect();
    let f = parse(&text.join(" | ")).unwrap();
    let err = translate(&f, &TranslateOptions::default()).unwrap_err();
    assert_eq!(err, TranslateError::TooManyAtoms { count: 65 });
    assert!(err.to_string().contains("at most 64"));
    // 64 atoms are fine.
    let f = parse(&text[..64].join(" | ")).unwrap();
    assert!(translate(&f, &TranslateOptions::default()).is_ok());
}

#[test]
fn too_many_acceptance_sets_is_an_error() {
    let text: Vec<String> = (0..33).map(|i| format!("G F p{i}")).collect();
    let f = parse(&text.join(" & ")).unwrap();
    let err = translate(&f, &TranslateOptions::default()).unwrap_err();
    assert!(
        matches!(
            err,
            TranslateError::TooManyAcceptanceSets { .. } | TranslateError::TooLarge
        ),
        "{err}"
    );
}

#[test]
fn mutual_exclusion_drops_impossible_edges() {
    let f = parse(r#"G ("a SEND *" -> F "b RECV *") & F "c""#).unwrap();
    let plain = translate(&f, &TranslateOptions::default()).unwrap();
    let opts = TranslateOptions::default().mutually_exclusive(["a SEND *", "b RECV *", "c"]);
    let excl = translate(&f, &opts).unwrap();
    assert!(excl.num_edges() <= plain.num_edges());
    for es in &excl.edges {
        for e in es {
            for c in &e.guard.cubes {
                assert!(c.pos.count_ones() <= 1, "two exclusive atoms in {c:?}");
            }
        }
    }
    // Same verdicts on exclusive words: a, then b, then c forever / nothing.
    for (u, v) in [
        (vec![1u64], vec![2u64, 4]),
        (vec![1], vec![0]),
        (vec![], vec![4]),
    ] {
        assert_eq!(plain.accepts_lasso(&u, &v), excl.accepts_lasso(&u, &v));
    }
    let impossible = parse(r#"F ("a" & "b")"#).unwrap();
    let opts = TranslateOptions::default().mutually_exclusive(["a", "b"]);
    assert_eq!(translate(&impossible, &opts).unwrap().num_edges(), 0);
}

#[test]
fn benchmark_anchors_translate_to_small_automata() {
    // Sizes Spot 2.13 also reaches; a regression here means a lost reduction.
    for (f, states) in [
        ("G F p0 & G F p1", 1),
        ("F p0 & F p1", 4),
        ("p0 U (p1 U p2)", 3),
        ("G (p0 -> F p1)", 2),
        ("!(G F p0 -> G F p1)", 2),
        ("(G F p1 & G F p0) -> (G F p2 & G F p3)", 4),
        ("(X p0 U X p1) | !X (p0 U p1)", 1),
    ] {
        assert_eq!(aut(f).num_states(), states, "{f}");
    }
}

/// Bugs the Spot cross-check and the differential test found, kept as
/// concrete regressions.
#[test]
fn regressions() {
    // A pending `F p2` must not be absorbed by `F (p1 & X F p2)`, which can be
    // fulfilled again and again while p2 never holds.
    let a = aut("G (p0 -> F (p1 & X F p2))");
    assert!(!a.accepts_lasso(&[0b011], &[0b000, 0b010]));
    assert!(a.accepts_lasso(&[0b011], &[0b000, 0b110]));
    // `a M b` guarantees `b` now, not `a`: the implication check once
    // simplified this to `!a W !e`.
    let f = parse("(!e M G !c) W (!a W !e)").unwrap();
    assert_ne!(f.simplify(), parse("!a W !e").unwrap());
    let a = translate(&f, &TranslateOptions::default()).unwrap();
    // atoms: e, c, a. Word: {a, e} then {} forever: !a W !e holds (e false
    // from position 1 on), so the formula holds.
    assert!(a.accepts_lasso(&[0b101], &[0b000]));
    // The obligation `G z` generated by `c M X G z` must not be absorbed
    // into `G (c M X G z)` (found by the soak test): b never holds here.
    let a = aut("G (c M (true M G X (X F b | (a M b))))");
    assert!(!a.accepts_lasso(&[], &[0b001]));
    assert!(a.accepts_lasso(&[], &[0b011]));
}

/// The headline of BENCHMARKS.md and of the crate docs: the 189 formulas
/// of the benchmark set translate to 1,368 states in total, Spot's total.
/// A change to the translator that grows an automaton shows here, not only
/// when someone reruns the benchmark script.
#[test]
fn the_benchmark_set_totals_spots_states() {
    let set = include_str!("../../bench/ltl-formulas.txt");
    let (mut formulas, mut states) = (0, 0);
    for line in set.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        formulas += 1;
        states += aut(line).num_states();
    }
    assert_eq!((formulas, states), (189, 1_368));
}
