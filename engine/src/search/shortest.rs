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
//! answer); else [`crate::shortest_lasso`] on the graph explored: Tarjan's algorithm for the components, and for the
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

use crate::shortest_lasso::{shortest_lasso, LassoGraph, Len};

use crate::ids::Successor;
use crate::protocol::Protocol;
use crate::report::{Limit, RawLasso};
use crate::Semantics;

use super::{ProductState, Search};

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
    fn weight(&self) -> impl Fn(&Successor) -> Len + use<P> {
        let (end, deadlock) = (self.ex.alphabet.end(), self.ex.alphabet.deadlock());
        move |s| crate::shortest_lasso::step_length(s.letter == end || s.letter == deadlock)
    }

    /// The length of a lasso in the product, as the shortening counts it:
    /// (actions, steps).
    pub(crate) fn product_length(&self, raw: &RawLasso) -> (u64, u64) {
        let a = &self.ex.alphabet;
        raw.product_length(|l| l == a.end() || l == a.deadlock())
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
        let weight = self.weight();
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
                let w = weight(&s);
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
        let weight = self.weight();
        let bad: Vec<bool> = g
            .states
            .iter()
            .map(|&(_, q)| self.is_bad_prefix(q))
            .collect();
        let dead_end = |x: u32| bad[x as usize];
        let lasso_graph = LassoGraph {
            out: &g.out,
            dist: &g.dist,
            dead_end: &dead_end,
            weight: &weight,
            marks: &|s: &Successor| s.acc,
        };
        let before = *spent;
        let mut pairs = 0;
        let (budget, stats) = (&mut self.budget, &self.stats);
        let found = shortest_lasso(
            &lasso_graph,
            self.all_marks,
            |n| {
                pairs = n;
                over(before + n).map_or(Ok(()), Err)
            },
            || {
                budget
                    .tick(stats, 0)
                    .map_or(Ok(()), |l| Err(Stop::Limit(l)))
            },
        )?;
        *spent = before + pairs;
        Ok(found.map(|l| RawLasso {
            prefix: g.path_to(l.anchor),
            cycle: l.cycle,
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
