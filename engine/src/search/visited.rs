//! The visited set of the product search: product state → DFS number.

use hashbrown::HashMap;

use crate::ids::{AutState, DfsNum, ProtoId};
use crate::protocol::Protocol;
use crate::successors::Successors;

/// Visited product states → DFS number ([`DfsNum::UNSEEN`] if never seen,
/// [`DfsNum::DEAD`] once its SCC is done). Three layouts, picked by the
/// number of automaton states `k`.
pub(super) enum Visited {
    /// For automata of at most two states: the numbers are kept next to
    /// the interned protocol object (`Store::mark`).
    Inline,
    /// For small automata: a flat array indexed by `proto * k + state`,
    /// cheaper than hashing and smaller when most pairs occur.
    Dense { k: usize, nums: Vec<DfsNum> },
    /// Larger automata: a hash map keyed by the packed pair.
    Sparse(HashMap<u64, DfsNum>),
}

impl Visited {
    /// The layout for an automaton of `k` states.
    pub(super) fn new(k: usize) -> Visited {
        if k <= 2 {
            Visited::Inline
        } else if k <= 4 {
            Visited::Dense {
                k,
                nums: Vec::new(),
            }
        } else {
            Visited::Sparse(HashMap::new())
        }
    }

    /// The number of `(p, q)`.
    #[inline]
    pub(super) fn get<P: Protocol>(&self, ex: &Successors<P>, p: ProtoId, q: AutState) -> DfsNum {
        match self {
            Visited::Inline => ex.store.mark(p, q),
            Visited::Dense { k, nums } => nums
                .get(p.index() * k + q.index())
                .copied()
                .unwrap_or(DfsNum::UNSEEN),
            Visited::Sparse(m) => m.get(&key(p, q)).copied().unwrap_or(DfsNum::UNSEEN),
        }
    }

    /// Sets the number of `(p, q)`.
    #[inline]
    pub(super) fn set<P: Protocol>(
        &mut self,
        ex: &mut Successors<P>,
        p: ProtoId,
        q: AutState,
        n: DfsNum,
    ) {
        match self {
            Visited::Inline => ex.store.set_mark(p, q, n),
            Visited::Dense { k, nums } => {
                let i = p.index() * *k + q.index();
                if i >= nums.len() {
                    let want = (i + 1).max(nums.len() * 2).max(1024);
                    nums.resize(want, DfsNum::UNSEEN);
                }
                nums[i] = n;
            }
            Visited::Sparse(m) => {
                m.insert(key(p, q), n);
            }
        }
    }
}

/// The pair packed into one word, the key of the sparse layout.
#[inline]
fn key(p: ProtoId, q: AutState) -> u64 {
    (p.raw() as u64) << 32 | q.raw() as u64
}
