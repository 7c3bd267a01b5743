//! The engine's hash table of stored states: indices by hash, one word a
//! slot (a 32-bit *tag* that the caller derives from the key, and the
//! index + 1; 0 is a free slot), probed linearly, at most 3/4 full. Two
//! stores use it: the one-thread collapse store (`successors::store`, ids
//! as [`ProtoId`](crate::ids::ProtoId), a short key held whole in its tag)
//! and each shard of the parallel search (`search::sharded`, plain
//! `usize` indices, the tag cut from the hash). Each keeps its own tag
//! rule; the table only needs equal keys to have equal tags.
//!
//! Why not hashbrown's table (as both stores had): its control bytes and
//! its slots are two arrays, so that a lookup missed the cache twice
//! before it even reached the key (control group, then the slot's index:
//! two thirds of a collapsed `ring` search's lookup time, and of the
//! parallel search's lookup samples on `ring-packed`). Here the tag that
//! rules out an unequal key is in the slot itself, the next slots probed
//! are mostly in the same cache line, and the free slot a lookup ends on
//! is where a new state goes (one probe for a new state, not a lookup
//! then an insert). The price is memory: 8 bytes a slot at most 3/4 full,
//! where hashbrown's were the 4-byte index and a control byte at most 7/8
//! full (see BENCHMARKS.md).

/// An index a [`TagTable`] holds: a number below `u32::MAX`, kept in the
/// low half of its slot. The conversions are free (a `u32` either way),
/// so that the generic table costs nothing over one written per index
/// type.
pub(crate) trait TableIndex: Copy {
    /// The index of raw number `raw` (as stored, less one).
    fn from_raw(raw: u32) -> Self;
    /// The index's raw number (below `u32::MAX`: it is stored plus one).
    fn to_raw(self) -> u32;
}

impl TableIndex for usize {
    #[inline]
    fn from_raw(raw: u32) -> Self {
        raw as usize
    }

    #[inline]
    fn to_raw(self) -> u32 {
        // The stores hold fewer than u32::MAX states (the searches stop
        // at u32::MAX - 2), so the index fits.
        debug_assert!(self < u32::MAX as usize);
        self as u32
    }
}

impl TableIndex for crate::ids::ProtoId {
    #[inline]
    fn from_raw(raw: u32) -> Self {
        crate::ids::ProtoId::new(raw as usize)
    }

    #[inline]
    fn to_raw(self) -> u32 {
        self.raw()
    }
}

/// The table (see the module docs): indices of type `I` by hash and tag.
/// A lookup that misses gives the free slot where the new index goes:
/// `match t.find(h, tag, same) { Ok(i) => seen(i), Err(slot) =>
/// t.insert_at(slot, tag, new) }`, after [`grow`](Self::grow) if
/// [`is_full`](Self::is_full).
pub(crate) struct TagTable<I> {
    slots: Vec<u64>,
    len: usize,
    /// The table holds indices of type `I` (packed in `slots`).
    index: std::marker::PhantomData<I>,
}

impl<I> Default for TagTable<I> {
    /// An empty table of no slots: full, so it grows before any lookup.
    fn default() -> Self {
        TagTable {
            slots: Vec::new(),
            len: 0,
            index: std::marker::PhantomData,
        }
    }
}

impl<I: TableIndex> TagTable<I> {
    /// An empty table of `capacity` slots (a power of two, or 0).
    pub(crate) fn with_slots(capacity: usize) -> Self {
        debug_assert!(capacity == 0 || capacity.is_power_of_two());
        TagTable {
            slots: vec![0; capacity],
            len: 0,
            index: std::marker::PhantomData,
        }
    }

    /// The number of slots.
    pub(crate) fn slots(&self) -> usize {
        self.slots.len()
    }

    /// The number of indices held.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Whether one more index would fill the table past 3/4 (an empty
    /// table is full): it must [`grow`](Self::grow) first. Linear probing
    /// stays short below 3/4, and a free slot then ends every probe.
    #[inline]
    pub(crate) fn is_full(&self) -> bool {
        4 * (self.len + 1) > 3 * self.slots.len()
    }

    /// The index whose key has hash `hash` and tag `tag` and that `same`
    /// accepts (asked only of indices of equal tags), or `Err` with the
    /// free slot where such an index goes ([`insert_at`](Self::insert_at)).
    /// The table must not be full, nor empty (a free slot ends every probe).
    #[inline]
    pub(crate) fn find(
        &self,
        hash: u64,
        tag: u32,
        mut same: impl FnMut(I) -> bool,
    ) -> Result<I, usize> {
        debug_assert!(!self.slots.is_empty());
        let mask = self.slots.len() - 1;
        let mut at = hash as usize & mask;
        loop {
            let s = self.slots[at];
            if s == 0 {
                return Err(at);
            }
            if (s >> 32) as u32 == tag {
                let i = I::from_raw(s as u32 - 1);
                if same(i) {
                    return Ok(i);
                }
            }
            at = (at + 1) & mask;
        }
    }

    /// Reads the first slot that a lookup of `hash` reads, and returns
    /// it: a lookup soon after finds it in the cache (the parallel
    /// search's stand-in for a prefetch, which would need `unsafe`).
    #[inline]
    pub(crate) fn touch(&self, hash: u64) -> u64 {
        match self.slots.len() {
            0 => 0,
            n => self.slots[hash as usize & (n - 1)],
        }
    }

    /// Puts index `i`, whose key has tag `tag`, in the free slot `slot`
    /// (from [`find`](Self::find), with no insertion since).
    #[inline]
    pub(crate) fn insert_at(&mut self, slot: usize, tag: u32, i: I) {
        let raw = i.to_raw();
        // Below u32::MAX (see `TableIndex`), so raw + 1 fits its half and
        // is never 0, the free slot.
        debug_assert!(raw < u32::MAX);
        debug_assert_eq!(self.slots[slot], 0);
        self.slots[slot] = u64::from(tag) << 32 | u64::from(raw + 1);
        self.len += 1;
    }

    /// Puts index `i` of a key known to be new, with hash `hash` and tag
    /// `tag`, in the first free slot of its probe, with no comparison (for
    /// re-inserting distinct keys, or a store's first one). The table
    /// must not be full.
    #[inline]
    pub(crate) fn insert_new(&mut self, hash: u64, tag: u32, i: I) {
        debug_assert!(!self.is_full());
        // The first free slot of the probe, without reading the tags of
        // the taken ones (a table's growth re-inserts every index).
        let mask = self.slots.len() - 1;
        let mut at = hash as usize & mask;
        while self.slots[at] != 0 {
            at = (at + 1) & mask;
        }
        self.insert_at(at, tag, i);
    }

    /// Doubles the table (to at least `min_slots`, a power of two),
    /// re-inserting the indices below `count` in index order, each with
    /// the hash and tag that `key` gives it (`None`: not in the table).
    /// Index order, not slot order, so that the rehash reads the stored
    /// keys front to back, where the old table's order would read a
    /// random key each time.
    #[cold]
    pub(crate) fn grow(
        &mut self,
        min_slots: usize,
        count: usize,
        mut key: impl FnMut(I) -> Option<(u64, u32)>,
    ) {
        let mut grown = Self::with_slots((2 * self.slots.len()).max(min_slots));
        for raw in 0..count {
            let i = I::from_raw(raw as u32);
            if let Some((hash, tag)) = key(i) {
                grown.insert_new(hash, tag, i);
            }
        }
        *self = grown;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::ProtoId;

    /// Colliding hashes (same slot, same tag) are told apart by `same`,
    /// and a new index goes where the lookup said.
    #[test]
    fn finds_among_collisions_and_inserts_where_found() {
        let mut t = TagTable::<usize>::with_slots(16);
        let h = 0xdead_beef_0000_0003;
        t.insert_new(h, 7, 0);
        t.insert_new(h, 7, 1);
        assert_eq!(t.find(h, 7, |i| i == 1), Ok(1));
        assert_eq!(t.find(h, 7, |i| i == 0), Ok(0));
        let free = t.find(h, 7, |_| false).unwrap_err();
        assert_eq!(free, 5, "after the two taken slots 3 and 4");
        t.insert_at(free, 7, 2);
        assert_eq!(t.find(h, 7, |i| i == 2), Ok(2));
        // Another tag in the same slot is skipped without asking `same`.
        assert!(t.find(h, 8, |_| panic!("a different tag")).is_err());
    }

    /// A probe that starts in the last slot goes on at the first.
    #[test]
    fn a_probe_wraps_around_the_end_of_the_slots() {
        let mut t = TagTable::<ProtoId>::with_slots(8);
        let last = 7; // the low bits pick slot 7
        t.insert_new(last, 1, ProtoId::new(10));
        t.insert_new(last, 1, ProtoId::new(11));
        t.insert_new(last, 1, ProtoId::new(12));
        // The second and third went to slots 0 and 1, past the end.
        assert_eq!(t.find(0, 1, |_| false), Err(2), "slots 0 and 1 are taken");
        for id in [10, 11, 12] {
            assert_eq!(t.find(last, 1, |i| i.index() == id), Ok(ProtoId::new(id)));
        }
        assert_eq!(t.find(last, 1, |_| false), Err(2));
    }

    /// The table says it is full at 3/4, before a probe could find no
    /// free slot; an empty table is full.
    #[test]
    fn full_at_three_quarters() {
        let mut t = TagTable::<usize>::with_slots(8);
        for i in 0..6 {
            assert!(!t.is_full());
            let h = (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
            t.insert_new(h, (h >> 32) as u32, i);
        }
        assert!(t.is_full(), "a seventh index in eight slots would pass 3/4");
        assert!(TagTable::<usize>::default().is_full());
    }

    /// Growth doubles the table (to the minimum from empty), keeps every
    /// index findable by its hash and tag, and leaves out those `key`
    /// leaves out.
    #[test]
    fn growth_keeps_every_entry_findable() {
        let hash = |i: ProtoId| u64::from(i.raw()).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let tag = |i: ProtoId| i.raw() % 5; // equal tags for unequal keys
        let kept = |i: ProtoId| i.raw() % 7 != 3;
        let key = |i: ProtoId| kept(i).then(|| (hash(i), tag(i)));
        let mut t = TagTable::<ProtoId>::default();
        let mut count = 0;
        for n in 0..1000u32 {
            let i = ProtoId::new(n as usize);
            if t.is_full() {
                let before = t.slots();
                t.grow(64, count, key);
                assert_eq!(t.slots(), (2 * before).max(64));
            }
            count += 1;
            if kept(i) {
                let slot = t.find(hash(i), tag(i), |j| j == i).unwrap_err();
                t.insert_at(slot, tag(i), i);
            }
        }
        t.grow(64, count, key);
        assert_eq!(t.len(), (0..1000).filter(|&n| n % 7 != 3).count());
        for n in 0..1000u32 {
            let i = ProtoId::new(n as usize);
            assert_eq!(t.find(hash(i), tag(i), |j| j == i).is_ok(), kept(i), "{n}");
        }
    }

    /// Equal tags of unequal keys: `same` decides, and each index is
    /// found only by its own key.
    #[test]
    fn equal_tags_of_unequal_keys_are_told_apart_by_same() {
        let keys = ["alpha", "beta", "gamma", "delta"];
        let mut t = TagTable::<usize>::with_slots(16);
        for i in 0..keys.len() {
            // One hash and one tag for all: every lookup probes them all.
            t.insert_new(5, 9, i);
        }
        for (i, k) in keys.iter().enumerate() {
            let mut asked = 0;
            let found = t.find(5, 9, |j| {
                asked += 1;
                keys[j] == *k
            });
            assert_eq!(found, Ok(i));
            assert_eq!(asked, i + 1, "asked in probe order");
        }
        assert_eq!(t.find(5, 9, |j| keys[j] == "epsilon"), Err(9));
    }
}
