//! A level of the breadth-first search: its states in order, in chunks
//! that go as soon as their states are expanded, each state with the
//! object the search holds for it where the store does not (hash
//! compaction and collapse: `Store::lends_frontier`), as the object or as
//! the bytes it writes ([`Protocol::encode`]).
//!
//! Under hash compaction the frontier is most of what the search holds
//! beside the fingerprints, so it is kept small: chunks instead of one
//! list per level (a list doubled as it grew kept up to twice its states,
//! and the level being expanded kept all of its states until its last was
//! done), and bytes instead of objects where the object prefers them
//! (`Protocol::prefers_bytes`: a few bytes where the object has heap
//! blocks).

use std::collections::VecDeque;

use crate::protocol::Protocol;

use super::ProductState;

/// States a chunk holds: small beside a level of a large search, large
/// beside the allocator's per-block cost.
const CHUNK: usize = 4096;

/// A prefix byte: the entry is an object, not bytes.
const OBJECT: u8 = 0xff;
/// A prefix byte: the entry's length follows in 4 bytes.
const LONG: u8 = 0xfe;

/// One breadth-first level (see the module docs).
pub(super) struct Level<P> {
    chunks: VecDeque<Chunk<P>>,
}

struct Chunk<P> {
    states: Vec<ProductState>,
    /// The next state to hand out.
    at: usize,
    /// The objects held as objects, in order.
    objs: VecDeque<P>,
    /// The entries held as bytes: per entry, a prefix (its length, or
    /// [`OBJECT`]) and the bytes. Empty where the level keeps objects.
    bytes: Vec<u8>,
    /// The next prefix to read.
    byte_at: usize,
}

impl<P> Chunk<P> {
    fn new() -> Self {
        Chunk {
            states: Vec::with_capacity(CHUNK),
            at: 0,
            objs: VecDeque::new(),
            bytes: Vec::new(),
            byte_at: 0,
        }
    }
}

/// What a state of the level was held as.
pub(super) enum Held<P> {
    /// Nothing: the store holds its object.
    None,
    /// Its object, held as it is or decoded from its bytes.
    Object(P),
    /// Bytes that did not decode (a broken `encode`/`decode` pair).
    Undecodable(Vec<u8>),
}

impl<P: Protocol> Level<P> {
    pub(super) fn new() -> Self {
        Level {
            chunks: VecDeque::new(),
        }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.chunks.is_empty()
    }

    /// The chunk to add to, with room.
    fn tail(&mut self) -> &mut Chunk<P> {
        if self.chunks.back().is_none_or(|c| c.states.len() == CHUNK) {
            if let Some(full) = self.chunks.back_mut() {
                full.bytes.shrink_to_fit();
            }
            self.chunks.push_back(Chunk::new());
        }
        self.chunks.back_mut().expect("just made")
    }

    /// Adds a state whose object the store holds.
    pub(super) fn push(&mut self, s: ProductState) {
        self.tail().states.push(s);
    }

    /// Adds a state with its object `o`, kept as the bytes it writes if
    /// `as_bytes` (then `o` is given back, for the caller to reuse) and it
    /// writes them (else as the object).
    pub(super) fn push_held(&mut self, s: ProductState, o: P, as_bytes: bool) -> Option<P> {
        let c = self.tail();
        c.states.push(s);
        if !as_bytes {
            if c.objs.capacity() == 0 {
                // Every entry holds an object: one allocation of the
                // chunk's size, as for its states (not a list doubled
                // as it grows, which left blocks of every size behind).
                c.objs.reserve_exact(CHUNK);
            }
            c.objs.push_back(o);
            return None;
        }
        let at = c.bytes.len();
        c.bytes.push(OBJECT);
        if !o.encode(&mut c.bytes) {
            c.bytes.truncate(at + 1);
            c.objs.push_back(o);
            return None;
        }
        let len = c.bytes.len() - at - 1;
        if len < LONG as usize {
            c.bytes[at] = len as u8;
        } else {
            c.bytes[at] = LONG;
            let len = (len as u32).to_le_bytes();
            c.bytes.splice(at + 1..at + 1, len);
        }
        Some(o)
    }

    /// The next state in order, with its object if the level holds
    /// objects (`held`), made from its bytes by `decode` if it was kept as
    /// bytes. Empty chunks go at once.
    pub(super) fn pop(
        &mut self,
        held: bool,
        decode: impl FnOnce(&[u8]) -> Option<P>,
    ) -> Option<(ProductState, Held<P>)> {
        let c = self.chunks.front_mut()?;
        let s = c.states[c.at];
        c.at += 1;
        let what = if !held {
            Held::None
        } else if c.byte_at == c.bytes.len() {
            Held::Object(c.objs.pop_front().expect("one object per entry"))
        } else {
            let prefix = c.bytes[c.byte_at];
            c.byte_at += 1;
            let len = match prefix {
                OBJECT => 0,
                LONG => {
                    let b = &c.bytes[c.byte_at..c.byte_at + 4];
                    c.byte_at += 4;
                    u32::from_le_bytes(b.try_into().expect("four bytes")) as usize
                }
                n => n as usize,
            };
            if prefix == OBJECT {
                Held::Object(c.objs.pop_front().expect("one object per entry"))
            } else {
                let bytes = &c.bytes[c.byte_at..c.byte_at + len];
                c.byte_at += len;
                match decode(bytes) {
                    Some(o) => Held::Object(o),
                    None => Held::Undecodable(bytes.to_vec()),
                }
            }
        };
        if c.at == c.states.len() {
            self.chunks.pop_front();
        }
        Some((s, what))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{AutState, ProtoId};
    use crate::protocol::{Message, Refused, RoleId};

    /// An object that writes bytes when it has some, else none.
    #[derive(Clone, Debug, PartialEq, Eq, Hash)]
    struct B(Vec<u8>);

    impl Protocol for B {
        fn roles(&self) -> Vec<String> {
            vec!["a".into()]
        }
        fn try_send(&mut self, _: RoleId, _: RoleId, m: Message) -> Result<(), Refused<Message>> {
            Err(Refused(m))
        }
        fn try_recv(&mut self, _: RoleId, _: Option<RoleId>) -> Result<(RoleId, Message), Refused> {
            Err(Refused(()))
        }
        fn encode(&self, out: &mut Vec<u8>) -> bool {
            out.extend_from_slice(&self.0);
            !self.0.is_empty()
        }
    }

    fn st(i: usize) -> ProductState {
        (ProtoId::new(i), AutState::new(i % 3))
    }

    /// Objects of every width (none, short, past the one-byte length)
    /// come back in order, as bytes or, where they wrote none, as
    /// objects, across chunks.
    #[test]
    fn a_level_gives_back_its_states_in_order_across_chunks() {
        let obj = |i: usize| B(vec![i as u8; [0, 1, 3, 300][i % 4]]);
        let n = 3 * CHUNK + 17;
        for as_bytes in [false, true] {
            let mut l = Level::new();
            for i in 0..n {
                let back = l.push_held(st(i), obj(i), as_bytes);
                assert_eq!(back.is_some(), as_bytes && i % 4 != 0, "{i}");
            }
            for i in 0..n {
                let mut decoded = false;
                let (s, held) = l
                    .pop(true, |b| {
                        decoded = true;
                        Some(B(b.to_vec()))
                    })
                    .expect("an entry");
                assert_eq!(s, st(i));
                assert_eq!(decoded, as_bytes && i % 4 != 0, "{i}");
                assert!(matches!(held, Held::Object(o) if o == obj(i)), "{i}");
            }
            assert!(l.pop(true, |_| None).is_none() && l.is_empty());
        }
        // Bytes that do not decode are given back, for the error.
        let mut l = Level::new();
        l.push_held(st(0), obj(3), true);
        assert!(matches!(l.pop(true, |_| None), Some((_, Held::Undecodable(b))) if b == obj(3).0));
        let mut l: Level<B> = Level::new();
        (0..n).for_each(|i| l.push(st(i)));
        let none = |_: &[u8]| -> Option<B> { panic!("nothing to decode") };
        assert!((0..n).all(|i| matches!(l.pop(false, none), Some((s, Held::None)) if s == st(i))));
        assert!(l.is_empty());
    }
}
