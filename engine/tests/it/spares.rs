//! Successors made in spare objects: the search keeps the objects it no
//! longer needs (duplicates, expanded states) and makes the next successor
//! by `clone_from` into one of them. A duplicate successor then costs no
//! fresh `clone`; the searches give the same answers as with plain clones
//! on random objects; and a `clone_from` that is wrong or panics is the
//! object's error, never a verdict.

#[allow(dead_code)]
use testkit::models;

use crate::common;

use std::hash::{Hash, Hasher};

use common::wrapped::{Counts, Twist, Wrapped};
use common::{atom_strategy, LtsProtocol};
use engine::{dummies, Checker, Error, Message, Protocol, Refused, RoleId, Verdict};
use models::{Ring, Token};
use proptest::prelude::*;

/// Most successors of a search are states seen before: made in a spare
/// object, they cost no `clone` (before, every successor was one). Under
/// collapse the frontier's expanded objects are spares too, so nearly
/// every successor is made by `clone_from`; the object store keeps each
/// new state's object, so a new state still costs a clone there.
#[test]
fn a_duplicate_successor_costs_no_fresh_clone() {
    for collapse in [true, false] {
        // Equality and hash are the ring's; `clone_from` is the ring's
        // own, which reuses its vectors.
        let counts = Counts::clone_from_apart();
        let ring = Wrapped::new(Ring::new(6), counts.clone());
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
        let (made, reused) = (counts.made(), counts.reused());
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

/// A buffer beside a random LTS object's state (derived from it, so part
/// of its identity), with a `clone_from` that reuses the buffer: what the
/// spare objects make.
#[derive(Clone, Debug)]
struct Trail(Vec<usize>);

impl Trail {
    fn of(lts: &LtsProtocol) -> Self {
        Trail(vec![lts.state; lts.state % 4 + 1])
    }
    /// Rewrites the buffer in place after a step.
    fn sync(&mut self, lts: &LtsProtocol) {
        self.0.clear();
        self.0.resize(lts.state % 4 + 1, lts.state);
    }
}

impl Twist<LtsProtocol> for Trail {
    fn clone_twist_from(&mut self, source: &Self, _: &LtsProtocol) {
        self.0.clone_from(&source.0);
    }
    fn same(&self, other: &Self) -> bool {
        self.0 == other.0
    }
    fn hash_state(&self, lts: &LtsProtocol, state: &mut dyn Hasher) {
        let mut state = state;
        lts.hash(&mut state);
        self.0.hash(&mut state);
    }
    fn try_send(
        &mut self,
        lts: &mut LtsProtocol,
        role: RoleId,
        to: RoleId,
        m: Message,
    ) -> Result<(), Refused<Message>> {
        lts.try_send(role, to, m)?;
        self.sync(lts);
        Ok(())
    }
    fn try_recv(
        &mut self,
        lts: &mut LtsProtocol,
        role: RoleId,
        from: Option<RoleId>,
    ) -> Result<(RoleId, Message), Refused> {
        let r = lts.try_recv(role, from)?;
        self.sync(lts);
        Ok(r)
    }
    fn try_close(
        &mut self,
        lts: &mut LtsProtocol,
        role: RoleId,
        to: RoleId,
    ) -> Result<(), Refused> {
        lts.try_close(role, to)?;
        self.sync(lts);
        Ok(())
    }
    fn decode(&self, lts: &LtsProtocol, bytes: &[u8]) -> Option<(LtsProtocol, Self)> {
        let lts = lts.decode(bytes)?;
        let trail = Trail::of(&lts);
        Some((lts, trail))
    }
}

/// `lts` with its [`Trail`].
fn buffered(lts: LtsProtocol) -> Wrapped<LtsProtocol, Trail> {
    let trail = Trail::of(&lts);
    Wrapped::new(lts, trail)
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
            let y = checker().check(&f, buffered(plain.clone()), dummies.clone());
            prop_assert_eq!(summary(&x), summary(&y), "{}", f);
        }
    }
}
