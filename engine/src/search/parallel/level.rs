//! A thread's work in each phase of a level: expanding the states of its
//! shards (deduplicating the successors that fall in them, batching the
//! others for their owners), then settling the batches handed to it and
//! listing its new states, which the calling thread merges into the next
//! level.

use std::collections::BinaryHeap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::Ordering;
use std::sync::PoisonError;

use crate::alphabet::LetterId;
use crate::error::ProbeError;
use crate::ids::AutState;
use crate::protocol::Protocol;
use crate::successors::Explorer;

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

/// One thread's explorer and scratch space, kept from level to level, so
/// that its buffers are allocated and freed by the thread that uses them.
pub(super) struct Worker<P> {
    /// The thread's number (the calling thread's is 0).
    pub(super) me: usize,
    pub(super) ex: Explorer<P>,
    /// A store of bytes: the thread's own copy of the initial object, to
    /// decode with.
    pub(super) template: Option<P>,
    pub(super) succs: Vec<(LetterId, P)>,
    /// Scratch for a successor's bytes.
    pub(super) buf: Vec<u8>,
    /// Per thread: the successors of this level made here that fall in
    /// its shards.
    pub(super) outbox: Vec<Batch<P>>,
    /// Emptied batches, for the outbox.
    pub(super) spare: Vec<Batch<P>>,
    pub(super) found: Vec<(Key, StateId)>,
}

impl<P: Protocol> Worker<P> {
    pub(super) fn new(me: usize, ex: Explorer<P>, template: Option<P>) -> Self {
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

/// The successors of `obj` in letter order, as the one-thread search
/// makes them: every enabled action, or (stutter semantics) the END or
/// DEADLOCK step of a state with none.
pub(super) fn successors<P: Protocol>(
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

    /// Deduplicates one successor in its shard (the thread's own): stores
    /// it if new, keeps the smaller key, and records a violation or an
    /// error. An object not stored goes to `left` (for the thread that
    /// made it to free), or is dropped here. `false` when the state limit
    /// stops the search.
    pub(super) fn settle(
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
