//! A shard's table: its objects' indices by hash, one word a slot (32 bits
//! of the hash, the *tag*, and the index + 1; 0 is a free slot), probed
//! linearly, at most 3/4 full.
//!
//! Why not hashbrown's table (as the store had): its control bytes and its
//! slots are two arrays, so that a lookup missed the cache twice before it
//! even reached the object (control group, then the slot's index: two
//! thirds of the parallel search's lookup samples on `ring-packed`, which
//! took twice the one-thread store's time for the same lookups). Here the
//! tag that rules out an unequal object is in the slot itself, the next
//! slots probed are mostly in the same cache line, and a free slot found
//! by the lookup is where a new state goes (one probe for a new state, not
//! a lookup then an insert). The price is memory: 8 bytes a slot at most
//! 3/4 full, where hashbrown's were 4 and a control byte at most 7/8 full
//! (5 or 6 bytes a stored state more: see BENCHMARKS.md, issue 17,
//! session 16).

/// The tag of a hash, kept in its slot: bits 25..57, above the slot's
/// position (the low bits). They include the shard choice's (bits 32..56),
/// of which a shard fixes only the top few (8 at most), so 24 or more tell
/// a shard's objects apart. Equal objects have equal tags, so
/// unequal tags skip the object; a table of over 2^25 slots repeats some of
/// the position's bits in the tag: a weaker filter, never a wrong answer.
#[inline]
pub(super) fn tag(hash: u64) -> u32 {
    (hash >> 25) as u32
}

/// The table (see the module docs).
#[derive(Default)]
pub(super) struct TagTable {
    slots: Vec<u64>,
    len: usize,
}

impl TagTable {
    /// An empty table of `capacity` slots (a power of two, or 0).
    pub(super) fn with_slots(capacity: usize) -> Self {
        debug_assert!(capacity == 0 || capacity.is_power_of_two());
        TagTable {
            slots: vec![0; capacity],
            len: 0,
        }
    }

    /// The number of slots.
    pub(super) fn slots(&self) -> usize {
        self.slots.len()
    }

    /// Whether one more index would fill the table past 3/4 (an empty
    /// table is full): it must grow first.
    #[inline]
    pub(super) fn is_full(&self) -> bool {
        4 * (self.len + 1) > 3 * self.slots.len()
    }

    /// The index whose object has hash `hash` and that `same` accepts, or
    /// `Err` with the free slot where such an index goes
    /// ([`insert_at`](Self::insert_at)). The table must not be full (a free
    /// slot ends every probe).
    #[inline]
    pub(super) fn find(
        &self,
        hash: u64,
        mut same: impl FnMut(usize) -> bool,
    ) -> Result<usize, usize> {
        let mask = self.slots.len() - 1;
        let t = tag(hash);
        let mut at = hash as usize & mask;
        loop {
            let s = self.slots[at];
            if s == 0 {
                return Err(at);
            }
            if (s >> 32) as u32 == t {
                let i = (s as u32 - 1) as usize;
                if same(i) {
                    return Ok(i);
                }
            }
            at = (at + 1) & mask;
        }
    }

    /// Reads the first slot that a lookup of `hash` reads, and returns
    /// it: a lookup soon after finds it in the cache (see
    /// `Locked::touch`).
    #[inline]
    pub(super) fn touch(&self, hash: u64) -> u64 {
        match self.slots.len() {
            0 => 0,
            n => self.slots[hash as usize & (n - 1)],
        }
    }

    /// Puts index `i` of an object with hash `hash` in the free slot
    /// `slot` (from [`find`](Self::find), with no insertion since).
    #[inline]
    pub(super) fn insert_at(&mut self, slot: usize, hash: u64, i: usize) {
        // Indices stay below u32::MAX - 1 (the store holds fewer states),
        // so i + 1 fits its half and is never 0.
        debug_assert!(i < u32::MAX as usize);
        debug_assert_eq!(self.slots[slot], 0);
        self.slots[slot] = u64::from(tag(hash)) << 32 | (i as u64 + 1);
        self.len += 1;
    }

    /// Puts index `i` of a new object with hash `hash` in the first free
    /// slot of its probe (the table must not be full): for re-inserting
    /// known-distinct objects, with no comparison.
    #[inline]
    pub(super) fn insert_new(&mut self, hash: u64, i: usize) {
        let slot = match self.find(hash, |_| false) {
            Ok(_) => unreachable!("`same` accepts nothing"),
            Err(slot) => slot,
        };
        self.insert_at(slot, hash, i);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Colliding hashes (same slot, same tag) are told apart by `same`,
    /// and a new index goes where the lookup said.
    #[test]
    fn finds_among_collisions_and_inserts_where_found() {
        let mut t = TagTable::with_slots(16);
        let h = 0xdead_beef_0000_0003;
        t.insert_new(h, 0);
        t.insert_new(h, 1);
        assert_eq!(t.find(h, |i| i == 1), Ok(1));
        assert_eq!(t.find(h, |i| i == 0), Ok(0));
        let free = t.find(h, |_| false).unwrap_err();
        assert_eq!(free, 5, "after the two taken slots 3 and 4");
        t.insert_at(free, h, 2);
        assert_eq!(t.find(h, |i| i == 2), Ok(2));
        // Another tag in the same slot is skipped without asking `same`.
        let other = h ^ (1 << 40);
        assert!(t.find(other, |_| panic!("a different tag")).is_err());
    }

    /// The table says it is full at 3/4, before a probe could find no
    /// free slot.
    #[test]
    fn full_at_three_quarters() {
        let mut t = TagTable::with_slots(8);
        for i in 0..6 {
            assert!(!t.is_full());
            t.insert_new((i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15), i);
        }
        assert!(t.is_full(), "a seventh index in eight slots would pass 3/4");
        assert!(TagTable::default().is_full());
    }
}
