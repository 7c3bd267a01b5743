//! Async operations on a [`SplitSession`](super::SplitSession)'s endpoint:
//! a poll runs the blocking loop's tries (read the epoch, try, announce,
//! try again); where the loop would park, the poll registers its waker in
//! the role's waiter list and returns `Pending`, and a wake of the role
//! (`Shared::wake`, where the parker is unparked) wakes its registrations.
//!
//! A role with several registrations (a task awaiting several receives)
//! waits, for the deadlock decision, only once every one of them was
//! refused at one epoch; a registration refused earlier than the others is
//! woken to try again. A wake that comes during a poll, before its
//! registration, is kept (`Slot::notified`) and makes the poll try once
//! more, as a `Parker` keeps an unpark that comes before the park. (So
//! may an older one, on a role's first poll after it ran: that poll does
//! not take the slot's lock to clear the flag.)
//!
//! The registrations are kept in the role's slot, beside its local state
//! while it waits: a refused poll registers and parks its local state
//! under one taking of the slot's lock, and a woken poll takes both back
//! under one. No waker is woken under that lock: a woken task's thread
//! that needs the lock at once would otherwise block on it.

use std::sync::atomic::Ordering::SeqCst;
use std::task::{Context, Poll};

use engine::{Message, Refused, RoleId};

use super::super::closed::{closed_error, send_after_close};
use super::super::error::Error;
use super::super::op::{lock, Op};
use super::super::pending::{AsyncOp, Done, Waiters};
use super::{Effect, PoisonOnUnwind, Split, SplitEndpoint, Wait, ANYONE, NOT_WAITING};

impl<P: Split> SplitEndpoint<P> {
    /// Drives the async operation `op`: performs it if the protocol allows
    /// it now (`Ready`), or registers `cx`'s waker and returns `Pending`;
    /// the role then counts as waiting (for the deadlock detection) until
    /// the operation is ready or cancelled with
    /// [`cancel_op`](Self::cancel_op). A deadlock makes every pending
    /// operation ready with [`Error::Deadlock`]. See
    /// [`AsyncOp`](crate::session::AsyncOp).
    pub fn poll_op(&mut self, cx: &mut Context<'_>, op: &mut AsyncOp) -> Poll<Result<Done, Error>> {
        if !self.shared.uses[self.role].begin_poll(self.shared_use) {
            return Poll::Ready(Err(Error::RolePanicked(self.name().to_string())));
        }
        // Each return of the poll ends it (`Use::end_poll`) last, in
        // `finish` or where it is pending: the result is then made where it
        // is returned, not kept aside and copied after the end.
        self.poll_split(cx, op)
    }

    #[inline(always)]
    fn poll_split(&mut self, cx: &mut Context<'_>, op: &mut AsyncOp) -> Poll<Result<Done, Error>> {
        let shared = &*self.shared;
        let me = self.role;
        if !self.marked_async {
            shared.asynchronous[me].store(true, SeqCst);
            self.marked_async = true;
        }
        if op.ticket.is_some() || self.local.is_none() {
            let mut slot = lock(&shared.slots[me]);
            if let Some(t) = op.ticket {
                let i = slot
                    .waiters
                    .position(t)
                    .expect("a registered operation stays registered until done");
                let entry = &mut slot.waiters.entries[i];
                if entry.refused_at.is_some() && !shared.failed.load(SeqCst) {
                    // Not woken since it was refused: nothing to try.
                    if !entry.waker.will_wake(cx.waker()) {
                        entry.waker = cx.waker().clone();
                    }
                    drop(slot);
                    shared.uses[me].end_poll(self.async_ops > 0, self.shared_use);
                    return Poll::Pending;
                }
                let entry = slot.waiters.entries.swap_remove(i);
                entry.op.discard();
            }
            // A wake from here on is seen at the registration of this
            // poll; one before is older than its tries, which see its
            // change.
            slot.notified = false;
            // Back to running before any try (see the module docs of the
            // session), with the local state back from the slot.
            if self.local.is_none() {
                shared.resume(me);
                self.local = slot.local.take();
            }
        }
        // Otherwise (a first poll of a running role) the flag is left as
        // it is: one set before this poll costs its registration, if it
        // registers, one try more and one more taking of the slot's lock,
        // which is safe and rare (a role that has no registration is
        // seldom woken), where clearing it here would take the slot's
        // lock at every first poll.
        // A typed end's operations (a receive from one peer, a send) on
        // paths of their own: the kind is matched once here, and the
        // operation stays where it is between tries.
        match op.op.as_ref() {
            Some(&Op::Recv { from: Some(from) }) => return self.poll_recv_from(cx, op, from),
            Some(&Op::Send { to, .. }) => return self.poll_send(cx, op, to),
            _ => {}
        }
        self.poll_other(cx, op)
    }

    /// [`poll_split`](Self::poll_split)'s tries of any other operation (a
    /// receive from anyone, a select, a close), after its start: out of
    /// line, so that the typed ends' paths are not made larger by it.
    #[inline(never)]
    fn poll_other(&mut self, cx: &mut Context<'_>, op: &mut AsyncOp) -> Poll<Result<Done, Error>> {
        let shared = &*self.shared;
        let me = self.role;
        let mut this = op
            .op
            .take()
            .expect("an async operation is polled after it was ready");
        if let Op::Send { to, .. } = this {
            if shared.closes.is_closed(me, to) {
                op.op = Some(this);
                return Poll::Ready(self.finish(op, Err(send_after_close(&shared.names, me, to))));
            }
        }
        let alts = match &this {
            Op::Select { alts } => alts.clone(),
            _ => Vec::new(),
        };
        // What the role waits for, announced before the last try so that a
        // sender that misses the announcement is seen by that try. A
        // receive announces before its first try: a task mostly awaits a
        // message not there yet, and a try fewer is worth a wake of a
        // running role (cheap) by a sender in between.
        let receiving = matches!(this, Op::Recv { .. } | Op::Select { .. });
        let mut announced = false;
        loop {
            // Borrowed anew each try: `register` takes the endpoint.
            let shared = &*self.shared;
            if shared.failed.load(SeqCst) {
                op.op = Some(this);
                return Poll::Ready(self.finish(op, Err(shared.failure())));
            }
            let epoch = shared.epoch.load(SeqCst);
            if receiving && !announced {
                self.announce(op, &this);
                announced = true;
            }
            let effect = Effect::of(&this);
            let selecting = matches!(this, Op::Select { .. });
            let recv_from = match &this {
                Op::Recv { from } => Some(*from),
                _ => None,
            };
            let local = self.local.as_mut().expect("owned while running");
            match Self::attempt(shared, me, local, this) {
                Ok(got) => {
                    shared.stepped(me, effect, got.as_ref());
                    let done = match (got, effect.closing, selecting) {
                        (None, false, _) => Done::Sent,
                        (None, true, _) => Done::Closed,
                        (Some((from, msg)), _, true) => {
                            Done::Selected(index(&alts, from, &msg), msg)
                        }
                        (Some((from, msg)), _, false) => Done::Received(from, msg),
                    };
                    return Poll::Ready(self.finish(op, Ok(done)));
                }
                Err(back) => this = back,
            }
            if let Some(from) = recv_from {
                if shared.recv_ended(me, from) {
                    op.op = Some(this);
                    return Poll::Ready(
                        self.finish(op, Err(closed_error(&shared.names, me, from))),
                    );
                }
            }
            if !alts.is_empty() && alts.iter().all(|a| shared.recv_ended(me, Some(a.from))) {
                op.op = Some(this);
                return Poll::Ready(self.finish(op, Err(closed_error(&shared.names, me, None))));
            }
            if !announced {
                self.announce(op, &this);
                announced = true;
                continue;
            }
            op.op = Some(this);
            match self.register(cx, op, epoch, Wait::of) {
                Some(pending) => return pending,
                None => this = op.op.take().expect("kept by the refused poll"),
            }
        }
    }

    /// [`poll_split`](Self::poll_split) of a receive from `from` alone:
    /// the same tries, in the same order, with the operation left in `op`.
    #[inline(always)]
    fn poll_recv_from(
        &mut self,
        cx: &mut Context<'_>,
        op: &mut AsyncOp,
        from: RoleId,
    ) -> Poll<Result<Done, Error>> {
        let me = self.role;
        let mut announced = false;
        loop {
            // Borrowed anew each try: `register` takes the endpoint.
            let shared = &*self.shared;
            if shared.failed.load(SeqCst) {
                return Poll::Ready(self.finish(op, Err(shared.failure())));
            }
            let epoch = shared.epoch.load(SeqCst);
            if !announced {
                // Before the first try, as a receive announces (see
                // `poll_split`).
                let alone = self.async_ops == usize::from(op.ticket.is_some());
                let intent = if alone { from } else { ANYONE };
                // A woken poll finds the announcement its refused poll
                // made, and spares the store (see `change_intent`).
                change_intent(&shared.waiting_for[me], intent);
                announced = true;
            }
            let local = self.local.as_mut().expect("owned while running");
            let guard = PoisonOnUnwind(shared);
            let got = P::recv_step(local, Some(from), &mut lock(&shared.inboxes[me]));
            std::mem::forget(guard);
            if let Ok(got) = got {
                shared.stepped(me, Effect::NONE, Some(&got));
                // Done: a later poll finds no operation. (Forgotten, not
                // dropped: a receive holds nothing to free, and the drop
                // would match the operation's kind once more.)
                std::mem::forget(op.op.take());
                return Poll::Ready(self.finish(op, Ok(Done::Received(got.0, got.1))));
            }
            if shared.recv_ended(me, Some(from)) {
                return Poll::Ready(
                    self.finish(op, Err(closed_error(&shared.names, me, Some(from)))),
                );
            }
            let wait = |_: &Op| Wait::Recv { from: Some(from) };
            if let Some(pending) = self.register(cx, op, epoch, wait) {
                return pending;
            }
        }
    }

    /// [`poll_split`](Self::poll_split) of a send to `to`: the same tries,
    /// in the same order, with the message out of `op` only while it is
    /// offered.
    #[inline(always)]
    fn poll_send(
        &mut self,
        cx: &mut Context<'_>,
        op: &mut AsyncOp,
        to: RoleId,
    ) -> Poll<Result<Done, Error>> {
        let shared = &*self.shared;
        let me = self.role;
        if shared.closes.is_closed(me, to) {
            return Poll::Ready(self.finish(op, Err(send_after_close(&shared.names, me, to))));
        }
        let mut announced = false;
        loop {
            // Borrowed anew each try: `register` takes the endpoint.
            let shared = &*self.shared;
            if shared.failed.load(SeqCst) {
                return Poll::Ready(self.finish(op, Err(shared.failure())));
            }
            let epoch = shared.epoch.load(SeqCst);
            let Some(Op::Send { msg, .. }) = op.op.take() else {
                unreachable!("a send stays a send")
            };
            let local = self.local.as_mut().expect("owned while running");
            let guard = PoisonOnUnwind(shared);
            let sent = P::send_step(local, to, msg, &mut lock(&shared.inboxes[to]));
            std::mem::forget(guard);
            match sent {
                Ok(()) => {
                    let effect = Effect {
                        peer: Some(to),
                        closing: false,
                    };
                    shared.stepped(me, effect, None);
                    return Poll::Ready(self.finish(op, Ok(Done::Sent)));
                }
                Err(Refused(msg)) => op.op = Some(Op::Send { to, msg }),
            }
            if !announced {
                // A send waits for anyone (see `announce`).
                shared.waiting_for[me].store(ANYONE, SeqCst);
                announced = true;
                continue;
            }
            if let Some(pending) = self.register(cx, op, epoch, Wait::of) {
                return pending;
            }
        }
    }

    /// The refused operation of `op` (kept in it), tried at `epoch`,
    /// registers `cx`'s waker, with what it waits for by `wait`: `None` if
    /// a wake came since the poll began (try again), `Pending` otherwise.
    #[inline(always)]
    fn register(
        &mut self,
        cx: &mut Context<'_>,
        op: &mut AsyncOp,
        epoch: u64,
        wait: impl FnOnce(&Op) -> Wait,
    ) -> Option<Poll<Result<Done, Error>>> {
        // Disjoint borrows of the fields (the callers' loops go on with
        // `shared`).
        let SplitEndpoint {
            shared,
            role: me,
            local,
            async_ops,
            shared_use,
            ..
        } = self;
        let (shared, me) = (&**shared, *me);
        #[cfg(test)]
        super::tests::before_register();
        let mut slot = lock(&shared.slots[me]);
        if slot.notified {
            // Woken since this poll began: the change may concern us.
            slot.notified = false;
            drop(slot);
            return None;
        }
        if op.ticket.is_none() {
            *async_ops += 1;
        }
        // The role's only registration (the usual case) waits alone:
        // at this epoch, on this operation. (What it waits for is read
        // off the registrations by a deadlock report, which is rare:
        // not copied into the slot here.)
        let alone = slot.waiters.entries.is_empty();
        let wait = wait(op.op.as_ref().expect("kept by the refused poll"));
        slot.waiters.put(&mut op.ticket, epoch, cx.waker(), wait);
        let waits = alone || slot.waiters.blocked_at().is_some();
        // Some registrations refused before this epoch try again (the
        // last of them registers the role as waiting). Otherwise the
        // role waits on its registrations, every one refused at
        // `epoch`: its local state goes to its slot (for a deadlock
        // report), and it stops running below (the last to stop
        // decides, with no slot locked).
        if waits {
            slot.local = local.take();
            drop(slot);
            shared.leave(me, epoch + 1);
        } else {
            let older = slot.waiters.wake_older(epoch);
            let waiting = local.is_none();
            drop(slot);
            older.wake();
            if waiting {
                shared.leave(me, epoch + 1);
            }
        }
        shared.uses[me].end_poll(*async_ops > 0, *shared_use);
        Some(Poll::Pending)
    }

    /// Says whom the role waits for while `this` (of `op`) is refused:
    /// the sender of a receive from one peer if it is the role's only
    /// operation (the role's other registrations are all this endpoint's;
    /// `op`'s own, if it had one, was taken by the poll), anyone otherwise.
    fn announce(&self, op: &AsyncOp, this: &Op) {
        let alone = self.async_ops == usize::from(op.ticket.is_some());
        let intent = match this {
            Op::Recv { from: Some(from) } if alone => *from,
            _ => ANYONE,
        };
        self.shared.waiting_for[self.role].store(intent, SeqCst);
    }

    /// The role waits on its registrations, every one refused at `epoch`:
    /// its local state goes to its slot (for a deadlock report), and it
    /// stops running (the last to stop decides).
    fn wait_async(&mut self, epoch: u64) {
        lock(&self.shared.slots[self.role]).local = self.local.take();
        self.shared.leave(self.role, epoch + 1);
    }

    /// `op` is ready with `result`: its registration, if any, is gone
    /// (taken by the poll), the role's announcement says what the
    /// remaining registrations wait for, and the poll ends.
    #[inline(always)]
    fn finish(&mut self, op: &mut AsyncOp, result: Result<Done, Error>) -> Result<Done, Error> {
        if op.ticket.take().is_some() {
            self.async_ops -= 1;
        }
        // The role's registrations left (`op`'s was taken by the poll).
        let intent = if self.async_ops == 0 {
            NOT_WAITING
        } else {
            ANYONE
        };
        change_intent(&self.shared.waiting_for[self.role], intent);
        // The poll ends (see `poll_op`).
        self.shared.uses[self.role].end_poll(self.async_ops > 0, self.shared_use);
        result
    }

    /// Gives up the async operation `op` (its future is dropped before it
    /// was ready): a registered operation has done nothing, and the role no
    /// longer waits on it. Nothing to do for one never registered.
    pub fn cancel_op(&mut self, op: &mut AsyncOp) {
        let Some(t) = op.ticket.take() else {
            return;
        };
        self.async_ops -= 1;
        let me = self.role;
        let mut slot = lock(&self.shared.slots[me]);
        slot.waiters.take(t);
        let left = slot.waiters.entries.len();
        let at = slot.waiters.blocked_at();
        drop(slot);
        if left == 0 {
            store_intent(&self.shared.waiting_for[me], NOT_WAITING);
            if self.local.is_none() {
                self.shared.resume(me);
                self.local = lock(&self.shared.slots[me]).local.take();
            }
        } else if let (Some(e), true) = (at, self.local.is_some()) {
            // Running, and the rest all wait at one epoch: now the role
            // waits on them.
            self.wait_async(e);
        }
        self.shared.uses[me].end_poll(self.async_ops > 0, self.shared_use);
    }
}

/// Makes the role's announcement `intent`, unless its word holds it
/// already: the store spared is a locked instruction. Only the role writes
/// its word, and every value that says it waits is stored `SeqCst` (see
/// [`store_intent`]), so an equal value read here is the role's own latest
/// store; a waiting one was `SeqCst`, and having read it, this `SeqCst`
/// load orders it before the role's next tries as a new store would, on
/// whatever thread the endpoint is now: a peer whose step a try missed
/// reads it just the same.
#[inline(always)]
fn change_intent(waiting_for: &std::sync::atomic::AtomicUsize, intent: usize) {
    if waiting_for.load(SeqCst) != intent {
        store_intent(waiting_for, intent);
    }
}

/// Stores the role's announcement `intent` in its word `waiting_for`.
/// Waiting for someone must be `SeqCst` (against a stepping peer's read of
/// it after its step, as a `Parker` against an unpark); saying it waits no
/// longer needs no more than a plain store (no locked instruction): a
/// peer that still reads the older announcement only wakes the role for
/// nothing, and one whose read comes after the role's next announcement
/// (`SeqCst`, later in the word's order) reads that or later.
#[inline(always)]
pub(super) fn store_intent(waiting_for: &std::sync::atomic::AtomicUsize, intent: usize) {
    if intent == NOT_WAITING {
        waiting_for.store(intent, std::sync::atomic::Ordering::Release);
    } else {
        waiting_for.store(intent, SeqCst);
    }
}

/// What a role waiting on its registrations waits for (for a deadlock
/// report): the one operation, or each of several.
pub(super) fn combined(w: &Waiters<Wait>) -> Wait {
    match w.entries.as_slice() {
        [one] => one.op.clone(),
        many => Wait::Several(many.iter().map(|e| e.op.clone()).collect()),
    }
}

/// The alternative a select step took: the first in order that accepts
/// the message from its sender.
fn index(alts: &[super::Alternative], from: RoleId, msg: &Message) -> usize {
    alts.iter()
        .position(|a| a.from == from && a.accepts(msg))
        .expect("the message matches an alternative")
}
