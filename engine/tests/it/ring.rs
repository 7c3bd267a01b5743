//! Token rings: properties that hold, properties that do not (with cycle
//! counterexamples), sessions that check several formulas on one object.

use crate::common;

use common::ring::{Msg, SlotRing, Token, TokenRing};
use engine::{check, check_violated, dummies, Checker, Verdict};

#[test]
fn the_token_goes_round() {
    let ring = TokenRing::new(4);
    check(
        r#"G ("p0 SEND <Token>" -> F "p1 RECV <Token> FROM p0")"#,
        ring.clone(),
        dummies![Token],
    );
    check(
        r#"G F "p3 SEND <Token> TO p0""#,
        ring.clone(),
        dummies![Token],
    );
    check(r#"G !"DEADLOCK""#, ring.clone(), dummies![Token]);
    check(r#"!"p1 SEND *" U "p1 RECV *""#, ring, dummies![Token]);
}

#[test]
fn a_wrong_property_gets_a_cycle() {
    let ring = TokenRing::new(3);
    // "Eventually p1 keeps the token": wrong, the token goes round forever.
    let c = check_violated(r#"F G !"p1 SEND *""#, ring.clone(), dummies![Token]);
    assert!(c.ending.is_none(), "the ring never stops: {c}");
    assert!(!c.cycle.is_empty());
    let text = c.to_string();
    assert!(text.contains("cycle starts here"), "{text}");
    assert!(
        c.cycle
            .iter()
            .any(|s| s.to_string() == "p1 SEND <Token> TO p2"),
        "{text}"
    );
    c.replay(ring.clone());
    // A safety violation stops at the step that commits it.
    let c = check_violated(
        r#"G ("p0 SEND *" -> X G !"p0 SEND *")"#,
        ring,
        dummies![Token],
    );
    assert_eq!(c.prefix.len(), 7, "{c}");
    assert_eq!(c.ending, Some(engine::Ending::AnyContinuation));
}

#[test]
fn a_session_reuses_the_object() {
    let mut s = Checker::new()
        .session(TokenRing::new(5), dummies![Token])
        .unwrap();
    let r1 = s.check(r#"G F "p4 RECV *""#).unwrap();
    assert!(r1.holds(), "{r1}");
    let protos = r1.stats.protocol_states;
    assert_eq!(protos, 10, "5 holders × token in transit or not");
    let r2 = s.check(r#"G ("p2 RECV *" -> X "p2 SEND *")"#).unwrap();
    assert!(r2.holds(), "{r2}");
    assert_eq!(
        r2.stats.protocol_states, protos,
        "no new protocol states on the second formula"
    );
    let r3 = s.check(r#"F G "p0 SEND *""#).unwrap();
    assert!(matches!(r3.verdict, Verdict::Violated(_)), "{r3}");
}

#[test]
fn slot_ring_has_binomially_many_states() {
    // C(2n, n) protocol states; with `G !"DEADLOCK"` the automaton has one
    // live state, so the product has exactly as many.
    for (n, states) in [(3, 20), (4, 70), (5, 252), (6, 924)] {
        let r = Checker::new()
            .check(r#"G !"DEADLOCK""#, SlotRing::new(n), dummies![Msg])
            .unwrap();
        assert!(r.holds(), "{r}");
        assert_eq!(r.stats.product_states, states, "n = {n}: {r}");
        assert_eq!(r.stats.protocol_states, states, "n = {n}: {r}");
    }
}

/// Scale run (not a benchmark; see `engine/benches`):
/// `cargo test -p prust-engine --release --test ring -- --ignored --nocapture`
#[test]
#[ignore = "scale run, several seconds in release mode"]
fn slot_ring_12_scale() {
    let n: usize = std::env::var("RING_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(12);
    let r = Checker::new()
        .determinism_check(false)
        .check(r#"G !"DEADLOCK""#, SlotRing::new(n), dummies![Msg])
        .unwrap();
    eprintln!("{r}");
    assert!(r.holds(), "{r}");
    if n == 12 {
        assert_eq!(r.stats.product_states, 2_704_156);
    }
}
