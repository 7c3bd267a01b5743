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

use std::collections::{BinaryHeap, VecDeque};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, PoisonError, RwLock};
use std::time::Duration;

use hashbrown::HashMap;

use crate::alphabet::LetterId;
use crate::error::ProbeError;
use crate::ids::{AutState, ProtoId, Successor};
use crate::product::Prepared;
use crate::protocol::Protocol;
use crate::report::{Limit, RawLasso, Stats};
use crate::successors::Explorer;
use crate::{Error, Semantics};

use super::lasso::Path;
use super::sharded::{key, shard_of_id, Key, Locked, Pending, Sharded, StateId, Visit};
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

/// A search over bytes checks `decode(encode(x)) == x` for the successors
/// made while the store holds fewer states than this: enough to catch a
/// codec that is wrong everywhere (or on the first levels' kinds of
/// state), at a cost that does not grow with the search. The determinism
/// check verifies every state (on one thread).
pub(crate) const VERIFY_STATES: u64 = 4096;

/// Cache entries of a thread's explorer: its cache is never used (a
/// thread expands objects, not the explorer's ids), so the least there is.
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

/// A successor handed over as bytes: its bytes are `buf[previous end..end]`
/// of its batch.
struct Coded {
    hash: u64,
    key: Key,
    q: AutState,
    end: usize,
}

/// Successors handed to a shard's owner by the thread that made them
/// (`maker`), in its key order: whole objects, or (a store of bytes)
/// their bytes.
struct Batch<P> {
    maker: usize,
    objs: Vec<Pending<P>>,
    coded: Vec<Coded>,
    buf: Vec<u8>,
}

impl<P> Batch<P> {
    fn new(maker: usize) -> Self {
        Batch {
            maker,
            objs: Vec::new(),
            coded: Vec::new(),
            buf: Vec::new(),
        }
    }

    fn is_empty(&self) -> bool {
        self.objs.is_empty() && self.coded.is_empty()
    }
}

/// A batch back to its maker: emptied (to reuse: its buffers were
/// allocated by the maker), with the objects it held that were not stored
/// (to free).
type Returned<P> = (Batch<P>, Vec<P>);

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
    /// batches (each in the key order of its maker).
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
    /// A search over bytes cannot go on (see the module docs): why.
    fallback: Mutex<Option<&'static str>>,
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
    /// A store of bytes: the thread's own copy of the initial object, to
    /// decode with.
    template: Option<P>,
    succs: Vec<(LetterId, P)>,
    /// Scratch for a successor's bytes.
    buf: Vec<u8>,
    /// Per thread: the successors of this level made here that fall in
    /// its shards.
    outbox: Vec<Batch<P>>,
    /// Emptied batches, for the outbox.
    spare: Vec<Batch<P>>,
    found: Vec<(Key, StateId)>,
}

impl<P: Protocol> Worker<P> {
    fn new(me: usize, ex: Explorer<P>, template: Option<P>) -> Self {
        Worker {
            me,
            ex,
            template,
            succs: Vec::new(),
            buf: Vec::new(),
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

/// `template.decode(bytes)`, quietly: a panic in it is no answer (the
/// search then goes back to one thread, which does not decode).
fn decode<P: Protocol>(template: &P, bytes: &[u8]) -> Option<P> {
    crate::quiet::quietly(|| catch_unwind(AssertUnwindSafe(|| template.decode(bytes))))
        .ok()
        .flatten()
}

/// The successors of `obj` in letter order, as the one-thread search
/// makes them: every enabled action, or (stutter semantics) the END or
/// DEADLOCK step of a state with none.
fn successors<P: Protocol>(
    ex: &mut Explorer<P>,
    stutter: bool,
    obj: &P,
    out: &mut Vec<(LetterId, P)>,
) -> Result<(), ProbeError> {
    ex.successors_of(obj, out)?;
    if out.is_empty() && stutter {
        // No action at all: the run stutters on END or DEADLOCK.
        let t = ex.object_is_terminated(obj)?;
        let a = &ex.alphabet;
        let letter = if t { a.end() } else { a.deadlock() };
        let o = ex.guarded(letter, || obj.clone())?;
        out.push((letter, o));
    }
    Ok(())
}

impl<P: Protocol> Shared<'_, P> {
    fn record(&self, at: (u64, u32), found: Found) {
        let mut ev = self.event.lock().unwrap_or_else(PoisonError::into_inner);
        if ev.as_ref().is_none_or(|e| at < e.at) {
            *ev = Some(Event { at, found });
        }
        self.bound.fetch_min(at.0, Ordering::Relaxed);
    }

    /// Stops the search: it goes back to one thread, for `why`.
    fn fall_back(&self, why: &'static str) {
        let mut f = self.fallback.lock().unwrap_or_else(PoisonError::into_inner);
        f.get_or_insert(why);
        self.stop.store(true, Ordering::Relaxed);
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
    /// level order, each expanded in place (decoded first, in a store of
    /// bytes); a successor in one of the thread's shards is deduplicated
    /// at once, the others go to their owners' inboxes. `tick` runs every
    /// [`TICK_EVERY`] states and stops the thread when it returns `true`.
    fn expand_level(&self, w: &mut Worker<P>, mut tick: impl FnMut() -> bool) {
        let level = self.level.read().unwrap_or_else(PoisonError::into_inner);
        let depth = self.depth.load(Ordering::Relaxed);
        let next = u32::try_from(depth + 1).unwrap_or(u32::MAX);
        let parties = self.parties.load(Ordering::Relaxed) as usize;
        let me = w.me;
        let bytes = self.store.is_bytes();
        let back =
            std::mem::take(&mut self.returned.lock().unwrap_or_else(PoisonError::into_inner)[me]);
        for (batch, left) in back {
            drop(left);
            w.spare.push(batch);
        }
        let mut shards = own_shards(&self.store, me, parties);
        w.outbox.resize_with(parties, || Batch::new(me));
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
            let ex = &mut w.ex;
            w.succs.clear();
            let (expanding, q) = if bytes {
                let (b, q) = shard.bytes(id);
                let template = w
                    .template
                    .as_ref()
                    .expect("a store of bytes has a template");
                match decode(template, b) {
                    Some(obj) => (Ok(obj), q),
                    None => {
                        self.fall_back(UNDECODED);
                        break;
                    }
                }
            } else {
                let (obj, q) = shard.object(id);
                (Err(obj), q)
            };
            let (first, ne) = self.aut.edges_of(q);
            if ne == 0 {
                continue;
            }
            let obj = match &expanding {
                Ok(owned) => owned,
                Err(stored) => *stored,
            };
            if let Err(e) = successors(ex, self.stutter, obj, &mut w.succs) {
                self.record((pos, 0), Found::Error(e, id));
                continue;
            }
            drop(expanding);
            // Positions fit in 32 bits: the store holds fewer states.
            let pos32 = pos as u32;
            let mut index: u32 = 0;
            for (letter, target) in w.succs.drain(..) {
                let allowing = || (first..first + ne).filter(|&e| self.aut.allows(e, letter));
                let edges = allowing().count();
                if edges == 0 {
                    continue;
                }
                if bytes {
                    w.buf.clear();
                    let buf = &mut w.buf;
                    match ex.guarded(letter, || target.encode(buf)) {
                        Ok(true) => {}
                        Ok(false) => {
                            self.fall_back(UNENCODED);
                            break;
                        }
                        Err(e) => {
                            self.record((pos, 0), Found::Error(e, id));
                            break;
                        }
                    }
                    if self.store.states() < VERIFY_STATES {
                        let template = w.template.as_ref().expect("a template");
                        let same = ex.guarded(letter, || decode(template, &w.buf) == Some(target));
                        if !matches!(same, Ok(true)) {
                            self.fall_back(UNDECODED);
                            break;
                        }
                    }
                    let hash = self.store.hash_bytes(&w.buf);
                    let owner = self.store.shard_of(hash) % parties;
                    for e in allowing() {
                        let (q2, key) = (self.aut.edge(e).target, key(pos32, index));
                        index += 1;
                        if owner == me {
                            let shard = shards[self.store.shard_of(hash)]
                                .as_mut()
                                .expect("a successor is settled by its shard's owner");
                            let visit = shard.visit_bytes(next, hash, &w.buf, q2, key, false);
                            if !self.settled(visit, q2, key) {
                                break;
                            }
                        } else {
                            let out = &mut w.outbox[owner];
                            out.buf.extend_from_slice(&w.buf);
                            out.coded.push(Coded {
                                hash,
                                key,
                                q: q2,
                                end: out.buf.len(),
                            });
                        }
                    }
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
                        w.outbox[owner].objs.push(p);
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
                let batch = std::mem::replace(out, w.spare.pop().unwrap_or_else(|| Batch::new(me)));
                self.inbox[owner]
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(batch);
            }
        }
    }

    /// What a successor's visit means for the search: records a violation,
    /// a state left out by the depth limit, or the state limit (`false`:
    /// the search stops).
    fn settled(&self, visit: Visit, q2: AutState, key: Key) -> bool {
        match visit {
            Visit::New(id) | Visit::Lowered(id) => {
                if self.aut.universal(q2) {
                    self.record((key >> 32, key as u32 + 1), Found::Bad(id));
                }
            }
            Visit::Seen => {}
            Visit::TooDeep => self.truncated.store(true, Ordering::Relaxed),
            Visit::Full => {
                self.full.store(true, Ordering::Relaxed);
                self.stop.store(true, Ordering::Relaxed);
                return false;
            }
        }
        true
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
        // Handed over (`left` is where objects go back): another thread
        // may have visited the state with a larger key before.
        let lowering = left.is_some();
        match ex.guarded(letter, || shard.visit(next, p, lowering)) {
            Ok((visit, obj)) => {
                if let (Some(obj), Some(left)) = (obj, left) {
                    left.push(obj);
                }
                self.settled(visit, q2, key)
            }
            Err(e) => {
                self.record((key >> 32, 0), Found::Error(e, parent));
                true
            }
        }
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
        for mut batch in batches {
            let mut left = Vec::with_capacity(if stopped { 0 } else { batch.objs.len() });
            for p in batch.objs.drain(..) {
                if stopped || self.stop.load(Ordering::Relaxed) {
                    stopped = true;
                    left.push(p.obj);
                } else if !self.settle(&mut w.ex, &mut shards, next, p, Some(&mut left)) {
                    stopped = true;
                }
            }
            let mut start = 0;
            for c in batch.coded.drain(..) {
                stopped = stopped || self.stop.load(Ordering::Relaxed);
                if stopped {
                    break;
                }
                let shard = shards[self.store.shard_of(c.hash)]
                    .as_mut()
                    .expect("a successor is settled by its shard's owner");
                let b = &batch.buf[start..c.end];
                let visit = shard.visit_bytes(next, c.hash, b, c.q, c.key, true);
                stopped = !self.settled(visit, c.q, c.key);
                start = c.end;
            }
            batch.coded.clear();
            batch.buf.clear();
            back[batch.maker].push((batch, left));
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
    /// same counterexample. With `bytes`, over a store of bytes (the
    /// object encodes itself and the checker chose the collapse store).
    pub(super) fn parallel_reachability(
        &mut self,
        initial: ProtoId,
        threads: usize,
        bytes: bool,
    ) -> Result<Outcome, Error> {
        let q0 = self.aut.initial;
        if self.bad_prefix(q0) {
            self.finish_progress();
            return Ok(Outcome::Violated(RawLasso {
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
        if let Ok(Step::Fallback(why)) = outcome {
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
        let template = template.as_ref();
        match outcome? {
            Step::Done(o) => Ok(o),
            Step::Fallback(_) => unreachable!("searched on one thread above"),
            Step::Found(Event {
                found: Found::Bad(id),
                ..
            }) => {
                let path = self
                    .path_to(&shared.store, template, root, id)
                    .map_err(|e| self.probe_error_after(e, Vec::new()))?;
                let prefix = match self.path_or_lost(path, Vec::new)? {
                    Ok(p) => p,
                    Err(limit) => return Ok(Outcome::Inconclusive(limit)),
                };
                Ok(Outcome::Violated(RawLasso {
                    prefix,
                    cycle: Vec::new(),
                }))
            }
            Step::Found(Event {
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
    fn one_thread_after_all(&mut self, initial: ProtoId, why: &str) -> Result<Outcome, Error> {
        self.stored_apart = false;
        self.stats = Stats {
            automaton_states: self.stats.automaton_states,
            threads: 1,
            single_thread: Some(why.to_string()),
            ..Stats::default()
        };
        self.reachability(initial)
    }

    /// Runs the levels until the search is decided (on the calling
    /// thread, with the workers of `crew` once a level is large enough).
    fn coordinate<'scope, 'env>(
        &mut self,
        shared: &'scope Shared<'_, P>,
        crew: &mut Crew<'scope, 'env, P>,
    ) -> Result<Step, Error>
    where
        P: 'scope,
    {
        let explorer = Explorer::new(self.ex.alphabet.clone(), WORKER_CACHE, false);
        let mut own = Worker::new(0, explorer, crew.template.cloned());
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
            let limit = self.run_level(shared, helpers, depth, &mut own);
            let fallback = *shared
                .fallback
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            if let Some(why) = fallback {
                return Ok(Step::Fallback(why));
            }
            if let Some(limit) = limit {
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
        crew: &mut Crew<'scope, 'env, P>,
    ) where
        P: 'scope,
    {
        for _ in 1..crew.threads {
            let me = crew.running + 1;
            // The thread's copy of the initial object is made here and
            // moves to it once: it decodes with it from then on.
            let w = Worker::new(
                me,
                Explorer::new(self.ex.alphabet.clone(), WORKER_CACHE, false),
                crew.template.cloned(),
            );
            let spawned = crate::stack::worker(format!("prust-search-{me}"))
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

    /// A stored state's object (decoded with `template` in a store of
    /// bytes) and automaton state.
    fn stored(
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
    /// explorer (where the counterexample is read from). On the calling
    /// thread, within the search's budget.
    fn path_to(
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
        let mut ex = Explorer::new(self.ex.alphabet.clone(), WORKER_CACHE, false);
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

/// The worker threads of one search, started on demand in `scope`.
struct Crew<'scope, 'env, P> {
    scope: &'scope std::thread::Scope<'scope, 'env>,
    /// The threads asked for, the calling one included.
    threads: usize,
    /// Workers started (the calling thread not counted).
    running: usize,
    /// Whether they were started (or tried).
    tried: bool,
    /// A store of bytes: the initial object, cloned for each thread to
    /// decode with.
    template: Option<&'scope P>,
}

/// How [`Search::coordinate`] ended: a decision, an event to report, or
/// a search over bytes that must run on one thread after all.
enum Step {
    Done(Outcome),
    Found(Event),
    Fallback(&'static str),
}
