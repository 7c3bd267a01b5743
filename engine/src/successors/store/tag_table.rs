//! The collapse store's table: ids by the hash of their bytes, one word a
//! slot with the key's tag, and its growth.

use std::hash::BuildHasher;

use crate::ids::ProtoId;

use super::ends::{slice, Ends};
use super::fingerprints::FINGERPRINT_SEED;

/// The table hash of a collapsed state's bytes (a fixed seed: the bytes
/// are rehashed when the table grows).
pub(super) fn bytes_hash(b: &[u8]) -> u64 {
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
pub(super) struct TagTable {
    slots: Vec<u64>,
    len: usize,
}

impl TagTable {
    /// Whether one more id would fill the table past 3/4 (an empty table
    /// is full): it must grow first.
    #[inline]
    pub(super) fn is_full(&self) -> bool {
        4 * (self.len + 1) > 3 * self.slots.len()
    }

    /// The id whose key has hash `h` and tag `t` and that `same` accepts,
    /// or `Err` with the free slot where such an id goes. The table must
    /// not be full (a free slot ends every probe).
    #[inline]
    pub(super) fn find(
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
    pub(super) fn insert_at(&mut self, slot: usize, id: ProtoId, t: u32) {
        // Ids stay below u32::MAX (the searches stop at u32::MAX - 2
        // states), so id + 1 fits its half.
        debug_assert!(id.raw() < u32::MAX);
        self.slots[slot] = u64::from(t) << 32 | u64::from(id.raw() + 1);
        self.len += 1;
    }
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
/// (those kept as objects are not in it): as [`Store::grow_table`](super::Store::grow_table), so
/// that the rehash streams through the arena where hashbrown's own, in
/// table order, would read a random state's bytes each time.
#[cold]
pub(super) fn grow_bytes_table(table: &mut TagTable, arena: &[u8], ends: &Ends) {
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
