//! The parallel breadth-first search for safety properties: the
//! reachability search of [`Search::reachability`] on several threads,
//! with the same verdicts and the same counterexamples.
//!
//! It is level-synchronous. The states of one breadth-first level are in a
//! list, in the order in which the one-thread search finds them; threads
//! take chunks of it (the calling thread is one of them). A chunk is done
//! in two batches, each with one lock per shard it touches (see
//! [`sharded`](super::sharded)): the clones of its states' objects, then,
//! after expanding them all, the deduplication of their successors, sorted
//! by shard (in key order within a shard). When the level is done, each
//! successor's key in the store (parent position, successor index) is that
//! of its first discovery by the one-thread search: a discovery with a
//! smaller key replaces a larger one, whatever the order in which they
//! came. Each chunk lists the states whose key it set at the index of the
//! successor in the chunk's batch (which is in key order); a discovery
//! that lowers a key set by another chunk (which got there first) marks
//! that chunk's place stale. The lists without their empty and stale
//! places, joined in chunk order, are the next level in the one-thread
//! order. By induction every level, every key and every parent link is the
//! one-thread search's, whatever the number of threads and however they
//! raced.
//!
//! A violation (a universal automaton state reached) or a probe error is
//! an *event* at a key; the search finishes the level (skipping parents
//! after the earliest event so far) and reports the event with the
//! smallest key: the one the one-thread search meets first. Its trace is
//! the chain of parent links, which is the shortest path that the
//! one-thread search's own breadth-first reconstruction finds. So the
//! counterexample text is the same for every thread count.
//!
//! Small levels cost more to share than to do: a level of fewer than
//! [`PARALLEL_LEVEL`] states (by default; [`Checker::parallel_level`](crate::Checker::parallel_level))
//! is expanded by the calling thread alone, with the same store and
//! order, and the other threads start only when a level first reaches it.
//! A check that never gets there (most unit tests) starts no thread, and
//! its report says so.
//!
//! Limits hold as in the one-thread search: the calling thread watches the
//! clock and the memory ([`Budget`](crate::budget::Budget)) between its
//! chunks and while it waits for the others, and stops them; the state
//! limit is counted in the store; a level cut short by any limit ends the
//! search inconclusive, never `Holds`. One difference at the edge: when
//! the state limit falls inside the level where a violation is, this search
//! may stop inconclusive where one thread, which stops at the first
//! violation, reports it.
//!
//! Liveness stays on one thread (the report says so). What a sound
//! parallel emptiness check would take here, for whoever writes it:
//! - the automaton is a *transition-based generalised* Büchi automaton, so
//!   either the multi-core SCC algorithm of Bloemen, Laarman and van de Pol
//!   (UFSCC, 2016: a shared union-find of partial SCCs carrying the union
//!   of their acceptance marks, which is Couvreur's check spread over
//!   workers and needs no degeneralisation), or CNDFS (Evangelista,
//!   Laarman, Petrucci, van de Pol 2012) after degeneralising with a
//!   counter (k acceptance sets: k copies of each state);
//! - each worker walks the successors in its own random order (a
//!   permutation of [`Explorer::successors_of`]'s list), over a store like
//!   [`sharded`](super::sharded) with the per-state colours (CNDFS: a
//!   shared red bit and per-worker cyan) or union-find links (UFSCC);
//! - the counterexample: the first worker to close an accepting SCC stops
//!   the others; for the same counterexample on every run, rebuild it with
//!   the one-thread search's `lasso` from the states of that SCC, which is
//!   deterministic given the SCC (the SCC itself is: SCCs do not depend on
//!   the search order, but *which* accepting SCC is found first does, so a
//!   deterministic report would pick, e.g., the one the one-thread search
//!   reaches first, by re-running it bounded to the SCCs found).

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, PoisonError, RwLock};
use std::time::Duration;

use crate::alphabet::LetterId;
use crate::error::ProbeError;
use crate::ids::{AutState, ProtoId, Successor};
use crate::product::Prepared;
use crate::protocol::Protocol;
use crate::report::{Limit, RawLasso, Stats};
use crate::successors::Explorer;
use crate::{Error, Semantics};

use super::sharded::{shard_of, shard_of_id, Pending, Sharded, StateId, Visit, NO_PARENT, SHARDS};
use super::{Outcome, Search};

/// The machine's available parallelism: the default number of threads.
pub(crate) fn available_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The default [`Checker::parallel_level`](crate::Checker::parallel_level):
/// levels of fewer states are expanded by the calling thread alone.
/// Waking a thread and meeting it at the level's end costs tens of
/// microseconds; a level of 1,024 states takes a few milliseconds to
/// expand, so from there on sharing it pays.
pub(crate) const PARALLEL_LEVEL: usize = 1024;

/// Cache entries of a thread's explorer: its cache is never used (a
/// thread expands objects it owns, not stored ids), so the least there is.
const WORKER_CACHE: usize = 1;

/// The most states of a level in one chunk: a chunk's successors are
/// sorted by shard, and the more there are the more of them share a lock;
/// but the last chunk of a level keeps the others waiting.
const MAX_CHUNK: usize = 2048;

/// What a thread met while expanding the current level.
enum Found {
    /// Expanding the state failed (protocol code panicked, broke a
    /// contract): the search stops with the error, traced to the state.
    Error(ProbeError, StateId),
    /// A successor in a universal automaton state: a violation.
    Bad(StateId),
}

/// An event and where the one-thread search would meet it: the parent's
/// position in the level, then 0 for an error in expanding it, or one
/// more than the successor's index for a violation (an error in a state
/// is met before any of its successors).
struct Event {
    at: (u64, u32),
    found: Found,
}

/// The states of the next level whose key one chunk of the current level
/// set, at the index of the successor in the chunk's batch ([`NO_PARENT`]
/// elsewhere, and where a place went stale).
type Discovered = Vec<StateId>;

/// What the workers are told to do next.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Cmd {
    Expand,
    Quit,
}

/// The hand-over between the calling thread and the workers: a new
/// generation starts a phase, and each worker counts itself done.
struct Phase {
    generation: u64,
    cmd: Cmd,
    finished: usize,
    /// A worker panicked (a bug of the search, not protocol code, which
    /// runs under `catch_unwind`): stop waiting for it.
    crashed: bool,
}

/// The state shared by the threads of one search.
struct Shared<'s, P> {
    store: Sharded<P>,
    aut: &'s Prepared,
    stutter: bool,
    /// The level being expanded, in the one-thread order.
    level: RwLock<Vec<StateId>>,
    depth: AtomicU64,
    chunk: AtomicUsize,
    next_chunk: AtomicUsize,
    /// Per chunk of the level: the states whose key it set.
    outputs: Mutex<Vec<(usize, Discovered)>>,
    /// Places in those lists gone stale: (chunk, index).
    stale: Mutex<Vec<(usize, u32)>>,
    /// Stop expanding: a limit was reached.
    stop: AtomicBool,
    /// The state limit was reached.
    full: AtomicBool,
    /// A state past the depth limit was left out.
    truncated: AtomicBool,
    transitions: AtomicU64,
    event: Mutex<Option<Event>>,
    /// Positions after this one need not be expanded: an event at it (or
    /// before) comes first.
    bound: AtomicU64,
    phase: Mutex<Phase>,
    start: Condvar,
    done: Condvar,
}

/// One thread's explorer and scratch space, kept from chunk to chunk so
/// that its buffers are allocated (and freed) by the thread that uses them.
struct Worker<P> {
    ex: Explorer<P>,
    succs: Vec<(LetterId, P)>,
    /// The clones of the chunk's objects, by place in the chunk.
    parents: Vec<Option<(P, AutState)>>,
    /// The chunk's successors, in key order.
    pending: Vec<Option<Pending<P>>>,
    /// Indices sorted by shard, and where each shard's run ends.
    order: Vec<u32>,
    ends: Vec<u32>,
    /// Places made stale this level: (parent position, place).
    stale: Vec<(u32, u32)>,
}

impl<P: Protocol> Worker<P> {
    fn new(ex: Explorer<P>) -> Self {
        Worker {
            ex,
            succs: Vec::new(),
            parents: Vec::new(),
            pending: Vec::new(),
            order: Vec::new(),
            ends: Vec::new(),
            stale: Vec::new(),
        }
    }
}

/// Sorts `0..n` by `shard` (a stable counting sort) into `order`; the run
/// of shard `s` ends at `ends[s]`.
fn by_shard(n: usize, shard: impl Fn(usize) -> usize, order: &mut Vec<u32>, ends: &mut Vec<u32>) {
    ends.clear();
    ends.resize(SHARDS, 0);
    for i in 0..n {
        ends[shard(i)] += 1;
    }
    let mut sum = 0;
    for e in ends.iter_mut() {
        let k = *e;
        *e = sum;
        sum += k;
    }
    order.clear();
    order.resize(n, 0);
    for i in 0..n {
        let s = shard(i);
        order[ends[s] as usize] = i as u32;
        ends[s] += 1;
    }
}

impl<P: Protocol> Shared<'_, P> {
    fn record(&self, at: (u64, u32), found: Found) {
        let mut ev = self.event.lock().unwrap_or_else(PoisonError::into_inner);
        if ev.as_ref().is_none_or(|e| at < e.at) {
            *ev = Some(Event { at, found });
        }
        self.bound.fetch_min(at.0, Ordering::Relaxed);
    }

    /// A worker: waits for a phase, runs it, counts itself done.
    fn work(&self, mut w: Worker<P>) {
        /// Counts a panicking worker out, so that the calling thread does
        /// not wait for it for ever (the scope then re-raises the panic).
        struct Guard<'g, 's, P>(&'g Shared<'s, P>);
        impl<P> Drop for Guard<'_, '_, P> {
            fn drop(&mut self) {
                if std::thread::panicking() {
                    let mut ph = self.0.phase.lock().unwrap_or_else(PoisonError::into_inner);
                    ph.crashed = true;
                    self.0.done.notify_all();
                }
            }
        }
        let _guard = Guard(self);
        let mut generation = 0;
        loop {
            let cmd = {
                let mut ph = self.phase.lock().unwrap_or_else(PoisonError::into_inner);
                while ph.generation == generation {
                    ph = self.start.wait(ph).unwrap_or_else(PoisonError::into_inner);
                }
                generation = ph.generation;
                ph.cmd
            };
            match cmd {
                Cmd::Quit => return,
                Cmd::Expand => self.expand_level(&mut w, || false),
            }
            let mut ph = self.phase.lock().unwrap_or_else(PoisonError::into_inner);
            ph.finished += 1;
            self.done.notify_all();
        }
    }

    /// The expand phase: chunks of the level until none is left; `tick`
    /// runs after each chunk and stops the thread when it returns `true`.
    fn expand_level(&self, w: &mut Worker<P>, mut tick: impl FnMut() -> bool) {
        let level = self.level.read().unwrap_or_else(PoisonError::into_inner);
        let depth = self.depth.load(Ordering::Relaxed);
        let chunk = self.chunk.load(Ordering::Relaxed);
        w.stale.clear();
        loop {
            let c = self.next_chunk.fetch_add(1, Ordering::Relaxed);
            let first = c.saturating_mul(chunk);
            if first >= level.len() || self.stop.load(Ordering::Relaxed) {
                break;
            }
            let ids = &level[first..level.len().min(first + chunk)];
            let out = self.expand_chunk(w, ids, first, depth);
            self.outputs
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push((c, out));
            if tick() {
                break;
            }
        }
        if !w.stale.is_empty() {
            self.stale
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .extend(
                    w.stale
                        .drain(..)
                        .map(|(pos, slot)| (pos as usize / chunk, slot)),
                );
        }
    }

    /// Expands the states `ids`, at positions `first..` of level `depth`:
    /// clones of their objects (a lock per shard), their successors in the
    /// one-thread search's order, then those deduplicated in the store (a
    /// lock per shard). Returns the chunk's list (see [`Discovered`]).
    fn expand_chunk(
        &self,
        w: &mut Worker<P>,
        ids: &[StateId],
        first: usize,
        depth: u64,
    ) -> Discovered {
        let n = ids.len();
        w.parents.clear();
        w.parents.resize_with(n, || None);
        by_shard(n, |i| shard_of_id(ids[i]), &mut w.order, &mut w.ends);
        let mut start = 0;
        for (s, &end) in w.ends.iter().enumerate() {
            let end = end as usize;
            if end > start {
                let locked = self.store.locked(s);
                for &i in &w.order[start..end] {
                    w.parents[i as usize] = Some(locked.clone_of(ids[i as usize]));
                }
            }
            start = end;
        }
        w.pending.clear();
        let mut transitions = 0;
        for (i, &id) in ids.iter().enumerate() {
            let pos = (first + i) as u64;
            if self.stop.load(Ordering::Relaxed) || pos > self.bound.load(Ordering::Relaxed) {
                break;
            }
            let (obj, q) = w.parents[i].take().expect("cloned above");
            transitions += self.expand(w, obj, q, pos, id);
        }
        self.transitions.fetch_add(transitions, Ordering::Relaxed);
        let level = u32::try_from(depth + 1).unwrap_or(u32::MAX);
        let m = w.pending.len();
        let mut out = vec![NO_PARENT; m];
        let Worker {
            ex,
            pending,
            order,
            ends,
            stale,
            ..
        } = w;
        by_shard(
            m,
            |i| pending[i].as_ref().map_or(0, |p| shard_of(p.hash)),
            order,
            ends,
        );
        let mut start = 0;
        for (s, &end) in ends.iter().enumerate() {
            let end = end as usize;
            if end == start {
                continue;
            }
            let mut locked = self.store.locked(s);
            for &i in &order[start..end] {
                let Some(p) = pending[i as usize].take() else {
                    continue;
                };
                let (letter, key, q2, parent) = (p.letter, p.key, p.q, p.parent);
                match ex.guarded(letter, || locked.visit(level, p, i)) {
                    Err(e) => self.record((u64::from(key.0), 0), Found::Error(e, parent)),
                    Ok(visit @ (Visit::New(id) | Visit::Lowered(id, ..))) => {
                        if let Visit::Lowered(_, pos, slot) = visit {
                            stale.push((pos, slot));
                        }
                        out[i as usize] = id;
                        if self.aut.universal(q2) {
                            self.record((u64::from(key.0), key.1 + 1), Found::Bad(id));
                        }
                    }
                    Ok(Visit::Seen) => {}
                    Ok(Visit::TooDeep) => self.truncated.store(true, Ordering::Relaxed),
                    Ok(Visit::Full) => {
                        self.full.store(true, Ordering::Relaxed);
                        self.stop.store(true, Ordering::Relaxed);
                        // What is left is dropped here, by this thread.
                        pending.clear();
                        return out;
                    }
                }
            }
            start = end;
        }
        out
    }

    /// Expands the object `obj` of the state `id` (automaton state `q`) at
    /// position `pos` of its level: its successors in the one-thread
    /// search's order (letters in order, then the automaton edges of
    /// each), appended to the worker's batch. Returns the transitions.
    fn expand(&self, w: &mut Worker<P>, obj: P, q: AutState, pos: u64, id: StateId) -> u64 {
        let (first, ne) = self.aut.edges_of(q);
        if ne == 0 {
            return 0;
        }
        let ex = &mut w.ex;
        let succs = &mut w.succs;
        succs.clear();
        if let Err(e) = ex.successors_of(&obj, succs) {
            self.record((pos, 0), Found::Error(e, id));
            return 0;
        }
        if succs.is_empty() && self.stutter {
            // No action at all: the run stutters on END or DEADLOCK.
            match ex.object_is_terminated(&obj) {
                Ok(t) => {
                    let a = &ex.alphabet;
                    succs.push((if t { a.end() } else { a.deadlock() }, obj));
                }
                Err(e) => {
                    self.record((pos, 0), Found::Error(e, id));
                    return 0;
                }
            }
        }
        // Positions fit in 32 bits: the store holds fewer states.
        let pos32 = pos as u32;
        let mut index: u32 = 0;
        for (letter, target) in succs.drain(..) {
            let allowing = || (first..first + ne).filter(|&e| self.aut.allows(e, letter));
            let edges = allowing().count();
            if edges == 0 {
                continue;
            }
            let hash = match ex.guarded(letter, || self.store.hash(&target)) {
                Ok(h) => h,
                Err(e) => {
                    self.record((pos, 0), Found::Error(e, id));
                    return u64::from(index);
                }
            };
            let mut target = Some(target);
            for (k, e) in allowing().enumerate() {
                let obj = if k + 1 == edges {
                    target.take().expect("moved on the last edge only")
                } else {
                    target.as_ref().expect("kept until the last edge").clone()
                };
                w.pending.push(Some(Pending {
                    obj,
                    hash,
                    q: self.aut.edge(e).target,
                    key: (pos32, index),
                    parent: id,
                    letter,
                }));
                index += 1;
            }
        }
        u64::from(index)
    }
}

impl<P: Protocol> Search<'_, P> {
    /// [`reachability`](Self::reachability) on up to `threads` threads
    /// (see the module docs): the same verdict, and for a violation the
    /// same counterexample.
    pub(super) fn parallel_reachability(
        &mut self,
        initial: ProtoId,
        threads: usize,
    ) -> Result<Outcome, Error> {
        let q0 = self.aut.initial;
        if self.bad_prefix(q0) {
            self.finish_progress();
            return Ok(Outcome::Violated(RawLasso {
                prefix: Vec::new(),
                cycle: Vec::new(),
            }));
        }
        let shared = Shared {
            store: Sharded::new(self.limits.max_depth, self.limits.max_states),
            aut: self.aut,
            stutter: self.limits.semantics == Semantics::Stutter,
            level: RwLock::new(Vec::new()),
            depth: AtomicU64::new(0),
            chunk: AtomicUsize::new(1),
            next_chunk: AtomicUsize::new(0),
            outputs: Mutex::new(Vec::new()),
            stale: Mutex::new(Vec::new()),
            stop: AtomicBool::new(false),
            full: AtomicBool::new(false),
            truncated: AtomicBool::new(false),
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
        let root = self.ex.store.get(initial).clone();
        let hash = shared.store.hash(&root);
        let root = shared.store.root(root, hash, q0);
        *shared.level.write().unwrap_or_else(PoisonError::into_inner) = vec![root];
        self.stored_apart = true;
        let (outcome, running, tried) = std::thread::scope(|s| {
            let mut crew = Crew {
                scope: s,
                threads,
                running: 0,
                tried: false,
            };
            let outcome = self.coordinate(&shared, &mut crew);
            if crew.running > 0 {
                self.run_phase(&shared, crew.running, Cmd::Quit, 0);
            }
            (outcome, crew.running, crew.tried)
        });
        self.stats.threads = running as u32 + 1;
        if running == 0 {
            // Said in the report: the search asked for threads and used one.
            self.stats.single_thread = Some(if tried {
                "the system would not start a thread".to_string()
            } else {
                format!(
                    "no breadth-first level reached {} states (Checker::parallel_level), so no \
                     other thread was started",
                    self.parallel_level
                )
            });
        }
        self.stats.product_states = shared.store.states().min(self.limits.max_states);
        self.stats.transitions = shared.transitions.load(Ordering::Relaxed);
        self.finish_progress();
        self.stats.protocol_states = shared.store.objects();
        match outcome? {
            Step::Done(o) => Ok(o),
            Step::Found(Event {
                found: Found::Bad(id),
                ..
            }) => Ok(Outcome::Violated(RawLasso {
                prefix: self.path_to(&shared.store, id),
                cycle: Vec::new(),
            })),
            Step::Found(Event {
                found: Found::Error(e, id),
                ..
            }) => {
                let trace = self
                    .path_to(&shared.store, id)
                    .iter()
                    .map(|s| self.ex.alphabet.describe(s.letter))
                    .collect();
                Err(self.probe_error_after(e, trace))
            }
        }
    }

    /// Runs the levels until the search is decided (on the calling
    /// thread, with the workers of `crew` once a level is large enough).
    fn coordinate<'scope, 'env>(
        &mut self,
        shared: &'scope Shared<'_, P>,
        crew: &mut Crew<'scope, 'env>,
    ) -> Result<Step, Error>
    where
        P: 'scope,
    {
        let mut own = Worker::new(Explorer::new(self.ex.alphabet.clone(), WORKER_CACHE, false));
        let mut depth: u64 = 0;
        loop {
            let len = shared
                .level
                .read()
                .unwrap_or_else(PoisonError::into_inner)
                .len();
            if len >= self.parallel_level.max(1) && !crew.tried {
                crew.tried = true;
                self.start_workers(shared, crew);
            }
            let helpers = if len >= self.parallel_level.max(1) {
                crew.running
            } else {
                0
            };
            // Chunks small enough to share a level among the threads, large
            // enough that their successors share the shards' locks.
            let chunk = (len / ((helpers + 1) * 8)).clamp(16, MAX_CHUNK);
            shared.depth.store(depth, Ordering::Relaxed);
            shared.chunk.store(chunk, Ordering::Relaxed);
            shared.next_chunk.store(0, Ordering::Relaxed);
            shared.store.start_level();
            if let Some(limit) = self.run_level(shared, helpers, depth, &mut own) {
                return Ok(Step::Done(Outcome::Inconclusive(limit)));
            }
            if shared.full.load(Ordering::Relaxed) {
                return Ok(Step::Done(Outcome::Inconclusive(Limit::States(
                    self.limits.max_states,
                ))));
            }
            let event = shared
                .event
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take();
            if let Some(event) = event {
                if matches!(event.found, Found::Bad(_)) {
                    // As the one-thread search counts it: the violation's
                    // state is one level deeper.
                    self.stats.max_depth = depth + 1;
                }
                return Ok(Step::Found(event));
            }
            let outputs = std::mem::take(
                &mut *shared
                    .outputs
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner),
            );
            // Lists by chunk number (threads finish chunks in any order),
            // to remove the stale places and join them in level order.
            let mut lists: Vec<Discovered> = Vec::new();
            for (c, list) in outputs {
                lists.resize_with(lists.len().max(c + 1), Vec::new);
                lists[c] = list;
            }
            let stale =
                std::mem::take(&mut *shared.stale.lock().unwrap_or_else(PoisonError::into_inner));
            for (c, slot) in stale {
                lists[c][slot as usize] = NO_PARENT;
            }
            let mut next = Vec::new();
            for list in lists {
                next.extend(list.into_iter().filter(|&id| id != NO_PARENT));
            }
            if next.is_empty() {
                break;
            }
            self.stats.max_depth = depth + 1;
            *shared.level.write().unwrap_or_else(PoisonError::into_inner) = next;
            depth += 1;
        }
        if shared.truncated.load(Ordering::Relaxed) {
            return Ok(Step::Done(Outcome::Inconclusive(Limit::Depth(
                self.limits.max_depth,
            ))));
        }
        Ok(Step::Done(Outcome::Holds))
    }

    /// Starts the crew's workers (all but the calling thread). A thread
    /// the system refuses is one worker fewer (the phases count the
    /// workers that run), not a failed check.
    fn start_workers<'scope, 'env>(
        &self,
        shared: &'scope Shared<'_, P>,
        crew: &mut Crew<'scope, 'env>,
    ) where
        P: 'scope,
    {
        for _ in 1..crew.threads {
            let w = Worker::new(Explorer::new(self.ex.alphabet.clone(), WORKER_CACHE, false));
            let spawned = std::thread::Builder::new()
                .name(format!("prust-search-{}", crew.running + 1))
                .spawn_scoped(crew.scope, move || shared.work(w));
            crew.running += usize::from(spawned.is_ok());
        }
    }

    /// One level: the calling thread expands chunks (watching the budget
    /// between them) alongside `helpers` workers, and waits for them.
    fn run_level(
        &mut self,
        shared: &Shared<'_, P>,
        helpers: usize,
        depth: u64,
        own: &mut Worker<P>,
    ) -> Option<Limit> {
        if helpers > 0 {
            let mut ph = shared.phase.lock().unwrap_or_else(PoisonError::into_inner);
            ph.generation += 1;
            ph.cmd = Cmd::Expand;
            ph.finished = 0;
            shared.start.notify_all();
        }
        let mut limit = self.tick(shared, depth);
        if limit.is_none() {
            shared.expand_level(own, || {
                limit = self.tick(shared, depth);
                limit.is_some()
            });
        }
        if helpers > 0 {
            limit = self
                .run_phase(shared, helpers, Cmd::Expand, depth)
                .or(limit);
        }
        limit
    }

    /// The budget's tick with the shared counts; a limit stops the
    /// threads.
    fn tick(&mut self, shared: &Shared<'_, P>, depth: u64) -> Option<Limit> {
        let stats = Stats {
            product_states: shared.store.states(),
            transitions: shared.transitions.load(Ordering::Relaxed),
            ..self.stats.clone()
        };
        let limit = self.budget.tick(&stats, depth);
        if limit.is_some() {
            shared.stop.store(true, Ordering::Relaxed);
        }
        limit
    }

    /// Waits for every worker to finish the phase (after starting it, for
    /// `Quit`), watching the budget (time, memory, the progress line)
    /// meanwhile; a limit stops the workers and is returned.
    fn run_phase(
        &mut self,
        shared: &Shared<'_, P>,
        threads: usize,
        cmd: Cmd,
        depth: u64,
    ) -> Option<Limit> {
        let mut ph = shared.phase.lock().unwrap_or_else(PoisonError::into_inner);
        if cmd == Cmd::Quit {
            ph.generation += 1;
            ph.cmd = cmd;
            ph.finished = 0;
            shared.start.notify_all();
            return None;
        }
        let mut limit = None;
        while ph.finished < threads && !ph.crashed {
            let (g, _) = shared
                .done
                .wait_timeout(ph, Duration::from_millis(1))
                .unwrap_or_else(PoisonError::into_inner);
            ph = g;
            if limit.is_none() && ph.finished < threads {
                drop(ph);
                limit = self.tick(shared, depth);
                ph = shared.phase.lock().unwrap_or_else(PoisonError::into_inner);
            }
        }
        if ph.crashed {
            // The scope re-raises the worker's panic; until it does, stop.
            shared.stop.store(true, Ordering::Relaxed);
        }
        limit
    }

    /// The path from the initial state to `id` by the stored parent links,
    /// its objects interned in the explorer (where the counterexample is
    /// read from).
    fn path_to(&mut self, store: &Sharded<P>, id: StateId) -> Vec<Successor> {
        let mut chain = Vec::new();
        let mut cur = id;
        while cur != NO_PARENT {
            let (obj, l) = store.get(cur);
            chain.push((obj, l.q, l.letter));
            cur = l.parent();
        }
        chain.reverse();
        let mut path = Vec::with_capacity(chain.len().saturating_sub(1));
        let mut prev: Option<AutState> = None;
        for (obj, q, letter) in chain {
            if let Some(from) = prev {
                // The first edge that takes `letter` to `q`: the one whose
                // successor index is the stored key.
                let (first, ne) = self.aut.edges_of(from);
                let acc = (first..first + ne)
                    .find(|&e| self.aut.allows(e, letter) && self.aut.edge(e).target == q)
                    .map_or(0, |e| self.aut.edge(e).acc);
                path.push(Successor {
                    letter,
                    proto: self.ex.store.intern(obj),
                    state: q,
                    acc,
                });
            }
            prev = Some(q);
        }
        path
    }
}

/// The worker threads of one search, started on demand in `scope`.
struct Crew<'scope, 'env> {
    scope: &'scope std::thread::Scope<'scope, 'env>,
    /// The threads asked for, the calling one included.
    threads: usize,
    /// Workers started (the calling thread not counted).
    running: usize,
    /// Whether they were started (or tried).
    tried: bool,
}

/// How [`Search::coordinate`] ended: a decision, or an event to report.
enum Step {
    Done(Outcome),
    Found(Event),
}
