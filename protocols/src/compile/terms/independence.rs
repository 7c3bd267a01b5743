//! The independent components of a residual term, for partial-order
//! reduction of the objects built on the fly
//! ([`engine::Independence`]): the branches of a parallel composition that
//! share no channel with anything else that can run before them.

use std::sync::Arc;

use hashbrown::HashMap;

use super::{Node, Terms};
use crate::lts::Label;
use crate::Error;

/// What a term can ever do, as far as other branches care: the channels
/// `(from, to)` of its labels (sorted; `None` if unknown: a call, whose
/// body is not looked into) and whether it may make a synchronous send
/// (which blocks every other branch until the receive).
#[derive(Clone)]
pub(crate) struct Footprint {
    chans: Option<Arc<[(u32, u32)]>>,
    sync: bool,
}

/// Footprints computed so far, by term (terms are hash-consed, so a
/// branch shared by many states is looked at once).
pub(crate) type Footprints = HashMap<u32, Footprint>;

fn union(
    a: &Option<Arc<[(u32, u32)]>>,
    b: &Option<Arc<[(u32, u32)]>>,
) -> Option<Arc<[(u32, u32)]>> {
    let (a, b) = (a.as_ref()?, b.as_ref()?);
    if b.is_empty() {
        return Some(a.clone());
    }
    if a.is_empty() {
        return Some(b.clone());
    }
    let mut v: Vec<(u32, u32)> = a.iter().chain(b.iter()).copied().collect();
    v.sort_unstable();
    v.dedup();
    Some(v.into())
}

impl Terms {
    fn footprint(&mut self, t: u32, memo: &mut Footprints) -> Footprint {
        if let Some(f) = memo.get(&t) {
            return f.clone();
        }
        let f = match self.nodes[t as usize].clone() {
            Node::Nil | Node::Stop => Footprint {
                chans: Some(Arc::from([])),
                sync: false,
            },
            Node::Act(l) | Node::Urgent(l) => Footprint {
                chans: Some(Arc::from([(l.from, l.to)])),
                sync: false,
            },
            Node::SyncSend(l) => Footprint {
                chans: Some(Arc::from([(l.from, l.to)])),
                sync: true,
            },
            Node::Seq(a, b) | Node::Alt(a, b) | Node::Par(a, b) => {
                let (fa, fb) = (self.footprint(a, memo), self.footprint(b, memo));
                Footprint {
                    chans: union(&fa.chans, &fb.chans),
                    sync: fa.sync || fb.sync,
                }
            }
            Node::Star(a) => self.footprint(a, memo),
            Node::Call(..) => Footprint {
                chans: None,
                sync: true,
            },
        };
        memo.insert(t, f.clone());
        f
    }

    /// The independent components of term `t`, each as the labels it can
    /// take now: branches of parallel compositions (through the first part
    /// of a sequence that cannot end yet) that cannot end without a step
    /// of their own, and whose channels no other branch that can run
    /// before them ever uses (and no such branch may send synchronously).
    /// Until such a branch moves, the rest of the protocol neither enables
    /// nor disables its steps, and every step of the rest commutes with
    /// them: the parallel composition interleaves, and the two touch
    /// different channels. That is what [`engine::Independence`] asks.
    pub(crate) fn components(
        &mut self,
        t: u32,
        memo: &mut Footprints,
    ) -> Result<Vec<Vec<Label>>, Error> {
        let mut leaves = Vec::new();
        self.split(t, &mut Vec::new(), &mut leaves, memo)?;
        let mut out = Vec::new();
        for (c, others) in leaves {
            let steps = self.steps(c)?;
            let mut labels: Vec<Label> = steps.iter().map(|&(l, _)| l).collect();
            labels.dedup();
            let private = labels.iter().all(|l| {
                others
                    .iter()
                    .all(|o| o.binary_search(&(l.from, l.to)).is_err())
            });
            if private && !labels.is_empty() {
                out.push(labels);
            }
        }
        Ok(out)
    }

    /// Collects into `out` the candidate components of `t` with the
    /// channels of everything that can run beside them (`others`).
    fn split(
        &mut self,
        t: u32,
        others: &mut Vec<Arc<[(u32, u32)]>>,
        out: &mut Vec<(u32, Vec<Arc<[(u32, u32)]>>)>,
        memo: &mut Footprints,
    ) -> Result<(), Error> {
        match self.nodes[t as usize].clone() {
            Node::Par(a, b) if !self.urgent[a as usize] && !self.urgent[b as usize] => {
                for (mine, beside) in [(a, b), (b, a)] {
                    let f = self.footprint(beside, memo);
                    // A branch beside that may send synchronously can block
                    // this one; one whose channels are unknown may share them.
                    if let (false, Some(chans)) = (f.sync, f.chans) {
                        others.push(chans);
                        self.split(mine, others, out, memo)?;
                        others.pop();
                    }
                }
            }
            // The rest of the sequence starts only once `a` has ended, which
            // needs a step of every component inside `a`.
            Node::Seq(a, _) if !self.nullable(a)? => self.split(a, others, out, memo)?,
            _ => {
                // A branch that can end without a step of its own could let
                // what follows the composition start, and that disables it.
                if !self.nullable(t)? {
                    out.push((t, others.clone()));
                }
            }
        }
        Ok(())
    }
}
