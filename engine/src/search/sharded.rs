//! The parallel search's store: protocol objects and product states in
//! shards, each behind its own lock, so that workers deduplicate the
//! successors they make without waiting for each other (with 256 shards,
//! two workers rarely want the same one). A worker takes a shard's lock
//! once for a whole batch of successors ([`Locked::visit`]), not
//! once per successor: the lock's cache line moves between the cores once
//! a batch.
//!
//! Protocol objects are only `Send`, not `Sync` (a [`Message`](crate::Message)
//! payload need not be), so no worker ever holds a reference to a stored
//! object outside its shard's lock: it clones the objects it expands under
//! the lock ([`Locked::clone_of`]) and expands the clones. That costs
//! one clone per expansion more than the one-thread search, and is what
//! lets every `Protocol` run in parallel without a new bound on the trait.
//!
//! Each product state keeps only what the counterexample needs for ever:
//! its parent, automaton state and letter ([`Link`], 16 bytes next to the
//! object, as the one-thread store keeps its marks). What only the level
//! being built needs — the *key* (the position of the parent in its level
//! and the index of the successor in the parent's expansion) and the place
//! in the list of the chunk that set it — is kept apart, for that level's
//! states only ([`Shard`]'s `fresh`), and dropped when the level is done.
//! The level itself is implicit: an object stored at or after the shard's
//! watermark (set when a level starts) is of the level being built. A
//! state found by two parents of the same level keeps the smaller key (and
//! that parent), so that once a level is done every state's key, parent and
//! letter are those of its first discovery by the one-thread search,
//! whichever worker got there first; the place it leaves goes stale.

use std::hash::BuildHasher;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

use hashbrown::{DefaultHashBuilder, HashMap, HashTable};

use crate::alphabet::LetterId;
use crate::ids::AutState;

/// Bits of a state id that name its shard.
const SHARD_BITS: u32 = 8;
/// Shards of the store.
pub(super) const SHARDS: usize = 1 << SHARD_BITS;
/// Bits of a state id that say which of its object's product states it is.
const STATE_BITS: u32 = 16;

/// The most automaton states the store can pair with one object (the
/// search runs on one thread beyond).
pub(super) const MAX_AUT_STATES: usize = 1 << STATE_BITS;

/// The most product states the store holds, whatever the state limit:
/// as on one thread (`reachability` caps the limit the same way), and it
/// keeps every level's positions in 32 bits.
pub(super) const MAX_STATES: u64 = u32::MAX as u64 - 2;

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
pub(super) type Key = (u32, u32);

/// What a product state keeps for the counterexample: the parent and the
/// action from it (packed in 32-bit halves, so that the record is 16
/// bytes aligned as the object is).
#[derive(Clone, Copy, Debug)]
pub(super) struct Link {
    parent: [u32; 2],
    pub q: AutState,
    /// The action from the parent.
    pub letter: LetterId,
}

impl Link {
    fn new(parent: StateId, q: AutState, letter: LetterId) -> Link {
        Link {
            parent: [parent as u32, (parent >> 32) as u32],
            q,
            letter,
        }
    }

    /// The parent ([`NO_PARENT`] for the initial state).
    pub(super) fn parent(&self) -> StateId {
        u64::from(self.parent[0]) | u64::from(self.parent[1]) << 32
    }
}

/// What a state of the level being built keeps until the level is done.
#[derive(Clone, Copy)]
struct Fresh {
    key: Key,
    /// Where the state is in the list of the chunk that set its key (see
    /// [`Visit::Lowered`]).
    slot: u32,
}

/// A stored protocol object with its first product state (safety
/// automata pair most objects with one state; the others are in the
/// shard's `more`).
struct Stored<P> {
    p: P,
    first: Link,
}

/// One shard: its objects and their table.
struct Shard<P> {
    objects: Vec<Stored<P>>,
    /// Indices into `objects`.
    table: HashTable<u32>,
    /// The product states of an object beyond its first, with the level
    /// each was found at (rare: only automata of several states need them).
    more: HashMap<u32, Vec<(Link, u32)>>,
    /// Objects from this index on were stored while building the current
    /// level.
    watermark: u32,
    /// Keys and places of the current level's states, by local id (object
    /// index and product state, as in [`StateId`] without the shard).
    fresh: HashMap<u64, Fresh>,
}

/// What [`Locked::visit`] did with a successor.
pub(super) enum Visit {
    /// Stored now.
    New(StateId),
    /// Already stored at this level with a larger key: the key, parent,
    /// letter and list place are now the caller's, and the old key's
    /// parent position and place are returned (that place in its chunk's
    /// list is stale).
    Lowered(StateId, u32, u32),
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
    pub parent: StateId,
    pub letter: LetterId,
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
    /// Product states stored.
    states: AtomicU64,
    /// The level being built (the initial state's is 0).
    max_depth: u64,
    max_states: u64,
}

/// The shard is taken from bits the table does not use for its own tags,
/// and those must be well mixed: the store's final mix serves both.
use crate::successors::mix;

/// The shard of an object with this hash.
#[inline]
pub(super) fn shard_of(hash: u64) -> usize {
    (hash >> 32) as usize & (SHARDS - 1)
}

/// The shard of a state.
#[inline]
pub(super) fn shard_of_id(id: StateId) -> usize {
    (id & (SHARDS as u64 - 1)) as usize
}

#[inline]
fn local(index: usize, k: usize) -> u64 {
    (index as u64) << STATE_BITS | k as u64
}

#[inline]
fn id_of(shard: usize, index: usize, k: usize) -> StateId {
    local(index, k) << SHARD_BITS | shard as u64
}

#[inline]
fn split(id: StateId) -> (usize, usize, usize) {
    (
        shard_of_id(id),
        (id >> (SHARD_BITS + STATE_BITS)) as usize,
        (id >> SHARD_BITS) as usize & (MAX_AUT_STATES - 1),
    )
}

impl<P: Eq + std::hash::Hash + Clone> Sharded<P> {
    /// An empty store that stores no state deeper than `max_depth` and at
    /// most `max_states` states (and never more than [`MAX_STATES`]).
    pub(super) fn new(max_depth: u64, max_states: u64) -> Self {
        let shards = (0..SHARDS)
            .map(|_| {
                Padded(Mutex::new(Shard {
                    objects: Vec::new(),
                    table: HashTable::new(),
                    more: HashMap::new(),
                    watermark: 0,
                    fresh: HashMap::new(),
                }))
            })
            .collect();
        Sharded {
            shards,
            hasher: DefaultHashBuilder::default(),
            states: AtomicU64::new(0),
            max_depth,
            max_states: max_states.min(MAX_STATES),
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

    /// The hash of an object, to pass to [`Locked::visit`]
    /// (computed outside any lock).
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

    /// Starts building a new level: the states stored from now on are of
    /// it, and the previous level's keys are no longer needed.
    pub(super) fn start_level(&self) {
        for s in 0..SHARDS {
            let mut shard = self.lock(s);
            shard.watermark = shard.objects.len() as u32;
            shard.fresh.clear();
        }
    }

    /// One shard, locked for a batch of lookups (see the module docs):
    /// [`Locked::visit`] and [`Locked::clone_of`].
    pub(super) fn locked(&self, s: usize) -> Locked<'_, P> {
        Locked {
            store: self,
            shard: self.lock(s),
            s,
        }
    }

    /// Looks up a successor (of the locked shard) and stores it if it is
    /// new (see [`Visit`]), found by its parent at the level being built,
    /// `level`; `slot` is its place in the caller's list. The object moves
    /// into the store when it is new and is dropped here otherwise.
    fn visit(&self, shard: &mut Shard<P>, s: usize, level: u32, p: Pending<P>, slot: u32) -> Visit {
        if shard.table.len() == shard.table.capacity() {
            shard.grow(&self.hasher);
        }
        let objects = &shard.objects;
        let found = shard
            .table
            .find(p.hash, |&i| objects[i as usize].p == p.obj)
            .copied();
        let fresh = Fresh { key: p.key, slot };
        let link = Link::new(p.parent, p.q, p.letter);
        if let Some(i) = found {
            let o = &mut shard.objects[i as usize];
            // The product state, and whether it is of this level.
            let hit = if o.first.q == p.q {
                Some((0, i >= shard.watermark, &mut o.first))
            } else {
                shard.more.get_mut(&i).and_then(|more| {
                    more.iter_mut()
                        .enumerate()
                        .find(|(_, (l, _))| l.q == p.q)
                        .map(|(k, (l, at))| (k + 1, *at == level, l))
                })
            };
            if let Some((k, this_level, l)) = hit {
                if this_level {
                    let f = shard
                        .fresh
                        .get_mut(&local(i as usize, k))
                        .expect("a state of this level has its key");
                    if p.key < f.key {
                        let old = *f;
                        *f = fresh;
                        *l = link;
                        return Visit::Lowered(id_of(s, i as usize, k), old.key.0, old.slot);
                    }
                }
                return Visit::Seen;
            }
        }
        if u64::from(level) > self.max_depth {
            return Visit::TooDeep;
        }
        if self.states.fetch_add(1, Ordering::Relaxed) >= self.max_states {
            return Visit::Full;
        }
        let (i, k) = match found {
            Some(i) => {
                let more = shard.more.entry(i).or_default();
                more.push((link, level));
                (i as usize, more.len())
            }
            None => {
                let i = shard.objects.len();
                shard.objects.push(Stored {
                    p: p.obj,
                    first: link,
                });
                let objects = &shard.objects;
                // Never grows: there is room (see above).
                shard
                    .table
                    .insert_unique(p.hash, i as u32, |&j| self.hash(&objects[j as usize].p));
                (i, 0)
            }
        };
        shard.fresh.insert(local(i, k), fresh);
        Visit::New(id_of(s, i, k))
    }

    /// Stores the initial state (whatever the limits: a search has at
    /// least it).
    pub(super) fn root(&self, obj: P, hash: u64, q: AutState) -> StateId {
        let s = shard_of(hash);
        let mut guard = self.lock(s);
        let shard = &mut *guard;
        shard.grow(&self.hasher);
        let i = shard.objects.len();
        shard.objects.push(Stored {
            p: obj,
            first: Link::new(NO_PARENT, q, 0),
        });
        let objects = &shard.objects;
        shard
            .table
            .insert_unique(hash, i as u32, |&j| self.hash(&objects[j as usize].p));
        self.states.fetch_add(1, Ordering::Relaxed);
        id_of(s, i, 0)
    }

    /// A clone of a stored state's object (made under the shard's lock),
    /// with its link.
    pub(super) fn get(&self, id: StateId) -> (P, Link) {
        let (s, i, k) = split(id);
        let shard = self.lock(s);
        (shard.objects[i].p.clone(), shard.link(i, k))
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
    /// Looks up a successor of this shard and stores it if it is new (see
    /// [`Visit`]), found at the level being built, `level`; `slot` is its
    /// place in the caller's list. The object moves into the store when it
    /// is new and is dropped otherwise.
    pub(super) fn visit(&mut self, level: u32, p: Pending<P>, slot: u32) -> Visit {
        self.store.visit(&mut self.shard, self.s, level, p, slot)
    }

    /// A clone of the object of a state of this shard (see the module
    /// docs), with its automaton state.
    pub(super) fn clone_of(&self, id: StateId) -> (P, AutState) {
        let (_, index, k) = split(id);
        (
            self.shard.objects[index].p.clone(),
            self.shard.link(index, k).q,
        )
    }
}

impl<P> Shard<P> {
    /// The link of the `k`th product state of object `i`.
    fn link(&self, i: usize, k: usize) -> Link {
        if k == 0 {
            return self.objects[i].first;
        }
        self.more
            .get(&(i as u32))
            .expect("k > 0 names a state in `more`")[k - 1]
            .0
    }
}

impl<P: std::hash::Hash> Shard<P> {
    /// Doubles the table, re-inserting the objects in index order (reading
    /// them front to back, as `successors::store` does for the same
    /// reason).
    #[cold]
    fn grow(&mut self, hasher: &DefaultHashBuilder) {
        let capacity = (2 * self.table.capacity()).max(16);
        let mut table = HashTable::with_capacity(capacity);
        let objects = &self.objects;
        let hash = |p: &P| mix(hasher.hash_one(p));
        for (i, o) in objects.iter().enumerate() {
            table.insert_unique(hash(&o.p), i as u32, |&j| hash(&objects[j as usize].p));
        }
        self.table = table;
    }
}
