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
//! keep it ([`Store::sweep`]). A state reached again whose object is gone is
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

use std::hash::BuildHasher;

use hashbrown::hash_table::Entry;
use hashbrown::{DefaultHashBuilder, HashMap, HashTable};

use crate::protocol::Protocol;

use crate::ids::{AutState, DfsNum, ProtoId};

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

/// A list that grows in chunks of about 1 MiB (a power of two of
/// entries) instead of one doubling buffer: the unused capacity is at most
/// one chunk, where a doubling `Vec` leaves up to half its capacity unused
/// and, while it moves to a buffer twice as large, holds both (three times
/// the entries: the peak of a search's heap). Growing copies nothing. The
/// first chunk grows as a `Vec` until it is full, so that a small check
/// does not take a whole chunk.
struct Chunked<T> {
    chunks: Vec<Vec<T>>,
    /// log2 of the entries a chunk holds.
    bits: u32,
    len: usize,
}

impl<T> Chunked<T> {
    fn new() -> Self {
        let per = (1usize << 20) / std::mem::size_of::<T>().max(1);
        Chunked {
            chunks: Vec::new(),
            bits: per.max(1).ilog2(),
            len: 0,
        }
    }

    #[inline]
    fn len(&self) -> usize {
        self.len
    }

    #[inline]
    fn push(&mut self, v: T) {
        let full = 1usize << self.bits;
        match self.chunks.last_mut() {
            Some(c) if c.len() < full => c.push(v),
            _ => {
                // The first chunk starts small; the others are made whole.
                let cap = if self.chunks.is_empty() { 0 } else { full };
                let mut c = Vec::with_capacity(cap);
                c.push(v);
                self.chunks.push(c);
            }
        }
        self.len += 1;
    }

    fn iter(&self) -> impl Iterator<Item = &T> {
        self.chunks.iter().flatten()
    }

    fn iter_mut(&mut self) -> impl Iterator<Item = &mut T> {
        self.chunks.iter_mut().flatten()
    }
}

impl<T> std::ops::Index<usize> for Chunked<T> {
    type Output = T;
    #[inline]
    fn index(&self, i: usize) -> &T {
        &self.chunks[i >> self.bits][i & ((1 << self.bits) - 1)]
    }
}

impl<T> std::ops::IndexMut<usize> for Chunked<T> {
    #[inline]
    fn index_mut(&mut self, i: usize) -> &mut T {
        &mut self.chunks[i >> self.bits][i & ((1 << self.bits) - 1)]
    }
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
}

/// What names a state in a [`Fingerprints`] store.
enum Keys {
    /// Hash compaction: a 64-bit fingerprint per id.
    Fp(Vec<u64>),
    /// Collapse: the object's bytes ([`Protocol::encode`]), id `i`'s at
    /// `arena[ends.range(i)]`. A state whose object wrote no bytes
    /// (`encode` is `false` for it: it holds what bytes cannot rebuild) is
    /// kept as its object instead, resident for the life of the store,
    /// marked in `ends` ([`Ends::is_object`]) and its id in `objects`.
    Bytes {
        arena: Vec<u8>,
        ends: Ends,
        /// Ids by the hash of their bytes, each with its key's [`tag`]: a
        /// key of at most [`INLINE_MAX`] bytes is compared by its tag alone,
        /// without reading the arena (a cache miss for most lookups, which
        /// find a state seen before); a longer key's tag is 31 more bits of
        /// its hash, so that the arena is read only for a likely match.
        table: TagTable,
        /// The ids kept as objects, by [`fingerprint`] (the objects are in
        /// `resident`): looked up first, while there are any, so that an
        /// object equal to one of them is that state whether or not it
        /// writes bytes itself.
        objects: HashTable<ProtoId>,
        /// Scratch for the bytes of the object being interned.
        buf: Vec<u8>,
    },
}

/// The table hash of a collapsed state's bytes (a fixed seed: the bytes
/// are rehashed when the table grows).
fn bytes_hash(b: &[u8]) -> u64 {
    foldhash::fast::FixedState::with_seed(FINGERPRINT_SEED).hash_one(b)
}

/// The collapse store's table: the ids by the hash of their bytes, one
/// word a slot (the key's [`tag`] and the id + 1; 0 is a free slot),
/// probed linearly, at most 3/4 full. Why not hashbrown's table (as the
/// object store uses): its control bytes and its slots are two arrays, so
/// that a lookup missed the cache twice, once in each (two thirds of a
/// collapsed `ring` search's lookup time); here the tag that decides (a
/// short key is its tag) is in the slot itself, and the next slots probed
/// are mostly in the same cache line. Same memory: 8 bytes a slot where
/// hashbrown's were 8 and a control byte.
#[derive(Default)]
struct TagTable {
    slots: Vec<u64>,
    len: usize,
}

impl TagTable {
    /// Whether one more id would fill the table past 3/4 (an empty table
    /// is full): it must grow first.
    #[inline]
    fn is_full(&self) -> bool {
        4 * (self.len + 1) > 3 * self.slots.len()
    }

    /// The id whose key has hash `h` and tag `t` and that `same` accepts,
    /// or `Err` with the free slot where such an id goes. The table must
    /// not be full (a free slot ends every probe).
    #[inline]
    fn find(
        &self,
        h: u64,
        t: u32,
        mut same: impl FnMut(ProtoId) -> bool,
    ) -> Result<ProtoId, usize> {
        let mask = self.slots.len() - 1;
        let mut i = h as usize & mask;
        loop {
            let s = self.slots[i];
            if s == 0 {
                return Err(i);
            }
            if (s >> 32) as u32 == t {
                let id = ProtoId::new((s as u32 - 1) as usize);
                if same(id) {
                    return Ok(id);
                }
            }
            i = (i + 1) & mask;
        }
    }

    /// Puts `id` with its key's tag `t` in the free slot `slot` (from
    /// [`find`](Self::find)).
    #[inline]
    fn insert_at(&mut self, slot: usize, id: ProtoId, t: u32) {
        // Ids stay below u32::MAX (the searches stop at u32::MAX - 2
        // states), so id + 1 fits its half.
        debug_assert!(id.raw() < u32::MAX);
        self.slots[slot] = u64::from(t) << 32 | u64::from(id.raw() + 1);
        self.len += 1;
    }
}

/// The longest key a collapse table entry holds in its tag (see [`tag`]).
const INLINE_MAX: usize = 3;

/// The tag bit of a key held whole in its tag.
const INLINE: u32 = 1 << 31;

/// The tag of a key whose [`bytes_hash`] is `h`, kept in the collapse
/// table next to the id: a key of at most [`INLINE_MAX`] bytes is the tag
/// (its bytes, its length and the [`INLINE`] bit: equal tags, equal
/// keys), a longer one is bits of its hash that the table's probe did
/// not use (equal keys have equal tags, so unequal tags skip the arena).
#[inline]
fn tag(key: &[u8], h: u64) -> u32 {
    if key.len() <= INLINE_MAX {
        let mut t = INLINE | (key.len() as u32) << 24;
        for (i, &b) in key.iter().enumerate() {
            t |= u32::from(b) << (8 * i);
        }
        t
    } else {
        // The table takes the low bits for the slot: bits 25..56 are left
        // (but for tables of over 2^25 slots, whose tags then repeat some
        // of the slot's bits: a weaker filter, never a wrong answer).
        (h >> 25) as u32 & !INLINE
    }
}

/// The mark on a collapse arena's listed end of a state kept as its
/// object (whose bytes are none): no arena reaches 2⁶³ bytes.
const AS_OBJECT: u64 = 1 << 63;

/// Where each id's bytes lie in a collapse arena.
enum Ends {
    /// Every key so far is `width` bytes long (`None`: no key yet), id
    /// `i`'s at `arena[i * width..]`: no record per id while an object's
    /// encoding has one width, as a fixed-layout state vector has. That is
    /// 8 bytes a state less, and one cache miss less for each lookup of a
    /// state seen before (most of a search's lookups): the miss on the
    /// record was a tenth of a search's time (`ring` n = 11).
    Uniform { width: Option<usize>, count: usize },
    /// Keys of several widths, or states kept as objects: id `i`'s end
    /// offset at `[i]` (marked with [`AS_OBJECT`] for a state kept as its
    /// object), its start at `[i - 1]`.
    Listed(Chunked<u64>),
}

impl Ends {
    fn new() -> Self {
        Ends::Uniform {
            width: None,
            count: 0,
        }
    }

    /// The number of ids recorded.
    fn len(&self) -> usize {
        match self {
            Ends::Uniform { count, .. } => *count,
            Ends::Listed(ends) => ends.len(),
        }
    }

    /// The arena range of id `i` (empty for a state kept as its object).
    #[inline]
    fn range(&self, i: ProtoId) -> std::ops::Range<usize> {
        match self {
            Ends::Uniform { width, .. } => {
                let w = width.unwrap_or(0);
                i.index() * w..(i.index() + 1) * w
            }
            Ends::Listed(ends) => {
                let end = (ends[i.index()] & !AS_OBJECT) as usize;
                let start = i
                    .index()
                    .checked_sub(1)
                    .map_or(0, |j| (ends[j] & !AS_OBJECT) as usize);
                start..end
            }
        }
    }

    /// Whether id `i` is a state kept as its object.
    #[inline]
    fn is_object(&self, i: ProtoId) -> bool {
        matches!(self, Ends::Listed(ends) if ends[i.index()] & AS_OBJECT != 0)
    }

    /// The listed form, made from the uniform one if need be.
    fn listed(&mut self) -> &mut Chunked<u64> {
        if let Ends::Uniform { width, count } = *self {
            let w = width.unwrap_or(0);
            let mut listed = Chunked::new();
            for i in 1..=count {
                listed.push((i * w) as u64);
            }
            *self = Ends::Listed(listed);
        }
        match self {
            Ends::Listed(ends) => ends,
            Ends::Uniform { .. } => unreachable!("made listed above"),
        }
    }

    /// Records a new id's key of `len` bytes, the arena now `arena_len`
    /// long. A key of another width than those before turns the uniform
    /// layout into the listed one.
    fn push(&mut self, len: usize, arena_len: usize) {
        match self {
            Ends::Uniform { width: None, count } => {
                *self = Ends::Uniform {
                    width: Some(len),
                    count: *count + 1,
                }
            }
            Ends::Uniform {
                width: Some(w),
                count,
            } if *w == len => *count += 1,
            _ => self.listed().push(arena_len as u64),
        }
    }

    /// Records a new id kept as its object (no bytes), the arena
    /// `arena_len` long.
    fn push_object(&mut self, arena_len: usize) {
        self.listed().push(arena_len as u64 | AS_OBJECT);
    }
}

/// Id `i`'s bytes in a collapse arena.
#[inline]
fn slice<'a>(arena: &'a [u8], ends: &Ends, i: ProtoId) -> &'a [u8] {
    &arena[ends.range(i)]
}

/// The seed of the fingerprint hash: fixed, so that a check under hash
/// compaction is reproducible (a collision, if one ever hides a state,
/// hides it again on the next run, where a random seed would make the
/// verdict flicker).
const FINGERPRINT_SEED: u64 = 0x5851_f42d_4c95_7f2d;

/// The 64-bit fingerprint of an object under hash compaction: foldhash's
/// *quality* variant (a folded 128-bit multiply per word and a final
/// avalanche), not the table hash of the exact store (the fast variant with
/// a random seed), so that the omission bound's assumption of a uniform
/// hash is not leaned on a hash tuned for speed over quality.
pub(crate) fn fingerprint<P: std::hash::Hash>(p: &P) -> u64 {
    foldhash::quality::FixedState::with_seed(FINGERPRINT_SEED).hash_one(p)
}

/// The upper bound on the probability that hash compaction hid a state,
/// after `n` distinct fingerprints of 64 bits were stored: the chance that
/// any two of `n` uniform 64-bit values are equal is at most
/// `n(n−1)/2 · 2⁻⁶⁴ < n² / 2⁶⁵` (the birthday bound; Holzmann's hash
/// compaction). Capped at 1.
pub(crate) fn omission_bound(n: u64) -> f64 {
    let n = n as f64;
    (n * n / 2f64.powi(65)).min(1.0)
}

/// The side of the store that keeps keys, not objects: hash compaction
/// or collapse.
struct Fingerprints<P> {
    /// The key of each id.
    keys: Keys,
    /// Collapse under the determinism check: the object to decode with,
    /// so that every new state's bytes are checked to give it back.
    verify_with: Option<P>,
    /// The first state whose bytes did not give it back (or that wrote
    /// none): the check reports it as a contract violation.
    codec_error: Option<String>,
    /// The search's marks of each id (as `Stored::marks`).
    marks: Chunked<[DfsNum; 2]>,
    /// Ids by fingerprint under hash compaction (the fingerprint is the
    /// table hash: it is already well mixed). The collapse store keeps its
    /// own table, with tags ([`Keys::Bytes`]).
    table: HashTable<ProtoId>,
    /// The objects the search holds now, with their pins.
    resident: HashMap<ProtoId, Resident<P>>,
    /// Objects made since the last [`Store::sweep`] that nothing holds
    /// yet: a plain list, cleared at the sweep, because most of them are
    /// states seen before that the search will not pin (a map insertion
    /// and removal for each was a fifth of a collapsed search's time).
    /// [`Store::pin`] moves one into `resident`.
    fresh: Vec<(ProtoId, P)>,
    /// The object a search holds outside the store and has lent it while
    /// it expands the state ([`Store::lend`]): the breadth-first
    /// frontier's objects wait in the level list, not in `resident`, so
    /// that a state costs no map insertion, lookups and removal (a tenth
    /// of a collapsed search's time). Looked at first by [`Store::get`].
    lent: Option<(ProtoId, P)>,
    /// Keep every object made resident (counterexample building): the
    /// shortest-path searches hold states in queues of their own.
    keep_all: bool,
    /// Fingerprints found equal for two unequal objects, while both were
    /// resident (the only collisions that can be seen at all).
    collisions: u64,
}

/// A resident object under hash compaction.
struct Resident<P> {
    p: P,
    /// Frames and frontier entries that hold the id.
    pins: u32,
    /// Never dropped (the initial object of a session).
    forever: bool,
}

impl<P: Protocol> Store<P> {
    pub(super) fn new() -> Self {
        Store {
            protos: Chunked::new(),
            table: HashTable::new(),
            hasher: DefaultHashBuilder::default(),
            fp: None,
        }
    }

    /// An empty store under hash compaction (see the module docs).
    pub(crate) fn fingerprinted() -> Self {
        Self::keyed(Keys::Fp(Vec::new()), None)
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
        let mut s = Self::new();
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
                Keys::Fp(fps) => fps[id.index()] == fingerprint(obj),
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
                }
            }
        }
    }

    /// Hands the object of `id`, just made by a probe (or resident), to a
    /// search that holds it outside the store until it expands the state
    /// ([`lend`](Self::lend)), instead of [`pin`](Self::pin)ning it: the
    /// breadth-first frontier. `None` for a store that keeps every object
    /// (nothing to hold), and for a state whose object was already handed
    /// out since the last [`sweep`](Self::sweep) (the caller holds it).
    pub(crate) fn take_made(&mut self, id: ProtoId) -> Option<P> {
        let f = self.fp.as_mut()?;
        if let Some((j, p)) = &f.lent {
            // A state that is its own successor (a stutter step).
            if *j == id {
                return Some(p.clone());
            }
        }
        if let Some(r) = f.resident.get(&id) {
            return Some(r.p.clone());
        }
        let i = f.fresh.iter().rposition(|(j, _)| *j == id)?;
        Some(f.fresh.swap_remove(i).1)
    }

    /// Makes `p` the object of `id` while the search expands it (see
    /// [`take_made`](Self::take_made)); given back by
    /// [`take_lent`](Self::take_lent). Only for a store that drops objects.
    #[inline]
    pub(crate) fn lend(&mut self, id: ProtoId, p: P) {
        if let Some(f) = &mut self.fp {
            f.lent = Some((id, p));
        }
    }

    /// Ends a [`lend`](Self::lend): the object is the caller's again.
    #[inline]
    pub(crate) fn take_lent(&mut self) -> Option<P> {
        self.fp.as_mut()?.lent.take().map(|(_, p)| p)
    }

    /// Drops the objects made since the last sweep that the search did not
    /// pin: states it had seen before, whose object it does not need.
    #[inline]
    pub(crate) fn sweep(&mut self) {
        if let Some(f) = &mut self.fp {
            f.fresh.clear();
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
            Ok(id) | Err((id, _)) => id,
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

impl<P: Protocol> Fingerprints<P> {
    /// [`Store::intern_or_give_back`] without objects.
    fn intern(&mut self, p: P) -> Result<ProtoId, (ProtoId, P)> {
        let next = ProtoId::new(self.marks.len());
        // Whether `p` wrote its bytes (collapse): only then is there
        // something to decode.
        let mut encoded = false;
        // Whether a new state is kept as its object (collapse, no bytes).
        let mut as_object = false;
        let (id, new) = match &mut self.keys {
            Keys::Fp(fps) => {
                let fp = fingerprint(&p);
                match self
                    .table
                    .entry(fp, |&i| fps[i.index()] == fp, |&i| fps[i.index()])
                {
                    Entry::Occupied(e) => (*e.get(), false),
                    Entry::Vacant(v) => {
                        v.insert(next);
                        fps.push(fp);
                        (next, true)
                    }
                }
            }
            Keys::Bytes {
                arena,
                ends,
                table,
                objects,
                buf,
            } => {
                buf.clear();
                encoded = p.encode(buf);
                let resident = &self.resident;
                let of = |i: &ProtoId| &resident[i].p;
                let found = if objects.is_empty() {
                    None
                } else {
                    let h = fingerprint(&p);
                    objects.find(h, |i| of(i) == &p).copied()
                };
                if let Some(id) = found {
                    // Equal to a state kept as its object: that state,
                    // whatever `p` wrote.
                    (id, false)
                } else if !encoded {
                    // A state that bytes cannot rebuild: kept as its
                    // object, for the life of the store.
                    objects.insert_unique(fingerprint(&p), next, |i| fingerprint(of(i)));
                    ends.push_object(arena.len());
                    as_object = true;
                    (next, true)
                } else {
                    if table.is_full() {
                        grow_bytes_table(table, arena, ends);
                    }
                    let h = bytes_hash(buf);
                    let t = tag(buf, h);
                    let (a, e) = (&*arena, &*ends);
                    match table.find(h, t, |i| {
                        t & INLINE != 0 || slice(a, e, i) == buf.as_slice()
                    }) {
                        Ok(id) => (id, false),
                        Err(slot) => {
                            table.insert_at(slot, next, t);
                            arena.extend_from_slice(buf);
                            ends.push(buf.len(), arena.len());
                            (next, true)
                        }
                    }
                }
            }
        };
        // Every object interned, new or not: two unequal objects that
        // share bytes cannot both come back from them, so this catches a
        // merge whichever of the two came first.
        if let (Some(t), Keys::Bytes { buf, .. }, true) = (&self.verify_with, &self.keys, encoded) {
            if self.codec_error.is_none() && t.decode(buf).as_ref() != Some(&p) {
                self.codec_error = Some(format!(
                    "decode(encode(x)) did not give back x for the state whose bytes are {:?}: \
                     two unequal states may share bytes, which would merge them",
                    DebugBytes(buf)
                ));
            }
        }
        if new {
            self.marks.push([DfsNum::UNSEEN; 2]);
            if as_object {
                self.resident.insert(
                    id,
                    Resident {
                        p,
                        pins: 0,
                        forever: true,
                    },
                );
            } else {
                self.revive(id, p);
            }
            return Ok(id);
        }
        if self.verify_with.is_none() && matches!(self.keys, Keys::Bytes { .. }) {
            // Equal bytes name one state (the contract, which only the
            // determinism check verifies): no object to compare with, so
            // no lookup of the resident ones, a tenth of a collapsed
            // search's time. Kept until the sweep like a new state's; a
            // resident object of the id, if any, stays the one used.
            self.revive(id, p);
            return Ok(id);
        }
        if self.verify_with.is_none() && !self.keep_all && matches!(self.keys, Keys::Bytes { .. }) {
            // Equal bytes are the same state (the determinism check, which
            // keeps `verify_with`, verifies the codec): no need to look for
            // a resident object to compare with, a map lookup and two
            // objects' heap blocks read for most transitions of a search.
            // A resident object of `id` stays the one `get` and `pin`
            // find; this one waits in `fresh` for the sweep like any other.
            self.fresh.push((id, p));
            return Ok(id);
        }
        match self.resident.get(&id) {
            Some(r) if r.p == p => Err((id, p)),
            Some(_) => {
                if matches!(self.keys, Keys::Bytes { .. }) {
                    // Equal bytes, unequal objects: the codec merges states.
                    if self.codec_error.is_none() {
                        self.codec_error = Some(
                            "two unequal states wrote the same bytes, which merges them".into(),
                        );
                    }
                } else {
                    self.collisions += 1;
                }
                Ok(id)
            }
            None => {
                self.revive(id, p);
                Ok(id)
            }
        }
    }

    /// Makes `p` the object of `id` until the next sweep, unless the
    /// search pins it (or everything is kept).
    fn revive(&mut self, id: ProtoId, p: P) {
        if self.keep_all {
            self.resident.entry(id).or_insert(Resident {
                p,
                pins: 0,
                forever: false,
            });
        } else {
            self.fresh.push((id, p));
        }
    }
}

/// Doubles a collapse store's table, re-inserting the states in id order
/// (those kept as objects are not in it): as [`Store::grow_table`], so
/// that the rehash streams through the arena where hashbrown's own, in
/// table order, would read a random state's bytes each time.
#[cold]
fn grow_bytes_table(table: &mut TagTable, arena: &[u8], ends: &Ends) {
    let mut grown = TagTable {
        slots: vec![0; (2 * table.slots.len()).max(64)],
        len: 0,
    };
    for i in (0..ends.len()).map(ProtoId::new) {
        if !ends.is_object(i) {
            let key = slice(arena, ends, i);
            let h = bytes_hash(key);
            let t = tag(key, h);
            // Ids are unique: the first free slot is the one.
            match grown.find(h, t, |_| false) {
                Err(slot) => grown.insert_at(slot, i, t),
                Ok(_) => unreachable!("nothing compares equal"),
            }
        }
    }
    *table = grown;
}

/// Bytes shown in hex, at most 32 of them.
struct DebugBytes<'a>(&'a [u8]);

impl std::fmt::Debug for DebugBytes<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for b in self.0.iter().take(32) {
            write!(f, "{b:02x}")?;
        }
        if self.0.len() > 32 {
            write!(f, "… ({} bytes)", self.0.len())?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod collapse_tests {
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

    /// Keys that differ only in their length or in one byte, short enough
    /// to be held in a tag and longer.
    fn keys() -> Vec<Vec<u8>> {
        let mut keys = vec![
            vec![],
            vec![0],
            vec![0, 0],
            vec![0, 0, 0],
            vec![0, 0, 0, 0],
            vec![1],
            vec![0, 1],
            vec![1, 0],
            vec![0, 0, 1],
            vec![255, 255, 255],
            vec![255, 255, 255, 255],
            vec![1, 2, 3, 4, 5],
        ];
        // Enough 3-byte keys for the table to grow several times.
        keys.extend((0..3000u32).map(|i| i.to_le_bytes()[..3].to_vec()));
        keys.sort();
        keys.dedup();
        keys
    }

    /// A tag of a short key is the key: equal tags, equal keys. A longer
    /// key's tag is bits of its hash, never mistaken for a short key's.
    #[test]
    fn a_short_keys_tag_is_the_key_and_a_long_keys_is_its_hash() {
        let keys = keys();
        let t = |k: &[u8]| tag(k, bytes_hash(k));
        for k in &keys {
            assert_eq!(t(k) & INLINE != 0, k.len() <= INLINE_MAX, "{k:?}");
            for l in &keys {
                if k.len() <= INLINE_MAX || l.len() <= INLINE_MAX {
                    assert_eq!(t(k) == t(l), k == l, "{k:?} {l:?}");
                }
            }
        }
        // The hash form is the same for equal keys (it is compared first).
        assert_eq!(t(&[9; 40]), t(&[9; 40]));
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
        let mut whole = Store::new();
        let c = whole.intern(Bytes(vec![3]));
        assert_eq!(whole.take_made(c), None);
        whole.lend(c, Bytes(vec![3]));
        assert_eq!(whole.take_lent(), None);
        assert_eq!(whole.get(c), &Bytes(vec![3]));
    }
}

#[cfg(test)]
mod chunked_tests {
    use super::Chunked;

    /// Entries keep their index across chunk boundaries; every chunk but
    /// the first is allocated whole, and none is ever more than full (the
    /// unused capacity is at most one chunk).
    #[test]
    fn chunks_index_across_boundaries_and_leave_at_most_one_chunk_unused() {
        let mut c: Chunked<[u64; 2]> = Chunked::new();
        let full = 1usize << c.bits;
        assert_eq!(full, 65_536, "1 MiB of 16-byte entries");
        let n = 2 * full + full / 3;
        for i in 0..n {
            c.push([i as u64, !(i as u64)]);
        }
        assert_eq!(c.len(), n);
        assert_eq!(c.chunks.len(), 3);
        for i in [0, full - 1, full, 2 * full - 1, 2 * full, n - 1] {
            assert_eq!(c[i], [i as u64, !(i as u64)]);
        }
        c[full][0] = 7;
        assert_eq!(c.iter().nth(full), Some(&[7, !(full as u64)]));
        assert!(c.chunks.iter().all(|ch| ch.capacity() == full));
        let unused: usize = c.chunks.iter().map(|ch| ch.capacity() - ch.len()).sum();
        assert!(unused < full);
        c.iter_mut().for_each(|e| e[1] = 0);
        assert!(c.iter().all(|e| e[1] == 0));
    }
}
