//! Expanding a product state: its successors one at a time, resumable from
//! a stack frame (the depth-first search), or all at once (the
//! breadth-first search and the shortest-path searches). The two give the
//! same successors in the same order (pinned by `search::tests`).

use crate::alphabet::LetterId;
use crate::error::ProbeError;
use crate::ids::{AutState, ProtoId, Successor};
use crate::protocol::Protocol;
use crate::successors::next_slot;
use crate::Semantics;

use super::Search;

/// One frame of the search stack. The letter that led to a frame is the
/// `letter` of the frame below it (the parent link).
#[derive(Clone, Copy)]
pub(super) struct Frame {
    pub(super) p: ProtoId,
    pub(super) q: AutState,
    /// Probe slot of the current letter, or the next slot to probe.
    cursor: LetterId,
    /// The current letter (in [`Phase::Letter`] and [`Phase::Stutter`])
    /// and its target.
    pub(super) letter: LetterId,
    target: ProtoId,
    /// Next edge of `q` to try with the current letter.
    edge: u16,
    phase: Phase,
    /// The protocol state was new when the frame started, so it is probed
    /// without the cache.
    lazy: bool,
}

/// Where a frame is in the enumeration of its successors. A plain byte,
/// so a frame is as small as with the bit flags it replaces, and the two
/// phases of the hot path (trying edges) are tested first with one
/// comparison (an enum with data cost a tenth of `next`'s time).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(u8)]
enum Phase {
    /// Trying the automaton edges with the current letter, enabled.
    Letter = 0,
    /// Trying the edges with the stutter letter (END or DEADLOCK): no
    /// action at all is enabled.
    Stutter = 1,
    /// Nothing done yet: the first call decides how to probe.
    Start,
    /// Looking for the first enabled letter (if there is none, the state
    /// may stutter).
    SeekFirst,
    /// Looking for the next enabled letter after one was found.
    SeekNext,
    /// No successors left.
    Done,
}

impl Frame {
    /// A frame for `(p, q)`, before its first successor.
    pub(super) fn new(p: ProtoId, q: AutState) -> Frame {
        Frame {
            p,
            q,
            cursor: 0,
            letter: 0,
            target: p,
            edge: 0,
            phase: Phase::Start,
            lazy: false,
        }
    }
}

impl<P: Protocol> Search<'_, P> {
    /// The next product successor of the frame, advancing it.
    #[inline]
    pub(super) fn next(&mut self, f: &mut Frame) -> Result<Option<Successor>, ProbeError> {
        let (first, ne) = self.aut.edges_of(f.q);
        if ne == 0 {
            return Ok(None);
        }
        loop {
            if matches!(f.phase, Phase::Letter | Phase::Stutter) {
                while u32::from(f.edge) < ne {
                    let e = first + u32::from(f.edge);
                    f.edge += 1;
                    if self.aut.allows(e, f.letter) {
                        let edge = self.aut.edge(e);
                        return Ok(Some(Successor {
                            letter: f.letter,
                            proto: f.target,
                            state: edge.target,
                            acc: edge.acc | self.fairness_marks(f.p, f.letter),
                        }));
                    }
                }
                if f.phase == Phase::Stutter {
                    f.phase = Phase::Done;
                    return Ok(None);
                }
                // Hash compaction: the letter's target is no longer held.
                self.ex.store.unpin(f.target);
                f.cursor = next_slot(&self.ex.alphabet, f.cursor);
                f.phase = Phase::SeekNext;
            }
            if f.phase == Phase::Done {
                return Ok(None);
            }
            if f.phase == Phase::Start {
                // First visit of a protocol state: probe lazily, skipping
                // the cache (it cannot hold the state yet). On a later
                // visit, with a state that wants every letter, probe the
                // whole alphabet once and cache it.
                if !self.ex.mark_expanded(f.p) {
                    f.lazy = true;
                } else if self.aut.wants_all(f.q) && !self.ex.is_cached(f.p) {
                    self.ex.fill(f.p)?;
                }
                // Weak fairness needs every role's enabledness, whatever
                // letters the automaton state wants.
                self.note_enabled_roles(f.p, !f.lazy)?;
                f.phase = Phase::SeekFirst;
            }
            let wanted = Some(self.aut.wanted(f.q));
            match self.ex.next_enabled(f.p, &mut f.cursor, wanted, !f.lazy)? {
                Some((letter, target)) => {
                    // Hash compaction: the frame holds the target while it
                    // tries the automaton's edges with it (one successor
                    // per call; the search may drop unpinned objects in
                    // between).
                    self.ex.store.pin(target);
                    f.letter = letter;
                    f.target = target;
                    f.edge = 0;
                    f.phase = Phase::Letter;
                }
                None => {
                    let stutter = self.limits.semantics == Semantics::Stutter
                        && f.phase == Phase::SeekFirst
                        && !self.ex.any_enabled(f.p)?;
                    if !stutter {
                        f.phase = Phase::Done;
                        return Ok(None);
                    }
                    let terminated = self.ex.is_terminated(f.p)?;
                    let a = &self.ex.alphabet;
                    f.letter = if terminated { a.end() } else { a.deadlock() };
                    f.target = f.p;
                    f.edge = 0;
                    f.phase = Phase::Stutter;
                }
            }
        }
    }

    /// Appends the product successors `(p', q')` of `(p, q)` to `out`, the
    /// same ones in the same order as [`next`](Self::next) gives them, but
    /// probing the protocol state's alphabet in one pass
    /// ([`Successors::successors`](crate::successors::Successors::successors)): the breadth-first search needs them all
    /// at once. Returns how many there were counting every automaton edge
    /// (the transitions). Pinned to `next` by a test on random objects
    /// (`search::tests`).
    pub(super) fn expand(
        &mut self,
        p: ProtoId,
        q: AutState,
        out: &mut Vec<(ProtoId, AutState)>,
    ) -> Result<u64, ProbeError> {
        let (first, ne) = self.aut.edges_of(q);
        if ne == 0 {
            return Ok(0);
        }
        // As in `next`: a state seen for the first time is probed without
        // the cache; one seen again, by an automaton state that wants every
        // letter, is probed in full and cached.
        let use_cache = self.ex.mark_expanded(p);
        if use_cache && self.aut.wants_all(q) && !self.ex.is_cached(p) {
            self.ex.fill(p)?;
        }
        let mut letters = std::mem::take(&mut self.letters);
        letters.clear();
        // A state that wants every letter skips the per-slot bit test.
        let wanted = (!self.aut.wants_all(q)).then(|| self.aut.wanted(q));
        let probed = self.ex.successors(p, wanted, use_cache, &mut letters);
        if probed.is_ok()
            && letters.is_empty()
            && self.limits.semantics == Semantics::Stutter
            && !self.ex.any_enabled(p)?
        {
            let terminated = self.ex.is_terminated(p)?;
            let a = &self.ex.alphabet;
            let stutter = if terminated { a.end() } else { a.deadlock() };
            letters.push((stutter, p));
        }
        let mut n = 0;
        for &(letter, target) in &letters {
            for e in first..first + ne {
                if self.aut.allows(e, letter) {
                    out.push((target, self.aut.edge(e).target));
                    n += 1;
                }
            }
        }
        self.letters = letters;
        probed.map(|_| n)
    }

    /// All product successors of `(p, q)`.
    pub(super) fn all_successors(
        &mut self,
        p: ProtoId,
        q: AutState,
    ) -> Result<Vec<Successor>, ProbeError> {
        let mut f = Frame::new(p, q);
        let mut out = Vec::new();
        while let Some(s) = self.next(&mut f)? {
            out.push(s);
        }
        Ok(out)
    }
}
