//! The visited set of a search that stores nothing but fingerprints: hash
//! compaction's set of 64-bit product-state fingerprints, and bitstate
//! hashing's bit array.
//!
//! The fingerprint set is an *ordered* linear-probing table (Amble and
//! Knuth 1974): a fingerprint's home slot grows with its value, and each
//! run of occupied slots is kept sorted, so a lookup stops at the first
//! larger value — a miss costs no more than a hit even at a load of 0.92,
//! where plain linear probing scans dozens of slots. The table is cut into
//! segments by the fingerprint's top byte, which therefore need not be
//! stored: a slot holds the other 7 bytes (quotienting, as in Cleary's
//! compact hash tables; the set still tells all 64 bits apart, so the
//! omission bound is that of 64-bit fingerprints). With the load kept
//! between 0.92 / 1.1 and 0.92, a fingerprint costs about 8 bytes (a
//! `HashTable<u64>` with its control bytes, doubled at 7/8 full, averages
//! 14; a load of 0.95 saved 2 % more at a third more time an insertion,
//! whose run's tail moves up a slot). Each segment grows on its own by a tenth: growing copies one
//! segment at a time (no moment where the old and the new table of the
//! whole set are both allocated), and the segments' sizes are staggered so
//! that they do not all reach their lowest load together.
//!
//! A segment's slots lie in blocks of one size, and a segment that grows
//! gives its old blocks to the next one to grow: segments of their own
//! sizes, each a little larger than the one it replaced, left holes in the
//! heap that no later segment fitted (a fifth more memory than the slots).
//! The blocks are cut from slabs of 256 KiB (see [`PER_SLAB`]).

/// Segments: a power of two, picked by the top bits of a fingerprint.
const SEGMENT_BITS: u32 = 8;
/// Bytes a slot: the fingerprint's bits below the segment's.
const SLOT: usize = 7;
/// The bits a slot keeps.
const LOW: u64 = u64::MAX >> SEGMENT_BITS;
/// Most fingerprints a segment holds per home slot before it grows.
const MAX_LOAD: f64 = 0.92;
/// How much a full segment grows.
const GROWTH: f64 = 1.1;
/// Slots past a segment's last home slot, so that a run never wraps: a
/// run reaching the end grows the segment.
const TAIL: usize = 32;
/// Home slots of a new segment.
const FIRST_HOMES: f64 = 16.0;
/// Bytes a block of slots.
const BLOCK: usize = 4096;
/// Slots a block: each read as 8 bytes, its last one's past the slot.
const PER_BLOCK: usize = (BLOCK - 8) / SLOT + 1;
/// Blocks a slab, the unit the set allocates: 256 KiB, so that the
/// allocator maps each apart instead of placing it among the search's
/// other blocks (4 KiB blocks of their own, mixed with the frontier's
/// chunks, left a tenth more memory resident than the set's blocks).
const PER_SLAB: usize = 64;

/// A set of 64-bit fingerprints. A slot of 0 is empty, so a fingerprint
/// whose low 7 bytes are 0 is stored as if they were 1.
pub(super) struct FingerprintSet {
    segments: Vec<Segment>,
    mem: Blocks,
    len: u64,
}

/// The blocks of every segment, in slabs, named by number.
struct Blocks {
    slabs: Vec<Box<[u8]>>,
    /// Blocks no segment uses (zeroed when taken).
    spare: Vec<u32>,
    /// Blocks handed out so far.
    made: usize,
}

impl Blocks {
    /// A zeroed block, a spare one if there is one.
    fn take(&mut self) -> u32 {
        if let Some(b) = self.spare.pop() {
            self.block_mut(b).fill(0);
            return b;
        }
        if self.made.is_multiple_of(PER_SLAB) {
            self.slabs
                .push(vec![0; PER_SLAB * BLOCK].into_boxed_slice());
        }
        self.made += 1;
        (self.made - 1) as u32
    }

    #[inline]
    fn block(&self, b: u32) -> &[u8] {
        let (slab, at) = (b as usize / PER_SLAB, b as usize % PER_SLAB * BLOCK);
        &self.slabs[slab][at..at + BLOCK]
    }

    #[inline]
    fn block_mut(&mut self, b: u32) -> &mut [u8] {
        let (slab, at) = (b as usize / PER_SLAB, b as usize % PER_SLAB * BLOCK);
        &mut self.slabs[slab][at..at + BLOCK]
    }
}

struct Segment {
    blocks: Vec<u32>,
    /// The number of home slots (at most the slots less [`TAIL`]).
    homes: usize,
    len: usize,
}

/// The value of the slot at byte `at` of `block`.
#[inline]
fn read(block: &[u8], at: usize) -> u64 {
    let bytes: [u8; 8] = block[at..at + 8].try_into().expect("eight bytes");
    u64::from_le_bytes(bytes) & LOW
}

impl Segment {
    fn with_homes(homes: usize, mem: &mut Blocks) -> Segment {
        let blocks = (homes + TAIL).div_ceil(PER_BLOCK);
        Segment {
            blocks: (0..blocks).map(|_| mem.take()).collect(),
            homes,
            len: 0,
        }
    }

    fn slots(&self) -> usize {
        self.blocks.len() * PER_BLOCK
    }

    /// The value in slot `i` (0: empty).
    #[inline]
    fn get(&self, mem: &Blocks, i: usize) -> u64 {
        read(mem.block(self.blocks[i / PER_BLOCK]), i % PER_BLOCK * SLOT)
    }

    #[inline]
    fn set(&self, mem: &mut Blocks, i: usize, v: u64) {
        let (b, at) = (self.blocks[i / PER_BLOCK], i % PER_BLOCK * SLOT);
        mem.block_mut(b)[at..at + SLOT].copy_from_slice(&v.to_le_bytes()[..SLOT]);
    }

    /// The home slot of `v` (a slot's value): monotone in it.
    #[inline]
    fn home(&self, v: u64) -> usize {
        (((v << SEGMENT_BITS) as u128 * self.homes as u128) >> 64) as usize
    }

    /// The first slot from `from` whose value passes `stop`, with the
    /// value; `None` past the last slot. A block at a time: the block is
    /// looked up once, not per slot.
    #[inline]
    fn scan(&self, mem: &Blocks, from: usize, stop: impl Fn(u64) -> bool) -> Option<(usize, u64)> {
        let (mut b, mut k) = (from / PER_BLOCK, from % PER_BLOCK);
        while let Some(&id) = self.blocks.get(b) {
            let block = mem.block(id);
            while k < PER_BLOCK {
                let s = read(block, k * SLOT);
                if stop(s) {
                    return Some((b * PER_BLOCK + k, s));
                }
                k += 1;
            }
            (b, k) = (b + 1, 0);
        }
        None
    }

    /// The first slot from `v`'s home that is empty or holds `v` or more
    /// (there is one: the last slot is always empty).
    #[inline]
    fn seek(&self, mem: &Blocks, v: u64) -> (usize, u64) {
        self.scan(mem, self.home(v), |s| s == 0 || s >= v)
            .expect("the last slot is empty")
    }

    #[inline]
    fn contains(&self, mem: &Blocks, v: u64) -> bool {
        self.seek(mem, v).1 == v
    }

    /// Inserts `v`; whether it was new. `Err` if its run would leave the
    /// table (the caller grows the segment and tries again).
    #[inline]
    fn insert(&mut self, mem: &mut Blocks, v: u64) -> Result<bool, ()> {
        let (i, s) = self.seek(mem, v);
        if s == v {
            return Ok(false);
        }
        let (end, _) = self.scan(mem, i, |s| s == 0).ok_or(())?;
        if end + 1 >= self.slots() {
            return Err(());
        }
        self.shift_up(mem, i, end);
        self.set(mem, i, v);
        self.len += 1;
        Ok(true)
    }

    /// Moves the slots `i..end` one up (slot `end` is empty), a block's
    /// part at a time.
    fn shift_up(&self, mem: &mut Blocks, i: usize, end: usize) {
        let mut hi = end;
        while hi > i {
            let b = (hi - 1) / PER_BLOCK;
            let first = b * PER_BLOCK;
            let lo = i.max(first);
            let mut top = hi;
            if hi == first + PER_BLOCK {
                // The last slot of the block moves to the next block.
                let v = self.get(mem, hi - 1);
                self.set(mem, hi, v);
                top -= 1;
            }
            let (from, to) = ((lo - first) * SLOT, (top - first) * SLOT);
            mem.block_mut(self.blocks[b])
                .copy_within(from..to, from + SLOT);
            hi = lo;
        }
    }

    /// The segment with `homes` home slots holding the same fingerprints:
    /// the slots hold them in increasing order, and so does the new table.
    fn regrown(&self, homes: usize, mem: &mut Blocks) -> Segment {
        let mut s = Segment::with_homes(homes, mem);
        let mut next = 0;
        let mut old = [0u8; BLOCK];
        for &b in &self.blocks {
            old.copy_from_slice(mem.block(b));
            for v in (0..PER_BLOCK)
                .map(|k| read(&old, k * SLOT))
                .filter(|&v| v != 0)
            {
                let at = s.home(v).max(next);
                while at + 1 >= s.slots() {
                    s.blocks.push(mem.take());
                }
                s.set(mem, at, v);
                next = at + 1;
            }
        }
        s.len = self.len;
        s
    }
}

impl FingerprintSet {
    pub(super) fn new() -> FingerprintSet {
        let n = 1usize << SEGMENT_BITS;
        let mut mem = Blocks {
            slabs: Vec::new(),
            spare: Vec::new(),
            made: 0,
        };
        // Staggered over one growth step (see the module docs).
        let segments = (0..n)
            .map(|i| {
                let homes = FIRST_HOMES * GROWTH.powf(i as f64 / n as f64);
                Segment::with_homes(homes as usize, &mut mem)
            })
            .collect();
        FingerprintSet {
            segments,
            mem,
            len: 0,
        }
    }

    /// The segment of `fp` and the value its slot holds.
    #[inline]
    fn split(fp: u64) -> (usize, u64) {
        ((fp >> (64 - SEGMENT_BITS)) as usize, (fp & LOW).max(1))
    }

    #[inline]
    pub(super) fn contains(&self, fp: u64) -> bool {
        let (seg, v) = Self::split(fp);
        self.segments[seg].contains(&self.mem, v)
    }

    /// Inserts `fp`; whether it was new.
    #[inline]
    pub(super) fn insert(&mut self, fp: u64) -> bool {
        let (seg, v) = Self::split(fp);
        let (seg, mem) = (&mut self.segments[seg], &mut self.mem);
        if seg.len as f64 >= seg.homes as f64 * MAX_LOAD {
            let grown = seg.regrown((seg.homes as f64 * GROWTH) as usize + 1, mem);
            let old = std::mem::replace(seg, grown);
            mem.spare.extend(old.blocks);
        }
        loop {
            match seg.insert(mem, v) {
                Ok(new) => {
                    self.len += new as u64;
                    return new;
                }
                // A run reached the end: more room behind it.
                Err(()) => seg.blocks.push(mem.take()),
            }
        }
    }

    /// Fingerprints stored.
    #[cfg(test)]
    pub(super) fn len(&self) -> u64 {
        self.len
    }

    /// Bytes the slabs take (for tests).
    #[cfg(test)]
    fn bytes(&self) -> usize {
        self.mem.slabs.len() * PER_SLAB * BLOCK
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
    /// An array of `bits` bits: a power of two, at least 64
    /// ([`Checker::bitstate_array_bits`](crate::Checker::bitstate_array_bits)).
    pub(super) fn new(bits: u64, k: u32) -> BitState {
        debug_assert!(bits.is_power_of_two() && bits >= 64);
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
        let n = 1_000_000;
        for i in 0..n {
            assert!(s.insert(fp(i)), "{i}");
            assert!(!s.insert(fp(i)));
        }
        assert_eq!(s.len(), n);
        assert!((0..n).all(|i| s.contains(fp(i))));
        assert!((n..2 * n).all(|i| !s.contains(fp(i))));
        // A million fingerprints in their 7 bytes at a load of 0.84–0.92,
        // the blocks' slack, the spare blocks and the last slab's unused
        // part included.
        let bytes = s.bytes() as f64 / n as f64;
        assert!(bytes <= 8.9, "{bytes} bytes a fingerprint");
        // Clustered values (all in one segment, neighbours, runs across
        // blocks) too, and the value 0, stored as 1.
        let mut c = FingerprintSet::new();
        for i in 1..5_000u64 {
            assert!(c.insert(i));
        }
        assert!((1..5_000u64).all(|i| c.contains(i)) && !c.contains(5_000));
        assert!(c.contains(0) && !c.insert(0));
    }

    /// Runs that cross a block's end move across it when a value is
    /// inserted before them, in order.
    #[test]
    fn a_run_across_blocks_moves_up_in_order() {
        let mut mem = FingerprintSet::new().mem;
        let mut g = Segment::with_homes(2 * PER_BLOCK, &mut mem);
        let start = PER_BLOCK - 3;
        // Values at home `start` and up, inserted largest first: each
        // insertion moves the run up by one, across the block's end.
        // The least value whose home is `h`.
        let at = |h: usize| {
            (((h as u128) << 64).div_ceil(g.homes as u128) as u64).div_ceil(1 << SEGMENT_BITS)
        };
        let values: Vec<u64> = (0..8).map(|k| at(start) + k).collect();
        for &v in values.iter().rev() {
            assert_eq!(g.insert(&mut mem, v), Ok(true));
        }
        let got: Vec<u64> = (start..start + 8).map(|i| g.get(&mem, i)).collect();
        assert_eq!(got, values);
        assert!(values.iter().all(|&v| g.contains(&mem, v)));
        assert_eq!(g.get(&mem, start + 8), 0);
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
