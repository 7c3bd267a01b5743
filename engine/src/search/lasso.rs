//! Counterexamples from the search's stored states: shortest paths through
//! the visited states, stitched into a short lasso.

use std::collections::VecDeque;

use hashbrown::HashMap;

use crate::alphabet::LetterId;
use crate::error::{lost, probe_error, ProbeError};
use crate::protocol::Protocol;
use crate::report::RawLasso;
use crate::successors::ProtoId;
use crate::Error;

use super::expand::Frame;
use super::visited::DEAD;
use super::Search;

impl<P: Protocol> Search<'_, P> {
    /// A probe error in state `at`, with a shortest trace from `start`.
    pub(super) fn probe_error_at(
        &mut self,
        e: ProbeError,
        start: (ProtoId, u32),
        at: (ProtoId, u32),
    ) -> Error {
        let path = if at == start {
            Some(Vec::new())
        } else {
            // Re-probes only states that were expanded without error.
            self.bfs(start, 1, false, |_, t, _| t == at).ok().flatten()
        };
        let trace = path
            .unwrap_or_default()
            .iter()
            .map(|&(l, _, _, _)| self.ex.alphabet.describe(l))
            .collect();
        probe_error(&self.ex.alphabet, e, trace)
    }

    /// Builds a short lasso once an accepting SCC (rooted at DFS number
    /// `scc_root`) is known: the prefix is a shortest path from the initial
    /// state to the SCC, and the cycle is stitched together from shortest
    /// paths inside the SCC, one per acceptance set still missing, then
    /// back to the entry. (The DFS stack would do as a prefix, but it can be
    /// long and wander far past the step that matters.)
    pub(super) fn lasso(&mut self, stack: &[Frame], scc_root: u32) -> Result<RawLasso, Error> {
        let start = (stack[0].p, stack[0].q);
        let in_scc = |n: u32| n != 0 && n != DEAD && n >= scc_root;
        let prefix: Vec<_> = if in_scc(self.visited.get(self.ex, start.0, start.1)) {
            Vec::new()
        } else {
            self.bfs(start, 1, false, |_, _, n| in_scc(n))
                .map_err(|e| self.probe_error(e, stack))?
                .ok_or_else(|| lost(self.trace(stack)))?
                .into_iter()
                .map(|(l, p, q, _)| (l, p, q))
                .collect()
        };
        let entry = prefix.last().map_or(start, |&(_, p, q)| (p, q));
        let mut cycle = Vec::new();
        let mut missing = self.aut.all_acc;
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
            let seg = seg
                .map_err(|e| self.probe_error(e, stack))?
                // An accepting SCC is strongly connected and has every
                // acceptance mark, unless the object changed its answers.
                .ok_or_else(|| lost(self.trace(stack)))?;
            let &(_, p, q, acc) = seg.last().expect("paths are non-empty");
            missing &= !acc;
            at = (p, q);
            cycle.extend(seg.into_iter().map(|(l, p, q, _)| (l, p, q)));
        }
        Ok(RawLasso { prefix, cycle })
    }

    /// Shortest path from `from` through visited states whose last edge
    /// satisfies `goal(acc, target, target's number)`: through any visited
    /// state, or (`inside`) through the SCC rooted at DFS number `min_num`,
    /// whose states are the live ones numbered from the root on.
    #[allow(clippy::type_complexity)]
    pub(super) fn bfs(
        &mut self,
        from: (ProtoId, u32),
        min_num: u32,
        inside: bool,
        goal: impl Fn(u32, (ProtoId, u32), u32) -> bool,
    ) -> Result<Option<Vec<(LetterId, ProtoId, u32, u32)>>, ProbeError> {
        let mut parent: HashMap<(ProtoId, u32), ((ProtoId, u32), LetterId, u32)> = HashMap::new();
        let mut queue = VecDeque::from([from]);
        while let Some(x) = queue.pop_front() {
            for (letter, p, q, acc) in self.all_successors(x.0, x.1)? {
                let n = self.visited.get(self.ex, p, q);
                if n == 0 || n < min_num || (inside && n == DEAD) {
                    continue;
                }
                if goal(acc, (p, q), n) {
                    let mut path = vec![(letter, p, q, acc)];
                    let mut cur = x;
                    while cur != from {
                        let (prev, l, a) = parent[&cur];
                        path.push((l, cur.0, cur.1, a));
                        cur = prev;
                    }
                    path.reverse();
                    return Ok(Some(path));
                }
                if (p, q) != from && !parent.contains_key(&(p, q)) {
                    parent.insert((p, q), (x, letter, acc));
                    queue.push_back((p, q));
                }
            }
        }
        Ok(None)
    }
}
