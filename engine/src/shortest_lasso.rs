//! The shortest accepting lasso of an explored graph, given as plain data:
//! the part of the shortest counterexample that does not depend on where
//! the graph came from. The engine's own shortening
//! ([`Checker::shortest`](crate::Checker::shortest)) explores the product
//! and calls it; the distributed search gathers the states that can be on
//! an accepting cycle and calls it on those, so that both show
//! counterexamples of the same length.
//!
//! The definition (the engine's, see
//! [`Checker::shortest`](crate::Checker::shortest)): a *target* is a state
//! that is the anchor of some violation, a bad prefix's last state
//! (`dead_end`: its cycle has length 0, and no cycle runs through it) or a
//! state of a strongly connected component with an internal edge in every
//! acceptance set of `all`; a lasso through a target is its distance from
//! the start plus a shortest cycle from it back to it, inside its
//! component, through every acceptance set. The answer is a lasso of
//! least length over every target, the nearest target's among equals.
//! Lengths are pairs compared in order (actions, then steps).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use hashbrown::HashMap;

/// A length: (actions, steps), compared in that order.
pub type Len = (u32, u32);

/// The length of one step of the product: an action is one action and
/// one step; a stutter step (on END or DEADLOCK: the run of the object
/// has ended) is a step of no action. The one rule every shortest
/// counterexample is measured by, here and over several processes.
///
/// ```
/// use engine::shortest_lasso::{step_length, then};
/// assert_eq!(step_length(false), (1, 1));
/// assert_eq!(then((2, 2), step_length(true)), (2, 3));
/// ```
pub const fn step_length(stutter: bool) -> Len {
    if stutter {
        (0, 1)
    } else {
        (1, 1)
    }
}

/// `length` followed by `step`.
pub const fn then(length: Len, step: Len) -> Len {
    (length.0 + step.0, length.1 + step.1)
}

/// A shortest lasso: its whole length (prefix and cycle), its anchor and
/// its cycle's edges (empty for a bad prefix).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShortLasso<E> {
    /// Prefix and cycle together.
    pub length: Len,
    /// The state the cycle starts and ends at (the bad prefix's last).
    pub anchor: u32,
    /// The cycle's edges, in order.
    pub cycle: Vec<E>,
}

/// A graph for [`shortest_lasso`]: per state, its outgoing edges (the
/// target's number and the edge), its distance from the start, and
/// whether it is the last state of a bad prefix (a dead end: its edges
/// are not followed).
pub struct LassoGraph<'a, E> {
    /// Outgoing edges of each state.
    pub out: &'a [Vec<(u32, E)>],
    /// The shortest distance of each state from the start (`u32::MAX`
    /// pairs for a state the start does not reach).
    pub dist: &'a [Len],
    /// Whether each state ends a bad prefix.
    pub dead_end: &'a dyn Fn(u32) -> bool,
    /// An edge's length.
    pub weight: &'a dyn Fn(&E) -> Len,
    /// An edge's acceptance marks.
    pub marks: &'a dyn Fn(&E) -> u32,
}

/// The shortest lasso of `g` whose cycle takes every mark of `all` (see
/// the module docs), or `None` if it has none. `visit(n)` is called with
/// the number of (state, marks) pairs visited so far, each time one more
/// is, and `per_target()` before each target's cycle is searched: either
/// can stop the search with its error.
///
/// ```
/// use engine::shortest_lasso::{shortest_lasso, LassoGraph};
///
/// // 0 → 1 → 2 → 1, the edge 2 → 1 marked: the lasso 0 1 (2 1)^ω.
/// let out = vec![vec![(1, 0u32)], vec![(2, 0)], vec![(1, 1)]];
/// let dist = [(0, 0), (1, 1), (2, 2)];
/// let g = LassoGraph {
///     out: &out,
///     dist: &dist,
///     dead_end: &|_| false,
///     weight: &|_| (1, 1),
///     marks: &|m| *m,
/// };
/// let l = shortest_lasso::<u32, ()>(&g, 1, |_| Ok(()), || Ok(())).unwrap().unwrap();
/// assert_eq!((l.length, l.anchor, l.cycle.len()), ((3, 3), 1, 2));
/// ```
///
/// # Errors
/// What `visit` or `per_target` returned.
pub fn shortest_lasso<E: Copy, X>(
    g: &LassoGraph<'_, E>,
    all: u32,
    mut visit: impl FnMut(u64) -> Result<(), X>,
    mut per_target: impl FnMut() -> Result<(), X>,
) -> Result<Option<ShortLasso<E>>, X> {
    let comp = components(g);
    let n_comp = comp.iter().map(|&c| c as usize + 1).max().unwrap_or(0);
    let mut marks = vec![0u32; n_comp];
    let mut inner = vec![false; n_comp];
    for (x, out) in g.out.iter().enumerate() {
        if (g.dead_end)(x as u32) {
            continue;
        }
        for (y, e) in out {
            if comp[x] == comp[*y as usize] {
                inner[comp[x] as usize] = true;
                marks[comp[x] as usize] |= (g.marks)(e);
            }
        }
    }
    let target = |x: u32| {
        let c = comp[x as usize] as usize;
        (g.dead_end)(x) || (inner[c] && marks[c] & all == all)
    };
    let mut targets: Vec<u32> = (0..g.out.len() as u32)
        .filter(|&x| target(x) && g.dist[x as usize].0 != u32::MAX)
        .collect();
    // Nearest first (then in the order of the states: the same answer
    // every run): a lasso is replaced only by a strictly shorter one, so
    // of two as long the one with the shorter prefix stays.
    targets.sort_unstable_by_key(|&x| (g.dist[x as usize], x));
    let mut best: Option<ShortLasso<E>> = None;
    let mut spent = 0u64;
    for x in targets {
        let d = g.dist[x as usize];
        // A cycle costs nothing at least: no anchor this far can do
        // better.
        if best.as_ref().is_some_and(|b| d >= b.length) {
            break;
        }
        if (g.dead_end)(x) {
            best = Some(ShortLasso {
                length: d,
                anchor: x,
                cycle: Vec::new(),
            });
            continue;
        }
        per_target()?;
        let bound = best.as_ref().map(|b| b.length);
        if let Some((length, cycle)) =
            shortest_cycle(g, &comp, x, all, bound, &mut spent, &mut visit)?
        {
            best = Some(ShortLasso {
                length,
                anchor: x,
                cycle,
            });
        }
    }
    Ok(best)
}

/// A shortest cycle from `c` back to it inside its component, whose edges
/// carry every mark of `all`, if the lasso it closes is shorter than
/// `bound`: a shortest-path search over (state, marks seen) pairs, its
/// lengths counted from `c`'s distance (so that the comparison with
/// `bound` is of whole lassos). Returns the whole lasso's length and the
/// cycle.
fn shortest_cycle<E: Copy, X>(
    g: &LassoGraph<'_, E>,
    comp: &[u32],
    c: u32,
    all: u32,
    bound: Option<Len>,
    spent: &mut u64,
    visit: &mut impl FnMut(u64) -> Result<(), X>,
) -> Result<Option<(Len, Vec<E>)>, X> {
    type Pair = (u32, u32);
    let home = comp[c as usize];
    let from = g.dist[c as usize];
    let mut dist: HashMap<Pair, (Len, Option<(Pair, E)>)> = HashMap::new();
    dist.insert((c, 0), (from, None));
    *spent += 1;
    visit(*spent)?;
    let mut heap = BinaryHeap::from([Reverse((from, (c, 0u32)))]);
    let mut best: Option<(Len, Pair, E)> = None;
    let bound = |best: &Option<(Len, Pair, E)>| best.as_ref().map(|b| b.0).or(bound);
    while let Some(Reverse((d, pair))) = heap.pop() {
        if dist[&pair].0 < d {
            continue;
        }
        if bound(&best).is_some_and(|b| d >= b) {
            break;
        }
        let (x, m) = pair;
        for &(y, e) in &g.out[x as usize] {
            if comp[y as usize] != home || (g.dead_end)(y) {
                continue;
            }
            let w = (g.weight)(&e);
            let nd = (d.0 + w.0, d.1 + w.1);
            let nm = m | ((g.marks)(&e) & all);
            if y == c && nm == all {
                if bound(&best).is_none_or(|b| nd < b) {
                    best = Some((nd, pair, e));
                }
                continue;
            }
            let next = (y, nm);
            let known = dist.get(&next).map(|k| k.0);
            if known.is_none() {
                *spent += 1;
                visit(*spent)?;
            }
            if known.is_none_or(|k| nd < k) {
                dist.insert(next, (nd, Some((pair, e))));
                heap.push(Reverse((nd, next)));
            }
        }
    }
    Ok(best.map(|(len, mut pair, last)| {
        let mut cycle = vec![last];
        while let Some((prev, e)) = dist[&pair].1 {
            cycle.push(e);
            pair = prev;
        }
        cycle.reverse();
        (len, cycle)
    }))
}

/// The strongly connected component of each state (Tarjan's algorithm,
/// iterative: the graph may be deep). A dead end's edges are not
/// followed.
fn components<E>(g: &LassoGraph<'_, E>) -> Vec<u32> {
    const NONE: u32 = u32::MAX;
    let n = g.out.len();
    let no_edges: &[(u32, E)] = &[];
    let out = |v: u32| {
        if (g.dead_end)(v) {
            no_edges
        } else {
            g.out[v as usize].as_slice()
        }
    };
    let mut index = vec![NONE; n];
    let mut low = vec![0u32; n];
    let mut on = vec![false; n];
    let mut comp = vec![NONE; n];
    let mut stack: Vec<u32> = Vec::new();
    let mut next = 0u32;
    let mut n_comp = 0u32;
    // (state, next outgoing edge to try)
    let mut calls: Vec<(u32, usize)> = Vec::new();
    for root in 0..n as u32 {
        if index[root as usize] != NONE {
            continue;
        }
        calls.push((root, 0));
        index[root as usize] = next;
        low[root as usize] = next;
        next += 1;
        stack.push(root);
        on[root as usize] = true;
        while let Some(&mut (v, ref mut i)) = calls.last_mut() {
            if let Some(&(w, _)) = out(v).get(*i) {
                *i += 1;
                if index[w as usize] == NONE {
                    index[w as usize] = next;
                    low[w as usize] = next;
                    next += 1;
                    stack.push(w);
                    on[w as usize] = true;
                    calls.push((w, 0));
                } else if on[w as usize] {
                    low[v as usize] = low[v as usize].min(index[w as usize]);
                }
                continue;
            }
            calls.pop();
            if let Some(&(u, _)) = calls.last() {
                low[u as usize] = low[u as usize].min(low[v as usize]);
            }
            if low[v as usize] == index[v as usize] {
                loop {
                    let w = stack.pop().expect("v is on the stack");
                    on[w as usize] = false;
                    comp[w as usize] = n_comp;
                    if w == v {
                        break;
                    }
                }
                n_comp += 1;
            }
        }
    }
    comp
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph<'a>(out: &'a [Vec<(u32, u32)>], dist: &'a [Len]) -> LassoGraph<'a, u32> {
        LassoGraph {
            out,
            dist,
            dead_end: &|_| false,
            weight: &|_| (1, 1),
            marks: &|m| *m,
        }
    }

    #[test]
    fn components_are_tarjans() {
        // 0 → 1 ⇄ 2 → 3 → 3, 4 → 0
        let out = vec![
            vec![(1, 0)],
            vec![(2, 0)],
            vec![(1, 0), (3, 0)],
            vec![(3, 0)],
            vec![(0, 0)],
        ];
        let dist = [(0, 0); 5];
        let c = components(&graph(&out, &dist));
        assert_eq!(c[1], c[2]);
        let distinct: hashbrown::HashSet<u32> = [c[0], c[1], c[3], c[4]].into();
        assert_eq!(distinct.len(), 4);
    }

    #[test]
    fn the_least_whole_length_wins_over_the_nearest_anchor() {
        // 0 → 1, a marked self-loop of 1 through four states; 0 → 5 → 6,
        // a marked self-loop on 6: 1 + 4 against 2 + 1.
        let out = vec![
            vec![(1, 0), (5, 0)],
            vec![(2, 0)],
            vec![(3, 0)],
            vec![(4, 0)],
            vec![(1, 1)],
            vec![(6, 0)],
            vec![(6, 1)],
        ];
        let dist = [(0, 0), (1, 1), (2, 2), (3, 3), (4, 4), (1, 1), (2, 2)];
        let l = shortest_lasso::<u32, ()>(&graph(&out, &dist), 1, |_| Ok(()), || Ok(()))
            .unwrap()
            .unwrap();
        assert_eq!((l.length, l.anchor, l.cycle), ((3, 3), 6, vec![1]));
    }

    #[test]
    fn a_cycle_must_take_every_mark_and_a_visit_can_stop_it() {
        // 0 ⇄ 1 with marks 1 and 2 on the two edges: both needed.
        let out = vec![vec![(1, 1)], vec![(0, 2)]];
        let dist = [(0, 0), (1, 1)];
        let g = graph(&out, &dist);
        let l = shortest_lasso::<u32, ()>(&g, 3, |_| Ok(()), || Ok(()))
            .unwrap()
            .unwrap();
        assert_eq!((l.length, l.anchor, l.cycle), ((2, 2), 0, vec![1, 2]));
        assert_eq!(
            shortest_lasso::<u32, ()>(&g, 4, |_| Ok(()), || Ok(())),
            Ok(None)
        );
        assert_eq!(
            shortest_lasso(&g, 3, |n| if n > 1 { Err(n) } else { Ok(()) }, || Ok(())),
            Err(2)
        );
    }
}
