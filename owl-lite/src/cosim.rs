//! Reverse (backward) simulation reduction, the half of Spot's iterated
//! simulation (`simul=3`) that direct simulation misses: it merges states
//! with the same *past* rather than the same future (on the benchmark set,
//! `!(G F p1 <-> G F p0)` goes from 5 to 3 states).
//!
//! `q` co-simulates `p` when `p` initial implies `q` initial, and every
//! edge into `p` (from `p'`, on guard `g`, with marks `m`) is matched letter
//! by letter by edges into `q` with at least the marks `m` from states that
//! co-simulate `p'`. States that co-simulate each other are merged, and the
//! merged state keeps *all* their outgoing edges (their futures differ).
//! Sound: a run of the quotient is rebuilt backwards from any of its
//! prefixes, each step moving to a co-simulating state with at least the
//! marks, down to an initial state; König's lemma gives the infinite run.

use crate::reduce::{merge_parallel_edges, RawAutomaton, RawEdge, Tables};
use crate::translate::Exclusions;

/// Merges the states of `a` that co-simulate each other. Skipped, like
/// direct simulation, above the size where the quadratic relation costs
/// more than it saves or when guards have too many atoms for truth tables.
pub(crate) fn cosimulation_reduce(a: &mut RawAutomaton, excl: &Exclusions) {
    let n = a.edges.len();
    let n_edges: usize = a.edges.iter().map(Vec::len).sum();
    if n < 2 || n * n_edges > 40_000 {
        return;
    }
    let Some(tables) = Tables::new(a.edges.iter().flatten().flat_map(|e| e.cubes.iter()), excl)
    else {
        return;
    };
    // Incoming edges: (source, marks, guard table).
    let mut incoming: Vec<Vec<(usize, u64, Vec<u64>)>> = vec![Vec::new(); n];
    for (s, es) in a.edges.iter().enumerate() {
        for e in es {
            incoming[e.target].push((s, e.acc, tables.table(&e.cubes)));
        }
    }
    // cosim[p * n + q]: q co-simulates p.
    let mut cosim: Vec<bool> = (0..n * n)
        .map(|i| i / n != a.initial || i % n == a.initial)
        .collect();
    let mut union = vec![0u64; tables.table(&[]).len()];
    loop {
        let mut changed = false;
        for p in 0..n {
            for q in 0..n {
                if p == q || !cosim[p * n + q] {
                    continue;
                }
                let ok = incoming[p].iter().all(|(src, acc, t)| {
                    union.iter_mut().for_each(|w| *w = 0);
                    for (src2, acc2, u) in &incoming[q] {
                        if acc & !acc2 == 0 && cosim[src * n + src2] {
                            for (w, x) in union.iter_mut().zip(u) {
                                *w |= x;
                            }
                        }
                    }
                    t.iter().zip(&union).all(|(x, y)| x & !y == 0)
                });
                if !ok {
                    cosim[p * n + q] = false;
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    let rep: Vec<usize> = (0..n)
        .map(|p| {
            (0..=p)
                .find(|&q| cosim[p * n + q] && cosim[q * n + p])
                .unwrap_or(p)
        })
        .collect();
    if (0..n).all(|p| rep[p] == p) {
        return;
    }
    let mut edges: Vec<Vec<RawEdge>> = vec![Vec::new(); n];
    for (p, es) in a.edges.iter().enumerate() {
        edges[rep[p]].extend(es.iter().map(|e| RawEdge {
            target: rep[e.target],
            cubes: e.cubes.clone(),
            acc: e.acc,
        }));
    }
    for es in edges.iter_mut() {
        *es = merge_parallel_edges(std::mem::take(es), excl);
    }
    a.initial = rep[a.initial];
    a.edges = edges;
}

#[cfg(test)]
mod tests {
    use crate::{parse, translate, TranslateOptions};

    #[test]
    fn states_with_the_same_past_merge() {
        // Spot (iterated direct and reverse simulation): 3 states; direct
        // simulation alone leaves 5.
        let f = parse("!(G F p1 <-> G F p0)").unwrap();
        let a = translate(&f, &TranslateOptions::default()).unwrap();
        assert_eq!(a.num_states(), 3);
        // Letters: bit 0 = p1, bit 1 = p0.
        assert!(a.accepts_lasso(&[], &[0b01, 0b00])); // G F p1, never p0
        assert!(a.accepts_lasso(&[0b11], &[0b10])); // G F p0 only
        assert!(!a.accepts_lasso(&[], &[0b01, 0b10])); // both infinitely often
        assert!(!a.accepts_lasso(&[0b11], &[0b00])); // neither
    }
}
