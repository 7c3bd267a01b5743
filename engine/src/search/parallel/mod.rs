//! The parallel breadth-first search for safety properties: the
//! reachability search of [`Search::reachability`] on several threads,
//! with the same verdicts and the same counterexamples.
//!
//! It is level-synchronous, and each shard of the store is owned by one
//! thread for a level (see [`sharded`](super::sharded); one shard per
//! thread). A level is done in two phases:
//! - *expand*: each thread walks the level's list (in the order in which
//!   the one-thread search finds the states) and expands the states of its
//!   own shards in place, holding their locks for the whole phase. A
//!   successor that falls in one of its shards is deduplicated at once;
//!   the others go, in a batch per owner, to their owner's inbox;
//! - *settle*: each thread deduplicates the batches handed to it, hands
//!   the objects it did not store back to the thread that made them (to
//!   free: glibc's allocator is slow at freeing another thread's blocks),
//!   and lists the new states of its shards sorted by key.
//!
//! An object that writes itself as bytes ([`Protocol::encode`]), where the
//! checker chose the collapse store ([`Checker::collapse`](crate::Checker::collapse)),
//! is searched over a store of bytes ([`Sharded::bytes`]): a thread
//! decodes each state of its shards that it expands (with its own copy of
//! the initial object, [`Protocol::decode`]), encodes each successor in
//! the thread that made it, and hands over bytes. No object crosses a
//! thread, and a stored state costs its bytes, its automaton state and its
//! table slot, as in the one-thread collapse store. Unlike that store
//! (which keeps the states it works on as objects) this search relies on
//! `decode`: it checks `decode(encode(x)) == x` on the successors made
//! while the store holds fewer than [`VERIFY_STATES`] states, and where
//! that fails, where `decode` gives nothing, or where a state writes no
//! bytes (the one-thread store keeps such a state as its object), it
//! searches again on one thread, with the collapse store, and the report
//! says why.
//!
//! A successor's *key* is (position of its parent in the level, index of
//! the successor in the parent's expansion): the order of discovery of the
//! one-thread search. A state found by several parents of the level keeps
//! the smallest key, whatever the order in which its owner saw them. The
//! threads' sorted lists, merged by key, are the next level in the
//! one-thread order. By induction every level and every key is the
//! one-thread search's, whatever the number of threads and however they
//! raced.
//!
//! A violation (a universal automaton state reached) or a probe error is
//! an *event* at a key; the search finishes the level (skipping parents
//! after the earliest event so far) and reports the event with the
//! smallest key: the one the one-thread search meets first. Its trace is
//! rebuilt as the one-thread search rebuilds its own: a breadth-first
//! search from the initial state through the stored states, in the same
//! successor order, to that state ([`Search::path_to`]). The stored
//! states keep no parent link (it made a stored state 12 bytes larger and
//! the search 1.6 times slower than the one-thread one); the re-search
//! visits the states up to the event's level once more, on the calling
//! thread, within the same budget. Every state of those levels is stored,
//! whatever the thread count, so the path, and the counterexample text, is
//! the one-thread search's.
//!
//! Small levels cost more to share than to do: a level of fewer than
//! [`PARALLEL_LEVEL`] states (by default; [`Checker::parallel_level`](crate::Checker::parallel_level),
//! `PRUST_PARALLEL_LEVEL`) is expanded by the calling thread alone, owning
//! every shard, with the same store and order; the other threads start
//! when a level first reaches the threshold. A check that never gets there
//! (most unit tests) starts no thread, and its report says so.
//!
//! Limits hold as in the one-thread search: the calling thread is one of
//! the threads, and watches the clock and the memory
//! ([`Budget`](crate::budget::Budget)) as it expands and while it waits for
//! the others, and stops them; the state limit is counted in the store; a
//! level cut short by any limit ends the search inconclusive, never
//! `Holds`. One difference at the edge: when the state limit falls inside
//! the level where a violation is, this search may stop inconclusive where
//! one thread, which stops at the first violation, reports it.
//!
//! Liveness is decided by the one-thread depth-first search, with the
//! object's successors computed on several threads ahead of it
//! ([`parallel_liveness`](super::parallel_liveness), which says why that
//! split was chosen). What a genuinely parallel emptiness check would take
//! here, for whoever writes it:
//! - the automaton is a *transition-based generalised* Büchi automaton, so
//!   either the multi-core SCC algorithm of Bloemen, Laarman and van de Pol
//!   (UFSCC, 2016: a shared union-find of partial SCCs carrying the union
//!   of their acceptance marks, which is Couvreur's check spread over
//!   workers and needs no degeneralisation), or CNDFS (Evangelista,
//!   Laarman, Petrucci, van de Pol 2012) after degeneralising with a
//!   counter (k acceptance sets: k copies of each state);
//! - each worker walks the successors in its own random order (a
//!   permutation of [`Successors::successors_of`]'s list), over a store like
//!   [`sharded`](super::sharded) with the per-state colours (CNDFS: a
//!   shared red bit and per-worker cyan) or union-find links (UFSCC);
//! - the counterexample: the first worker to close an accepting SCC stops
//!   the others; for the same counterexample on every run, rebuild it with
//!   the one-thread search's `lasso` from the states of that SCC, which is
//!   deterministic given the SCC (the SCC itself is: SCCs do not depend on
//!   the search order, but *which* accepting SCC is found first does, so a
//!   deterministic report would pick, e.g., the one the one-thread search
//!   reaches first, by re-running it bounded to the SCCs found).

//!
//! One file per part: `shared.rs` holds what the threads of one search
//! share, `phases.rs` the hand-over of a level's phases between the
//! calling thread and the workers, `level.rs` what a thread does in each
//! phase (expand, settle), and `path.rs` the counterexample's re-search
//! through the stored states.

mod level;
mod path;
mod phases;
mod shared;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, PoisonError, RwLock};

use crate::ids::ProtoId;
use crate::protocol::Protocol;
use crate::report::{RawLasso, Stats};
use crate::{Error, Semantics};

use super::lasso::Path;
use super::sharded::Sharded;
use super::{Search, SearchOutcome};
pub(crate) use level::successors;
use level::{decode, merge, Batch, Returned, Worker};
use phases::{Cmd, Crew, Phase};
use shared::{Event, Found, Shared};

/// The default [`Checker::parallel_level`](crate::Checker::parallel_level):
/// levels of fewer states are expanded by the calling thread alone.
/// Waking the threads and meeting them twice a level costs tens of
/// microseconds; a level of 1,024 states takes milliseconds to expand, so
/// from there on sharing it pays.
pub(crate) const PARALLEL_LEVEL: usize = 1024;

/// A search over bytes checks `decode(encode(x)) == x` for the successors
/// made while the store holds fewer states than this: enough to catch a
/// codec that is wrong everywhere (or on the first levels' kinds of
/// state), at a cost that does not grow with the search. The determinism
/// check verifies every state (on one thread).
pub(crate) const VERIFY_STATES: u64 = 4096;

/// Cache entries of a thread's successor generator: its cache is never used (a
/// thread expands objects, not the successor generator's ids), so the least there is.
const WORKER_CACHE: usize = 1;

/// How many states the calling thread expands between two looks at the
/// budget (a tick copies the statistics).
const TICK_EVERY: usize = 64;

/// Why a search over bytes went back to one thread (see the module docs).
const UNENCODED: &str =
    "a state wrote no bytes (Protocol::encode returned false), so the collapse store searched on \
     one thread";
/// As [`UNENCODED`], for a codec that does not give the state back.
const UNDECODED: &str =
    "Protocol::decode did not give back the encoded state, so the collapse store searched on \
     one thread";

impl<P: Protocol> Search<'_, P> {
    /// [`reachability`](Self::reachability) on up to `threads` threads
    /// (see the module docs): the same verdict, and for a violation the
    /// same counterexample. With `bytes`, over a store of bytes (the
    /// object encodes itself and the checker chose the collapse store).
    pub(super) fn parallel_reachability(
        &mut self,
        initial: ProtoId,
        threads: usize,
        bytes: bool,
    ) -> Result<SearchOutcome, Error> {
        let q0 = self.aut.initial;
        if self.bad_prefix(q0) {
            self.finish_progress();
            return Ok(SearchOutcome::Violated(RawLasso {
                prefix: Vec::new(),
                cycle: Vec::new(),
            }));
        }
        let (max_depth, max_states) = (self.limits.max_depth, self.limits.max_states);
        let shared = Shared {
            store: if bytes {
                Sharded::bytes(threads, max_depth, max_states)
            } else {
                Sharded::new(threads, max_depth, max_states)
            },
            aut: self.aut,
            stutter: self.limits.semantics == Semantics::Stutter,
            level: RwLock::new(Vec::new()),
            depth: AtomicU64::new(0),
            parties: AtomicU64::new(1),
            inbox: (0..threads).map(|_| Mutex::new(Vec::new())).collect(),
            returned: Mutex::new((0..threads).map(|_| Vec::new()).collect()),
            found: Mutex::new(Vec::new()),
            stop: AtomicBool::new(false),
            full: AtomicBool::new(false),
            truncated: AtomicBool::new(false),
            fallback: Mutex::new(None),
            transitions: AtomicU64::new(0),
            event: Mutex::new(None),
            bound: AtomicU64::new(u64::MAX),
            phase: Mutex::new(Phase {
                generation: 0,
                cmd: Cmd::Quit,
                finished: 0,
                crashed: false,
            }),
            start: Condvar::new(),
            done: Condvar::new(),
        };
        let root_obj = self.ex.store.get(initial).clone();
        let mut root_bytes = Vec::new();
        if bytes {
            // The checker chose bytes because the initial object writes
            // them; one that does not now (or whose bytes do not decode to
            // it) is searched on one thread, as any later such state.
            let encoded = catch_unwind(AssertUnwindSafe(|| root_obj.encode(&mut root_bytes)));
            let why = match encoded {
                Ok(true) if decode(&root_obj, &root_bytes).as_ref() == Some(&root_obj) => None,
                Ok(true) => Some(UNDECODED),
                _ => Some(UNENCODED),
            };
            if let Some(why) = why {
                return self.one_thread_after_all(initial, why);
            }
        }
        let template = bytes.then(|| root_obj.clone());
        let root = shared.store.root(root_obj, &root_bytes, q0);
        *shared.level.write().unwrap_or_else(PoisonError::into_inner) = vec![root];
        self.stored_apart = true;
        let (outcome, running, tried) = std::thread::scope(|s| {
            let mut crew = Crew {
                scope: s,
                threads,
                running: 0,
                tried: false,
                template: template.as_ref(),
            };
            let outcome = self.coordinate(&shared, &mut crew);
            if crew.running > 0 {
                self.run_phase(&shared, crew.running, Cmd::Quit, 0);
            }
            (outcome, crew.running, crew.tried)
        });
        if let Ok(Coordinated::Fallback(why)) = outcome {
            drop(shared);
            return self.one_thread_after_all(initial, why);
        }
        self.stats.threads = running as u32 + 1;
        if running == 0 {
            // Said in the report: the search asked for threads and used one.
            self.stats.single_thread = Some(if tried {
                "the system would not start a thread".to_string()
            } else {
                format!(
                    "no breadth-first level reached {} states ({}), so no other thread was \
                     started",
                    self.opts.parallel.level,
                    crate::hint::Setting::ParallelLevel.named(self.opts.audience)
                )
            });
        }
        self.stats.product_states = shared.store.states().min(self.limits.max_states);
        self.stats.transitions = shared.transitions.load(Ordering::Relaxed);
        self.finish_progress();
        self.stats.protocol_states = shared.store.objects();
        let template = template.as_ref();
        match outcome? {
            Coordinated::Done(o) => Ok(o),
            Coordinated::Fallback(_) => unreachable!("searched on one thread above"),
            Coordinated::Found(Event {
                found: Found::Bad(id),
                ..
            }) => {
                let path = self
                    .path_to(&shared.store, template, root, id)
                    .map_err(|e| self.probe_error_after(e, Vec::new()))?;
                let prefix = match self.path_or_lost(path, Vec::new)? {
                    Ok(p) => p,
                    Err(limit) => return Ok(SearchOutcome::Inconclusive(limit)),
                };
                Ok(SearchOutcome::Violated(RawLasso {
                    prefix,
                    cycle: Vec::new(),
                }))
            }
            Coordinated::Found(Event {
                found: Found::Error(e, id),
                ..
            }) => {
                // As `probe_error_at`: the re-search may meet the
                // panicking code again, quietly, and gives up the trace
                // rather than the error.
                let path =
                    crate::quiet::quietly(|| self.path_to(&shared.store, template, root, id));
                let trace = match path {
                    Ok(Path::Found(p)) => p
                        .iter()
                        .map(|s| self.ex.alphabet.describe(s.letter))
                        .collect(),
                    _ => Vec::new(),
                };
                Err(self.probe_error_after(e, trace))
            }
        }
    }

    /// The one-thread search after all, for `why` (said in the report):
    /// a search over bytes met a state that it cannot keep as bytes (see
    /// the module docs). The counts start again; the budget goes on.
    fn one_thread_after_all(
        &mut self,
        initial: ProtoId,
        why: &str,
    ) -> Result<SearchOutcome, Error> {
        self.stored_apart = false;
        self.stats = Stats {
            automaton_states: self.stats.automaton_states,
            threads: 1,
            single_thread: Some(why.to_string()),
            ..Stats::default()
        };
        self.reachability(initial)
    }
}

/// How [`Search::coordinate`] ended: a decision, an event to report, or
/// a search over bytes that must run on one thread after all.
enum Coordinated {
    Done(SearchOutcome),
    Found(Event),
    Fallback(&'static str),
}
