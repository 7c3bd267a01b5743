//! The reduced expansion of a product state: the successors by an ample
//! set where the object's declaration and the conditions of
//! [`crate::por`] allow one, all of them otherwise.

use std::panic::{catch_unwind, AssertUnwindSafe};

use hashbrown::HashSet;

use crate::alphabet::{Alphabet, LetterId};
use crate::error::ProbeError;
use crate::ids::{AutState, DfsNum, ProtoId, Successor};
use crate::por::{verify_ample, ActionRef};
use crate::protocol::Protocol;
use crate::Semantics;

use super::{ProductState, Search};

/// The cycle proviso (C3) of the search that asks.
pub(super) enum Proviso<'s> {
    /// Breadth-first, from a state of this level (its visited number is
    /// the level plus one): every successor by the ample set must be new
    /// or on the next level, so an edge from a state not expanded in full
    /// leads one level deeper, and every cycle passes a fully expanded
    /// state (levels cannot grow all the way round).
    NextLevel(u64),
    /// Depth-first: no successor by the ample set may be on the stack.
    OffStack(&'s HashSet<ProductState>),
}

/// The visited number of the reduced breadth-first search's states on
/// `level`: the level plus one (every number is at least
/// [`DfsNum::FIRST`], which the counterexample search relies on).
pub(super) fn level_number(level: u64) -> DfsNum {
    DfsNum::nth(
        u32::try_from(level + 1)
            .unwrap_or(u32::MAX - 1)
            .min(u32::MAX - 1),
    )
}

impl<P: Protocol> Search<'_, P> {
    /// The product successors of `(p, q)` in the reduced search, in the
    /// order [`next`](Self::next) gives them: by an ample set if one
    /// applies and passes `proviso`, else every one.
    pub(super) fn reduced_successors(
        &mut self,
        p: ProtoId,
        q: AutState,
        proviso: Proviso<'_>,
    ) -> Result<Vec<Successor>, ProbeError> {
        let (_, ne) = self.aut.edges_of(q);
        if ne == 0 {
            return Ok(Vec::new());
        }
        // Every enabled action, whatever `q` wants: the ample set is a
        // property of the protocol state. Cached from the second visit on.
        let use_cache = self.ex.mark_expanded(p);
        if use_cache && !self.ex.is_cached(p) {
            self.ex.fill(p)?;
        }
        let mut letters = Vec::new();
        self.ex.successors(p, None, use_cache, &mut letters)?;
        if letters.is_empty() {
            // Nothing enabled: the same stutter step as the full search.
            if self.limits.semantics == Semantics::Stutter {
                let terminated = self.ex.is_terminated(p)?;
                let a = &self.ex.alphabet;
                letters.push((if terminated { a.end() } else { a.deadlock() }, p));
            }
        } else if let Some(ample) = self.ample(p, &letters)? {
            let succ = self.product(q, &ample);
            let ok = succ.iter().all(|s| {
                let t = (s.proto, s.state);
                match proviso {
                    Proviso::NextLevel(level) => {
                        let n = self.visited.get(self.ex, t.0, t.1);
                        n == DfsNum::UNSEEN || n == level_number(level + 1)
                    }
                    Proviso::OffStack(stack) => !stack.contains(&t),
                }
            });
            if ok {
                self.ample_states += 1;
                return Ok(succ);
            }
        }
        Ok(self.product(q, &letters))
    }

    /// The product successors of `q` by the protocol steps `letters`.
    fn product(&self, q: AutState, letters: &[(LetterId, ProtoId)]) -> Vec<Successor> {
        let (first, ne) = self.aut.edges_of(q);
        let mut out = Vec::new();
        for &(letter, target) in letters {
            for e in first..first + ne {
                if self.aut.allows(e, letter) {
                    let edge = self.aut.edge(e);
                    out.push(Successor {
                        letter,
                        proto: target,
                        state: edge.target,
                        acc: edge.acc,
                    });
                }
            }
        }
        out
    }

    /// The ample set of protocol state `p`, whose enabled actions are
    /// `letters`: the enabled actions of the declared component with the
    /// fewest of them (the first such), if that is neither none nor all
    /// and none is visible (C0, C2). Verified under the determinism check.
    fn ample(
        &mut self,
        p: ProtoId,
        letters: &[(LetterId, ProtoId)],
    ) -> Result<Option<Vec<(LetterId, ProtoId)>>, ProbeError> {
        let obj = self.ex.store.get(p);
        let declared =
            catch_unwind(AssertUnwindSafe(|| obj.independence())).map_err(|payload| {
                ProbeError::Panic {
                    letter: letters[0].0,
                    message: format!(
                        "in independence(): {}",
                        crate::panic_message(payload.as_ref())
                    ),
                }
            })?;
        let Some(declared) = declared else {
            return Ok(None);
        };
        self.declared = true;
        let a = &self.ex.alphabet;
        let action = |l: LetterId| {
            let x = a.letter(l);
            ActionRef::new(x.role, x.kind, x.peer)
        };
        let mut best: Option<(usize, usize)> = None;
        for (i, c) in declared.components().iter().enumerate() {
            let inside = letters
                .iter()
                .filter(|&&(l, _)| c.binary_search(&action(l)).is_ok());
            let mut n = 0;
            let mut visible = false;
            for &(l, _) in inside {
                n += 1;
                visible |= self.aut.visible(l);
            }
            if n == 0 || n == letters.len() || visible {
                continue;
            }
            if best.is_none_or(|(_, m)| n < m) {
                best = Some((i, n));
            }
        }
        let Some((i, _)) = best else {
            return Ok(None);
        };
        let c = &declared.components()[i];
        let in_c = |l: LetterId| c.binary_search(&action(l)).is_ok();
        let (ample, others): (Vec<_>, Vec<_>) = letters.iter().partition(|&&(l, _)| in_c(l));
        if self.ex.determinism() {
            let in_c = |a: &Alphabet, l: LetterId| {
                let x = a.letter(l);
                c.binary_search(&ActionRef::new(x.role, x.kind, x.peer))
                    .is_ok()
            };
            verify_ample(self.ex, &ample, &others, in_c)?;
        }
        Ok(Some(ample))
    }
}
