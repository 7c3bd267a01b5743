//! The successor cache: complete successor lists of protocol states in a
//! fixed-size, direct-mapped table over one arena, so that a protocol
//! state paired with other automaton states — or checked against other
//! formulas of a session — is not probed again. An evicted entry costs
//! only re-probing, never correctness: the whole arena is dropped at once
//! (a new epoch) when it is full.

use crate::alphabet::LetterId;

use super::ProtoId;

/// One direct-mapped cache slot `[proto, start, len, epoch]`: the
/// successors of `proto` are `arena[start..start + len]`, valid if `epoch`
/// is current. Plain arrays so that the slot table is allocated zeroed
/// (pages never touched cost no memory).
type Slot = [u32; 4];

/// The cache, and which protocol states were expanded before (the policy
/// that decides what is worth caching).
pub(super) struct Cache {
    slots: Vec<Slot>,
    slot_shift: u32,
    /// Successors `(letter, target)` of the cached states, in letter order.
    arena: Vec<(LetterId, ProtoId)>,
    arena_limit: usize,
    epoch: u32,
    /// Bit per protocol state: it has been expanded before.
    expanded: Vec<u64>,
}

impl Cache {
    /// `cache_limit`: successor entries (8 bytes each) the cache may hold;
    /// at least one full list of `letters` entries fits.
    pub(super) fn new(letters: usize, cache_limit: usize) -> Cache {
        let arena_limit = cache_limit.clamp(letters, u32::MAX as usize / 2);
        // About one slot per four entries, a power of two.
        let slot_bits = (arena_limit / 4).max(2).ilog2().clamp(8, 24);
        Cache {
            slots: vec![[0u32; 4]; 1 << slot_bits],
            slot_shift: 32 - slot_bits,
            arena: Vec::new(),
            arena_limit,
            epoch: 1,
            expanded: Vec::new(),
        }
    }

    /// Records that `p` is being expanded; returns whether it had been
    /// before. A state expanded once is probed lazily (it may never be
    /// needed again); a state expanded again — with another automaton state
    /// or for another formula — is worth caching.
    #[inline]
    pub(super) fn mark_expanded(&mut self, p: ProtoId) -> bool {
        let (w, b) = (p.index() / 64, p.raw() % 64);
        if w >= self.expanded.len() {
            self.expanded
                .resize((w + 1).max(self.expanded.len() * 2), 0);
        }
        let before = self.expanded[w] >> b & 1 != 0;
        self.expanded[w] |= 1 << b;
        before
    }

    #[inline]
    fn slot_of(&self, p: ProtoId) -> usize {
        (p.raw().wrapping_mul(0x9E37_79B1) >> self.slot_shift) as usize
    }

    /// The cached successors of `p`, if present.
    #[inline]
    pub(super) fn get(&self, p: ProtoId) -> Option<&[(LetterId, ProtoId)]> {
        let [proto, start, len, epoch] = self.slots[self.slot_of(p)];
        (epoch == self.epoch && proto == p.raw())
            .then(|| &self.arena[start as usize..(start + len) as usize])
    }

    /// The arena, to append a list of at most `room` entries to; emptied
    /// first (a new epoch, so every slot is stale) if the list might not
    /// fit. Give it back with [`put_back`](Self::put_back).
    pub(super) fn take_arena(&mut self, room: usize) -> Vec<(LetterId, ProtoId)> {
        if self.arena.len() + room > self.arena_limit {
            self.arena.clear();
            self.epoch = self.epoch.wrapping_add(1).max(1);
        }
        std::mem::take(&mut self.arena)
    }

    /// Gives back the arena taken by [`take_arena`](Self::take_arena);
    /// with `Some((p, start))`, `arena[start..]` is the complete successor
    /// list of `p`, now cached.
    pub(super) fn put_back(
        &mut self,
        arena: Vec<(LetterId, ProtoId)>,
        list: Option<(ProtoId, usize)>,
    ) {
        self.arena = arena;
        if let Some((p, start)) = list {
            let i = self.slot_of(p);
            self.slots[i] = [
                p.raw(),
                start as u32,
                (self.arena.len() - start) as u32,
                self.epoch,
            ];
        }
    }
}
