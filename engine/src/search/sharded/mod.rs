//! The parallel search's store: product states in up to 256 shards, each
//! behind its own lock. During a breadth-first level each shard is *owned*
//! by one thread (shard `s` by thread `s % threads`), which takes its lock
//! once for the whole phase ([`Sharded::locked`]): it expands the states
//! of its shards in place and deduplicates every successor that falls in
//! them; the others hand it theirs. No lock, table or object's cache line
//! moves between the cores per successor, and each shard is touched by one
//! thread at a time.
//!
//! A store keeps its states in one of two ways, chosen when it is made:
//! - **whole objects** ([`Sharded::new`]): each protocol object as it is.
//!   Protocol objects are only `Send`, not `Sync` (a
//!   [`Message`](crate::Message) payload need not be): a stored object is
//!   only ever used by the thread that holds its shard's lock
//!   ([`Locked::object`]), so every `Protocol` runs in parallel without a
//!   new bound on the trait and without a clone;
//! - **bytes** ([`Sharded::bytes`]): each object as the bytes it writes
//!   ([`Protocol::encode`](crate::Protocol::encode)), in an arena per
//!   shard, as the one-thread collapse store keeps them. No object is ever
//!   stored: the thread that expands a state decodes it, and the thread
//!   that makes a successor encodes it, so objects (and their heap blocks)
//!   never cross threads; only bytes do.
//!
//! Each product state keeps only its automaton state for ever (next to
//! the object, or before its bytes): no parent link. The counterexample is
//! rebuilt, as the one-thread search rebuilds its own, by a breadth-first
//! search through the stored states ([`Sharded::find`]). What only the
//! level being built needs — the *key*: the position of the parent in its
//! level and the index of the successor in the parent's expansion — is kept
//! apart, for that level's states only (`Shard::keys`), and dropped when
//! the next level starts ([`Sharded::start_level`]). The level itself is
//! implicit: an object stored at or after the shard's watermark (set when
//! a level starts) is of the level being built. A state found by two
//! parents of the same level keeps the smaller key, whatever the order in
//! which they came, so that once a level is done every state's key is that
//! of its first discovery by the one-thread search.

use std::hash::BuildHasher;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

use hashbrown::{DefaultHashBuilder, HashMap};

use crate::ids::AutState;
use crate::tag_table::TagTable;

mod arena;
mod ids;
mod shard;

use arena::Arena;
use ids::{id_of, split};
pub(super) use ids::{key, shard_of_id, Key, StateId, MAX_AUT_STATES, MAX_SHARDS};
use shard::{tag, More, Probe, Shard, Stored};

/// The shard is taken from bits the table does not use for its slots,
/// and those must be well mixed: the store's final mix serves both.
use crate::successors::mix;

/// The most product states the store holds, whatever the state limit:
/// as on one thread (`reachability` caps the limit the same way), and it
/// keeps every level's positions in 32 bits.
pub(super) const MAX_STATES: u64 = u32::MAX as u64 - 2;

/// What [`Locked::visit`] did with a successor.
pub(super) enum Visit {
    /// Stored now.
    New(StateId),
    /// Already stored at this level with a larger key: the key is now the
    /// caller's.
    Lowered(StateId),
    /// Already stored (at an earlier level, or at this one with a smaller
    /// key): nothing to do.
    Seen,
    /// New, but beyond the depth limit: not stored.
    TooDeep,
    /// New, but the state limit is reached: not stored.
    Full,
}

/// A successor to deduplicate, for [`Locked::visit`].
pub(super) struct Pending<P> {
    pub obj: P,
    pub hash: u64,
    pub q: AutState,
    pub key: Key,
    /// Its parent (an error in comparing it is traced to the parent).
    pub parent: StateId,
    /// The action that made it (an error in comparing it is that
    /// action's).
    pub letter: crate::alphabet::LetterId,
}

/// A shard's lock on a cache line (two, for the adjacent-line prefetcher)
/// of its own: with the locks packed side by side, two workers locking
/// different shards fought over one line.
#[repr(align(128))]
struct Padded<T>(T);

/// The sharded store (see the module docs).
pub(super) struct Sharded<P> {
    shards: Box<[Padded<Mutex<Shard<P>>>]>,
    hasher: DefaultHashBuilder,
    /// Objects are kept as bytes (see the module docs).
    bytes: bool,
    /// Product states stored.
    states: AtomicU64,
    /// The level being built (the initial state's is 0).
    max_depth: u64,
    max_states: u64,
}

impl<P: Eq + std::hash::Hash + Clone> Sharded<P> {
    /// An empty store of whole objects in `shards` shards (at most
    /// [`MAX_SHARDS`]) that stores no state deeper than `max_depth` and at
    /// most `max_states` states (and never more than [`MAX_STATES`]).
    pub(super) fn new(shards: usize, max_depth: u64, max_states: u64) -> Self {
        let shards = (0..shards.clamp(1, MAX_SHARDS))
            .map(|_| {
                Padded(Mutex::new(Shard {
                    objects: Vec::new(),
                    arena: Arena::default(),
                    table: TagTable::default(),
                    more: HashMap::new(),
                    watermark: 0,
                    keys: Vec::new(),
                    fresh_more: Vec::new(),
                }))
            })
            .collect();
        Sharded {
            shards,
            hasher: DefaultHashBuilder::default(),
            bytes: false,
            states: AtomicU64::new(0),
            max_depth,
            max_states: max_states.min(MAX_STATES),
        }
    }

    /// [`new`](Self::new), but keeping each object as the bytes it writes
    /// (see the module docs): [`Locked::visit_bytes`] and
    /// [`Locked::bytes`] instead of [`Locked::visit`] and
    /// [`Locked::object`].
    pub(super) fn bytes(shards: usize, max_depth: u64, max_states: u64) -> Self {
        Sharded {
            bytes: true,
            ..Self::new(shards, max_depth, max_states)
        }
    }

    /// Whether the store keeps bytes, not objects.
    pub(super) fn is_bytes(&self) -> bool {
        self.bytes
    }

    /// A shard's lock. A panic in protocol code (`Eq`) under the lock
    /// poisons it; the search stops with that panic's error, and reads
    /// after it (to report the error) still see consistent tables: a
    /// lookup changes no table, and a new state is indexed after every
    /// comparison.
    fn lock(&self, shard: usize) -> MutexGuard<'_, Shard<P>> {
        self.shards[shard]
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// The hash of an object, to pass to [`Locked::visit`]
    /// (computed outside any lock).
    pub(super) fn hash(&self, obj: &P) -> u64 {
        mix(self.hasher.hash_one(obj))
    }

    /// The hash of an object's bytes, to pass to [`Locked::visit_bytes`].
    pub(super) fn hash_bytes(&self, bytes: &[u8]) -> u64 {
        mix(self.hasher.hash_one(bytes))
    }

    /// The number of shards.
    pub(super) fn shards(&self) -> usize {
        self.shards.len()
    }

    /// The shard of an object with this hash: from bits that the tables
    /// do not use for their slots (the low ones), mapped onto the shards
    /// by a multiplication. The tables' tags share these bits, of which a
    /// shard fixes only the top few (8 at most, for 256 shards): a tag
    /// keeps 24 bits or more that tell unequal objects apart.
    #[inline]
    pub(super) fn shard_of(&self, hash: u64) -> usize {
        ((((hash >> 32) & 0xff_ffff) * self.shards.len() as u64) >> 24) as usize
    }

    /// Product states stored.
    pub(super) fn states(&self) -> u64 {
        self.states.load(Ordering::Relaxed)
    }

    /// Protocol objects stored.
    pub(super) fn objects(&self) -> u64 {
        (0..self.shards()).map(|s| self.lock(s).len() as u64).sum()
    }

    /// Starts building a new level: the states stored from now on are of
    /// it, and the previous level's keys are no longer needed.
    pub(super) fn start_level(&self) {
        for s in 0..self.shards() {
            let mut shard = self.lock(s);
            shard.watermark = shard.len() as u32;
            shard.keys.clear();
            shard.fresh_more.clear();
        }
    }

    /// One shard, locked for a batch of lookups (see the module docs):
    /// [`Locked::visit`] and [`Locked::object`].
    pub(super) fn locked(&self, s: usize) -> Locked<'_, P> {
        Locked {
            store: self,
            shard: self.lock(s),
            s,
        }
    }

    /// Looks up a successor (of the locked shard) found by its parent at
    /// the level being built, `level` (see [`Visit`]). `Err((i, slot))`:
    /// its object is new, and must be stored as object `i` of the shard,
    /// then indexed in table slot `slot` by [`Sharded::indexed`] (the
    /// lookup's own probe: one for a new state). Without `lowering` a state of this
    /// level is taken to have the smaller key already (see
    /// [`Locked::visit`]), and its key is not read.
    #[allow(clippy::too_many_arguments)]
    fn lookup(
        &self,
        shard: &mut Shard<P>,
        s: usize,
        level: u32,
        hash: u64,
        probe: Probe<'_, P>,
        q: AutState,
        key: Key,
        lowering: bool,
    ) -> Result<Visit, (usize, usize)> {
        if shard.table.is_full() {
            shard.grow(|p| self.hash(p), |b| self.hash_bytes(b));
        }
        let found = shard.find(hash, &probe);
        if let Ok(i) = found {
            if shard.q(i) == q {
                // Of this level if the object is (see the module docs).
                if let Some(j) = (i as u32).checked_sub(shard.watermark).filter(|_| lowering) {
                    let k = &mut shard.keys[j as usize];
                    if key < *k {
                        *k = key;
                        return Ok(Visit::Lowered(id_of(s, i, 0)));
                    }
                }
                return Ok(Visit::Seen);
            }
            let more = shard
                .more
                .get_mut(&(i as u32))
                .map_or(&mut [][..], |m| &mut m[..]);
            if let Some((k, m)) = more.iter_mut().enumerate().find(|(_, m)| m.q == q) {
                if lowering && m.level == level && key < m.key {
                    m.key = key;
                    return Ok(Visit::Lowered(id_of(s, i, k + 1)));
                }
                return Ok(Visit::Seen);
            }
        }
        if u64::from(level) > self.max_depth {
            return Ok(Visit::TooDeep);
        }
        if self.states.fetch_add(1, Ordering::Relaxed) >= self.max_states {
            return Ok(Visit::Full);
        }
        match found {
            Ok(i) => {
                // The object is stored already: one more product state.
                let more = shard.more.entry(i as u32).or_default();
                more.push(More { q, level, key });
                let k = more.len();
                shard.fresh_more.push((i as u32, k as u32));
                Ok(Visit::New(id_of(s, i, k)))
            }
            Err(slot) => Err((shard.len(), slot)),
        }
    }

    /// Indexes object `i` of the shard, just stored by the caller of
    /// [`lookup`](Self::lookup), with its key, in the free table slot
    /// `slot` that the lookup found.
    fn indexed(
        shard: &mut Shard<P>,
        s: usize,
        hash: u64,
        (i, slot): (usize, usize),
        key: Key,
    ) -> Visit {
        shard.keys.push(key);
        // Never grows: `lookup` made room, and nothing was indexed since.
        shard.table.insert_at(slot, tag(hash), i);
        Visit::New(id_of(s, i, 0))
    }

    /// Stores the initial state (whatever the limits: a search has at
    /// least it), as an object (a store of whole objects) or as the bytes
    /// `bytes` (a store of bytes).
    pub(super) fn root(&self, obj: P, bytes: &[u8], q: AutState) -> StateId {
        let hash = if self.bytes {
            self.hash_bytes(bytes)
        } else {
            self.hash(&obj)
        };
        let s = self.shard_of(hash);
        let mut guard = self.lock(s);
        let shard = &mut *guard;
        shard.grow(|p| self.hash(p), |b| self.hash_bytes(b));
        let i = shard.len();
        if self.bytes {
            shard.arena.push(q, bytes);
        } else {
            shard.objects.push(Stored { p: obj, q });
        }
        shard.table.insert_new(hash, tag(hash), i);
        self.states.fetch_add(1, Ordering::Relaxed);
        id_of(s, i, 0)
    }

    /// A clone of a stored state's object (a store of whole objects), with
    /// its automaton state.
    pub(super) fn get(&self, id: StateId) -> (P, AutState) {
        let (s, i, k) = split(id);
        let shard = self.lock(s);
        (shard.objects[i].p.clone(), shard.q_of(i, k))
    }

    /// A stored state's object's bytes (a store of bytes), with its
    /// automaton state.
    pub(super) fn get_bytes(&self, id: StateId, out: &mut Vec<u8>) -> AutState {
        let (s, i, k) = split(id);
        let shard = self.lock(s);
        out.clear();
        out.extend_from_slice(shard.arena.object(i));
        shard.q_of(i, k)
    }

    /// The stored state of an object (a store of whole objects) in
    /// automaton state `q`, if there is one.
    pub(super) fn find(&self, obj: &P, q: AutState) -> Option<StateId> {
        self.find_as(self.hash(obj), Probe::Obj(obj), q)
    }

    /// The stored state of an object's bytes (a store of bytes) in
    /// automaton state `q`, if there is one.
    pub(super) fn find_bytes(&self, bytes: &[u8], q: AutState) -> Option<StateId> {
        self.find_as(self.hash_bytes(bytes), Probe::Bytes(bytes), q)
    }

    fn find_as(&self, hash: u64, probe: Probe<'_, P>, q: AutState) -> Option<StateId> {
        let s = self.shard_of(hash);
        let shard = self.lock(s);
        let i = shard.find(hash, &probe).ok()?;
        if shard.q(i) == q {
            return Some(id_of(s, i, 0));
        }
        let more = shard.more.get(&(i as u32))?;
        let k = more.iter().position(|m| m.q == q)?;
        Some(id_of(s, i, k + 1))
    }
}

/// A shard of the [`Sharded`] store under its lock: one lock for a batch
/// of lookups. A panic in protocol code (`Eq`) while it is held poisons
/// the lock and leaves the table valid; the caller turns it into the
/// search's error.
pub(super) struct Locked<'a, P> {
    store: &'a Sharded<P>,
    shard: MutexGuard<'a, Shard<P>>,
    s: usize,
}

impl<P: Eq + std::hash::Hash + Clone> Locked<'_, P> {
    /// Looks up a successor of this shard (a store of whole objects) and
    /// stores it if it is new (see [`Visit`]), found at the level being
    /// built, `level`. The object moves into the store when it is new and
    /// is handed back otherwise (so that the thread that made it can free
    /// it: see `parallel`).
    ///
    /// `lowering`: whether a state already stored at this level may have a
    /// larger key. Not while the shard's owner expands its own states: it
    /// walks its parents in level order and their successors in order, so
    /// each key it visits with is larger than those before, and no other
    /// thread stores in the shard meanwhile. Not reading the key then
    /// saves a cache miss on most states found again.
    pub(super) fn visit(
        &mut self,
        level: u32,
        p: Pending<P>,
        lowering: bool,
    ) -> (Visit, Option<P>) {
        let Pending {
            obj, hash, q, key, ..
        } = p;
        let (store, s) = (self.store, self.s);
        let shard = &mut *self.shard;
        match store.lookup(shard, s, level, hash, Probe::Obj(&obj), q, key, lowering) {
            Ok(v) => (v, Some(obj)),
            Err(new) => {
                shard.objects.push(Stored { p: obj, q });
                (Sharded::indexed(shard, s, hash, new, key), None)
            }
        }
    }

    /// Looks up a successor's bytes (a store of bytes: its object's
    /// bytes, hashed by [`Sharded::hash_bytes`]) in automaton state `q`,
    /// and stores them if the state is new (see [`Visit`]); `lowering` as
    /// in [`visit`](Self::visit).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn visit_bytes(
        &mut self,
        level: u32,
        hash: u64,
        bytes: &[u8],
        q: AutState,
        key: Key,
        lowering: bool,
    ) -> Visit {
        let (store, s) = (self.store, self.s);
        let shard = &mut *self.shard;
        match store.lookup(shard, s, level, hash, Probe::Bytes(bytes), q, key, lowering) {
            Ok(v) => v,
            Err(new) => {
                shard.arena.push(q, bytes);
                Sharded::indexed(shard, s, hash, new, key)
            }
        }
    }

    /// Reads the table slot where a lookup of `hash` starts, ahead of the
    /// lookup: a thread that touches the slots of a state's successors
    /// before it looks them up waits for their cache misses together, not
    /// one after the other (the engine forbids `unsafe`, so a load stands
    /// in for a prefetch instruction).
    #[inline]
    pub(super) fn touch(&self, hash: u64) {
        std::hint::black_box(self.shard.table.touch(hash));
    }

    /// The object of a state of this shard (a store of whole objects),
    /// with its automaton state: to expand in place, by the thread that
    /// holds the lock.
    pub(super) fn object(&self, id: StateId) -> (&P, AutState) {
        let (_, index, k) = split(id);
        (&self.shard.objects[index].p, self.shard.q_of(index, k))
    }

    /// The object's bytes of a state of this shard (a store of bytes),
    /// with its automaton state: to decode and expand, by the thread that
    /// holds the lock.
    pub(super) fn bytes(&self, id: StateId) -> (&[u8], AutState) {
        let (_, index, k) = split(id);
        (self.shard.arena.object(index), self.shard.q_of(index, k))
    }

    /// Appends the states of this shard stored at the level being built,
    /// with their keys.
    pub(super) fn fresh_states(&self, out: &mut Vec<(Key, StateId)>) {
        let shard = &*self.shard;
        let w = shard.watermark as usize;
        out.extend(
            shard
                .keys
                .iter()
                .enumerate()
                .map(|(j, &key)| (key, id_of(self.s, w + j, 0))),
        );
        out.extend(shard.fresh_more.iter().map(|&(i, k)| {
            let m = &shard.more[&i][k as usize - 1];
            (m.key, id_of(self.s, i as usize, k as usize))
        }));
    }
}
