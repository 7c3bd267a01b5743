//! The states a worker owns: their bytes in one arena, and a table from
//! (bytes, automaton state) to their number.

use hashbrown::HashTable;

use crate::message::StateRef;

/// A stored state: where its bytes are, its automaton state, and how it
/// was first reached (for the counterexample).
#[derive(Clone, Copy)]
struct Entry {
    start: u64,
    len: u32,
    q: u32,
    hash: u64,
    letter: u32,
    parent: Option<StateRef>,
}

/// The states one worker owns.
#[derive(Default)]
pub(crate) struct Owned {
    arena: Vec<u8>,
    entries: Vec<Entry>,
    table: HashTable<u32>,
}

impl Owned {
    /// Stores the state (`bytes`, `q`) with its hash unless it is there:
    /// its number if it is new.
    pub(crate) fn insert(
        &mut self,
        bytes: &[u8],
        q: u32,
        hash: u64,
        letter: u32,
        parent: Option<StateRef>,
    ) -> Option<u32> {
        if self.contains(bytes, q, hash) {
            return None;
        }
        let index = u32::try_from(self.entries.len()).ok()?;
        self.entries.push(Entry {
            start: self.arena.len() as u64,
            len: bytes.len() as u32,
            q,
            hash,
            letter,
            parent,
        });
        self.arena.extend_from_slice(bytes);
        let entries = &self.entries;
        self.table
            .insert_unique(hash, index, |&i| entries[i as usize].hash);
        Some(index)
    }

    /// Whether the state (`bytes`, `q`) of hash `hash` is stored.
    pub(crate) fn contains(&self, bytes: &[u8], q: u32, hash: u64) -> bool {
        self.find(bytes, q, hash).is_some()
    }

    /// The number of the state (`bytes`, `q`) of hash `hash`, if stored.
    pub(crate) fn find(&self, bytes: &[u8], q: u32, hash: u64) -> Option<u32> {
        let (arena, entries) = (&self.arena, &self.entries);
        self.table
            .find(hash, |&i| {
                let e = &entries[i as usize];
                e.hash == hash
                    && e.q == q
                    && &arena[e.start as usize..e.start as usize + e.len as usize] == bytes
            })
            .copied()
    }

    /// The bytes and automaton state of state `index`.
    pub(crate) fn get(&self, index: u32) -> (&[u8], u32) {
        let e = &self.entries[index as usize];
        (
            &self.arena[e.start as usize..e.start as usize + e.len as usize],
            e.q,
        )
    }

    /// How state `index` was first reached: the letter and the state
    /// before it (`None` for the initial state).
    pub(crate) fn reached_by(&self, index: u32) -> (u32, u32, Option<StateRef>) {
        let e = &self.entries[index as usize];
        (e.letter, e.q, e.parent)
    }

    /// How many states are stored.
    pub(crate) fn len(&self) -> u64 {
        self.entries.len() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_is_stored_once_per_automaton_state() {
        let mut s = Owned::default();
        assert_eq!(s.insert(b"ab", 0, 7, 1, None), Some(0));
        assert_eq!(s.insert(b"ab", 0, 7, 2, None), None);
        assert_eq!(s.insert(b"ab", 1, 7, 2, None), Some(1));
        // Same hash, other bytes: another state.
        assert_eq!(s.insert(b"ba", 0, 7, 3, None), Some(2));
        assert_eq!(s.get(2), (&b"ba"[..], 0));
        assert_eq!(s.reached_by(1).0, 2);
        assert_eq!(s.len(), 3);
    }
}
