//! Reductions of the raw tableau automaton, each language-preserving:
//!
//! 1. **dominated edges**: an edge to the same target with a stronger guard
//!    and fewer acceptance marks than another is dropped;
//! 2. **guard merging**: edges with the same target and marks become one
//!    edge whose guard is the (simplified) disjunction;
//! 3. **SCC pruning**: states that cannot reach an accepting strongly
//!    connected component are removed;
//! 4. **acceptance simplification** (per SCC): marks on edges between SCCs
//!    are dropped; in each SCC, sets present on every internal edge, or
//!    implied by another set, are dropped; sets are renumbered per SCC, so
//!    the automaton needs only as many sets as its most demanding SCC;
//! 5. **state merging**: states with the same outgoing behaviour
//!    (bisimilar, counting marks and guards semantically) become one;
//! 6. **direct simulation**: states that simulate each other are merged and
//!    edges dominated by a sibling edge to a simulating state are dropped;
//! 7. **reverse simulation** (private module `cosim`): states with the same past
//!    (co-simulating each other) are merged.
//!
//! Steps 4–7 are iterated while they shrink the automaton.

use hashbrown::HashMap;

use crate::automaton::{Automaton, Cube, Edge, Guard};
use crate::scc::sccs;
use crate::translate::{Exclusions, TranslateError};

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

fn cube_implies(a: Cube, b: Cube) -> bool {
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

fn remove_dominated_edges(edges: &mut Vec<RawEdge>) {
    // Only single-cube edges are compared (the raw construction's form).
    let mut keep = vec![true; edges.len()];
    for i in 0..edges.len() {
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
    let mut groups: Vec<RawEdge> = Vec::new();
    for e in edges {
        match groups
            .iter_mut()
            .find(|g| g.target == e.target && g.acc == e.acc)
        {
            Some(g) => g.cubes.extend(e.cubes),
            None => groups.push(e),
        }
    }
    for g in groups.iter_mut() {
        g.cubes = simplify_cubes(std::mem::take(&mut g.cubes), excl);
    }
    groups.retain(|g| !g.cubes.is_empty());
    groups
}

/// Removes states that cannot reach an accepting SCC and simplifies the
/// acceptance condition SCC by SCC. Returns `None` if the language is empty.
fn prune_and_simplify_acceptance(a: &mut RawAutomaton) -> Result<Option<()>, TranslateError> {
    let n = a.edges.len();
    let all = if a.acceptance_sets >= 64 {
        u64::MAX
    } else {
        (1u64 << a.acceptance_sets) - 1
    };
    let succ: Vec<Vec<usize>> = a
        .edges
        .iter()
        .map(|es| es.iter().map(|e| e.target).collect())
        .collect();
    let comp = sccs(&succ);
    let n_comp = comp.iter().copied().max().map_or(0, |m| m + 1);
    // Per SCC: marks seen on internal edges, whether it has one.
    let mut union = vec![0u64; n_comp];
    let mut internal = vec![false; n_comp];
    for (s, es) in a.edges.iter().enumerate() {
        for e in es {
            if comp[e.target] == comp[s] {
                union[comp[s]] |= e.acc;
                internal[comp[s]] = true;
            }
        }
    }
    let accepting: Vec<bool> = (0..n_comp)
        .map(|c| internal[c] && union[c] == all)
        .collect();
    // Useful SCCs can reach an accepting one; components are numbered
    // successors first, so one pass in index order suffices.
    let mut useful = accepting.clone();
    let mut comp_succ: Vec<Vec<usize>> = vec![vec![]; n_comp];
    for (s, es) in a.edges.iter().enumerate() {
        for e in es {
            if comp[e.target] != comp[s] {
                comp_succ[comp[s]].push(comp[e.target]);
            }
        }
    }
    for c in 0..n_comp {
        if comp_succ[c].iter().any(|&d| useful[d]) {
            useful[c] = true;
        }
    }
    if !useful[comp[a.initial]] {
        return Ok(None);
    }
    // Needed sets per accepting SCC.
    let mut needed: Vec<Vec<u32>> = vec![vec![]; n_comp];
    let mut k = 0usize;
    let mut rejecting_cycles = false;
    for c in 0..n_comp {
        if !useful[c] || !internal[c] {
            continue;
        }
        if !accepting[c] {
            rejecting_cycles = true;
            continue;
        }
        let internal_accs: Vec<u64> = a
            .edges
            .iter()
            .enumerate()
            .filter(|(s, _)| comp[*s] == c)
            .flat_map(|(_, es)| es.iter().filter(|e| comp[e.target] == c).map(|e| e.acc))
            .collect();
        let common = internal_accs.iter().fold(all, |m, x| m & x);
        let mut sets: Vec<u32> = (0..a.acceptance_sets)
            .filter(|i| common & (1 << i) == 0)
            .collect();
        // Drop a set implied by another: every edge with j also has i.
        let mut idx = 0;
        while idx < sets.len() {
            let i = sets[idx];
            let implied = sets.iter().any(|&j| {
                j != i
                    && internal_accs
                        .iter()
                        .all(|x| x & (1 << j) == 0 || x & (1 << i) != 0)
            });
            if implied {
                sets.remove(idx);
            } else {
                idx += 1;
            }
        }
        k = k.max(sets.len());
        needed[c] = sets;
    }
    if k == 0 && rejecting_cycles {
        k = 1;
    }
    if k > 32 {
        return Err(TranslateError::TooManyAcceptanceSets { count: k });
    }
    let full = if k == 32 {
        u64::from(u32::MAX)
    } else {
        (1u64 << k) - 1
    };
    for s in 0..n {
        let c = comp[s];
        let keep_state = useful[c];
        let es = std::mem::take(&mut a.edges[s]);
        if !keep_state {
            continue;
        }
        a.edges[s] = es
            .into_iter()
            .filter(|e| useful[comp[e.target]])
            .map(|mut e| {
                e.acc = if comp[e.target] != c || !accepting[c] {
                    0
                } else {
                    let sets = &needed[c];
                    let mut m = 0u64;
                    for (new, &old) in sets.iter().enumerate() {
                        if e.acc & (1 << old) != 0 {
                            m |= 1 << new;
                        }
                    }
                    m | (full & !((1u64 << sets.len()) - 1))
                };
                e
            })
            .collect();
    }
    a.acceptance_sets = k as u32;
    Ok(Some(()))
}

/// Truth tables of guards over the atoms an automaton uses (at most
/// [`Tables::MAX_VARS`] of them): a guard becomes a bitset over the
/// valuations of those atoms, restricted to the valuations that respect the
/// exclusions. Equal tables mean equivalent guards, subset means implication.
pub(crate) struct Tables {
    vars: Vec<u32>,
    columns: Vec<Vec<u64>>,
    valid: Vec<u64>,
}

impl Tables {
    /// Above this many atoms, guards are compared syntactically instead.
    pub const MAX_VARS: usize = 12;

    pub fn new<'a>(cubes: impl Iterator<Item = &'a Cube>, excl: &Exclusions) -> Option<Tables> {
        let used = cubes.fold(0u64, |m, c| m | c.pos | c.neg);
        let vars: Vec<u32> = (0..64).filter(|i| used & (1u64 << i) != 0).collect();
        if vars.len() > Self::MAX_VARS {
            return None;
        }
        let n = 1usize << vars.len();
        let words = n.div_ceil(64);
        let mut columns = vec![vec![0u64; words]; vars.len()];
        let mut valid = vec![0u64; words];
        for m in 0..n {
            let mut val = 0u64;
            for (bit, col) in columns.iter_mut().enumerate() {
                if m & (1 << bit) != 0 {
                    col[m / 64] |= 1 << (m % 64);
                    val |= 1 << vars[bit];
                }
            }
            if excl.possible(Cube {
                pos: val,
                neg: !val,
            }) {
                valid[m / 64] |= 1 << (m % 64);
            }
        }
        Some(Tables {
            vars,
            columns,
            valid,
        })
    }

    /// The table of a DNF guard.
    pub fn table(&self, cubes: &[Cube]) -> Vec<u64> {
        let mut t = vec![0u64; self.valid.len()];
        for c in cubes {
            let mut ct = self.valid.clone();
            for (bit, &v) in self.vars.iter().enumerate() {
                if c.pos & (1 << v) != 0 {
                    for (w, col) in ct.iter_mut().zip(&self.columns[bit]) {
                        *w &= col;
                    }
                } else if c.neg & (1 << v) != 0 {
                    for (w, col) in ct.iter_mut().zip(&self.columns[bit]) {
                        *w &= !col;
                    }
                }
            }
            for (w, x) in t.iter_mut().zip(&ct) {
                *w |= x;
            }
        }
        t
    }
}

fn subset(a: &[u64], b: &[u64]) -> bool {
    a.iter().zip(b).all(|(x, y)| x & !y == 0)
}

/// A canonical form of a guard: its truth table, or the sorted cube list
/// when there are too many atoms for tables.
fn canonical_guard(cubes: &[Cube], tables: Option<&Tables>) -> Vec<u64> {
    match tables {
        Some(t) => t.table(cubes),
        None => {
            let mut v: Vec<u64> = cubes.iter().flat_map(|c| [c.pos, c.neg]).collect();
            v.push(u64::MAX);
            v
        }
    }
}

/// Outgoing behaviour of a state: (target class, marks, canonical guard).
type Signature = Vec<(usize, u64, Vec<u64>)>;

/// Merges bisimilar states (coarsest partition where equivalent states have,
/// for every class and mark set, the same guard to that class).
fn merge_bisimilar(a: &mut RawAutomaton, excl: &Exclusions) {
    let n = a.edges.len();
    let tables = Tables::new(a.edges.iter().flatten().flat_map(|e| e.cubes.iter()), excl);
    // Per-edge guard tables, computed once.
    let edge_tables: Vec<Vec<Vec<u64>>> = a
        .edges
        .iter()
        .map(|es| {
            es.iter()
                .map(|e| canonical_guard(&e.cubes, tables.as_ref()))
                .collect()
        })
        .collect();
    let mut class = vec![0usize; n];
    let mut n_classes = 1;
    loop {
        let mut sig_ids: HashMap<(usize, Signature), usize> = HashMap::new();
        let mut new_class = vec![0usize; n];
        for s in 0..n {
            let mut sig: Signature = Vec::new();
            for (e, t) in a.edges[s].iter().zip(&edge_tables[s]) {
                let key = (class[e.target], e.acc);
                match sig.iter_mut().find(|g| (g.0, g.1) == key) {
                    Some(g) if tables.is_some() => {
                        for (w, x) in g.2.iter_mut().zip(t) {
                            *w |= x;
                        }
                    }
                    Some(g) => g.2.extend(t),
                    None => sig.push((key.0, key.1, t.clone())),
                }
            }
            sig.sort();
            let len = sig_ids.len();
            new_class[s] = *sig_ids.entry((class[s], sig)).or_insert(len);
        }
        let count = sig_ids.len();
        class = new_class;
        if count == n_classes {
            break;
        }
        n_classes = count;
    }
    if n_classes == n {
        return;
    }
    // Rebuild on class representatives.
    let mut rep = vec![usize::MAX; n_classes];
    for s in 0..n {
        if rep[class[s]] == usize::MAX {
            rep[class[s]] = s;
        }
    }
    let edges: Vec<Vec<RawEdge>> = rep
        .iter()
        .map(|&r| {
            let es = a.edges[r]
                .iter()
                .map(|e| RawEdge {
                    target: class[e.target],
                    cubes: e.cubes.clone(),
                    acc: e.acc,
                })
                .collect();
            merge_parallel_edges(es, excl)
        })
        .collect();
    a.initial = class[a.initial];
    a.edges = edges;
}

/// Direct-simulation reduction. `p` simulates `q` if every edge of `q` is
/// matched, letter by letter, by edges of `p` with at least the same marks
/// to a state simulating the target; then `L(q) ⊆ L(p)`. States that
/// simulate each other are merged, and an edge is dropped when another edge
/// of the same state has a weaker guard, more marks and a target simulating
/// its target ("little brothers").
///
/// Skipped when guards use too many atoms for truth tables or the
/// automaton is so large that the quadratic relation would cost more than
/// it saves.
fn simulation_reduce(a: &mut RawAutomaton, excl: &Exclusions) {
    let n = a.edges.len();
    let n_edges: usize = a.edges.iter().map(Vec::len).sum();
    if n < 2 || n * n_edges > 40_000 {
        return;
    }
    let Some(tables) = Tables::new(a.edges.iter().flatten().flat_map(|e| e.cubes.iter()), excl)
    else {
        return;
    };
    let et: Vec<Vec<Vec<u64>>> = a
        .edges
        .iter()
        .map(|es| es.iter().map(|e| tables.table(&e.cubes)).collect())
        .collect();
    // sim[q * n + p]: p simulates q.
    let mut sim = vec![true; n * n];
    let words = tables.valid.len();
    let mut union = vec![0u64; words];
    loop {
        let mut changed = false;
        for q in 0..n {
            for p in 0..n {
                if q == p || !sim[q * n + p] {
                    continue;
                }
                let ok = a.edges[q].iter().zip(&et[q]).all(|(e, t)| {
                    union.iter_mut().for_each(|w| *w = 0);
                    for (f, u) in a.edges[p].iter().zip(&et[p]) {
                        if e.acc & !f.acc == 0 && sim[e.target * n + f.target] {
                            for (w, x) in union.iter_mut().zip(u) {
                                *w |= x;
                            }
                        }
                    }
                    subset(t, &union)
                });
                if !ok {
                    sim[q * n + p] = false;
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    // Quotient by simulation equivalence (representative: smallest index).
    let rep: Vec<usize> = (0..n)
        .map(|q| {
            (0..=q)
                .find(|&p| sim[q * n + p] && sim[p * n + q])
                .unwrap_or(q)
        })
        .collect();
    let mut edges: Vec<Vec<RawEdge>> = vec![Vec::new(); n];
    for q in 0..n {
        if rep[q] != q {
            continue;
        }
        // Little brothers: drop an edge dominated by a kept one.
        let es = &a.edges[q];
        let mut keep = vec![true; es.len()];
        for i in 0..es.len() {
            for j in 0..es.len() {
                if i == j || !keep[j] {
                    continue;
                }
                let (e, f) = (&es[i], &es[j]);
                if e.acc & !f.acc == 0
                    && sim[e.target * n + f.target]
                    && subset(&et[q][i], &et[q][j])
                {
                    keep[i] = false;
                    break;
                }
            }
        }
        let kept: Vec<RawEdge> = es
            .iter()
            .zip(&keep)
            .filter(|(_, k)| **k)
            .map(|(e, _)| RawEdge {
                target: rep[e.target],
                cubes: e.cubes.clone(),
                acc: e.acc,
            })
            .collect();
        edges[q] = merge_parallel_edges(kept, excl);
    }
    a.initial = rep[a.initial];
    a.edges = edges;
}

/// The states reachable from the initial state in breadth-first order, and
/// each state's position in that order (`usize::MAX` if unreachable): the
/// renumbering that drops unreachable states and puts the initial one first.
fn breadth_first_numbering(a: &RawAutomaton) -> (Vec<usize>, Vec<usize>) {
    let mut num = vec![usize::MAX; a.edges.len()];
    let mut order = vec![a.initial];
    num[a.initial] = 0;
    let mut i = 0;
    while i < order.len() {
        for e in &a.edges[order[i]] {
            if num[e.target] == usize::MAX {
                num[e.target] = order.len();
                order.push(e.target);
            }
        }
        i += 1;
    }
    (order, num)
}

/// Removes the states unreachable from the initial state.
fn drop_unreachable(a: &mut RawAutomaton) {
    let (order, num) = breadth_first_numbering(a);
    let edges = order
        .iter()
        .map(|&s| {
            a.edges[s]
                .iter()
                .map(|e| RawEdge {
                    target: num[e.target],
                    cubes: e.cubes.clone(),
                    acc: e.acc,
                })
                .collect()
        })
        .collect();
    a.edges = edges;
    a.initial = 0;
}

/// Reduces (if asked) and converts to the public [`Automaton`], numbering
/// states in breadth-first order from the initial state.
pub(crate) fn finish(
    mut a: RawAutomaton,
    atoms: Vec<String>,
    excl: &Exclusions,
    reduce: bool,
) -> Result<Automaton, TranslateError> {
    for es in a.edges.iter_mut() {
        if reduce {
            remove_dominated_edges(es);
        }
        *es = merge_parallel_edges(std::mem::take(es), excl);
    }
    let empty = Automaton {
        atoms: atoms.clone(),
        initial: 0,
        edges: vec![vec![]],
        acceptance_sets: 0,
    };
    if prune_and_simplify_acceptance(&mut a)?.is_none() {
        return Ok(empty);
    }
    if reduce {
        for es in a.edges.iter_mut() {
            *es = merge_parallel_edges(std::mem::take(es), excl);
        }
        // Each reduction can enable the others: iterate while it pays.
        for _ in 0..3 {
            let before = (a.edges.len(), a.edges.iter().map(Vec::len).sum::<usize>());
            merge_bisimilar(&mut a, excl);
            simulation_reduce(&mut a, excl);
            crate::cosim::cosimulation_reduce(&mut a, excl);
            if prune_and_simplify_acceptance(&mut a)?.is_none() {
                return Ok(empty);
            }
            drop_unreachable(&mut a);
            if (a.edges.len(), a.edges.iter().map(Vec::len).sum::<usize>()) == before {
                break;
            }
        }
    }
    // BFS renumbering (drops unreachable states).
    let (order, num) = breadth_first_numbering(&a);
    let edges = order
        .iter()
        .map(|&s| {
            a.edges[s]
                .iter()
                .map(|e| Edge {
                    target: num[e.target],
                    guard: Guard {
                        cubes: e.cubes.clone(),
                    },
                    acc: e.acc as u32,
                })
                .collect()
        })
        .collect();
    if a.acceptance_sets > 32 {
        return Err(TranslateError::TooManyAcceptanceSets {
            count: a.acceptance_sets as usize,
        });
    }
    Ok(Automaton {
        atoms,
        initial: 0,
        edges,
        acceptance_sets: a.acceptance_sets,
    })
}
