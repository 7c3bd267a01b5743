//! The side of the store that keeps keys, not objects: hash compaction's
//! fingerprints or the collapse store's bytes, with the objects the search
//! holds now.

use std::hash::BuildHasher;

use hashbrown::hash_table::Entry;
use hashbrown::{HashMap, HashTable};

use crate::ids::{DfsNum, ProtoId};
use crate::protocol::Protocol;

use super::batch::BatchKeys;
use super::chunked::Chunked;
use super::ends::{slice, Ends};
use super::tags::{bytes_hash, grow_bytes_table, tag, INLINE};
use crate::tag_table::TagTable;

/// What names a state in a [`Fingerprints`] store.
pub(super) enum Keys {
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
        /// key of at most [`INLINE_MAX`](super::tags::INLINE_MAX) bytes is
        /// compared by its tag alone, without reading the arena (a cache
        /// miss for most lookups, which find a state seen before); a
        /// longer key's tag is 31 more bits of its hash, so that the arena
        /// is read only for a likely match.
        table: TagTable<ProtoId>,
        /// The ids kept as objects, by [`fingerprint`] (the objects are in
        /// `resident`): looked up first, while there are any, so that an
        /// object equal to one of them is that state whether or not it
        /// writes bytes itself.
        objects: HashTable<ProtoId>,
        /// Scratch for the bytes of the object being interned.
        buf: Vec<u8>,
    },
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
pub(super) struct Fingerprints<P> {
    /// The key of each id.
    pub(super) keys: Keys,
    /// Collapse under the determinism check: the object to decode with,
    /// so that every new state's bytes are checked to give it back.
    pub(super) verify_with: Option<P>,
    /// The first state whose bytes did not give it back (or that wrote
    /// none): the check reports it as a contract violation.
    pub(super) codec_error: Option<String>,
    /// The search's marks of each id (as `Stored::marks`).
    pub(super) marks: Chunked<[DfsNum; 2]>,
    /// Ids by fingerprint under hash compaction (the fingerprint is the
    /// table hash: it is already well mixed). The collapse store keeps its
    /// own table, with tags ([`Keys::Bytes`]).
    pub(super) table: HashTable<ProtoId>,
    /// The objects the search holds now, with their pins.
    pub(super) resident: HashMap<ProtoId, Resident<P>>,
    /// Objects made since the last [`Store::sweep`](super::Store::sweep) that nothing holds
    /// yet: a plain list, cleared at the sweep, because most of them are
    /// states seen before that the search will not pin (a map insertion
    /// and removal for each was a fifth of a collapsed search's time).
    /// [`Store::pin`](super::Store::pin) moves one into `resident`.
    pub(super) fresh: Vec<(ProtoId, P)>,
    /// The object a search holds outside the store and has lent it while
    /// it expands the state ([`Store::lend`](super::Store::lend)): the breadth-first
    /// frontier's objects wait in the level list, not in `resident`, so
    /// that a state costs no map insertion, lookups and removal (a tenth
    /// of a collapsed search's time). Looked at first by [`Store::get`](super::Store::get).
    pub(super) lent: Option<(ProtoId, P)>,
    /// Keep every object made resident (counterexample building): the
    /// shortest-path searches hold states in queues of their own.
    pub(super) keep_all: bool,
    /// Fingerprints found equal for two unequal objects, while both were
    /// resident (the only collisions that can be seen at all).
    pub(super) collisions: u64,
    /// Transient ids (see [`Transient`]), while a search that keeps its
    /// own fingerprint set runs.
    pub(super) transient: Option<Transient>,
    /// Every id from this one up was transient and is given to other
    /// objects from now on (transient ids ended; see
    /// [`Store::drain_renamed`](super::Store::drain_renamed)).
    pub(super) renamed_from: Option<usize>,
    /// Scratch of [`intern_batch`](Self::intern_batch): a batch's keys.
    pub(super) batch: BatchKeys,
    /// See [`Store::frontier_as_bytes`](super::Store::frontier_as_bytes).
    pub(super) frontier_bytes: bool,
}

/// Ids for the objects a search holds now, and only for them: a search
/// that keeps its own set of product fingerprints (the breadth-first
/// search under hash compaction or bitstate hashing) needs no id, mark or
/// table slot for a state it no longer holds, which is what made a
/// compacted state cost as much as an exact one. Ids from `base` up are
/// transient: their fingerprint is in `live`, and an id is released (its
/// table entry and `live` entry dropped) when its object goes.
///
/// A released id is handed out again only once nothing names it: the
/// breadth-first frontier names its states by the ids they had when
/// they were made, after the store has released them, so the id of a
/// state the frontier took ([`Store::take_made`](super::Store::take_made))
/// comes back only when the search [frees](super::Store::free) it, after
/// expanding the state. Going round the id range instead, skipping only
/// the ids in `live`, handed a frontier state's id to another state once
/// some four billion had been made (a transition to a state seen before
/// makes one too): the two were then taken for one.
pub(super) struct Transient {
    /// The first transient id: the permanent ids stay below it.
    pub(super) base: usize,
    /// The next id never handed out.
    pub(super) next: usize,
    /// Released ids that nothing names: handed out first. Each expansion
    /// gives back about as many as it takes, so the list stays as short
    /// as a state's successors are many.
    pub(super) free: Vec<ProtoId>,
    /// Whether the id range ran out with no free id: every id was named
    /// by the frontier (the search holds as many states as ids exist).
    /// The ids handed out since are not unique, and the search must stop
    /// ([`Store::ids_exhausted`](super::Store::ids_exhausted)).
    pub(super) exhausted: bool,
    /// The fingerprint of each transient id in use.
    pub(super) live: HashMap<ProtoId, u64>,
    /// Ids whose objects the search took out since the last sweep
    /// ([`Store::take_made`](super::Store::take_made)): the breadth-first
    /// frontier holds those objects itself, and needs no id for them once
    /// the successors of the state being expanded are entered, so the
    /// sweep releases them (but does not free them: the frontier still
    /// names its states by them).
    pub(super) taken: Vec<ProtoId>,
    /// Ids handed out again since the successor generator last asked
    /// ([`Store::drain_renamed`](super::Store::drain_renamed)): what it
    /// worked out under such an id (an object's listing, its scratch
    /// clone, the determinism check's mark) was of another object.
    pub(super) renamed: Vec<ProtoId>,
}

/// The end of the id range ([`ProtoId`] is 32 bits, and the top two values
/// are kept out of use as the search's own sentinels).
const ID_END: usize = u32::MAX as usize - 2;

impl Transient {
    /// A transient id not in use: a free one, else the next one never
    /// handed out. Once the range is used up with nothing free, the search
    /// holds about four billion states (more than a state limit allows):
    /// the id handed out is then the first one, `exhausted` is set, and the
    /// search stops as at its state limit.
    fn allocate(&mut self) -> ProtoId {
        if let Some(id) = self.free.pop() {
            debug_assert!(!self.live.contains_key(&id), "a free id in use");
            self.renamed.push(id);
            return id;
        }
        if self.next >= ID_END {
            self.exhausted = true;
            return ProtoId::new(self.base);
        }
        let id = ProtoId::new(self.next);
        self.next += 1;
        id
    }
}

/// A resident object under hash compaction.
pub(super) struct Resident<P> {
    pub(super) p: P,
    /// Frames and frontier entries that hold the id.
    pub(super) pins: u32,
    /// Never dropped (the initial object of a session).
    pub(super) forever: bool,
}

impl<P: Protocol> Fingerprints<P> {
    /// [`Store::intern_or_give_back`](super::Store::intern_or_give_back) without objects.
    pub(super) fn intern(&mut self, p: P) -> Result<ProtoId, (ProtoId, P)> {
        let next = ProtoId::new(self.marks.len());
        // Whether `p` wrote its bytes (collapse): only then is there
        // something to decode.
        let mut encoded = false;
        // Whether a new state is kept as its object (collapse, no bytes).
        let mut as_object = false;
        let (id, new) = match &mut self.keys {
            Keys::Fp(fps) => {
                let fp = fingerprint(&p);
                let tr = &mut self.transient;
                let live = tr.as_ref().map(|t| &t.live);
                let key = |i: ProtoId| match live.and_then(|l| l.get(&i)) {
                    Some(&f) => f,
                    None => fps[i.index()],
                };
                match self.table.entry(fp, |&i| key(i) == fp, |&i| key(i)) {
                    Entry::Occupied(e) => (*e.get(), false),
                    Entry::Vacant(v) => match tr {
                        Some(t) => {
                            let id = t.allocate();
                            v.insert(id);
                            t.live.insert(id, fp);
                            (id, true)
                        }
                        None => {
                            v.insert(next);
                            fps.push(fp);
                            (next, true)
                        }
                    },
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
                            table.insert_at(slot, t, next);
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
            if self.transient.is_none() {
                self.marks.push([DfsNum::UNSEEN; 2]);
            }
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
            // determinism check verifies): no resident object to compare
            // with, a map lookup and two objects' heap blocks read for
            // most transitions of a search (a tenth of its time). Kept
            // until the sweep like a new state's (or, under `keep_all`,
            // made resident if no object of the id is); a resident object
            // of the id, if any, stays the one `get` and `pin` find.
            self.revive(id, p);
            return Ok(id);
        }
        match self.resident.get(&id) {
            Some(r) if r.p == p => Err((id, p)),
            Some(_) => {
                if matches!(self.keys, Keys::Bytes { .. }) {
                    // Equal bytes, unequal objects (seen only under the
                    // determinism check: without it, a collapse store
                    // returned above): the codec merges states.
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

    /// The fingerprint of the stored state `id` (hash compaction).
    pub(super) fn fp_of(&self, id: ProtoId) -> u64 {
        if let Some(t) = &self.transient {
            if let Some(&f) = t.live.get(&id) {
                return f;
            }
            // The state being expanded, whose object the frontier held
            // (its id was released when it was taken): asked for only
            // when the state is its own successor, a stutter step.
            if let Some((_, p)) = self.lent.as_ref().filter(|(j, _)| *j == id) {
                return fingerprint(p);
            }
        }
        match &self.keys {
            Keys::Fp(fps) => fps[id.index()],
            Keys::Bytes { .. } => unreachable!("collapse stores keep no fingerprints"),
        }
    }

    /// Drops the transient id `id` (see [`Transient`]) unless its object
    /// is still held: resident, or made since the last sweep. A `reusable`
    /// id goes to the free list; the id of a state the frontier took does
    /// not, because the frontier still names the state by it.
    pub(super) fn release(&mut self, id: ProtoId, reusable: bool) {
        let Some(t) = &mut self.transient else { return };
        if id.index() < t.base || self.resident.contains_key(&id) {
            return;
        }
        if self.fresh.iter().any(|(j, _)| *j == id) {
            return;
        }
        if let Some(fp) = t.live.remove(&id) {
            if let Ok(e) = self.table.find_entry(fp, |&i| i == id) {
                e.remove();
            }
            if reusable {
                debug_assert!(!t.free.contains(&id), "an id freed twice");
                t.free.push(id);
            }
        }
    }

    /// Hands a released id back for reuse (see
    /// [`Store::free`](super::Store::free)).
    pub(super) fn free(&mut self, id: ProtoId) {
        let Some(t) = &mut self.transient else { return };
        let named = self.lent.as_ref().is_some_and(|(j, _)| *j == id);
        if id.index() < t.base
            || named
            || t.live.contains_key(&id)
            || self.resident.contains_key(&id)
        {
            return;
        }
        debug_assert!(!t.free.contains(&id), "an id freed twice");
        t.free.push(id);
    }

    /// Starts or ends transient ids (see [`Transient`]); ending drops
    /// every transient id (the caller has dropped their objects).
    pub(super) fn set_transient(&mut self, on: bool) {
        if let Some(t) = self.transient.take() {
            // The next search numbers its states from `base` again.
            self.renamed_from = Some(self.renamed_from.map_or(t.base, |b| b.min(t.base)));
            let live = t.live;
            self.table.retain(|i| !live.contains_key(i));
            self.resident.retain(|i, _| !live.contains_key(i));
        }
        if on && matches!(self.keys, Keys::Fp(_)) {
            let base = self.marks.len();
            self.transient = Some(Transient {
                base,
                next: base,
                free: Vec::new(),
                exhausted: false,
                live: HashMap::new(),
                taken: Vec::new(),
                renamed: Vec::new(),
            });
        }
    }

    /// Makes `p` the object of `id` until the next sweep, unless the
    /// search pins it (or everything is kept).
    pub(super) fn revive(&mut self, id: ProtoId, p: P) {
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
