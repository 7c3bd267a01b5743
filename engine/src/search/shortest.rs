//! The shortest counterexample: an exact search of the whole product for
//! the violation with the fewest steps, prefix and cycle together (of
//! those, the one with the shortest prefix), run after a search found some
//! violation.
//!
//! A violation's *length* counts the object's actions: the stutter steps
//! of a finite run (END, DEADLOCK) cost nothing, so a run that stops is as
//! long as the actions shown. Where actions tie, fewer steps in all
//! (stutter steps included) break the tie.
//!
//! The definition implemented:
//! - a *target* is a product state that is the anchor of some violation:
//!   under the stutter convention a state whose automaton state is
//!   universal (a bad prefix: no cycle is needed, its cycle has length
//!   0; such a state is a dead end of the graph searched here, so no
//!   cycle is counted through it), or a state on an accepting cycle: one
//!   in a strongly connected component with an internal transition in
//!   every acceptance set (the automaton's, and under weak fairness the
//!   roles', see [`crate::Fairness`]);
//! - a lasso through a target `t` is a shortest path from the initial
//!   state to `t` (its prefix) and a shortest cycle (in actions) from `t`
//!   back to `t` through every acceptance set (0 for a bad prefix or a
//!   finite run's stutter steps);
//! - the lasso shown is one of least length, prefix plus cycle, over every
//!   target; of those as long, one with the shortest prefix; the check
//!   then folds it (and the search's own) to the same run in fewer steps
//!   where the object's run repeats itself ([`RawLasso::folded`]): the
//!   automaton may need the object's cycle more than once to settle.
//!
//! Least length, not the shortest prefix first: a target one step nearer
//! may sit on a cycle of twenty where the next one closes in four, and a
//! reader follows the whole lasso.
//!
//! How: a shortest-path search (Dijkstra over the two weights; breadth
//! first in effect) of every reachable product state, stopping at the
//! first universal state when the automaton's accepting cycles all run
//! through universal states (a safety property: the first one is the
//! answer); else Tarjan's algorithm for the components, and for the
//! targets, nearest first, a shortest-path search over pairs (state of
//! its component, set of marks seen so far) back to it with every mark,
//! cut off at the length of the shortest lasso so far; a target as far as
//! that lasso is long ends the search. That costs up to `|component| ×
//! 2^k` pairs per target, `k` the marks (one or two for most formulas,
//! plus one per role under weak fairness), which is why it counts against
//! the same allowance as the states.
//!
//! Everything stays inside the check's limits: the states explored and the
//! pairs visited count against the allowance (a number of states: the
//! state limit, or by default one and a half times the search's states),
//! the clock and the memory against the search's budget, and no state
//! beyond the depth limit is entered.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use hashbrown::HashMap;

use crate::ids::Successor;
use crate::protocol::Protocol;
use crate::report::{Limit, RawLasso};
use crate::Semantics;

use super::{ProductState, Search};

/// A length: (actions, steps). Stutter steps count in the second only.
type Len = (u32, u32);

/// What the shortening found.
pub(crate) enum Shortening {
    /// A shortest violation (it may be as long as the one found).
    Exact(RawLasso),
    /// Stopped before it could tell.
    Stopped(Stop),
}

/// Why the shortening stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Stop {
    /// It needed more than the allowance of this many states, which was
    /// not a limit of the check (the default's one and a half times the
    /// search).
    Allowance(u64),
    /// A limit of the check.
    Limit(Limit),
    /// The object failed on a state the search had not reached: what it
    /// said.
    Probe(String),
}

/// The explored product: states, their outgoing transitions and shortest
/// distances from the initial state.
struct Graph {
    states: Vec<ProductState>,
    index: HashMap<ProductState, u32>,
    /// Outgoing transitions with their targets' indices (empty for states
    /// not expanded: universal ones).
    out: Vec<Vec<(u32, Successor)>>,
    dist: Vec<Len>,
    /// The transition that first reached each state at its distance.
    parent: Vec<Option<(u32, Successor)>>,
}

impl<P: Protocol> Search<'_, P> {
    /// The objects stored so far (the session's, for the report's stats
    /// before the shortening adds its own).
    pub(crate) fn stored_objects(&self) -> u64 {
        self.ex.store.len() as u64
    }

    /// The length of one transition by `s`: stutter steps cost no action.
    fn weight(&self, s: &Successor) -> Len {
        let a = &self.ex.alphabet;
        if s.letter == a.end() || s.letter == a.deadlock() {
            (0, 1)
        } else {
            (1, 1)
        }
    }

    /// The length of a counterexample as shown, in the order the
    /// shortening compares them: all its actions (up to a stutter step,
    /// which ends a finite run), then those of its prefix.
    pub(crate) fn shown_length(&self, raw: &RawLasso) -> (usize, usize) {
        let a = &self.ex.alphabet;
        let stutter = |s: &Successor| s.letter == a.end() || s.letter == a.deadlock();
        let all = raw.prefix.iter().chain(&raw.cycle);
        match all.clone().position(stutter) {
            Some(i) => (i, i),
            None => (raw.prefix.len() + raw.cycle.len(), raw.prefix.len()),
        }
    }

    /// `raw` as the same run in fewer steps where it repeats itself (see
    /// [`RawLasso::folded`]).
    pub(crate) fn folded(&self, raw: RawLasso, initial: crate::ids::ProtoId) -> RawLasso {
        let a = &self.ex.alphabet;
        raw.folded(initial, |l| l == a.end() || l == a.deadlock())
    }

    /// Whether state `q` is a dead end of the shortening's graph: a
    /// universal state under the stutter convention (a bad prefix).
    fn is_bad_prefix(&self, q: crate::ids::AutState) -> bool {
        self.limits.semantics == Semantics::Stutter && self.aut.universal(q)
    }

    /// The shortest violation from `initial` (see the module docs), visiting
    /// at most `allowance` product states and (state, marks) pairs in all;
    /// `allowance_is_limit` says whether that is the check's state limit.
    /// Probes run quietly: a panic on a state the search never reached is
    /// a reason to stop, said in the report, not a second message.
    pub(crate) fn shortest(
        &mut self,
        initial: crate::ids::ProtoId,
        allowance: u64,
        allowance_is_limit: bool,
    ) -> Shortening {
        // The objects of the states the graph holds are needed again to
        // expand them (under hash compaction and the collapse store).
        self.ex.store.keep_all();
        let over = |spent: u64| -> Option<Stop> {
            (spent > allowance).then_some(if allowance_is_limit {
                Stop::Limit(Limit::States(allowance))
            } else {
                Stop::Allowance(allowance)
            })
        };
        let mut spent = 0u64;
        let graph = crate::quiet::quietly(|| self.explore(initial, &mut spent, &over));
        let (graph, first_bad) = match graph {
            Ok(g) => g,
            Err(stop) => return Shortening::Stopped(stop),
        };
        if let Some(bad) = first_bad {
            return Shortening::Exact(RawLasso {
                prefix: graph.path_to(bad),
                cycle: Vec::new(),
            });
        }
        match self.shortest_lasso(&graph, &mut spent, &over) {
            Ok(Some(lasso)) => Shortening::Exact(lasso),
            // The search found a violation that the whole graph does not
            // hold: the object answered differently the second time.
            Ok(None) => Shortening::Stopped(Stop::Probe(
                "the object behaved differently when its states were expanded again".into(),
            )),
            Err(stop) => Shortening::Stopped(stop),
        }
    }

    /// Explores every product state reachable from `initial`, in order of
    /// distance; for a safety automaton only until the first universal
    /// state, which is returned with the graph.
    fn explore(
        &mut self,
        initial: crate::ids::ProtoId,
        spent: &mut u64,
        over: &dyn Fn(u64) -> Option<Stop>,
    ) -> Result<(Graph, Option<u32>), Stop> {
        let start = (initial, self.aut.initial);
        let mut g = Graph {
            states: vec![start],
            index: HashMap::from([(start, 0)]),
            out: vec![Vec::new()],
            dist: vec![(0, 0)],
            parent: vec![None],
        };
        *spent += 1;
        let safety = self.limits.semantics == Semantics::Stutter && self.aut.safety;
        let mut heap = BinaryHeap::from([Reverse(((0u32, 0u32), 0u32))]);
        let mut done = vec![false];
        while let Some(Reverse((d, x))) = heap.pop() {
            if done[x as usize] {
                continue;
            }
            done[x as usize] = true;
            let (p, q) = g.states[x as usize];
            if self.is_bad_prefix(q) {
                if safety {
                    return Ok((g, Some(x)));
                }
                continue;
            }
            if let Some(limit) = self.budget.tick(&self.stats, u64::from(d.1)) {
                return Err(Stop::Limit(limit));
            }
            let succ = self
                .all_successors(p, q)
                .map_err(|e| Stop::Probe(self.probe_error_after(e, Vec::new()).to_string()))?;
            let mut out = Vec::with_capacity(succ.len());
            for s in succ {
                let t = (s.proto, s.state);
                let w = self.weight(&s);
                let nd = (d.0 + w.0, d.1 + w.1);
                let y = match g.index.get(&t) {
                    Some(&y) => y,
                    None => {
                        if u64::from(nd.1) > self.limits.max_depth {
                            return Err(Stop::Limit(Limit::Depth(self.limits.max_depth)));
                        }
                        *spent += 1;
                        if let Some(stop) = over(*spent) {
                            return Err(stop);
                        }
                        let y = g.states.len() as u32;
                        g.states.push(t);
                        g.index.insert(t, y);
                        g.out.push(Vec::new());
                        g.dist.push((u32::MAX, u32::MAX));
                        g.parent.push(None);
                        done.push(false);
                        y
                    }
                };
                if nd < g.dist[y as usize] {
                    g.dist[y as usize] = nd;
                    g.parent[y as usize] = Some((x, s));
                    heap.push(Reverse((nd, y)));
                }
                out.push((y, s));
            }
            g.out[x as usize] = out;
        }
        Ok((g, None))
    }

    /// The shortest lasso of the whole graph `g` (see the module docs), or
    /// `None` if it has no violation.
    fn shortest_lasso(
        &mut self,
        g: &Graph,
        spent: &mut u64,
        over: &dyn Fn(u64) -> Option<Stop>,
    ) -> Result<Option<RawLasso>, Stop> {
        let all = self.all_marks;
        let comp = components(&g.out);
        let n_comp = comp.iter().map(|&c| c as usize + 1).max().unwrap_or(0);
        let mut marks = vec![0u32; n_comp];
        let mut inner = vec![false; n_comp];
        for (x, out) in g.out.iter().enumerate() {
            for &(y, s) in out {
                if comp[x] == comp[y as usize] {
                    inner[comp[x] as usize] = true;
                    marks[comp[x] as usize] |= s.acc;
                }
            }
        }
        let target = |x: usize| {
            let c = comp[x] as usize;
            (inner[c] && marks[c] & all == all) || self.is_bad_prefix(g.states[x].1)
        };
        let mut targets: Vec<u32> = (0..g.states.len() as u32)
            .filter(|&x| target(x as usize))
            .collect();
        // Nearest first (fewer stutter steps first among as many actions,
        // then in the order the states were found: the same answer every
        // run): a lasso is replaced only by a strictly shorter one, so of
        // two as long the one with the shorter prefix stays.
        targets.sort_unstable_by_key(|&x| (g.dist[x as usize], x));
        // The shortest lasso so far: its whole length, anchor and cycle.
        let mut best: Option<(Len, u32, Vec<Successor>)> = None;
        for x in targets {
            let d = g.dist[x as usize];
            // A cycle costs nothing at least: no anchor this far can do
            // better.
            if best.as_ref().is_some_and(|b| d >= b.0) {
                break;
            }
            if self.is_bad_prefix(g.states[x as usize].1) {
                best = Some((d, x, Vec::new()));
                continue;
            }
            if let Some(limit) = self.budget.tick(&self.stats, 0) {
                return Err(Stop::Limit(limit));
            }
            let bound = best.as_ref().map(|b| b.0);
            if let Some((len, cycle)) =
                shortest_cycle(g, &comp, x, d, all, bound, spent, over, |s| self.weight(s))?
            {
                best = Some((len, x, cycle));
            }
        }
        Ok(best.map(|(_, x, cycle)| RawLasso {
            prefix: g.path_to(x),
            cycle,
        }))
    }
}

impl Graph {
    /// The transitions of a shortest path from the initial state to `x`.
    fn path_to(&self, mut x: u32) -> Vec<Successor> {
        let mut path = Vec::new();
        while let Some((from, s)) = self.parent[x as usize] {
            path.push(s);
            x = from;
        }
        path.reverse();
        path
    }
}

/// A shortest cycle from `c`, reached at length `from`, back to it inside
/// its component, whose transitions carry every mark of `all`, if the
/// lasso it closes is shorter than `bound`: a shortest-path search over
/// (state, marks seen) pairs, its lengths counted from `from` (so that
/// the comparison with `bound` is of whole lassos). Each pair visited is
/// spent. Returns the whole lasso's length and the cycle.
#[allow(clippy::too_many_arguments)]
fn shortest_cycle(
    g: &Graph,
    comp: &[u32],
    c: u32,
    from: Len,
    all: u32,
    bound: Option<Len>,
    spent: &mut u64,
    over: &dyn Fn(u64) -> Option<Stop>,
    weight: impl Fn(&Successor) -> Len,
) -> Result<Option<(Len, Vec<Successor>)>, Stop> {
    type Pair = (u32, u32);
    let home = comp[c as usize];
    let mut dist: HashMap<Pair, (Len, Option<(Pair, Successor)>)> = HashMap::new();
    dist.insert((c, 0), (from, None));
    *spent += 1;
    let mut heap = BinaryHeap::from([Reverse((from, (c, 0u32)))]);
    let mut best: Option<(Len, Pair, Successor)> = None;
    let bound = |best: &Option<(Len, Pair, Successor)>| best.as_ref().map(|b| b.0).or(bound);
    while let Some(Reverse((d, pair))) = heap.pop() {
        if dist[&pair].0 < d {
            continue;
        }
        if bound(&best).is_some_and(|b| d >= b) {
            break;
        }
        let (x, m) = pair;
        for &(y, s) in &g.out[x as usize] {
            if comp[y as usize] != home {
                continue;
            }
            let w = weight(&s);
            let nd = (d.0 + w.0, d.1 + w.1);
            let nm = m | (s.acc & all);
            if y == c && nm == all {
                if bound(&best).is_none_or(|b| nd < b) {
                    best = Some((nd, pair, s));
                }
                continue;
            }
            let next = (y, nm);
            let known = dist.get(&next).map(|e| e.0);
            if known.is_none() {
                *spent += 1;
                if let Some(stop) = over(*spent) {
                    return Err(stop);
                }
            }
            if known.is_none_or(|k| nd < k) {
                dist.insert(next, (nd, Some((pair, s))));
                heap.push(Reverse((nd, next)));
            }
        }
    }
    Ok(best.map(|(len, mut pair, last)| {
        let mut cycle = vec![last];
        while let Some((prev, s)) = dist[&pair].1 {
            cycle.push(s);
            pair = prev;
        }
        cycle.reverse();
        (len, cycle)
    }))
}

/// The strongly connected component of each state (Tarjan's algorithm,
/// iterative: the graph may be deep).
fn components(out: &[Vec<(u32, Successor)>]) -> Vec<u32> {
    const NONE: u32 = u32::MAX;
    let n = out.len();
    let mut index = vec![NONE; n];
    let mut low = vec![0u32; n];
    let mut on = vec![false; n];
    let mut comp = vec![NONE; n];
    let mut stack: Vec<u32> = Vec::new();
    let mut next = 0u32;
    let mut n_comp = 0u32;
    // (state, next outgoing transition to try)
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
            if let Some(&(w, _)) = out[v as usize].get(*i) {
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
    use crate::ids::{AutState, ProtoId};

    fn edge(to: u32) -> (u32, Successor) {
        (
            to,
            Successor {
                letter: 0,
                proto: ProtoId::new(to as usize),
                state: AutState::new(0),
                acc: 0,
            },
        )
    }

    #[test]
    fn components_are_tarjans() {
        // 0 → 1 ⇄ 2 → 3 → 3, 4 → 0
        let out = vec![
            vec![edge(1)],
            vec![edge(2)],
            vec![edge(1), edge(3)],
            vec![edge(3)],
            vec![edge(0)],
        ];
        let c = components(&out);
        assert_eq!(c[1], c[2]);
        let distinct: hashbrown::HashSet<u32> = [c[0], c[1], c[3], c[4]].into();
        assert_eq!(distinct.len(), 4);
    }
}
