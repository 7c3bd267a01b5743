//! The status words of a [`SplitSession`](super::SplitSession)'s roles
//! (running, dead, or waiting at an epoch) and what is done with them
//! without a common lock: leaving and resuming the running state, waking a
//! waiter, poisoning, and the deadlock decision whose argument the
//! [module docs](super::super) give.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::Ordering::SeqCst;
use std::sync::Arc;
use std::task::Waker;

use engine::RoleId;

use super::super::error::{Blocked, Deadlock, Error};
use super::super::op::lock;
use super::{Shared, Split};

/// `Shared::status`: live and not waiting (or not taken yet, while the
/// session is open).
pub(super) const RUNNING: u64 = 0;
/// `Shared::status`: dropped, or never taken and the session is closed.
pub(super) const DEAD: u64 = u64::MAX;
// Any other status `s`: waiting on an operation refused at epoch `s - 1`.

impl<P: Split> Shared<P> {
    /// Why the session failed. (Cold: kept out of the polls' code.)
    #[cold]
    #[inline(never)]
    pub(super) fn failure(&self) -> Error {
        lock(&self.failure).clone().unwrap_or(Error::Panicked)
    }

    /// Fails the session with `error` (unless it has failed already) and
    /// releases every waiter: each returns the session's failure.
    pub(super) fn poison(&self, error: Error) {
        let mut failure = lock(&self.failure);
        if failure.is_none() {
            *failure = Some(error);
        }
        self.failed.store(true, SeqCst);
        drop(failure);
        for u in &self.unparkers {
            u.unpark();
        }
        self.wake_all_async();
    }

    /// Wakes every async registration of every role (the session failed:
    /// each owner's next poll gets the failure).
    fn wake_all_async(&self) {
        for r in 0..self.slots.len() {
            if self.asynchronous[r].load(SeqCst) {
                self.wake_async(r);
            }
        }
    }

    /// Wakes every async registration of `role` (its owner's next poll
    /// tries it), and a poll of it under way (see `Slot::notified`). The
    /// wakers are woken after the lock is released: the owner's next poll
    /// takes it.
    pub(super) fn wake_async(&self, role: RoleId) {
        let mut slot = lock(&self.slots[role]);
        slot.notified = true;
        // One registration (the usual case): its waker alone, without
        // gathering a list of them.
        if let [one] = slot.waiters.entries.as_mut_slice() {
            one.refused_at = None;
            // Taken, not cloned (a clone and the registration's drop are
            // a locked instruction each with most executors): the woken
            // owner's next poll removes the registration, and a wake
            // before that poll finds the no-op waker left here, which is
            // enough: the owner is woken already, and polls after both.
            let waker = std::mem::replace(&mut one.waker, Waker::noop().clone());
            drop(slot);
            waker.wake();
            return;
        }
        let wakers = slot.waiters.wake_all();
        drop(slot);
        wakers.wake();
    }

    /// `role` stops running: it waits (`status` = refused epoch + 1) or is
    /// dead. If it was the last running role, decide.
    pub(super) fn leave(&self, role: RoleId, status: u64) {
        // A swap, not a store: a role is uncounted once. If it is not
        // running (an endpoint dropped while unwinding between its
        // registration and its `resume`), it was uncounted already; then
        // decide if nobody else will.
        if self.status[role].swap(status, SeqCst) == RUNNING {
            self.uncount();
        } else if self.running.load(SeqCst) == 0 {
            self.decide();
        }
    }

    /// One fewer running role; the one that takes the count to zero decides.
    pub(super) fn uncount(&self) {
        let before = self.running.fetch_sub(1, SeqCst);
        debug_assert_ne!(before, 0, "running count underflow");
        if before == 1 {
            self.decide();
        }
    }

    /// Unparks `role`, and if it waits, counts it as running from now on, on
    /// its behalf: until it has been scheduled and has tried again, no
    /// decision is run (which would find its refusal stale and wake every
    /// stale waiter for nothing). Only ever makes a role running earlier, so
    /// it cannot cause a false alarm; the unpark that follows makes the role
    /// try again and register afresh, so it cannot hide a deadlock.
    pub(super) fn wake(&self, role: RoleId) {
        let s = self.status[role].load(SeqCst);
        if s != RUNNING && s != DEAD {
            // Counted before its status says running, so that the count is
            // never below the number of running statuses (a woken role that
            // leaves again must find itself counted).
            self.running.fetch_add(1, SeqCst);
            if self.status[role]
                .compare_exchange(s, RUNNING, SeqCst, SeqCst)
                .is_err()
            {
                // It came back on its own meanwhile (and counted itself),
                // another waker got there first, or it died.
                self.uncount();
            }
        }
        // A role whose futures are registered, between polls, is parked in
        // no blocking call, and a call it makes later begins after this
        // wake, so it tries after the change: its unpark would only leave a
        // token that makes some later park return at once for nothing.
        if !self.uses[role].is_async() {
            self.unparkers[role].unpark();
        }
        if self.asynchronous[role].load(SeqCst) {
            self.wake_async(role);
        }
    }

    /// `role` is back from parking: running again, unless a waker has
    /// already made it so (and counted it).
    pub(super) fn resume(&self, role: RoleId) {
        let s = self.status[role].load(SeqCst);
        if s != RUNNING
            && self.status[role]
                .compare_exchange(s, RUNNING, SeqCst, SeqCst)
                .is_ok()
        {
            self.running.fetch_add(1, SeqCst);
        }
    }

    /// The deadlock decision, by the role that took `running` to zero (a
    /// snapshot of atomics): if every live role is seen waiting on a try
    /// refused at epoch `E`, and the epoch is `E` before and after the scan,
    /// look once more in the same way with every slot locked (so that the
    /// report sees every local state), then declare a deadlock and release
    /// every waiter. If every live role is waiting but some refusals are
    /// older, wake those to try again (the change since may not have
    /// concerned them, so nobody else wakes them); their next registration
    /// decides again.
    pub(super) fn decide(&self) {
        if self.failed.load(SeqCst) {
            return;
        }
        let before = self.epoch.load(SeqCst);
        let mut any_waiting = false;
        let mut stale = false;
        for status in &self.status {
            match status.load(SeqCst) {
                RUNNING => return, // it will decide when it stops, if needed
                DEAD => {}
                s => {
                    any_waiting = true;
                    stale |= s - 1 != before;
                }
            }
        }
        if !any_waiting || self.epoch.load(SeqCst) != before {
            return; // a step completed meanwhile; its thread will decide
        }
        if stale {
            for (r, status) in self.status.iter().enumerate() {
                let s = status.load(SeqCst);
                if s != RUNNING && s != DEAD && s - 1 != before {
                    self.wake(r);
                }
            }
            return;
        }
        // Look again with every slot locked. A role takes its local state
        // back from its slot under that lock, after it has left the waiting
        // status; so every role seen waiting (or dead) here has its local
        // state in its slot until we are done, and the report can tell
        // whether the protocol had terminated. The check is the same as
        // above (it alone is what the argument in the module docs needs);
        // if anything moved since, whoever moved will decide again.
        let slots: Vec<_> = self.slots.iter().map(|s| lock(s)).collect();
        let at = self.epoch.load(SeqCst);
        let mut dead = Vec::with_capacity(slots.len());
        for status in &self.status {
            match status.load(SeqCst) {
                DEAD => dead.push(true),
                s if s != RUNNING && s - 1 == at => dead.push(false),
                _ => return,
            }
        }
        if self.epoch.load(SeqCst) != at || dead.iter().all(|&d| d) {
            return;
        }
        let mut failure = lock(&self.failure);
        if failure.is_some() {
            return;
        }
        let names = &self.names;
        let mut blocked = Vec::new();
        let mut finished = Vec::new();
        let mut panicked = Vec::new();
        for (r, slot) in slots.iter().enumerate() {
            if dead[r] {
                if self.uses[r].panicked() {
                    panicked.push(names[r].clone());
                } else {
                    finished.push(names[r].clone());
                }
                continue;
            }
            // A role waits in a blocking call (its slot says on what) or
            // on its async registrations (never both: a blocking call is
            // refused while any is registered).
            let waits_for = if slot.waiters.entries.is_empty() {
                slot.wait
                    .as_ref()
                    .expect("a waiting role has said what it waits for")
                    .describe(names)
            } else {
                super::poll::combined(&slot.waiters).describe(names)
            };
            blocked.push(Blocked {
                role: names[r].clone(),
                waits_for,
            });
        }
        // Every local state is in its slot, except that of a role declared
        // panicked by its guard, which its endpoint keeps elsewhere.
        let locals: Option<Vec<&P::Local>> = slots.iter().map(|s| s.local.as_ref()).collect();
        debug_assert!(
            locals.is_some() || !panicked.is_empty(),
            "every local state is in its slot"
        );
        let terminated = locals.is_some_and(|locals| {
            let guards: Vec<_> = self.inboxes.iter().map(|i| lock(i)).collect();
            let inboxes: Vec<&P::Inbox> = guards.iter().map(|g| &**g).collect();
            // Protocol code, run with `failure` and every slot locked: it
            // must not unwind out of here (nobody would be released, and a
            // `PoisonOnUnwind` would deadlock on `failure`). A panic only
            // costs the report its "terminated".
            catch_unwind(AssertUnwindSafe(|| P::parts_terminated(&locals, &inboxes)))
                .unwrap_or(false)
        });
        *failure = Some(Error::Deadlock(Arc::new(Deadlock {
            blocked,
            finished,
            panicked,
            terminated,
        })));
        self.failed.store(true, SeqCst);
        drop(slots);
        drop(failure);
        for u in &self.unparkers {
            u.unpark();
        }
        self.wake_all_async();
    }
}
