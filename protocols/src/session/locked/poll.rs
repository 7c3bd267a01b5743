//! Async operations on a [`Session`](super::Session)'s endpoint: a poll
//! tries the operation under the lock as a blocking call does; a refused
//! one is registered with the poller's waker (next to the parked threads)
//! instead of parking. The hand-off never performs a registered operation:
//! it tries it on a clone of the object and wakes the owner, whose next
//! poll performs it. So a registered operation that is cancelled has done
//! nothing.

use std::task::{Context, Poll};

use engine::Protocol;

use super::super::closed::{closed_error, send_after_close};
use super::super::error::Error;
use super::super::op::Op;
use super::super::pending::{AsyncOp, Done};
use super::super::role_use::Use;
use super::inner::Outcome;
use super::Endpoint;

impl<P: Protocol> Endpoint<P> {
    /// Drives the async operation `op`: performs it if the protocol allows
    /// it now (`Ready`), or registers `cx`'s waker and returns `Pending`;
    /// the role then counts as waiting (for the deadlock detection) until
    /// the operation is ready or cancelled with
    /// [`cancel_op`](Self::cancel_op). A deadlock makes every pending
    /// operation ready with [`Error::Deadlock`]. See [`AsyncOp`].
    pub fn poll_op(&mut self, cx: &mut Context<'_>, op: &mut AsyncOp) -> Poll<Result<Done, Error>> {
        let role_use: &Use = &self.shared.uses[self.role];
        if !role_use.begin_poll(self.shared_use) {
            return Poll::Ready(Err(Error::RolePanicked(self.name().to_string())));
        }
        let result = self.poll_locked(cx, op);
        self.shared.uses[self.role].end_poll(self.async_ops > 0, self.shared_use);
        result
    }

    fn poll_locked(&mut self, cx: &mut Context<'_>, op: &mut AsyncOp) -> Poll<Result<Done, Error>> {
        let shared = &*self.shared;
        let role = self.role;
        let mut inner = shared.lock();
        if let Some(e) = inner.failure.clone() {
            if let Some(t) = op.ticket.take() {
                self.async_ops -= 1;
                if let Some(entry) = inner.pending[role].take(t) {
                    inner.pending_count -= 1;
                    op.op = Some(entry.op);
                }
            }
            shared.release(inner, &mut self.woken);
            return Poll::Ready(Err(e));
        }
        let this = match op.ticket {
            Some(t) => {
                let entry = inner.pending[role]
                    .get_mut(t)
                    .expect("a registered operation stays registered until done");
                if entry.refused_at.is_some() {
                    // Still refused as of the latest change: nothing to try.
                    if !entry.waker.will_wake(cx.waker()) {
                        entry.waker = cx.waker().clone();
                    }
                    return Poll::Pending;
                }
                let entry = inner.pending[role].take(t).expect("found above");
                inner.pending_count -= 1;
                entry.op
            }
            None => op
                .op
                .take()
                .expect("an async operation is polled after it was ready"),
        };
        if let Op::Send { to, .. } = this {
            if inner.closes.is_closed(role, to) {
                if op.ticket.take().is_some() {
                    self.async_ops -= 1;
                }
                op.op = Some(this);
                return Poll::Ready(Err(send_after_close(&shared.names, role, to)));
            }
        }
        let from = match &this {
            Op::Recv { from } => *from,
            _ => None,
        };
        let epoch = inner.epoch;
        match inner.attempt(role, this) {
            Ok(outcome) => {
                if op.ticket.take().is_some() {
                    self.async_ops -= 1;
                }
                if !matches!(outcome, Outcome::Ended) {
                    inner.epoch += 1;
                    inner.progress_waiters(&mut self.woken);
                }
                shared.release(inner, &mut self.woken);
                Poll::Ready(match outcome {
                    Outcome::Sent => Ok(Done::Sent),
                    Outcome::Closed => Ok(Done::Closed),
                    Outcome::Received(f, m) => Ok(Done::Received(f, m)),
                    Outcome::Selected(i, m) => Ok(Done::Selected(i, m)),
                    Outcome::Ended => Err(closed_error(&shared.names, role, from)),
                })
            }
            Err(back) => {
                if op.ticket.is_none() {
                    self.async_ops += 1;
                }
                inner.pending[role].put(&mut op.ticket, epoch, cx.waker(), back);
                inner.pending_count += 1;
                inner.detect_deadlock(&shared.names, &mut self.woken);
                let failed = inner.failure.clone();
                if failed.is_some() {
                    let t = op.ticket.take().expect("registered above");
                    self.async_ops -= 1;
                    if let Some(entry) = inner.pending[role].take(t) {
                        inner.pending_count -= 1;
                        op.op = Some(entry.op);
                    }
                }
                shared.release(inner, &mut self.woken);
                match failed {
                    Some(e) => Poll::Ready(Err(e)),
                    None => Poll::Pending,
                }
            }
        }
    }

    /// Gives up the async operation `op` (its future is dropped before it
    /// was ready): a registered operation has done nothing, and the role no
    /// longer waits on it. Nothing to do for one never registered.
    pub fn cancel_op(&mut self, op: &mut AsyncOp) {
        let Some(t) = op.ticket.take() else {
            return;
        };
        self.async_ops -= 1;
        let shared = &*self.shared;
        let mut inner = shared.lock();
        if let Some(entry) = inner.pending[self.role].take(t) {
            inner.pending_count -= 1;
            op.op = Some(entry.op);
        }
        // The role's other registrations may now be all it waits on.
        inner.detect_deadlock(&shared.names, &mut self.woken);
        shared.release(inner, &mut self.woken);
        shared.uses[self.role].end_poll(self.async_ops > 0, self.shared_use);
    }
}
