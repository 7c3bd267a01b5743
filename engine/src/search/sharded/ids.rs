//! How a product state of the parallel search is named: a state id packs
//! the shard, the object's index in it and which of the object's product
//! states it is into one word; a key packs where a state was first found.
//! Its own file because the encoding is pure arithmetic that the store,
//! its shards and the levels all read, and that reads nothing of theirs.

/// Bits of a state id that name its shard.
const SHARD_BITS: u32 = 8;
/// The most shards a store has.
pub(crate) const MAX_SHARDS: usize = 1 << SHARD_BITS;
/// Bits of a state id that say which of its object's product states it is.
const STATE_BITS: u32 = 16;

/// The most automaton states the store can pair with one object (the
/// search runs on one thread beyond).
pub(crate) const MAX_AUT_STATES: usize = 1 << STATE_BITS;

/// A product state of the parallel search: its object's index in its
/// shard, which of the object's product states it is, and the shard, in
/// one word.
pub(crate) type StateId = u64;

/// Where a state was first found: the position of its parent in the
/// parent's level, then the index of the successor in the parent's
/// expansion (letters in order, then automaton edges in order). The order
/// of discovery of the one-thread breadth-first search.
/// Packed in one word, position first, so that keys compare as pairs.
pub(crate) type Key = u64;

/// The key of successor `index` of the state at position `pos`.
#[inline]
pub(crate) fn key(pos: u32, index: u32) -> Key {
    u64::from(pos) << 32 | u64::from(index)
}

/// The shard of a state.
#[inline]
pub(crate) fn shard_of_id(id: StateId) -> usize {
    (id & (MAX_SHARDS as u64 - 1)) as usize
}

#[inline]
fn local(index: usize, k: usize) -> u64 {
    (index as u64) << STATE_BITS | k as u64
}

#[inline]
pub(super) fn id_of(shard: usize, index: usize, k: usize) -> StateId {
    local(index, k) << SHARD_BITS | shard as u64
}

#[inline]
pub(super) fn split(id: StateId) -> (usize, usize, usize) {
    (
        shard_of_id(id),
        (id >> (SHARD_BITS + STATE_BITS)) as usize,
        (id >> SHARD_BITS) as usize & (MAX_AUT_STATES - 1),
    )
}
