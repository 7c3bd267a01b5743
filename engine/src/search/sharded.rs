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
//! got there first. A state also records its place in the list of the
//! chunk of the level that set its key, so that when an earlier chunk
//! lowers the key the search knows which place went stale.

use std::hash::BuildHasher;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

use hashbrown::{DefaultHashBuilder, HashTable};

use crate::alphabet::LetterId;
use crate::ids::AutState;

/// Bits of a state id that name its shard.
const SHARD_BITS: u32 = 8;
const SHARDS: usize = 1 << SHARD_BITS;
/// Bits of a state id that say which of its object's product states it is.
const STATE_BITS: u32 = 16;

/// The most automaton states the store can pair with one object (the
/// search runs on one thread beyond).
pub(super) const MAX_AUT_STATES: usize = 1 << STATE_BITS;

/// A product state of the parallel search: its object's index in its
/// shard, which of the object's product states it is, and the shard, in
/// one word.
pub(super) type StateId = u64;

/// The parent of the initial state, and a removed place in a list.
pub(super) const NO_PARENT: StateId = u64::MAX;

/// Where a state was first found: the position of its parent in the
/// parent's level, then the index of the successor in the parent's
/// expansion (letters in order, then automaton edges in order). The order
/// of discovery of the one-thread breadth-first search.
pub(super) type Key = (u64, u32);

/// One product state.
#[derive(Clone, Copy, Debug)]
pub(super) struct Entry {
    /// The parent's position in its level (the key's first part).
    pos: u64,
    pub parent: StateId,
    pub q: AutState,
    /// Breadth-first level (distance from the initial state).
    level: u32,
    /// The successor index (the key's second part).
    succ: u32,
    /// The action from the parent.
    pub letter: LetterId,
    /// Where the state is in the list of the chunk that set its key (see
    /// [`Visit::Lowered`]).
    slot: u32,
}

impl Entry {
    fn key(&self) -> Key {
        (self.pos, self.succ)
    }
}

/// A stored protocol object with its product states: the first one next
/// to it (safety automata pair most objects with one state), the others
/// apart. One record, so that a lookup that finds the object has its
/// states in the same cache lines, as the one-thread store has its marks.
struct Stored<P> {
    p: P,
    /// Its hash: growing the table never runs the object's `Hash` (under
    /// the lock) nor reads the objects out of order.
    hash: u64,
    first: Entry,
    /// Boxed: most objects have none, and an empty `Vec` costs 24 bytes in
    /// every record where `None` costs 8.
    #[allow(clippy::box_collection)]
    more: Option<Box<Vec<Entry>>>,
}

/// One shard: its objects and their table.
struct Shard<P> {
    objects: Vec<Stored<P>>,
    /// Indices into `objects`.
    table: HashTable<u32>,
}

/// What [`Sharded::visit`] did with a successor.
pub(super) enum Visit {
    /// Stored now, at the given level.
    New(StateId),
    /// Already stored at this level with a larger key: the key, parent,
    /// letter and list slot are now the caller's, and the old key's
    /// parent position and slot are returned (that place in its chunk's
    /// list is stale).
    Lowered(StateId, u64, u32),
    /// Already stored (at an earlier level, or at this one with a smaller
    /// key): nothing to do.
    Seen,
    /// New, but beyond the depth limit: not stored.
    TooDeep,
    /// New, but the state limit is reached: not stored.
    Full,
}

/// Where a successor comes from, for [`Sharded::visit`].
pub(super) struct From {
    pub level: u32,
    pub key: Key,
    pub parent: StateId,
    pub letter: LetterId,
    /// Its place in the caller's list.
    pub slot: u32,
}

/// A shard's lock on a cache line (two, for the adjacent-line prefetcher)
/// of its own: with the locks packed side by side, two workers locking
/// different shards fought over one line (a sixth of the store's time).
#[repr(align(128))]
struct Padded<T>(T);

/// The sharded store (see the module docs).
pub(super) struct Sharded<P> {
    shards: Box<[Padded<Mutex<Shard<P>>>]>,
    hasher: DefaultHashBuilder,
    /// Product states stored.
    states: AtomicU64,
    max_depth: u64,
    max_states: u64,
}

/// The shard is taken from bits the table does not use for its own tags,
/// and those must be well mixed: the store's final mix serves both.
use crate::successors::mix;

#[inline]
fn shard_of(hash: u64) -> usize {
    (hash >> 32) as usize & (SHARDS - 1)
}

#[inline]
fn id_of(shard: usize, index: usize, k: usize) -> StateId {
    ((index as u64) << STATE_BITS | k as u64) << SHARD_BITS | shard as u64
}

#[inline]
fn split(id: StateId) -> (usize, usize, usize) {
    (
        (id & (SHARDS as u64 - 1)) as usize,
        (id >> (SHARD_BITS + STATE_BITS)) as usize,
        (id >> SHARD_BITS) as usize & (MAX_AUT_STATES - 1),
    )
}

impl<P: Eq + std::hash::Hash + Clone> Sharded<P> {
    /// An empty store that stores no state deeper than `max_depth` and at
    /// most `max_states` states.
    pub(super) fn new(max_depth: u64, max_states: u64) -> Self {
        let shards = (0..SHARDS)
            .map(|_| {
                Padded(Mutex::new(Shard {
                    objects: Vec::new(),
                    table: HashTable::new(),
                }))
            })
            .collect();
        Sharded {
            shards,
            hasher: DefaultHashBuilder::default(),
            states: AtomicU64::new(0),
            max_depth,
            max_states,
        }
    }

    /// A shard's lock. A panic in protocol code (`Eq`) under the lock
    /// poisons it; the search stops with that panic's error, and reads
    /// after it (to report the error) still see consistent tables:
    /// hashbrown leaves a table valid when a comparison panics.
    fn lock(&self, shard: usize) -> MutexGuard<'_, Shard<P>> {
        self.shards[shard]
            .0
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

    /// Looks up `(obj, q)` and stores it if it is new (see [`Visit`]),
    /// found as `from` says. A new state past the depth limit is not
    /// stored, nor one past the state limit.
    pub(super) fn visit(&self, obj: P, hash: u64, q: AutState, from: From) -> Visit {
        let s = shard_of(hash);
        let mut guard = self.lock(s);
        let shard = &mut *guard;
        if shard.table.len() == shard.table.capacity() {
            shard.grow();
        }
        let objects = &shard.objects;
        let found = shard
            .table
            .find(hash, |&i| {
                let o = &objects[i as usize];
                o.hash == hash && o.p == obj
            })
            .copied();
        let entry = Entry {
            pos: from.key.0,
            parent: from.parent,
            q,
            level: from.level,
            succ: from.key.1,
            letter: from.letter,
            slot: from.slot,
        };
        if let Some(i) = found {
            let o = &mut shard.objects[i as usize];
            let k = if o.first.q == q {
                Some(0)
            } else {
                let more = o.more.as_deref().map_or(&[][..], |m| &m[..]);
                more.iter().position(|e| e.q == q).map(|k| k + 1)
            };
            if let Some(k) = k {
                let e = match (k, o.more.as_deref_mut()) {
                    (0, _) => &mut o.first,
                    (k, Some(more)) => &mut more[k - 1],
                    (_, None) => unreachable!("k > 0 indexes `more`"),
                };
                if e.level == from.level && from.key < e.key() {
                    let (pos, slot) = (e.pos, e.slot);
                    *e = entry;
                    return Visit::Lowered(id_of(s, i as usize, k), pos, slot);
                }
                return Visit::Seen;
            }
        }
        if u64::from(from.level) > self.max_depth {
            return Visit::TooDeep;
        }
        if self.states.fetch_add(1, Ordering::Relaxed) >= self.max_states {
            return Visit::Full;
        }
        let id = match found {
            Some(i) => {
                let more = shard.objects[i as usize].more.get_or_insert_default();
                more.push(entry);
                id_of(s, i as usize, more.len())
            }
            None => {
                let i = shard.objects.len();
                shard.objects.push(Stored {
                    p: obj,
                    hash,
                    first: entry,
                    more: None,
                });
                let objects = &shard.objects;
                // Never grows: there is room (see above).
                shard
                    .table
                    .insert_unique(hash, i as u32, |&j| objects[j as usize].hash);
                id_of(s, i, 0)
            }
        };
        Visit::New(id)
    }

    /// Stores the initial state (whatever the limits: a search has at
    /// least it).
    pub(super) fn root(&self, obj: P, hash: u64, q: AutState) -> StateId {
        let s = shard_of(hash);
        let mut guard = self.lock(s);
        let shard = &mut *guard;
        shard.grow();
        let first = Entry {
            pos: 0,
            parent: NO_PARENT,
            q,
            level: 0,
            succ: 0,
            letter: 0,
            slot: 0,
        };
        let i = shard.objects.len();
        shard.objects.push(Stored {
            p: obj,
            hash,
            first,
            more: None,
        });
        let objects = &shard.objects;
        shard
            .table
            .insert_unique(hash, i as u32, |&j| objects[j as usize].hash);
        self.states.fetch_add(1, Ordering::Relaxed);
        id_of(s, i, 0)
    }

    /// A clone of a stored state's object (made under the shard's lock:
    /// see the module docs), with its entry.
    pub(super) fn get(&self, id: StateId) -> (P, Entry) {
        let (s, i, k) = split(id);
        let shard = self.lock(s);
        let o = &shard.objects[i];
        let e = match (k, o.more.as_deref()) {
            (0, _) => o.first,
            (k, Some(more)) => more[k - 1],
            (_, None) => unreachable!("k > 0 indexes `more`"),
        };
        (o.p.clone(), e)
    }
}

impl<P> Shard<P> {
    /// Doubles the table, re-inserting the objects in index order (reading
    /// them front to back, as `successors::store` does for the same
    /// reason).
    #[cold]
    fn grow(&mut self) {
        let capacity = (2 * self.table.capacity()).max(16);
        let mut table = HashTable::with_capacity(capacity);
        let objects = &self.objects;
        for (i, o) in objects.iter().enumerate() {
            table.insert_unique(o.hash, i as u32, |&j| objects[j as usize].hash);
        }
        self.table = table;
    }
}
