//! `Ltl`: hash-consing, atoms, substitution, negation, simplification.

use owl_lite::{parse, Ltl};

fn p(s: &str) -> Ltl {
    parse(s).unwrap()
}

#[test]
fn equal_formulas_are_shared() {
    let f = p("G (a -> F b) & F b");
    let g = Ltl::and([
        Ltl::globally(Ltl::implies(Ltl::atom("a"), Ltl::finally(Ltl::atom("b")))),
        Ltl::finally(Ltl::atom("b")),
    ]);
    assert_eq!(f, g);
    let children = f.children();
    let inner = &children[0].children()[0].children()[1];
    assert_eq!(inner, &children[1], "the two F b are one node");
    assert_ne!(p("a U b"), p("b U a"));
}

#[test]
fn interning_is_thread_safe() {
    let handles: Vec<_> = (0..4)
        .map(|t| {
            std::thread::spawn(move || {
                (0..2000)
                    .map(|i| p(&format!("G (p{} -> F q{t})", i % 50)))
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let results: Vec<Vec<Ltl>> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    for (t, fs) in results.iter().enumerate() {
        for (i, f) in fs.iter().enumerate() {
            assert_eq!(f, &p(&format!("G (p{} -> F q{t})", i % 50)));
        }
    }
}

#[test]
fn atoms_are_distinct_in_first_occurrence_order() {
    let f = p(r#"(c U "b x") & G (a | c) & X "b x""#);
    assert_eq!(f.atoms(), ["c", "b x", "a"]);
    assert!(p("true & false").atoms().is_empty());
}

#[test]
fn map_atoms_replaces_only_what_it_is_asked_to() {
    let f = p(r#"G ("True" -> F "False") | x"#);
    let g = f.map_atoms(|a| match a {
        "True" => Some(Ltl::tt()),
        "False" => Some(Ltl::ff()),
        _ => None,
    });
    assert_eq!(g, p("G (true -> F false) | x"));
    assert_eq!(g.simplify(), p("x"));
    assert_eq!(f.map_atoms(|_| None), f);
}

#[test]
fn negation() {
    assert_eq!(p("a").not(), p("!a"));
    assert_eq!(p("!a").not(), p("a"));
    assert_eq!(!p("a U b"), p("!(a U b)"));
    assert_eq!(p("a U b").negate(), p("!a R !b"));
    assert_eq!(p("a W b").negate(), p("!a M !b"));
    assert_eq!(p("G F a").negate(), p("F G !a"));
    assert_eq!(p("X (a -> b)").negate(), p("X (a & !b)"));
    assert_eq!(p("a <-> b").nnf(), p("(a & b) | (!a & !b)"));
    assert_eq!(p("a ^ b").nnf(), p("(a & !b) | (!a & b)"));
    assert_eq!(owl_lite::negate(&p("true")), p("false"));
}

#[test]
fn simplifier_rules() {
    let s = |x: &str| p(x).simplify();
    let same = |l: &str, r: &str| assert_eq!(s(l), s(r), "{l} should simplify like {r}");
    assert_eq!(s("F F a"), p("F a"));
    assert_eq!(s("G G a"), p("G a"));
    assert_eq!(s("G F G a"), p("F G a"));
    assert_eq!(s("F G F a"), p("G F a"));
    assert_eq!(s("a U (a U b)"), p("a U b"));
    assert_eq!(s("a R (a R b)"), p("a R b"));
    assert_eq!(s("a & true"), p("a"));
    assert_eq!(s("a & false"), p("false"));
    assert_eq!(s("a | !a"), p("true"));
    assert_eq!(s("a & !a"), p("false"));
    assert_eq!(s("X true"), p("true"));
    assert_eq!(s("true U a"), p("F a"));
    assert_eq!(s("false R a"), p("G a"));
    assert_eq!(s("a W false"), p("G a"));
    assert_eq!(s("F (a U b)"), p("F b"));
    assert_eq!(s("G (a R b)"), p("G b"));
    assert_eq!(s("F a & G F a"), p("G F a"));
    assert_eq!(s("a & (a | b)"), p("a"));
    same("G a & G b", "G (a & b)");
    same("F a | F b", "F (a | b)");
    same("X a & X b", "X (a & b)");
    same("F X a", "X F a");
    same("F (a & G F b)", "F a & G F b");
    same("!(a -> b)", "a & !b");
    assert_eq!(s("(a & b) U a"), p("a"));
}
