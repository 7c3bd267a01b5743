//! Hash compaction (`Checker::hash_compaction`): the search stores 64-bit
//! fingerprints and keeps objects only while it holds them. Without a
//! collision it must do exactly what the exact search does (same states,
//! same transitions, same verdicts); a property that holds is never a
//! plain "holds"; a violation is re-executed on the object; and a collision
//! the store can see makes the bound 1, not a proof.

use crate::common;

use std::hash::{Hash, Hasher};

use common::ring::{Msg, SlotRing, Token, TokenRing};
use common::small::{Chess, Move};
use engine::{dummies, Checker, Message, Protocol, Refused, RoleId, Semantics, Verdict};

fn checker(compact: bool) -> Checker {
    Checker::new()
        .hash_compaction(compact)
        .determinism_check(true)
        .progress(false)
}

/// Safety formulas (the breadth-first search) and liveness ones (the
/// depth-first Couvreur search), holding and violated, on the slot ring.
const RING_FORMULAS: [&str; 6] = [
    r#"G !"DEADLOCK""#,
    r#"G ("r0 SEND *" -> F "r1 RECV *")"#,
    r#"G F "r2 RECV *""#,
    r#"F G !"r1 SEND *""#,
    r#"G !("r0 SEND *" & X "r1 SEND *")"#,
    r#"!"r1 RECV *" U "r0 SEND *""#,
];

/// The same search, state for state: without collisions (a few thousand
/// 64-bit fingerprints) hash compaction changes what is stored, not what is
/// explored, so the counts agree exactly and only the wording of a verdict
/// that holds differs. Both semantics; with and without partial-order
/// reduction (the ring declares none, so that is the full search either way).
#[test]
fn the_same_states_transitions_and_verdicts_as_the_exact_search() {
    let ring = SlotRing::new(7); // C(14, 7) = 3432 states
    for semantics in [Semantics::Stutter, Semantics::InfiniteRunsOnly] {
        for f in RING_FORMULAS {
            let exact = checker(false)
                .semantics(semantics)
                .check(f, ring.clone(), dummies![Msg])
                .unwrap();
            let compact = checker(true)
                .semantics(semantics)
                .check(f, ring.clone(), dummies![Msg])
                .unwrap();
            let (e, c) = (&exact.stats, &compact.stats);
            assert_eq!(
                e.product_states, c.product_states,
                "{f}\n{exact}\n{compact}"
            );
            assert_eq!(e.transitions, c.transitions, "{f}\n{exact}\n{compact}");
            assert_eq!(e.protocol_states, c.protocol_states, "{f}");
            assert!(!e.hash_compaction && c.hash_compaction);
            match (&exact.verdict, &compact.verdict) {
                // Product states in the breadth-first search (which
                // stores nothing else), protocol states in the depth-first
                // one.
                (Verdict::Holds, Verdict::HoldsProbabilistic { fingerprints, .. }) => {
                    assert!(
                        *fingerprints == c.product_states || *fingerprints == c.protocol_states,
                        "{f}\n{compact}"
                    )
                }
                (Verdict::Violated(a), Verdict::Violated(b)) => {
                    // The same search finds the same counterexample, and it
                    // is a run of the object.
                    assert_eq!(a.to_string(), b.to_string(), "{f}");
                    b.replay(ring.clone());
                }
                (a, b) => panic!("{f}: exact {a:?}, compacted {b:?}"),
            }
        }
    }
}

/// The wording: "holds (probabilistic: hash compaction)" with the bound,
/// never "property holds:"; `holds()` is false (code asking for a proof does
/// not get one) while `holds_probabilistically()` and `assert_holds` (the
/// caller asked for compaction) accept it.
#[test]
fn a_property_that_holds_is_said_to_hold_probabilistically() {
    let r = checker(true)
        .check(r#"G F "p2 RECV *""#, TokenRing::new(4), dummies![Token])
        .unwrap();
    let text = r.to_string();
    assert!(
        text.starts_with("property holds (probabilistic: hash compaction): G F"),
        "{text}"
    );
    assert!(!text.contains("property holds:"), "{text}");
    assert!(
        text.contains("not a proof") && text.contains("n²/2^65"),
        "{text}"
    );
    assert!(!r.holds() && r.holds_probabilistically(), "{text}");
    let Verdict::HoldsProbabilistic {
        fingerprints,
        omission_bound,
    } = r.verdict
    else {
        panic!("{text}")
    };
    assert_eq!(fingerprints, 8, "4 holders × token in transit or not");
    let n = fingerprints as f64;
    assert_eq!(omission_bound, n * n / 2f64.powi(65));
    assert!(text.contains(&format!("{omission_bound:.1e}")), "{text}");
    checker(true).assert_holds(r#"G !"DEADLOCK""#, TokenRing::new(4), dummies![Token]);
    // Without compaction: a proof, said plainly.
    let r = checker(false)
        .check(r#"G F "p2 RECV *""#, TokenRing::new(4), dummies![Token])
        .unwrap();
    assert!(
        r.holds() && r.to_string().starts_with("property holds: "),
        "{r}"
    );
}

/// Violations under compaction are real runs, replayed and shortest as
/// before, whichever search finds them.
#[test]
fn violations_are_real_runs() {
    for f in [
        r#"F "END""#,
        r#"G !"black SEND *""#,
        r#"F G !"white SEND *""#,
    ] {
        let r = checker(true)
            .check(f, Chess::new(), dummies![Move])
            .unwrap();
        let c = r.counterexample().unwrap_or_else(|| panic!("{f}: {r}"));
        c.replay(Chess::new());
        assert!(
            r.to_string().contains("hash compaction: states stored"),
            "{r}"
        );
    }
}

/// A session under compaction: its initial object outlives each search,
/// and later formulas find what the first one dropped.
#[test]
fn a_session_checks_formula_after_formula() {
    let mut s = checker(true)
        .session(SlotRing::new(5), dummies![Msg])
        .unwrap();
    for f in RING_FORMULAS.iter().chain(&RING_FORMULAS) {
        let r = s.check(f).unwrap();
        let exact = checker(false)
            .check(f, SlotRing::new(5), dummies![Msg])
            .unwrap();
        assert_eq!(r.stats.product_states, exact.stats.product_states, "{f}");
        assert_eq!(r.holds_probabilistically(), exact.holds(), "{f}\n{r}");
    }
}

/// A counter to 3 whose `Hash` ignores the count: every state has the
/// fingerprint of the initial one. (`Eq` is honest, so the exact search is
/// right.)
#[derive(Clone, Debug, PartialEq, Eq)]
struct Blind {
    n: u8,
}

impl Hash for Blind {
    fn hash<H: Hasher>(&self, _: &mut H) {}
}

impl Protocol for Blind {
    fn roles(&self) -> Vec<String> {
        vec!["a".into(), "b".into()]
    }
    fn try_send(&mut self, _: RoleId, to: RoleId, m: Message) -> Result<(), Refused<Message>> {
        if to == 1 && self.n < 3 {
            self.n += 1;
            Ok(())
        } else {
            Err(Refused(m))
        }
    }
    fn try_recv(&mut self, _: RoleId, _: Option<RoleId>) -> Result<(RoleId, Message), Refused> {
        Err(Refused(()))
    }
    fn try_close(&mut self, role: RoleId, to: RoleId) -> Result<(), Refused> {
        // Possible only at 2: a step the merged states hide.
        if role == 0 && to == 1 && self.n == 2 {
            self.n = 9;
            Ok(())
        } else {
            Err(Refused(()))
        }
    }
}

/// What compaction risks, made certain: every state collides with the
/// initial one, so the search sees one state and misses the violation two
/// steps away. The verdict is still not "holds", and the collision, which
/// the store saw (both objects were held), makes the bound 1.
#[test]
fn a_collision_seen_makes_the_bound_one() {
    let f = r#"G !"a CLOSE *""#;
    let exact = checker(false)
        .check(f, Blind { n: 0 }, dummies![Msg])
        .unwrap();
    assert!(exact.counterexample().is_some(), "{exact}");
    let r = checker(true)
        .check(f, Blind { n: 0 }, dummies![Msg])
        .unwrap();
    match r.verdict {
        Verdict::HoldsProbabilistic {
            fingerprints,
            omission_bound,
        } => {
            assert_eq!(fingerprints, 1, "{r}");
            assert_eq!(omission_bound, 1.0, "{r}");
        }
        ref v => panic!("{v:?}\n{r}"),
    }
    assert!(r.to_string().contains("at most 1.0e0"), "{r}");
}

/// Limits stay limits under compaction: inconclusive, never holds.
#[test]
fn a_limit_is_inconclusive() {
    let r = checker(true)
        .max_states(100)
        .check(r#"G !"DEADLOCK""#, SlotRing::new(7), dummies![Msg])
        .unwrap();
    assert!(matches!(r.verdict, Verdict::Inconclusive { .. }), "{r}");
}

/// Objects that prefer bytes (the benchmark's `Ring` and `Star`, whose
/// states hold `Message`s) wait in the breadth-first frontier as their
/// bytes, decoded when their state is expanded: the same search as the
/// exact one, with or without the determinism check (which decodes every
/// new state's bytes and compares), and as with the frontier kept as
/// objects (`collapse(false)`: the object's preference overridden).
#[test]
fn a_frontier_kept_as_bytes_searches_what_the_exact_search_does() {
    use testkit::models::{Ring, Star, Token};
    fn agree<P: Protocol + std::fmt::Debug>(obj: P, formulas: &[&str]) {
        for f in formulas {
            let exact = checker(false)
                .check(f, obj.clone(), dummies![Token])
                .unwrap();
            for c in [
                checker(true),
                checker(true).determinism_check(false),
                checker(true).collapse(false),
            ] {
                let compact = c.check(f, obj.clone(), dummies![Token]).unwrap();
                let (e, s) = (&exact.stats, &compact.stats);
                assert_eq!(e.product_states, s.product_states, "{f}\n{compact}");
                assert_eq!(e.transitions, s.transitions, "{f}\n{compact}");
                match (&exact.verdict, &compact.verdict) {
                    (Verdict::Holds, Verdict::HoldsProbabilistic { .. }) => {}
                    (Verdict::Violated(a), Verdict::Violated(b)) => {
                        assert_eq!(a.to_string(), b.to_string(), "{f}");
                        b.replay(obj.clone());
                    }
                    (a, b) => panic!("{f}: exact {a:?}, compacted {b:?}"),
                }
            }
        }
    }
    let safety = [
        r#"G !"DEADLOCK""#,
        r#"G !("r0 SEND *" & X "r1 SEND *")"#,
        r#"G !("r2 SEND *" & X "r3 RECV *")"#,
    ];
    agree(Ring::new(6), &safety);
    agree(
        Star::new(4),
        &[
            r#"G !"DEADLOCK""#,
            r#"G !("hub SEND *" & X "leaf1 RECV *")"#,
        ],
    );
}

/// A counter `0..=5` whose bytes lose states: they halve it (two states
/// share bytes); `mute`, its `decode` takes no bytes at all.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Codec {
    n: u8,
    mute: bool,
}

impl Protocol for Codec {
    fn roles(&self) -> Vec<String> {
        vec!["a".into(), "b".into()]
    }
    fn try_send(&mut self, role: RoleId, _: RoleId, m: Message) -> Result<(), Refused<Message>> {
        if role == 0 && self.n < 5 {
            self.n += 1;
            Ok(())
        } else {
            Err(Refused(m))
        }
    }
    fn try_recv(&mut self, _: RoleId, _: Option<RoleId>) -> Result<(RoleId, Message), Refused> {
        Err(Refused(()))
    }
    fn is_terminated(&self) -> bool {
        self.n == 5
    }
    fn encode(&self, out: &mut Vec<u8>) -> bool {
        out.push(self.n / 2);
        true
    }
    fn decode(&self, bytes: &[u8]) -> Option<Codec> {
        let n = bytes.first()? * 2;
        (!self.mute).then_some(Codec { n, ..*self })
    }
}

/// A frontier kept as bytes trusts `decode(encode(x)) == x`, as the
/// collapse store does: under the determinism check a state that does not
/// come back is a contract error, and bytes that do not decode are one
/// always; never a verdict on states that are not the object's.
#[test]
fn a_codec_that_loses_states_is_a_contract_error_under_compaction() {
    let f = r#"G !"DEADLOCK""#;
    let expect_contract = |r: Result<engine::Report, engine::Error>, what: &str| match r {
        Err(e @ engine::Error::Contract { .. }) => {
            let text = e.to_string();
            assert!(text.contains(what), "{text}");
        }
        other => panic!("{other:?}"),
    };
    let lossy = Codec { n: 0, mute: false };
    expect_contract(
        checker(true).check(f, lossy, dummies![Move]),
        "decode(encode(x)) did not give back x",
    );
    let mute = Codec { n: 0, mute: true };
    for c in [checker(true), checker(true).determinism_check(false)] {
        expect_contract(
            c.check(f, mute.clone(), dummies![Move]),
            "decode gave no object",
        );
    }
    // Kept as objects, the same object is checked as usual.
    let r = checker(true)
        .collapse(false)
        .check(f, Codec { n: 0, mute: true }, dummies![Move])
        .unwrap();
    assert!(r.holds_probabilistically(), "{r}");
    assert_eq!(r.stats.protocol_states, 6, "{r}");
}
