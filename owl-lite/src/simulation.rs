//! Truth tables of guards and the simulation relation over them: the one
//! fixpoint behind direct simulation (`reduce`) and reverse simulation
//! (`cosim`), kept apart so that the two passes do not import each other.

use crate::automaton::Cube;
use crate::raw::{Exclusions, RawAutomaton, RawEdge};

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
        crate::isop::isop(&lower, &upper, self.vars.len())
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

pub(crate) fn subset(a: &[u64], b: &[u64]) -> bool {
    a.iter().zip(b).all(|(x, y)| x & !y == 0)
}

/// A canonical form of a guard: its truth table, or the sorted cube list
/// when there are too many atoms for tables.
pub(crate) fn canonical_guard(cubes: &[Cube], tables: Option<&Tables>) -> Vec<u64> {
    match tables {
        Some(t) => t.table(cubes),
        None => {
            let mut v: Vec<u64> = cubes.iter().flat_map(|c| [c.pos, c.neg]).collect();
            v.push(u64::MAX);
            v
        }
    }
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
