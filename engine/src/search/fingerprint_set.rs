//! The visited set of a search that stores nothing but fingerprints: hash
//! compaction's set of 64-bit product-state fingerprints, and bitstate
//! hashing's bit array.
//!
//! The fingerprint set is an *ordered* linear-probing table (Amble and
//! Knuth 1974) of bare `u64`s: a fingerprint's home slot grows with its
//! value, and each run of occupied slots is kept sorted, so a lookup stops
//! at the first larger value — a miss costs no more than a hit even at a
//! load of 0.9, where plain linear probing scans dozens of slots. That
//! load is what brings a state to about 9–10 bytes (a `HashTable<u64>`
//! with its control bytes, doubled at 7/8 full, averages 14). The table is
//! cut into segments by the fingerprint's top bits, each grown on its own
//! by a quarter: growing copies one segment at a time (no moment where the
//! old and the new table of the whole set are both allocated), and the
//! segments' sizes are staggered so that they do not all reach their
//! lowest load together.

/// Segments: a power of two, picked by the top bits of a fingerprint.
const SEGMENT_BITS: u32 = 6;
/// Most fingerprints a segment holds per slot before it grows.
const MAX_LOAD: f64 = 0.9;
/// How much a full segment grows.
const GROWTH: f64 = 1.25;
/// Slots past a segment's last home slot, so that a run never wraps: a
/// run reaching the end grows the segment.
const TAIL: usize = 64;

/// A set of nonzero 64-bit fingerprints (0 marks an empty slot, so a
/// fingerprint of 0 is stored as 1).
pub(super) struct FingerprintSet {
    segments: Vec<Segment>,
    len: u64,
}

struct Segment {
    /// `homes + TAIL` slots.
    slots: Vec<u64>,
    /// The number of home slots.
    homes: usize,
    len: usize,
}

impl Segment {
    fn with_homes(homes: usize) -> Segment {
        Segment {
            slots: vec![0; homes + TAIL],
            homes,
            len: 0,
        }
    }

    /// The home slot of `fp`: monotone in its bits below the segment's.
    #[inline]
    fn home(&self, fp: u64) -> usize {
        (((fp << SEGMENT_BITS) as u128 * self.homes as u128) >> 64) as usize
    }

    #[inline]
    fn contains(&self, fp: u64) -> bool {
        let mut i = self.home(fp);
        while self.slots[i] != 0 && self.slots[i] < fp {
            i += 1;
        }
        self.slots[i] == fp
    }

    /// Inserts `fp`; whether it was new. `Err` if its run would leave the
    /// table (the caller grows the segment and tries again).
    #[inline]
    fn insert(&mut self, fp: u64) -> Result<bool, ()> {
        let mut i = self.home(fp);
        while self.slots[i] != 0 && self.slots[i] < fp {
            i += 1;
        }
        if self.slots[i] == fp {
            return Ok(false);
        }
        let end = i + self.slots[i..].iter().position(|&s| s == 0).ok_or(())?;
        if end + 1 >= self.slots.len() {
            return Err(());
        }
        self.slots.copy_within(i..end, i + 1);
        self.slots[i] = fp;
        self.len += 1;
        Ok(true)
    }

    /// The segment with `homes` home slots holding the same fingerprints:
    /// the slots hold them in increasing order, and so does the new table.
    fn regrown(&self, homes: usize) -> Segment {
        let mut s = Segment::with_homes(homes);
        let mut next = 0;
        for &fp in self.slots.iter().filter(|&&fp| fp != 0) {
            let at = s.home(fp).max(next);
            if at >= s.slots.len() {
                s.slots.resize(at + TAIL, 0);
            }
            s.slots[at] = fp;
            next = at + 1;
        }
        s.len = self.len;
        s
    }
}

impl FingerprintSet {
    pub(super) fn new() -> FingerprintSet {
        let n = 1usize << SEGMENT_BITS;
        // Staggered over one growth step (see the module docs).
        let segments = (0..n)
            .map(|i| Segment::with_homes((64.0 * GROWTH.powf(i as f64 / n as f64)) as usize))
            .collect();
        FingerprintSet { segments, len: 0 }
    }

    #[inline]
    fn segment(fp: u64) -> usize {
        (fp >> (64 - SEGMENT_BITS)) as usize
    }

    #[inline]
    pub(super) fn contains(&self, fp: u64) -> bool {
        let fp = fp.max(1);
        self.segments[Self::segment(fp)].contains(fp)
    }

    /// Inserts `fp`; whether it was new.
    #[inline]
    pub(super) fn insert(&mut self, fp: u64) -> bool {
        let fp = fp.max(1);
        let seg = &mut self.segments[Self::segment(fp)];
        if seg.len as f64 >= seg.homes as f64 * MAX_LOAD {
            *seg = seg.regrown((seg.homes as f64 * GROWTH) as usize + 1);
        }
        loop {
            match seg.insert(fp) {
                Ok(new) => {
                    self.len += new as u64;
                    return new;
                }
                // A run reached the end: more room behind it.
                Err(()) => seg.slots.resize(seg.slots.len() + TAIL, 0),
            }
        }
    }

    /// Fingerprints stored.
    #[cfg(test)]
    pub(super) fn len(&self) -> u64 {
        self.len
    }
}

/// Bitstate hashing (Holzmann's supertrace): `k` bits of one array per
/// state, from two hashes of its fingerprint (Kirsch and Mitzenmacher's
/// double hashing). A state whose `k` bits are all set already is taken
/// for one seen before, so some states are never explored.
pub(super) struct BitState {
    bits: Vec<u64>,
    mask: u64,
    k: u32,
}

impl BitState {
    /// An array of `bits` bits (a power of two, at least 64).
    pub(super) fn new(bits: u64, k: u32) -> BitState {
        let bits = bits.next_power_of_two().max(64);
        BitState {
            bits: vec![0; (bits / 64) as usize],
            mask: bits - 1,
            k,
        }
    }

    #[inline]
    fn positions(&self, fp: u64) -> impl Iterator<Item = u64> {
        let (h2, mask) = (crate::successors::mix(fp) | 1, self.mask);
        (0..self.k as u64).map(move |j| fp.wrapping_add(j.wrapping_mul(h2)) & mask)
    }

    #[inline]
    pub(super) fn contains(&self, fp: u64) -> bool {
        self.positions(fp)
            .all(|b| self.bits[(b / 64) as usize] >> (b % 64) & 1 != 0)
    }

    #[inline]
    pub(super) fn insert(&mut self, fp: u64) {
        for b in self.positions(fp) {
            self.bits[(b / 64) as usize] |= 1 << (b % 64);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_set_finds_exactly_what_was_inserted_across_growth() {
        let mut s = FingerprintSet::new();
        let fp = |i: u64| crate::successors::mix(i.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 7);
        for i in 0..200_000u64 {
            assert!(s.insert(fp(i)), "{i}");
            assert!(!s.insert(fp(i)));
        }
        assert_eq!(s.len(), 200_000);
        assert!((0..200_000).all(|i| s.contains(fp(i))));
        assert!((200_000..400_000).all(|i| !s.contains(fp(i))));
        let slots: usize = s.segments.iter().map(|g| g.slots.len()).sum();
        let bytes = slots as f64 * 8.0 / 200_000.0;
        assert!(bytes <= 10.5, "{bytes} bytes a fingerprint");
        // Clustered values (all in one segment, neighbours) too.
        let mut c = FingerprintSet::new();
        for i in 1..5_000u64 {
            assert!(c.insert(i));
        }
        assert!((1..5_000u64).all(|i| c.contains(i)) && !c.contains(5_000));
    }

    #[test]
    fn bitstate_remembers_what_it_stored() {
        let mut b = BitState::new(1 << 20, 3);
        for i in 0..1000u64 {
            b.insert(crate::successors::mix(i + 1));
        }
        assert!((0..1000u64).all(|i| b.contains(crate::successors::mix(i + 1))));
        let false_hits = (1000..11_000u64)
            .filter(|&i| b.contains(crate::successors::mix(i + 1)))
            .count();
        assert!(false_hits < 10, "{false_hits}");
    }
}
