//! A session over a protocol object that comes apart into roles (the liberal
//! runtime's model): each endpoint owns its role's local state, the roles
//! share only one inbox per role, each under its own lock.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex, MutexGuard};

use crossbeam_utils::sync::{Parker, Unparker};
use crossbeam_utils::CachePadded;
use engine::{Message, Payload, Protocol, Refused, RoleId};

use super::error::{Blocked, Deadlock, Error, ToRole, WaitsFor};
use super::{InOp, PanicGuard, PanicSink, Use};

/// A protocol object whose roles can run apart: every step of a role
/// touches only that role's local state and at most one inbox.
///
/// The step functions must be the very functions the object's own
/// [`Protocol`] try-operations run on its parts (then what the checker
/// explores is what the threads run), and the same contract holds: a
/// refused step changes nothing.
pub trait Split: Protocol {
    /// One role's local state, owned by the role's thread.
    type Local: Send + 'static;
    /// One role's inbox, shared under a lock.
    type Inbox: Send + 'static;

    /// Whether taking a message out of an inbox may enable a send of the
    /// message's sender (bounded channels). If not, a receive wakes nobody.
    const RECV_MAY_ENABLE_SENDER: bool = false;

    /// Every role's local state and every role's inbox, in role order.
    fn split(self) -> (Vec<Self::Local>, Vec<Self::Inbox>);

    /// The local state's role sends `msg` to `to`, whose inbox is given.
    fn send_step(
        local: &mut Self::Local,
        to: RoleId,
        msg: Message,
        inbox_of_to: &mut Self::Inbox,
    ) -> Result<(), Refused<Message>>;

    /// The local state's role receives from its own inbox.
    fn recv_step(
        local: &mut Self::Local,
        from: Option<RoleId>,
        own_inbox: &mut Self::Inbox,
    ) -> Result<(RoleId, Message), Refused>;

    /// The local state's role closes its channel to `to`.
    fn close_step(local: &mut Self::Local, to: RoleId) -> Result<(), Refused>;

    /// Whether the parts, put back together, have terminated normally (for
    /// the deadlock report only).
    fn parts_terminated(locals: &[&Self::Local], inboxes: &[&Self::Inbox]) -> bool;
}

impl Split for crate::Liberal {
    type Local = crate::LocalRole;
    type Inbox = crate::liberal::Inbox;

    fn split(self) -> (Vec<Self::Local>, Vec<Self::Inbox>) {
        crate::Liberal::split(self)
    }

    fn send_step(
        local: &mut Self::Local,
        to: RoleId,
        msg: Message,
        inbox_of_to: &mut Self::Inbox,
    ) -> Result<(), Refused<Message>> {
        local.try_send(to, msg, inbox_of_to)
    }

    fn recv_step(
        local: &mut Self::Local,
        from: Option<RoleId>,
        own_inbox: &mut Self::Inbox,
    ) -> Result<(RoleId, Message), Refused> {
        local.try_recv(from, own_inbox)
    }

    fn close_step(local: &mut Self::Local, to: RoleId) -> Result<(), Refused> {
        local.try_close(to)
    }

    fn parts_terminated(locals: &[&Self::Local], inboxes: &[&Self::Inbox]) -> bool {
        let states: Vec<u32> = locals.iter().map(|l| l.state()).collect();
        inboxes.iter().all(|i| i.is_empty())
            && locals
                .first()
                .is_none_or(|l| l.projection().may_end(&states))
    }
}

/// Real threads on a [`Split`] protocol object (a [`Liberal`](crate::Liberal)
/// one): like [`Session`](super::Session), but without a global lock. Each
/// [`SplitEndpoint`] owns its role's local state; a send locks only the
/// receiver's inbox, a receive only the role's own inbox. Blocking and
/// waking touch only atomics (and the role's own slot); see the
/// [module docs](super) for the deadlock detection.
pub struct SplitSession<P: Split> {
    shared: Arc<Shared<P>>,
}

/// One role's handle on a [`SplitSession`]; see [`Endpoint`](super::Endpoint).
pub struct SplitEndpoint<P: Split> {
    shared: Arc<Shared<P>>,
    role: RoleId,
    /// The role's local state; lent to its slot while waiting (for the
    /// deadlock report) and when dropped.
    local: Option<P::Local>,
    parker: Parker,
}

/// `Shared::waiting_for` of a role that is not blocked.
const NOT_WAITING: usize = usize::MAX;
/// `Shared::waiting_for` of a role that any step may wake.
const ANYONE: usize = usize::MAX - 1;

/// `Shared::status`: live and not waiting (or not taken yet, while the
/// session is open).
const RUNNING: u64 = 0;
/// `Shared::status`: dropped, or never taken and the session is closed.
const DEAD: u64 = u64::MAX;
// Any other status `s`: waiting on an operation refused at epoch `s - 1`.

struct Shared<P: Split> {
    names: Vec<String>,
    inboxes: Vec<CachePadded<Mutex<P::Inbox>>>,
    unparkers: Vec<Unparker>,
    /// Per role: whom it waits to receive from (`ANYONE` for any sender or
    /// another operation, `NOT_WAITING` if it is not blocked); a sender
    /// unparks the receiver only if it is what it waits for.
    waiting_for: Vec<CachePadded<AtomicUsize>>,
    /// Bumped after every step that changed a local state or an inbox.
    epoch: CachePadded<AtomicU64>,
    /// Per role: `RUNNING`, `DEAD`, or `epoch + 1` of a refused try.
    status: Vec<CachePadded<AtomicU64>>,
    /// How many roles are `RUNNING`: the role whose registration (or drop)
    /// takes it to zero runs the deadlock decision.
    running: CachePadded<AtomicUsize>,
    /// Per role: what it waits for, and its local state while it waits.
    slots: Vec<CachePadded<Mutex<Slot<P::Local>>>>,
    /// Per role: whether its endpoint is in an operation, or was declared
    /// panicked (see [`PanicGuard`]).
    uses: Vec<CachePadded<Use>>,
    /// Set once the session is poisoned; `failure` says why.
    failed: AtomicBool,
    failure: Mutex<Option<Error>>,
}

struct Slot<L> {
    /// The parker of a role whose endpoint has not been taken.
    unclaimed: Option<Parker>,
    /// The local state, while the endpoint does not hold it.
    local: Option<L>,
    /// What the role waits for (valid while its status is a wait).
    wait: Option<Wait>,
}

enum Wait {
    Send { to: RoleId, type_name: String },
    Recv { from: Option<RoleId> },
    Close { to: RoleId },
}

enum Op {
    Send { to: RoleId, msg: Message },
    Recv { from: Option<RoleId> },
    Close { to: RoleId },
}

impl<P: Split> SplitSession<P> {
    /// A session on `object`, taken apart into its roles.
    pub fn new(object: P) -> Self {
        let names = object.roles();
        let n = names.len();
        let (locals, inboxes) = object.split();
        assert_eq!(
            locals.len(),
            n,
            "Split::split gives one local state per role"
        );
        assert_eq!(inboxes.len(), n, "Split::split gives one inbox per role");
        let parkers: Vec<Parker> = names.iter().map(|_| Parker::new()).collect();
        let unparkers = parkers.iter().map(|p| p.unparker().clone()).collect();
        let slots = locals
            .into_iter()
            .zip(parkers)
            .map(|(l, p)| {
                CachePadded::new(Mutex::new(Slot {
                    unclaimed: Some(p),
                    local: Some(l),
                    wait: None,
                }))
            })
            .collect();
        SplitSession {
            shared: Arc::new(Shared {
                names,
                inboxes: inboxes
                    .into_iter()
                    .map(|i| CachePadded::new(Mutex::new(i)))
                    .collect(),
                unparkers,
                waiting_for: (0..n)
                    .map(|_| CachePadded::new(AtomicUsize::new(NOT_WAITING)))
                    .collect(),
                epoch: CachePadded::new(AtomicU64::new(0)),
                status: (0..n)
                    .map(|_| CachePadded::new(AtomicU64::new(RUNNING)))
                    .collect(),
                running: CachePadded::new(AtomicUsize::new(n)),
                slots,
                uses: (0..n).map(|_| CachePadded::new(Use::default())).collect(),
                failed: AtomicBool::new(false),
                failure: Mutex::new(None),
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
    pub fn endpoint(&self, role: impl ToRole) -> Result<SplitEndpoint<P>, Error> {
        let role = role.to_role(&self.shared.names)?;
        let mut slot = lock(&self.shared.slots[role]);
        match slot.unclaimed.take() {
            Some(parker) => Ok(SplitEndpoint {
                shared: Arc::clone(&self.shared),
                role,
                local: slot.local.take(),
                parker,
            }),
            None => Err(Error::RoleTaken(self.shared.names[role].clone())),
        }
    }

    /// Every endpoint not taken yet, in role order, closing the session.
    pub fn into_endpoints(self) -> Vec<SplitEndpoint<P>> {
        (0..self.shared.names.len())
            .filter_map(|r| self.endpoint(r).ok())
            .collect()
    }
}

impl<P: Split> Drop for SplitSession<P> {
    fn drop(&mut self) {
        // Roles nobody took can no longer be taken: they are finished.
        for r in 0..self.shared.names.len() {
            if lock(&self.shared.slots[r]).unclaimed.is_some() {
                self.shared.leave(r, DEAD);
            }
        }
    }
}

impl<P: Split> SplitEndpoint<P> {
    /// This endpoint's role.
    pub fn role(&self) -> RoleId {
        self.role
    }

    /// This endpoint's role name.
    pub fn name(&self) -> &str {
        &self.shared.names[self.role]
    }

    /// The role names of the session, indexed by [`RoleId`].
    pub fn roles(&self) -> &[String] {
        &self.shared.names
    }

    /// Resolves a peer's name once, for hot loops.
    pub fn peer(&self, role: impl ToRole) -> Result<RoleId, Error> {
        role.to_role(&self.shared.names)
    }

    /// This role's local state (for inspection).
    pub fn local(&self) -> &P::Local {
        self.local.as_ref().expect("owned while running")
    }

    /// Sends `value` to `to`, waiting until the protocol allows it.
    pub fn send<T: Payload>(&mut self, to: impl ToRole, value: T) -> Result<(), Error> {
        let to = to.to_role(&self.shared.names)?;
        self.run(Op::Send {
            to,
            msg: Message::new(value),
        })
        .map(|_| ())
    }

    /// Receives the next message the protocol allows, from any sender.
    pub fn recv(&mut self) -> Result<(RoleId, Message), Error> {
        self.run(Op::Recv { from: None })
            .map(|got| got.expect("a receive gives a message"))
    }

    /// Receives the next message from `from`.
    pub fn recv_from(&mut self, from: impl ToRole) -> Result<Message, Error> {
        let from = from.to_role(&self.shared.names)?;
        self.run(Op::Recv { from: Some(from) })
            .map(|got| got.expect("a receive gives a message").1)
    }

    /// Closes this role's channel to `to`.
    pub fn close(&mut self, to: impl ToRole) -> Result<(), Error> {
        let to = to.to_role(&self.shared.names)?;
        self.run(Op::Close { to }).map(|_| ())
    }

    /// A guard that declares this role panicked if it is dropped while its
    /// thread unwinds from a panic; see [`PanicGuard`]. Needed only when
    /// the endpoint may outlive the thread (kept in an `Arc`, say): an
    /// endpoint dropped while its thread unwinds declares the role
    /// panicked by itself.
    pub fn panic_guard(&self) -> PanicGuard {
        PanicGuard {
            session: self.shared.clone(),
            role: self.role,
        }
    }

    /// One step of `role` on the parts; the operation back if refused.
    fn attempt(
        shared: &Shared<P>,
        role: RoleId,
        local: &mut P::Local,
        op: Op,
    ) -> Result<Option<(RoleId, Message)>, Op> {
        // If the step panics, the local state or the inbox it holds may be
        // half-updated: poison the session (as a `Session` is poisoned by a
        // panic under its lock), so that nobody goes on from there.
        let guard = PoisonOnUnwind(shared);
        let result = match op {
            Op::Send { to, msg } => {
                let mut inbox = lock(&shared.inboxes[to]);
                match P::send_step(local, to, msg, &mut inbox) {
                    Ok(()) => Ok(None),
                    Err(Refused(msg)) => Err(Op::Send { to, msg }),
                }
            }
            Op::Recv { from } => {
                let mut inbox = lock(&shared.inboxes[role]);
                match P::recv_step(local, from, &mut inbox) {
                    Ok(got) => Ok(Some(got)),
                    Err(Refused(())) => Err(Op::Recv { from }),
                }
            }
            Op::Close { to } => match P::close_step(local, to) {
                Ok(()) => Ok(None),
                Err(Refused(())) => Err(Op::Close { to }),
            },
        };
        std::mem::forget(guard);
        result
    }

    /// The blocking loop: read the epoch, try; on success bump the epoch and
    /// wake the peer the step may have enabled. On refusal announce what we
    /// wait for and try once more (a sender that missed the announcement
    /// pushed before that try, so the try sees its message); then register
    /// as waiting with the epoch read *before* the try, park, come back to
    /// running, and try again.
    fn run(&mut self, mut op: Op) -> Result<Option<(RoleId, Message)>, Error> {
        // Disjoint borrows of the fields: no reference count touched per call.
        let shared = &*self.shared;
        let me = self.role;
        // Ends the operation on every return (and unwind): until then a
        // guard's panic cannot declare the role dead under our feet.
        let _in_op = InOp::begin(&shared.uses[me], &shared.names[me])?;
        let mut announced = false;
        let result = loop {
            if shared.failed.load(SeqCst) {
                break Err(shared.failure());
            }
            let epoch = shared.epoch.load(SeqCst);
            let wake = match &op {
                Op::Send { to, .. } | Op::Close { to } => Some(*to),
                Op::Recv { .. } => None,
            };
            let local = self.local.as_mut().expect("owned while running");
            match Self::attempt(shared, me, local, op) {
                Ok(got) => {
                    shared.epoch.fetch_add(1, SeqCst);
                    if let Some((from, _)) = &got {
                        if P::RECV_MAY_ENABLE_SENDER {
                            shared.wake(*from);
                        }
                    }
                    if let Some(peer) = wake {
                        // Wake the peer only if it waits for us (or anyone).
                        let w = shared.waiting_for[peer].load(SeqCst);
                        if w == me || w == ANYONE {
                            shared.wake(peer);
                        }
                    }
                    break Ok(got);
                }
                Err(back) => op = back,
            }
            if !announced {
                let intent = match &op {
                    Op::Recv { from: Some(from) } => *from,
                    _ => ANYONE,
                };
                shared.waiting_for[me].store(intent, SeqCst);
                announced = true;
                continue;
            }
            let wait = match &op {
                Op::Send { to, msg } => Wait::Send {
                    to: *to,
                    type_name: msg.type_name().to_string(),
                },
                Op::Recv { from } => Wait::Recv { from: *from },
                Op::Close { to } => Wait::Close { to: *to },
            };
            {
                let mut slot = lock(&shared.slots[me]);
                slot.wait = Some(wait);
                slot.local = self.local.take();
            }
            shared.leave(me, epoch + 1);
            self.parker.park();
            // Back to running before any further try (see the module docs).
            shared.resume(me);
            self.local = lock(&shared.slots[me]).local.take();
        };
        if announced {
            shared.waiting_for[me].store(NOT_WAITING, SeqCst);
        }
        result
    }
}

impl<P: Split> Drop for SplitEndpoint<P> {
    fn drop(&mut self) {
        // Dropped while its thread unwinds: the role ends as panicked, not
        // as finished (recorded before it is dead, for the report).
        self.shared.uses[self.role].drop_endpoint(std::thread::panicking());
        lock(&self.shared.slots[self.role]).local = self.local.take();
        self.shared.leave(self.role, DEAD);
    }
}

impl<P: Split> PanicSink for Shared<P>
where
    P::Local: Send,
    P::Inbox: Send,
{
    fn role_panicked(&self, role: RoleId) {
        // Only an idle endpoint is declared dead, and it can never start
        // an operation again: its status is `RUNNING` (it is not waiting)
        // and it never steps again, so it is dead as surely as a dropped
        // one. (Its local state stays in the endpoint, so the report
        // cannot tell whether the protocol had terminated.)
        if self.uses[role].declare_panicked() {
            self.leave(role, DEAD);
        }
    }
}

impl<P: Split> std::fmt::Debug for SplitEndpoint<P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SplitEndpoint")
            .field("role", &self.name())
            .finish_non_exhaustive()
    }
}

impl<P: Split> std::fmt::Debug for SplitSession<P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SplitSession")
            .field("roles", &self.roles())
            .finish_non_exhaustive()
    }
}

/// Poisons the session with [`Error::Panicked`] when dropped: armed around
/// a step, and forgotten when the step returns, so it fires only while the
/// step unwinds.
struct PoisonOnUnwind<'a, P: Split>(&'a Shared<P>);

impl<P: Split> Drop for PoisonOnUnwind<'_, P> {
    fn drop(&mut self) {
        self.0.poison(Error::Panicked);
    }
}

/// A lock that does not care about poisoning: a step that panics with a
/// lock held poisons the whole session ([`PoisonOnUnwind`]), so nobody goes
/// on from half-updated data anyway.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl<P: Split> Shared<P> {
    fn failure(&self) -> Error {
        lock(&self.failure).clone().unwrap_or(Error::Panicked)
    }

    /// Fails the session with `error` (unless it has failed already) and
    /// releases every waiter: each returns the session's failure.
    fn poison(&self, error: Error) {
        let mut failure = lock(&self.failure);
        if failure.is_none() {
            *failure = Some(error);
        }
        self.failed.store(true, SeqCst);
        drop(failure);
        for u in &self.unparkers {
            u.unpark();
        }
    }

    /// `role` stops running: it waits (`status` = refused epoch + 1) or is
    /// dead. If it was the last running role, decide.
    fn leave(&self, role: RoleId, status: u64) {
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
    fn uncount(&self) {
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
    fn wake(&self, role: RoleId) {
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
        self.unparkers[role].unpark();
    }

    /// `role` is back from parking: running again, unless a waker has
    /// already made it so (and counted it).
    fn resume(&self, role: RoleId) {
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
    fn decide(&self) {
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
            let waits_for = match &slot.wait {
                Some(Wait::Send { to, type_name }) => WaitsFor::Send {
                    to: names[*to].clone(),
                    type_name: type_name.clone(),
                },
                Some(Wait::Recv { from }) => WaitsFor::Recv {
                    from: from.map(|f| names[f].clone()),
                },
                Some(Wait::Close { to }) => WaitsFor::Close {
                    to: names[*to].clone(),
                },
                None => unreachable!("a waiting role has said what it waits for"),
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
    }
}
