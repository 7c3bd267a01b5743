//! The breadth-first reachability search for safety properties.

use crate::ids::{DfsNum, ProtoId};
use crate::protocol::Protocol;
use crate::report::{Limit, RawLasso};
use crate::Error;

use super::ample::{level_number, Proviso};
use super::frontier::{Held, Level};
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
        // Hash compaction and collapse: each frontier entry holds its
        // object (a no-op otherwise), released once expanded. Without the
        // reduction the objects wait in the level (`Level`), and are lent
        // to the store while their state is expanded (`Store::take_made`):
        // a state then costs no insertion, lookups and removal in the
        // store's map of resident objects, which `pin` needs, and under
        // hash compaction with a set of fingerprints of the search's own
        // no id either (the frontier's objects were all the store held).
        // The reduced search pins (its ample sets hold states of their
        // own), and so does hash compaction with the store's numbers. A
        // share's search from its frontier (several seeds) pins too.
        let taken = (seeds.len() == 1 && !self.opts.reduce && self.ex.store.lends_frontier())
            .then(|| self.ex.store.take_made(start.0))
            .flatten();
        let hold = taken.is_some();
        // Under hash compaction, an object that prefers bytes waits as
        // the bytes it writes, decoded with the initial object when its
        // state is expanded: the frontier was most of what such a search
        // held beside the fingerprints.
        let decoder = taken
            .as_ref()
            .filter(|_| self.ex.store.frontier_as_bytes())
            .cloned();
        let verify = decoder.is_some() && self.ex.determinism();
        let mut succ: Vec<ProductState> = Vec::new();
        let mut level: Level<P> = Level::new();
        let mut next_level: Level<P> = Level::new();
        // The states this expansion entered, with their objects: entered
        // in the next level once it is done.
        let mut made: Vec<(ProductState, P)> = Vec::new();
        match taken {
            Some(o) => {
                level.push_held(start, o, false);
            }
            None => seeds.iter().for_each(|&s| level.push(s)),
        }
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
            let decode = |b: &[u8]| decoder.as_ref().and_then(|d| d.decode(b));
            while let Some(((p, q), held)) = level.pop(hold, decode) {
                match held {
                    Held::None => {}
                    Held::Object(o) => self.ex.store.lend(p, o),
                    Held::Undecodable(bytes) => {
                        self.finish_progress();
                        return Err(Error::Contract {
                            action: "encode/decode".to_string(),
                            detail: format!(
                                "decode gave no object for the bytes {bytes:?} that encode \
                                 wrote (Protocol::encode and Protocol::decode)"
                            ),
                            trace: Vec::new(),
                        });
                    }
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
                                let i = made
                                    .iter()
                                    .position(|&((p, _), _)| p == p2)
                                    .expect("a successor was just made or entered");
                                *shared.entry(p2).or_insert(0) += 1;
                                made[i].1.clone()
                            }
                        };
                        made.push(((p2, q2), o));
                    } else {
                        self.ex.store.pin(p2);
                        next_level.push((p2, q2));
                    }
                }
                for (s, o) in made.drain(..) {
                    if verify {
                        self.verify_bytes(&o, decoder.as_ref());
                    }
                    if let Some(o) = next_level.push_held(s, o, decoder.is_some()) {
                        self.ex.store.recycle(o);
                    }
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
            std::mem::swap(&mut level, &mut next_level);
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

    /// Under the determinism check, whether `o` comes back from the bytes
    /// it writes, as the frontier keeps it: if not, the store reports the
    /// broken pair (`Store::codec_error`) and the check gives no verdict.
    fn verify_bytes(&mut self, o: &P, decoder: Option<&P>) {
        let mut bytes = Vec::new();
        if o.encode(&mut bytes) && decoder.and_then(|d| d.decode(&bytes)).as_ref() != Some(o) {
            self.ex.store.note_codec_error(format!(
                "decode(encode(x)) did not give back x for the state whose bytes are {bytes:?}"
            ));
        }
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
