//! The parallel search's store: protocol objects and product states in
//! shards, each behind its own lock, so that workers deduplicate the
//! successors they make without waiting for each other (with 256 shards,
//! two workers rarely want the same one).
//!
//! Protocol objects are only `Send`, not `Sync` (a [`Message`](crate::Message)
//! payload need not be), so no worker ever holds a reference to a stored
//! object outside its shard's lock: it clones the object under the lock
//! and expands the clone. That costs one clone per expansion more than the
//! one-thread search, and is what lets every `Protocol` run in parallel
//! without a new bound on the trait.
//!
//! Each product state records the breadth-first level at which it was
//! found and its *key*: the position of the parent in its level and the
//! index of the successor in the parent's expansion. A state found by two
//! parents of the same level keeps the smaller key (and that parent), so
//! that once a level is done every state's key, parent and letter are
//! those of its first discovery by the one-thread search, whichever worker
//! got there first. The search orders the next level by these keys.

use std::hash::BuildHasher;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

use hashbrown::{DefaultHashBuilder, HashTable};

use crate::alphabet::LetterId;
use crate::ids::AutState;

/// Bits of a state id that name its shard.
const SHARD_BITS: u32 = 8;
const SHARDS: usize = 1 << SHARD_BITS;

/// A product state of the parallel search: its entry's index in its shard
/// and the shard, in one word.
pub(super) type StateId = u64;

/// The parent of the initial state.
pub(super) const NO_PARENT: StateId = u64::MAX;

/// Where a state was first found: the position of its parent in the
/// parent's level, then the index of the successor in the parent's
/// expansion (letters in order, then automaton edges in order). The order
/// of discovery of the one-thread breadth-first search.
pub(super) type Key = (u64, u32);

/// One product state.
#[derive(Clone, Copy, Debug)]
pub(super) struct Entry {
    /// The protocol object's index in the shard.
    obj: u32,
    pub q: AutState,
    /// Breadth-first level (distance from the initial state).
    pub level: u32,
    pub key: Key,
    pub parent: StateId,
    /// The action from the parent.
    pub letter: LetterId,
}

/// One shard: its objects and its product states, each with a table.
struct Shard<P> {
    objects: Vec<P>,
    /// `(hash, index into objects)`: the hash is kept so that growing the
    /// table never runs the object's `Hash` under the lock.
    by_object: HashTable<(u64, u32)>,
    entries: Vec<Entry>,
    /// Indices into `entries`, by `(obj, q)`.
    by_state: HashTable<u32>,
}

/// What [`Sharded::visit`] did with a successor.
pub(super) enum Visit {
    /// Stored now, at the given level.
    New(StateId),
    /// Already stored at this level with a larger key: the key, parent
    /// and letter are now the caller's.
    Lowered(StateId),
    /// Already stored (at an earlier level, or at this one with a smaller
    /// key): nothing to do.
    Seen,
    /// New, but beyond the depth limit: not stored.
    TooDeep,
    /// New, but the state limit is reached: not stored.
    Full,
}

/// The sharded store (see the module docs).
pub(super) struct Sharded<P> {
    shards: Box<[Mutex<Shard<P>>]>,
    hasher: DefaultHashBuilder,
    /// Product states stored.
    states: AtomicU64,
}

/// MurmurHash3's final mix: the shard is taken from bits the table does
/// not use for its own tags, and those must be well mixed (see
/// `successors::store`, which has the same need).
#[inline]
fn mix(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

#[inline]
fn state_hash(obj: u32, q: AutState) -> u64 {
    mix(u64::from(obj) << 32 | u64::from(q.raw()))
}

#[inline]
fn shard_of(hash: u64) -> usize {
    (hash >> 32) as usize & (SHARDS - 1)
}

#[inline]
fn id_of(shard: usize, index: usize) -> StateId {
    (index as u64) << SHARD_BITS | shard as u64
}

#[inline]
fn split(id: StateId) -> (usize, usize) {
    (
        (id & (SHARDS as u64 - 1)) as usize,
        (id >> SHARD_BITS) as usize,
    )
}

impl<P: Eq + std::hash::Hash + Clone> Sharded<P> {
    pub(super) fn new() -> Self {
        let shards = (0..SHARDS)
            .map(|_| {
                Mutex::new(Shard {
                    objects: Vec::new(),
                    by_object: HashTable::new(),
                    entries: Vec::new(),
                    by_state: HashTable::new(),
                })
            })
            .collect();
        Sharded {
            shards,
            hasher: DefaultHashBuilder::default(),
            states: AtomicU64::new(0),
        }
    }

    /// A shard's lock. A panic in protocol code (`Eq`) under the lock
    /// poisons it; the search stops with that panic's error, and reads
    /// after it (to report the error) still see consistent tables:
    /// hashbrown leaves a table valid when a comparison panics.
    fn lock(&self, shard: usize) -> MutexGuard<'_, Shard<P>> {
        self.shards[shard]
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// The hash of an object, to pass to [`visit`](Self::visit) (computed
    /// outside any lock).
    pub(super) fn hash(&self, obj: &P) -> u64 {
        mix(self.hasher.hash_one(obj))
    }

    /// Product states stored.
    pub(super) fn states(&self) -> u64 {
        self.states.load(Ordering::Relaxed)
    }

    /// Protocol objects stored.
    pub(super) fn objects(&self) -> u64 {
        (0..SHARDS).map(|s| self.lock(s).objects.len() as u64).sum()
    }

    /// Looks up `(obj, q)` and stores it if it is new (see [`Visit`]): at
    /// `level`, reached from `parent` by `letter` with `key`. A new state
    /// past `max_depth` is not stored, nor one past `max_states` stored
    /// states.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn visit(
        &self,
        obj: P,
        hash: u64,
        q: AutState,
        level: u32,
        key: Key,
        parent: StateId,
        letter: LetterId,
        max_depth: u64,
        max_states: u64,
    ) -> Visit {
        let s = shard_of(hash);
        let mut guard = self.lock(s);
        let shard = &mut *guard;
        let found = shard
            .by_object
            .find(hash, |&(h, i)| {
                h == hash && shard.objects[i as usize] == obj
            })
            .map(|&(_, i)| i);
        if let Some(o) = found {
            let entries = &shard.entries;
            let e = shard
                .by_state
                .find(state_hash(o, q), |&i| {
                    let e = &entries[i as usize];
                    e.obj == o && e.q == q
                })
                .copied();
            if let Some(i) = e {
                let e = &mut shard.entries[i as usize];
                if e.level == level && key < e.key {
                    e.key = key;
                    e.parent = parent;
                    e.letter = letter;
                    return Visit::Lowered(id_of(s, i as usize));
                }
                return Visit::Seen;
            }
        }
        if u64::from(level) > max_depth {
            return Visit::TooDeep;
        }
        if self.states.fetch_add(1, Ordering::Relaxed) >= max_states {
            return Visit::Full;
        }
        let o = match found {
            Some(o) => o,
            None => {
                let o = shard.objects.len() as u32;
                shard.objects.push(obj);
                shard.by_object.insert_unique(hash, (hash, o), |&(h, _)| h);
                o
            }
        };
        let i = shard.entries.len();
        shard.entries.push(Entry {
            obj: o,
            q,
            level,
            key,
            parent,
            letter,
        });
        let entries = &shard.entries;
        shard
            .by_state
            .insert_unique(state_hash(o, q), i as u32, |&j| {
                let e = &entries[j as usize];
                state_hash(e.obj, e.q)
            });
        Visit::New(id_of(s, i))
    }

    /// The entry of a stored state.
    pub(super) fn entry(&self, id: StateId) -> Entry {
        let (s, i) = split(id);
        self.lock(s).entries[i]
    }

    /// A clone of a stored state's object (made under the shard's lock:
    /// see the module docs), with its entry.
    pub(super) fn get(&self, id: StateId) -> (P, Entry) {
        let (s, i) = split(id);
        let shard = self.lock(s);
        let e = shard.entries[i];
        (shard.objects[e.obj as usize].clone(), e)
    }
}
