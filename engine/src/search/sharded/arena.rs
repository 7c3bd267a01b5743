//! A shard's objects as bytes (a store of bytes): records of an automaton
//! state and an object's bytes, side by side in one vector, with no
//! per-record end while every record has one width.

use crate::ids::AutState;

/// Bytes of an automaton state before an object's bytes in an arena.
pub(super) const Q_BYTES: usize = 4;

/// A shard's objects as bytes: each record is the automaton state of its
/// first product state (4 bytes, little-endian) then the object's bytes.
/// While every record has one width there is no per-record end (as in
/// the one-thread collapse store: 8 bytes a state less).
#[derive(Default)]
pub(super) struct Arena {
    bytes: Vec<u8>,
    /// The width of every record so far, while `ends` is empty.
    width: usize,
    /// Record `i` ends at `ends[i]`, once records of several widths are
    /// stored (empty until then).
    ends: Vec<usize>,
    pub(super) count: usize,
}

impl Arena {
    /// Record `i`: its automaton state's bytes, then its object's.
    #[inline]
    pub(super) fn record(&self, i: usize) -> &[u8] {
        if self.ends.is_empty() {
            &self.bytes[i * self.width..(i + 1) * self.width]
        } else {
            let start = i.checked_sub(1).map_or(0, |j| self.ends[j]);
            &self.bytes[start..self.ends[i]]
        }
    }

    /// The object's bytes of record `i`.
    #[inline]
    pub(super) fn object(&self, i: usize) -> &[u8] {
        &self.record(i)[Q_BYTES..]
    }

    /// The automaton state of record `i`.
    #[inline]
    pub(super) fn q(&self, i: usize) -> AutState {
        let r = self.record(i);
        let q = u32::from_le_bytes([r[0], r[1], r[2], r[3]]);
        AutState::new(q as usize)
    }

    pub(super) fn push(&mut self, q: AutState, obj: &[u8]) {
        let width = Q_BYTES + obj.len();
        if self.ends.is_empty() && self.count > 0 && width != self.width {
            // A record of another width: from now on each has its end.
            self.ends = (1..=self.count).map(|i| i * self.width).collect();
        }
        if self.count == 0 {
            self.width = width;
        }
        self.bytes
            .extend_from_slice(&(q.index() as u32).to_le_bytes());
        self.bytes.extend_from_slice(obj);
        if !self.ends.is_empty() {
            self.ends.push(self.bytes.len());
        }
        self.count += 1;
    }
}
