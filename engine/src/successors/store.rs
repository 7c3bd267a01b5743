//! Interning: every distinct protocol object is stored once, in `protos`,
//! and named by its index everywhere else, so a product state is two small
//! integers. Each stored object carries the search's marks for it.

use std::hash::BuildHasher;

use hashbrown::hash_table::Entry;
use hashbrown::{DefaultHashBuilder, HashTable};

use crate::protocol::Protocol;

use crate::ids::{AutState, DfsNum, ProtoId};

/// Final avalanche (MurmurHash3's fmix64). The fast default hasher leaves
/// the high bits of small, similar protocol states (a few integers that
/// differ in one bit) poorly mixed, and the table uses the high bits as
/// tags: without this, lookups degrade into long probe sequences.
#[inline]
fn mix(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

/// An interned protocol object with the search's marks for it (see
/// [`Store::mark`]).
struct Stored<P> {
    p: P,
    marks: [DfsNum; 2],
}

/// The interned protocol objects.
pub(crate) struct Store<P> {
    protos: Vec<Stored<P>>,
    table: HashTable<ProtoId>,
    hasher: DefaultHashBuilder,
}

impl<P: Protocol> Store<P> {
    pub(super) fn new() -> Self {
        Store {
            protos: Vec::new(),
            table: HashTable::new(),
            hasher: DefaultHashBuilder::default(),
        }
    }

    /// The search's number for the product state `(id, q)`, `q < 2`.
    ///
    /// Kept next to the object because the search looks it up right after
    /// [`intern`](Self::intern) has compared the object: the cache line is
    /// already loaded, where a separate array would cost a miss per
    /// transition.
    #[inline]
    pub fn mark(&self, id: ProtoId, q: AutState) -> DfsNum {
        self.protos[id.index()].marks[q.index()]
    }

    #[inline]
    pub fn set_mark(&mut self, id: ProtoId, q: AutState, n: DfsNum) {
        self.protos[id.index()].marks[q.index()] = n;
    }

    /// Resets every mark to 0, for a new search.
    pub fn clear_marks(&mut self) {
        self.protos
            .iter_mut()
            .for_each(|s| s.marks = [DfsNum::UNSEEN; 2]);
    }

    pub fn len(&self) -> usize {
        self.protos.len()
    }

    pub fn get(&self, id: ProtoId) -> &P {
        &self.protos[id.index()].p
    }

    /// The index of `p`, storing it if it is new.
    pub fn intern(&mut self, p: P) -> ProtoId {
        match self.intern_or_give_back(p) {
            Ok(id) | Err((id, _)) => id,
        }
    }

    /// The index of `p`: `Ok` if `p` was new and is now stored, `Err` with
    /// `p` given back if an equal object was stored already (the revisit
    /// check compares the two).
    pub(super) fn intern_or_give_back(&mut self, p: P) -> Result<ProtoId, (ProtoId, P)> {
        if self.table.len() == self.table.capacity() {
            self.grow_table();
        }
        let hash = mix(self.hasher.hash_one(&p));
        let protos = &self.protos;
        let hasher = &self.hasher;
        match self.table.entry(
            hash,
            |&i| protos[i.index()].p == p,
            |&i| mix(hasher.hash_one(&protos[i.index()].p)),
        ) {
            Entry::Occupied(e) => Err((*e.get(), p)),
            Entry::Vacant(v) => {
                let id = ProtoId::new(protos.len());
                v.insert(id);
                self.protos.push(Stored {
                    p,
                    marks: [DfsNum::UNSEEN; 2],
                });
                Ok(id)
            }
        }
    }

    /// Doubles the table, re-inserting the objects in id order.
    ///
    /// hashbrown would grow the table by itself, but it rehashes in table
    /// order, so every rehash reads a random object: a cache miss per
    /// stored state at each doubling (7 % of a large search). Reading
    /// `protos` front to back streams instead.
    #[cold]
    fn grow_table(&mut self) {
        let capacity = (2 * self.table.capacity()).max(64);
        let mut table = HashTable::with_capacity(capacity);
        let hasher = &self.hasher;
        let hash = |p: &P| mix(hasher.hash_one(p));
        for (id, s) in self.protos.iter().enumerate() {
            // Never grows: the capacity is reserved.
            table.insert_unique(hash(&s.p), ProtoId::new(id), |&i| {
                hash(&self.protos[i.index()].p)
            });
        }
        self.table = table;
    }
}
