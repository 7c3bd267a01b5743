//! Expanding a product state: its successors one at a time, resumable from
//! a stack frame (the depth-first search), or all at once (the
//! breadth-first search and the shortest-path searches).

use crate::alphabet::LetterId;
use crate::error::ProbeError;
use crate::protocol::Protocol;
use crate::successors::next_slot;
use crate::successors::ProtoId;
use crate::Semantics;

use super::Search;

/// One frame of the search stack. The letter that led to a frame is the
/// `letter` of the frame below it (the parent link).
#[derive(Clone, Copy)]
pub(super) struct Frame {
    pub(super) p: ProtoId,
    pub(super) q: u32,
    /// Probe slot of the current letter, or the next slot to probe.
    cursor: LetterId,
    /// The current letter (valid with `HAS`) and its target.
    pub(super) letter: LetterId,
    target: ProtoId,
    /// Next edge of `q` to try with the current letter.
    edge: u16,
    flags: u16,
}

/// The frame has a current letter whose edges are being tried.
const HAS: u16 = 1;
/// Some action is enabled in the frame's protocol state.
const ANY: u16 = 2;
/// All actions (and the stutter step, if any) are done.
const DONE: u16 = 4;
/// The protocol state was new when the frame started, so not cached.
const LAZY: u16 = 8;

impl Frame {
    pub(super) fn new(p: ProtoId, q: u32) -> Frame {
        Frame {
            p,
            q,
            cursor: 0,
            letter: 0,
            target: 0,
            edge: 0,
            flags: 0,
        }
    }
}

impl<P: Protocol> Search<'_, P> {
    /// The next product successor of the frame, advancing it.
    #[inline]
    pub(super) fn next(
        &mut self,
        f: &mut Frame,
    ) -> Result<Option<(LetterId, ProtoId, u32, u32)>, ProbeError> {
        let (first, ne) = self.aut.state_edges[f.q as usize];
        if ne == 0 {
            return Ok(None);
        }
        loop {
            if f.flags & HAS != 0 {
                while u32::from(f.edge) < ne {
                    let e = first + u32::from(f.edge);
                    f.edge += 1;
                    if self.aut.allows(e, f.letter) {
                        let edge = self.aut.edges[e as usize];
                        return Ok(Some((f.letter, f.target, edge.target, edge.acc)));
                    }
                }
                f.flags &= !HAS;
                if f.flags & DONE != 0 {
                    return Ok(None);
                }
                f.cursor = next_slot(&self.ex.alphabet, f.cursor);
            }
            if f.flags & DONE != 0 {
                return Ok(None);
            }
            if f.flags == 0 && f.cursor == 0 {
                // First visit of a protocol state: probe lazily, skipping
                // the cache (it cannot hold the state yet). On a later
                // visit, with a state that wants every letter, probe the
                // whole alphabet once and cache it.
                if !self.ex.mark_expanded(f.p) {
                    f.flags |= LAZY;
                } else if self.aut.wants_all[f.q as usize] && !self.ex.is_cached(f.p) {
                    self.ex.fill(f.p)?;
                }
            }
            let wanted = Some(self.aut.wanted(f.q));
            match self
                .ex
                .next_enabled(f.p, &mut f.cursor, wanted, f.flags & LAZY == 0)?
            {
                Some((letter, target)) => {
                    f.letter = letter;
                    f.target = target;
                    f.edge = 0;
                    f.flags |= HAS | ANY;
                }
                None => {
                    f.flags |= DONE;
                    let stutter = self.limits.semantics == Semantics::Stutter
                        && f.flags & ANY == 0
                        && !self.ex.any_enabled(f.p)?;
                    if !stutter {
                        return Ok(None);
                    }
                    let terminated = self.ex.is_terminated(f.p)?;
                    let a = &self.ex.alphabet;
                    f.letter = if terminated { a.end() } else { a.deadlock() };
                    f.target = f.p;
                    f.edge = 0;
                    f.flags |= HAS;
                }
            }
        }
    }

    /// Appends the product successors `(p', q')` of `(p, q)` to `out`, the
    /// same ones in the same order as [`next`](Self::next) gives them, but
    /// probing the protocol state's alphabet in one pass
    /// ([`Explorer::successors`]): the breadth-first search needs them all
    /// at once. Returns how many there were counting every automaton edge
    /// (the transitions).
    pub(super) fn expand(
        &mut self,
        p: ProtoId,
        q: u32,
        out: &mut Vec<(ProtoId, u32)>,
    ) -> Result<u64, ProbeError> {
        let (first, ne) = self.aut.state_edges[q as usize];
        if ne == 0 {
            return Ok(0);
        }
        // As in `next`: a state seen for the first time is probed without
        // the cache; one seen again, by an automaton state that wants every
        // letter, is probed in full and cached.
        let use_cache = self.ex.mark_expanded(p);
        if use_cache && self.aut.wants_all[q as usize] && !self.ex.is_cached(p) {
            self.ex.fill(p)?;
        }
        let mut letters = std::mem::take(&mut self.letters);
        letters.clear();
        // A state that wants every letter skips the per-slot bit test.
        let wanted = (!self.aut.wants_all[q as usize]).then(|| self.aut.wanted(q));
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
                    out.push((target, self.aut.edges[e as usize].target));
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
        q: u32,
    ) -> Result<Vec<(LetterId, ProtoId, u32, u32)>, ProbeError> {
        let mut f = Frame::new(p, q);
        let mut out = Vec::new();
        while let Some(s) = self.next(&mut f)? {
            out.push(s);
        }
        Ok(out)
    }
}
