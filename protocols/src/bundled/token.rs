//! Token passing on six topologies: roles `worker_0_ … worker_{k-1}_`,
//! type `Boolean`. The token starts at `worker_0_`; forever, the holder `i`
//! sends it to one of its neighbours `j` (a choice), `j` receives it and
//! becomes the holder.
//!
//! ```
//! use protocols::token::{self, Topology};
//! let lts = token::spec(Topology::DirectedRing, 3).compile().unwrap();
//! assert_eq!((lts.num_states(), lts.num_transitions()), (6, 6));
//! let _object = token::strict(Topology::FullMesh, 4);
//! ```

use crate::spec::{alt_every, call, msg, Role, Spec};

/// Which neighbours a worker has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Topology {
    /// `i → i+1 mod k`.
    DirectedRing,
    /// `i → i±1 mod k`.
    UndirectedRing,
    /// `0 → any leaf`, a leaf `→ 0`.
    Star,
    /// Heap numbering: parent `(i-1)/2`, children `2i+1`, `2i+2` (< k).
    BinaryTree,
    /// Everyone else.
    FullMesh,
    /// Grid of side ⌈√k⌉ in row-major order: up, down, left, right (< k).
    Mesh2d,
}

impl Topology {
    /// All topologies.
    pub const ALL: [Topology; 6] = [
        Topology::DirectedRing,
        Topology::UndirectedRing,
        Topology::Star,
        Topology::BinaryTree,
        Topology::FullMesh,
        Topology::Mesh2d,
    ];

    /// The registry name (`token-directed-ring`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Topology::DirectedRing => "token-directed-ring",
            Topology::UndirectedRing => "token-undirected-ring",
            Topology::Star => "token-star",
            Topology::BinaryTree => "token-binary-tree",
            Topology::FullMesh => "token-full-mesh",
            Topology::Mesh2d => "token-2d-mesh",
        }
    }

    /// The neighbours of `i` among `k` workers, ascending, without `i`.
    pub fn neighbours(self, k: usize, i: usize) -> Vec<usize> {
        let mut v: Vec<usize> = match self {
            Topology::DirectedRing => vec![(i + 1) % k],
            Topology::UndirectedRing => vec![(i + 1) % k, (i + k - 1) % k],
            Topology::Star if i == 0 => (1..k).collect(),
            Topology::Star => vec![0],
            Topology::BinaryTree => {
                let mut v = vec![2 * i + 1, 2 * i + 2];
                if i > 0 {
                    v.push((i - 1) / 2);
                }
                v
            }
            Topology::FullMesh => (0..k).collect(),
            Topology::Mesh2d => {
                let side = (1..).find(|s| s * s >= k).expect("some side fits");
                let (r, c) = (i / side, i % side);
                let mut v = vec![i + side];
                if r > 0 {
                    v.push(i - side);
                }
                if c > 0 {
                    v.push(i - 1);
                }
                if c + 1 < side {
                    v.push(i + 1);
                }
                v
            }
        };
        v.retain(|&j| j < k && j != i);
        v.sort_unstable();
        v.dedup();
        v
    }
}

/// The specification for `k ≥ 2` workers: `token(i) = alt-every j in
/// neighbours(i): (-->> Boolean worker[i] worker[j]); token(j)`,
/// starting with `token(0)`.
pub fn spec(topology: Topology, k: usize) -> Spec {
    Spec::new(format!("{}:{k}", topology.name()), call("token", [0]))
        .roles(super::indexed("worker", k))
        .types(["Boolean"])
        .define("token", 1, move |a| {
            let i = a[0];
            alt_every(topology.neighbours(k, i), |j| {
                msg(
                    "Boolean",
                    Role::indexed("worker", i),
                    Role::indexed("worker", j),
                )
                .then(call("token", [j]))
            })
        })
}

/// The strict object of [`spec`], compiled with the default limits (the
/// shorthand of `spec(topology, k).strict().unwrap()`; see [`Spec::strict`]).
pub fn strict(topology: Topology, k: usize) -> crate::Strict {
    super::strict_of(spec(topology, k))
}
