//! Counterexamples: numbered steps, the cycle marked, replay on a fresh
//! object, DOT export.

mod common;

use common::ring::{Token, TokenRing};
use common::small::{Chess, Move};
use engine::{check_violated, dummies};

#[test]
fn lasso_display_marks_the_cycle() {
    let c = check_violated(r#"F G "white SEND *""#, Chess::new(), dummies![Move]);
    let text = c.to_string();
    assert!(c.ending.is_none());
    assert!(text.starts_with("counterexample:\n"), "{text}");
    assert!(text.contains("-- cycle starts here --"), "{text}");
    assert!(
        text.contains(&format!("(back to step {}, forever)", c.prefix.len() + 1)),
        "{text}"
    );
    let numbered = text
        .lines()
        .filter(|l| l.trim_start().starts_with(|ch: char| ch.is_ascii_digit()))
        .count();
    assert_eq!(numbered, c.prefix.len() + c.cycle.len(), "{text}");
}

#[test]
fn replay_prints_the_state_after_each_step() {
    let ring = TokenRing::new(3);
    let c = check_violated(r#"F G !"p2 RECV *""#, ring.clone(), dummies![Token]);
    let transcript = c.replay(ring);
    assert!(
        transcript.starts_with("initial: TokenRing { n: 3, holder: 0, in_transit: false }"),
        "{transcript}"
    );
    assert!(
        transcript.contains(
            "p0 SEND <Token> TO p1\n      TokenRing { n: 3, holder: 0, in_transit: true }"
        ),
        "{transcript}"
    );
    assert!(transcript.contains("(back to step"), "{transcript}");
}

#[test]
#[should_panic(expected = "replay diverged from the counterexample")]
fn replay_on_another_object_fails_loudly() {
    let c = check_violated(r#"F G !"p2 RECV *""#, TokenRing::new(3), dummies![Token]);
    // A ring of four: p2 passes the token to p3, not p0, so the cycle does
    // not close.
    c.replay(TokenRing::new(4));
}

#[test]
fn dot_export() {
    let c = check_violated(r#"F G !"p2 RECV *""#, TokenRing::new(3), dummies![Token]);
    let dot = c.to_dot();
    assert!(dot.starts_with("digraph counterexample {"), "{dot}");
    assert!(dot.contains("label=\"1. p0 SEND <Token> TO p1\""), "{dot}");
    assert!(
        dot.contains("style=dashed"),
        "the back edge of the cycle: {dot}"
    );
    assert!(dot.trim_end().ends_with('}'));
}

#[test]
fn a_safety_violation_stops_at_the_bad_step() {
    let c = check_violated(r#"G !"p2 RECV *""#, TokenRing::new(3), dummies![Token]);
    assert_eq!(c.ending, Some(engine::Ending::AnyContinuation));
    assert!(c.cycle.is_empty());
    assert_eq!(c.prefix.len(), 4, "{c}");
    let text = c.to_string();
    assert!(text.contains("   4. p2 RECV <Token> FROM p1"), "{text}");
    assert!(
        text.contains("then, whatever happens next, the property is already violated"),
        "{text}"
    );
    c.replay(TokenRing::new(3));
}
