//! [`Dfs`]: the depth-first search over the choices of each scheduling
//! point, with an optional preemption bound, sleep sets and DPOR's
//! backtrack sets.

use std::sync::Arc;

use engine::RoleId;

use super::chooser::{Chooser, Decision};
use super::dpor::{group_of, Backtrack, HbCache};
use super::found::describe;
use super::step::Alt;

/// A node of the depth-first search: the enabled choices at one
/// scheduling point and the one being explored.
pub(crate) struct Node {
    alts: Vec<Alt>,
    taken: usize,
    prev: Option<RoleId>,
    /// Preemptions on the path before this node.
    preemptions: usize,
    /// `sleep[i]`: `alts[i]` need not be explored here (sleep sets): an
    /// equivalent schedule was explored from an ancestor.
    sleep: Vec<bool>,
    /// `done[i]`: the subtree of `alts[i]` was explored.
    done: Vec<bool>,
    /// `cut[i]`: an execution in the subtree of `alts[i]` was stopped
    /// before it was maximal (a violation or a panic stops every role at
    /// once), so that subtree does not stand for every order of the steps
    /// after `alts[i]`: it puts nothing to sleep.
    cut: Vec<bool>,
    /// `backtrack[i]`: `alts[i]` is to be explored here (all of them
    /// without DPOR; with it, the first and those that races ask for).
    backtrack: Vec<bool>,
    /// `indep[i]`: `alts[i]` commutes here with the choice taken, for the
    /// choices asleep or explored (what the child's sleep set is made
    /// of); probed when the choice is taken, on the object as it is then
    /// (only with sleep sets on; empty otherwise). Probing every pair
    /// when the node is made cost two object clones per pair and step,
    /// for pairs that a first descent never reads.
    indep: Vec<bool>,
    /// The choice `indep` was probed for (explored and asleep choices
    /// only change when the choice taken does).
    probed: Option<usize>,
}

impl Node {
    /// 1 if taking `alts[i]` preempts the role that ran last (it could go
    /// on, and another is chosen).
    fn cost(&self, i: usize) -> usize {
        match self.prev {
            Some(p) if self.alts.iter().any(|a| a.role == p) && self.alts[i].role != p => 1,
            _ => 0,
        }
    }

    /// Fills `indep` for the choice taken now (see the field).
    fn probe(&mut self, independent: &dyn Fn(usize, usize) -> bool) {
        if self.probed == Some(self.taken) {
            return;
        }
        self.probed = Some(self.taken);
        let n = self.alts.len();
        self.indep.clear();
        self.indep.resize(n, false);
        for x in 0..n {
            if x != self.taken && (self.sleep[x] || self.done[x]) {
                self.indep[x] = independent(x, self.taken);
            }
        }
    }

    fn allowed(&self, i: usize, bound: Option<usize>) -> bool {
        bound.is_none_or(|b| self.preemptions + self.cost(i) <= b)
    }

    /// The next choice to explore: one to backtrack to, not explored,
    /// not asleep, within the bound. (DPOR may ask for a choice before
    /// the one taken, so the search is not only forward.)
    fn next(&self, bound: Option<usize>) -> Option<usize> {
        (0..self.alts.len()).find(|&i| {
            self.backtrack[i] && !self.done[i] && !self.sleep[i] && self.allowed(i, bound)
        })
    }
}

/// Depth-first search over the choices, with an optional preemption
/// bound and optional sleep sets.
pub(crate) struct Dfs {
    pub(crate) stack: Vec<Node>,
    pub(crate) depth: usize,
    pub(crate) bound: Option<usize>,
    pub(crate) sleep_sets: bool,
    /// DPOR: explore only the choices that races ask for, marked the
    /// way of this flavour.
    pub(crate) dpor: bool,
    pub(crate) pruned: usize,
    /// Owned, not borrowed: the search moves into each execution, whose
    /// decisions are made on the role threads (see `scheduler.rs`).
    pub(crate) names: Arc<[String]>,
    /// DPOR's happens-before rows of the last execution (see [`HbCache`]).
    pub(crate) hb: HbCache,
}

impl Dfs {
    /// Notes that the execution just run stopped before it was maximal
    /// (see [`Node::cut`]): each choice on its path leads to a subtree
    /// that sleeps nothing. Why: the roles stopped where they were, and an
    /// order of independent steps that the sleep sets would call
    /// equivalent can stop elsewhere, with another role's operation found
    /// to be a violation (the plain search finds both).
    pub(crate) fn cut_short(&mut self) {
        let depth = self.depth.min(self.stack.len());
        for node in &mut self.stack[..depth] {
            node.cut[node.taken] = true;
        }
    }

    /// Moves to the next schedule; `false` when every one was run.
    pub(crate) fn backtrack(&mut self) -> bool {
        self.stack.truncate(self.depth);
        while let Some(top) = self.stack.last_mut() {
            top.done[top.taken] = true;
            if let Some(next) = top.next(self.bound) {
                top.taken = next;
                // The steps before this node are run again as they were.
                self.hb.keep = self.stack.len() - 1;
                return true;
            }
            self.stack.pop();
        }
        false
    }
}

impl Chooser for Dfs {
    fn choose(
        &mut self,
        _step: usize,
        alts: &[Alt],
        prev: Option<RoleId>,
        independent: &dyn Fn(usize, usize) -> bool,
    ) -> Decision {
        let d = self.depth;
        if let Some(node) = self.stack.get_mut(d) {
            self.depth += 1;
            if node.alts.as_slice() != alts {
                return Decision::Diverged {
                    expected: format!(
                        "the enabled choices {} (as in an earlier execution)",
                        describe(&self.names, &node.alts)
                    ),
                    found: describe(&self.names, alts),
                };
            }
            if self.sleep_sets {
                node.probe(independent);
            }
            return Decision::Take(node.taken);
        }
        let n = alts.len();
        let parent = d.checked_sub(1).and_then(|p| self.stack.get(p));
        let preemptions = parent.map_or(0, |p| p.preemptions + p.cost(p.taken));
        // Sleep sets (Godefroid): what slept at the parent or was explored
        // there before the step taken, and commutes with that step, sleeps
        // here: its schedules are equivalent to ones explored already.
        let mut sleep = vec![false; n];
        if let Some(p) = parent.filter(|_| self.sleep_sets) {
            let m = p.alts.len();
            for x in 0..m {
                if x != p.taken && (p.sleep[x] || (p.done[x] && !p.cut[x])) && p.indep[x] {
                    if let Some(i) = alts.iter().position(|a| *a == p.alts[x]) {
                        sleep[i] = true;
                    }
                }
            }
        }
        let mut node = Node {
            alts: alts.to_vec(),
            taken: 0,
            prev,
            preemptions,
            sleep,
            done: vec![false; n],
            cut: vec![false; n],
            backtrack: vec![true; n],
            indep: Vec::new(),
            probed: None,
        };
        let Some(first) = node.next(self.bound) else {
            if node.sleep.iter().all(|&s| s) {
                return Decision::Redundant;
            }
            unreachable!("the first choice never preempts, so a bound allows it");
        };
        self.pruned += (0..n)
            .filter(|&i| !node.sleep[i] && !node.allowed(i, self.bound))
            .count();
        if self.dpor {
            // The first choice, and the other choices of its role: those
            // are the role's own alternatives (a `choose` value, the sender
            // of a receive from anyone), not races with other roles, so no
            // race would ask for them.
            let role = alts[first].role;
            for (i, a) in alts.iter().enumerate() {
                node.backtrack[i] = a.role == role;
            }
        }
        node.taken = first;
        if self.sleep_sets {
            node.probe(independent);
        }
        self.stack.push(node);
        self.depth += 1;
        Decision::Take(first)
    }

    fn wants_races(&self) -> bool {
        self.dpor
    }

    fn hb_cache(&mut self) -> Option<&mut HbCache> {
        Some(&mut self.hb)
    }

    fn add_backtracks(&mut self, backtracks: Vec<Backtrack>) {
        for bt in backtracks {
            let Some(node) = self.stack.get(bt.point) else {
                continue;
            };
            // An initial marked already covers the race, unless the bound
            // keeps it from running here (then the others must be tried).
            let bound = self.bound;
            let present = bt.any_of
                && bt
                    .groups
                    .iter()
                    .flatten()
                    .any(|&i| node.backtrack[i] && node.allowed(i, bound));
            if !present {
                let groups = if bt.any_of {
                    &bt.groups[..1]
                } else {
                    &bt.groups[..]
                };
                for group in groups {
                    self.mark(bt.point, group);
                }
            }
            if self.bound.is_some() {
                self.conservative(bt.point, bt.racer);
            }
        }
    }
}

impl Dfs {
    /// Marks the choices `group` at scheduling point `k`. Under a
    /// preemption bound, a group none of whose choices the bound allows
    /// there marks every choice instead (as Déjà Fu does): the race may
    /// still be reversed by another role's step, within the bound.
    fn mark(&mut self, k: usize, group: &[usize]) {
        let bound = self.bound;
        let node = &mut self.stack[k];
        if bound.is_some() && !group.iter().any(|&i| node.allowed(i, bound)) {
            node.backtrack.iter_mut().for_each(|b| *b = true);
        } else {
            for &i in group {
                node.backtrack[i] = true;
            }
        }
    }

    /// Bounded DPOR (after Coons, Musuvathi and McKinley, "Bounded
    /// partial-order reduction", OOPSLA'13, and Déjà Fu): besides the
    /// race's own point `k`, also try other choices earlier, where the
    /// bound may allow what it forbids at `k`. Two orders of the same
    /// steps can cost different numbers of preemptions (which role waits
    /// where, and so which switch is free, depends on the order), so the
    /// order that DPOR runs for a reversal may exceed the bound where
    /// another order of it does not:
    ///
    /// - At each context switch before `k` (and at the first point),
    ///   every choice: any choice there costs what the switch cost. Déjà
    ///   Fu marks only `racer`, and only at the last switch; the bounded
    ///   soak and `tests/it/reduction_bounded.rs` showed that neither is
    ///   enough (a role blocked at the switch had to run before the roles
    ///   that ran since; the other role of the race run first may wait
    ///   where the racer would have run on).
    /// - At each point since `racer`'s own last step where it is enabled,
    ///   `racer`: run there, its step may leave it blocked, so that the
    ///   switch back is free, where run at `k` it could go on and every
    ///   later reversal costs one more preemption.
    ///
    /// Checked against bounded plain search on thousands of random
    /// programs and specifications; no proof covers this combination.
    fn conservative(&mut self, k: usize, racer: RoleId) {
        let role_at = |stack: &[Node], j: usize| stack[j].alts[stack[j].taken].role;
        let k = k.min(self.stack.len());
        // Before its own last step, the racer would run that step instead.
        let after = (0..k)
            .rev()
            .find(|&j| role_at(&self.stack, j) == racer)
            .map_or(0, |j| j + 1);
        for j in 0..k {
            let alts = &self.stack[j].alts;
            let group: Vec<usize> =
                if j == 0 || role_at(&self.stack, j) != role_at(&self.stack, j - 1) {
                    (0..alts.len()).collect()
                } else if j >= after {
                    group_of(alts, racer)
                } else {
                    continue;
                };
            if !group.is_empty() {
                self.mark(j, &group);
            }
        }
    }
}
