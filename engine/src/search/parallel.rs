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
//! A successor's *key* is (position of its parent in the level, index of
//! the successor in the parent's expansion): the order of discovery of the
//! one-thread search. A state found by several parents of the level keeps
//! the smallest key and that parent, whatever the order in which its owner
//! saw them. The threads' sorted lists, merged by key, are the next level
//! in the one-thread order. By induction every level, every key and every
//! parent link is the one-thread search's, whatever the number of threads
//! and however they raced.
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

use std::collections::BinaryHeap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
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

use super::sharded::{key, shard_of_id, Key, Locked, Pending, Sharded, StateId, Visit, NO_PARENT};
use super::{Outcome, Search};

/// The machine's available parallelism: the default number of threads.
pub(crate) fn available_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The default [`Checker::parallel_level`](crate::Checker::parallel_level):
/// levels of fewer states are expanded by the calling thread alone.
/// Waking the threads and meeting them twice a level costs tens of
/// microseconds; a level of 1,024 states takes milliseconds to expand, so
/// from there on sharing it pays.
pub(crate) const PARALLEL_LEVEL: usize = 1024;

/// Cache entries of a thread's explorer: its cache is never used (a
/// thread expands objects, not the explorer's ids), so the least there is.
const WORKER_CACHE: usize = 1;

/// How many states the calling thread expands between two looks at the
/// budget (a tick copies the statistics).
const TICK_EVERY: usize = 64;

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

/// What the workers are told to do next.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Cmd {
    /// Expand the level's states of the thread's shards.
    Expand,
    /// Deduplicate what the others handed over, and list the new states.
    Settle,
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

/// Successors handed to a shard's owner: the thread that made them, and
/// them in its key order.
type Batch<P> = (usize, Vec<Pending<P>>);

/// A batch back to its maker: emptied (to reuse), with the objects it held
/// that were not stored (to free).
type Returned<P> = (Vec<Pending<P>>, Vec<P>);

/// The state shared by the threads of one search.
struct Shared<'s, P> {
    store: Sharded<P>,
    aut: &'s Prepared,
    stutter: bool,
    /// The level being expanded, in the one-thread order.
    level: RwLock<Vec<StateId>>,
    depth: AtomicU64,
    /// Threads sharing the current level (the calling thread included).
    parties: AtomicU64,
    /// Per thread: the successors the others made in its shards, in
    /// batches (each in the key order of its maker), with the maker.
    inbox: Vec<Mutex<Vec<Batch<P>>>>,
    /// Per thread: its batches back, emptied, with the objects they held
    /// that were not stored. glibc's allocator slows down badly (a sixth
    /// of the time, in `malloc_consolidate` and `unlink_chunk`) when
    /// threads free each other's blocks, so each thread frees what it made.
    returned: Mutex<Vec<Vec<Returned<P>>>>,
    /// Per thread: the new states of its shards, sorted by key.
    found: Mutex<Vec<Vec<(Key, StateId)>>>,
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

/// One thread's explorer and scratch space, kept from level to level, so
/// that its buffers are allocated and freed by the thread that uses them.
struct Worker<P> {
    /// The thread's number (the calling thread's is 0).
    me: usize,
    ex: Explorer<P>,
    succs: Vec<(LetterId, P)>,
    /// Per thread: the successors of this level made here that fall in
    /// its shards.
    outbox: Vec<Vec<Pending<P>>>,
    /// Emptied batches, for the outbox.
    spare: Vec<Vec<Pending<P>>>,
    found: Vec<(Key, StateId)>,
}

impl<P: Protocol> Worker<P> {
    fn new(me: usize, ex: Explorer<P>) -> Self {
        Worker {
            me,
            ex,
            succs: Vec::new(),
            outbox: Vec::new(),
            spare: Vec::new(),
            found: Vec::new(),
        }
    }
}

/// The locks of the shards that thread `me` of `parties` owns, by shard.
fn own_shards<'a, P: Protocol>(
    store: &'a Sharded<P>,
    me: usize,
    parties: usize,
) -> Vec<Option<Locked<'a, P>>> {
    (0..store.shards())
        .map(|s| (s % parties == me).then(|| store.locked(s)))
        .collect()
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
                Cmd::Settle => self.settle_level(&mut w),
            }
            let mut ph = self.phase.lock().unwrap_or_else(PoisonError::into_inner);
            ph.finished += 1;
            self.done.notify_all();
        }
    }

    /// The expand phase: the level's states in the thread's shards, in
    /// level order, each expanded in place; a successor in one of the
    /// thread's shards is deduplicated at once, the others go to their
    /// owners' inboxes. `tick` runs every [`TICK_EVERY`] states and stops
    /// the thread when it returns `true`.
    fn expand_level(&self, w: &mut Worker<P>, mut tick: impl FnMut() -> bool) {
        let level = self.level.read().unwrap_or_else(PoisonError::into_inner);
        let depth = self.depth.load(Ordering::Relaxed);
        let next = u32::try_from(depth + 1).unwrap_or(u32::MAX);
        let parties = self.parties.load(Ordering::Relaxed) as usize;
        let me = w.me;
        let back =
            std::mem::take(&mut self.returned.lock().unwrap_or_else(PoisonError::into_inner)[me]);
        for (batch, left) in back {
            drop(left);
            w.spare.push(batch);
        }
        let mut shards = own_shards(&self.store, me, parties);
        w.outbox.resize_with(parties, Vec::new);
        let mut transitions = 0;
        let mut expanded = 0;
        for (pos, &id) in level.iter().enumerate() {
            let s = shard_of_id(id);
            if s % parties != me {
                continue;
            }
            let pos = pos as u64;
            if self.stop.load(Ordering::Relaxed) || pos > self.bound.load(Ordering::Relaxed) {
                break;
            }
            expanded += 1;
            if expanded % TICK_EVERY == 0 && tick() {
                break;
            }
            let shard = shards[s].as_ref().expect("the thread's own shard");
            let (obj, q) = shard.object(id);
            let (first, ne) = self.aut.edges_of(q);
            if ne == 0 {
                continue;
            }
            let ex = &mut w.ex;
            w.succs.clear();
            if let Err(e) = ex.successors_of(obj, &mut w.succs) {
                self.record((pos, 0), Found::Error(e, id));
                continue;
            }
            if w.succs.is_empty() && self.stutter {
                // No action at all: the run stutters on END or DEADLOCK.
                match ex.object_is_terminated(obj) {
                    Ok(t) => {
                        let a = &ex.alphabet;
                        let letter = if t { a.end() } else { a.deadlock() };
                        match ex.guarded(letter, || obj.clone()) {
                            Ok(o) => w.succs.push((letter, o)),
                            Err(e) => {
                                self.record((pos, 0), Found::Error(e, id));
                                continue;
                            }
                        }
                    }
                    Err(e) => {
                        self.record((pos, 0), Found::Error(e, id));
                        continue;
                    }
                }
            }
            // Positions fit in 32 bits: the store holds fewer states.
            let pos32 = pos as u32;
            let mut index: u32 = 0;
            for (letter, target) in w.succs.drain(..) {
                let allowing = || (first..first + ne).filter(|&e| self.aut.allows(e, letter));
                let edges = allowing().count();
                if edges == 0 {
                    continue;
                }
                let hash = match ex.guarded(letter, || self.store.hash(&target)) {
                    Ok(h) => h,
                    Err(e) => {
                        self.record((pos, 0), Found::Error(e, id));
                        break;
                    }
                };
                let owner = self.store.shard_of(hash) % parties;
                let mut target = Some(target);
                for (k, e) in allowing().enumerate() {
                    let obj = if k + 1 == edges {
                        target.take().expect("moved on the last edge only")
                    } else {
                        target.as_ref().expect("kept until the last edge").clone()
                    };
                    let p = Pending {
                        obj,
                        hash,
                        q: self.aut.edge(e).target,
                        key: key(pos32, index),
                        parent: id,
                        letter,
                    };
                    index += 1;
                    if owner == me {
                        if !self.settle(ex, &mut shards, next, p, None) {
                            break;
                        }
                    } else {
                        w.outbox[owner].push(p);
                    }
                }
            }
            transitions += u64::from(index);
        }
        drop(shards);
        drop(level);
        self.transitions.fetch_add(transitions, Ordering::Relaxed);
        for (owner, out) in w.outbox.iter_mut().enumerate() {
            if owner != me && !out.is_empty() {
                let batch = std::mem::replace(out, w.spare.pop().unwrap_or_default());
                self.inbox[owner]
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push((me, batch));
            }
        }
    }

    /// Deduplicates one successor in its shard (the thread's own): stores
    /// it if new, keeps the smaller key, and records a violation or an
    /// error. An object not stored goes to `left` (for the thread that
    /// made it to free), or is dropped here. `false` when the state limit
    /// stops the search.
    fn settle(
        &self,
        ex: &mut Explorer<P>,
        shards: &mut [Option<Locked<'_, P>>],
        next: u32,
        p: Pending<P>,
        left: Option<&mut Vec<P>>,
    ) -> bool {
        let shard = shards[self.store.shard_of(p.hash)]
            .as_mut()
            .expect("a successor is settled by its shard's owner");
        let (letter, key, q2, parent) = (p.letter, p.key, p.q, p.parent);
        let pos = key >> 32;
        let visit = match ex.guarded(letter, || shard.visit(next, p)) {
            Ok((visit, obj)) => {
                if let (Some(obj), Some(left)) = (obj, left) {
                    left.push(obj);
                }
                Ok(visit)
            }
            Err(e) => Err(e),
        };
        match visit {
            Err(e) => self.record((pos, 0), Found::Error(e, parent)),
            Ok(Visit::New(id) | Visit::Lowered(id)) => {
                if self.aut.universal(q2) {
                    self.record((pos, key as u32 + 1), Found::Bad(id));
                }
            }
            Ok(Visit::Seen) => {}
            Ok(Visit::TooDeep) => self.truncated.store(true, Ordering::Relaxed),
            Ok(Visit::Full) => {
                self.full.store(true, Ordering::Relaxed);
                self.stop.store(true, Ordering::Relaxed);
                return false;
            }
        }
        true
    }

    /// The settle phase: the successors the other threads made in this
    /// thread's shards, deduplicated; then the new states of its shards,
    /// sorted by key, for the next level.
    fn settle_level(&self, w: &mut Worker<P>) {
        let depth = self.depth.load(Ordering::Relaxed);
        let next = u32::try_from(depth + 1).unwrap_or(u32::MAX);
        let parties = self.parties.load(Ordering::Relaxed) as usize;
        let mut shards = own_shards(&self.store, w.me, parties);
        let batches = std::mem::take(
            &mut *self.inbox[w.me]
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        );
        let mut back: Vec<Vec<_>> = (0..parties).map(|_| Vec::new()).collect();
        let mut stopped = false;
        for (maker, mut batch) in batches {
            let mut left = Vec::with_capacity(if stopped { 0 } else { batch.len() });
            for p in batch.drain(..) {
                if stopped || self.stop.load(Ordering::Relaxed) {
                    stopped = true;
                    left.push(p.obj);
                } else if !self.settle(&mut w.ex, &mut shards, next, p, Some(&mut left)) {
                    stopped = true;
                }
            }
            back[maker].push((batch, left));
        }
        w.found.clear();
        for shard in shards.iter().flatten() {
            shard.fresh_states(&mut w.found);
        }
        drop(shards);
        w.found.sort_unstable_by_key(|&(k, _)| k);
        {
            let mut returned = self.returned.lock().unwrap_or_else(PoisonError::into_inner);
            for (maker, b) in back.into_iter().enumerate() {
                returned[maker].extend(b);
            }
        }
        self.found
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(std::mem::take(&mut w.found));
    }
}

/// The next level: the threads' sorted lists merged by key (each state is
/// in one list: its shard's owner's).
fn merge(lists: Vec<Vec<(Key, StateId)>>) -> Vec<StateId> {
    let total = lists.iter().map(Vec::len).sum();
    let mut next = Vec::with_capacity(total);
    let mut lists: Vec<_> = lists.into_iter().filter(|l| !l.is_empty()).collect();
    if lists.len() <= 1 {
        next.extend(
            lists
                .pop()
                .unwrap_or_default()
                .into_iter()
                .map(|(_, id)| id),
        );
        return next;
    }
    let mut at = vec![0; lists.len()];
    let mut heap: BinaryHeap<_> = lists
        .iter()
        .enumerate()
        .map(|(l, list)| std::cmp::Reverse((list[0].0, l)))
        .collect();
    while let Some(std::cmp::Reverse((_, l))) = heap.pop() {
        next.push(lists[l][at[l]].1);
        at[l] += 1;
        if let Some(&(k, _)) = lists[l].get(at[l]) {
            heap.push(std::cmp::Reverse((k, l)));
        }
    }
    next
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
            store: Sharded::new(threads, self.limits.max_depth, self.limits.max_states),
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
        let explorer = || Explorer::new(self.ex.alphabet.clone(), WORKER_CACHE, false);
        let mut own = Worker::new(0, explorer());
        let mut depth: u64 = 0;
        loop {
            let len = shared
                .level
                .read()
                .unwrap_or_else(PoisonError::into_inner)
                .len();
            let wide = len >= self.parallel_level.max(1);
            if wide && !crew.tried {
                crew.tried = true;
                self.start_workers(shared, crew);
            }
            let helpers = if wide { crew.running } else { 0 };
            shared.depth.store(depth, Ordering::Relaxed);
            shared.parties.store(helpers as u64 + 1, Ordering::Relaxed);
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
            let found =
                std::mem::take(&mut *shared.found.lock().unwrap_or_else(PoisonError::into_inner));
            let next = merge(found);
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
            let me = crew.running + 1;
            let w = Worker::new(
                me,
                Explorer::new(self.ex.alphabet.clone(), WORKER_CACHE, false),
            );
            let spawned = std::thread::Builder::new()
                .name(format!("prust-search-{me}"))
                .spawn_scoped(crew.scope, move || shared.work(w));
            crew.running += usize::from(spawned.is_ok());
        }
    }

    /// One level, in two phases (expand, then settle), each shared by the
    /// calling thread (watching the budget as it goes) and `helpers`
    /// workers; a limit is returned.
    fn run_level(
        &mut self,
        shared: &Shared<'_, P>,
        helpers: usize,
        depth: u64,
        own: &mut Worker<P>,
    ) -> Option<Limit> {
        let mut limit = self.tick(shared, depth);
        if limit.is_some() {
            return limit;
        }
        for cmd in [Cmd::Expand, Cmd::Settle] {
            if helpers > 0 {
                let mut ph = shared.phase.lock().unwrap_or_else(PoisonError::into_inner);
                ph.generation += 1;
                ph.cmd = cmd;
                ph.finished = 0;
                shared.start.notify_all();
            }
            match cmd {
                Cmd::Expand => shared.expand_level(own, || {
                    limit = self.tick(shared, depth);
                    limit.is_some()
                }),
                _ => shared.settle_level(own),
            }
            if helpers > 0 {
                limit = self.run_phase(shared, helpers, cmd, depth).or(limit);
            }
            if limit.is_some() {
                return limit;
            }
        }
        None
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
