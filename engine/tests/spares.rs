//! Successors made in spare objects: the search keeps the objects it no
//! longer needs (duplicates, expanded states) and makes the next successor
//! by `clone_from` into one of them. A duplicate successor then costs no
//! fresh `clone`; the searches give the same answers as with plain clones
//! on random objects; and a `clone_from` that is wrong or panics is the
//! object's error, never a verdict.

#[allow(dead_code)]
#[path = "../benches/models/mod.rs"]
mod models;

mod common;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use common::{atom_strategy, LtsProtocol};
use engine::{dummies, Checker, Error, Message, Protocol, Refused, RoleId, Verdict};
use models::{Ring, Token};
use proptest::prelude::*;

/// `P` with counts of its `clone`s and `clone_from`s (equality and hash
/// are `P`'s); `clone_from` is `P`'s own, so a `Ring` reuses its vectors.
#[derive(Debug)]
struct Counted<P> {
    p: P,
    clones: Arc<AtomicU64>,
    clone_froms: Arc<AtomicU64>,
}

impl<P: Clone> Clone for Counted<P> {
    fn clone(&self) -> Self {
        self.clones.fetch_add(1, Ordering::Relaxed);
        Counted {
            p: self.p.clone(),
            clones: self.clones.clone(),
            clone_froms: self.clone_froms.clone(),
        }
    }

    fn clone_from(&mut self, source: &Self) {
        self.clone_froms.fetch_add(1, Ordering::Relaxed);
        self.p.clone_from(&source.p);
    }
}

impl<P: PartialEq> PartialEq for Counted<P> {
    fn eq(&self, other: &Self) -> bool {
        self.p == other.p
    }
}
impl<P: Eq> Eq for Counted<P> {}
impl<P: std::hash::Hash> std::hash::Hash for Counted<P> {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.p.hash(h)
    }
}

impl<P: Protocol> Protocol for Counted<P> {
    fn roles(&self) -> Vec<String> {
        self.p.roles()
    }
    fn type_names(&self) -> Vec<String> {
        self.p.type_names()
    }
    fn sends_to(&self, role: RoleId) -> Option<Vec<RoleId>> {
        self.p.sends_to(role)
    }
    fn peers(&self, role: RoleId) -> Option<Vec<RoleId>> {
        self.p.peers(role)
    }
    fn try_send(&mut self, role: RoleId, to: RoleId, m: Message) -> Result<(), Refused<Message>> {
        self.p.try_send(role, to, m)
    }
    fn try_recv(
        &mut self,
        role: RoleId,
        from: Option<RoleId>,
    ) -> Result<(RoleId, Message), Refused> {
        self.p.try_recv(role, from)
    }
    fn enabled(&self, out: &mut Vec<engine::Enabled>) -> bool {
        self.p.enabled(out)
    }
    fn encode(&self, out: &mut Vec<u8>) -> bool {
        self.p.encode(out)
    }
    fn decode(&self, bytes: &[u8]) -> Option<Self> {
        Some(Counted {
            p: self.p.decode(bytes)?,
            clones: self.clones.clone(),
            clone_froms: self.clone_froms.clone(),
        })
    }
}

/// Most successors of a search are states seen before: made in a spare
/// object, they cost no `clone` (before, every successor was one). Under
/// collapse the frontier's expanded objects are spares too, so nearly
/// every successor is made by `clone_from`; the object store keeps each
/// new state's object, so a new state still costs a clone there.
#[test]
fn a_duplicate_successor_costs_no_fresh_clone() {
    for collapse in [true, false] {
        let (clones, clone_froms) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
        let ring = Counted {
            p: Ring::new(6),
            clones: clones.clone(),
            clone_froms: clone_froms.clone(),
        };
        let r = Checker::new()
            .collapse(collapse)
            .hash_compaction(false)
            .determinism_check(false)
            .threads(1)
            .progress(false)
            .check(r#"G !"DEADLOCK""#, ring, dummies![Token])
            .unwrap();
        assert!(r.holds(), "{r}");
        let (states, transitions) = (r.stats.protocol_states, r.stats.transitions);
        assert_eq!(states, Ring::expected_states(6));
        let (made, reused) = (
            clones.load(Ordering::Relaxed),
            clone_froms.load(Ordering::Relaxed),
        );
        assert!(transitions > 3 * states, "{transitions} {states}");
        if collapse {
            assert!(
                made < transitions / 10,
                "collapse: {made} clones for {transitions} successors"
            );
        } else {
            // A few clones of the initial object besides.
            assert!(
                made <= states + 8,
                "objects: {made} clones for {states} states"
            );
        }
        assert!(
            made + reused >= transitions,
            "{made} + {reused} for {transitions}"
        );
    }
}

/// How [`Flags`]' `clone_from` goes wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Fault {
    /// It sets the first flag whatever the source's is: an unequal copy.
    Wrong,
    /// It panics when both flags are set (where `clone` does not).
    Panics,
}

/// Two roles, each toggling its flag by a send (four states), with a
/// `clone_from` that goes wrong.
#[derive(Debug, PartialEq, Eq, Hash)]
struct Flags(Vec<bool>, Fault);

impl Clone for Flags {
    fn clone(&self) -> Self {
        Flags(self.0.clone(), self.1)
    }
    fn clone_from(&mut self, source: &Self) {
        assert!(
            source.1 != Fault::Panics || source.0 != [true, true],
            "cannot copy both flags set"
        );
        self.0.clone_from(&source.0);
        self.1 = source.1;
        if source.1 == Fault::Wrong {
            self.0[0] = true;
        }
    }
}

impl Protocol for Flags {
    fn roles(&self) -> Vec<String> {
        vec!["a".into(), "b".into()]
    }
    fn try_send(&mut self, role: RoleId, _: RoleId, m: Message) -> Result<(), Refused<Message>> {
        if role > 1 {
            return Err(Refused(m));
        }
        self.0[role] = !self.0[role];
        Ok(())
    }
    fn try_recv(&mut self, _: RoleId, _: Option<RoleId>) -> Result<(RoleId, Message), Refused> {
        Err(Refused(()))
    }
}

/// A `clone_from` that makes an unequal copy is reported by the
/// determinism check as the object's contract violation, in both stores,
/// instead of exploring states the object never reaches.
#[test]
fn a_clone_from_that_differs_from_clone_is_a_contract_error() {
    for collapse in [false, true] {
        let r = Checker::new()
            .collapse(collapse)
            .determinism_check(true)
            .threads(1)
            .progress(false)
            .check(
                r#"G !"DEADLOCK""#,
                Flags(vec![false, false], Fault::Wrong),
                dummies![Token],
            );
        let e = r.expect_err("a wrong clone_from is an error");
        let text = e.to_string();
        assert!(text.contains("clone_from"), "{text}");
        assert!(!matches!(e, Error::ObjectPanic { .. }), "{e:?}");
    }
}

/// A `clone_from` that panics (where `clone` does not) is the object's
/// `Clone` panicking, named as such, never a verdict.
#[test]
fn a_panic_in_clone_from_is_an_error_naming_clone() {
    for formula in [r#"G !"DEADLOCK""#, r#"G F "a SEND *""#] {
        let e = Checker::new()
            .determinism_check(false)
            .threads(1)
            .progress(false)
            .check(
                formula,
                Flags(vec![false, false], Fault::Panics),
                dummies![Token],
            )
            .expect_err("a panicking clone_from is an error");
        match &e {
            Error::ObjectPanic {
                operation, message, ..
            } => {
                assert!(operation.starts_with("Clone"), "{operation}");
                assert!(message.contains("cannot copy both flags set"), "{message}");
            }
            e => panic!("{formula}: expected the object's panic, got {e:?}"),
        }
    }
}

/// A random LTS object with a buffer beside its state (derived from it,
/// so part of its identity), and a `clone_from` that reuses the buffer:
/// what the spare objects make.
#[derive(Debug)]
struct Buffered {
    lts: LtsProtocol,
    trail: Vec<usize>,
}

impl Buffered {
    fn new(lts: LtsProtocol) -> Self {
        let trail = vec![lts.state; lts.state % 4 + 1];
        Buffered { lts, trail }
    }
    fn sync(&mut self) {
        self.trail.clear();
        self.trail.resize(self.lts.state % 4 + 1, self.lts.state);
    }
}

impl Clone for Buffered {
    fn clone(&self) -> Self {
        Buffered {
            lts: self.lts.clone(),
            trail: self.trail.clone(),
        }
    }
    fn clone_from(&mut self, source: &Self) {
        self.lts.state = source.lts.state;
        if !Arc::ptr_eq(&self.lts.lts, &source.lts.lts) {
            self.lts = source.lts.clone();
        }
        self.trail.clone_from(&source.trail);
    }
}

impl PartialEq for Buffered {
    fn eq(&self, other: &Self) -> bool {
        self.lts == other.lts && self.trail == other.trail
    }
}
impl Eq for Buffered {}
impl std::hash::Hash for Buffered {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.lts.hash(h);
        self.trail.hash(h);
    }
}

impl Protocol for Buffered {
    fn roles(&self) -> Vec<String> {
        self.lts.roles()
    }
    fn type_names(&self) -> Vec<String> {
        self.lts.type_names()
    }
    fn try_send(&mut self, role: RoleId, to: RoleId, m: Message) -> Result<(), Refused<Message>> {
        self.lts.try_send(role, to, m)?;
        self.sync();
        Ok(())
    }
    fn try_recv(
        &mut self,
        role: RoleId,
        from: Option<RoleId>,
    ) -> Result<(RoleId, Message), Refused> {
        let r = self.lts.try_recv(role, from)?;
        self.sync();
        Ok(r)
    }
    fn try_close(&mut self, role: RoleId, to: RoleId) -> Result<(), Refused> {
        self.lts.try_close(role, to)?;
        self.sync();
        Ok(())
    }
    fn is_terminated(&self) -> bool {
        self.lts.is_terminated()
    }
    fn encode(&self, out: &mut Vec<u8>) -> bool {
        self.lts.encode(out)
    }
    fn decode(&self, bytes: &[u8]) -> Option<Self> {
        self.lts.decode(bytes).map(Buffered::new)
    }
}

fn summary(r: &Result<engine::Report, Error>) -> String {
    match r {
        Ok(r) => format!(
            "{} {} {} {}",
            matches!(r.verdict, Verdict::Holds),
            r.stats.product_states,
            r.stats.transitions,
            r.stats.protocol_states
        ),
        Err(e) => format!("error {e}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// The same verdicts and counts with successors made in spares (a
    /// buffer-reusing `clone_from`) as with the plain object, whose
    /// `clone_from` is a clone, in every store, with and without the
    /// determinism check.
    #[test]
    fn successors_made_in_spares_give_the_plain_search(
        (lts, a, b) in common::lts_strategy(30).prop_flat_map(|l| {
            let (r, t) = (l.roles, l.types);
            (Just(l), atom_strategy(r, t), atom_strategy(r, t))
        }),
        bytes in any::<bool>(),
        compaction in any::<bool>(),
        determinism in any::<bool>(),
    ) {
        let dummies = lts.dummies();
        let mut plain = LtsProtocol::new(lts);
        plain.bytes = bytes;
        for f in [format!("G !{a:?}"), format!("G ({a:?} -> F {b:?})")] {
            let checker = || {
                Checker::new()
                    .collapse(bytes)
                    .hash_compaction(compaction)
                    .determinism_check(determinism)
                    .threads(1)
                    .progress(false)
            };
            let x = checker().check(&f, plain.clone(), dummies.clone());
            let y = checker().check(&f, Buffered::new(plain.clone()), dummies.clone());
            prop_assert_eq!(summary(&x), summary(&y), "{}", f);
        }
    }
}
