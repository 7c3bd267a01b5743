//! The independent components of a residual term, for partial-order
//! reduction of the objects built on the fly
//! ([`engine::Independence`]): the branches of a parallel composition that
//! share no channel with anything else that can run before them.

use std::sync::Arc;

use hashbrown::HashMap;

use super::{Node, Terms};
use crate::ids::RoleIndex;
use crate::lts::Label;
use crate::Error;

/// What a term can ever do, as far as other branches care: the channels
/// `(from, to)` of its labels (sorted; `None` if unknown: a call, whose
/// body is not looked into), whether it may make a synchronous send
/// (which blocks every other branch until the receive), and whether it is
/// *linear*: without loops, calls or choices that may end at once, so
/// that it can end only by having no step left.
#[derive(Clone)]
pub(crate) struct Footprint {
    chans: Option<Arc<[(RoleIndex, RoleIndex)]>>,
    sync: bool,
    linear: bool,
}

/// Sets of channels, sorted.
type Chans = Arc<[(RoleIndex, RoleIndex)]>;

/// A candidate component: the term, the channels of its branch and those
/// of the branches beside it.
type Candidate = (u32, Vec<Chans>, Vec<Chans>);

/// Footprints computed so far, by term (terms are hash-consed, so a
/// branch shared by many states is looked at once).
pub(crate) type Footprints = HashMap<u32, Footprint>;

/// The most channels a footprint lists; a term that may use more has an
/// unknown footprint (`None`), as a call does. Every suffix of a sequence
/// has a footprint, so without a bound a sequence over `n` channels (a ring
/// of `n` roles) kept `n²/2` of them: 18 GB for a ring of 100,000. An
/// unknown footprint only keeps the term out of a component (no reduction
/// there), so the bound costs no soundness; 256 channels keeps every
/// bundled protocol's components (`npb-is-concurrent:K` has `2K` channels
/// after a round's composition).
const MAX_CHANNELS: usize = 256;

fn union(
    a: &Option<Arc<[(RoleIndex, RoleIndex)]>>,
    b: &Option<Arc<[(RoleIndex, RoleIndex)]>>,
) -> Option<Arc<[(RoleIndex, RoleIndex)]>> {
    let (a, b) = (a.as_ref()?, b.as_ref()?);
    if b.is_empty() {
        return Some(a.clone());
    }
    if a.is_empty() {
        return Some(b.clone());
    }
    let mut v: Vec<(RoleIndex, RoleIndex)> = a.iter().chain(b.iter()).copied().collect();
    v.sort_unstable();
    v.dedup();
    (v.len() <= MAX_CHANNELS).then(|| v.into())
}

impl Terms {
    fn footprint(&mut self, t: u32, memo: &mut Footprints) -> Footprint {
        if let Some(f) = memo.get(&t) {
            return f.clone();
        }
        let f = match self.nodes[t as usize] {
            Node::Nil | Node::Stop => Footprint {
                chans: Some(Arc::from([])),
                sync: false,
                linear: true,
            },
            Node::Act(l) | Node::Urgent(l) => Footprint {
                chans: Some(Arc::from([(self.label(l).from, self.label(l).to)])),
                sync: false,
                linear: true,
            },
            Node::SyncSend(l) => Footprint {
                chans: Some(Arc::from([(self.label(l).from, self.label(l).to)])),
                sync: true,
                linear: true,
            },
            Node::Seq(a, b) | Node::Alt(a, b) | Node::Par(a, b) => {
                let (fa, fb) = (self.footprint(a, memo), self.footprint(b, memo));
                let choice_may_end = matches!(self.nodes[t as usize], Node::Alt(..))
                    && (self.nullable(a).unwrap_or(true) || self.nullable(b).unwrap_or(true));
                Footprint {
                    chans: union(&fa.chans, &fb.chans),
                    sync: fa.sync || fb.sync,
                    linear: fa.linear && fb.linear && !choice_may_end,
                }
            }
            Node::Star(a) => Footprint {
                linear: false,
                ..self.footprint(a, memo)
            },
            Node::Call(..) => Footprint {
                chans: None,
                sync: true,
                linear: false,
            },
        };
        memo.insert(t, f.clone());
        f
    }

    /// The independent components of term `t`, each as the labels it can
    /// take now: branches of parallel compositions (through the first part
    /// of a sequence that cannot end yet) such that
    /// - the branch cannot end without a step of its own (so what follows
    ///   the composition cannot start before it moves);
    /// - every channel the branch may ever use (its part and the rest of
    ///   its sequence, with a known footprint: no call inside) is used by
    ///   no branch beside it, so no label is ever offered by both (the
    ///   subset construction would merge them, and the two orders of two
    ///   steps would end in different states);
    /// - every branch beside it is linear and never sends synchronously
    ///   (so it cannot block this one, nor end while it still has steps
    ///   and let what follows the composition offer the same label);
    /// - its next step is not a synchronous send (which blocks the rest).
    ///
    /// Until such a branch moves, the rest neither enables nor disables its
    /// steps, and every step of the rest commutes with them: what
    /// [`engine::Independence`] asks.
    pub(crate) fn components(
        &mut self,
        t: u32,
        memo: &mut Footprints,
    ) -> Result<Vec<Vec<Label>>, Error> {
        let mut leaves = Vec::new();
        self.split(t, &mut Vec::new(), &mut Vec::new(), &mut leaves, memo)?;
        let mut out = Vec::new();
        for (c, mine, others) in leaves {
            let steps = self.steps(c)?;
            // A synchronous send makes its branch urgent: it blocks every
            // other branch until the receive, so it disables their steps.
            if steps.iter().any(|&(_, r)| self.urgent[r as usize]) {
                continue;
            }
            let mut labels: Vec<Label> = steps.iter().map(|&(l, _)| l).collect();
            labels.dedup();
            let private = mine.iter().all(|chans| {
                chans
                    .iter()
                    .all(|ch| others.iter().all(|o| o.binary_search(ch).is_err()))
            });
            if private && !labels.is_empty() {
                out.push(labels);
            }
        }
        Ok(out)
    }

    /// Collects into `out` the candidate components of `t`: each with the
    /// channels of its branch (`rest`: the sequences it is the first part
    /// of, up to the parallel composition) and of every branch beside it
    /// (`others`).
    fn split(
        &mut self,
        t: u32,
        rest: &mut Vec<Arc<[(RoleIndex, RoleIndex)]>>,
        others: &mut Vec<Arc<[(RoleIndex, RoleIndex)]>>,
        out: &mut Vec<Candidate>,
        memo: &mut Footprints,
    ) -> Result<(), Error> {
        let node = self.nodes[t as usize];
        match node {
            Node::Par(a, b) if !self.urgent[a as usize] && !self.urgent[b as usize] => {
                for (mine, beside) in [(a, b), (b, a)] {
                    let f = self.footprint(beside, memo);
                    if let (false, true, Some(chans)) = (f.sync, f.linear, f.chans) {
                        others.push(chans);
                        // A new branch: what follows the composition is
                        // not part of it.
                        self.split(mine, &mut Vec::new(), others, out, memo)?;
                        others.pop();
                    }
                }
            }
            // The rest of the sequence starts only once `a` has ended, which
            // needs a step of every component inside `a`.
            Node::Seq(a, b) if !self.nullable(a)? => {
                let Some(chans) = self.footprint(b, memo).chans else {
                    return Ok(());
                };
                rest.push(chans);
                self.split(a, rest, others, out, memo)?;
                rest.pop();
            }
            _ => {
                // A branch that can end without a step of its own could let
                // what follows the composition start, and that disables it.
                if !self.nullable(t)? {
                    if let Some(chans) = self.footprint(t, memo).chans {
                        let mut mine = rest.clone();
                        mine.push(chans);
                        out.push((t, mine, others.clone()));
                    }
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::{msg, seq, Role, Spec};

    /// The footprint of a sequence of sends from `a` to `n` roles.
    fn footprint_of_fan_out(n: usize) -> Option<usize> {
        let spec = Spec::new(
            "fan-out",
            seq((0..n).map(|i| msg("M", "a", Role::indexed("b", i)))),
        );
        let mut terms = Terms::new(&spec).unwrap();
        let t = terms.intern(&spec.main).unwrap();
        let f = terms.footprint(t, &mut Footprints::new());
        f.chans.map(|c| c.len())
    }

    /// A footprint lists at most `MAX_CHANNELS` channels; beyond, it is
    /// unknown (as a call's), which keeps the term out of any component:
    /// no reduction there, never a wrong one. Without the bound every
    /// suffix of a long sequence kept its channels (quadratic memory).
    #[test]
    fn footprints_past_the_bound_are_unknown() {
        assert_eq!(footprint_of_fan_out(10), Some(10));
        assert_eq!(footprint_of_fan_out(MAX_CHANNELS), Some(MAX_CHANNELS));
        assert_eq!(footprint_of_fan_out(MAX_CHANNELS + 1), None);
    }
}
