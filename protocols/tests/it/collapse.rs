//! The collapse store on the objects of the spec language:
//! the strict and liberal objects write their state as bytes
//! ([`Protocol::encode`]) and are rebuilt from them exactly
//! ([`Protocol::decode`]); a check that stores states as those bytes gives
//! the verdicts, counts and counterexamples of the one that stores
//! objects; a state holding what bytes cannot rebuild (a payload) writes
//! none and is kept as its object.

use crate::common;

use engine::{Checker, Message, Protocol, Report, Semantics, Verdict};
use proptest::prelude::*;
use protocols::{bundled, Liberal, Strict};

/// Up to `limit` states reachable from `p` (breadth-first, by probing as
/// the engine does, with the object's own dummies), `p` first.
fn reachable_states<P: Protocol>(p: &P, limit: usize) -> Vec<P> {
    let dummies = common::dummies(p);
    let mut seen = vec![p.clone()];
    let mut i = 0;
    while i < seen.len() && seen.len() < limit {
        for (_, q) in common::successors(&seen[i], &dummies) {
            if seen.len() < limit && !seen.contains(&q) {
                seen.push(q);
            }
        }
        i += 1;
    }
    seen
}

/// Every state: writes bytes, is rebuilt equal from them by the initial
/// object, and the rebuilt one writes the same bytes and behaves the same
/// (the same successors, in the same order). Distinct states write
/// distinct bytes.
fn round_trips<P: Protocol + std::fmt::Debug>(
    initial: &P,
    states: &[P],
) -> Result<(), TestCaseError> {
    let dummies = common::dummies(initial);
    let mut all = std::collections::HashMap::new();
    for s in states {
        let mut bytes = Vec::new();
        prop_assert!(s.encode(&mut bytes), "{:?} wrote no bytes", s);
        let back = initial.decode(&bytes);
        prop_assert_eq!(back.as_ref(), Some(s), "bytes {:?}", bytes);
        let back = back.unwrap();
        let mut again = Vec::new();
        prop_assert!(back.encode(&mut again));
        prop_assert_eq!(&again, &bytes);
        let labels = |p: &P| {
            common::successors(p, &dummies)
                .into_iter()
                .map(|(l, q)| (l, format!("{q:?}")))
                .collect::<Vec<_>>()
        };
        prop_assert_eq!(labels(&back), labels(s));
        if let Some(other) = all.insert(bytes.clone(), s.clone()) {
            prop_assert_eq!(&other, s, "two states wrote {:?}", bytes);
        }
        // Bytes that are not an encoding are refused, not rebuilt into a
        // broken object: cut short, or one byte too many.
        if let Some((_, cut)) = bytes.split_last() {
            if let Some(q) = initial.decode(cut) {
                prop_assert!(q != *s);
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Random reachable states of random specifications, for the compiled
    /// strict object, the one built on the fly and the liberal one.
    #[test]
    fn encode_and_decode_round_trip_on_random_reachable_states(
        spec in common::gen::spec(),
        runtime in 0..3u8,
    ) {
        let lts = common::gen::compile_or_skip(&spec)?;
        prop_assume!(!lts.type_names().is_empty());
        match runtime {
            0 => {
                let p = Strict::new(lts);
                round_trips(&p, &reachable_states(&p, 300))?;
            }
            1 => {
                let p = common::gen::liberal_or_skip(lts)?;
                round_trips(&p, &reachable_states(&p, 300))?;
            }
            _ => {
                let p = Strict::on_the_fly(&spec).expect("compiles, so builds on the fly");
                round_trips(&p, &reachable_states(&p, 300))?;
            }
        }
    }
}

#[test]
fn decode_refuses_bytes_that_are_no_encoding() {
    let s = protocols::chess::strict();
    let l = protocols::tic_tac_toe::spec().liberal().unwrap();
    // A state number past the LTS, an unfinished number, a partial record.
    assert!(s.decode(&[0xff, 0xff, 0xff, 0x7f]).is_none());
    assert!(s.decode(&[0x80]).is_none());
    assert!(s.decode(&[]).is_none());
    // A number in a longer form than its shortest: two byte strings must
    // never name one state.
    assert!(s.decode(&[0x80, 0x00]).is_none());
    assert!(l.decode(&[]).is_none());
    let mut b = Vec::new();
    assert!(l.encode(&mut b));
    assert_eq!(l.decode(&b).as_ref(), Some(&l));
    b[0] = 0xff;
    assert!(l.decode(&b).is_none(), "a local state past the role's");
}

#[test]
fn a_state_holding_a_payload_writes_no_bytes() {
    let mut s = protocols::chess::strict();
    let mut b = Vec::new();
    assert!(s.encode(&mut b));
    s.try_send(0, 1, Message::named("Move", 7)).unwrap();
    assert!(!s.encode(&mut Vec::new()));
    s.try_recv(1, None).unwrap();
    let mut after = Vec::new();
    assert!(s.encode(&mut after), "nothing kept: bytes again");

    let mut l = protocols::tic_tac_toe::spec().liberal().unwrap();
    l.try_send(1, 0, Message::named("Move", 5)).unwrap();
    assert!(!l.encode(&mut Vec::new()));
    let mut d = protocols::tic_tac_toe::spec().liberal().unwrap();
    d.try_send(1, 0, Message::named("Move", ())).unwrap();
    assert!(
        d.encode(&mut Vec::new()),
        "a dummy is rebuilt from its type"
    );
}

fn check<P: Protocol>(p: &P, formula: &str, collapse: bool, dummies: Vec<Message>) -> Report {
    Checker::new()
        .collapse(collapse)
        .threads(1)
        .determinism_check(true)
        .max_states(200_000)
        .progress(false)
        .check(formula, p.clone(), dummies)
        .unwrap_or_else(|e| panic!("{formula}: {e}"))
}

/// The verdict (a counterexample in full), the counts.
fn outcome(r: &Report) -> (String, u64, u64, u64) {
    let v = match &r.verdict {
        Verdict::Violated(c) => format!("violated:\n{c}"),
        v => format!("{v:?}"),
    };
    let s = &r.stats;
    (v, s.product_states, s.transitions, s.protocol_states)
}

const FORMULAS: [&str; 4] = [
    r#"G !"DEADLOCK""#,
    r#"F "END""#,
    r#"G F "* SEND *""#,
    r#"G ("* SEND *" -> F "* RECV *")"#,
];

/// Every bundled protocol (small instances) × a few formulas, strict and
/// liberal, under the determinism check (which decodes every state the
/// collapse store interns and compares it with the object): the same
/// verdicts, counterexamples and counts with the states stored as bytes
/// as with the objects stored.
#[test]
fn collapse_and_object_stores_agree_on_the_bundled_protocols() {
    let mut compared = 0;
    for info in bundled::list() {
        let name = common::small_instance(&info, 3);
        let lts = bundled::by_name(&name).unwrap();
        let strict = Strict::new(lts.clone());
        let liberal = Liberal::try_new(lts).ok();
        for f in FORMULAS {
            let (a, b) = (
                check(&strict, f, true, vec![]),
                check(&strict, f, false, vec![]),
            );
            assert_eq!(outcome(&a), outcome(&b), "{name} strict: {f}");
            compared += 1;
            if let Some(l) = &liberal {
                let (a, b) = (check(l, f, true, vec![]), check(l, f, false, vec![]));
                if matches!(a.verdict, Verdict::Inconclusive { .. }) {
                    continue;
                }
                assert_eq!(outcome(&a), outcome(&b), "{name} liberal: {f}");
                compared += 1;
            }
        }
    }
    assert!(compared > 40, "{compared}");
}

/// With dummies of the user's own types (kept beside as messages, which
/// bytes cannot rebuild), the states holding them are kept as objects in
/// the collapse store, the others as bytes: the same verdicts and counts,
/// and the collapse store is in use (a state without bytes sends the
/// parallel search back to one thread, with the collapse store, and the
/// report says so).
///
/// The objects prefer to be stored whole by default (they are compact
/// already): without `collapse(true)` the safety search runs on the
/// threads asked for.
#[test]
fn states_that_write_no_bytes_are_kept_as_objects() {
    #[derive(Clone, Debug)]
    struct Move;
    let chess = protocols::chess::strict();
    for f in FORMULAS {
        let a = check(&chess, f, true, engine::dummies![Move]);
        let b = check(&chess, f, false, engine::dummies![Move]);
        assert_eq!(outcome(&a), outcome(&b), "{f}");
    }
    let r = Checker::new()
        .collapse(true)
        .threads(2)
        .determinism_check(false)
        .progress(false)
        .check(r#"G !"DEADLOCK""#, chess, engine::dummies![Move])
        .unwrap();
    assert!(r.holds(), "{r}");
    assert!(
        r.stats
            .single_thread
            .as_deref()
            .is_some_and(|w| w.contains("collapse")),
        "{:?}",
        r.stats.single_thread
    );
}

/// The strict object built on the fly (whose state numbers grow as it
/// meets states) collapses too, and agrees with its stored objects, with
/// and without partial-order reduction (its lists of successors).
#[test]
fn on_the_fly_objects_collapse_and_agree() {
    for name in ["npb-cg-concurrent:3", "two-buyer", "chess"] {
        let spec = bundled::spec_by_name(name).unwrap();
        let p = Strict::on_the_fly(&spec).unwrap();
        for f in FORMULAS {
            for por in [false, true] {
                let run = |collapse: bool| {
                    Checker::new()
                        .collapse(collapse)
                        .partial_order(por)
                        .threads(1)
                        .determinism_check(true)
                        .semantics(Semantics::Stutter)
                        .progress(false)
                        .check(f, p.clone(), vec![])
                        .unwrap_or_else(|e| panic!("{name} {f}: {e}"))
                };
                assert_eq!(
                    outcome(&run(true)),
                    outcome(&run(false)),
                    "{name} {f} por={por}"
                );
            }
        }
    }
}

/// By default the strict and liberal objects are stored whole (they
/// prefer it: `Protocol::prefers_bytes`), and a safety search runs on the
/// threads asked for; `collapse(true)` stores bytes, on the same threads
/// (they hand over bytes), with the same verdict and counts.
#[test]
fn compact_objects_are_stored_whole_by_default() {
    let lts = bundled::by_name("two-buyer").unwrap();
    let strict = Strict::new(lts.clone());
    let liberal = Liberal::new(lts);
    assert!(!strict.prefers_bytes() && !liberal.prefers_bytes());
    let run = |collapse: Option<bool>| {
        let c = Checker::new()
            .threads(2)
            // Parallel from the first level: the spec is small.
            .parallel_level(1)
            .determinism_check(false)
            .progress(false);
        let c = match collapse {
            Some(on) => c.collapse(on),
            None => c,
        };
        c.check(r#"G !"DEADLOCK""#, strict.clone(), vec![]).unwrap()
    };
    let (default, bytes) = (run(None), run(Some(true)));
    assert_eq!(default.stats.single_thread, None, "{default}");
    assert_eq!(default.stats.threads, 2);
    assert_eq!(bytes.stats.single_thread, None, "{bytes}");
    assert_eq!(bytes.stats.threads, 2);
    assert_eq!(outcome(&default).0, outcome(&bytes).0);
    assert_eq!(default.stats.product_states, bytes.stats.product_states);
}
