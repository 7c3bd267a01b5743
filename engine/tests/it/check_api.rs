//! The entry points: `check`, `check_violated`, `try_check`, the `Checker`
//! builder and sessions.

use crate::common;

use common::small::{Chess, Move};
use engine::{check, check_violated, dummies, try_check, Checker, Error, Semantics, Verdict};

#[test]
fn check_returns_the_report_when_the_property_holds() {
    let r = check(
        r#"G ("white SEND *" -> X "black RECV *")"#,
        Chess::new(),
        dummies![Move],
    );
    assert!(r.holds());
    assert_eq!(r.stats.protocol_states, 4);
    assert!(r.stats.product_states >= 4);
    assert!(r.to_string().starts_with("property holds"), "{r}");
}

#[test]
#[should_panic(expected = "property violated: G !\"black SEND *\"")]
fn check_panics_with_the_report() {
    check(r#"G !"black SEND *""#, Chess::new(), dummies![Move]);
}

#[test]
#[should_panic(expected = "did you mean `black`?")]
fn check_panics_on_a_typo() {
    check(r#"G !"blakc SEND *""#, Chess::new(), dummies![Move]);
}

#[test]
#[should_panic(expected = "expected a violation, but: property holds")]
fn check_violated_panics_when_the_property_holds() {
    check_violated(r#"G F "black SEND *""#, Chess::new(), dummies![Move]);
}

#[test]
fn try_check_and_the_builder() {
    let r = try_check(r#"F "black SEND *""#, Chess::new(), dummies![Move]).unwrap();
    assert!(r.holds());
    let r = Checker::new()
        .semantics(Semantics::InfiniteRunsOnly)
        .max_states(1000)
        .determinism_check(true)
        .progress(false)
        .check(r#"G !"white RECV *""#, Chess::new(), dummies![Move])
        .unwrap();
    assert!(matches!(r.verdict, Verdict::Violated(_)));
    assert_eq!(r.semantics, Semantics::InfiniteRunsOnly);
}

#[test]
fn a_session_checks_many_formulas() {
    let mut s = Checker::new()
        .session(Chess::new(), dummies![Move])
        .unwrap();
    for (formula, holds) in [
        (r#"G F "white SEND *""#, true),
        (r#"G ("black RECV *" -> X "black SEND *")"#, true),
        (r#"G !"black RECV *""#, false),
        (r#"F G "DEADLOCK""#, false),
    ] {
        let r = s.check(formula).unwrap();
        assert_eq!(r.holds(), holds, "{r}");
    }
    assert!(matches!(s.check("G ("), Err(Error::Parse { .. })));
}

#[test]
fn the_report_has_statistics() {
    let r = check(r#"G !"DEADLOCK""#, Chess::new(), dummies![Move]);
    let text = r.to_string();
    for part in [
        "product states",
        "transitions",
        "protocol states",
        "automaton states",
        " s",
    ] {
        assert!(text.contains(part), "{text}");
    }
}

#[test]
fn trivial_formulas() {
    for f in [
        "true",
        "G (\"white SEND *\" | !\"white SEND *\")",
        "\"True\"",
        "!false",
    ] {
        assert!(check(f, Chess::new(), dummies![Move]).holds(), "{f}");
    }
    for f in ["false", "\"False\"", "G \"white SEND *\""] {
        check_violated(f, Chess::new(), dummies![Move]);
    }
}
