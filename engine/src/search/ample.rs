//! The reduced expansion of a product state: the successors by an ample
//! set where the object's declaration and the conditions of
//! [`crate::por`] allow one, all of them otherwise.

use std::panic::{catch_unwind, AssertUnwindSafe};

use hashbrown::{HashMap, HashSet};

use crate::alphabet::{Alphabet, LetterId};
use crate::error::ProbeError;
use crate::ids::{AutState, DfsNum, ProtoId, Successor};
use crate::por::{verify_ample, ActionRef, Independence};
use crate::protocol::{ActionKind, Enabled, Protocol};
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

/// What the listing of a state's enabled actions decided
/// ([`Search::listed_ample`]).
enum Listed {
    /// The successors by an ample set, which passed the proviso.
    Ample(Vec<Successor>),
    /// No ample set applies, or the one chosen failed the proviso: the
    /// state is expanded in full.
    Full,
    /// The listing cannot tell (the object does not list, nothing is
    /// enabled, or a receive's visibility depends on the type that comes
    /// out): the state's successors are built first, as without a listing.
    Unknown,
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
        let mut full = false;
        if !self.ex.is_cached(p) {
            // First visit: where the object lists its actions, the ample
            // set is chosen from the list and only its successors are
            // built (the others would be made, interned and kept for
            // nothing: most of the reduced search's time and memory).
            match self.listed_ample(p, q, &proviso)? {
                Listed::Ample(succ) => return Ok(succ),
                Listed::Full => full = true,
                Listed::Unknown => {}
            }
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
        } else if full {
            // Decided from the listing already.
        } else if let Some(ample) = self.ample(p, &letters)? {
            let succ = self.product(q, &ample);
            if self.passes(&succ, &proviso) {
                self.ample_states += 1;
                return Ok(succ);
            }
        }
        Ok(self.product(q, &letters))
    }

    /// The ample set of a state seen for the first time, chosen from the
    /// object's listing of its enabled actions by the same conditions as
    /// [`ample`](Self::ample) (C0, C2; the same component, since a probe
    /// slot of the listing is one letter of the successors), with only its
    /// successors built, then the proviso (C3). Not under the determinism
    /// check, which tests the declaration on every other successor.
    fn listed_ample(
        &mut self,
        p: ProtoId,
        q: AutState,
        proviso: &Proviso<'_>,
    ) -> Result<Listed, ProbeError> {
        let mut listed = Vec::new();
        if !self.ex.listed(p, &mut listed)? || listed.is_empty() {
            return Ok(Listed::Unknown);
        }
        let a = &self.ex.alphabet;
        let mut visible = Vec::with_capacity(listed.len());
        for &(slot, _) in &listed {
            let letter = a.letter(slot);
            let v = if letter.kind == ActionKind::Recv {
                // The slot stands for the receive of every type from
                // that sender; the object picks the type.
                let n = a.types.len() as LetterId;
                let seen = (slot..slot + n).filter(|&l| self.aut.visible(l)).count();
                if seen != 0 && seen != n as usize {
                    return Ok(Listed::Unknown);
                }
                seen != 0
            } else {
                self.aut.visible(slot)
            };
            visible.push(v);
        }
        let first = listed[0].0;
        let slots: Vec<LetterId> = listed.iter().map(|&(slot, _)| slot).collect();
        let Some((declared, i)) = self.choose(p, first, &slots, &visible)? else {
            return Ok(Listed::Full);
        };
        let c = &declared.components()[i];
        let chosen: Vec<(LetterId, Enabled)> = listed
            .into_iter()
            .filter(|&(slot, _)| c.binary_search(&action_of(&self.ex.alphabet, slot)).is_ok())
            .collect();
        let mut ample = Vec::with_capacity(chosen.len());
        self.ex.perform_some(p, &chosen, &mut ample)?;
        let succ = self.product(q, &ample);
        if self.passes(&succ, proviso) {
            self.ample_states += 1;
            return Ok(Listed::Ample(succ));
        }
        Ok(Listed::Full)
    }

    /// The cycle proviso (C3) on the successors by an ample set.
    fn passes(&self, succ: &[Successor], proviso: &Proviso<'_>) -> bool {
        succ.iter().all(|s| {
            let t = (s.proto, s.state);
            match proviso {
                Proviso::NextLevel(level) => {
                    let n = self.visited.get(self.ex, t.0, t.1);
                    n == DfsNum::UNSEEN || n == level_number(level + 1)
                }
                Proviso::OffStack(stack) => !stack.contains(&t),
            }
        })
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
        let ids: Vec<LetterId> = letters.iter().map(|&(l, _)| l).collect();
        let visible: Vec<bool> = ids.iter().map(|&l| self.aut.visible(l)).collect();
        let Some((declared, i)) = self.choose(p, ids[0], &ids, &visible)? else {
            return Ok(None);
        };
        let c = &declared.components()[i];
        let in_c = |a: &Alphabet, l: LetterId| c.binary_search(&action_of(a, l)).is_ok();
        let (ample, others): (Vec<_>, Vec<_>) = letters
            .iter()
            .partition(|&&(l, _)| in_c(&self.ex.alphabet, l));
        if self.ex.determinism() {
            verify_ample(self.ex, &ample, &others, in_c)?;
        }
        Ok(Some(ample))
    }

    /// The component whose actions among `enabled` (letters or probe
    /// slots, which name the same actions) make the ample set, with the
    /// object's declaration: the first with the fewest of them, if that
    /// is neither none nor all and none is visible (`visible`, one per
    /// action). `None` if the object declares nothing or no component
    /// qualifies. `blame` is the letter a panic in the declaration is put
    /// down to.
    fn choose(
        &mut self,
        p: ProtoId,
        blame: LetterId,
        enabled: &[LetterId],
        visible: &[bool],
    ) -> Result<Option<(Independence, usize)>, ProbeError> {
        let obj = self.ex.store.get(p);
        let declared =
            catch_unwind(AssertUnwindSafe(|| obj.independence())).map_err(|payload| {
                ProbeError::Panic {
                    letter: blame,
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
        let actions: Vec<ActionRef> = enabled.iter().map(|&l| action_of(a, l)).collect();
        let tally = tally(declared.components(), &actions, visible);
        let mut best: Option<(usize, usize)> = None;
        for (i, &(n, visible)) in tally.iter().enumerate() {
            if n == 0 || n == enabled.len() || visible {
                continue;
            }
            if best.is_none_or(|(_, m)| n < m) {
                best = Some((i, n));
            }
        }
        Ok(best.map(|(i, _)| (declared, i)))
    }
}

/// The action (role, kind, peer) of letter or probe slot `l`.
fn action_of(a: &Alphabet, l: LetterId) -> ActionRef {
    let x = a.letter(l);
    ActionRef::new(x.role, x.kind, x.peer)
}

/// Per component, how many of `actions` it holds and whether one of those
/// is visible. Each action is looked up once in a map of the components'
/// actions, not in every component: a state of `k` roles has about `k`
/// components and `k` enabled actions, and the pairwise search made the
/// reduced search quadratic in `k` a state. Components that share an
/// action (which no object of this crate declares) are counted pairwise.
fn tally(
    components: &[Vec<ActionRef>],
    actions: &[ActionRef],
    visible: &[bool],
) -> Vec<(usize, bool)> {
    let mut out = vec![(0, false); components.len()];
    let size = components.iter().map(Vec::len).sum();
    let mut owner: HashMap<ActionRef, usize> = HashMap::with_capacity(size);
    let mut shared = false;
    for (i, c) in components.iter().enumerate() {
        for &x in c {
            shared |= owner.insert(x, i).is_some();
        }
    }
    let mut count = |i: usize, v: bool| {
        out[i].0 += 1;
        out[i].1 |= v;
    };
    for (x, &v) in actions.iter().zip(visible) {
        if shared {
            for (i, c) in components.iter().enumerate() {
                if c.binary_search(x).is_ok() {
                    count(i, v);
                }
            }
        } else if let Some(&i) = owner.get(x) {
            count(i, v);
        }
    }
    out
}
