//! Finite runs: SPIN's stutter convention (the default) against Prut4j's
//! infinite-runs-only semantics.

use crate::common;

use common::small::{OneShot, Req};
use engine::{check, check_violated, dummies, Checker, Ending, Semantics, Verdict};

fn stuck() -> OneShot {
    OneShot {
        step: 0,
        deadlock: true,
    }
}

fn done() -> OneShot {
    OneShot {
        step: 0,
        deadlock: false,
    }
}

#[test]
fn a_deadlock_violates_deadlock_freedom() {
    let c = check_violated(r#"G !"DEADLOCK""#, stuck(), dummies![Req]);
    assert_eq!(c.prefix.len(), 2, "{c}");
    assert_eq!(
        c.ending,
        Some(Ending::Deadlock {
            waiting: vec!["client".into(), "server".into()]
        })
    );
    let text = c.to_string();
    assert!(text.contains("1. client SEND <Req> TO server"), "{text}");
    assert!(text.contains("2. server RECV <Req> FROM client"), "{text}");
    assert!(
        text.contains("then nothing can happen: deadlock (waiting: client, server)"),
        "{text}"
    );
    c.replay(stuck());
}

#[test]
fn termination_is_not_a_deadlock() {
    check(r#"G !"DEADLOCK""#, done(), dummies![Req]);
    check(r#"F "END""#, done(), dummies![Req]);
    let c = check_violated(r#"G !"END""#, done(), dummies![Req]);
    assert_eq!(c.ending, Some(Ending::Terminated));
    assert!(
        c.to_string().contains("then the protocol has terminated"),
        "{c}"
    );
}

#[test]
fn a_finite_run_violates_a_response_property() {
    // The server never answers: under the stutter convention the run that
    // stops after the request is a counterexample.
    let f = r#"G ("client SEND *" -> F "client RECV *")"#;
    let c = check_violated(f, done(), dummies![Req]);
    assert_eq!(c.ending, Some(Ending::Terminated), "{c}");
    // Prut4j's semantics sees no infinite run at all, so everything holds.
    let r = Checker::new()
        .semantics(Semantics::InfiniteRunsOnly)
        .check(f, done(), dummies![Req])
        .unwrap();
    assert!(r.holds(), "{r}");
    let r = Checker::new()
        .semantics(Semantics::InfiniteRunsOnly)
        .check(r#"G !"DEADLOCK""#, stuck(), dummies![Req])
        .unwrap();
    assert!(r.holds(), "{r}");
    let r = Checker::new()
        .semantics(Semantics::InfiniteRunsOnly)
        .check("false", stuck(), dummies![Req])
        .unwrap();
    assert!(
        r.holds(),
        "even `false` holds when there is no infinite run: {r}"
    );
    assert!(r.to_string().contains("infinite runs only"), "{r}");
}

#[test]
fn stutter_steps_carry_no_action() {
    // After the run stops, X X X "server RECV *" is false: stutter steps are
    // not actions, and they repeat forever.
    check_violated(r#"X X X "server RECV *""#, done(), dummies![Req]);
    check(r#"X X G !"* * *""#, done(), dummies![Req]);
    check(r#"X X G "END""#, done(), dummies![Req]);
    let r = Checker::new()
        .check(r#"X X "client SEND *""#, stuck(), dummies![Req])
        .unwrap();
    assert!(matches!(r.verdict, Verdict::Violated(_)), "{r}");
}
