//! Liveness on every core: the depth-first emptiness check of
//! [`couvreur`](super::couvreur) with the object's successors computed
//! ahead of it on several threads.
//!
//! # Why a split of the work, not a parallel emptiness check
//!
//! What a product search spends its time on is the object: cloning it and
//! running its try-operations for every letter of every state, and storing
//! what comes out. The automaton side (edges, SCC roots, acceptance marks)
//! is a few array reads a transition. So this check splits the work where
//! the cost is:
//! 1. *expand*: the object's reachable states are explored breadth-first,
//!    their try-operations run on `threads` worker threads, and each
//!    state's complete successor list `(letter, target id)` is kept in a
//!    [`Graph`] beside the successor generator (the calling thread stores the objects
//!    the workers find, so the ids are the successor generator's own);
//! 2. *decide*: the one-thread Couvreur search runs unchanged, reading the
//!    successors of every state from the graph instead of probing.
//!
//! The graph is a *complete cache*: for a state it holds exactly the list
//! that probing it gives (the same probes, in the same order,
//! [`Successors::successors_of`]), and a state it does not hold is probed as
//! on one thread. So the verdict, the counterexample, the product state,
//! transition and depth counts and any probe error are those of the
//! one-thread search by construction (only the protocol states stored may
//! be more: every reachable one is expanded), not by
//! a second algorithm that a test must keep in step: a state whose
//! expansion failed on a worker (a panic, a broken contract) gets no list,
//! and the search meets the same failure at the same step, reported as on
//! one thread, or never meets it if the one-thread search never probes
//! that letter there.
//!
//! A genuinely parallel emptiness check (UFSCC of Bloemen, Laarman and van
//! de Pol; CNDFS after degeneralisation) would also spread the SCC
//! bookkeeping, but it finds *some* accepting cycle, which one depending
//! on the race, and a deterministic report would then re-run the search
//! bounded to the SCCs found; it is a second emptiness algorithm whose
//! verdicts only a differential test pins. Since the SCC part is the cheap
//! part here, the split gives most of the speed-up at a fraction of the
//! risk; what it cannot give is in the next section.
//!
//! # The trade-off: the early exit
//!
//! The depth-first search stops at the first accepting cycle, often after
//! a small part of the state space; the expand phase explores all of it
//! first (all of it that the object reaches, which can be more than the
//! product reaches: an automaton state with few edges prunes the product).
//! Two things bound the loss:
//! - the check first runs the one-thread search bounded to
//!   [`Checker::parallel_level`](crate::Checker::parallel_level) product
//!   states (as the parallel breadth-first search leaves small levels to
//!   one thread); a check decided within that bound (most unit tests, and
//!   violations met early) starts no thread, and its report says so. Only
//!   past it are the threads started, and the bounded try (at most that
//!   many states) is done again over the graph;
//! - the expand phase stops at [`Limits::max_states`](crate::Limits)
//!   objects, and at objects deeper than the depth limit (the search never
//!   expands them); the search probes what the graph lacks.
//!
//! A violation that the one-thread search finds after more than
//! `parallel_level` states but long before it has seen the whole state
//! space is found later (after the expand phase) than on one thread. The
//! measurements are in BENCHMARKS.md.
//!
//! # Limits
//!
//! The calling thread watches the clock and the memory while the workers
//! expand ([`Budget`](crate::budget::Budget)): a limit reached then stops
//! them and the check is inconclusive, never `Holds`. The state and depth
//! limits are the search's own, which runs in full afterwards.
//!
//! # What stays on one thread
//!
//! Partial-order reduction (its ample sets depend on the automaton state
//! and the stack), the determinism check (its bookkeeping is by stored id,
//! on the successor generator), and the stores that drop objects (hash compaction,
//! collapse: a graph by id would name objects that are gone), and, unless
//! threads are asked for, objects stored whole that may hold heap
//! allocations (as in the safety search: the threads would make objects
//! that the calling thread stores and frees). The report says which.

use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc;
use std::time::Duration;

use crate::alphabet::LetterId;
use crate::hint::Setting;
use crate::ids::ProtoId;
use crate::protocol::Protocol;
use crate::report::{Limit, Stats};
use crate::successors::{Graph, Store, Successors};
use crate::Error;

use super::visited::Visited;
use super::{Search, SearchOutcome};

/// Objects a worker expands per message: enough that the hand-over (a
/// channel send, a wake-up) is a small part of the work, few enough that
/// the calling thread never waits long for the next results.
const CHUNK: usize = 32;

/// Chunks handed to a worker before its results come back: keeps it busy
/// while the calling thread stores what the others found.
const IN_FLIGHT: usize = 4;

/// Cache entries of a worker's successor generator: it expands objects, not stored
/// ids, so its cache is never used.
const WORKER_CACHE: usize = 1;

/// A chunk of work: objects to expand, each with its id and depth, and
/// objects to drop (successors the calling thread did not store, handed
/// back to the thread that made them: glibc's allocator is slow at
/// freeing another thread's blocks).
type Work<P> = (Vec<(ProtoId, u64, P)>, Vec<P>);

/// A worker's results: its number, and per object its id, depth and its
/// successors (`None` when expanding it failed).
type Done<P> = (usize, Vec<(ProtoId, u64, Option<Vec<(LetterId, P)>>)>);

/// A worker: expands the objects it is handed until the channel closes.
fn work<P: Protocol>(
    me: usize,
    mut ex: Successors<P>,
    rx: mpsc::Receiver<Work<P>>,
    tx: mpsc::Sender<Done<P>>,
) {
    while let Ok((chunk, garbage)) = rx.recv() {
        drop(garbage);
        let mut out = Vec::with_capacity(chunk.len());
        for (id, depth, obj) in chunk {
            // A panic in protocol code is caught by `successors_of` and
            // leaves the state without a list; the search meets it again
            // (printed then, once) if the one-thread search does.
            let r = crate::quiet::quietly(|| {
                let mut succs = Vec::new();
                ex.successors_of(&obj, &mut succs).map(|()| succs)
            });
            // Dropping runs protocol code too (`Drop`).
            let _ = catch_unwind(AssertUnwindSafe(|| crate::quiet::quietly(|| drop(obj))));
            out.push((id, depth, r.ok()));
        }
        if tx.send((me, out)).is_err() {
            return;
        }
    }
}

impl<P: Protocol> Search<'_, P> {
    /// Why a liveness search (or any search under omega semantics) runs on
    /// one thread although more were asked for; `None` if it can use them.
    pub(super) fn liveness_on_one_thread(&self, initial: ProtoId) -> Option<String> {
        let why = if self.opts.reduce {
            "partial-order reduction runs on one thread"
        } else if self.opts.fair {
            "weak fairness runs on one thread"
        } else if self.ex.determinism() {
            "the determinism check runs on one thread"
        } else if self.ex.store.is_compacted() {
            "hash compaction runs on one thread"
        } else if self.ex.store.drops_objects() {
            "the collapse store (objects stored as bytes) runs on one thread"
        } else if self.heap_objects_by_default(initial) {
            return Some(super::heap_objects_reason(self.opts.audience));
        } else {
            return None;
        };
        Some(why.to_string())
    }

    /// [`couvreur`](Self::couvreur) with the object's successors computed
    /// on up to `threads` threads first (see the module docs): the same
    /// outcome as on one thread.
    pub(super) fn parallel_couvreur(
        &mut self,
        initial: ProtoId,
        threads: usize,
    ) -> Result<SearchOutcome, Error> {
        let before = self.stats.clone();
        self.state_cap = self.opts.parallel.level.max(1) as u64;
        let first = self.couvreur(initial);
        self.state_cap = u64::MAX;
        if !std::mem::take(&mut self.capped) {
            // Decided (or stopped by a limit, or failed) within the bound:
            // exactly the one-thread search, which it was.
            self.stats.single_thread = Some(format!(
                "the depth-first search ended within {} product states ({}), so no \
                 other thread was started",
                self.opts.parallel.level,
                Setting::ParallelLevel.named(self.opts.audience)
            ));
            return first;
        }
        // Start again from nothing but the stored objects (and the
        // successor generator's cache, which changes no answer).
        self.stats = before;
        self.visited = Visited::new(self.aut.num_states());
        if matches!(self.visited, Visited::Inline) {
            self.ex.store.clear_marks();
        }
        let (workers, cut) = self.expand_ahead(initial, threads);
        if workers == 0 {
            self.stats.single_thread = Some("the system would not start a thread".to_string());
        } else {
            self.stats.threads = workers as u32;
        }
        if let Some(limit) = cut {
            self.ex.graph = None;
            self.finish_progress();
            return Ok(SearchOutcome::Inconclusive(limit));
        }
        let outcome = self.couvreur(initial);
        // The graph is a cache of this check: its memory goes with it.
        self.ex.graph = None;
        outcome
    }

    /// The expand phase: the object's states reachable from `initial`
    /// (at most `max_states` of them, none deeper than the depth limit),
    /// expanded on `threads` workers, their successor lists put in the
    /// successor generator's graph. Returns the number of workers that ran, and the
    /// time or memory limit that stopped the phase, if one did.
    fn expand_ahead(&mut self, initial: ProtoId, threads: usize) -> (usize, Option<Limit>) {
        let max_objects = self.limits.max_states;
        // The search truncates at stack depth `max_depth + 1`, and a
        // state's stack depth is at least its breadth-first depth.
        let max_depth = self.limits.max_depth.saturating_add(1);
        let mut graph = Box::<Graph>::default();
        let mut queue: VecDeque<(ProtoId, u64)> = VecDeque::from([(initial, 0)]);
        // By id: queued (or expanded) already.
        let mut queued: Vec<bool> = Vec::new();
        mark(&mut queued, initial);
        let mut handed: u64 = 0;
        let alphabet = self.ex.alphabet.clone();
        let result = std::thread::scope(|s| {
            let (done_tx, done_rx) = mpsc::channel::<Done<P>>();
            let mut to: Vec<mpsc::Sender<Work<P>>> = Vec::new();
            let mut running = Vec::new();
            for _ in 0..threads {
                let me = to.len();
                let (tx, rx) = mpsc::channel();
                let ex = Successors::new(alphabet.clone(), Store::whole(), WORKER_CACHE, false);
                let done = done_tx.clone();
                let spawned = crate::stack::worker(format!("prust-expand-{me}"))
                    .spawn_scoped(s, move || work(me, ex, rx, done));
                if let Ok(handle) = spawned {
                    to.push(tx);
                    running.push(handle);
                }
            }
            drop(done_tx);
            let workers = to.len();
            if workers == 0 {
                return (0, None);
            }
            let mut in_flight = vec![0usize; workers];
            let mut garbage: Vec<Vec<P>> = (0..workers).map(|_| Vec::new()).collect();
            let mut ids: Vec<(LetterId, ProtoId)> = Vec::new();
            let mut stats = Stats::default();
            let mut full = false;
            loop {
                // Hand out work to every worker with room.
                while !queue.is_empty() && handed < max_objects {
                    let Some(w) = (0..workers)
                        .filter(|&w| in_flight[w] < IN_FLIGHT)
                        .min_by_key(|&w| in_flight[w])
                    else {
                        break;
                    };
                    let mut chunk = Vec::with_capacity(CHUNK);
                    while chunk.len() < CHUNK && handed < max_objects {
                        let Some((id, depth)) = queue.pop_front() else {
                            break;
                        };
                        // Cloning runs protocol code: a panic leaves the
                        // state to the search, which reports it.
                        let obj = self.ex.store.get(id);
                        let copy = catch_unwind(AssertUnwindSafe(|| {
                            crate::quiet::quietly(|| obj.clone())
                        }));
                        if let Ok(copy) = copy {
                            chunk.push((id, depth, copy));
                            handed += 1;
                        }
                    }
                    if chunk.is_empty() {
                        continue;
                    }
                    let g = std::mem::take(&mut garbage[w]);
                    if to[w].send((chunk, g)).is_err() {
                        // A worker that is gone panicked: the scope
                        // re-raises its panic.
                        return (workers, None);
                    }
                    in_flight[w] += 1;
                }
                if in_flight.iter().all(|&n| n == 0) {
                    break;
                }
                match done_rx.recv_timeout(Duration::from_millis(1)) {
                    Ok((w, results)) => {
                        in_flight[w] -= 1;
                        for (id, depth, list) in results {
                            let Some(list) = list else { continue };
                            if full {
                                garbage[w].extend(list.into_iter().map(|(_, o)| o));
                                continue;
                            }
                            ids.clear();
                            let stored = crate::quiet::quietly(|| {
                                catch_unwind(AssertUnwindSafe(|| {
                                    for (letter, obj) in list {
                                        let t = self.ex.store.intern(obj);
                                        ids.push((letter, t));
                                        // New, or stored before this phase
                                        // (by the bounded try, by an
                                        // earlier formula) but not queued.
                                        if !is_marked(&queued, t) {
                                            mark(&mut queued, t);
                                            if depth < max_depth {
                                                queue.push_back((t, depth + 1));
                                            }
                                        }
                                    }
                                }))
                            });
                            // A panic in the object's Hash or Eq: the
                            // search meets it where one thread does; the
                            // phase stops here.
                            if stored.is_err() || !graph.insert(id, &ids) {
                                full = true;
                                queue.clear();
                            }
                        }
                    }
                    Err(mpsc::RecvTimeoutError::Timeout) => {
                        // A worker that stopped with work in flight
                        // panicked (a bug of the search: protocol code
                        // runs under `catch_unwind`): stop waiting for it;
                        // the scope re-raises its panic.
                        if running.iter().any(|h| h.is_finished()) {
                            return (workers, None);
                        }
                    }
                    Err(mpsc::RecvTimeoutError::Disconnected) => break,
                }
                stats.protocol_states = self.ex.store.len() as u64;
                if let Some(limit) = self.budget.tick(&stats, 0) {
                    return (workers, Some(limit));
                }
            }
            (workers, None)
        });
        // The workers have stopped (the scope joined them) whatever the
        // result: the graph holds what they found.
        self.ex.graph = Some(graph);
        result
    }
}

/// Marks id `p` in the bit set `set`.
fn mark(set: &mut Vec<bool>, p: ProtoId) {
    if p.index() >= set.len() {
        set.resize((p.index() + 1).max(set.len() * 2), false);
    }
    set[p.index()] = true;
}

/// Whether id `p` is marked in `set`.
fn is_marked(set: &[bool], p: ProtoId) -> bool {
    set.get(p.index()).copied().unwrap_or(false)
}
