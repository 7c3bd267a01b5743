//! The breadth-first reachability search for safety properties.

use crate::ids::{DfsNum, ProtoId};
use crate::protocol::Protocol;
use crate::report::{Limit, RawLasso};
use crate::Error;

use super::ample::{level_number, Proviso};
use super::{ProductState, Search, SearchOutcome};

impl<P: Protocol> Search<'_, P> {
    /// The search for automata whose accepting cycles all run through
    /// universal states ([`Prepared::safety`](crate::product::Prepared::safety); every `G !bad` is one):
    /// under the stutter convention the property is violated exactly when
    /// a universal state is reachable, so a breadth-first reachability
    /// search decides it, without the SCC bookkeeping. It also visits the
    /// states in an order with far better memory locality than the
    /// depth-first search (a state reached again was mostly stored shortly
    /// before), and its first violation is a shortest one. Depth is the
    /// breadth-first level: the distance from the initial state.
    pub(super) fn reachability(&mut self, initial: ProtoId) -> Result<SearchOutcome, Error> {
        self.reachability_from(&[(initial, self.aut.initial)], 0)
    }

    /// [`reachability`](Self::reachability) from the states `seeds`, all
    /// at breadth-first level `depth` (a share's frontier,
    /// [`run_share`](Self::run_share); the initial state at level 0
    /// otherwise). A violation's prefix starts at the seed it was reached
    /// from, which [`violation_root`](Self::violation_root) names.
    pub(super) fn reachability_from(
        &mut self,
        seeds: &[ProductState],
        mut depth: u64,
    ) -> Result<SearchOutcome, Error> {
        let start = seeds[0];
        for &(p, q) in seeds {
            self.visited.set(self.ex, p, q, DfsNum::FIRST);
            if self.bad_prefix(q) {
                self.stats.product_states = 1;
                self.violation_root = Some((p, q));
                self.finish_progress();
                return Ok(SearchOutcome::Violated(RawLasso {
                    prefix: Vec::new(),
                    cycle: Vec::new(),
                }));
            }
        }
        self.stats.product_states = seeds.len() as u64;
        if let Some(c) = &mut self.protocol_count {
            *c = seeds.len() as u64;
        }
        let max_states = self.limits.max_states.min(u32::MAX as u64 - 2);
        let mut count = seeds.len() as u64;
        let mut truncated = false;
        let mut level: Vec<ProductState> = seeds.to_vec();
        let mut next_level: Vec<ProductState> = Vec::new();
        let mut succ: Vec<ProductState> = Vec::new();
        // Hash compaction and collapse: each frontier entry holds its
        // object (a no-op otherwise), released once expanded. Without the
        // reduction the objects wait in `objs`, in step with `level`, and
        // are lent to the store while their state is expanded
        // (`Store::take_made`): a state then costs no insertion, lookups
        // and removal in the store's map of resident objects, which `pin`
        // needs, and under hash compaction with a set of fingerprints of
        // the search's own no id either (the frontier's objects were all
        // the store held). The reduced search pins (its ample sets hold
        // states of their own), and so does hash compaction with the
        // store's numbers. A share's search from its frontier (several
        // seeds) pins too.
        let taken = (seeds.len() == 1 && !self.opts.reduce && self.ex.store.lends_frontier())
            .then(|| self.ex.store.take_made(start.0))
            .flatten();
        let hold = taken.is_some();
        let mut objs: Vec<P> = taken.into_iter().collect();
        let mut next_objs: Vec<P> = Vec::new();
        // Frontier entries that share an id (one object with several
        // automaton states, or a state that is its own successor): how many
        // more than one name it. The store frees a frontier state's id
        // for reuse only after the last entry naming it is expanded (see
        // `Store::free`). An id absent here is named once.
        let mut shared: hashbrown::HashMap<ProtoId, u32> = hashbrown::HashMap::new();
        if !hold {
            for &(p, _) in seeds {
                self.ex.store.pin(p);
            }
        }
        while !level.is_empty() {
            let mut held = objs.drain(..);
            for &(p, q) in &level {
                if hold {
                    let o = held.next().expect("one object per frontier entry");
                    self.ex.store.lend(p, o);
                }
                if let Some(limit) = self.budget.tick(&self.stats, depth) {
                    self.finish_progress();
                    return Ok(SearchOutcome::Inconclusive(limit));
                }
                succ.clear();
                let expanded = if self.opts.reduce {
                    self.reduced_successors(p, q, Proviso::NextLevel(depth))
                        .map(|s| {
                            succ.extend(s.iter().map(|s| (s.proto, s.state)));
                            s.len() as u64
                        })
                } else {
                    self.expand(p, q, &mut succ)
                };
                match expanded {
                    Ok(n) => self.stats.transitions += n,
                    Err(e) => {
                        self.finish_progress();
                        // The trace's rebuild meets the state under the
                        // id its object gets now (as for a violation,
                        // below): under hash compaction the store let
                        // the frontier's id go when the search took it.
                        let at = (self.ex.store.id_now(p), q);
                        return Err(self.probe_error_at(e, start, at));
                    }
                }
                if self.ex.store.ids_exhausted() {
                    // As many states held as ids exist: the state limit's
                    // ceiling, reached.
                    self.finish_progress();
                    return Ok(SearchOutcome::Inconclusive(Limit::States(count)));
                }
                let first_new = next_level.len();
                for &(p2, q2) in &succ {
                    if self.visited.get(self.ex, p2, q2) != DfsNum::UNSEEN {
                        continue;
                    }
                    if self.without.as_ref().is_some_and(|w| w.contains(&(p2, q2))) {
                        continue;
                    }
                    match self.admit(depth, &mut count, max_states, &mut truncated) {
                        Ok(true) => {}
                        Ok(false) => continue,
                        Err(limit) => return Ok(SearchOutcome::Inconclusive(limit)),
                    }
                    // The reduced search's proviso needs the levels.
                    let n = if self.opts.reduce {
                        level_number(depth + 1)
                    } else {
                        DfsNum::FIRST
                    };
                    self.visited.set(self.ex, p2, q2, n);
                    if self.protocol_count.is_some() {
                        self.count_protocol_state(p2, q2);
                    }
                    if self.bad_prefix(q2) {
                        self.finish_progress();
                        // The rebuild interns the states it meets. Under
                        // hash compaction a state the frontier held has
                        // lost its id by now (the store knows only the
                        // states it holds): the one being expanded, when
                        // its stutter step is the violation. The rebuild
                        // meets it under the id its object gets now.
                        let goal = (self.ex.store.id_now(p2), q2);
                        let (path, root) = self
                            .bfs_from(seeds, DfsNum::FIRST, false, |_, t, _| t == goal)
                            .map_err(|e| self.probe_error_after(e, Vec::new()))?;
                        self.violation_root = Some(root);
                        let prefix = match self.path_or_lost(path, Vec::new)? {
                            Ok(p) => p,
                            Err(limit) => return Ok(SearchOutcome::Inconclusive(limit)),
                        };
                        return Ok(SearchOutcome::Violated(RawLasso {
                            prefix,
                            cycle: Vec::new(),
                        }));
                    }
                    if hold {
                        let o = match self.ex.store.take_made(p2) {
                            // The state being expanded, its own successor:
                            // its id is named by this entry too.
                            Some(o) if p2 == p => {
                                *shared.entry(p2).or_insert(0) += 1;
                                o
                            }
                            Some(o) => o,
                            // Entered already by this expansion, with
                            // another automaton state.
                            None => {
                                let i = next_level[first_new..]
                                    .iter()
                                    .position(|&(p, _)| p == p2)
                                    .expect("a successor was just made or entered");
                                *shared.entry(p2).or_insert(0) += 1;
                                next_objs[first_new + i].clone()
                            }
                        };
                        next_objs.push(o);
                    } else {
                        self.ex.store.pin(p2);
                    }
                    next_level.push((p2, q2));
                }
                if hold {
                    // Expanded: its object is a spare for the successors
                    // of the states after it.
                    if let Some(o) = self.ex.store.take_lent() {
                        self.ex.store.recycle(o);
                    }
                    match shared.get_mut(&p) {
                        Some(n) if *n > 1 => *n -= 1,
                        Some(_) => {
                            shared.remove(&p);
                        }
                        None => self.ex.store.free(p),
                    }
                } else {
                    self.ex.store.unpin(p);
                }
                self.ex.store.sweep();
            }
            drop(held);
            level.clear();
            std::mem::swap(&mut level, &mut next_level);
            std::mem::swap(&mut objs, &mut next_objs);
            depth += 1;
        }
        self.finish_progress();
        if truncated {
            return Ok(SearchOutcome::Inconclusive(Limit::Depth(
                self.limits.max_depth,
            )));
        }
        Ok(SearchOutcome::Holds)
    }

    /// Counts `p` as a protocol state met for the first time unless it was
    /// stored with another automaton state (the fingerprint layouts keep
    /// no list of protocol states): as approximate as the set itself.
    fn count_protocol_state(&mut self, p: ProtoId, q: crate::ids::AutState) {
        let k = self.aut.num_states();
        let before = (0..k)
            .map(crate::ids::AutState::new)
            .any(|r| r != q && self.visited.get(self.ex, p, r) != DfsNum::UNSEEN);
        if let (false, Some(c)) = (before, &mut self.protocol_count) {
            *c += 1;
        }
    }
}
