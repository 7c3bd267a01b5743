//! The parallel search's store: protocol objects and product states in
//! 256 shards, each behind its own lock. During a breadth-first level each
//! shard is *owned* by one thread (shard `s` by thread `s % threads`),
//! which takes its lock once for the whole phase ([`Sharded::locked`]):
//! it expands the states of its shards in place and deduplicates every
//! successor that falls in them; the others hand it theirs. No lock, table
//! or object's cache line moves between the cores per successor, and each
//! shard is touched by one thread at a time.
//!
//! Protocol objects are only `Send`, not `Sync` (a [`Message`](crate::Message)
//! payload need not be): a stored object is only ever used by the thread
//! that holds its shard's lock ([`Locked::object`]), so every `Protocol`
//! runs in parallel without a new bound on the trait and without a clone.
//!
//! Each product state keeps only what the counterexample needs for ever:
//! its parent, automaton state and letter ([`Link`], 16 bytes next to the
//! object, as the one-thread store keeps its marks). What only the level
//! being built needs — the *key*: the position of the parent in its level
//! and the index of the successor in the parent's expansion — is kept
//! apart, for that level's states only (`Shard::keys`), and dropped when
//! the next level starts ([`Sharded::start_level`]). The level itself is
//! implicit: an object stored at or after the shard's watermark (set when
//! a level starts) is of the level being built. A state found by two
//! parents of the same level keeps the smaller key (and that parent),
//! whatever the order in which they came, so that once a level is done
//! every state's key, parent and letter are those of its first discovery
//! by the one-thread search.

use std::hash::BuildHasher;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

use hashbrown::{DefaultHashBuilder, HashMap, HashTable};

use crate::alphabet::LetterId;
use crate::ids::AutState;

/// Bits of a state id that name its shard.
const SHARD_BITS: u32 = 8;
/// The most shards a store has.
pub(super) const MAX_SHARDS: usize = 1 << SHARD_BITS;
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
/// Packed in one word, position first, so that keys compare as pairs.
pub(super) type Key = u64;

/// The key of successor `index` of the state at position `pos`.
#[inline]
pub(super) fn key(pos: u32, index: u32) -> Key {
    u64::from(pos) << 32 | u64::from(index)
}

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

/// A stored protocol object with its first product state (safety
/// automata pair most objects with one state; the others are in the
/// shard's `more`).
struct Stored<P> {
    p: P,
    first: Link,
}

/// A product state of an object beyond its first.
struct More {
    link: Link,
    /// The level it was found at.
    level: u32,
    /// Its key, while that level is built.
    key: Key,
}

/// One shard: its objects and their table.
struct Shard<P> {
    objects: Vec<Stored<P>>,
    /// Indices into `objects`.
    table: HashTable<u32>,
    /// The product states of an object beyond its first, with the level
    /// each was found at (rare: only automata of several states need them).
    more: HashMap<u32, Vec<More>>,
    /// Objects from this index on were stored while building the current
    /// level.
    watermark: u32,
    /// The keys of the objects from the watermark on (their first
    /// product states), by index past it.
    keys: Vec<Key>,
    /// The states in `more` stored at the current level: object index and
    /// which of its product states.
    fresh_more: Vec<(u32, u32)>,
}

/// What [`Locked::visit`] did with a successor.
pub(super) enum Visit {
    /// Stored now.
    New(StateId),
    /// Already stored at this level with a larger key: the key, parent and
    /// letter are now the caller's.
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
    /// Its parent's position in its level is the key's upper half.
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

/// The shard of a state.
#[inline]
pub(super) fn shard_of_id(id: StateId) -> usize {
    (id & (MAX_SHARDS as u64 - 1)) as usize
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
    /// An empty store of `shards` shards (at most [`MAX_SHARDS`]) that
    /// stores no state deeper than `max_depth` and at most `max_states`
    /// states (and never more than [`MAX_STATES`]).
    pub(super) fn new(shards: usize, max_depth: u64, max_states: u64) -> Self {
        let shards = (0..shards.clamp(1, MAX_SHARDS))
            .map(|_| {
                Padded(Mutex::new(Shard {
                    objects: Vec::new(),
                    table: HashTable::new(),
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

    /// The number of shards.
    pub(super) fn shards(&self) -> usize {
        self.shards.len()
    }

    /// The shard of an object with this hash: from bits that the tables
    /// use neither for their tags (the top seven) nor for their buckets
    /// (the low ones), mapped onto the shards by a multiplication.
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
        (0..self.shards())
            .map(|s| self.lock(s).objects.len() as u64)
            .sum()
    }

    /// Starts building a new level: the states stored from now on are of
    /// it, and the previous level's keys are no longer needed.
    pub(super) fn start_level(&self) {
        for s in 0..self.shards() {
            let mut shard = self.lock(s);
            shard.watermark = shard.objects.len() as u32;
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

    /// Looks up a successor (of the locked shard) and stores it if it is
    /// new (see [`Visit`]), found by its parent at the level being built,
    /// `level`. The object moves into the store when it is new and is
    /// handed back otherwise.
    fn visit(
        &self,
        shard: &mut Shard<P>,
        s: usize,
        level: u32,
        p: Pending<P>,
    ) -> (Visit, Option<P>) {
        if shard.table.len() == shard.table.capacity() {
            shard.grow(&self.hasher);
        }
        let objects = &shard.objects;
        let found = shard
            .table
            .find(p.hash, |&i| objects[i as usize].p == p.obj)
            .copied();
        let link = Link::new(p.parent, p.q, p.letter);
        if let Some(i) = found {
            let o = &mut shard.objects[i as usize];
            if o.first.q == p.q {
                // Of this level if the object is (see the module docs).
                if let Some(j) = i.checked_sub(shard.watermark) {
                    let k = &mut shard.keys[j as usize];
                    if p.key < *k {
                        *k = p.key;
                        o.first = link;
                        return (Visit::Lowered(id_of(s, i as usize, 0)), Some(p.obj));
                    }
                }
                return (Visit::Seen, Some(p.obj));
            }
            let more = shard.more.get_mut(&i).map_or(&mut [][..], |m| &mut m[..]);
            if let Some((k, m)) = more.iter_mut().enumerate().find(|(_, m)| m.link.q == p.q) {
                if m.level == level && p.key < m.key {
                    m.key = p.key;
                    m.link = link;
                    return (Visit::Lowered(id_of(s, i as usize, k + 1)), Some(p.obj));
                }
                return (Visit::Seen, Some(p.obj));
            }
        }
        if u64::from(level) > self.max_depth {
            return (Visit::TooDeep, Some(p.obj));
        }
        if self.states.fetch_add(1, Ordering::Relaxed) >= self.max_states {
            return (Visit::Full, Some(p.obj));
        }
        let mut left = None;
        let (i, k) = match found {
            Some(i) => {
                let more = shard.more.entry(i).or_default();
                // The object is stored already: this one is left over.
                left = Some(p.obj);
                more.push(More {
                    link,
                    level,
                    key: p.key,
                });
                shard.fresh_more.push((i, more.len() as u32));
                (i as usize, more.len())
            }
            None => {
                let i = shard.objects.len();
                shard.objects.push(Stored {
                    p: p.obj,
                    first: link,
                });
                shard.keys.push(p.key);
                let objects = &shard.objects;
                // Never grows: there is room (see above).
                shard
                    .table
                    .insert_unique(p.hash, i as u32, |&j| self.hash(&objects[j as usize].p));
                (i, 0)
            }
        };
        (Visit::New(id_of(s, i, k)), left)
    }

    /// Stores the initial state (whatever the limits: a search has at
    /// least it).
    pub(super) fn root(&self, obj: P, hash: u64, q: AutState) -> StateId {
        let s = self.shard_of(hash);
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
    /// [`Visit`]), found at the level being built, `level`. The object
    /// moves into the store when it is new and is handed back otherwise
    /// (so that the thread that made it can free it: see `parallel`).
    pub(super) fn visit(&mut self, level: u32, p: Pending<P>) -> (Visit, Option<P>) {
        self.store.visit(&mut self.shard, self.s, level, p)
    }

    /// The object of a state of this shard, with its automaton state: to
    /// expand in place, by the thread that holds the lock.
    pub(super) fn object(&self, id: StateId) -> (&P, AutState) {
        let (_, index, k) = split(id);
        (&self.shard.objects[index].p, self.shard.link(index, k).q)
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

impl<P> Shard<P> {
    /// The link of the `k`th product state of object `i`.
    fn link(&self, i: usize, k: usize) -> Link {
        if k == 0 {
            return self.objects[i].first;
        }
        self.more
            .get(&(i as u32))
            .expect("k > 0 names a state in `more`")[k - 1]
            .link
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
