//! Couvreur's SCC-based emptiness check (see the module above): the
//! depth-first search for an accepting cycle of the product.

use hashbrown::HashSet;

use crate::ids::{AutState, DfsNum, ProtoId, Successor};
use crate::protocol::Protocol;
use crate::report::{Limit, RawLasso};
use crate::Error;

use super::ample::Proviso;
use super::expand::Frame;
use super::{ProductState, Search, SearchOutcome};

/// The root of a (partial) SCC on the stack of roots.
#[derive(Clone, Copy)]
struct Root {
    num: DfsNum,
    /// Acceptance marks seen inside the SCC.
    acc: u32,
    /// Marks of the tree edge that entered this root.
    in_acc: u32,
}

impl<P: Protocol> Search<'_, P> {
    /// The reduced search pushed a frame for `(p, q)`: marks it as on the
    /// stack and computes its successors under the stack proviso, kept in
    /// reverse so that the next one is popped.
    fn push_reduced(
        &mut self,
        p: ProtoId,
        q: AutState,
        stack: &[Frame],
        on_stack: &mut HashSet<ProductState>,
        lists: &mut Vec<Vec<Successor>>,
    ) -> Result<(), Error> {
        on_stack.insert((p, q));
        match self.reduced_successors(p, q, Proviso::OffStack(on_stack)) {
            Ok(mut list) => {
                // Hash compaction: the list holds its targets' objects
                // until they are taken from it.
                list.iter().for_each(|s| self.ex.store.pin(s.proto));
                list.reverse();
                lists.push(list);
                Ok(())
            }
            Err(e) => {
                self.finish_progress();
                Err(self.probe_error(e, stack))
            }
        }
    }

    /// The depth-first search for an accepting cycle, for automata that
    /// [`reachability`](Self::reachability) does not decide.
    pub(super) fn couvreur(&mut self, initial: ProtoId) -> Result<SearchOutcome, Error> {
        self.couvreur_from(&[(initial, self.aut.initial)])
    }

    /// [`couvreur`](Self::couvreur) from each of `seeds` in turn (a
    /// share's frontier, [`run_share`](Self::run_share)): one depth-first
    /// tree a seed not reached by an earlier one, all sharing the visited
    /// states (a finished tree's states are dead: no accepting cycle goes
    /// through them). A violation's prefix starts at the root of its tree,
    /// which [`violation_root`](Self::violation_root) names.
    pub(super) fn couvreur_from(&mut self, seeds: &[ProductState]) -> Result<SearchOutcome, Error> {
        let all = self.all_marks;
        let mut stack: Vec<Frame> = Vec::new();
        let mut roots: Vec<Root> = Vec::new();
        let mut live: Vec<ProductState> = Vec::new();
        let mut count: u32 = 0;
        let mut truncated = false;
        let mut seeds = seeds.iter().copied();
        // The reduced search computes each frame's successors when the frame
        // is pushed (the stack proviso is decided then), keeps them here, one
        // list per frame, and knows which states are on the stack.
        let mut on_stack: HashSet<ProductState> = HashSet::new();
        let mut lists: Vec<Vec<Successor>> = Vec::new();
        let max_states = self.limits.max_states.min(u32::MAX as u64 - 2);
        // The parallel liveness check first tries a search bounded to
        // `state_cap` states (see `parallel_liveness`).
        let cap = max_states.min(self.state_cap);
        // A successor taken from a reduced list, whose pin is released
        // once the search has pushed it (or not).
        let mut taken: Option<ProtoId> = None;
        loop {
            let Some(mut top) = stack.last().copied() else {
                // The last tree is done: the next seed that no tree reached.
                let next = seeds.find(|&(p, q)| self.visited.get(self.ex, p, q) == DfsNum::UNSEEN);
                let Some((p, q)) = next else { break };
                if count > 0 && count as u64 >= max_states {
                    self.finish_progress();
                    return Ok(SearchOutcome::Inconclusive(Limit::States(
                        self.limits.max_states,
                    )));
                }
                count += 1;
                self.visited.set(self.ex, p, q, DfsNum::nth(count));
                roots.push(Root {
                    num: DfsNum::nth(count),
                    acc: 0,
                    in_acc: 0,
                });
                live.push((p, q));
                // Hash compaction: every frame holds its object (a no-op
                // otherwise), released when the frame is popped.
                self.ex.store.pin(p);
                stack.push(Frame::new(p, q));
                self.violation_root = Some((p, q));
                self.stats.product_states = count as u64;
                if self.bad_prefix(q) {
                    self.finish_progress();
                    return Ok(SearchOutcome::Violated(RawLasso {
                        prefix: Vec::new(),
                        cycle: Vec::new(),
                    }));
                }
                if self.opts.reduce {
                    self.push_reduced(p, q, &stack, &mut on_stack, &mut lists)?;
                }
                continue;
            };
            if let Some(p) = taken.take() {
                self.ex.store.unpin(p);
            }
            // Hash compaction: the objects the last step made and did not
            // pin are dropped.
            self.ex.store.sweep();
            // After the emptiness test: a search that has just finished
            // gives its verdict, not a limit.
            if let Some(limit) = self.budget.tick(&self.stats, stack.len() as u64) {
                self.finish_progress();
                return Ok(SearchOutcome::Inconclusive(limit));
            }
            let depth = stack.len();
            let next = if self.opts.reduce {
                let s = lists[depth - 1].pop();
                // The letter that leads on from this frame: the trace of
                // errors and the stack's path read it.
                if let Some(s) = s {
                    top.letter = s.letter;
                    taken = Some(s.proto);
                }
                Ok(s)
            } else {
                self.next(&mut top)
            };
            stack[depth - 1] = top;
            match next {
                Err(e) => {
                    self.finish_progress();
                    return Err(self.probe_error(e, &stack));
                }
                Ok(Some(Successor {
                    proto: p2,
                    state: q2,
                    acc,
                    ..
                })) => {
                    self.stats.transitions += 1;
                    let n = self.visited.get(self.ex, p2, q2);
                    if n == DfsNum::UNSEEN {
                        // A share's search of the levels above its split
                        // stays among them.
                        if self.within.as_ref().is_some_and(|w| !w.contains(&(p2, q2))) {
                            continue;
                        }
                        if depth as u64 > self.limits.max_depth {
                            truncated = true;
                            continue;
                        }
                        if count as u64 >= cap {
                            self.finish_progress();
                            self.capped = cap < max_states;
                            return Ok(SearchOutcome::Inconclusive(Limit::States(
                                self.limits.max_states,
                            )));
                        }
                        count += 1;
                        self.stats.product_states = count as u64;
                        self.visited.set(self.ex, p2, q2, DfsNum::nth(count));
                        roots.push(Root {
                            num: DfsNum::nth(count),
                            acc: 0,
                            in_acc: acc,
                        });
                        live.push((p2, q2));
                        self.ex.store.pin(p2);
                        stack.push(Frame::new(p2, q2));
                        if self.bad_prefix(q2) {
                            self.finish_progress();
                            let start = (stack[0].p, stack[0].q);
                            let path = self
                                .bfs(start, DfsNum::FIRST, false, |_, t, _| t == (p2, q2))
                                .map_err(|e| self.probe_error(e, &stack))?;
                            let prefix = match self.path_or_lost(path, || self.trace(&stack))? {
                                Ok(p) => p,
                                Err(limit) => return Ok(SearchOutcome::Inconclusive(limit)),
                            };
                            return Ok(SearchOutcome::Violated(RawLasso {
                                prefix,
                                cycle: Vec::new(),
                            }));
                        }
                        if self.opts.reduce {
                            self.push_reduced(p2, q2, &stack, &mut on_stack, &mut lists)?;
                        }
                        self.stats.max_depth = self.stats.max_depth.max(stack.len() as u64 - 1);
                    } else if n != DfsNum::DEAD {
                        // A cycle closes: merge every SCC above the target's.
                        let mut a = acc;
                        while roots.last().is_some_and(|r| r.num > n) {
                            let r = roots.pop().expect("checked non-empty");
                            a |= r.acc | r.in_acc;
                        }
                        let root = roots.last_mut().expect("the target's root is on the stack");
                        root.acc |= a;
                        if root.acc & all == all {
                            let scc_root = root.num;
                            self.finish_progress();
                            return Ok(match self.lasso(&stack, scc_root)? {
                                Ok(lasso) => SearchOutcome::Violated(lasso),
                                Err(limit) => SearchOutcome::Inconclusive(limit),
                            });
                        }
                    }
                }
                Ok(None) => {
                    stack.pop();
                    self.ex.store.unpin(top.p);
                    if self.opts.reduce {
                        on_stack.remove(&(top.p, top.q));
                        lists.pop();
                    }
                    let n = self.visited.get(self.ex, top.p, top.q);
                    if roots.last().is_some_and(|r| r.num == n) {
                        roots.pop();
                        // The SCC is complete and has no accepting cycle.
                        while let Some((p, q)) = live.pop() {
                            self.visited.set(self.ex, p, q, DfsNum::DEAD);
                            if (p, q) == (top.p, top.q) {
                                break;
                            }
                        }
                    }
                }
            }
        }
        self.finish_progress();
        if truncated {
            return Ok(SearchOutcome::Inconclusive(Limit::Depth(
                self.limits.max_depth,
            )));
        }
        Ok(SearchOutcome::Holds)
    }
}
