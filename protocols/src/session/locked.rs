//! A session over any protocol object held under one lock (the strict
//! runtime's model: one global state, every operation checked against it).
//! This file holds the session and its endpoints; the state under the lock,
//! with the hand-off and the deadlock decision, is in `locked/inner.rs`.

mod inner;
mod poll;

use std::sync::{Arc, Mutex, MutexGuard};

use crossbeam_utils::sync::{Parker, Unparker};
use crossbeam_utils::CachePadded;
use engine::{Message, Protocol, RoleId};

use super::channels::Channels;
use super::closed::{closed_error, send_after_close, Closes};
use super::endpoint::endpoint_methods;
use super::error::{Error, ToRole};
use super::op::{lock, Op};
use super::panic::PanicSink;
use super::pending::Wakers;
use super::role_use::{self, InOp, Uses};
use super::select::{self, Alternative};
use inner::{Inner, Outcome, Slot};

/// Real threads on one protocol object: hands out one [`Endpoint`] per role.
///
/// The object is held under one lock; every operation of every endpoint is a
/// call of the object's own try-operation. While the `Session` value itself
/// is alive, roles whose endpoint has not been taken yet count as live (some
/// thread may still take them); drop the session, or use
/// [`Session::into_endpoints`], once every thread has its endpoint, so that a
/// deadlock involving an unused role is reported instead of waited on.
///
/// ```
/// # use engine::{Message, Protocol, Refused, RoleId};
/// # use protocols::session::Session;
/// # // A one-shot channel from role 0 ("ping") to role 1 ("pong").
/// # #[derive(Clone, PartialEq, Eq, Hash)]
/// # struct OneShot(Option<Option<Message>>);
/// # impl Protocol for OneShot {
/// #     fn roles(&self) -> Vec<String> { vec!["ping".into(), "pong".into()] }
/// #     fn try_send(&mut self, r: RoleId, to: RoleId, m: Message) -> Result<(), Refused<Message>> {
/// #         if r == 0 && to == 1 && self.0.is_none() { self.0 = Some(Some(m)); Ok(()) } else { Err(Refused(m)) }
/// #     }
/// #     fn try_recv(&mut self, r: RoleId, from: Option<RoleId>) -> Result<(RoleId, Message), Refused> {
/// #         match (&mut self.0, r, from) {
/// #             (Some(slot @ Some(_)), 1, None | Some(0)) => Ok((0, slot.take().unwrap())),
/// #             _ => Err(Refused(())),
/// #         }
/// #     }
/// # }
/// let session = Session::new(OneShot(None));
/// let [mut ping, mut pong] = session.into_endpoints().try_into().unwrap();
/// let t = std::thread::spawn(move || pong.recv_from("ping").map(|m| m.type_name().to_string()));
/// ping.send("pong", 42u32).unwrap();
/// assert_eq!(t.join().unwrap().unwrap(), "u32");
/// ```
pub struct Session<P: Protocol> {
    shared: Arc<Shared<P>>,
}

/// One role's handle on a [`Session`], for one thread (`&mut self`).
/// Dropping it tells the session that the role will never act again.
pub struct Endpoint<P: Protocol> {
    shared: Arc<Shared<P>>,
    role: RoleId,
    parker: Parker,
    /// Results to deliver after releasing the lock (kept to avoid allocating).
    woken: Vec<Delivery>,
    /// How many async operations of this endpoint are registered.
    async_ops: usize,
    /// Whether the role's use word was handed out
    /// ([`BlockingEndpoint::share_use`](super::BlockingEndpoint::share_use)):
    /// its holder then begins and ends each operation.
    shared_use: bool,
}

/// The result of a waiter's operation, completed by another thread.
type Delivery = (RoleId, Result<Outcome, Error>);

/// Where a waiter finds that result.
type Mailbox = CachePadded<Mutex<Option<Result<Outcome, Error>>>>;

struct Shared<P> {
    names: Vec<String>,
    unparkers: Vec<Unparker>,
    /// Per role: the result of its blocked operation, once another thread
    /// has completed it (so the waiter does not need the big lock to wake).
    mailboxes: Vec<Mailbox>,
    /// Per role: whether its endpoint is in an operation, or was declared
    /// panicked (see [`PanicGuard`](super::PanicGuard)).
    uses: Uses,
    /// What each channel carries (for typed ends).
    channels: Channels,
    inner: Mutex<Inner<P>>,
}

impl<P: Protocol> Session<P> {
    /// A session on `object`: from now on the object belongs to the threads
    /// that take its endpoints.
    pub fn new(object: P) -> Self {
        let names = object.roles();
        let parkers: Vec<Parker> = names.iter().map(|_| Parker::new()).collect();
        let unparkers = parkers.iter().map(|p| p.unparker().clone()).collect();
        let closes = Closes::new(&object);
        let channels = Channels::new(&object);
        let inner = Inner {
            object,
            epoch: 0,
            slots: names.iter().map(|_| Slot::Unclaimed).collect(),
            parkers: parkers.into_iter().map(Some).collect(),
            waiting: 0,
            session_open: true,
            failure: None,
            closes,
            pending: names.iter().map(|_| Default::default()).collect(),
            pending_count: 0,
            to_wake: Vec::new(),
        };
        let mailboxes = names
            .iter()
            .map(|_| CachePadded::new(Mutex::new(None)))
            .collect();
        let uses = role_use::uses(names.len());
        Session {
            shared: Arc::new(Shared {
                names,
                unparkers,
                mailboxes,
                uses,
                channels,
                inner: Mutex::new(inner),
            }),
        }
    }

    /// The role names, indexed by [`RoleId`].
    pub fn roles(&self) -> &[String] {
        &self.shared.names
    }

    /// Resolves a role name (or checks an index).
    pub fn role(&self, role: impl ToRole) -> Result<RoleId, Error> {
        role.to_role(&self.shared.names)
    }

    /// Takes the endpoint of `role` (by name or index). Each role has one.
    pub fn endpoint(&self, role: impl ToRole) -> Result<Endpoint<P>, Error> {
        let role = role.to_role(&self.shared.names)?;
        let mut inner = self.shared.lock();
        match inner.parkers[role].take() {
            Some(parker) => {
                inner.slots[role] = Slot::Running;
                drop(inner);
                Ok(Endpoint {
                    shared: Arc::clone(&self.shared),
                    role,
                    parker,
                    woken: Vec::new(),
                    async_ops: 0,
                    shared_use: false,
                })
            }
            None => Err(Error::RoleTaken(self.shared.names[role].clone())),
        }
    }

    /// Every endpoint not taken yet, in role order, closing the session (so
    /// a deadlock never waits on a role nobody can take any more). Roles
    /// taken earlier are skipped.
    pub fn into_endpoints(self) -> Vec<Endpoint<P>> {
        (0..self.shared.names.len())
            .filter_map(|r| self.endpoint(r).ok())
            .collect()
    }
}

impl<P: Protocol> Drop for Session<P> {
    fn drop(&mut self) {
        let mut inner = self.shared.lock();
        inner.session_open = false;
        let mut woken = Vec::new();
        inner.detect_deadlock(&self.shared.names, &mut woken);
        self.shared.release(inner, &mut woken);
    }
}

impl<P: Protocol> Endpoint<P> {
    endpoint_methods!();

    /// Sends `msg` to `to` as [`send`](Self::send) does; on failure the
    /// message comes back with the error.
    pub fn send_back(&mut self, to: RoleId, msg: Message) -> Result<(), (Error, Message)> {
        let to = match to.to_peer(self.role, &self.shared.names, "send to") {
            Ok(to) => to,
            Err(e) => return Err((e, msg)),
        };
        let mut back = None;
        match self.run_back::<true>(Op::Send { to, msg }, Some(&mut back)) {
            Ok(_) => Ok(()),
            Err(e) => Err((e, back.expect("a failed send gives its message back"))),
        }
    }

    /// Receives the next message the protocol allows, from any sender.
    ///
    /// Fails with [`Error::Closed`] once every role that may send to this
    /// one has closed its channel to it and nothing is left in them; while
    /// some sender has not closed, it waits (messages left in closed
    /// channels are still received). See the [module docs](super).
    pub fn recv(&mut self) -> Result<(RoleId, Message), Error> {
        match self.run(Op::Recv { from: None })? {
            Outcome::Received(from, msg) => Ok((from, msg)),
            Outcome::Ended => Err(closed_error(&self.shared.names, self.role, None)),
            _ => unreachable!("a receive completes with a message"),
        }
    }

    /// Receives the next message from `from`; fails with
    /// [`Error::Closed`] once `from` has closed its channel to this role
    /// and nothing is left in it.
    pub fn recv_from(&mut self, from: impl ToRole) -> Result<Message, Error> {
        let from = from.to_peer(self.role, &self.shared.names, "receive from")?;
        match self.run(Op::Recv { from: Some(from) })? {
            Outcome::Received(_, msg) => Ok(msg),
            Outcome::Ended => Err(closed_error(&self.shared.names, self.role, Some(from))),
            _ => unreachable!("a receive completes with a message"),
        }
    }

    /// Receives the first of `alternatives` that the protocol allows (the
    /// first in order if several are); the index of the one taken and the
    /// message. Fails with [`Error::Closed`] once every alternative's
    /// sender has closed its channel to this role and nothing is left in
    /// them. See [`Alternative`].
    pub fn select(&mut self, alternatives: &[Alternative]) -> Result<(usize, Message), Error> {
        let alternatives = &select::resolve_all(alternatives, self.role, &self.shared.names)?;
        match self.run(Op::Select {
            alts: alternatives.to_vec(),
        })? {
            Outcome::Selected(i, msg) => Ok((i, msg)),
            Outcome::Ended => Err(closed_error(&self.shared.names, self.role, None)),
            _ => unreachable!("a select completes with a message"),
        }
    }

    /// As [`select`](Self::select), without waiting: `Ok(None)` if the
    /// protocol allows none of the alternatives now.
    pub fn try_select(
        &mut self,
        alternatives: &[Alternative],
    ) -> Result<Option<(usize, Message)>, Error> {
        let alternatives = &select::resolve_all(alternatives, self.role, &self.shared.names)?;
        match self.try_once(Op::Select {
            alts: alternatives.to_vec(),
        })? {
            Some(Outcome::Selected(i, msg)) => Ok(Some((i, msg))),
            Some(Outcome::Ended) => Err(closed_error(&self.shared.names, self.role, None)),
            None => Ok(None),
            _ => unreachable!("a select completes with a message"),
        }
    }

    /// One try, without waiting: `None` if refused. A refused try changes
    /// nothing and registers nothing, so the role stays running.
    fn try_once(&mut self, op: Op) -> Result<Option<Outcome>, Error> {
        let shared = &*self.shared;
        let _in_op = InOp::begin(
            &shared.uses[self.role],
            &shared.names[self.role],
            self.shared_use,
        )?;
        let mut inner = shared.lock();
        if let Some(e) = &inner.failure {
            return Err(e.clone());
        }
        match inner.attempt(self.role, op) {
            Ok(outcome) => {
                inner.epoch += 1;
                inner.progress_waiters(&mut self.woken);
                shared.release(inner, &mut self.woken);
                Ok(Some(outcome))
            }
            Err(_) => Ok(None),
        }
    }

    /// The blocking loop: try; on refusal register as waiting and park until
    /// another thread completes the operation (it re-tries every waiter
    /// after each change, under the lock) or declares a deadlock.
    fn run(&mut self, op: Op) -> Result<Outcome, Error> {
        self.run_back::<false>(op, None)
    }

    /// [`run`](Self::run), with a failed send's message put in `back`
    /// (`BACK`, a constant, so that the plain operations compile as if it
    /// were not there). A send that waits is kept as a clone: the waiting
    /// send itself is in the slot, where another role's step performs it.
    fn run_back<const BACK: bool>(
        &mut self,
        op: Op,
        back: Option<&mut Option<Message>>,
    ) -> Result<Outcome, Error> {
        let shared = &*self.shared;
        let role = self.role;
        let fail = |op: Op, e: Error, back: Option<&mut Option<Message>>| {
            if let (true, Some(back)) = (BACK, back) {
                op.give_back(back);
            }
            Err(e)
        };
        // Ends the operation on every return (and unwind): until then a
        // guard's panic cannot declare the role dead under our feet.
        let _in_op = match InOp::begin(&shared.uses[role], &shared.names[role], self.shared_use) {
            Ok(in_op) => in_op,
            Err(e) => return fail(op, e, back),
        };
        let mut inner = shared.lock();
        if let Some(e) = &inner.failure {
            let e = e.clone();
            drop(inner);
            return fail(op, e, back);
        }
        if let Op::Send { to, .. } = &op {
            if inner.closes.is_closed(role, *to) {
                drop(inner);
                let e = send_after_close(&shared.names, role, *to);
                return fail(op, e, back);
            }
        }
        let epoch = inner.epoch;
        match inner.attempt(role, op) {
            Ok(outcome) => {
                inner.epoch += 1;
                inner.progress_waiters(&mut self.woken);
                shared.release(inner, &mut self.woken);
                Ok(outcome)
            }
            Err(op) => {
                let kept = match (&op, back) {
                    (Op::Send { msg, .. }, Some(back)) if BACK => {
                        *back = Some(msg.clone());
                        Some(back)
                    }
                    _ => None,
                };
                inner.slots[role] = Slot::Waiting { op, epoch };
                inner.waiting += 1;
                inner.detect_deadlock(&shared.names, &mut self.woken);
                shared.release(inner, &mut self.woken);
                loop {
                    // A delivery unparks us; a stale token from an earlier
                    // delivery only costs one more look.
                    if let Some(result) = lock(&shared.mailboxes[role]).take() {
                        if result.is_ok() {
                            if let Some(back) = kept {
                                *back = None;
                            }
                        }
                        return result;
                    }
                    self.parker.park();
                }
            }
        }
    }
}

impl<P: Protocol> std::fmt::Debug for Endpoint<P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Endpoint")
            .field("role", &self.name())
            .finish_non_exhaustive()
    }
}

impl<P: Protocol> std::fmt::Debug for Session<P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("roles", &self.roles())
            .finish_non_exhaustive()
    }
}

impl<P: Protocol> Drop for Endpoint<P> {
    fn drop(&mut self) {
        // Dropped while its thread unwinds: the role ends as panicked, not
        // as finished (it did not do its part).
        let panicked = self.shared.uses[self.role].drop_endpoint(std::thread::panicking());
        let mut inner = self.shared.lock();
        inner.slots[self.role] = if panicked {
            Slot::Panicked
        } else {
            Slot::Dropped
        };
        let registered = std::mem::take(&mut inner.pending[self.role]);
        inner.pending_count -= registered.entries.len();
        inner.detect_deadlock(&self.shared.names, &mut self.woken);
        self.shared.release(inner, &mut self.woken);
    }
}

impl<P: Protocol> PanicSink for Shared<P> {
    fn role_panicked(&self, role: RoleId) {
        if !self.uses[role].declare_panicked() {
            return; // in use by another thread, dropped, or declared already
        }
        // The endpoint is idle and can never start an operation again, so
        // its slot is `Running` (it was not waiting) and no try of the role
        // can follow: it is dead from here on.
        let mut inner = self.lock();
        inner.slots[role] = Slot::Panicked;
        let mut woken = Vec::new();
        inner.detect_deadlock(&self.names, &mut woken);
        self.release(inner, &mut woken);
    }
}

impl<P> Shared<P> {
    /// The lock, even if protocol code panicked under it: then the session
    /// is poisoned with `Error::Panicked` and every waiter is released, so
    /// that a panic never leaves a thread parked.
    fn lock(&self) -> MutexGuard<'_, Inner<P>> {
        match self.inner.lock() {
            Ok(g) => g,
            Err(poisoned) => {
                let mut g = poisoned.into_inner();
                if g.failure.is_none() {
                    g.failure = Some(Error::Panicked);
                    for (r, slot) in g.slots.iter_mut().enumerate() {
                        if let Slot::Waiting { .. } = slot {
                            *slot = Slot::Running;
                            *lock(&self.mailboxes[r]) = Some(Err(Error::Panicked));
                            self.unparkers[r].unpark();
                        }
                    }
                    g.waiting = 0;
                    g.wake_all_async();
                }
                g
            }
        }
    }

    /// Releases the lock, then delivers `woken` and wakes the async
    /// registrations that the changes made under it may have enabled.
    fn release(&self, mut inner: MutexGuard<'_, Inner<P>>, woken: &mut Vec<Delivery>) {
        // Drained, not taken: the list keeps its buffer for the next
        // change (one waker, the usual case, moves out without one).
        let wakers: Wakers = if inner.to_wake.is_empty() {
            Wakers::default() // the blocking path: nothing to drain
        } else {
            inner.to_wake.drain(..).collect()
        };
        drop(inner);
        self.deliver(woken);
        wakers.wake();
    }

    /// Hands completed results to their waiters and unparks them (after
    /// the big lock is released, so they do not wake into it).
    fn deliver(&self, woken: &mut Vec<Delivery>) {
        for (r, result) in woken.drain(..) {
            *lock(&self.mailboxes[r]) = Some(result);
            self.unparkers[r].unpark();
        }
    }
}
