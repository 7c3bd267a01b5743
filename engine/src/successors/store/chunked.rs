//! A list that grows in chunks instead of doubling: the store's per-id
//! records (objects, marks, arena ends) live in these, so that a large
//! search's heap never holds a doubling buffer's two copies at once.

/// A list that grows in chunks of about 1 MiB (a power of two of
/// entries) instead of one doubling buffer: the unused capacity is at most
/// one chunk, where a doubling `Vec` leaves up to half its capacity unused
/// and, while it moves to a buffer twice as large, holds both (three times
/// the entries: the peak of a search's heap). Growing copies nothing. The
/// first chunk grows as a `Vec` until it is full, so that a small check
/// does not take a whole chunk.
pub(super) struct Chunked<T> {
    pub(super) chunks: Vec<Vec<T>>,
    /// log2 of the entries a chunk holds.
    pub(super) bits: u32,
    len: usize,
}

impl<T> Chunked<T> {
    pub(super) fn new() -> Self {
        let per = (1usize << 20) / std::mem::size_of::<T>().max(1);
        Chunked {
            chunks: Vec::new(),
            bits: per.max(1).ilog2(),
            len: 0,
        }
    }

    #[inline]
    pub(super) fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub(super) fn push(&mut self, v: T) {
        let full = 1usize << self.bits;
        match self.chunks.last_mut() {
            Some(c) if c.len() < full => c.push(v),
            _ => {
                // The first chunk starts small; the others are made whole.
                let cap = if self.chunks.is_empty() { 0 } else { full };
                let mut c = Vec::with_capacity(cap);
                c.push(v);
                self.chunks.push(c);
            }
        }
        self.len += 1;
    }

    pub(super) fn iter(&self) -> impl Iterator<Item = &T> {
        self.chunks.iter().flatten()
    }

    pub(super) fn iter_mut(&mut self) -> impl Iterator<Item = &mut T> {
        self.chunks.iter_mut().flatten()
    }
}

impl<T> std::ops::Index<usize> for Chunked<T> {
    type Output = T;
    #[inline]
    fn index(&self, i: usize) -> &T {
        &self.chunks[i >> self.bits][i & ((1 << self.bits) - 1)]
    }
}

impl<T> std::ops::IndexMut<usize> for Chunked<T> {
    #[inline]
    fn index_mut(&mut self, i: usize) -> &mut T {
        &mut self.chunks[i >> self.bits][i & ((1 << self.bits) - 1)]
    }
}

#[cfg(test)]
mod tests {
    use super::Chunked;

    /// Entries keep their index across chunk boundaries; every chunk but
    /// the first is allocated whole, and none is ever more than full (the
    /// unused capacity is at most one chunk).
    #[test]
    fn chunks_index_across_boundaries_and_leave_at_most_one_chunk_unused() {
        let mut c: Chunked<[u64; 2]> = Chunked::new();
        let full = 1usize << c.bits;
        assert_eq!(full, 65_536, "1 MiB of 16-byte entries");
        let n = 2 * full + full / 3;
        for i in 0..n {
            c.push([i as u64, !(i as u64)]);
        }
        assert_eq!(c.len(), n);
        assert_eq!(c.chunks.len(), 3);
        for i in [0, full - 1, full, 2 * full - 1, 2 * full, n - 1] {
            assert_eq!(c[i], [i as u64, !(i as u64)]);
        }
        c[full][0] = 7;
        assert_eq!(c.iter().nth(full), Some(&[7, !(full as u64)]));
        assert!(c.chunks.iter().all(|ch| ch.capacity() == full));
        let unused: usize = c.chunks.iter().map(|ch| ch.capacity() - ch.len()).sum();
        assert!(unused < full);
        c.iter_mut().for_each(|e| e[1] = 0);
        assert!(c.iter().all(|e| e[1] == 0));
    }
}
