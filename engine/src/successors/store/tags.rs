//! The collapse store's keys in its [`TagTable`]: the hash of a state's
//! bytes, the tag kept beside its id (a short key held whole), and the
//! table's growth, which reads the arena. The table itself is the
//! engine's ([`crate::tag_table`]), shared with the parallel search's
//! shards.

use std::hash::BuildHasher;

use crate::ids::ProtoId;
use crate::tag_table::TagTable;

use super::ends::{slice, Ends};

/// The seed of [`bytes_hash`]. Any fixed value does: the bytes are rehashed
/// when the table grows, so nothing outlives one table, and a fixed seed
/// keeps a run's memory layout the same from run to run.
const BYTES_SEED: u64 = 0x5851_f42d_4c95_7f2d;

/// The table hash of a collapsed state's bytes.
pub(super) fn bytes_hash(b: &[u8]) -> u64 {
    foldhash::fast::FixedState::with_seed(BYTES_SEED).hash_one(b)
}

/// The longest key a collapse table entry holds in its tag (see [`tag`]).
pub(super) const INLINE_MAX: usize = 3;

/// The tag bit of a key held whole in its tag.
pub(super) const INLINE: u32 = 1 << 31;

/// The tag of a key whose [`bytes_hash`] is `h`, kept in the collapse
/// table next to the id: a key of at most [`INLINE_MAX`] bytes is the tag
/// (its bytes, its length and the [`INLINE`] bit: equal tags, equal
/// keys), a longer one is bits of its hash that the table's probe did
/// not use (equal keys have equal tags, so unequal tags skip the arena).
#[inline]
pub(super) fn tag(key: &[u8], h: u64) -> u32 {
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

/// Doubles a collapse store's table, re-inserting the states in id order
/// (those kept as objects are not in it), so that the rehash streams
/// through the arena (see [`TagTable::grow`]).
#[cold]
pub(super) fn grow_bytes_table(table: &mut TagTable<ProtoId>, arena: &[u8], ends: &Ends) {
    table.grow(64, ends.len(), |i| {
        (!ends.is_object(i)).then(|| {
            let key = slice(arena, ends, i);
            let h = bytes_hash(key);
            (h, tag(key, h))
        })
    });
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// Keys that differ only in their length or in one byte, short enough
    /// to be held in a tag and longer.
    pub(in crate::successors::store) fn keys() -> Vec<Vec<u8>> {
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
}
