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
