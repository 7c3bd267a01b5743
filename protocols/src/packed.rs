//! Small records of a few numbers each (a message in transit is `(from,
//! to, type)`, a liberal envelope `(to, from, tag, type)`), packed into as
//! few bytes as the object's sizes allow and kept in one inline buffer.
//!
//! Why: the model checker clones, hashes, compares and stores a runtime
//! object in every state it visits. With the messages in a `Vec` of
//! `Message`s, each clone was a heap allocation and each compare a walk
//! over boxed messages (55–70 % of a check's time, ~500 B a state). Packed,
//! the object is a few dozen bytes with no pointer to follow: a clone is a
//! copy, equality a compare of bytes, the hash one pass over them.

/// How the fields of a record are packed: at most four fields, the first
/// the most significant, each as many bits as its largest value needs;
/// whole bytes a record (little-endian). Four bytes, so that it fits the
/// padding beside a runtime object's `u32` state: the width and shifts
/// are recomputed from it on use (a few adds) rather than stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Layout {
    bits: [u8; 4],
}

/// The bits that the values `0..count` need (0 for a count of 0 or 1).
fn bits_for(count: usize) -> u8 {
    (usize::BITS - count.saturating_sub(1).leading_zeros()) as u8
}

impl Layout {
    /// Records whose field `k` takes values `0..counts[k]`. Every field is
    /// at most 32 bits (roles, types, tags and states are `u32`), so a
    /// record fits 16 bytes whatever the counts: there is no size at which
    /// packing fails.
    pub(crate) fn new(counts: [usize; 4]) -> Layout {
        Layout {
            bits: counts.map(|c| bits_for(c).min(32)),
        }
    }

    /// Bytes a record: at least one, since the number of records is the
    /// buffer's length divided by the width.
    #[inline]
    pub(crate) fn width(self) -> usize {
        (self.shift(0) as usize + self.bits[0] as usize)
            .div_ceil(8)
            .max(1)
    }

    /// The bits below field `k`. Written out rather than summed over a
    /// slice: with `k` known where it is inlined, it is two adds at most
    /// (this runs for every field of every record read in a check).
    #[inline]
    fn shift(self, k: usize) -> u32 {
        let [_, b1, b2, b3] = self.bits.map(u32::from);
        match k {
            0 => b1 + b2 + b3,
            1 => b2 + b3,
            2 => b3,
            _ => 0,
        }
    }

    /// The record of `fields` (each below its count).
    #[inline]
    pub(crate) fn pack(self, fields: [u32; 4]) -> u128 {
        (0..4).fold(0, |v, k| v | (u128::from(fields[k]) << self.shift(k)))
    }

    /// Field `k` of record `v`.
    #[inline]
    pub(crate) fn field(self, v: u128, k: usize) -> u32 {
        ((v >> self.shift(k)) & ((1u128 << self.bits[k]) - 1)) as u32
    }

    /// All four fields of record `v`, lowest last: one pass of shifts
    /// rather than four sums of the widths below each field.
    #[inline]
    pub(crate) fn unpack(self, mut v: u128) -> [u32; 4] {
        let mut out = [0; 4];
        for k in (0..4).rev() {
            out[k] = (v & ((1u128 << self.bits[k]) - 1)) as u32;
            v >>= self.bits[k];
        }
        out
    }

    /// Whether every field of `v` is below its count in `counts` (the
    /// bits a field takes may hold more: a decoded record must be checked
    /// before its fields index anything).
    pub(crate) fn within(self, v: u128, counts: [usize; 4]) -> bool {
        (0..4).all(|k| self.bits[k] == 0 || (self.field(v, k) as usize) < counts[k])
    }

    /// Fields `0..=k` of `v`, as one number: records sort by it the way
    /// they sort by those fields.
    #[inline]
    pub(crate) fn prefix(self, v: u128, k: usize) -> u128 {
        v >> self.shift(k)
    }
}

/// A sequence of records of one [`Layout`], in one buffer: inline up to
/// `N` bytes (the common case: no heap allocation, a clone is a copy), on
/// the heap beyond, as a boxed slice of exactly its length (16 bytes, so
/// that the heap variant takes no more room than the inline one; the heap
/// is the rare case, where an insert or remove allocates anew). With the
/// length and the variant's tag, `N + 2` bytes (at least 24): `N = 22` or
/// `30` make 24 or 32.
/// Equality and hash are those of the bytes, whichever variant holds them.
#[derive(Clone)]
pub(crate) enum Packed<const N: usize> {
    Inline { len: u8, bytes: [u8; N] },
    Heap(Box<[u8]>),
}

impl<const N: usize> Default for Packed<N> {
    fn default() -> Self {
        Packed::Inline {
            len: 0,
            bytes: [0; N],
        }
    }
}

impl<const N: usize> Packed<N> {
    /// The records' bytes.
    #[inline]
    pub(crate) fn bytes(&self) -> &[u8] {
        match self {
            Packed::Inline { len, bytes } => &bytes[..*len as usize],
            Packed::Heap(v) => v,
        }
    }

    /// The buffer holding `bytes`, in the variant the inserts and removes
    /// would have left it in (inline up to `N` bytes, on the heap beyond),
    /// so that an object rebuilt from its encoding behaves as the original
    /// (a clone of it is a copy again where the original's was).
    pub(crate) fn from_bytes(b: &[u8]) -> Self {
        if b.len() <= N {
            let mut bytes = [0; N];
            bytes[..b.len()].copy_from_slice(b);
            Packed::Inline {
                len: b.len() as u8,
                bytes,
            }
        } else {
            Packed::Heap(b.into())
        }
    }

    /// The number of records.
    #[inline]
    pub(crate) fn len(&self, l: Layout) -> usize {
        self.bytes().len() / l.width()
    }

    /// Whether there is no record.
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.bytes().is_empty()
    }

    /// The `w` bytes at byte `at` (`1 <= w <= 16`, within the records),
    /// as a number.
    ///
    /// Every state a check visits reads dozens of records, so a record of
    /// up to 8 bytes is one fixed 8-byte load and a mask, not a copy of
    /// `w` bytes (a `memcpy` call of variable length, a third of the
    /// liberal object's time in a check before). The load may take bytes
    /// past the records (an inline buffer's spare bytes): the mask drops
    /// them. Near the buffer's end the load is of its last 8 bytes instead
    /// and a shift drops the bytes before the record. [`read_bytes`]
    /// is the plain version, for wider records and the tests.
    #[inline]
    pub(crate) fn read(&self, at: usize, w: usize) -> u128 {
        debug_assert!(w >= 1 && at + w <= self.bytes().len());
        // The whole inline array: its bytes past `len` are never part of
        // a result (masked or shifted off).
        let window: &[u8] = match self {
            Packed::Inline { bytes, .. } => bytes,
            Packed::Heap(h) => h,
        };
        if w <= 8 && window.len() >= 8 {
            let mask = u64::MAX >> (64 - 8 * w);
            let word = if at + 8 <= window.len() {
                word_at(window, at)
            } else {
                // The window's last 8 bytes; the record starts
                // `at + 8 - len` (0 to 7) bytes into them.
                let last = window.len() - 8;
                word_at(window, last) >> (8 * (at - last))
            };
            return u128::from(word & mask);
        }
        read_bytes(self.bytes(), at, w)
    }

    /// Record `i`.
    #[inline]
    pub(crate) fn get(&self, l: Layout, i: usize) -> u128 {
        let w = l.width();
        self.read(i * w, w)
    }

    /// The records in order.
    pub(crate) fn iter(&self, l: Layout) -> impl ExactSizeIterator<Item = u128> + '_ {
        (0..self.len(l)).map(move |i| self.get(l, i))
    }

    /// The first index whose record does not satisfy `pred` (the records
    /// must be partitioned by it), as `slice::partition_point`.
    #[inline]
    pub(crate) fn partition_point(&self, l: Layout, pred: impl Fn(u128) -> bool) -> usize {
        self.partition_point_in(l, 0, self.len(l), pred)
    }

    /// [`partition_point`](Self::partition_point) over records
    /// `lo..hi` only.
    #[inline]
    pub(crate) fn partition_point_in(
        &self,
        l: Layout,
        mut lo: usize,
        mut hi: usize,
        pred: impl Fn(u128) -> bool,
    ) -> usize {
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if pred(self.get(l, mid)) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// Inserts `v` as `w` bytes at byte `at`.
    pub(crate) fn insert_at(&mut self, at: usize, w: usize, v: u128) {
        let rec = v.to_le_bytes();
        match self {
            Packed::Inline { len, bytes } if *len as usize + w <= N => {
                let n = *len as usize;
                bytes.copy_within(at..n, at + w);
                bytes[at..at + w].copy_from_slice(&rec[..w]);
                *len += w as u8;
            }
            _ => {
                let mut v = self.bytes().to_vec();
                v.splice(at..at, rec[..w].iter().copied());
                *self = Packed::Heap(v.into_boxed_slice());
            }
        }
    }

    /// Inserts record `v` at index `i`.
    #[inline]
    pub(crate) fn insert(&mut self, l: Layout, i: usize, v: u128) {
        let w = l.width();
        self.insert_at(i * w, w, v);
    }

    /// Removes the `w` bytes at byte `at` and returns them as a number.
    pub(crate) fn remove_at(&mut self, at: usize, w: usize) -> u128 {
        let v = self.read(at, w);
        match self {
            Packed::Inline { len, bytes } => {
                let n = *len as usize;
                bytes.copy_within(at + w..n, at);
                *len -= w as u8;
            }
            Packed::Heap(h) => {
                let mut v = std::mem::take(h).into_vec();
                v.drain(at..at + w);
                *self = if v.len() <= N {
                    // Back inline: the next clone is a copy again.
                    let mut bytes = [0; N];
                    bytes[..v.len()].copy_from_slice(&v);
                    Packed::Inline {
                        len: v.len() as u8,
                        bytes,
                    }
                } else {
                    Packed::Heap(v.into_boxed_slice())
                };
            }
        }
        v
    }

    /// Removes record `i` and returns it.
    #[inline]
    pub(crate) fn remove(&mut self, l: Layout, i: usize) -> u128 {
        let w = l.width();
        self.remove_at(i * w, w)
    }

    /// Overwrites the `w` bytes at byte `at` with `v`.
    pub(crate) fn write_at(&mut self, at: usize, w: usize, v: u128) {
        let rec = v.to_le_bytes();
        let dst = match self {
            Packed::Inline { bytes, .. } => &mut bytes[at..at + w],
            Packed::Heap(h) => &mut h[at..at + w],
        };
        dst.copy_from_slice(&rec[..w]);
    }
}

/// The 8 bytes of `b` at `at`, little-endian.
#[inline]
fn word_at(b: &[u8], at: usize) -> u64 {
    let mut w = [0; 8];
    w.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(w)
}

/// The `w` bytes of `b` at `at`, as a number, byte by byte: what
/// [`Packed::read`] computes faster (and the reference its tests compare it
/// with).
#[inline]
pub(crate) fn read_bytes(b: &[u8], at: usize, w: usize) -> u128 {
    let mut r = [0u8; 16];
    r[..w].copy_from_slice(&b[at..at + w]);
    u128::from_le_bytes(r)
}

impl<const N: usize> PartialEq for Packed<N> {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        self.bytes() == other.bytes()
    }
}
impl<const N: usize> Eq for Packed<N> {}

impl<const N: usize> std::hash::Hash for Packed<N> {
    #[inline]
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        h.write(self.bytes());
    }
}

/// Appends `v` as LEB128: seven bits a byte, low first, the high bit set
/// on every byte but the last. One number has one encoding, so equal
/// states write equal bytes whatever their object's sizes.
pub(crate) fn write_varint(out: &mut Vec<u8>, mut v: u32) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// The number [`write_varint`] wrote at the start of `b`, and the bytes
/// after it; `None` if `b` does not start with one (cut short, more than
/// 32 bits, or not in its shortest form, which `write_varint` never
/// writes: two byte strings must never name one number).
pub(crate) fn read_varint(b: &[u8]) -> Option<(u32, &[u8])> {
    let mut v: u64 = 0;
    for (i, &byte) in b.iter().enumerate().take(5) {
        v |= u64::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            // A last byte of 0 after others is a longer form of a shorter
            // number.
            if (i > 0 && byte == 0) || v > u64::from(u32::MAX) {
                return None;
            }
            return Some((v as u32, &b[i + 1..]));
        }
    }
    None
}

/// The messages kept beside a sequence of packed records, one slot per
/// record: `None` while every record's message can be rebuilt from its
/// type (the case in a check with the object's own dummies), so that a
/// clone allocates nothing; otherwise the messages that cannot (a payload
/// other than `()`, a type path other than the LTS's type name) at their
/// record's index.
///
/// One pointer wide (the list sits behind a box), so that it costs the
/// object 8 bytes while it is empty.
#[derive(Clone, Default)]
pub(crate) struct Kept(Option<Box<KeptList>>);

/// The slots of [`Kept`], one per record.
#[derive(Clone)]
pub(crate) struct KeptList(Vec<Option<engine::Message>>);

impl Kept {
    /// A record was inserted at index `at` of `len` (after the insert);
    /// `msg` is its message if it must be kept.
    pub(crate) fn insert(&mut self, at: usize, len: usize, msg: Option<engine::Message>) {
        if self.0.is_none() && msg.is_none() {
            return;
        }
        let list = self
            .0
            .get_or_insert_with(|| Box::new(KeptList(vec![None; len - 1])));
        list.0.insert(at, msg);
    }

    /// The record at index `at` was removed: its kept message, if any.
    pub(crate) fn remove(&mut self, at: usize) -> Option<engine::Message> {
        let list = self.0.as_mut()?;
        let m = list.0.remove(at);
        if list.0.iter().all(Option::is_none) {
            // Back to the common case: clones allocate nothing.
            self.0 = None;
        }
        m
    }

    /// Whether no message is kept: every record's message can be rebuilt
    /// from its type, so the records alone are the whole state (what
    /// `Protocol::encode` may then write).
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_none()
    }

    /// The kept message of the record at index `at`, if any.
    pub(crate) fn get(&self, at: usize) -> Option<&engine::Message> {
        self.0.as_ref()?.0[at].as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Records of `width` bytes (each field's share of the bits) built
    /// from `values` with inserts and removes at the positions `at` gives,
    /// in an `N`-byte buffer; after each step every record reads as the
    /// byte copy reads it, and unpacks as its fields read one by one.
    fn reads_agree<const N: usize>(bits: [u8; 4], values: &[u128], at: &[usize]) {
        let l = Layout { bits };
        let mask = (1u128 << (8 * l.width()).min(127)) - 1;
        let mut p = Packed::<N>::default();
        let mut n = 0;
        for (i, (&v, &a)) in values.iter().zip(at.iter().cycle()).enumerate() {
            if i % 5 == 4 && n > 0 {
                p.remove(l, a % n);
                n -= 1;
            } else {
                p.insert(l, a % (n + 1), v & mask);
                n += 1;
            }
            for j in 0..n {
                let (w, v) = (l.width(), p.get(l, j));
                assert_eq!(v, read_bytes(p.bytes(), j * w, w), "record {j} of {n}");
                let fields = [0, 1, 2, 3].map(|k| l.field(v, k));
                assert_eq!(l.unpack(v), fields);
            }
        }
    }

    proptest! {
        /// The fast read (8-byte loads, at the buffer's end too) and the
        /// byte copy agree on records of every width, inline and on the
        /// heap, after inserts and removes have left spare bytes behind.
        #[test]
        fn the_fast_read_is_the_byte_copy(
            bits in proptest::array::uniform4(0u8..=32),
            values in proptest::collection::vec(any::<u128>(), 1..40),
            at in proptest::collection::vec(any::<usize>(), 1..8),
        ) {
            reads_agree::<22>(bits, &values, &at);
            reads_agree::<30>(bits, &values, &at);
        }
    }

    #[test]
    fn every_width_reads_at_the_end_of_a_full_buffer() {
        // Widths 1 to 16 with the last record ending exactly at the
        // inline buffer's end (the load must not run past it) and past
        // it (on the heap, exactly as long as its records).
        for width in 1..=16u8 {
            let bits = [
                width * 8 / 4,
                width * 8 / 4,
                width * 8 / 4,
                width * 8 - 3 * (width * 8 / 4),
            ];
            let values: Vec<u128> = (0..40u128)
                .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c835))
                .collect();
            reads_agree::<30>(bits, &values, &[usize::MAX, 0, 7]);
            reads_agree::<22>(bits, &values, &[3, usize::MAX]);
        }
    }

    #[test]
    fn layouts_take_the_bits_the_counts_need() {
        // 11 roles: 4 bits each; 1 type: 0 bits. One byte a message.
        let l = Layout::new([11, 11, 1, 0]);
        assert_eq!(l.width(), 1);
        let v = l.pack([10, 3, 0, 0]);
        assert_eq!((l.field(v, 0), l.field(v, 1), l.field(v, 2)), (10, 3, 0));
        assert_eq!(l.prefix(v, 0), 10);
        // Full 32-bit fields still fit: 16 bytes.
        let l = Layout::new([usize::MAX; 4]);
        assert_eq!(l.width(), 16);
        let v = l.pack([u32::MAX, 1, u32::MAX - 1, 7]);
        assert_eq!(
            (0..4).map(|k| l.field(v, k)).collect::<Vec<_>>(),
            [u32::MAX, 1, u32::MAX - 1, 7]
        );
        // One role, one type: still one byte a record.
        assert_eq!(Layout::new([1, 1, 1, 1]).width(), 1);
    }

    #[test]
    fn records_go_to_the_heap_and_back_inline_with_equal_bytes() {
        let l = Layout::new([1 << 12, 1 << 12, 1 << 8, 0]);
        assert_eq!(l.width(), 4);
        let mut a = Packed::<30>::default();
        let mut model = Vec::new();
        for i in 0..20u32 {
            let at = (i as usize * 7) % (model.len() + 1);
            let v = l.pack([i, i * 3, i % 5, 0]);
            a.insert(l, at, v);
            model.insert(at, v);
            assert_eq!(a.iter(l).collect::<Vec<_>>(), model);
        }
        assert!(matches!(a, Packed::Heap(_)));
        let b = a.clone();
        assert!(a == b);
        while !model.is_empty() {
            let at = model.len() / 2;
            assert_eq!(a.remove(l, at), model.remove(at));
            assert_eq!(a.iter(l).collect::<Vec<_>>(), model);
        }
        assert!(matches!(a, Packed::Inline { len: 0, .. }));
        assert!(a == Packed::default());
        assert_eq!(std::mem::size_of::<Packed<22>>(), 24);
        assert_eq!(std::mem::size_of::<Packed<30>>(), 32);
    }
}
