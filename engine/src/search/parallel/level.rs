//! A thread's work in each phase of a level: expanding the states of its
//! shards (deduplicating the successors that fall in them, batching the
//! others for their owners), then settling the batches handed to it and
//! listing its new states, which the calling thread merges into the next
//! level.

use std::collections::BinaryHeap;
use std::convert::Infallible;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::Ordering;
use std::sync::PoisonError;

use crate::alphabet::LetterId;
use crate::error::{ObjectOp, ProbeError};
use crate::ids::AutState;
use crate::protocol::Protocol;
use crate::successors::Successors;

use super::*;
use crate::search::sharded::{key, shard_of_id, Key, Locked, Pending, Sharded, StateId, Visit};

/// A successor handed over as bytes: its bytes are `buf[previous end..end]`
/// of its batch.
pub(super) struct Coded {
    pub(super) hash: u64,
    pub(super) key: Key,
    pub(super) q: AutState,
    pub(super) end: usize,
}

/// Successors handed to a shard's owner by the thread that made them
/// (`maker`), in its key order: whole objects, or (a store of bytes)
/// their bytes.
pub(super) struct Batch<P> {
    pub(super) maker: usize,
    pub(super) objs: Vec<Pending<P>>,
    pub(super) coded: Vec<Coded>,
    pub(super) buf: Vec<u8>,
}

impl<P> Batch<P> {
    pub(super) fn new(maker: usize) -> Self {
        Batch {
            maker,
            objs: Vec::new(),
            coded: Vec::new(),
            buf: Vec::new(),
        }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.objs.is_empty() && self.coded.is_empty()
    }
}

/// A batch back to its maker: emptied (to reuse: its buffers were
/// allocated by the maker), with the objects it held that were not stored
/// (to free).
pub(super) type Returned<P> = (Batch<P>, Vec<P>);

/// One thread's successor generator and scratch space, kept from level to level, so
/// that its buffers are allocated and freed by the thread that uses them.
pub(super) struct Worker<P> {
    /// The thread's number (the calling thread's is 0).
    pub(super) me: usize,
    pub(super) ex: Successors<P>,
    /// A store of bytes: the thread's own copy of the initial object, to
    /// decode with.
    pub(super) template: Option<P>,
    pub(super) succs: Vec<(LetterId, P)>,
    /// Scratch for a successor's bytes.
    pub(super) buf: Vec<u8>,
    /// The hashes of the successors of the state being expanded (a store
    /// of whole objects), computed before any is looked up.
    pub(super) hashes: Vec<u64>,
    /// Per thread: the successors of this level made here that fall in
    /// its shards.
    pub(super) outbox: Vec<Batch<P>>,
    /// Emptied batches, for the outbox.
    pub(super) spare: Vec<Batch<P>>,
    pub(super) found: Vec<(Key, StateId)>,
}

impl<P: Protocol> Worker<P> {
    pub(super) fn new(me: usize, ex: Successors<P>, template: Option<P>) -> Self {
        Worker {
            me,
            ex,
            template,
            succs: Vec::new(),
            buf: Vec::new(),
            hashes: Vec::new(),
            outbox: Vec::new(),
            spare: Vec::new(),
            found: Vec::new(),
        }
    }
}

/// The locks of the shards that thread `me` of `parties` owns, by shard.
pub(super) fn own_shards<'a, P: Protocol>(
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
pub(super) fn decode<P: Protocol>(template: &P, bytes: &[u8]) -> Option<P> {
    crate::quiet::quietly(|| catch_unwind(AssertUnwindSafe(|| template.decode(bytes))))
        .ok()
        .flatten()
}

/// The error of a panic caught while the successors of `letter` were
/// stored: raised again under the successor generator's guard (which turns it into
/// the error of `letter` and resets what the panic may have left behind).
/// `stored_whole`: the successor was a whole object, hashed, compared (and
/// cloned for a second automaton edge) by the store, so the error is the
/// one the one-thread store gives for its `Hash` or `Eq`, whatever the
/// thread count; a store of bytes runs `encode`, a probe's error.
fn reraised<P: Protocol>(
    ex: &mut Successors<P>,
    letter: LetterId,
    payload: Box<dyn std::any::Any + Send>,
    stored_whole: bool,
) -> ProbeError {
    let e = match ex.guarded(letter, || -> Infallible { resume_unwind(payload) }) {
        Err(e) => e,
        Ok(never) => match never {},
    };
    match e {
        ProbeError::Panic { letter, message } if stored_whole => ProbeError::Object {
            op: ObjectOp::HashEq,
            letter,
            object: std::any::type_name::<P>(),
            message,
        },
        e => e,
    }
}

/// The successors of `obj` in letter order, as the one-thread search
/// makes them: every enabled action, or (stutter semantics) the END or
/// DEADLOCK step of a state with none.
pub(crate) fn successors<P: Protocol>(
    ex: &mut Successors<P>,
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
    /// The expand phase: the level's states in the thread's shards, in
    /// level order, each expanded in place (decoded first, in a store of
    /// bytes); a successor in one of the thread's shards is deduplicated
    /// at once, the others go to their owners' inboxes. `tick` runs every
    /// [`TICK_EVERY`] states and stops the thread when it returns `true`.
    pub(super) fn expand_level(&self, w: &mut Worker<P>, mut tick: impl FnMut() -> bool) {
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
            // The action whose successor is being handled: a panic in its
            // protocol code (`encode`, `Hash`, `Eq`, `Clone`) is that
            // action's error.
            let mut current: LetterId = 0;
            let (succs, buf, outbox) = (&mut w.succs, &mut w.buf, &mut w.outbox);
            let template = w.template.as_ref();
            // Whole objects: every successor's hash first, each reading its
            // table slot (in the thread's own shards), so that the slots'
            // cache misses overlap instead of coming one lookup after the
            // other (the slot's miss was most of a lookup's time). `Hash`
            // is protocol code: a panic in it stops the hashing, and is
            // raised after the successors before it are looked up, where
            // it stopped the search when each was hashed just before its
            // lookup.
            let hashes = &mut w.hashes;
            hashes.clear();
            let mut hashing: LetterId = 0;
            let hashed = if bytes {
                Ok(())
            } else {
                catch_unwind(AssertUnwindSafe(|| {
                    for (letter, target) in succs.iter() {
                        hashing = *letter;
                        if !(first..first + ne).any(|e| self.aut.allows(e, *letter)) {
                            hashes.push(0);
                            continue;
                        }
                        let hash = self.store.hash(target);
                        if let Some(shard) = &shards[self.store.shard_of(hash)] {
                            shard.touch(hash);
                        }
                        hashes.push(hash);
                    }
                }))
            };
            // One `catch_unwind` for all of the state's successors, where
            // each successor's hash and lookup had one each: the wrappers
            // kept the hash and the lookup from being inlined into the loop
            // (a sixth of the parallel path's time on `ring-packed`). A
            // panic ends the state's successors, as one in a hash did: the
            // error, at the state's position, comes before anything its
            // later successors could find.
            let run = catch_unwind(AssertUnwindSafe(|| {
                for (j, (letter, target)) in succs.drain(..).enumerate() {
                    current = letter;
                    let allowing = || (first..first + ne).filter(|&e| self.aut.allows(e, letter));
                    let edges = allowing().count();
                    if edges == 0 {
                        continue;
                    }
                    if bytes {
                        buf.clear();
                        if !target.encode(buf) {
                            self.fall_back(UNENCODED);
                            break;
                        }
                        if self.store.states() < VERIFY_STATES {
                            let template = template.expect("a store of bytes has a template");
                            // A panic in comparing is no answer either.
                            let same = crate::quiet::quietly(|| {
                                catch_unwind(AssertUnwindSafe(|| {
                                    decode(template, buf) == Some(target)
                                }))
                            });
                            if !matches!(same, Ok(true)) {
                                self.fall_back(UNDECODED);
                                break;
                            }
                        }
                        let hash = self.store.hash_bytes(buf);
                        let owner = self.store.shard_of(hash) % parties;
                        for e in allowing() {
                            let (q2, key) = (self.aut.edge(e).target, key(pos32, index));
                            index += 1;
                            if owner == me {
                                let shard = shards[self.store.shard_of(hash)]
                                    .as_mut()
                                    .expect("a successor is settled by its shard's owner");
                                let visit = shard.visit_bytes(next, hash, buf, q2, key, false);
                                if !self.settled(visit, q2, key) {
                                    break;
                                }
                            } else {
                                let out = &mut outbox[owner];
                                out.buf.extend_from_slice(buf);
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
                    let Some(&hash) = hashes.get(j) else {
                        // Its `Hash` panicked: raised below.
                        break;
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
                            let (q2, key) = (p.q, p.key);
                            let shard = shards[self.store.shard_of(hash)]
                                .as_mut()
                                .expect("a successor is settled by its shard's owner");
                            // The owner walks its keys in order: none to
                            // lower (see `Locked::visit`).
                            let (visit, _) = shard.visit(next, p, false);
                            if !self.settled(visit, q2, key) {
                                break;
                            }
                        } else {
                            outbox[owner].objs.push(p);
                        }
                    }
                }
            }));
            let run = match (run, hashed) {
                (Ok(()), Err(payload)) => {
                    current = hashing;
                    Err(payload)
                }
                (run, _) => run,
            };
            if let Err(payload) = run {
                let e = reraised(ex, current, payload, !bytes);
                self.record((pos, 0), Found::Error(e, id));
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
    pub(super) fn settled(&self, visit: Visit, q2: AutState, key: Key) -> bool {
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

    /// The settle phase: the successors the other threads made in this
    /// thread's shards, deduplicated; then the new states of its shards,
    /// sorted by key, for the next level.
    pub(super) fn settle_level(&self, w: &mut Worker<P>) {
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
            let mut objs = batch.objs.drain(..);
            loop {
                // The successor being compared: a panic in its `Eq` is the
                // error of the action that made it, traced to its parent.
                let mut current = None;
                // One `catch_unwind` for the batch (again after a panic,
                // for the rest of it), not one for each successor.
                let run = catch_unwind(AssertUnwindSafe(|| {
                    for p in objs.by_ref() {
                        if stopped || self.stop.load(Ordering::Relaxed) {
                            stopped = true;
                            left.push(p.obj);
                            continue;
                        }
                        current = Some((p.letter, p.key, p.parent));
                        let (q2, key) = (p.q, p.key);
                        let shard = shards[self.store.shard_of(p.hash)]
                            .as_mut()
                            .expect("a successor is settled by its shard's owner");
                        // Handed over: another thread may have visited the
                        // state with a larger key before.
                        let (visit, obj) = shard.visit(next, p, true);
                        // Not stored: back to the thread that made it.
                        left.extend(obj);
                        if !self.settled(visit, q2, key) {
                            stopped = true;
                        }
                    }
                }));
                let Err(payload) = run else { break };
                let (letter, key, parent) = current.expect("a panic comes from a comparison");
                let e = reraised(&mut w.ex, letter, payload, true);
                self.record((key >> 32, 0), Found::Error(e, parent));
            }
            drop(objs);
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
pub(super) fn merge(lists: Vec<Vec<(Key, StateId)>>) -> Vec<StateId> {
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
