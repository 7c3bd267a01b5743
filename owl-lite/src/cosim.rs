//! Reverse (backward) simulation reduction, the half of Spot's iterated
//! simulation (`simul=3`) that direct simulation misses: it merges states
//! with the same *past* rather than the same future (on the benchmark set,
//! `!(G F p1 <-> G F p0)` goes from 5 to 3 states).
//!
//! `q` co-simulates `p` when `p` initial implies `q` initial, and every
//! edge into `p` (from `p'`, on guard `g`, with marks `m`) is matched letter
//! by letter by edges into `q` with at least the marks `m` from states that
//! co-simulate `p'`: the direct-simulation fixpoint of
//! [`crate::simulation::simulation_relation`] on incoming edges. States that
//! co-simulate each other are merged, and the merged state keeps *all*
//! their outgoing edges (their futures differ). An edge also loses the
//! letters on which another edge into the same state dominates it (from a
//! state co-simulating its source, with at least its marks): with it, a
//! state whose only way on was such an edge becomes useless and is pruned
//! (on `G (p0 -> ((p1 -> (!p2 U …)) U (p2 | G (…))))` of the set, 7 → 6
//! states, as Spot).
//!
//! Sound: a run of the quotient is rebuilt backwards from any of its
//! prefixes, each step moving to a co-simulating state with at least the
//! marks, through an edge that is kept (a letter is only dropped from an
//! edge strictly dominated by another, and strict domination has maximal
//! elements), down to an initial state; König's lemma gives the infinite
//! run, with at least the original marks at every step.

use crate::raw::{merge_parallel_edges, Exclusions, RawAutomaton, RawEdge};
use crate::simulation::{
    drop_little_brothers, equivalence_representatives, restricted_edge, simulation_relation,
    simulation_tables, Adjacent,
};

/// Merges the states of `a` that co-simulate each other, and drops from
/// each edge the letters on which another edge into the same (merged)
/// state, from a state co-simulating its source and with at least its
/// marks, dominates it (the reverse "little brothers"). Skipped, like
/// direct simulation, above the size where the quadratic relation costs
/// more than it saves or when guards have too many atoms for truth tables.
pub(crate) fn cosimulation_reduce(a: &mut RawAutomaton, excl: &Exclusions) {
    let Some(tables) = simulation_tables(a, excl) else {
        return;
    };
    let n = a.edges.len();
    // Incoming edges: (source, marks, guard table), and where each came
    // from (source, index in its edge list).
    let mut incoming: Vec<Adjacent> = vec![Vec::new(); n];
    let mut origin: Vec<Vec<(usize, usize)>> = vec![Vec::new(); n];
    for (s, es) in a.edges.iter().enumerate() {
        for (k, e) in es.iter().enumerate() {
            incoming[e.target].push((s, e.acc, tables.table(&e.cubes)));
            origin[e.target].push((s, k));
        }
    }
    // Reverse simulation is direct simulation of the transposed automaton
    // in which only the initial state is "initial": `q` co-simulates `p`
    // only if `p` initial implies `q` initial.
    let init = a.initial;
    let cosim = simulation_relation(&incoming, |p, q| p != init || q == init);
    let rep = equivalence_representatives(&cosim, n);
    // The edges into each merged state, pruned together.
    let mut into: Vec<Adjacent> = vec![Vec::new(); n];
    let mut from: Vec<Vec<(usize, usize)>> = vec![Vec::new(); n];
    for p in 0..n {
        into[rep[p]].append(&mut incoming[p]);
        from[rep[p]].append(&mut origin[p]);
    }
    let mut edges: Vec<Vec<RawEdge>> = vec![Vec::new(); n];
    let mut changed = (0..n).any(|p| rep[p] != p);
    for (list, origins) in into.iter().zip(&from) {
        let kept = drop_little_brothers(list, &cosim, n);
        for (((_, _, full), k), &(s, i)) in list.iter().zip(&kept).zip(origins) {
            changed |= full != k;
            let e = &a.edges[s][i];
            if let Some(e) = restricted_edge(e, rep[e.target], full, k, &tables) {
                edges[rep[s]].push(e);
            }
        }
    }
    if !changed {
        return;
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

    #[test]
    fn an_edge_dominated_from_a_state_with_more_past_goes() {
        // Spot: 6 states; the merge alone left 7 (a state whose edges were
        // all dominated from one with more past, and that then could not
        // reach acceptance any more).
        let f = parse(
            "G (p0 -> ((p1 -> (!p2 U (!p2 & p3 & !p4 & X ((!p2 & !p4) U p5)))) \
             U (p2 | G (p1 -> (p3 & !p4 & X (!p4 U p5))))))",
        )
        .unwrap();
        let a = translate(&f, &TranslateOptions::default().wdba(false)).unwrap();
        assert_eq!(a.num_states(), 6);
        // Letters: bit i = p<i>.
        let (p0, p1, p2, p3, p5) = (1, 2, 4, 8, 32);
        assert!(a.accepts_lasso(&[], &[0])); // p0 never holds
        assert!(a.accepts_lasso(&[p0], &[p2])); // released by p2
        assert!(!a.accepts_lasso(&[p0 | p1], &[0])); // p1 never answered
        assert!(a.accepts_lasso(&[p0 | p1 | p3, p5], &[p2])); // answered, then p2
        assert!(!a.accepts_lasso(&[p0 | p1 | p3, p2], &[p2])); // p2 before p5
    }
}
