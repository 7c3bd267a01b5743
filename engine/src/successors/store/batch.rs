//! Interning a state's successors together under collapse: every
//! successor's bytes are written and hashed first, the table slots of all
//! of them read back to back, and only then is each looked up, so that
//! the slots' cache misses overlap instead of coming one lookup after
//! the other (the slot's miss was most of a lookup's time, and a fifth of
//! a collapsed `ring` search's).

use crate::alphabet::LetterId;
use crate::ids::{DfsNum, ProtoId};
use crate::protocol::Protocol;

use super::ends::slice;
use super::fingerprints::{Fingerprints, Keys};
use super::tags::{bytes_hash, grow_bytes_table, tag, INLINE};

/// The keys of a batch's objects, written before any is looked up: the
/// bytes one after the other, and each key's hash, tag and end in them.
#[derive(Default)]
pub(super) struct BatchKeys {
    bytes: Vec<u8>,
    keys: Vec<(u64, u32, usize)>,
}

impl<P: Protocol> Fingerprints<P> {
    /// Interns the objects of `batch` (each with its letter), from the
    /// front, into `out`, as [`intern`](Self::intern) one at a time would:
    /// the same ids, in the same order. Only where that is a lookup of
    /// bytes and nothing more (collapse without the determinism check's
    /// decoding and with no state kept as its object); `false`, with
    /// nothing done, elsewhere. An object that writes no bytes ends the
    /// batch here: it and those after it are left in `batch` for
    /// `intern`. `letter` names the letter whose object's protocol code
    /// (`encode`) runs, for the blame of a panic; the lookups run none.
    pub(super) fn intern_batch(
        &mut self,
        batch: &mut Vec<(LetterId, P)>,
        letter: &mut LetterId,
        out: &mut Vec<(LetterId, ProtoId)>,
    ) {
        let Keys::Bytes { objects, .. } = &self.keys else {
            return;
        };
        if self.verify_with.is_some() || !objects.is_empty() {
            return;
        }
        // Out of `self` while the lookups borrow the keys and `revive`
        // the rest (a panic in `encode` drops them: fresh ones next time).
        let mut scratch = std::mem::take(&mut self.batch);
        scratch.bytes.clear();
        scratch.keys.clear();
        let mut encoded = 0;
        for (l, p) in batch.iter() {
            *letter = *l;
            let start = scratch.bytes.len();
            if !p.encode(&mut scratch.bytes) {
                scratch.bytes.truncate(start);
                break;
            }
            let key = &scratch.bytes[start..];
            let h = bytes_hash(key);
            scratch.keys.push((h, tag(key, h), scratch.bytes.len()));
            encoded += 1;
        }
        let Keys::Bytes {
            arena, ends, table, ..
        } = &mut self.keys
        else {
            unreachable!("a collapse store, as checked above");
        };
        // The slots' reads, back to back: their misses are in flight
        // together (a read the optimizer keeps, for want of a prefetch,
        // which would need `unsafe`).
        let mut touched = 0;
        for &(h, _, _) in &scratch.keys {
            touched ^= table.touch(h);
        }
        std::hint::black_box(touched);
        let mut start = 0;
        for ((l, p), &(h, t, end)) in batch.drain(..encoded).zip(&scratch.keys) {
            let key = &scratch.bytes[start..end];
            start = end;
            if table.is_full() {
                grow_bytes_table(table, arena, ends);
            }
            let (a, e) = (&*arena, &*ends);
            let id = match table.find(h, t, |i| t & INLINE != 0 || slice(a, e, i) == key) {
                Ok(id) => id,
                Err(slot) => {
                    let next = ProtoId::new(self.marks.len());
                    table.insert_at(slot, t, next);
                    arena.extend_from_slice(key);
                    ends.push(key.len(), arena.len());
                    self.marks.push([DfsNum::UNSEEN; 2]);
                    next
                }
            };
            // New or seen before, the object stays until the sweep, as
            // `intern` keeps it (the search takes a new state's).
            if self.keep_all {
                self.resident.entry(id).or_insert(super::Resident {
                    p,
                    pins: 0,
                    forever: false,
                });
            } else {
                self.fresh.push((id, p));
            }
            out.push((l, id));
        }
        self.batch = scratch;
    }
}
