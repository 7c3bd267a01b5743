//! `Protocol::enabled`: the strict objects (compiled and built on the fly)
//! and the liberal object list exactly the actions that probing finds, and
//! performing the listed actions gives exactly the successors that probing
//! gives, in every reachable state of every bundled protocol and of random
//! specifications; and where an object answers for one action
//! (`Protocol::is_enabled`, as the compiled strict and the liberal objects
//! do), the answer is the
//! list's for every action of every state. The engine explores a listing
//! object through its list only (outside the determinism check), and the
//! explorer through its answers, so a difference here would be a wrong
//! verdict there.

use crate::common;

use std::collections::{HashSet, VecDeque};
use std::fmt::Debug;

use engine::Limits;
use engine::{Enabled, Message, Protocol};
use proptest::prelude::*;
use protocols::{bundled, Liberal, Strict};

/// The successors of `p` from its listing, each listed action performed
/// through its try-operation on a clone, labelled as
/// [`common::successors`] labels the probed ones.
fn listed_successors<P: Protocol + Debug>(p: &P, dummies: &[Message]) -> Vec<(String, P)> {
    let mut list = Vec::new();
    assert!(p.enabled(&mut list), "{p:?} does not list its actions");
    let (roles, types) = (p.roles(), p.type_names());
    list.into_iter()
        .map(|e| {
            let mut c = p.clone();
            match e {
                Enabled::Send { role, to, ty } => {
                    let d = dummies
                        .iter()
                        .find(|d| d.type_name() == types[ty])
                        .expect("a dummy per type");
                    c.try_send(role, to, d.clone())
                        .unwrap_or_else(|_| panic!("{p:?}: listed {e:?} refused"));
                    (format!("!({},{},{})", types[ty], roles[role], roles[to]), c)
                }
                Enabled::Recv { role, from } => {
                    let (sender, m) = c
                        .try_recv(role, Some(from))
                        .unwrap_or_else(|_| panic!("{p:?}: listed {e:?} refused"));
                    assert_eq!(sender, from);
                    let label = format!("?({},{},{})", m.type_name(), roles[from], roles[role]);
                    (label, c)
                }
                Enabled::Close { role, to } => {
                    c.try_close(role, to)
                        .unwrap_or_else(|_| panic!("{p:?}: listed {e:?} refused"));
                    (format!("C({},{})", roles[role], roles[to]), c)
                }
            }
        })
        .collect()
}

/// Explores `p` breadth-first by probing, up to `limit` states, and
/// compares in each state the listed successors with the probed ones (as
/// sets of label and successor; a listed action twice is a failure too).
/// Returns the number of states compared, or the first difference.
fn listing_agrees<P: Protocol + Debug>(p: &P, limit: usize) -> Result<usize, String> {
    let dummies = common::dummies(p);
    let mut seen: HashSet<P> = HashSet::from([p.clone()]);
    let mut queue = VecDeque::from([p.clone()]);
    while let Some(x) = queue.pop_front() {
        let probed = common::successors(&x, &dummies);
        let listed = listed_successors(&x, &dummies);
        let a: HashSet<(String, P)> = probed.iter().cloned().collect();
        let b: HashSet<(String, P)> = listed.iter().cloned().collect();
        if a != b || listed.len() != probed.len() {
            let labels = |v: &[(String, P)]| v.iter().map(|(l, _)| l.clone()).collect::<Vec<_>>();
            return Err(format!(
                "in {x:?}: probed {:?}, listed {:?}",
                labels(&probed),
                labels(&listed)
            ));
        }
        if let Some(wrong) = wrong_answer(&x) {
            return Err(format!(
                "in {x:?}: is_enabled({wrong:?}) is not what the list says"
            ));
        }
        for (_, y) in probed {
            if seen.len() < limit && seen.insert(y.clone()) {
                queue.push_back(y);
            }
        }
    }
    Ok(seen.len())
}

/// The first action of any role, type and peer (every one, in or out of
/// range by one) on which `p`'s answer differs from its list.
fn wrong_answer<P: Protocol>(p: &P) -> Option<Enabled> {
    let mut list = Vec::new();
    assert!(p.enabled(&mut list));
    let (n, types) = (p.roles().len(), p.type_names().len());
    let pairs = (0..=n).flat_map(|a| (0..=n).map(move |b| (a, b)));
    let actions = pairs.flat_map(|(role, peer)| {
        (0..=types)
            .map(move |ty| Enabled::Send { role, to: peer, ty })
            .chain([
                Enabled::Recv { role, from: peer },
                Enabled::Close { role, to: peer },
            ])
    });
    actions
        .into_iter()
        .find(|&a| p.is_enabled(a).is_some_and(|yes| yes != list.contains(&a)))
}

/// The compiled strict object and the liberal object answer for every
/// action; each answer is checked in `listing_agrees` (a test that would
/// pass for an object answering nothing is no test of them). A strict
/// object built on the fly leaves the question to its list: looking a
/// transition up builds its successor there.
#[test]
fn the_spec_objects_answer_for_their_actions() {
    let lts = bundled::by_name("two-buyer").unwrap();
    let spec = bundled::spec_by_name("two-buyer").unwrap();
    let some = Enabled::Close { role: 0, to: 1 };
    let strict = Strict::new(lts.clone());
    assert!(strict.is_enabled(some).is_some(), "{strict:?}");
    assert_eq!(wrong_answer(&strict), None);
    assert_eq!(Strict::on_the_fly(&spec).unwrap().is_enabled(some), None);
    let lib = Liberal::new(lts);
    assert!(lib.is_enabled(some).is_some(), "{lib:?}");
    assert_eq!(wrong_answer(&lib), None);
}

#[test]
fn every_bundled_object_lists_what_probing_finds() {
    for info in bundled::list() {
        let name = common::small_instance(&info, 3);
        let spec = bundled::spec_by_name(&name).unwrap();
        let lts = bundled::by_name(&name).unwrap();
        let strict = listing_agrees(&Strict::new(lts.clone()), 3_000);
        assert!(strict.is_ok(), "{name} strict: {strict:?}");
        let otf = listing_agrees(&Strict::on_the_fly(&spec).unwrap(), 3_000);
        assert!(otf.is_ok(), "{name} on the fly: {otf:?}");
        // Some projections are too large for a quick test; they are not
        // what this tests.
        if let Ok(lib) = Liberal::try_new_with(lts, &Limits::default().max_states(20_000)) {
            let lib = listing_agrees(&lib, 3_000);
            assert!(lib.is_ok(), "{name} liberal: {lib:?}");
        }
    }
}

/// A receive is listed only if the message at the head of its channel is
/// of the type the protocol expects there, as `try_recv` decides: a
/// message of another type at the head blocks it.
#[test]
fn a_receive_is_listed_only_for_the_type_at_the_head_of_its_channel() {
    use protocols::spec::{msg, par, Spec};
    // b receives a Ping from a, and (in parallel) a Pong from a: either
    // order of sends, FIFO from a to b.
    let spec = Spec::new("two", par([msg("Ping", "a", "b"), msg("Pong", "a", "b")]));
    let mut p = Strict::from_spec(&spec).unwrap();
    p.try_send(0, 1, Message::named("Pong", ())).unwrap();
    let mut list = Vec::new();
    assert!(p.enabled(&mut list));
    list.sort_by_key(|e| format!("{e:?}"));
    assert_eq!(
        list,
        [
            Enabled::Recv { role: 1, from: 0 },
            Enabled::Send {
                role: 0,
                to: 1,
                ty: 0
            }
        ]
    );
    assert_eq!(listing_agrees(&p, 100), Ok(5));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Listing and probing give identical successor sets in every
    /// reachable state of random specifications, for the three objects.
    #[test]
    fn listing_and_probing_agree_on_random_specs(spec in common::gen::spec()) {
        let lts = common::gen::compile_or_skip(&spec)?;
        let strict = listing_agrees(&Strict::new(lts.clone()), 300);
        prop_assert!(strict.is_ok(), "strict: {:?}", strict);
        if let Ok(otf) = Strict::on_the_fly(&spec) {
            let otf = listing_agrees(&otf, 300);
            prop_assert!(otf.is_ok(), "on the fly: {:?}", otf);
        }
        if let Ok(lib) = Liberal::try_new_with(lts, &Limits::default().max_states(2_000)) {
            let lib = listing_agrees(&lib, 300);
            prop_assert!(lib.is_ok(), "liberal: {:?}", lib);
        }
    }
}
