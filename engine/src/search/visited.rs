//! The visited set of the product search: product state → DFS number.

use hashbrown::HashMap;

use crate::ids::{AutState, DfsNum, ProtoId};
use crate::protocol::Protocol;
use crate::successors::{mix, Successors};

use super::fingerprint_set::{BitState, FingerprintSet};

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
    /// Hash compaction in the breadth-first search: the product states'
    /// fingerprints, nothing else (the store gives ids only to the objects
    /// the search holds: `Store::transient_ids`). Every state stored is
    /// [`DfsNum::FIRST`].
    Compact(FingerprintSet),
    /// Bitstate hashing in the breadth-first search: a few bits of one
    /// array per product state.
    Bits(BitState),
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
            Visited::Compact(s) => seen(s.contains(product_fp(ex, p, q))),
            Visited::Bits(b) => seen(b.contains(product_fp(ex, p, q))),
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
            Visited::Compact(s) => {
                debug_assert_eq!(n, DfsNum::FIRST, "a set of fingerprints keeps no numbers");
                s.insert(product_fp(ex, p, q));
            }
            Visited::Bits(b) => {
                debug_assert_eq!(n, DfsNum::FIRST, "a bit array keeps no numbers");
                b.insert(product_fp(ex, p, q));
            }
        }
    }
}

/// [`DfsNum::FIRST`] for a state seen, as the fingerprint layouts know no
/// more.
#[inline]
fn seen(yes: bool) -> DfsNum {
    if yes {
        DfsNum::FIRST
    } else {
        DfsNum::UNSEEN
    }
}

/// The fingerprint of the product state `(p, q)`: the protocol state's,
/// moved by the automaton state and mixed again, so that the pairs of one
/// protocol state are as unrelated as those of two.
#[inline]
pub(super) fn product_fp<P: Protocol>(ex: &Successors<P>, p: ProtoId, q: AutState) -> u64 {
    mix(ex.store.fp_of(p) ^ (q.raw() as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15))
}

/// The pair packed into one word, the key of the sparse layout.
#[inline]
fn key(p: ProtoId, q: AutState) -> u64 {
    (p.raw() as u64) << 32 | q.raw() as u64
}
