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

use crate::automaton::{Automaton, Edge, Guard};
use crate::error::TranslateError;
use crate::raw::{merge_parallel_edges, remove_dominated_edges, Exclusions, RawAutomaton, RawEdge};
use crate::scc::sccs;
use crate::simulation::{
    canonical_guard, drop_little_brothers, equivalence_representatives, restricted_edge,
    simulation_relation, simulation_tables, Adjacent, Tables,
};

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
    use crate::automaton::Cube;

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
