//! The tableau automaton before reduction, and the edge-level pieces that
//! every reduction (translation, state merging, both simulations, WDBA
//! minimisation) shares: exclusions between atoms, guards as cube lists,
//! parallel edges merged. A module of its own so that those passes depend
//! on it rather than on each other.

use crate::automaton::Cube;

/// Masks of mutually exclusive atoms.
#[derive(Debug, Clone, Default)]
pub(crate) struct Exclusions {
    pub groups: Vec<u64>,
}

impl Exclusions {
    /// Whether the cube can hold on a letter respecting the exclusions.
    pub fn possible(&self, c: Cube) -> bool {
        c.pos & c.neg == 0 && self.groups.iter().all(|g| (c.pos & g).count_ones() <= 1)
    }

    /// The cube without negative literals implied by a positive one.
    pub fn normalize(&self, mut c: Cube) -> Cube {
        for g in &self.groups {
            if c.pos & g != 0 {
                c.neg &= !(g & !c.pos);
            }
        }
        c
    }
}

/// An edge with acceptance marks over up to 64 sets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RawEdge {
    pub target: usize,
    pub cubes: Vec<Cube>,
    pub acc: u64,
}

/// A TGBA before reduction (up to 64 acceptance sets).
#[derive(Debug, Clone)]
pub(crate) struct RawAutomaton {
    pub edges: Vec<Vec<RawEdge>>,
    pub initial: usize,
    pub acceptance_sets: u32,
}

pub(crate) fn cube_implies(a: Cube, b: Cube) -> bool {
    b.pos & !a.pos == 0 && b.neg & !a.neg == 0
}

/// A simpler equivalent DNF: drops cubes implied by others and merges
/// `c & x | c & !x` into `c`, until nothing changes.
pub(crate) fn simplify_cubes(mut cubes: Vec<Cube>, excl: &Exclusions) -> Vec<Cube> {
    cubes.retain(|c| excl.possible(*c));
    for c in cubes.iter_mut() {
        *c = excl.normalize(*c);
    }
    loop {
        cubes.sort();
        cubes.dedup();
        if crate::stop::poll() {
            return cubes;
        }
        let mut changed = false;
        // Absorption.
        let mut keep = vec![true; cubes.len()];
        for i in 0..cubes.len() {
            for j in 0..cubes.len() {
                if i != j && keep[j] && cube_implies(cubes[i], cubes[j]) && cubes[i] != cubes[j] {
                    keep[i] = false;
                    changed = true;
                    break;
                }
            }
        }
        let mut v: Vec<Cube> = cubes
            .iter()
            .zip(&keep)
            .filter(|(_, k)| **k)
            .map(|(c, _)| *c)
            .collect();
        // Resolution on one variable.
        'search: for i in 0..v.len() {
            for j in i + 1..v.len() {
                let (a, b) = (v[i], v[j]);
                let vars_a = a.pos | a.neg;
                if vars_a != (b.pos | b.neg) {
                    continue;
                }
                let diff = a.pos ^ b.pos;
                if diff.count_ones() == 1 && (a.neg ^ b.neg) == diff {
                    v[i] = Cube {
                        pos: a.pos & !diff,
                        neg: a.neg & !diff,
                    };
                    v.swap_remove(j);
                    changed = true;
                    break 'search;
                }
            }
        }
        cubes = v;
        if !changed {
            return cubes;
        }
    }
}

pub(crate) fn remove_dominated_edges(edges: &mut Vec<RawEdge>) {
    // Only single-cube edges are compared (the raw construction's form).
    let mut keep = vec![true; edges.len()];
    for i in 0..edges.len() {
        if crate::stop::poll() {
            break;
        }
        for j in 0..edges.len() {
            if i == j || !keep[j] {
                continue;
            }
            let (a, b) = (&edges[i], &edges[j]);
            if a.target == b.target
                && a.cubes.len() == 1
                && b.cubes.len() == 1
                && cube_implies(a.cubes[0], b.cubes[0])
                && a.acc & !b.acc == 0
            {
                keep[i] = false;
                break;
            }
        }
    }
    let mut k = keep.iter();
    edges.retain(|_| *k.next().expect("same length"));
}

pub(crate) fn merge_parallel_edges(edges: Vec<RawEdge>, excl: &Exclusions) -> Vec<RawEdge> {
    // Groups found by (target, marks) in a map, not by a scan of the
    // groups so far: a state with one edge per letter (`G F p0 & … & G F
    // p15` has 2^16) made the scan quadratic, seconds per state.
    let mut groups: Vec<RawEdge> = Vec::new();
    let mut index: hashbrown::HashMap<(usize, u64), usize> = hashbrown::HashMap::new();
    for e in edges {
        match index.entry((e.target, e.acc)) {
            hashbrown::hash_map::Entry::Occupied(g) => groups[*g.get()].cubes.extend(e.cubes),
            hashbrown::hash_map::Entry::Vacant(v) => {
                v.insert(groups.len());
                groups.push(e);
            }
        }
    }
    for g in groups.iter_mut() {
        g.cubes = simplify_cubes(std::mem::take(&mut g.cubes), excl);
    }
    groups.retain(|g| !g.cubes.is_empty());
    groups
}
