//! The object's successor graph, computed ahead of a search: for each
//! stored object whose every enabled action was found, the complete list
//! of `(letter, target)` in letter order, the same list that
//! [`Successors::fill`](super::Successors::fill) would cache.
//!
//! The parallel liveness check (`search::parallel_liveness`) fills it on
//! several threads and then runs the one-thread depth-first search, which
//! reads successors from here instead of probing the object. It is a
//! *complete* cache, never a different answer: an object without a list
//! (its expansion failed, or was not reached before a limit) is probed as
//! ever, so a probe error, a panic or a state the graph does not cover is
//! met by the search exactly where the one-thread search meets it.

use crate::alphabet::LetterId;

use super::ProtoId;

/// No list for this id.
const ABSENT: u32 = u32::MAX;

/// Complete successor lists by object id (see the module docs).
#[derive(Default)]
pub(crate) struct Graph {
    /// By id: `(start, len)` of its list in `edges`, or `ABSENT`.
    index: Vec<(u32, u32)>,
    /// Every list, one after the other.
    edges: Vec<(LetterId, ProtoId)>,
}

impl Graph {
    /// Records the complete successor list of `p`, in letter order.
    /// Returns `false` (and records nothing) when the graph is full: its
    /// edges are addressed by 32-bit offsets.
    pub(crate) fn insert(&mut self, p: ProtoId, list: &[(LetterId, ProtoId)]) -> bool {
        let start = self.edges.len();
        if start + list.len() >= ABSENT as usize {
            return false;
        }
        if p.index() >= self.index.len() {
            let want = (p.index() + 1).max(self.index.len() * 2);
            self.index.resize(want, (ABSENT, 0));
        }
        self.edges.extend_from_slice(list);
        self.index[p.index()] = (start as u32, list.len() as u32);
        true
    }

    /// The complete successor list of `p`, if it was recorded.
    #[inline]
    pub(crate) fn get(&self, p: ProtoId) -> Option<&[(LetterId, ProtoId)]> {
        match self.index.get(p.index()) {
            Some(&(start, len)) if start != ABSENT => {
                Some(&self.edges[start as usize..(start + len) as usize])
            }
            _ => None,
        }
    }

    /// Whether `p` has a list.
    #[inline]
    pub(crate) fn contains(&self, p: ProtoId) -> bool {
        self.index
            .get(p.index())
            .is_some_and(|&(start, _)| start != ABSENT)
    }
}
