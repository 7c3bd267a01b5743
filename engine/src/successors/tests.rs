//! The walks over the probe slots, pinned to each other: the search may
//! take any of them for the same protocol state (which one depends on the
//! strategy, the cache and the automaton state), so they must give the
//! same successors in the same order.

use super::*;
use crate::testing::{LtsProtocol, Rng};
use crate::Enabled;
use crate::Message;

use slots::recv_letter;

/// A random set of probe slots (as an automaton state's `wanted`).
fn random_wanted(rng: &mut Rng, letters: usize) -> Vec<u64> {
    (0..letters.div_ceil(64))
        .map(|_| (0..64).fold(0u64, |w, b| if rng.chance(1, 2) { w | 1 << b } else { w }))
        .collect()
}

/// Every enabled action of `p` through the resumable walk, one call per
/// successor, advancing the cursor as a search frame does.
fn one_by_one(
    ex: &mut Successors<LtsProtocol>,
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
        let obj = LtsProtocol::draw(&mut rng);
        let mut ex = Successors::new(obj.alphabet(), Store::whole(), 1 << 16, false);
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
        let obj = LtsProtocol::draw(&mut rng);
        let mut plain = Successors::new(obj.alphabet(), Store::whole(), 1 << 16, false);
        let mut checked = Successors::new(obj.alphabet(), Store::whole(), 1 << 16, true);
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
    let l = a.recv(1, 0, 0).unwrap();
    let ok = recv_letter(&a, l, 1, 0, 0, &Message::named("Ping", ()));
    assert_eq!(ok.unwrap(), l);
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
    assert_eq!(ok.unwrap(), l);
    // An object that declares nothing: the dummies are its types.
    let a = Alphabet::new(
        vec!["a".into(), "b".into()],
        vec![Message::named("Extra", ())],
        vec![],
    );
    let l = a.recv(1, 0, 0).unwrap();
    let extra = recv_letter(&a, l, 1, 0, 0, &Message::named("Extra", ()));
    assert_eq!(extra.unwrap(), l);
}

/// Every state of `obj` (interned by walking its successors), with its
/// successors as `(letter, successor object)`, by `ex`'s breadth-first
/// path; compares objects, not ids, so two successor generators can be compared.
fn all_successors(
    obj: LtsProtocol,
    determinism: bool,
) -> Result<Vec<Vec<(LetterId, usize)>>, ProbeError> {
    let mut ex = Successors::new(obj.alphabet(), Store::whole(), 1 << 16, determinism);
    ex.store.intern(obj);
    let mut out = Vec::new();
    let mut i = 0;
    while i < ex.store.len() {
        let mut succ = Vec::new();
        ex.successors(ProtoId::new(i), None, false, &mut succ)?;
        // Ids are assigned in the order of discovery, the same for both
        // ways if the successors come in the same order.
        out.push(succ.into_iter().map(|(l, p)| (l, p.index())).collect());
        i += 1;
    }
    Ok(out)
}

/// An object that lists its enabled actions is not probed, and gets the
/// same successors, in the same (slot) order, as when it is probed: on
/// random objects, through every walk of the successor generator.
#[test]
fn listing_gives_the_same_successors_as_probing() {
    for seed in 0..300 {
        let mut rng = Rng::new(seed);
        let obj = LtsProtocol::draw(&mut rng);
        let probed = all_successors(obj.listing(false), false).unwrap();
        let listed = all_successors(obj.listing(true), false).unwrap();
        assert_eq!(probed, listed, "seed {seed}");
        // The resumable walk and the wanted filter, on the listing object.
        let mut ex = Successors::new(obj.alphabet(), Store::whole(), 1 << 16, false);
        ex.store.intern(obj.listing(true));
        let mut i = 0;
        while i < ex.store.len() {
            let p = ProtoId::new(i);
            let mut all = Vec::new();
            ex.successors(p, None, false, &mut all).unwrap();
            assert_eq!(all, one_by_one(&mut ex, p, None, false), "seed {seed}");
            let w = random_wanted(&mut rng, ex.alphabet.len());
            let wanted: Vec<_> = all
                .iter()
                .copied()
                .filter(|&(l, _)| bit(&w, probe_slot(&ex.alphabet, l)))
                .collect();
            assert_eq!(
                one_by_one(&mut ex, p, Some(&w), false),
                wanted,
                "seed {seed}"
            );
            let mut some = Vec::new();
            ex.successors(p, Some(&w), false, &mut some).unwrap();
            assert_eq!(some, wanted, "seed {seed}");
            i += 1;
        }
        // The determinism check compares the listing with probing: a
        // correct listing passes it.
        assert_eq!(
            all_successors(obj.listing(true), true).unwrap(),
            probed,
            "seed {seed}"
        );
    }
}

/// An object whose listing leaves out an action, or lists one it does not
/// take, is reported by the determinism check, naming the action, instead
/// of exploring less than the object can do.
#[test]
fn a_wrong_listing_is_a_contract_error_naming_the_action() {
    /// Two roles; `a` may send a `Ping` to `b` once; `enabled()` lies as
    /// told.
    #[derive(Clone, Debug, PartialEq, Eq, Hash)]
    struct Liar {
        sent: bool,
        lie: u8,
    }
    impl Protocol for Liar {
        fn roles(&self) -> Vec<String> {
            vec!["a".into(), "b".into()]
        }
        fn type_names(&self) -> Vec<String> {
            vec!["Ping".into()]
        }
        fn try_send(
            &mut self,
            role: usize,
            to: usize,
            msg: Message,
        ) -> Result<(), crate::Refused<Message>> {
            if (role, to) != (0, 1) || self.sent {
                return Err(crate::Refused(msg));
            }
            self.sent = true;
            Ok(())
        }
        fn try_recv(
            &mut self,
            _: usize,
            _: Option<usize>,
        ) -> Result<(usize, Message), crate::Refused> {
            Err(crate::Refused(()))
        }
        fn enabled(&self, out: &mut Vec<Enabled>) -> bool {
            match self.lie {
                // Leaves out the send.
                0 => {}
                // Lists the send, and a close that is refused.
                1 => {
                    if !self.sent {
                        out.push(Enabled::Send {
                            role: 0,
                            to: 1,
                            ty: 0,
                        });
                    }
                    out.push(Enabled::Close { role: 0, to: 1 });
                }
                // Lists an action off the roles.
                _ => out.push(Enabled::Send {
                    role: 0,
                    to: 7,
                    ty: 0,
                }),
            }
            true
        }
    }
    let check = |lie: u8, determinism: bool| {
        let obj = Liar { sent: false, lie };
        let mut a = Alphabet::new(
            obj.roles(),
            vec![Message::named("Ping", ())],
            obj.type_names(),
        );
        a.set_topology(|r| obj.peers(r), |r| obj.sends_to(r))
            .unwrap();
        let mut ex = Successors::new(a, Store::whole(), 1 << 16, determinism);
        let p = ex.store.intern(obj);
        let mut out = Vec::new();
        let r = ex.successors(p, None, false, &mut out);
        r.map_err(|e| {
            e.into_error(|l| ex.alphabet.describe_probe(l), Vec::new())
                .to_string()
        })
    };
    let e = check(0, true).unwrap_err();
    assert!(
        e.contains("a SEND <Ping> TO b") && e.contains("enabled() does not list it"),
        "{e}"
    );
    let e = check(1, true).unwrap_err();
    assert!(
        e.contains("a CLOSE TO b") && e.contains("enabled() lists it, but probing it was refused"),
        "{e}"
    );
    // Without the determinism check, an action listed but refused is
    // still an error (the engine performs it), never a silent skip.
    let e = check(1, false).unwrap_err();
    assert!(
        e.contains("a CLOSE TO b") && e.contains("try_close refused it"),
        "{e}"
    );
    for determinism in [false, true] {
        let e = check(2, determinism).unwrap_err();
        assert!(e.contains("enabled() listing a SEND"), "{e}");
    }
}

/// The determinism check probes the pairs that are not channels: an
/// action there is reported, as before the alphabet lost their letters.
#[test]
fn the_determinism_check_probes_the_pairs_off_the_channels() {
    #[derive(Clone, Debug, PartialEq, Eq, Hash)]
    struct Sneaky;
    impl Protocol for Sneaky {
        fn roles(&self) -> Vec<String> {
            vec!["a".into(), "b".into(), "c".into()]
        }
        fn try_send(
            &mut self,
            role: usize,
            to: usize,
            msg: Message,
        ) -> Result<(), crate::Refused<Message>> {
            // `a` sends to `c`, which `sends_to` leaves out.
            if (role, to) == (0, 2) {
                Ok(())
            } else {
                Err(crate::Refused(msg))
            }
        }
        fn try_recv(
            &mut self,
            _: usize,
            _: Option<usize>,
        ) -> Result<(usize, Message), crate::Refused> {
            Err(crate::Refused(()))
        }
        fn sends_to(&self, role: usize) -> Option<Vec<usize>> {
            Some(vec![(role + 1) % 3])
        }
    }
    let mut a = Alphabet::new(Sneaky.roles(), vec![Message::named("M", ())], vec![]);
    a.set_topology(|r| Sneaky.peers(r), |r| Sneaky.sends_to(r))
        .unwrap();
    let mut ex = Successors::new(a, Store::whole(), 1 << 16, true);
    let p = ex.store.intern(Sneaky);
    let e = ex
        .successors(p, None, false, &mut Vec::new())
        .unwrap_err()
        .into_error(|l| ex.alphabet.describe_probe(l), Vec::new())
        .to_string();
    assert!(
        e.contains("a SEND <M> TO c") && e.contains("no channel from a to c"),
        "{e}"
    );
}
