//! The walks over the probe slots, pinned to each other: the search may
//! take any of them for the same protocol state (which one depends on the
//! strategy, the cache and the automaton state), so they must give the
//! same successors in the same order.

use super::*;
use crate::testing::{RandomObject, Rng};

use probe::recv_letter;

/// A random set of probe slots (as an automaton state's `wanted`).
fn random_wanted(rng: &mut Rng, letters: usize) -> Vec<u64> {
    (0..letters.div_ceil(64))
        .map(|_| (0..64).fold(0u64, |w, b| if rng.chance(1, 2) { w | 1 << b } else { w }))
        .collect()
}

/// Every enabled action of `p` through the resumable walk, one call per
/// successor, advancing the cursor as a search frame does.
fn one_by_one(
    ex: &mut Explorer<RandomObject>,
    p: ProtoId,
    wanted: Option<Wanted>,
    use_cache: bool,
) -> Vec<(LetterId, ProtoId)> {
    let mut out = Vec::new();
    let mut cursor = 0;
    while let Some(s) = ex.next_enabled(p, &mut cursor, wanted, use_cache).unwrap() {
        out.push(s);
        cursor = next_slot(&ex.alphabet, cursor);
    }
    out
}

#[test]
fn probe_every_slot_and_probe_loop_give_the_same_successors_in_the_same_order() {
    for seed in 0..300 {
        let mut rng = Rng::new(seed);
        let obj = RandomObject::draw(&mut rng);
        let mut ex = Explorer::new(obj.alphabet(), 1 << 16, false);
        ex.store.intern(obj);
        // Every state of the object, in the order the walks intern them.
        let mut i = 0;
        while i < ex.store.len() {
            let p = ProtoId::new(i);
            // The breadth-first search's hot path, and the general walk.
            let mut fast = Vec::new();
            ex.probe_every_slot(p, &mut fast).unwrap();
            let mut slow = Vec::new();
            ex.probe_loop(p, &mut 0, None, Some(&mut slow)).unwrap();
            assert_eq!(
                fast, slow,
                "seed {seed}, state {i}: probe_every_slot vs probe_loop"
            );
            // The depth-first search's resumable walk, uncached and cached.
            assert_eq!(
                fast,
                one_by_one(&mut ex, p, None, false),
                "seed {seed}, state {i}"
            );
            ex.fill(p).unwrap();
            assert!(ex.is_cached(p));
            assert_eq!(
                fast,
                one_by_one(&mut ex, p, None, true),
                "seed {seed}, state {i}"
            );
            // An automaton state that wants only some slots: every path
            // gives the wanted part of the full list.
            let w = random_wanted(&mut rng, ex.alphabet.len());
            let wanted: Vec<_> = fast
                .iter()
                .copied()
                .filter(|&(l, _)| bit(&w, probe_slot(&ex.alphabet, l)))
                .collect();
            for use_cache in [false, true] {
                let mut all = Vec::new();
                ex.successors(p, Some(&w), use_cache, &mut all).unwrap();
                assert_eq!(all, wanted, "seed {seed}, state {i}, cache {use_cache}");
                let each = one_by_one(&mut ex, p, Some(&w), use_cache);
                assert_eq!(each, wanted, "seed {seed}, state {i}, cache {use_cache}");
            }
            i += 1;
        }
    }
}

/// The determinism check probes with `probe_loop` only; it must find the
/// same successors as the unchecked hot path (on an object that keeps the
/// contract, it only adds checks).
#[test]
fn the_determinism_check_finds_the_same_successors() {
    for seed in 0..100 {
        let mut rng = Rng::new(seed);
        let obj = RandomObject::draw(&mut rng);
        let mut plain = Explorer::new(obj.alphabet(), 1 << 16, false);
        let mut checked = Explorer::new(obj.alphabet(), 1 << 16, true);
        plain.store.intern(obj.clone());
        checked.store.intern(obj);
        let mut i = 0;
        while i < plain.store.len() {
            let p = ProtoId::new(i);
            let (mut a, mut b) = (Vec::new(), Vec::new());
            plain.successors(p, None, false, &mut a).unwrap();
            checked.successors(p, None, false, &mut b).unwrap();
            assert_eq!(a, b, "seed {seed}, state {i}");
            i += 1;
        }
        assert_eq!(plain.store.len(), checked.store.len(), "seed {seed}");
    }
}

/// Checking the dummies keeps a declaring object's alphabet to its
/// declared types; should an undeclared dummy type get in all the same,
/// a receive of it is still a contract violation, not a new type.
#[test]
pub(super) fn a_declaring_objects_receive_of_an_undeclared_dummy_type_is_a_contract_error() {
    let a = Alphabet::new(
        vec!["a".into(), "b".into()],
        vec![Message::named("Ping", ()), Message::named("Extra", ())],
        vec!["Ping".into()],
    );
    let l = a.recv(1, 0, 0);
    let ok = recv_letter(&a, l, 1, 0, 0, &Message::named("Ping", ()));
    assert_eq!(ok.unwrap(), a.recv(1, 0, 0));
    match recv_letter(&a, l, 1, 0, 0, &Message::named("Extra", ())) {
        Err(ProbeError::Contract { detail, .. }) => {
            assert!(
                detail.contains("not one of the protocol's type_names() (Ping)"),
                "{detail}"
            )
        }
        other => panic!("{other:?}"),
    }
    // A declared short name under another path is that declared type.
    let ok = recv_letter(&a, l, 1, 0, 0, &Message::named("x::Ping", ()));
    assert_eq!(ok.unwrap(), a.recv(1, 0, 0));
    // An object that declares nothing: the dummies are its types.
    let a = Alphabet::new(
        vec!["a".into(), "b".into()],
        vec![Message::named("Extra", ())],
        vec![],
    );
    let extra = recv_letter(&a, l, 1, 0, 0, &Message::named("Extra", ()));
    assert_eq!(extra.unwrap(), a.recv(1, 0, 0));
}
