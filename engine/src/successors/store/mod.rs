//! Interning: every distinct protocol object is stored once, in `protos`,
//! and named by its index everywhere else, so a product state is two small
//! integers. Each stored object carries the search's marks for it.
//!
//! With hash compaction ([`Store::fingerprinted`]) the store keeps a 64-bit
//! fingerprint per state instead of the object (Holzmann's hash compaction):
//! the ids, marks and table work as before, but an object is *resident* only
//! while the search needs it — pinned by a frame of the depth-first stack or
//! an entry of the breadth-first frontier ([`Store::pin`]) — or while it has
//! just been made by a probe and the search has not yet decided whether to
//! keep it ([`Store::sweep`]). The breadth-first search from one state
//! holds its frontier's objects itself instead (under hash compaction as
//! their bytes where the object prefers bytes: [`Store::frontier_as_bytes`])
//! and lends each to the store while it expands it ([`Store::take_made`],
//! [`Store::lend`]); when that search keeps its own set of product
//! fingerprints ([`Store::transient_ids`]), the store then holds nothing
//! for a state once its successors are entered. A state reached again whose object is gone is
//! revived from the object the probe just made: every object the search
//! expands was made by a run of the real object, never rebuilt from a
//! fingerprint. Two states with the same fingerprint are one state to the
//! search: that is the (bounded) probability of a missed state that the
//! verdict reports.
//!
//! The collapse store ([`Store::collapsed`]) works the same way but keys
//! each state by the bytes its object writes ([`Protocol::encode`]), kept
//! in one arena: exact (the bytes name the state, as the determinism check
//! verifies through [`Protocol::decode`]), at a few bytes a state plus the
//! engine's own per-state cost (marks and a table slot with its key's tag,
//! about 21 bytes, and 8 more for an arena end once keys of several widths
//! are stored), where the exact store keeps each object with its heap
//! allocations.
//!
//! One concept a file: [`chunked`] (the lists that grow in chunks),
//! [`ends`] (where a state's bytes lie in the arena), [`tags`] (the
//! collapse store's keys in the engine's [`TagTable`]), [`fingerprints`]
//! (the keyed side: hash compaction and collapse, with the resident
//! objects), [`spares`] (objects the store no longer needs, kept for the
//! next successor to overwrite); the [`Store`] here puts them together.

mod batch;
mod chunked;
mod ends;
mod fingerprints;
mod frontier;
mod spares;
mod tags;
#[cfg(test)]
mod tests;

use std::hash::BuildHasher;

use hashbrown::hash_table::Entry;
use hashbrown::{DefaultHashBuilder, HashMap, HashTable};

use crate::alphabet::LetterId;
use crate::protocol::Protocol;

use crate::ids::{AutState, DfsNum, ProtoId};

use crate::tag_table::TagTable;
use chunked::Chunked;
use ends::{slice, Ends};
pub(crate) use fingerprints::{fingerprint, omission_bound};
use fingerprints::{Fingerprints, Keys, Resident};
pub(crate) use spares::Spares;

/// Final avalanche (MurmurHash3's fmix64). The fast default hasher leaves
/// the high bits of small, similar protocol states (a few integers that
/// differ in one bit) poorly mixed, and the table uses the high bits as
/// tags: without this, lookups degrade into long probe sequences.
#[inline]
pub(crate) fn mix(mut h: u64) -> u64 {
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
    /// In chunks (see [`Chunked`]): the object store's growth slack was
    /// most of a checked state's cost above the object itself.
    protos: Chunked<Stored<P>>,
    table: HashTable<ProtoId>,
    hasher: DefaultHashBuilder,
    /// Hash compaction or collapse: keys instead of `protos`.
    fp: Option<Box<Fingerprints<P>>>,
    /// Objects the store gave up (duplicates, swept objects, the
    /// frontier's expanded ones), for the successor generator to make successors in
    /// ([`take_spares`](Self::take_spares)).
    spares: Spares<P>,
}

impl<P: Protocol> Store<P> {
    /// An empty store that keeps its objects whole (the default).
    pub(crate) fn whole() -> Self {
        Store {
            protos: Chunked::new(),
            table: HashTable::new(),
            hasher: DefaultHashBuilder::default(),
            fp: None,
            spares: Spares::new(),
        }
    }

    /// Keeps `p`, an object nobody needs any more, as a spare to make a
    /// later successor in (see [`Spares`]).
    #[inline]
    pub(crate) fn recycle(&mut self, p: P) {
        self.spares.put(p);
    }

    /// The spare objects, taken out so that the caller may use them while
    /// it borrows a stored object; given back by
    /// [`put_spares`](Self::put_spares) (taking costs no allocation: the
    /// pool left behind is empty).
    #[inline]
    pub(crate) fn take_spares(&mut self) -> Spares<P> {
        std::mem::replace(&mut self.spares, Spares::new())
    }

    /// One spare object, if there is one (its state is meaningless).
    #[inline]
    pub(crate) fn take_spare(&mut self) -> Option<P> {
        self.spares.take()
    }

    /// A copy of `id`'s object (which [`get`](Self::get) must find), made
    /// in a spare where there is one (see [`Spares::copy_of`]).
    #[inline]
    pub(crate) fn copy_of(&mut self, id: ProtoId) -> P {
        let mut spares = self.take_spares();
        let copy = spares.copy_of(self.get(id));
        self.spares = spares;
        copy
    }

    /// Gives back the pool taken by [`take_spares`](Self::take_spares).
    #[inline]
    pub(crate) fn put_spares(&mut self, spares: Spares<P>) {
        self.spares = spares;
    }

    /// An empty store under hash compaction (see the module docs); with
    /// `frontier_bytes`, a breadth-first search keeps its frontier's
    /// objects as their bytes ([`frontier_as_bytes`](Self::frontier_as_bytes)).
    pub(crate) fn fingerprinted(frontier_bytes: bool) -> Self {
        let mut s = Self::keyed(Keys::Fp(Vec::new()), None);
        if let Some(f) = &mut s.fp {
            f.frontier_bytes = frontier_bytes;
        }
        s
    }

    /// An empty collapse store (see the module docs); with `verify_with`
    /// (the determinism check), every new state's bytes are decoded with it
    /// and must give back an equal object.
    pub(crate) fn collapsed(verify_with: Option<P>) -> Self {
        let keys = Keys::Bytes {
            arena: Vec::new(),
            ends: Ends::new(),
            table: TagTable::default(),
            objects: HashTable::new(),
            buf: Vec::new(),
        };
        Self::keyed(keys, verify_with)
    }

    fn keyed(keys: Keys, verify_with: Option<P>) -> Self {
        let mut s = Self::whole();
        s.fp = Some(Box::new(Fingerprints {
            keys,
            verify_with,
            codec_error: None,
            marks: Chunked::new(),
            table: HashTable::new(),
            resident: HashMap::new(),
            fresh: Vec::new(),
            lent: None,
            keep_all: false,
            collisions: 0,
            transient: None,
            renamed_from: None,
            batch: Default::default(),
            frontier_bytes: false,
        }));
        s
    }

    /// Whether the store keeps fingerprints instead of objects (hash
    /// compaction: not exact).
    #[inline]
    pub(crate) fn is_compacted(&self) -> bool {
        self.fp
            .as_ref()
            .is_some_and(|f| matches!(f.keys, Keys::Fp(_)))
    }

    /// Whether the store keeps objects only while the search holds them
    /// (hash compaction or collapse): the successor cache, which names
    /// states by id, is then not used.
    #[inline]
    pub(crate) fn drops_objects(&self) -> bool {
        self.fp.is_some()
    }

    /// The first state that did not survive `encode` → `decode` (collapse
    /// under the determinism check), said for a contract error.
    pub(crate) fn codec_error(&self) -> Option<&str> {
        self.fp.as_ref().and_then(|f| f.codec_error.as_deref())
    }

    /// Collisions seen under hash compaction: two unequal objects with one
    /// fingerprint, both resident when the second was made. Most
    /// collisions cannot be seen (the first object is gone by then); a
    /// seen one means the verdict may have missed states.
    pub(crate) fn collisions_seen(&self) -> u64 {
        self.fp.as_ref().map_or(0, |f| f.collisions)
    }

    /// Whether `obj` is the stored state `id`: equal to it, or under hash
    /// compaction of the same fingerprint (which is all the store knows).
    pub(crate) fn matches(&self, id: ProtoId, obj: &P) -> bool {
        match self.fp.as_deref() {
            None => &self.protos[id.index()].p == obj,
            Some(f) => match &f.keys {
                Keys::Fp(_) => f.fp_of(id) == fingerprint(obj),
                Keys::Bytes { ends, .. } if ends.is_object(id) => {
                    f.resident.get(&id).is_some_and(|r| &r.p == obj)
                }
                Keys::Bytes { arena, ends, .. } => {
                    let mut b = Vec::new();
                    obj.encode(&mut b) && slice(arena, ends, id) == b.as_slice()
                }
            },
        }
    }

    /// The search holds `id` (a frame, a frontier entry): its object stays
    /// resident until as many [`unpin`](Self::unpin)s. Nothing to do
    /// without hash compaction, where every object stays.
    #[inline]
    pub(crate) fn pin(&mut self, id: ProtoId) {
        if let Some(f) = &mut self.fp {
            if let Some(r) = f.resident.get_mut(&id) {
                r.pins += 1;
                return;
            }
            let i = f
                .fresh
                .iter()
                .rposition(|(j, _)| *j == id)
                .expect("a state the search holds was just made or is held");
            let (_, p) = f.fresh.swap_remove(i);
            f.resident.insert(
                id,
                Resident {
                    p,
                    pins: 1,
                    forever: false,
                },
            );
        }
    }

    /// Releases a [`pin`](Self::pin); the object is dropped when nothing
    /// holds it any more.
    #[inline]
    pub(crate) fn unpin(&mut self, id: ProtoId) {
        if let Some(f) = &mut self.fp {
            let keep_all = f.keep_all;
            if let hashbrown::hash_map::EntryRef::Occupied(mut e) = f.resident.entry_ref(&id) {
                let r = e.get_mut();
                r.pins = r.pins.saturating_sub(1);
                if r.pins == 0 && !r.forever && !keep_all {
                    e.remove();
                    f.release(id, true);
                }
            }
        }
    }

    /// The 64-bit fingerprint of the stored state `id`, under hash
    /// compaction (as [`fingerprint`] of its object).
    #[inline]
    pub(crate) fn fp_of(&self, id: ProtoId) -> u64 {
        match &self.fp {
            Some(f) => f.fp_of(id),
            None => fingerprint(self.get(id)),
        }
    }

    /// From now on keep every object that is made resident (until
    /// [`reset_residents`](Self::reset_residents)): the counterexample and
    /// error traces are built by searches that hold states of their own.
    pub(crate) fn keep_all(&mut self) {
        if let Some(f) = &mut self.fp {
            f.keep_all = true;
            for (id, p) in std::mem::take(&mut f.fresh) {
                f.resident.entry(id).or_insert(Resident {
                    p,
                    pins: 0,
                    forever: false,
                });
            }
        }
    }

    /// Keeps `id`'s object for the life of the store (a session's initial
    /// object: every search starts there).
    pub(crate) fn keep_forever(&mut self, id: ProtoId) {
        self.pin(id);
        if let Some(f) = &mut self.fp {
            if let Some(r) = f.resident.get_mut(&id) {
                r.forever = true;
            }
        }
    }

    /// For a new search: drops every object but those kept forever, and
    /// every pin.
    pub(crate) fn reset_residents(&mut self) {
        if let Some(f) = &mut self.fp {
            f.set_transient(false);
            f.resident.retain(|_, r| r.forever);
            f.resident.values_mut().for_each(|r| r.pins = 0);
            f.fresh.clear();
            f.lent = None;
            f.keep_all = false;
        }
    }

    /// Objects resident now (hash compaction; for tests).
    #[cfg(test)]
    pub(crate) fn resident(&self) -> usize {
        self.fp
            .as_ref()
            .map_or(self.protos.len(), |f| f.resident.len() + f.fresh.len())
    }

    /// The search's number for the product state `(id, q)`, `q < 2`.
    ///
    /// Kept next to the object because the search looks it up right after
    /// [`intern`](Self::intern) has compared the object: the cache line is
    /// already loaded, where a separate array would cost a miss per
    /// transition.
    #[inline]
    pub fn mark(&self, id: ProtoId, q: AutState) -> DfsNum {
        match &self.fp {
            None => self.protos[id.index()].marks[q.index()],
            Some(f) => f.marks[id.index()][q.index()],
        }
    }

    #[inline]
    pub fn set_mark(&mut self, id: ProtoId, q: AutState, n: DfsNum) {
        match &mut self.fp {
            None => self.protos[id.index()].marks[q.index()] = n,
            Some(f) => f.marks[id.index()][q.index()] = n,
        }
    }

    /// Resets every mark to 0, for a new search.
    pub fn clear_marks(&mut self) {
        self.protos
            .iter_mut()
            .for_each(|s| s.marks = [DfsNum::UNSEEN; 2]);
        if let Some(f) = &mut self.fp {
            f.marks.iter_mut().for_each(|m| *m = [DfsNum::UNSEEN; 2]);
        }
    }

    pub fn len(&self) -> usize {
        match &self.fp {
            None => self.protos.len(),
            Some(f) => f.marks.len(),
        }
    }

    /// The object of `id`. Under hash compaction and collapse only a
    /// resident one (see [`pin`](Self::pin)), the one lent
    /// ([`lend`](Self::lend)) or one just made: the search asks only for
    /// states it holds.
    pub fn get(&self, id: ProtoId) -> &P {
        match &self.fp {
            None => &self.protos[id.index()].p,
            Some(f) => {
                if let Some((j, p)) = &f.lent {
                    if *j == id {
                        return p;
                    }
                }
                match f.resident.get(&id) {
                    Some(r) => &r.p,
                    None => {
                        &f.fresh
                            .iter()
                            .rev()
                            .find(|(j, _)| *j == id)
                            .expect("the search asks only for states it holds or just made")
                            .1
                    }
                }
            }
        }
    }

    /// The index of `p`, storing it if it is new.
    pub fn intern(&mut self, p: P) -> ProtoId {
        match self.intern_or_give_back(p) {
            Ok(id) => id,
            Err((id, p)) => {
                // A state stored already: `p` is a spare now.
                self.spares.put(p);
                id
            }
        }
    }

    /// Interns the objects of `batch` (emptied), each with its letter,
    /// into `out` in order, as [`intern`](Self::intern) one at a time
    /// would; `letter` is set to the letter of the object whose protocol
    /// code runs (for the blame of a panic). A collapse store looks the
    /// batch up together (see [`batch`]).
    pub(crate) fn intern_batch(
        &mut self,
        batch: &mut Vec<(LetterId, P)>,
        letter: &mut LetterId,
        out: &mut Vec<(LetterId, ProtoId)>,
    ) {
        if let Some(f) = &mut self.fp {
            f.intern_batch(batch, letter, out);
        }
        for (l, p) in batch.drain(..) {
            *letter = l;
            out.push((l, self.intern(p)));
        }
    }

    /// The index of `p`: `Ok` if `p` was new and is now stored, `Err` with
    /// `p` given back if an equal object was stored already (the revisit
    /// check compares the two).
    ///
    /// Under hash compaction, `Ok` also for a state seen before whose
    /// object is gone (`p` is kept as its object again) and for a
    /// fingerprint collision with a resident object (`p` is dropped): in
    /// neither case is there an equal stored object to compare with.
    pub(super) fn intern_or_give_back(&mut self, p: P) -> Result<ProtoId, (ProtoId, P)> {
        if let Some(f) = &mut self.fp {
            return f.intern(p);
        }
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
