//! The counterexample of a parallel search: the stored states keep no
//! parent link, so the path to the event's state is found again by a
//! breadth-first search from the initial state through the stored states,
//! as the one-thread search rebuilds its own.

use std::collections::VecDeque;

use hashbrown::HashMap;

use crate::alphabet::LetterId;
use crate::error::ProbeError;
use crate::ids::{AutState, Successor};
use crate::protocol::Protocol;
use crate::successors::{Store, Successors};
use crate::Semantics;

use super::*;
use crate::search::lasso::Path;
use crate::search::sharded::{Sharded, StateId};
use crate::search::Search;

impl<P: Protocol> Search<'_, P> {
    /// A stored state's object (decoded with `template` in a store of
    /// bytes) and automaton state.
    pub(super) fn stored(
        store: &Sharded<P>,
        template: Option<&P>,
        id: StateId,
        buf: &mut Vec<u8>,
    ) -> Option<(P, AutState)> {
        match template {
            Some(t) => {
                let q = store.get_bytes(id, buf);
                decode(t, buf).map(|p| (p, q))
            }
            None => Some(store.get(id)),
        }
    }

    /// A shortest path from the initial state `root` to `target` through
    /// the stored states, found as the one-thread search finds its own
    /// ([`bfs`](Self::bfs)): breadth-first, successors in the search's
    /// order, the first edge that reaches a state kept. The levels up to
    /// the target's are stored whole, whatever the thread count, so the
    /// path is the one-thread search's. Its objects are interned in the
    /// successor generator (where the counterexample is read from). On the calling
    /// thread, within the search's budget.
    pub(super) fn path_to(
        &mut self,
        store: &Sharded<P>,
        template: Option<&P>,
        root: StateId,
        target: StateId,
    ) -> Result<Path, ProbeError> {
        // The path's objects are interned below; under the collapse store
        // they must stay resident for the counterexample to be read.
        self.ex.store.keep_all();
        let stutter = self.limits.semantics == Semantics::Stutter;
        let mut ex = Successors::new(
            self.ex.alphabet.clone(),
            Store::whole(),
            WORKER_CACHE,
            false,
        );
        // Each state reached: the state it was reached from, how, and the
        // acceptance marks of the edge.
        let mut parent: HashMap<StateId, (StateId, LetterId, u32)> = HashMap::new();
        let mut queue = VecDeque::from([root]);
        let (mut succs, mut buf) = (Vec::new(), Vec::new());
        let mut found = (target == root).then_some(root);
        'search: while let Some(x) = queue.pop_front() {
            if found.is_some() {
                break;
            }
            if let Some(limit) = self.budget.tick(&self.stats, 0) {
                return Ok(Path::Cut(limit));
            }
            let Some((obj, q)) = Self::stored(store, template, x, &mut buf) else {
                return Ok(Path::NotFound);
            };
            let (first, ne) = self.aut.edges_of(q);
            succs.clear();
            successors(&mut ex, stutter, &obj, &mut succs)?;
            for (letter, t) in succs.drain(..) {
                // Protocol code (`encode`, `Hash`, `Eq`) as in the search,
                // a panic in it the error of `letter`.
                buf.clear();
                let coded = template.is_some() && ex.guarded(letter, || t.encode(&mut buf))?;
                for e in (first..first + ne).filter(|&e| self.aut.allows(e, letter)) {
                    let edge = self.aut.edge(e);
                    let id = if template.is_some() {
                        coded.then(|| store.find_bytes(&buf, edge.target)).flatten()
                    } else {
                        ex.guarded(letter, || store.find(&t, edge.target))?
                    };
                    let Some(id) = id else { continue };
                    if id == root || parent.contains_key(&id) {
                        continue;
                    }
                    parent.insert(id, (x, letter, edge.acc));
                    if id == target {
                        found = Some(id);
                        break 'search;
                    }
                    queue.push_back(id);
                }
            }
        }
        let Some(mut cur) = found else {
            return Ok(Path::NotFound);
        };
        let mut steps = Vec::new();
        while cur != root {
            let (prev, letter, acc) = parent[&cur];
            steps.push((cur, letter, acc));
            cur = prev;
        }
        steps.reverse();
        let mut path = Vec::with_capacity(steps.len());
        for (id, letter, acc) in steps {
            let Some((obj, q)) = Self::stored(store, template, id, &mut buf) else {
                return Ok(Path::NotFound);
            };
            path.push(Successor {
                letter,
                proto: self.ex.store.intern(obj),
                state: q,
                acc,
            });
        }
        Ok(Path::Found(path))
    }
}
