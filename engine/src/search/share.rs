//! One share of a check split over several machines
//! ([`Checker::share`](crate::Checker::share)): the levels above the split
//! (searched by every share), then everything reachable from the share's
//! states of the split level.
//!
//! Why the shares together decide the property (the argument the crate
//! docs give in full): a step changes the distance from the initial state
//! by at most +1, so a run that reaches distance `k` or more passes
//! through a state at distance exactly `k`, the *frontier*. A violation
//! (a reachable bad state, or a reachable accepting cycle with its path
//! from the initial state) either lies wholly at distance below `k`,
//! where every share searches it, or has a state on the frontier, from
//! which the rest of it (the bad state, or the whole cycle) is reachable:
//! the share that owns that frontier state finds a violation, searching
//! from it without bound (it must not stop at other shares' frontier
//! states: a cycle may run through several).

use foldhash::quality::FixedState;
use hashbrown::{HashMap, HashSet};
use std::hash::BuildHasher;

use crate::ids::{ProtoId, Successor};
use crate::protocol::Protocol;
use crate::report::{Limit, RawLasso, ShareStats};
use crate::share::Share;
use crate::{Error, Semantics};

use super::visited::Visited;
use super::{ProductState, Search, SearchOutcome};

/// How to split: which share this search is, and where.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Split {
    /// This search's share.
    pub share: Share,
    /// The split level; `None`: the first level with `per_share` states a
    /// share.
    pub level: Option<u64>,
    /// See `level`.
    pub per_share: u64,
}

/// Seed of the split digest: fixed, so that every machine computes the same.
const DIGEST_SEED: u64 = 0x2545_f491_4f6c_dd1d;

/// The steps from `start` to `t` that the breadth-first levels above the
/// split recorded in `parent`.
fn path_to(
    parent: &HashMap<ProductState, (ProductState, Successor)>,
    start: ProductState,
    mut t: ProductState,
) -> Vec<Successor> {
    let mut path = Vec::new();
    while t != start {
        let (prev, step) = parent[&t];
        path.push(step);
        t = prev;
    }
    path.reverse();
    path
}

/// `e` with `before` (the steps from the initial state to where the
/// failing search started) put before its trace; an error without a trace
/// (none known) keeps none, rather than one that stops short.
fn traced_from(e: Error, before: &[String]) -> Error {
    let prepend = |trace: &mut Vec<String>| {
        if !trace.is_empty() {
            trace.splice(0..0, before.iter().cloned());
        }
    };
    match e {
        Error::ProtocolPanic {
            action,
            message,
            mut trace,
        } => {
            prepend(&mut trace);
            Error::ProtocolPanic {
                action,
                message,
                trace,
            }
        }
        Error::Nondeterminism {
            action,
            detail,
            mut trace,
        } => {
            prepend(&mut trace);
            Error::Nondeterminism {
                action,
                detail,
                trace,
            }
        }
        Error::Contract {
            action,
            detail,
            mut trace,
        } => {
            prepend(&mut trace);
            Error::Contract {
                action,
                detail,
                trace,
            }
        }
        other => other,
    }
}

impl<P: Protocol> Search<'_, P> {
    /// Decides the property on this share of the state space: `Holds`
    /// means only that the share has no violation (the session reports it
    /// as such); a violation's prefix starts at the initial state.
    ///
    /// Runs on one thread, without partial-order reduction (the caller
    /// turns it off: the reduced search's provisos are stated for a search
    /// from the initial state).
    pub(crate) fn run_share(
        &mut self,
        initial: ProtoId,
        split: &Split,
    ) -> Result<SearchOutcome, Error> {
        let share = split.share;
        let mut info = ShareStats {
            index: share.index(),
            count: share.count(),
            ..ShareStats::default()
        };
        if self.opts.parallel.threads > 1 {
            self.stats.single_thread = Some(format!(
                "a share of a split check ({}) runs on one thread",
                crate::hint::Setting::Share.named(self.opts.audience)
            ));
        }
        let out = self.share_unrecorded(initial, split, &mut info);
        self.stats.share = Some(info);
        out
    }

    fn share_unrecorded(
        &mut self,
        initial: ProtoId,
        split: &Split,
        info: &mut ShareStats,
    ) -> Result<SearchOutcome, Error> {
        if self.aut.num_states() == 0 {
            // The negation is unsatisfiable: no run can violate the formula.
            self.finish_progress();
            return Ok(SearchOutcome::Holds);
        }
        let safety = self.limits.semantics == Semantics::Stutter && self.aut.safety;
        let start = (initial, self.aut.initial);
        self.stats.product_states = 1;
        if self.bad_prefix(start.1) {
            self.finish_progress();
            return Ok(SearchOutcome::Violated(RawLasso {
                prefix: Vec::new(),
                cycle: Vec::new(),
            }));
        }
        // The levels above the split, breadth-first, each state with the
        // step that first reached it. Every object they make stays resident
        // until the split (under hash compaction or the collapse store):
        // these levels are small, and the frontier's objects are needed.
        self.ex.store.keep_all();
        let mut parent: HashMap<ProductState, (ProductState, Successor)> = HashMap::new();
        let mut above: Vec<ProductState> = Vec::new();
        let mut level: Vec<ProductState> = vec![start];
        let mut depth: u64 = 0;
        let mut count: u64 = 1;
        let mut truncated = false;
        let max_states = self.limits.max_states.min(u32::MAX as u64 - 2);
        let want = split.per_share.saturating_mul(info.count as u64);
        loop {
            let at_split = match split.level {
                Some(k) => depth >= k,
                None => level.len() as u64 >= want,
            };
            if at_split || level.is_empty() {
                break;
            }
            let mut next = Vec::new();
            for &x in &level {
                if let Some(limit) = self.budget.tick(&self.stats, depth) {
                    self.finish_progress();
                    return Ok(SearchOutcome::Inconclusive(limit));
                }
                let succs = match self.all_successors(x.0, x.1) {
                    Ok(s) => s,
                    Err(e) => {
                        self.finish_progress();
                        let trace = self.describe(&path_to(&parent, start, x));
                        return Err(self.probe_error_after(e, trace));
                    }
                };
                self.stats.transitions += succs.len() as u64;
                for s in succs {
                    let t = (s.proto, s.state);
                    if t == start || parent.contains_key(&t) {
                        continue;
                    }
                    match self.admit(depth, &mut count, max_states, &mut truncated) {
                        Ok(true) => {}
                        Ok(false) => continue,
                        Err(limit) => return Ok(SearchOutcome::Inconclusive(limit)),
                    }
                    parent.insert(t, (x, s));
                    if self.bad_prefix(t.1) {
                        self.finish_progress();
                        return Ok(SearchOutcome::Violated(RawLasso {
                            prefix: path_to(&parent, start, t),
                            cycle: Vec::new(),
                        }));
                    }
                    next.push(t);
                }
            }
            above.append(&mut level);
            level = next;
            depth += 1;
        }
        // The split: the frontier in the order the breadth-first search
        // found it, which is the same on every machine (the search is
        // deterministic), dealt out round robin.
        let frontier = level;
        let mut digest = FixedState::with_seed(DIGEST_SEED).hash_one((depth, frontier.len()));
        for &(p, q) in &frontier {
            let h = FixedState::with_seed(DIGEST_SEED).hash_one((self.ex.store.get(p), q.index()));
            digest = crate::successors::mix(digest ^ h);
        }
        let own: Vec<ProductState> = frontier
            .iter()
            .enumerate()
            .filter(|&(i, _)| split.share.owns(i))
            .map(|(_, &s)| s)
            .collect();
        *info = ShareStats {
            level: depth,
            frontier: frontier.len() as u64,
            own: own.len() as u64,
            above: above.len() as u64,
            digest,
            ..*info
        };
        // The share's searches start from its frontier: those objects stay
        // (for the session), the rest of the levels' go.
        for &(p, _) in &own {
            self.ex.store.keep_forever(p);
        }
        self.ex.store.reset_residents();
        let above_count = count;

        // (1) A violation wholly above the split. The breadth-first levels
        // saw every bad state there; an accepting cycle there needs the
        // depth-first search, kept among those levels.
        if !safety && !above.is_empty() {
            self.within = Some(above.iter().copied().collect::<HashSet<_>>());
            self.fresh_visited();
            let out = self.couvreur_from(&[start]);
            self.within = None;
            match out? {
                SearchOutcome::Holds => {}
                // From the initial state: the tree's root.
                decided => return Ok(decided),
            }
        }
        self.stats.product_states = above_count;
        if own.is_empty() {
            self.finish_progress();
            return Ok(if truncated {
                SearchOutcome::Inconclusive(Limit::Depth(self.limits.max_depth))
            } else {
                SearchOutcome::Holds
            });
        }
        // (2) Everything reachable from the share's frontier, unrestricted.
        self.fresh_visited();
        self.violation_root = None;
        let out = if safety {
            // A shortest path to a bad state past the split level meets
            // the level once, at its state there, and is beyond it after:
            // a state at the level or above is never on the rest of it.
            // So the share's search stays below the level (another share's
            // frontier state, or a step back up, is the other searches'),
            // which keeps a search that cycles back to the start from
            // searching the whole space again.
            let mut without: HashSet<ProductState> = above.iter().copied().collect();
            without.extend(frontier.iter().copied());
            self.without = Some(without);
            let out = self.reachability_from(&own, depth);
            self.without = None;
            out
        } else {
            self.couvreur_from(&own)
        };
        self.stats.product_states += above_count;
        let before = |s: &Self| {
            s.violation_root
                .map(|root| path_to(&parent, start, root))
                .unwrap_or_default()
        };
        match out {
            Ok(SearchOutcome::Violated(raw)) => {
                let mut prefix = before(self);
                prefix.extend(raw.prefix);
                Ok(SearchOutcome::Violated(RawLasso {
                    prefix,
                    cycle: raw.cycle,
                }))
            }
            Ok(SearchOutcome::Holds) if truncated => Ok(SearchOutcome::Inconclusive(Limit::Depth(
                self.limits.max_depth,
            ))),
            Ok(decided) => Ok(decided),
            Err(e) => {
                let trace = self.describe(&before(self));
                Err(traced_from(e, &trace))
            }
        }
    }

    /// The actions of `path`, as a trace reads them.
    fn describe(&self, path: &[Successor]) -> Vec<String> {
        path.iter()
            .map(|s| self.ex.alphabet.describe(s.letter))
            .collect()
    }

    /// Forgets every visited state, for the next search of the share.
    fn fresh_visited(&mut self) {
        self.visited = Visited::new(self.aut.num_states());
        if matches!(self.visited, Visited::Inline) {
            self.ex.store.clear_marks();
        }
    }
}
