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
//!    edges lose the letters on which a sibling edge to a simulating state,
//!    with at least their marks, dominates them;
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

fn remove_dominated_edges(edges: &mut Vec<RawEdge>) {
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

    /// A small DNF of a table (an irredundant sum of products; letters
    /// the exclusions forbid are don't-cares).
    pub fn cubes(&self, table: &[u64]) -> Vec<Cube> {
        let n = 1usize << self.vars.len();
        let bit = |t: &[u64], m: usize| t[m / 64] & (1 << (m % 64)) != 0;
        let lower: Vec<bool> = (0..n).map(|m| bit(table, m)).collect();
        let upper: Vec<bool> = (0..n)
            .map(|m| bit(table, m) || !bit(&self.valid, m))
            .collect();
        let expand = |m: usize| {
            self.vars
                .iter()
                .enumerate()
                .filter(|(b, _)| m & (1 << b) != 0)
                .fold(0u64, |acc, (_, &v)| acc | 1 << v)
        };
        crate::wdba::isop(&lower, &upper, self.vars.len())
            .into_iter()
            .map(|(pos, neg)| Cube {
                pos: expand(pos),
                neg: expand(neg),
            })
            .collect()
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

/// One state's edges as the simulation fixpoint sees them: `(the state at
/// the other end, marks, guard table)`. For direct simulation these are the
/// outgoing edges (other end: the target), for reverse simulation the
/// incoming ones (other end: the source).
pub(crate) type Adjacent = Vec<(usize, u64, Vec<u64>)>;

/// Whether the automaton is small enough, and its guards few enough in
/// atoms, for the quadratic simulation relations to pay: the truth tables
/// of its guards if so.
pub(crate) fn simulation_tables(a: &RawAutomaton, excl: &Exclusions) -> Option<Tables> {
    let n = a.edges.len();
    let n_edges: usize = a.edges.iter().map(Vec::len).sum();
    if n < 2 || n * n_edges > 40_000 {
        return None;
    }
    Tables::new(a.edges.iter().flatten().flat_map(|e| e.cubes.iter()), excl)
}

/// The greatest simulation relation over `adj` (one list per state), as a
/// matrix: `rel[q * n + p]` when `p` simulates `q`, i.e. `allowed(q, p)`
/// and every `(t, m, g)` of `adj[q]` is matched, letter by letter, by the
/// union of the guards of the `(t', m', h)` of `adj[p]` with `m ⊆ m'` and
/// `t'` simulating `t`. The one fixpoint behind direct simulation
/// (outgoing edges, `allowed` everywhere) and reverse simulation (incoming
/// edges, an initial state only simulated by an initial one).
pub(crate) fn simulation_relation(
    adj: &[Adjacent],
    allowed: impl Fn(usize, usize) -> bool,
) -> Vec<bool> {
    let n = adj.len();
    let mut rel: Vec<bool> = (0..n * n).map(|i| allowed(i / n, i % n)).collect();
    let words = adj
        .iter()
        .flatten()
        .map(|(_, _, t)| t.len())
        .next()
        .unwrap_or(0);
    let mut union = vec![0u64; words];
    loop {
        let mut changed = false;
        for q in 0..n {
            if crate::stop::poll() {
                // Stopped: only the identity, which merges nothing.
                return (0..n * n).map(|i| i / n == i % n).collect();
            }
            for p in 0..n {
                if q == p || !rel[q * n + p] {
                    continue;
                }
                let ok = adj[q].iter().all(|(t, m, g)| {
                    union.iter_mut().for_each(|w| *w = 0);
                    for (t2, m2, h) in &adj[p] {
                        if m & !m2 == 0 && rel[t * n + t2] {
                            for (w, x) in union.iter_mut().zip(h) {
                                *w |= x;
                            }
                        }
                    }
                    subset(g, &union)
                });
                if !ok {
                    rel[q * n + p] = false;
                    changed = true;
                }
            }
        }
        if !changed {
            return rel;
        }
    }
}

/// For each state, the representative of its class of mutually simulating
/// states under `rel` (the smallest index in the class).
pub(crate) fn equivalence_representatives(rel: &[bool], n: usize) -> Vec<usize> {
    (0..n)
        .map(|q| {
            (0..=q)
                .find(|&p| rel[q * n + p] && rel[p * n + q])
                .unwrap_or(q)
        })
        .collect()
}

/// The guard tables of `list` (one state's edges, as in [`Adjacent`])
/// without the letters on which another edge of the list *strictly*
/// dominates them: its other end simulates theirs (under `rel`) and it has
/// at least their marks, and not the other way round. Such letters are
/// "little brothers": a run that takes the dominated edge on that letter
/// can take the dominating one instead (for outgoing edges: it continues
/// from a state with more futures; for incoming ones: its prefix is rebuilt
/// backwards through a state with more pasts), with at least the same
/// marks. Strict domination is a strict order, so on every letter a maximal
/// edge keeps it: no letter is lost.
pub(crate) fn drop_little_brothers(list: &Adjacent, rel: &[bool], n: usize) -> Vec<Vec<u64>> {
    list.iter()
        .enumerate()
        .map(|(i, (t, m, g))| {
            let mut g = g.clone();
            for (j, (t2, m2, h)) in list.iter().enumerate() {
                let dominates = m & !m2 == 0 && rel[t * n + t2];
                let dominated = m2 & !m == 0 && rel[t2 * n + t];
                if i != j && dominates && !dominated {
                    for (w, x) in g.iter_mut().zip(h) {
                        *w &= !x;
                    }
                }
            }
            g
        })
        .collect()
}

/// The edge `e` redirected to `target`, its guard restricted to the table
/// `kept` (whose unrestricted version is `full`); `None` when no letter is
/// left.
pub(crate) fn restricted_edge(
    e: &RawEdge,
    target: usize,
    full: &[u64],
    kept: &[u64],
    tables: &Tables,
) -> Option<RawEdge> {
    if kept.iter().all(|&w| w == 0) {
        return None;
    }
    let cubes = if kept == full {
        e.cubes.clone()
    } else {
        tables.cubes(kept)
    };
    Some(RawEdge {
        target,
        cubes,
        acc: e.acc,
    })
}

/// Direct-simulation reduction. `p` simulates `q` if every edge of `q` is
/// matched, letter by letter, by edges of `p` with at least the same marks
/// to a state simulating the target; then `L(q) ⊆ L(p)`. States that
/// simulate each other are merged, and each edge loses the letters on which
/// a sibling edge dominates it (see [`drop_little_brothers`]).
///
/// Skipped when guards use too many atoms for truth tables or the
/// automaton is so large that the quadratic relation would cost more than
/// it saves.
fn simulation_reduce(a: &mut RawAutomaton, excl: &Exclusions) {
    let Some(tables) = simulation_tables(a, excl) else {
        return;
    };
    let n = a.edges.len();
    let out: Vec<Adjacent> = a
        .edges
        .iter()
        .map(|es| {
            es.iter()
                .map(|e| (e.target, e.acc, tables.table(&e.cubes)))
                .collect()
        })
        .collect();
    let sim = simulation_relation(&out, |_, _| true);
    // Quotient by simulation equivalence: only representatives keep edges.
    let rep = equivalence_representatives(&sim, n);
    let mut edges: Vec<Vec<RawEdge>> = vec![Vec::new(); n];
    for q in (0..n).filter(|&q| rep[q] == q) {
        let kept = drop_little_brothers(&out[q], &sim, n);
        let es = a.edges[q]
            .iter()
            .zip(&out[q])
            .zip(&kept)
            .filter_map(|((e, (_, _, full)), k)| {
                restricted_edge(e, rep[e.target], full, k, &tables)
            })
            .collect();
        edges[q] = merge_parallel_edges(es, excl);
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
    // Each phase ends early when the caller's interrupt fires (see the
    // `stop` module); its result is then thrown away here.
    for es in a.edges.iter_mut() {
        if reduce {
            remove_dominated_edges(es);
        }
        *es = merge_parallel_edges(std::mem::take(es), excl);
        crate::stop::check()?;
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
            crate::stop::check()?;
        }
        // Each reduction can enable the others: iterate while it pays.
        for _ in 0..3 {
            let before = (a.edges.len(), a.edges.iter().map(Vec::len).sum::<usize>());
            merge_bisimilar(&mut a, excl);
            crate::stop::check()?;
            simulation_reduce(&mut a, excl);
            crate::stop::check()?;
            crate::cosim::cosimulation_reduce(&mut a, excl);
            crate::stop::check()?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn little_brothers_lose_only_the_dominated_letters() {
        // Three states; state 2 simulates state 1 (not conversely). Two
        // edges out of one state: to 1 on letters {0, 1}, to 2 on {1}.
        let n = 3;
        let mut rel = vec![false; n * n];
        for q in 0..n {
            rel[q * n + q] = true;
        }
        rel[n + 2] = true; // 2 simulates 1
        let list: Adjacent = vec![(1, 0b1, vec![0b011]), (2, 0b1, vec![0b010])];
        let kept = drop_little_brothers(&list, &rel, n);
        assert_eq!(kept, vec![vec![0b001], vec![0b010]]);
        // Fewer marks on the simulating edge: no domination.
        let list: Adjacent = vec![(1, 0b1, vec![0b011]), (2, 0b0, vec![0b010])];
        assert_eq!(
            drop_little_brothers(&list, &rel, n),
            vec![vec![0b011], vec![0b010]]
        );
        // Mutual simulation, same marks: neither edge loses a letter (the
        // two are merged later, not both dropped).
        rel[2 * n + 1] = true;
        let list: Adjacent = vec![(1, 0b1, vec![0b011]), (2, 0b1, vec![0b010])];
        assert_eq!(
            drop_little_brothers(&list, &rel, n),
            vec![vec![0b011], vec![0b010]]
        );
    }

    #[test]
    fn tables_turn_back_into_small_guards() {
        // Atoms 0 and 3 used; the table of `a0 | a3` and back.
        let excl = Exclusions::default();
        let guard = [Cube { pos: 1, neg: 0 }, Cube { pos: 8, neg: 0 }];
        let t = Tables::new(guard.iter(), &excl).unwrap();
        let table = t.table(&guard);
        let back = t.cubes(&table);
        assert_eq!(t.table(&back), table);
        assert_eq!(back.len(), 2);
        // With the two exclusive, `a0 & !a3` is just `a0`.
        let excl = Exclusions {
            groups: vec![0b1001],
        };
        let t = Tables::new(guard.iter(), &excl).unwrap();
        let only = t.table(&[Cube { pos: 1, neg: 8 }]);
        assert_eq!(t.cubes(&only), vec![Cube { pos: 1, neg: 0 }]);
    }
}
