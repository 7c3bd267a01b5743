//! One shard of the store: its objects (whole or as bytes), the table
//! that finds them by hash, and the product states beyond an object's
//! first. Its own file because a shard knows nothing of locks, levels or
//! the other shards: [`super::Sharded`] owns the shards and their order.

use hashbrown::HashMap;

use super::arena::Arena;
use super::ids::Key;
use crate::ids::AutState;
use crate::tag_table::TagTable;

/// A stored protocol object with the automaton state of its first product
/// state (safety automata pair most objects with one state; the others
/// are in the shard's `more`): 4 bytes beside the object, where the
/// one-thread store keeps 8 of marks.
pub(super) struct Stored<P> {
    pub(super) p: P,
    pub(super) q: AutState,
}

/// A product state of an object beyond its first.
pub(super) struct More {
    pub(super) q: AutState,
    /// The level it was found at.
    pub(super) level: u32,
    /// Its key, while that level is built.
    pub(super) key: Key,
}

/// One shard: its objects (whole or as bytes) and their table.
pub(super) struct Shard<P> {
    /// Whole objects (a store of whole objects only).
    pub(super) objects: Vec<Stored<P>>,
    /// Objects as bytes (a store of bytes only).
    pub(super) arena: Arena,
    /// Indices into `objects` or `arena`, by hash.
    pub(super) table: TagTable<usize>,
    /// The product states of an object beyond its first, with the level
    /// each was found at (rare: only automata of several states need them).
    pub(super) more: HashMap<u32, Vec<More>>,
    /// Objects from this index on were stored while building the current
    /// level.
    pub(super) watermark: u32,
    /// The keys of the objects from the watermark on (their first
    /// product states), by index past it.
    pub(super) keys: Vec<Key>,
    /// The states in `more` stored at the current level: object index and
    /// which of its product states.
    pub(super) fresh_more: Vec<(u32, u32)>,
}

/// slot's position (the low bits). They include the shard choice's (bits
/// 32..56, [`Sharded::shard_of`](super::Sharded::shard_of)), of which a shard fixes only the top
/// few (8 at most), so 24 or more tell a shard's objects apart. Equal
/// objects have equal hashes and so equal tags; a table of over 2^25
/// slots repeats some of the position's bits in the tag: a weaker filter,
/// never a wrong answer.
#[inline]
pub(super) fn tag(hash: u64) -> u32 {
    (hash >> 25) as u32
}

/// What a lookup compares a stored object with.
pub(super) enum Probe<'a, P> {
    Obj(&'a P),
    Bytes(&'a [u8]),
}

impl<P> Shard<P> {
    /// Objects stored (one of the two lists is empty).
    pub(super) fn len(&self) -> usize {
        self.objects.len() + self.arena.count
    }

    /// The automaton state of object `i`'s first product state.
    #[inline]
    pub(super) fn q(&self, i: usize) -> AutState {
        if self.arena.count > 0 {
            self.arena.q(i)
        } else {
            self.objects[i].q
        }
    }

    /// The automaton state of the `k`th product state of object `i`.
    pub(super) fn q_of(&self, i: usize, k: usize) -> AutState {
        if k == 0 {
            return self.q(i);
        }
        self.more
            .get(&(i as u32))
            .expect("k > 0 names a state in `more`")[k - 1]
            .q
    }
}

impl<P: Eq> Shard<P> {
    /// The index of the object `probe` compares equal to, or `Err` with
    /// the free table slot where it goes (an empty table: `Err(0)`, and it
    /// must grow before anything is indexed).
    #[inline]
    pub(super) fn find(&self, hash: u64, probe: &Probe<'_, P>) -> Result<usize, usize> {
        if self.table.slots() == 0 {
            return Err(0);
        }
        match probe {
            Probe::Obj(obj) => {
                let objects = &self.objects;
                self.table.find(hash, tag(hash), |i| objects[i].p == **obj)
            }
            Probe::Bytes(b) => {
                let arena = &self.arena;
                self.table.find(hash, tag(hash), |i| arena.object(i) == *b)
            }
        }
    }

    /// Doubles the table, re-inserting the objects in index order (reading
    /// them front to back, as `successors::store` does for the same
    /// reason), hashed by `hash` (objects) or `hash_bytes` (bytes).
    #[cold]
    pub(super) fn grow(&mut self, hash: impl Fn(&P) -> u64, hash_bytes: impl Fn(&[u8]) -> u64) {
        let (objects, arena) = (&self.objects, &self.arena);
        // A shard holds whole objects or bytes, never both (`Sharded::bytes`).
        self.table.grow(16, objects.len() + arena.count, |i| {
            let h = match objects.get(i) {
                Some(o) => hash(&o.p),
                None => hash_bytes(arena.object(i)),
            };
            Some((h, tag(h)))
        });
    }
}
