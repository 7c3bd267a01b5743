//! The state under a [`Session`](super::Session)'s one lock: the object,
//! the epoch and every role's slot, with the two things done under the lock
//! after a change: the hand-off (re-try every waiter, complete what the
//! protocol now allows) and the deadlock decision.

use std::sync::Arc;
use std::task::Waker;

use crossbeam_utils::sync::Parker;
use engine::{Message, Protocol, Refused, RoleId};

use super::super::closed::Closes;
use super::super::error::{Blocked, Deadlock, Error, WaitsFor};
use super::super::op::Op;
use super::super::pending::Waiters;
use super::Delivery;

pub(super) struct Inner<P> {
    pub(super) object: P,
    /// Bumped by every operation that changes the object.
    pub(super) epoch: u64,
    pub(super) slots: Vec<Slot>,
    pub(super) parkers: Vec<Option<Parker>>,
    /// Number of `Slot::Waiting`, to skip the scan when nobody waits.
    pub(super) waiting: usize,
    /// Whether the `Session` value is alive (unclaimed roles count as live).
    pub(super) session_open: bool,
    /// Set once: the session is poisoned by a deadlock or a panic.
    pub(super) failure: Option<Error>,
    /// The channels closed so far (see `session/closed.rs`).
    pub(super) closes: Closes,
    /// Per role: its registered async operations. A role whose endpoint is
    /// `Running` and whose every registration was refused at the current
    /// epoch waits, as a `Slot::Waiting` does.
    pub(super) pending: Vec<Waiters<Op>>,
    /// How many registrations there are, to skip the scan when none.
    pub(super) pending_count: usize,
    /// Wakers to wake once the lock is released.
    pub(super) to_wake: Vec<Waker>,
}

pub(super) enum Slot {
    /// No endpoint yet.
    Unclaimed,
    /// The endpoint exists and is not blocked.
    Running,
    /// Blocked on `op`, which was refused at `epoch`. When another thread
    /// completes (or fails) the operation, the slot is `Running` again (the
    /// owner is about to return) and the result goes to its mailbox.
    Waiting { op: Op, epoch: u64 },
    /// The endpoint was dropped.
    Dropped,
    /// The role's thread panicked (its endpoint was dropped while
    /// unwinding, or its [`PanicGuard`] was): dead, like `Dropped`.
    Panicked,
}

pub(super) enum Outcome {
    Sent,
    Received(RoleId, Message),
    Closed,
    /// A receive that can never succeed: its channel was closed and holds
    /// nothing ([`Error::Closed`] for the caller).
    Ended,
    /// A select took alternative `.0`.
    Selected(usize, Message),
}

impl<P: Protocol> Inner<P> {
    /// One try-operation of `role` on the object; the operation back if
    /// refused (the object is then unchanged, by the `Protocol` contract).
    pub(super) fn attempt(&mut self, role: RoleId, op: Op) -> Result<Outcome, Op> {
        match op {
            Op::Send { to, msg } => match self.object.try_send(role, to, msg) {
                Ok(()) => Ok(Outcome::Sent),
                Err(Refused(msg)) => Err(Op::Send { to, msg }),
            },
            Op::Recv { from } => match self.object.try_recv(role, from) {
                Ok((from, msg)) => Ok(Outcome::Received(from, msg)),
                Err(Refused(())) if self.recv_ended(role, from) => Ok(Outcome::Ended),
                Err(Refused(())) => Err(Op::Recv { from }),
            },
            Op::Close { to } => match self.object.try_close(role, to) {
                Ok(()) => {
                    self.closes.mark(role, to);
                    Ok(Outcome::Closed)
                }
                Err(Refused(())) => Err(Op::Close { to }),
            },
            Op::Select { alts } => {
                for (i, a) in alts.iter().enumerate() {
                    // A typed alternative looks at the message on a clone
                    // first: a receive cannot be undone.
                    let mut probe = self.object.clone();
                    if let Ok((_, msg)) = probe.try_recv(role, Some(a.from)) {
                        if a.accepts(&msg) {
                            self.object = probe;
                            return Ok(Outcome::Selected(i, msg));
                        }
                    }
                }
                let object = &self.object;
                let ended = !alts.is_empty()
                    && alts.iter().all(|a| {
                        self.closes
                            .recv_ended(role, Some(a.from), |f| object.is_channel_empty(f, role))
                    });
                if ended {
                    Ok(Outcome::Ended)
                } else {
                    Err(Op::Select { alts })
                }
            }
        }
    }

    /// Whether a refused receive of `role` can never succeed (its channel
    /// closed and empty); see [`Closes::recv_ended`].
    fn recv_ended(&self, role: RoleId, from: Option<RoleId>) -> bool {
        let object = &self.object;
        self.closes
            .recv_ended(role, from, |f| object.is_channel_empty(f, role))
    }

    /// After a change, re-tries every waiter until none can go on; fills
    /// `woken` with the waiters whose operation completed. On return every
    /// remaining waiter was refused at the current epoch. Then looks at
    /// every async registration (see [`refresh_async`](Self::refresh_async)).
    pub(super) fn progress_waiters(&mut self, woken: &mut Vec<Delivery>) {
        if self.waiting != 0 {
            self.progress_threads(woken);
        }
        if self.pending_count != 0 {
            self.refresh_async();
        }
    }

    /// Brings every async registration to the current epoch: one that the
    /// protocol now allows (tried on a clone of the object: the operation
    /// is its owner's to perform, so that a future dropped meanwhile has
    /// done nothing) is woken and counts as running until its owner polls
    /// it; any other is refused at the current epoch.
    pub(super) fn refresh_async(&mut self) {
        let epoch = self.epoch;
        for r in 0..self.pending.len() {
            if self.pending[r].entries.is_empty() {
                continue;
            }
            let mut waiters = std::mem::take(&mut self.pending[r]);
            for e in &mut waiters.entries {
                if e.refused_at.is_some_and(|at| at != epoch) {
                    if self.would_complete(r, &e.op) {
                        e.refused_at = None;
                        self.to_wake.push(e.waker.clone());
                    } else {
                        e.refused_at = Some(epoch);
                    }
                }
            }
            self.pending[r] = waiters;
        }
    }

    /// Whether `role`'s `op` would complete (or end) now; the object is
    /// not changed.
    fn would_complete(&self, role: RoleId, op: &Op) -> bool {
        match op {
            Op::Send { to, msg } => self.object.clone().try_send(role, *to, msg.clone()).is_ok(),
            Op::Recv { from } => {
                self.recv_ended(role, *from)
                    || (self.object.may_recv(role, *from)
                        && self.object.clone().try_recv(role, *from).is_ok())
            }
            Op::Close { to } => self.object.clone().try_close(role, *to).is_ok(),
            Op::Select { alts } => {
                let object = &self.object;
                alts.iter().any(|a| {
                    matches!(object.clone().try_recv(role, Some(a.from)), Ok((_, m)) if a.accepts(&m))
                }) || (!alts.is_empty()
                    && alts.iter().all(|a| {
                        self.closes
                            .recv_ended(role, Some(a.from), |f| object.is_channel_empty(f, role))
                    }))
            }
        }
    }

    /// Re-tries every waiting thread until none can go on.
    fn progress_threads(&mut self, woken: &mut Vec<Delivery>) {
        loop {
            let mut progressed = false;
            for w in 0..self.slots.len() {
                match &self.slots[w] {
                    // The object promises a refusal (`Protocol::may_recv`):
                    // as good as a try at this epoch, and much cheaper when
                    // many threads wait to receive.
                    Slot::Waiting {
                        op: Op::Recv { from },
                        ..
                    } if !self.object.may_recv(w, *from) && !self.recv_ended(w, *from) => {
                        let epoch = self.epoch;
                        if let Slot::Waiting { epoch: refused, .. } = &mut self.slots[w] {
                            *refused = epoch;
                        }
                        continue;
                    }
                    Slot::Waiting { .. } => {}
                    _ => continue,
                }
                let Slot::Waiting { op, .. } = std::mem::replace(&mut self.slots[w], Slot::Running)
                else {
                    unreachable!()
                };
                match self.attempt(w, op) {
                    Ok(outcome) => {
                        self.epoch += 1;
                        self.waiting -= 1;
                        woken.push((w, Ok(outcome)));
                        progressed = true;
                    }
                    Err(op) => {
                        self.slots[w] = Slot::Waiting {
                            op,
                            epoch: self.epoch,
                        }
                    }
                }
            }
            // A success may enable a waiter tried earlier in this pass.
            if !progressed || self.waiting == 0 {
                return;
            }
        }
    }

    /// Declares a deadlock if every live endpoint waits on an operation
    /// refused at the current epoch; fills `woken` with the waiters to
    /// release. See the module docs for why this cannot raise a false alarm.
    pub(super) fn detect_deadlock(&mut self, names: &[String], woken: &mut Vec<Delivery>) {
        if self.failure.is_some() || (self.waiting == 0 && self.pending_count == 0) {
            return;
        }
        let mut blocked = Vec::new();
        let mut finished = Vec::new();
        let mut panicked = Vec::new();
        for (r, slot) in self.slots.iter().enumerate() {
            match slot {
                Slot::Waiting { op, epoch } if *epoch == self.epoch => blocked.push(Blocked {
                    role: names[r].clone(),
                    waits_for: op.waits_for(names),
                }),
                Slot::Running if self.pending[r].blocked_at() == Some(self.epoch) => {
                    blocked.push(Blocked {
                        role: names[r].clone(),
                        waits_for: async_waits_for(&self.pending[r], names),
                    })
                }
                Slot::Dropped => finished.push(names[r].clone()),
                Slot::Panicked => panicked.push(names[r].clone()),
                Slot::Unclaimed if !self.session_open => finished.push(names[r].clone()),
                // Running, done, a waiter refused before the latest change
                // (it will be re-tried), or a role someone may still take.
                _ => return,
            }
        }
        let deadlock = Error::Deadlock(Arc::new(Deadlock {
            blocked,
            finished,
            panicked,
            terminated: self.object.is_terminated(),
        }));
        for (r, slot) in self.slots.iter_mut().enumerate() {
            if let Slot::Waiting { .. } = slot {
                *slot = Slot::Running;
                woken.push((r, Err(deadlock.clone())));
            }
        }
        self.waiting = 0;
        self.failure = Some(deadlock);
        self.wake_all_async();
    }
}

impl<P> Inner<P> {
    /// Wakes every async registration (the session failed: each owner's
    /// next poll gets the failure).
    pub(super) fn wake_all_async(&mut self) {
        for w in &mut self.pending {
            for e in &mut w.entries {
                e.refused_at = None;
                self.to_wake.push(e.waker.clone());
            }
        }
    }
}

/// What a role waiting on its async registrations waits for: the one
/// operation, or each of several (as a select's alternatives).
fn async_waits_for(waiters: &Waiters<Op>, names: &[String]) -> WaitsFor {
    match waiters.entries.as_slice() {
        [one] => one.op.waits_for(names),
        many => WaitsFor::Select {
            alternatives: many
                .iter()
                .map(|e| e.op.waits_for(names).to_string())
                .collect(),
        },
    }
}
