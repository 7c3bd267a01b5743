//! The visited set of the product search: product state → DFS number.

use hashbrown::HashMap;

use crate::protocol::Protocol;
use crate::successors::{Explorer, ProtoId};

pub(super) const DEAD: u32 = u32::MAX;

/// Visited product states → DFS number (0 = never seen, DEAD = SCC done).
pub(super) enum Visited {
    /// For automata of at most two states: the numbers are kept next to
    /// the interned protocol object ([`Explorer::mark`]).
    Inline,
    /// For small automata: a flat array indexed by `proto * k + state`,
    /// cheaper than hashing and smaller when most pairs occur.
    Dense {
        k: usize,
        nums: Vec<u32>,
    },
    Sparse(HashMap<u64, u32>),
}

impl Visited {
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

    #[inline]
    pub(super) fn get<P: Protocol>(&self, ex: &Explorer<P>, p: ProtoId, q: u32) -> u32 {
        match self {
            Visited::Inline => ex.store.mark(p, q),
            Visited::Dense { k, nums } => {
                nums.get(p as usize * k + q as usize).copied().unwrap_or(0)
            }
            Visited::Sparse(m) => m.get(&key(p, q)).copied().unwrap_or(0),
        }
    }

    #[inline]
    pub(super) fn set<P: Protocol>(&mut self, ex: &mut Explorer<P>, p: ProtoId, q: u32, n: u32) {
        match self {
            Visited::Inline => ex.store.set_mark(p, q, n),
            Visited::Dense { k, nums } => {
                let i = p as usize * *k + q as usize;
                if i >= nums.len() {
                    let want = (i + 1).max(nums.len() * 2).max(1024);
                    nums.resize(want, 0);
                }
                nums[i] = n;
            }
            Visited::Sparse(m) => {
                m.insert(key(p, q), n);
            }
        }
    }
}

#[inline]
fn key(p: ProtoId, q: u32) -> u64 {
    (p as u64) << 32 | q as u64
}
