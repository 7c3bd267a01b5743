//! The product search: an on-the-fly emptiness check of
//! (protocol runs) × (automaton of the negated formula).
//!
//! The automaton is a transition-based generalised Büchi automaton, so the
//! check is Couvreur's SCC-based algorithm (Couvreur 1999, in the iterative
//! form of Gaiser and Schwoon 2009): a depth-first search that keeps a stack
//! of SCC roots, each with the union of the acceptance marks seen inside
//! its (partial) SCC. When a back edge merges SCCs and the union covers all
//! acceptance sets, an accepting cycle exists: the property is violated.
//! It finds a violation as soon as the SCC closes, works directly on
//! generalised acceptance (no degeneralisation blow-up), and needs one
//! number per visited state.
//!
//! The search is iterative: one explicit stack of small frames, each naming
//! its product state and the letter that led there (the parent link is the
//! frame below), so arbitrarily deep runs cannot overflow the thread's stack.
//!
//! Safety properties take a shortcut (as SPIN's `-DSAFETY` does): when every
//! cycle of the automaton that could accept runs through states that accept
//! any continuation (every `G !bad` is such), the stutter convention makes
//! the property violated exactly when such a state is reachable, and a
//! breadth-first reachability search decides it — no SCC bookkeeping, a
//! shortest counterexample, and much better memory locality on large state
//! spaces (see [`Search::reachability`]).
//!
//! One file per part: `couvreur.rs` and `reachability.rs` are the two
//! strategies, `expand.rs` gives a product state's successors to both,
//! `visited.rs` stores the states seen, and `lasso.rs` builds the
//! counterexample from them once a violation is found. `parallel/` is
//! the breadth-first search on several threads (over the shared store of
//! `sharded.rs`); the depth-first search runs on one, and
//! `parallel_liveness.rs` computes the object's successors for it on
//! several threads first.

mod ample;
mod couvreur;
mod expand;
mod fingerprint_set;
mod frontier;
mod lasso;
mod parallel;
mod parallel_liveness;
mod reachability;
mod sharded;
mod share;
mod shortest;
#[cfg(test)]
mod tests;
mod visited;

use crate::alphabet::LetterId;
use crate::budget::{Bounds, Budget};
use crate::error::ProbeError;
use crate::hint::{Audience, Setting};
use crate::ids::{AutState, ProtoId};
use crate::product::Prepared;
use crate::protocol::Protocol;
use crate::report::{Limit, RawLasso, Stats};
use crate::successors::Successors;
use crate::{Error, Semantics};

use expand::Frame;
pub(crate) use parallel::successors as object_successors;
pub(crate) use parallel::PARALLEL_LEVEL;
pub(crate) use share::Split;
pub(crate) use shortest::{Shortening, Stop};
use visited::Visited;

/// A state of the product: an interned protocol object and an automaton
/// state.
pub(super) type ProductState = (ProtoId, AutState);

/// What a search found.
pub(crate) enum SearchOutcome {
    Holds,
    Violated(RawLasso),
    Inconclusive(Limit),
}

/// How a search may use more threads than the caller's: the options of
/// the parallel strategies.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Parallelism {
    /// Threads asked for ([`Checker::threads`](crate::Checker::threads)):
    /// more than one runs the breadth-first search in parallel where it
    /// can; the report's stats say what was used and why not.
    pub threads: usize,
    /// Whether `threads` was asked for, not the machine's default: objects
    /// stored whole that hold heap allocations run on several threads
    /// only then (see [`Checker::threads`](crate::Checker::threads)).
    pub chosen: bool,
    /// Levels of fewer states are searched by the calling thread alone
    /// ([`Checker::parallel_level`](crate::Checker::parallel_level)).
    pub level: usize,
}

impl Parallelism {
    /// The calling thread only.
    pub const ONE_THREAD: Parallelism = Parallelism {
        threads: 1,
        chosen: true,
        level: PARALLEL_LEVEL,
    };
}

/// The options of one search, given when it is made.
#[derive(Debug, Clone)]
pub(crate) struct SearchOptions {
    /// Use ample sets where the object declares components (the caller
    /// has checked that the formula allows it; see [`crate::por`]).
    pub reduce: bool,
    pub parallel: Parallelism,
    /// Who the reasons in the stats are worded for
    /// ([`Checker::audience`](crate::Checker::audience)).
    pub audience: Audience,
    /// Weak fairness over roles: the depth-first search's transitions
    /// carry one acceptance mark per role (see [`crate::Fairness`]). The
    /// caller sets it only for searches that look for cycles, and has
    /// checked that the roles' marks fit beside the automaton's.
    pub fair: bool,
    /// Bitstate hashing: the bits of the array and the bits set per state
    /// ([`Checker::bitstate`](crate::Checker::bitstate)). Used by the
    /// breadth-first search of a store that keeps fingerprints; other
    /// searches store fingerprints.
    pub bitstate: Option<(u64, u32)>,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            reduce: false,
            parallel: Parallelism::ONE_THREAD,
            audience: Audience::Library,
            fair: false,
            bitstate: None,
        }
    }
}

/// One search of the product of the object's runs and an automaton.
pub(crate) struct Search<'a, P> {
    ex: &'a mut Successors<P>,
    aut: &'a Prepared,
    limits: &'a Bounds,
    visited: Visited,
    pub stats: Stats,
    budget: Budget<'a>,
    /// Scratch for [`expand`](Self::expand): the enabled letters of a state.
    letters: Vec<(LetterId, ProtoId)>,
    /// What the caller chose, fixed for the whole search.
    opts: SearchOptions,
    /// Product states expanded by an ample set.
    pub ample_states: u64,
    /// Some state of the object declared its independence.
    pub declared: bool,
    /// The parallel search ran: its objects are in its own store (and
    /// counted in `stats`), not the successor generator's.
    pub stored_apart: bool,
    /// The depth-first search enters no state outside this set (a share's
    /// search of the levels above its split, [`run_share`](Self::run_share)).
    within: Option<hashbrown::HashSet<ProductState>>,
    /// The breadth-first search enters no state of this set (a share's
    /// safety search past its split: the states at the split level and
    /// above, see [`run_share`](Self::run_share)).
    without: Option<hashbrown::HashSet<ProductState>>,
    /// The state a violation's prefix starts from: the seed (or the root of
    /// the depth-first tree) it was reached from.
    violation_root: Option<ProductState>,

    /// Product states after which [`couvreur`](Self::couvreur) stops with
    /// [`capped`](Self::capped) set (below the state limit): the parallel
    /// liveness check's one-thread first try. `u64::MAX` otherwise.
    state_cap: u64,
    /// The last depth-first search stopped at `state_cap`, not at a limit.
    capped: bool,
    /// Distinct protocol states counted by a search whose store forgets
    /// them ([`Visited::Compact`], [`Visited::Bits`]).
    pub protocol_count: Option<u64>,
    /// The search stored bits, not fingerprints: `(bits, bits per state,
    /// states stored)`.
    pub bitstate_used: Option<(u64, u32)>,

    /// Under weak fairness, one bit per role (0 otherwise): the roles'
    /// marks before they are shifted past the automaton's.
    fair_roles: u32,
    /// Where the roles' marks start: the automaton's acceptance sets.
    fair_shift: u32,
    /// Every acceptance mark an accepting cycle must carry: the
    /// automaton's, and the roles' under weak fairness.
    all_marks: u32,
    /// Under weak fairness, the roles enabled in each protocol state
    /// expanded (bit per role): kept here, not in the stack frames, so
    /// that the frames stay small when fairness is off.
    enabled_of: hashbrown::HashMap<ProtoId, u32>,
}

impl<'a, P: Protocol> Search<'a, P> {
    /// A one-thread search without reduction, its time counted from now.
    #[cfg(test)]
    pub fn with_defaults(ex: &'a mut Successors<P>, aut: &'a Prepared, limits: &'a Bounds) -> Self {
        Search::new(
            ex,
            aut,
            limits,
            std::time::Instant::now(),
            SearchOptions::default(),
        )
    }

    /// A search whose time limit counts from `started` (the check's start,
    /// before the formula was translated).
    pub fn new(
        ex: &'a mut Successors<P>,
        aut: &'a Prepared,
        limits: &'a Bounds,
        started: std::time::Instant,
        opts: SearchOptions,
    ) -> Self {
        let visited = Visited::new(aut.num_states());
        // Under hash compaction the previous search's objects go (but the
        // initial one); this search pins what it holds.
        ex.store.reset_residents();
        if matches!(visited, Visited::Inline) {
            ex.store.clear_marks();
        }
        let (fair_roles, fair_shift) = if opts.fair {
            fair_marks_layout(aut.all_acc, ex.alphabet.roles.len())
                .expect("the caller checked that the roles' marks fit")
        } else {
            (0, 0)
        };
        let stats = Stats {
            automaton_states: aut.num_states() as u64,
            threads: 1,
            ..Stats::default()
        };
        Search {
            ex,
            aut,
            limits,
            visited,
            stats,
            budget: Budget::since(limits, started),
            letters: Vec::new(),
            opts,
            ample_states: 0,
            declared: false,
            stored_apart: false,
            within: None,
            without: None,
            violation_root: None,

            state_cap: u64::MAX,
            capped: false,
            protocol_count: None,
            bitstate_used: None,
            fair_roles,
            fair_shift,
            all_marks: aut.all_acc | fair_roles << fair_shift,
            enabled_of: hashbrown::HashMap::new(),
        }
    }

    /// The roles' fairness marks of a step by `letter` from protocol
    /// state `p`, whose enabled roles [`note_enabled_roles`](Self::note_enabled_roles)
    /// has recorded: a role's mark when it moves or cannot (see
    /// [`crate::Fairness`]). 0 without fairness.
    #[inline]
    pub(super) fn fairness_marks(&self, p: ProtoId, letter: LetterId) -> u32 {
        if self.fair_roles == 0 {
            return 0;
        }
        let enabled = self.enabled_of[&p];
        let a = &self.ex.alphabet;
        let moved = if (letter as usize) < a.num_actions() {
            1u32 << a.letter(letter).role
        } else {
            0
        };
        ((!enabled | moved) & self.fair_roles) << self.fair_shift
    }

    /// Under weak fairness, records the roles that have an enabled action
    /// in `p` (bit per role; all letters probed, the automaton's wishes
    /// aside), once per protocol state.
    pub(super) fn note_enabled_roles(
        &mut self,
        p: ProtoId,
        use_cache: bool,
    ) -> Result<(), ProbeError> {
        if self.fair_roles == 0 || self.enabled_of.contains_key(&p) {
            return Ok(());
        }
        let mut letters = std::mem::take(&mut self.letters);
        letters.clear();
        let probed = self.ex.successors(p, None, use_cache, &mut letters);
        let a = &self.ex.alphabet;
        let enabled = letters
            .iter()
            .fold(0u32, |m, &(l, _)| m | 1 << a.letter(l).role);
        self.letters = letters;
        probed?;
        self.enabled_of.insert(p, enabled);
        Ok(())
    }

    /// The actions that led to the top of the DFS stack: the letter of
    /// each frame below it.
    fn trace(&self, stack: &[Frame]) -> Vec<String> {
        let below_top = &stack[..stack.len().saturating_sub(1)];
        below_top
            .iter()
            .map(|f| self.ex.alphabet.describe(f.letter))
            .collect()
    }

    /// A probe error met with `stack` on the DFS stack.
    fn probe_error(&self, e: ProbeError, stack: &[Frame]) -> Error {
        self.probe_error_after(e, self.trace(stack))
    }

    /// A probe error met after the actions of `trace`.
    fn probe_error_after(&self, e: ProbeError, trace: Vec<String>) -> Error {
        e.into_error(|l| self.ex.alphabet.describe_probe(l), trace)
    }

    /// Whether reaching automaton state `q` already proves a violation:
    /// under the stutter convention every state has a successor, so every
    /// run goes on forever, and a universal state accepts whatever follows.
    /// This finds safety violations at the step that commits them — with a
    /// short counterexample, and even on objects whose runs never repeat a
    /// state.
    #[inline]
    fn bad_prefix(&self, q: AutState) -> bool {
        self.limits.semantics == Semantics::Stutter && self.aut.universal(q)
    }

    /// Decides the property: no run of the object violates it
    /// ([`SearchOutcome::Holds`]), here is one ([`SearchOutcome::Violated`]), or a
    /// limit stopped the search first ([`SearchOutcome::Inconclusive`]).
    pub fn run(&mut self, initial: ProtoId) -> Result<SearchOutcome, Error> {
        if self.aut.num_states() == 0 {
            // The negation is unsatisfiable: no run can violate the formula.
            self.finish_progress();
            return Ok(SearchOutcome::Holds);
        }
        if self.limits.semantics == Semantics::Stutter && self.aut.safety {
            if self.opts.parallel.threads > 1 {
                // Said in the report, never silently: what keeps the
                // search on one thread although more were asked for.
                let why = if self.opts.reduce {
                    Some("partial-order reduction runs on one thread".to_string())
                } else if self.ex.determinism() {
                    Some("the determinism check runs on one thread".to_string())
                } else if self.ex.store.is_compacted() {
                    Some("hash compaction runs on one thread".to_string())
                } else if self.heap_objects_by_default(initial) {
                    Some(heap_objects_reason(self.opts.audience))
                } else if self.aut.num_states() > sharded::MAX_AUT_STATES {
                    Some(
                        "automata of more than 65,536 states are searched on one thread"
                            .to_string(),
                    )
                } else {
                    None
                };
                match why {
                    Some(why) => self.stats.single_thread = Some(why),
                    None => {
                        self.stats.threads = self.opts.parallel.threads as u32;
                        // Past hash compaction (above), a store that drops
                        // objects is the collapse store: its states go
                        // between the threads as bytes.
                        let bytes = self.ex.store.drops_objects();
                        return self.parallel_reachability(
                            initial,
                            self.opts.parallel.threads,
                            bytes,
                        );
                    }
                }
            }
            if self.ex.store.is_compacted() && !self.opts.reduce {
                // Nothing but fingerprints (or bits) once a state is done:
                // the numbers of the other layouts serve the reduction's
                // proviso and the depth-first search only.
                self.ex.store.transient_ids();
                self.visited = match self.opts.bitstate {
                    Some((bits, k)) => {
                        // The array is allocated whole: one larger than
                        // the memory limit would abort the process, or
                        // take the machine, before the limit is read.
                        let array = crate::Checker::bitstate_array_bits(bits.max(1))
                            .ok()
                            .filter(|b| b / 8 <= self.limits.max_memory);
                        let Some(array) = array else {
                            self.finish_progress();
                            return Ok(SearchOutcome::Inconclusive(Limit::Bitstate {
                                bits,
                                max_memory: self.limits.max_memory,
                            }));
                        };
                        self.bitstate_used = Some((array, k));
                        Visited::Bits(fingerprint_set::BitState::new(array, k))
                    }
                    None => Visited::Compact(fingerprint_set::FingerprintSet::new()),
                };
                self.protocol_count = Some(0);
            }
            return self.reachability(initial);
        }
        if self.opts.parallel.threads > 1 {
            match self.liveness_on_one_thread(initial) {
                Some(why) => self.stats.single_thread = Some(why),
                None => return self.parallel_couvreur(initial, self.opts.parallel.threads),
            }
        }
        self.couvreur(initial)
    }

    /// Whether the search stays on one thread because threads were not
    /// asked for and the object, stored whole, may hold heap allocations
    /// ([`heap_objects_reason`]).
    fn heap_objects_by_default(&self, initial: ProtoId) -> bool {
        !self.opts.parallel.chosen
            && !self.ex.store.drops_objects()
            && heap_objects(self.ex.store.get(initial))
    }

    fn finish_progress(&mut self) {
        self.stats.protocol_states = self.protocol_count.unwrap_or(self.ex.store.len() as u64);
        self.budget.finish();
    }

    /// Whether a state met for the first time, `depth + 1` steps from the
    /// start of a breadth-first search, is stored, the same in both
    /// breadth-first searches (reachability and a share's): `Ok(false)` past
    /// the depth limit (which makes the search `truncated`), `Err` with the
    /// state limit when `count` states are stored already (the search
    /// stops inconclusive), else `Ok(true)` with the state counted.
    #[inline]
    fn admit(
        &mut self,
        depth: u64,
        count: &mut u64,
        max_states: u64,
        truncated: &mut bool,
    ) -> Result<bool, Limit> {
        if depth + 1 > self.limits.max_depth {
            *truncated = true;
            return Ok(false);
        }
        if *count >= max_states {
            self.finish_progress();
            return Err(Limit::States(self.limits.max_states));
        }
        *count += 1;
        self.stats.product_states = *count;
        self.stats.max_depth = depth + 1;
        Ok(true)
    }
}

/// Where the roles' fairness marks go beside an automaton whose marks are
/// `all_acc`: the mask of `roles` bits and the shift past the automaton's
/// marks, or `None` when they do not fit in the 32 marks of a transition.
pub(crate) fn fair_marks_layout(all_acc: u32, roles: usize) -> Option<(u32, u32)> {
    let shift = all_acc.count_ones();
    if shift as usize + roles > 32 {
        return None;
    }
    let mask = if roles == 32 {
        u32::MAX
    } else {
        (1u32 << roles) - 1
    };
    Some((mask, shift))
}

/// Why a search of objects stored whole that may hold heap allocations
/// stays on one thread by default (safety and liveness alike: in both the
/// threads make objects that another thread stores or frees).
fn heap_objects_reason(audience: Audience) -> String {
    format!(
        "objects stored whole that may hold heap allocations \
         (Protocol::prefers_bytes) run on one thread unless threads are asked \
         for ({}): two threads cost more than one for them",
        Setting::Threads.named(audience)
    )
}

/// Whether an object stored whole may hold heap allocations: it does not
/// say otherwise ([`Protocol::prefers_bytes`] is `true`, as by default);
/// a panic in it counts as yes. Two threads that store, clone and free
/// each other's heap blocks cost more than one thread (see
/// [`Checker::threads`](crate::Checker::threads)).
fn heap_objects<P: Protocol>(obj: &P) -> bool {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| obj.prefers_bytes())).unwrap_or(true)
}
