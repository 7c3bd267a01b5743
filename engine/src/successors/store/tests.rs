//! The store's tests that span its parts: keys found again across the
//! table's growth, and the breadth-first frontier's hand-over.

use super::tags::tests::keys;
use super::*;
use crate::protocol::{Message, Refused, RoleId};

/// An object that is its bytes, of whatever width it is given.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Bytes(Vec<u8>);

impl Protocol for Bytes {
    fn roles(&self) -> Vec<String> {
        vec!["a".into(), "b".into()]
    }
    fn try_send(&mut self, _: RoleId, _: RoleId, m: Message) -> Result<(), Refused<Message>> {
        Err(Refused(m))
    }
    fn try_recv(&mut self, _: RoleId, _: Option<RoleId>) -> Result<(RoleId, Message), Refused> {
        Err(Refused(()))
    }
    fn encode(&self, out: &mut Vec<u8>) -> bool {
        out.extend_from_slice(&self.0);
        true
    }
    fn decode(&self, bytes: &[u8]) -> Option<Self> {
        Some(Bytes(bytes.to_vec()))
    }
}

/// Every key gets its own id, and is found again by it, across the
/// table's growth and with keys of several widths.
#[test]
fn keys_held_in_their_tags_are_found_again_and_told_apart() {
    let keys = keys();
    let mut s = Store::collapsed(None);
    let ids: Vec<ProtoId> = keys.iter().map(|k| s.intern(Bytes(k.clone()))).collect();
    s.sweep();
    assert_eq!(s.len(), keys.len());
    for (k, &id) in keys.iter().zip(&ids) {
        assert_eq!(s.intern(Bytes(k.clone())), id, "{k:?}");
        assert!(s.matches(id, &Bytes(k.clone())));
    }
}

/// The breadth-first frontier's hand-over: an object just made is
/// handed out once; lent back, it is the one `get` finds, without
/// being resident; a state that is its own successor is handed out as
/// a clone of the lent object.
#[test]
fn a_made_object_is_handed_out_once_and_found_while_it_is_lent() {
    let mut s = Store::collapsed(None);
    let a = s.intern(Bytes(vec![1]));
    let b = s.intern(Bytes(vec![2, 3, 4, 5]));
    let oa = s.take_made(a).expect("just made");
    assert_eq!(oa, Bytes(vec![1]));
    assert_eq!(s.take_made(a), None, "handed out already");
    s.sweep();
    assert_eq!(s.resident(), 0, "b was not taken: dropped");
    s.lend(a, oa);
    assert_eq!(s.get(a), &Bytes(vec![1]));
    assert_eq!(s.resident(), 0, "a lent object is not resident");
    assert_eq!(s.take_made(a), Some(Bytes(vec![1])));
    assert_eq!(s.intern(Bytes(vec![2, 3, 4, 5])), b);
    assert_eq!(s.get(b), &Bytes(vec![2, 3, 4, 5]), "made again");
    assert_eq!(s.take_lent(), Some(Bytes(vec![1])));
    assert_eq!(s.take_lent(), None);
    // The object store keeps every object: nothing to hand out.
    let mut whole = Store::whole();
    let c = whole.intern(Bytes(vec![3]));
    assert_eq!(whole.take_made(c), None);
    whole.lend(c, Bytes(vec![3]));
    assert_eq!(whole.take_lent(), None);
    assert_eq!(whole.get(c), &Bytes(vec![3]));
}

/// Hash compaction under a search with its own fingerprint set: the
/// frontier takes its objects out of the store, which then holds nothing
/// for them once the expanding state's successors are swept (no resident
/// object, no id, no table slot); a taken object lent back is the one
/// `get` finds and is fingerprinted as itself, and a successor equal to a
/// taken object is a state of its own id (the search's fingerprint set,
/// not the store, says that it was seen).
#[test]
fn a_frontier_object_taken_under_hash_compaction_leaves_nothing_behind() {
    let mut s = Store::fingerprinted(false);
    let init = s.intern(Bytes(vec![0]));
    s.keep_forever(init);
    assert!(!s.lends_frontier(), "the store's own numbers: pinned");
    s.transient_ids();
    assert!(s.lends_frontier());
    let held = |s: &Store<Bytes>| {
        let f = s.fp.as_ref().unwrap();
        (
            f.resident.len(),
            f.table.len(),
            f.transient.as_ref().unwrap().live.len(),
        )
    };
    assert_eq!(held(&s), (1, 1, 0), "the initial object, kept forever");
    let a = s.intern(Bytes(vec![1]));
    let b = s.intern(Bytes(vec![2]));
    assert_eq!(s.intern(Bytes(vec![1])), a, "one id while both are made");
    assert_eq!(held(&s), (1, 3, 2));
    let oa = s.take_made(a).expect("just made");
    assert_eq!(s.fp_of(a), fingerprint(&oa), "known until the sweep");
    s.sweep();
    assert_eq!(held(&s), (1, 1, 0), "nothing left of a or b");
    s.lend(a, oa);
    assert_eq!(s.get(a), &Bytes(vec![1]));
    assert_eq!(s.fp_of(a), fingerprint(&Bytes(vec![1])));
    let a2 = s.intern(Bytes(vec![1]));
    assert_ne!(a2, a, "the lent id is never handed out again");
    assert_ne!(s.intern(Bytes(vec![2])), b, "b's id went with its object");
    assert_eq!(s.fp_of(a2), s.fp_of(a));
    assert_eq!(s.take_lent(), Some(Bytes(vec![1])));
    s.sweep();
    assert_eq!(held(&s), (1, 1, 0));
}

/// A released transient id is handed out again only once nothing names
/// it: an id a successor got and lost (a state seen before) at once, the
/// id of a state the frontier took only when the search frees it after
/// expanding the state. (Going round the id range and skipping only the
/// ids in use gave a frontier state's id to another state.)
#[test]
fn a_frontier_state_keeps_its_id_until_the_search_frees_it() {
    let mut s = Store::fingerprinted(false);
    s.intern(Bytes(vec![0]));
    s.transient_ids();
    let kept = s.intern(Bytes(vec![1]));
    let seen = s.intern(Bytes(vec![2]));
    let o = s.take_made(kept).expect("just made");
    s.sweep();
    // `seen` was released and is free; `kept` is named by the frontier.
    let a = s.intern(Bytes(vec![3]));
    assert_eq!(a, seen, "a free id first");
    let b = s.intern(Bytes(vec![4]));
    assert_ne!(b, kept, "the frontier's id is not free");
    s.sweep();
    s.lend(kept, o);
    s.free(kept);
    let c = s.intern(Bytes(vec![5]));
    assert_ne!(c, kept, "lent: still named");
    assert!(s.take_lent().is_some());
    s.sweep();
    s.free(kept);
    let ids: Vec<_> = (6..9).map(|i| s.intern(Bytes(vec![i]))).collect();
    assert!(ids.contains(&kept), "freed after its expansion: {ids:?}");
    assert!(!s.ids_exhausted());
}

/// Every id handed out again is reported once to whoever remembers
/// things by id (the successor generator's listing and scratch clone),
/// and the end of transient ids reports every transient id: a reused id
/// taken for its old object probed the wrong state.
#[test]
fn ids_given_to_other_objects_are_reported_renamed() {
    let mut s = Store::fingerprinted(false);
    s.intern(Bytes(vec![0]));
    s.transient_ids();
    let seen = s.intern(Bytes(vec![1]));
    s.sweep();
    let mut renamed = Vec::new();
    assert_eq!(s.drain_renamed(|id| renamed.push(id)), None);
    assert!(renamed.is_empty(), "nothing handed out again yet");
    let again = s.intern(Bytes(vec![2]));
    assert_eq!(again, seen, "a free id first");
    assert_eq!(s.drain_renamed(|id| renamed.push(id)), None);
    assert_eq!(renamed, [seen]);
    renamed.clear();
    s.drain_renamed(|id| renamed.push(id));
    assert!(renamed.is_empty(), "reported once");
    s.reset_residents();
    assert_eq!(s.drain_renamed(|_| {}), Some(seen.index()));
}

/// When the id range is used up and nothing is free, the store says so
/// (the search then stops as at its state limit) instead of handing out
/// an id that the frontier may name.
#[test]
fn transient_ids_that_run_out_are_reported() {
    let mut s = Store::fingerprinted(false);
    s.intern(Bytes(vec![0]));
    s.transient_ids();
    s.fp.as_mut().unwrap().transient.as_mut().unwrap().next = u32::MAX as usize - 3;
    let last = s.intern(Bytes(vec![1]));
    assert_eq!(last.index(), u32::MAX as usize - 3);
    assert!(!s.ids_exhausted());
    s.intern(Bytes(vec![2]));
    assert!(s.ids_exhausted());
}

/// An object made twice before the sweep (two actions to one state) is
/// taken once: the second take finds nothing, so the search knows that a
/// second frontier entry names the same id and frees it only after both
/// (it found the other copy before, and freed the id after the first
/// entry while the second still named it).
#[test]
fn an_object_made_twice_is_taken_once() {
    let mut s = Store::fingerprinted(false);
    s.intern(Bytes(vec![0]));
    s.transient_ids();
    let y = s.intern(Bytes(vec![1]));
    assert_eq!(s.intern(Bytes(vec![1])), y);
    assert!(s.take_made(y).is_some());
    assert!(s.take_made(y).is_none(), "one state, taken once");
    s.sweep();
    assert_ne!(s.intern(Bytes(vec![2])), y, "not freed by the sweep");
}

/// An object that writes its bytes, or, with `false`, none (it is then
/// kept as its object).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Partly(Vec<u8>, bool);

impl Protocol for Partly {
    fn roles(&self) -> Vec<String> {
        vec!["a".into(), "b".into()]
    }
    fn try_send(&mut self, _: RoleId, _: RoleId, m: Message) -> Result<(), Refused<Message>> {
        Err(Refused(m))
    }
    fn try_recv(&mut self, _: RoleId, _: Option<RoleId>) -> Result<(RoleId, Message), Refused> {
        Err(Refused(()))
    }
    fn encode(&self, out: &mut Vec<u8>) -> bool {
        out.extend_from_slice(&self.0);
        self.1
    }
}

/// A batch interned together ([`Store::intern_batch`]) gets the ids that
/// interning its objects one at a time gives, in order: across the
/// table's growth, with keys of several widths, states seen in earlier
/// batches, repeats within a batch, and objects that write no bytes (the
/// first ends the batch's lookup together; it and the rest are interned
/// one at a time, as is every batch once such a state is stored).
#[test]
fn a_batch_interned_together_gets_the_ids_of_one_at_a_time() {
    let keys = keys();
    let mut objects = Vec::new();
    for (i, k) in keys.iter().enumerate() {
        objects.push(Partly(k.clone(), true));
        if i % 3 == 0 {
            objects.push(Partly(keys[i / 2].clone(), true));
        }
        if i % 5 == 0 {
            objects.push(Partly(k.clone(), true));
        }
        if i + 40 == keys.len() || i + 20 == keys.len() {
            objects.push(Partly(vec![7, 7], false));
            objects.push(Partly(vec![i as u8], false));
        }
    }
    let mut one = Store::collapsed(None);
    let mut together = Store::collapsed(None);
    for (n, chunk) in objects.chunks(7).enumerate() {
        let want: Vec<(LetterId, ProtoId)> = (0..)
            .zip(chunk)
            .map(|(l, o)| (l, one.intern(o.clone())))
            .collect();
        let mut batch: Vec<(LetterId, Partly)> = (0..).zip(chunk.iter().cloned()).collect();
        let (mut letter, mut out) = (LetterId::MAX, Vec::new());
        together.intern_batch(&mut batch, &mut letter, &mut out);
        assert!(batch.is_empty());
        assert_eq!(out, want, "batch {n}");
        assert_eq!(
            letter,
            want.len() as LetterId - 1,
            "the last object's letter"
        );
        for (&(_, id), o) in out.iter().zip(chunk) {
            assert_eq!(together.get(id), o, "made: the search may take it");
        }
        one.sweep();
        together.sweep();
    }
    assert_eq!(together.len(), one.len());
    assert!(together.len() > keys.len(), "and the objects kept whole");
}
