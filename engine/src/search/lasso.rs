//! Counterexamples from the search's stored states: shortest paths through
//! the visited states, stitched into a short lasso.

use std::collections::VecDeque;

use hashbrown::{HashMap, HashSet};

use crate::error::{lost, ProbeError};
use crate::ids::{DfsNum, Successor};
use crate::protocol::Protocol;
use crate::report::RawLasso;
use crate::{Error, Limit};

use super::expand::Frame;
use super::{ProductState, Search};

/// What a shortest-path search through the visited states gave.
pub(super) enum Path {
    /// The path, first step first.
    Found(Vec<Successor>),
    /// No visited state satisfies the goal.
    NotFound,
    /// The search's time or memory budget ran out first: building a
    /// counterexample after a huge search re-probes and indexes states
    /// again, and must stop where the search itself would.
    Cut(Limit),
}

impl<P: Protocol> Search<'_, P> {
    /// The counterexample's path from `path`: `Ok(Err(limit))` when the
    /// budget cut it (the check is then inconclusive: a violation whose
    /// run cannot be shown is not reported as one), an error when the
    /// path is missing (the object answered differently the second time).
    pub(super) fn path_or_lost(
        &self,
        path: Path,
        trace: impl FnOnce() -> Vec<String>,
    ) -> Result<Result<Vec<Successor>, Limit>, Error> {
        match path {
            Path::Found(p) => Ok(Ok(p)),
            Path::Cut(limit) => Ok(Err(limit)),
            Path::NotFound => Err(lost(trace())),
        }
    }

    /// A probe error in state `at`, with a shortest trace from `start`.
    pub(super) fn probe_error_at(
        &mut self,
        e: ProbeError,
        start: ProductState,
        at: ProductState,
    ) -> Error {
        let path = if at == start {
            Some(Vec::new())
        } else {
            // Re-probes only states that were expanded without error, but
            // may meet the panicking code again (the determinism check
            // re-walks a state reached twice): that panic was printed once
            // already, so the re-search is quiet.
            let found =
                crate::quiet::quietly(|| self.bfs(start, DfsNum::FIRST, false, |_, t, _| t == at));
            match found {
                Ok(Path::Found(p)) => Some(p),
                _ => None,
            }
        };
        let trace = path
            .unwrap_or_default()
            .iter()
            .map(|s| self.ex.alphabet.describe(s.letter))
            .collect();
        self.probe_error_after(e, trace)
    }

    /// Builds a short lasso once an accepting SCC (rooted at DFS number
    /// `scc_root`) is known: the prefix is a shortest path from the initial
    /// state to the SCC, and the cycle is stitched together from shortest
    /// paths inside the SCC, one per acceptance set still missing, then
    /// back to the entry. (The DFS stack would do as a prefix, but it can be
    /// long and wander far past the step that matters.)
    ///
    /// `Ok(Err(limit))`: the budget ran out while building it.
    pub(super) fn lasso(
        &mut self,
        stack: &[Frame],
        scc_root: DfsNum,
    ) -> Result<Result<RawLasso, Limit>, Error> {
        let start = (stack[0].p, stack[0].q);
        let in_scc = |n: DfsNum| n.is_live() && n >= scc_root;
        let prefix: Vec<Successor> = if in_scc(self.visited.get(self.ex, start.0, start.1)) {
            Vec::new()
        } else {
            let path = self
                .bfs(start, DfsNum::FIRST, false, |_, _, n| in_scc(n))
                .map_err(|e| self.probe_error(e, stack))?;
            match self.path_or_lost(path, || self.trace(stack))? {
                Ok(p) => p,
                Err(limit) => return Ok(Err(limit)),
            }
        };
        let entry = prefix.last().map_or(start, |s| (s.proto, s.state));
        let mut cycle = Vec::new();
        // Every mark, the roles' fairness marks too: the cycle shown is fair.
        let mut missing = self.all_marks;
        let mut at = entry;
        loop {
            let m = missing;
            let seg = if m != 0 {
                self.bfs(at, scc_root, true, |acc, _, _| acc & m != 0)
            } else if at != entry || cycle.is_empty() {
                self.bfs(at, scc_root, true, |_, t, _| t == entry)
            } else {
                break;
            };
            let seg = seg.map_err(|e| self.probe_error(e, stack))?;
            // An accepting SCC is strongly connected and has every
            // acceptance mark, unless the object changed its answers.
            let seg = match self.path_or_lost(seg, || self.trace(stack))? {
                Ok(seg) => seg,
                Err(limit) => return Ok(Err(limit)),
            };
            let last = *seg.last().expect("paths are non-empty");
            missing &= !last.acc;
            at = (last.proto, last.state);
            cycle.extend(seg);
        }
        Ok(Ok(RawLasso { prefix, cycle }))
    }

    /// Shortest path from `from` through visited states whose last edge
    /// satisfies `goal(acc, target, target's number)`: through any visited
    /// state, or (`inside`) through the SCC rooted at DFS number `min_num`,
    /// whose states are the live ones numbered from the root on.
    pub(super) fn bfs(
        &mut self,
        from: ProductState,
        min_num: DfsNum,
        inside: bool,
        goal: impl Fn(u32, ProductState, DfsNum) -> bool,
    ) -> Result<Path, ProbeError> {
        self.bfs_from(&[from], min_num, inside, goal)
            .map(|(path, _)| path)
    }

    /// [`bfs`](Self::bfs) from any of the states `sources` (a share's
    /// frontier): a shortest path from the nearest, which is given with it
    /// (the first source when nothing is found).
    pub(super) fn bfs_from(
        &mut self,
        sources: &[ProductState],
        min_num: DfsNum,
        inside: bool,
        goal: impl Fn(u32, ProductState, DfsNum) -> bool,
    ) -> Result<(Path, ProductState), ProbeError> {
        // Only at the end of a search (a violation, an error): under hash
        // compaction its queue holds objects the store must keep.
        self.ex.store.keep_all();
        let is_source: HashSet<ProductState> = sources.iter().copied().collect();
        // Each state reached: the state it was reached from and how.
        let mut parent: HashMap<ProductState, (ProductState, Successor)> = HashMap::new();
        let mut queue: VecDeque<ProductState> = sources.iter().copied().collect();
        while let Some(x) = queue.pop_front() {
            // The search's own budget (its clock and memory): after a
            // search that used most of it, this walk over the same states
            // must not be what hangs or takes the machine.
            if let Some(limit) = self.budget.tick(&self.stats, 0) {
                return Ok((Path::Cut(limit), sources[0]));
            }
            for s in self.all_successors(x.0, x.1)? {
                let t = (s.proto, s.state);
                let n = self.visited.get(self.ex, t.0, t.1);
                if n == DfsNum::UNSEEN || n < min_num || (inside && n == DfsNum::DEAD) {
                    continue;
                }
                if goal(s.acc, t, n) {
                    let mut path = vec![s];
                    let mut cur = x;
                    while !is_source.contains(&cur) {
                        let (prev, step) = parent[&cur];
                        path.push(step);
                        cur = prev;
                    }
                    path.reverse();
                    return Ok((Path::Found(path), cur));
                }
                if !is_source.contains(&t) && !parent.contains_key(&t) {
                    parent.insert(t, (x, s));
                    queue.push_back(t);
                }
            }
        }
        Ok((Path::NotFound, sources[0]))
    }
}
