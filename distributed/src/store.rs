//! The states a worker owns: their bytes in one arena, and a table from
//! (bytes, automaton state) to their number.
//!
//! A stored state costs its bytes, a 20-byte [`Entry`] and a table slot:
//! on a large search the entries are most of a process's memory, so they
//! keep only what cannot be computed again. A state's length is where the
//! next one starts, and its hash is computed again from its bytes when
//! the table grows.

use hashbrown::HashTable;

use crate::message::StateRef;
use crate::search::state_hash;

/// A stored state: the low bits of where its bytes start (the high ones
/// are in [`Owned::wraps`]), its automaton state, and how it was first
/// reached (for the counterexample).
#[derive(Clone, Copy)]
struct Entry {
    start: u32,
    q: u32,
    letter: u32,
    /// The parent's worker, [`NO_PARENT`] for the initial state.
    parent_worker: u32,
    parent_index: u32,
}

/// The parent worker of a state without parent: no worker has this
/// number (there are fewer than `u32::MAX` of them).
const NO_PARENT: u32 = u32::MAX;

/// How many low bits of an arena offset an entry keeps.
const START_BITS: u32 = 32;

/// The states one worker owns.
pub(crate) struct Owned {
    arena: Vec<u8>,
    entries: Vec<Entry>,
    /// Per multiple of `1 << bits` the arena passed, the first entry that
    /// starts at or beyond it: the starts grow with the entries, so the
    /// high bits of entry `i`'s start are how many of these are `<= i`.
    /// Empty unless the arena holds more than 4 GiB.
    wraps: Vec<u32>,
    /// How many low bits of a start an entry keeps: [`START_BITS`], fewer
    /// in tests, so that the wrapping is tried without gigabytes.
    bits: u32,
    table: HashTable<u32>,
}

impl Default for Owned {
    fn default() -> Self {
        Owned::with_start_bits(START_BITS)
    }
}

impl Owned {
    fn with_start_bits(bits: u32) -> Self {
        Owned {
            arena: Vec::new(),
            entries: Vec::new(),
            wraps: Vec::new(),
            bits,
            table: HashTable::new(),
        }
    }

    /// Stores the state (`bytes`, `q`) unless it is there: its number if
    /// it is new. `hash` must be `state_hash(bytes, q)`, as the table
    /// computes it again when it grows.
    pub(crate) fn insert(
        &mut self,
        bytes: &[u8],
        q: u32,
        hash: u64,
        letter: u32,
        parent: Option<StateRef>,
    ) -> Option<u32> {
        debug_assert_eq!(hash, state_hash(bytes, q));
        if self.contains(bytes, q, hash) {
            return None;
        }
        let index = u32::try_from(self.entries.len()).ok()?;
        let start = self.arena.len() as u64;
        let (parent_worker, parent_index) = match parent {
            Some(p) => {
                assert!(p.worker != NO_PARENT, "a worker numbered u32::MAX");
                (p.worker, p.index)
            }
            None => (NO_PARENT, 0),
        };
        while (start >> self.bits) > self.wraps.len() as u64 {
            self.wraps.push(index);
        }
        self.entries.push(Entry {
            start: (start & self.low_mask()) as u32,
            q,
            letter,
            parent_worker,
            parent_index,
        });
        self.arena.extend_from_slice(bytes);
        let Owned {
            arena,
            entries,
            wraps,
            bits,
            table,
        } = self;
        table.insert_unique(hash, index, |&i| {
            let (bytes, q) = get_in(arena, entries, wraps, *bits, i);
            state_hash(bytes, q)
        });
        Some(index)
    }

    fn low_mask(&self) -> u64 {
        (1u64 << self.bits) - 1
    }

    /// Whether the state (`bytes`, `q`) of hash `hash` is stored.
    pub(crate) fn contains(&self, bytes: &[u8], q: u32, hash: u64) -> bool {
        self.find(bytes, q, hash).is_some()
    }

    /// The number of the state (`bytes`, `q`) of hash `hash`, if stored.
    pub(crate) fn find(&self, bytes: &[u8], q: u32, hash: u64) -> Option<u32> {
        self.table
            .find(hash, |&i| {
                let (b, bq) = self.get(i);
                bq == q && b == bytes
            })
            .copied()
    }

    /// The bytes and automaton state of state `index`.
    pub(crate) fn get(&self, index: u32) -> (&[u8], u32) {
        get_in(&self.arena, &self.entries, &self.wraps, self.bits, index)
    }

    /// How state `index` was first reached: the letter and the state
    /// before it (`None` for the initial state).
    pub(crate) fn reached_by(&self, index: u32) -> (u32, u32, Option<StateRef>) {
        let e = &self.entries[index as usize];
        let parent = (e.parent_worker != NO_PARENT).then_some(StateRef {
            worker: e.parent_worker,
            index: e.parent_index,
        });
        (e.letter, e.q, parent)
    }

    /// Makes `parent`, by `letter`, the step that reached state `index`:
    /// a path with fewer actions was found after it was stored.
    pub(crate) fn set_parent(&mut self, index: u32, letter: u32, parent: StateRef) {
        assert!(parent.worker != NO_PARENT, "a worker numbered u32::MAX");
        let e = &mut self.entries[index as usize];
        e.letter = letter;
        e.parent_worker = parent.worker;
        e.parent_index = parent.index;
    }

    /// How many states are stored.
    pub(crate) fn len(&self) -> u64 {
        self.entries.len() as u64
    }
}

/// The bytes and automaton state of entry `index`: its bytes end where
/// the next entry's start, the last one's where the arena ends.
fn get_in<'a>(
    arena: &'a [u8],
    entries: &[Entry],
    wraps: &[u32],
    bits: u32,
    index: u32,
) -> (&'a [u8], u32) {
    let i = index as usize;
    let start = start_of(entries, wraps, bits, i);
    let end = if i + 1 < entries.len() {
        start_of(entries, wraps, bits, i + 1)
    } else {
        arena.len()
    };
    (&arena[start..end], entries[i].q)
}

/// Where entry `i`'s bytes start in the arena.
fn start_of(entries: &[Entry], wraps: &[u32], bits: u32, i: usize) -> usize {
    let high = wraps.partition_point(|&w| w as usize <= i) as u64;
    ((high << bits) | entries[i].start as u64) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    fn insert(s: &mut Owned, bytes: &[u8], q: u32, letter: u32) -> Option<u32> {
        let parent = StateRef {
            worker: letter % 3,
            index: letter,
        };
        s.insert(bytes, q, state_hash(bytes, q), letter, Some(parent))
    }

    #[test]
    fn a_state_is_stored_once_per_automaton_state() {
        let mut s = Owned::default();
        assert_eq!(s.insert(b"ab", 0, state_hash(b"ab", 0), 1, None), Some(0));
        assert_eq!(insert(&mut s, b"ab", 0, 2), None);
        assert_eq!(insert(&mut s, b"ab", 1, 2), Some(1));
        assert_eq!(insert(&mut s, b"ba", 0, 3), Some(2));
        assert_eq!(s.get(2), (&b"ba"[..], 0));
        assert_eq!(s.get(0), (&b"ab"[..], 0));
        assert_eq!(s.reached_by(0), (1, 0, None));
        let parent = StateRef {
            worker: 2,
            index: 2,
        };
        assert_eq!(s.reached_by(1), (2, 1, Some(parent)));
        assert_eq!(s.len(), 3);
        assert_eq!(s.find(b"ba", 0, state_hash(b"ba", 0)), Some(2));
        assert_eq!(s.find(b"ba", 1, state_hash(b"ba", 1)), None);
        s.set_parent(2, 7, parent);
        assert_eq!(s.reached_by(2), (7, 0, Some(parent)));
        assert_eq!(s.get(2), (&b"ba"[..], 0));
    }

    /// States of lengths 0 to 39 in a scrambled order, each twice (under
    /// two automaton states), all different.
    fn states() -> Vec<(Vec<u8>, u32)> {
        let mut out = Vec::new();
        for k in 0..200u32 {
            let n = (k * 7 % 40) as usize;
            let bytes: Vec<u8> = (0..n).map(|j| (j as u32 * 31 + k) as u8).collect();
            out.push((bytes.clone(), 2 * k));
            out.push((bytes, 2 * k + 1));
        }
        out
    }

    #[test]
    fn every_state_is_found_again_after_the_table_grows() {
        let mut s = Owned::default();
        let all = states();
        for (k, (bytes, q)) in all.iter().enumerate() {
            assert_eq!(insert(&mut s, bytes, *q, k as u32), Some(k as u32));
        }
        for (k, (bytes, q)) in all.iter().enumerate() {
            assert_eq!(s.find(bytes, *q, state_hash(bytes, *q)), Some(k as u32));
            assert_eq!(s.get(k as u32), (&bytes[..], *q));
            assert_eq!(insert(&mut s, bytes, *q, 0), None);
        }
        assert_eq!(s.len(), all.len() as u64);
    }

    #[test]
    fn starts_past_the_kept_bits_are_found_again() {
        // Four bits kept: the arena passes a multiple of 16 every state or
        // so, and a state of more than 16 bytes passes two at once.
        let mut s = Owned::with_start_bits(4);
        let all = states();
        for (k, (bytes, q)) in all.iter().enumerate() {
            assert_eq!(insert(&mut s, bytes, *q, k as u32), Some(k as u32));
        }
        assert!(s.wraps.len() > all.len() / 2);
        for (k, (bytes, q)) in all.iter().enumerate() {
            assert_eq!(s.get(k as u32), (&bytes[..], *q), "state {k}");
            assert_eq!(s.find(bytes, *q, state_hash(bytes, *q)), Some(k as u32));
            assert_eq!(s.reached_by(k as u32).0, k as u32);
        }
    }
}
