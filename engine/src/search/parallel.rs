//! The parallel breadth-first search for safety properties: the
//! reachability search of [`Search::reachability`] on several threads,
//! with the same verdicts and the same counterexamples.
//!
//! It is level-synchronous. The states of one breadth-first level are in a
//! list, in the order in which the one-thread search finds them; workers
//! take chunks of it, expand each state (a clone of it: see
//! [`sharded`](super::sharded)) and deduplicate the successors in the
//! shared store. When the level is done, each successor's key in the store
//! (parent position, successor index) is that of its first discovery by
//! the one-thread search. Each chunk lists the states whose key it set, in
//! the order it set them; a chunk that lowers a key set by a later chunk
//! (which got there first) marks the later chunk's place stale. The lists
//! without their stale places, joined in chunk order, are the next level in
//! the one-thread order. By induction every level, every key and every
//! parent link is the one-thread search's, whatever the number of threads
//! and however the workers raced.
//!
//! A violation (a universal automaton state reached) or a probe error is
//! an *event* at a key; the search finishes the level (skipping parents
//! after the earliest event so far) and reports the event with the
//! smallest key: the one the one-thread search meets first. Its trace is
//! the chain of parent links, which is the shortest path that the
//! one-thread search's own breadth-first reconstruction finds. So the
//! counterexample text is the same for every thread count.
//!
//! Limits hold as in the one-thread search: the calling thread watches the
//! clock and the memory ([`Budget`](crate::budget::Budget)) while the
//! workers run and stops them; the state limit is counted in the store; a
//! level cut short by any limit ends the search inconclusive, never
//! `Holds`. One difference at the edge: when the state limit falls inside
//! the level where a violation is, this search may stop inconclusive where
//! one thread, which stops at the first violation, reports it.
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

use super::sharded::{From, Sharded, StateId, Visit, NO_PARENT};
use super::{Outcome, Search};

/// The machine's available parallelism: the default number of threads.
pub(crate) fn available_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Cache entries of a worker's explorer: its cache is never used (a
/// worker expands objects it owns, not stored ids), so the least there is.
const WORKER_CACHE: usize = 1;

/// What a worker met while expanding the current level.
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
/// set, in the order it set them ([`NO_PARENT`] where a place went stale).
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

/// The state shared by the workers of one search.
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

impl<P: Protocol> Shared<'_, P> {
    fn record(&self, at: (u64, u32), found: Found) {
        let mut ev = self.event.lock().unwrap_or_else(PoisonError::into_inner);
        if ev.as_ref().is_none_or(|e| at < e.at) {
            *ev = Some(Event { at, found });
        }
        self.bound.fetch_min(at.0, Ordering::Relaxed);
    }

    /// A worker: waits for a phase, runs it, counts itself done.
    fn work(&self, mut ex: Explorer<P>) {
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
        let mut succs: Vec<(LetterId, P)> = Vec::new();
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
                Cmd::Expand => self.expand_level(&mut ex, &mut succs),
            }
            let mut ph = self.phase.lock().unwrap_or_else(PoisonError::into_inner);
            ph.finished += 1;
            self.done.notify_all();
        }
    }

    /// The expand phase: chunks of the level until none is left.
    fn expand_level(&self, ex: &mut Explorer<P>, succs: &mut Vec<(LetterId, P)>) {
        let level = self.level.read().unwrap_or_else(PoisonError::into_inner);
        let depth = self.depth.load(Ordering::Relaxed);
        let chunk = self.chunk.load(Ordering::Relaxed);
        let mut transitions = 0;
        let mut stale = Vec::new();
        loop {
            let c = self.next_chunk.fetch_add(1, Ordering::Relaxed);
            let first = c.saturating_mul(chunk);
            if first >= level.len() || self.stop.load(Ordering::Relaxed) {
                break;
            }
            let mut out = Vec::new();
            for (pos, &id) in level.iter().enumerate().skip(first).take(chunk) {
                let pos = pos as u64;
                if self.stop.load(Ordering::Relaxed) || pos > self.bound.load(Ordering::Relaxed) {
                    break;
                }
                transitions += self.expand(ex, succs, depth, pos, id, &mut out, &mut stale);
            }
            self.outputs
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push((c, out));
        }
        self.transitions.fetch_add(transitions, Ordering::Relaxed);
        if !stale.is_empty() {
            let chunk = chunk as u64;
            self.stale
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .extend(
                    stale
                        .into_iter()
                        .map(|(pos, slot)| ((pos / chunk) as usize, slot)),
                );
        }
    }

    /// Expands the state `id` at position `pos` of level `depth`: its
    /// successors in the one-thread search's order (letters in order,
    /// then the automaton edges of each), deduplicated in the store. The
    /// states whose key this sets go to `out`, the (parent position, slot)
    /// of keys it lowers to `stale`. Returns the transitions.
    #[allow(clippy::too_many_arguments)]
    fn expand(
        &self,
        ex: &mut Explorer<P>,
        succs: &mut Vec<(LetterId, P)>,
        depth: u64,
        pos: u64,
        id: StateId,
        out: &mut Discovered,
        stale: &mut Vec<(u64, u32)>,
    ) -> u64 {
        let (obj, entry) = self.store.get(id);
        let q = entry.q;
        let (first, ne) = self.aut.edges_of(q);
        if ne == 0 {
            return 0;
        }
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
        let level = u32::try_from(depth + 1).unwrap_or(u32::MAX);
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
                    return 0;
                }
            };
            let mut target = Some(target);
            for (k, e) in allowing().enumerate() {
                let q2 = self.aut.edge(e).target;
                let key = (pos, index);
                index += 1;
                let t = if k + 1 == edges {
                    target.take().expect("moved on the last edge only")
                } else {
                    target.as_ref().expect("kept until the last edge").clone()
                };
                let from = From {
                    level,
                    key,
                    parent: id,
                    letter,
                    slot: out.len() as u32,
                };
                let visited = ex.guarded(letter, || self.store.visit(t, hash, q2, from));
                match visited {
                    Err(e) => {
                        self.record((pos, 0), Found::Error(e, id));
                        return u64::from(index);
                    }
                    Ok(visit @ (Visit::New(n) | Visit::Lowered(n, ..))) => {
                        if let Visit::Lowered(_, pos, slot) = visit {
                            stale.push((pos, slot));
                        }
                        out.push(n);
                        if self.aut.universal(q2) {
                            self.record((pos, key.1 + 1), Found::Bad(n));
                        }
                    }
                    Ok(Visit::Seen) => {}
                    Ok(Visit::TooDeep) => self.truncated.store(true, Ordering::Relaxed),
                    Ok(Visit::Full) => {
                        self.full.store(true, Ordering::Relaxed);
                        self.stop.store(true, Ordering::Relaxed);
                        return u64::from(index);
                    }
                }
            }
        }
        u64::from(index)
    }
}

impl<P: Protocol> Search<'_, P> {
    /// [`reachability`](Self::reachability) on `threads` worker threads
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
        let workers: Vec<Explorer<P>> = (0..threads)
            .map(|_| Explorer::new(self.ex.alphabet.clone(), WORKER_CACHE, false))
            .collect();
        let outcome = std::thread::scope(|s| {
            // A thread the system refuses is one worker fewer (the phases
            // count the workers that run), not a failed check.
            let mut running = 0;
            for ex in workers {
                let shared = &shared;
                let spawned = std::thread::Builder::new()
                    .name(format!("prust-search-{running}"))
                    .spawn_scoped(s, move || shared.work(ex));
                running += usize::from(spawned.is_ok());
            }
            if running == 0 {
                return None;
            }
            let outcome = self.coordinate(&shared, running);
            self.run_phase(&shared, running, Cmd::Quit, 0);
            Some((outcome, running))
        });
        let Some((outcome, running)) = outcome else {
            self.stats.threads = 1;
            self.stats.single_thread = Some("the system would not start a thread".to_string());
            return self.reachability(initial);
        };
        self.stats.threads = running as u32;
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
    /// thread, while the workers expand).
    fn coordinate(&mut self, shared: &Shared<'_, P>, threads: usize) -> Result<Step, Error> {
        let mut depth: u64 = 0;
        loop {
            let len = shared
                .level
                .read()
                .unwrap_or_else(PoisonError::into_inner)
                .len();
            // Chunks small enough to share a level among the threads, large
            // enough that taking one is rare.
            let chunk = (len / (threads * 16)).clamp(1, 1024);
            shared.depth.store(depth, Ordering::Relaxed);
            shared.chunk.store(chunk, Ordering::Relaxed);
            shared.next_chunk.store(0, Ordering::Relaxed);
            if let Some(limit) = self.run_phase(shared, threads, Cmd::Expand, depth) {
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
            // Lists by chunk number (workers finish chunks in any order),
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
            let mut next = Vec::with_capacity(lists.iter().map(Vec::len).sum());
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

    /// Starts a phase and waits for every worker to finish it, watching
    /// the budget (time, memory, the progress line) meanwhile; a limit
    /// stops the workers and is returned.
    fn run_phase(
        &mut self,
        shared: &Shared<'_, P>,
        threads: usize,
        cmd: Cmd,
        depth: u64,
    ) -> Option<Limit> {
        let mut ph = shared.phase.lock().unwrap_or_else(PoisonError::into_inner);
        ph.generation += 1;
        ph.cmd = cmd;
        ph.finished = 0;
        shared.start.notify_all();
        if cmd == Cmd::Quit {
            return None;
        }
        let mut limit = None;
        while ph.finished < threads && !ph.crashed {
            let (g, _) = shared
                .done
                .wait_timeout(ph, Duration::from_millis(1))
                .unwrap_or_else(PoisonError::into_inner);
            ph = g;
            if limit.is_none() {
                let stats = Stats {
                    product_states: shared.store.states(),
                    transitions: shared.transitions.load(Ordering::Relaxed),
                    ..self.stats.clone()
                };
                limit = self.budget.tick(&stats, depth);
                if limit.is_some() {
                    shared.stop.store(true, Ordering::Relaxed);
                }
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
            let (obj, e) = store.get(cur);
            chain.push((obj, e.q, e.letter));
            cur = e.parent;
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

/// How [`Search::coordinate`] ended: a decision, or an event to report.
enum Step {
    Done(Outcome),
    Found(Event),
}
