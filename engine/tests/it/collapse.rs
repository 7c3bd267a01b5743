//! The collapse store (`Protocol::encode`/`decode`, `Checker::collapse`):
//! objects that write themselves as bytes are stored as those bytes. Exact:
//! the same states, transitions and verdicts as the object store, on the
//! benchmark's `ring` and `star` (whose `Message`-holding objects encode
//! themselves); a codec that loses a state is a contract error under the
//! determinism check, never a verdict. Also what the benchmark's `ring`
//! costs the search besides its bytes: its listing of enabled actions,
//! verified against probing, and the clones a probed search makes.

#[allow(dead_code)]
use testkit::models;

use crate::common;

use common::wrapped::{Counts, Wrapped};
use engine::{dummies, Checker, Error, Message, Protocol, Refused, RoleId, Verdict};
use models::{Probed, Ring, Star, Token};

fn checker(collapse: bool) -> Checker {
    Checker::new()
        .collapse(collapse)
        .hash_compaction(false)
        .determinism_check(true)
        .progress(false)
}

/// The collapse store as release builds run it: no determinism check, so
/// a state found again is taken by its bytes alone.
fn unchecked_collapse() -> Checker {
    checker(true).determinism_check(false)
}

/// Safety (breadth-first), liveness (depth-first), holding and violated.
fn formulas(first: &str, second: &str) -> Vec<String> {
    vec![
        r#"G !"DEADLOCK""#.to_string(),
        format!(r#"G ("{first} SEND *" -> F "{second} RECV *")"#),
        format!(r#"G F "{second} RECV *""#),
        format!(r#"F G !"{first} SEND *""#),
        format!(r#"G !("{first} SEND *" & X "{second} SEND *")"#),
        format!(r#"!"{second} RECV *" U "{first} SEND *""#),
    ]
}

fn agree<P: Protocol + std::fmt::Debug>(obj: P, formulas: &[String]) {
    for f in formulas {
        let whole = checker(false)
            .check(f, obj.clone(), dummies![Token])
            .unwrap();
        // Under the determinism check every new state's bytes are decoded
        // and must give the state back.
        let bytes = checker(true)
            .check(f, obj.clone(), dummies![Token])
            .unwrap();
        let unchecked = unchecked_collapse()
            .check(f, obj.clone(), dummies![Token])
            .unwrap();
        for bytes in [&bytes, &unchecked] {
            let (a, b) = (&whole.stats, &bytes.stats);
            assert_eq!(a.product_states, b.product_states, "{f}\n{whole}\n{bytes}");
            assert_eq!(a.transitions, b.transitions, "{f}");
            assert_eq!(a.protocol_states, b.protocol_states, "{f}");
            match (&whole.verdict, &bytes.verdict) {
                (Verdict::Holds, Verdict::Holds) => {}
                (Verdict::Violated(x), Verdict::Violated(y)) => {
                    assert_eq!(x.to_string(), y.to_string(), "{f}");
                    y.replay(obj.clone());
                }
                (x, y) => panic!("{f}: objects {x:?}, bytes {y:?}"),
            }
        }
    }
}

#[test]
fn the_ring_and_the_star_as_bytes_give_the_same_search() {
    let ring = Ring::new(5);
    let mut bytes = Vec::new();
    assert!(ring.encode(&mut bytes));
    assert_eq!(bytes.len(), 2, "two bits a role");
    agree(ring, &formulas("r0", "r1"));
    agree(Star::new(4), &formulas("hub", "leaf2"));
}

/// A counter whose bytes forget the lowest bit: 0 and 1 (2 and 3) share
/// bytes. Stored by those, the search would merge them and never see the
/// close that only 3 allows.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Lossy(u8);

impl Protocol for Lossy {
    fn roles(&self) -> Vec<String> {
        vec!["a".into(), "b".into()]
    }
    fn try_send(&mut self, _: RoleId, to: RoleId, m: Message) -> Result<(), Refused<Message>> {
        if to == 1 && self.0 < 3 {
            self.0 += 1;
            Ok(())
        } else {
            Err(Refused(m))
        }
    }
    fn try_recv(&mut self, _: RoleId, _: Option<RoleId>) -> Result<(RoleId, Message), Refused> {
        Err(Refused(()))
    }
    fn try_close(&mut self, role: RoleId, to: RoleId) -> Result<(), Refused> {
        if role == 0 && to == 1 && self.0 == 3 {
            self.0 = 9;
            Ok(())
        } else {
            Err(Refused(()))
        }
    }
    fn encode(&self, out: &mut Vec<u8>) -> bool {
        out.push(self.0 / 2);
        true
    }
    fn decode(&self, bytes: &[u8]) -> Option<Lossy> {
        Some(Lossy(bytes.first()? * 2))
    }
}

#[test]
fn a_codec_that_merges_states_is_a_contract_error() {
    let f = r#"G !"a CLOSE *""#;
    let exact = checker(false).check(f, Lossy(0), dummies![Token]).unwrap();
    assert!(exact.counterexample().is_some(), "{exact}");
    match checker(true).check(f, Lossy(0), dummies![Token]) {
        Err(e @ Error::Contract { .. }) => {
            let text = e.to_string();
            assert!(
                text.contains("decode(encode(x)) did not give back x"),
                "{text}"
            );
        }
        other => panic!("{other:?}"),
    }
}

/// A counter of `0..=limit` whose bytes are a varint: one byte below 128,
/// two from there on. The collapse store keeps no end offsets while every
/// key has one width; the first wider key must not lose the states stored
/// before it (each is found again, none is stored twice).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Varint {
    n: u16,
    limit: u16,
}

impl Protocol for Varint {
    fn roles(&self) -> Vec<String> {
        vec!["a".into(), "b".into()]
    }
    fn try_send(&mut self, role: RoleId, _: RoleId, m: Message) -> Result<(), Refused<Message>> {
        // a counts up, b counts down: every state is reached again from
        // above and from below, across the change of width.
        match role {
            0 if self.n < self.limit => self.n += 1,
            1 if self.n > 0 && self.n.is_multiple_of(3) => self.n -= 1,
            _ => return Err(Refused(m)),
        }
        Ok(())
    }
    fn try_recv(&mut self, _: RoleId, _: Option<RoleId>) -> Result<(RoleId, Message), Refused> {
        Err(Refused(()))
    }
    fn is_terminated(&self) -> bool {
        self.n == self.limit
    }
    fn encode(&self, out: &mut Vec<u8>) -> bool {
        if self.n < 128 {
            out.push(self.n as u8);
        } else {
            out.extend_from_slice(&[0x80 | (self.n & 0x7f) as u8, (self.n >> 7) as u8]);
        }
        true
    }
    fn decode(&self, bytes: &[u8]) -> Option<Varint> {
        let n = match *bytes {
            [b] if b < 128 => u16::from(b),
            [lo, hi] if lo >= 128 && hi > 0 => u16::from(lo & 0x7f) | u16::from(hi) << 7,
            _ => return None,
        };
        Some(Varint { n, ..*self })
    }
}

#[test]
fn keys_of_several_widths_are_stored_apart_and_found_again() {
    let start = Varint { n: 0, limit: 300 };
    for f in [r#"G !"DEADLOCK""#, r#"F G !"b SEND *""#, r#"G !"END""#] {
        let whole = checker(false)
            .check(f, start.clone(), dummies![Token])
            .unwrap();
        assert_eq!(whole.stats.protocol_states, 301, "{whole}");
        for c in [checker(true), unchecked_collapse()] {
            let bytes = c.check(f, start.clone(), dummies![Token]).unwrap();
            assert_eq!(
                whole.stats.protocol_states, bytes.stats.protocol_states,
                "{f}"
            );
            assert_eq!(whole.stats.transitions, bytes.stats.transitions, "{f}");
            assert_eq!(
                format!("{:?}", whole.verdict),
                format!("{:?}", bytes.verdict),
                "{f}"
            );
        }
    }
}

/// The benchmark's `ring` lists its enabled actions (`Protocol::enabled`):
/// under the determinism check the engine compares the list with what
/// probing finds in every state (a wrong list is a contract error), and
/// the search is the probed one, state for state.
#[test]
fn the_ring_lists_what_probing_finds() {
    for f in formulas("r0", "r2") {
        let listed = checker(true)
            .check(&f, Ring::new(5), dummies![Token])
            .unwrap();
        let probed = checker(true)
            .check(&f, Probed(Ring::new(5)), dummies![Token])
            .unwrap();
        let (a, b) = (&listed.stats, &probed.stats);
        assert_eq!(
            a.product_states, b.product_states,
            "{f}\n{listed}\n{probed}"
        );
        assert_eq!(a.transitions, b.transitions, "{f}");
        assert_eq!(
            format!("{:?}", listed.verdict),
            format!("{:?}", probed.verdict),
            "{f}"
        );
    }
}

/// A probed breadth-first search clones the object about once per
/// successor: the scratch is cloned when a probe needs it, and a role
/// with one sender gets no `try_recv(from: None)` pre-probe (whose success
/// cost a fresh clone). Before, every receive made two clones and every
/// state one more after its last successor: states + transitions +
/// receives in all.
#[test]
fn a_probed_search_clones_about_once_a_successor() {
    // Every copy counted as a clone, `clone_from` too; equality and hash
    // are the ring's.
    let counts = Counts::clones();
    let ring = Wrapped::new(Probed(Ring::new(6)), counts.clone());
    let r = Checker::new()
        .collapse(false)
        .hash_compaction(false)
        .determinism_check(false)
        .threads(1)
        .progress(false)
        .check(r#"G !"DEADLOCK""#, ring, dummies![Token])
        .unwrap();
    assert!(r.holds(), "{r}");
    let (states, transitions) = (r.stats.protocol_states, r.stats.transitions);
    assert_eq!(states, Ring::expected_states(6));
    let made = counts.made();
    // A few clones of the initial object besides (sessions keep one).
    assert!(
        made <= transitions + states + 8,
        "{made} clones for {states} states and {transitions} transitions"
    );
}

/// The collapse store on `n` threads, every level shared (however small),
/// as release builds run it (no determinism check, which keeps a search
/// on one thread).
fn on_threads(n: usize) -> Checker {
    unchecked_collapse()
        .threads(n)
        .parallel_level(1)
        .max_memory(u64::MAX)
}

/// Safety formulas (the ones searched in parallel), holding and violated.
fn safety(first: &str, second: &str) -> Vec<String> {
    vec![
        r#"G !"DEADLOCK""#.to_string(),
        format!(r#"G !("{first} SEND *" & X "{second} SEND *")"#),
        format!(r#"G ("{first} SEND *" -> X !"{second} RECV *")"#),
        format!(r#"G !"{second} RECV *""#),
    ]
}

/// On `threads` threads over bytes: the one-thread collapse search's
/// verdict, counterexample text and counts, and the threads really used.
fn parallel_agrees<P: Protocol + std::fmt::Debug>(obj: P, formulas: &[String]) {
    for f in formulas {
        let one = on_threads(1)
            .check(f, obj.clone(), dummies![Token])
            .unwrap();
        for n in [2, 3] {
            let r = on_threads(n)
                .check(f, obj.clone(), dummies![Token])
                .unwrap();
            assert_eq!(r.stats.threads, n as u32, "{f}: {r}");
            assert_eq!(r.stats.single_thread, None, "{f}");
            assert_eq!(
                format!("{:?}", r.verdict),
                format!("{:?}", one.verdict),
                "{f}, {n} threads"
            );
            if let Some(c) = r.counterexample() {
                assert_eq!(
                    Some(c.to_string()),
                    one.counterexample().map(|c| c.to_string())
                );
                c.replay(obj.clone());
            } else {
                let (a, b) = (&one.stats, &r.stats);
                assert_eq!(a.product_states, b.product_states, "{f}");
                assert_eq!(a.transitions, b.transitions, "{f}");
                assert_eq!(a.protocol_states, b.protocol_states, "{f}");
            }
            assert_eq!(one.stats.max_depth, r.stats.max_depth, "{f}");
        }
    }
}

/// Objects that write themselves as bytes are searched on every thread
/// asked for (no object crosses a thread: bytes do), with the one-thread
/// search's verdicts, counterexamples and counts; keys of several widths
/// (the varint) too.
#[test]
fn encoding_objects_are_searched_on_every_thread_as_bytes() {
    parallel_agrees(Ring::new(5), &safety("r0", "r2"));
    parallel_agrees(Star::new(3), &safety("hub", "leaf1"));
    parallel_agrees(
        Varint { n: 0, limit: 300 },
        &[r#"G !"DEADLOCK""#.to_string(), r#"G !"END""#.to_string()],
    );
}

/// A counter that writes bytes below `from` and none from there on (the
/// one-thread collapse store keeps those states as objects).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Partly {
    n: u16,
    from: u16,
}

impl Protocol for Partly {
    fn roles(&self) -> Vec<String> {
        vec!["a".into(), "b".into()]
    }
    fn try_send(&mut self, role: RoleId, _: RoleId, m: Message) -> Result<(), Refused<Message>> {
        match role {
            0 if self.n < 50 => self.n += 1,
            1 if self.n > 0 && self.n.is_multiple_of(2) => self.n -= 2,
            _ => return Err(Refused(m)),
        }
        Ok(())
    }
    fn try_recv(&mut self, _: RoleId, _: Option<RoleId>) -> Result<(RoleId, Message), Refused> {
        Err(Refused(()))
    }
    fn encode(&self, out: &mut Vec<u8>) -> bool {
        out.extend_from_slice(&self.n.to_le_bytes());
        self.n < self.from
    }
    fn decode(&self, bytes: &[u8]) -> Option<Partly> {
        let n = u16::from_le_bytes(bytes.try_into().ok()?);
        Some(Partly { n, ..*self })
    }
}

/// A state that writes no bytes, or bytes that do not decode to it, sends
/// a search over bytes back to one thread (the collapse store, which does
/// not decode), and the report says why: the same verdict, counterexample
/// and counts as one thread, never a verdict of the broken codec's.
#[test]
fn states_bytes_cannot_carry_are_searched_on_one_thread_and_said() {
    for (f, from) in [
        (r#"G !"DEADLOCK""#, 20),
        (r#"G !"b SEND *" | G !"a SEND *""#, 2),
    ] {
        let start = Partly { n: 0, from };
        let one = on_threads(1)
            .check(f, start.clone(), dummies![Token])
            .unwrap();
        let two = on_threads(2)
            .check(f, start.clone(), dummies![Token])
            .unwrap();
        assert_eq!(two.stats.threads, 1, "{two}");
        let why = two.stats.single_thread.clone().unwrap_or_default();
        assert!(why.contains("wrote no bytes"), "{why}");
        assert_eq!(format!("{:?}", two.verdict), format!("{:?}", one.verdict));
        assert_eq!(two.stats.product_states, one.stats.product_states, "{f}");
        assert_eq!(two.stats.transitions, one.stats.transitions, "{f}");
        assert!(two.to_string().contains("searched on one thread"), "{two}");
    }
    // Bytes that lose a state: the one-thread store merges states by them
    // (the determinism check would say so), the parallel search does not
    // decode them into a different search.
    let f = r#"G !"a CLOSE *""#;
    let one = on_threads(1).check(f, Lossy(0), dummies![Token]).unwrap();
    let two = on_threads(2).check(f, Lossy(0), dummies![Token]).unwrap();
    assert_eq!(two.stats.threads, 1, "{two}");
    let why = two.stats.single_thread.clone().unwrap_or_default();
    assert!(why.contains("decode"), "{why}");
    assert_eq!(format!("{:?}", two.verdict), format!("{:?}", one.verdict));
}
