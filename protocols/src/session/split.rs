//! A session over a protocol object that comes apart into roles (the liberal
//! runtime's model): each endpoint owns its role's local state, the roles
//! share only one inbox per role, each under its own lock. This file holds
//! the session, its endpoints and their blocking loop; the [`Split`] trait
//! is in `split/object.rs`, the roles' status words and the deadlock
//! decision in `split/decide.rs`.

mod decide;
mod effect;
mod object;
mod poll;
#[cfg(test)]
mod tests;
mod wait;

pub use object::Split;

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex};

use crossbeam_utils::sync::{Parker, Unparker};
use crossbeam_utils::CachePadded;
use engine::{Message, Refused, RoleId};

use super::channels::Channels;
use super::closed::{closed_error, send_after_close, Closes};
use super::endpoint::endpoint_methods;
use super::error::{Error, ToRole};
use super::op::{lock, Op};
use super::panic::PanicSink;
use super::pending::Waiters;
use super::role_use::{self, InOp, Uses};
use super::select::{self, Alternative};
use decide::{DEAD, RUNNING};
use effect::Effect;
use wait::Wait;

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
    /// How many async operations of this endpoint are registered.
    async_ops: usize,
    /// Whether this endpoint has marked its role `Shared::asynchronous`
    /// (once, at its first poll): a field of its own spares every later
    /// poll a look at the shared word.
    marked_async: bool,
    /// Whether the role's use word was handed out
    /// ([`BlockingEndpoint::share_use`](super::BlockingEndpoint::share_use)):
    /// its holder then begins and ends each operation.
    shared_use: bool,
}

/// `Shared::waiting_for` of a role that is not blocked.
const NOT_WAITING: usize = usize::MAX;
/// `Shared::waiting_for` of a role that any step may wake.
const ANYONE: usize = usize::MAX - 1;

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
    /// Per role: what it waits for, its local state while it waits, and
    /// its registered async operations (each described for a deadlock
    /// report), woken where the role's parker is unparked.
    slots: Vec<CachePadded<Mutex<Slot<P::Local>>>>,
    /// Per role: whether its endpoint is in an operation, or was declared
    /// panicked (see [`PanicGuard`](super::PanicGuard)).
    uses: Uses,
    /// Set once the session is poisoned; `failure` says why.
    failed: AtomicBool,
    failure: Mutex<Option<Error>>,
    /// The channels closed so far (see `session/closed.rs`).
    closes: Closes,
    /// What each channel carries (for typed ends).
    channels: Channels,
    /// Per role: whether it ever polled an async operation (a wake of a
    /// role that never did need not look at its waiters).
    asynchronous: Vec<AtomicBool>,
}

struct Slot<L> {
    /// The parker of a role whose endpoint has not been taken.
    unclaimed: Option<Parker>,
    /// The local state, while the endpoint does not hold it.
    local: Option<L>,
    /// What the role waits for in a blocking call (valid while its status
    /// is a wait and it has no registrations, which say it themselves).
    wait: Option<Wait>,
    /// The role's registered async operations: under the slot's lock, so
    /// that a poll registers and parks its local state (or takes its
    /// registration and its local state back) under one lock.
    waiters: Waiters<Wait>,
    /// Set by a wake of the role's registrations, so that a wake that
    /// comes while the role is inside a poll, before its registration, is
    /// not lost (as a `Parker` keeps an unpark that comes before the
    /// park): the registration sees it and tries again. Read and written
    /// only under the slot's lock, which the wake and the registration
    /// take anyway, so it costs no locked instruction of its own (as an
    /// atomic beside the slot, its set and its clear cost two a wake).
    notified: bool,
}

impl<P: Split> SplitSession<P> {
    /// A session on `object`, taken apart into its roles.
    pub fn new(object: P) -> Self {
        let names = object.roles();
        let n = names.len();
        let closes = Closes::new(&object);
        let channels = Channels::new(&object);
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
                    waiters: Waiters::default(),
                    notified: false,
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
                uses: role_use::uses(n),
                failed: AtomicBool::new(false),
                failure: Mutex::new(None),
                closes,
                channels,
                asynchronous: (0..n).map(|_| AtomicBool::new(false)).collect(),
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
                async_ops: 0,
                marked_async: false,
                shared_use: false,
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
    endpoint_methods!();

    /// This role's local state (for inspection).
    pub fn local(&self) -> &P::Local {
        self.local.as_ref().expect("owned while running")
    }

    /// Sends `msg` to `to` as [`send`](Self::send) does; on failure the
    /// message comes back with the error.
    pub fn send_back(&mut self, to: RoleId, msg: Message) -> Result<(), (Error, Message)> {
        let to = match to.to_peer(self.role, &self.shared.names, "send to") {
            Ok(to) => to,
            Err(e) => return Err((e, msg)),
        };
        let mut back = None;
        match self.run_back::<true>(Op::Send { to, msg }, &mut back) {
            Ok(_) => Ok(()),
            Err(e) => Err((e, back.expect("a failed send gives its message back"))),
        }
    }

    /// Receives the next message the protocol allows, from any sender;
    /// fails with [`Error::Closed`] once every role that may send to this
    /// one has closed its channel to it and nothing is left in them (see
    /// the [module docs](super)).
    pub fn recv(&mut self) -> Result<(RoleId, Message), Error> {
        self.run(Op::Recv { from: None })
            .map(|got| got.expect("a receive gives a message"))
    }

    /// Receives the next message from `from`; fails with
    /// [`Error::Closed`] once `from` has closed its channel to this role
    /// and nothing is left in it.
    pub fn recv_from(&mut self, from: impl ToRole) -> Result<Message, Error> {
        let from = from.to_peer(self.role, &self.shared.names, "receive from")?;
        self.run(Op::Recv { from: Some(from) })
            .map(|got| got.expect("a receive gives a message").1)
    }

    /// Receives the first of `alternatives` that the protocol allows (the
    /// first in order if several are); the index of the one taken and the
    /// message. Fails with [`Error::Closed`] once every alternative's
    /// sender has closed its channel to this role and nothing is left in
    /// them. See [`Alternative`].
    pub fn select(&mut self, alternatives: &[Alternative]) -> Result<(usize, Message), Error> {
        let alternatives = &select::resolve_all(alternatives, self.role, &self.shared.names)?;
        let (from, msg) = self
            .run(Op::Select {
                alts: alternatives.to_vec(),
            })?
            .expect("a select gives a message");
        // The step took the first alternative in order that accepted it.
        let i = alternatives
            .iter()
            .position(|a| a.from == from && a.accepts(&msg))
            .expect("the message matches an alternative");
        Ok((i, msg))
    }

    /// As [`select`](Self::select), without waiting: `Ok(None)` if the
    /// protocol allows none of the alternatives now.
    pub fn try_select(
        &mut self,
        alternatives: &[Alternative],
    ) -> Result<Option<(usize, Message)>, Error> {
        let alternatives = &select::resolve_all(alternatives, self.role, &self.shared.names)?;
        let shared = &*self.shared;
        let me = self.role;
        let _in_op = InOp::begin(&shared.uses[me], &shared.names[me], self.shared_use)?;
        if shared.failed.load(SeqCst) {
            return Err(shared.failure());
        }
        let local = self.local.as_mut().expect("owned while running");
        let op = Op::Select {
            alts: alternatives.to_vec(),
        };
        match Self::attempt(shared, me, local, op) {
            Ok(got) => {
                shared.stepped(me, Effect::NONE, got.as_ref());
                let (from, msg) = got.expect("a select gives a message");
                let i = alternatives
                    .iter()
                    .position(|a| a.from == from && a.accepts(&msg))
                    .expect("the message matches an alternative");
                Ok(Some((i, msg)))
            }
            Err(_) => {
                if !alternatives.is_empty()
                    && alternatives
                        .iter()
                        .all(|a| shared.recv_ended(me, Some(a.from)))
                {
                    return Err(closed_error(&shared.names, me, None));
                }
                Ok(None)
            }
        }
    }

    /// One step of `role` on the parts; the operation back if refused.
    /// (Inlined: the operation and its result are moved in and out of it
    /// every try, where a call copies them through memory.)
    #[inline(always)]
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
            Op::Select { alts } => {
                let mut inbox = lock(&shared.inboxes[role]);
                let mut got = None;
                for a in &alts {
                    // A typed alternative looks at the message first: a
                    // receive cannot be undone.
                    let wanted = a
                        .type_name
                        .as_deref()
                        .is_none_or(|t| P::first_type_from(&inbox, a.from) == Some(t));
                    if wanted {
                        if let Ok(m) = P::recv_step(local, Some(a.from), &mut inbox) {
                            got = Some(m);
                            break;
                        }
                    }
                }
                match got {
                    Some(m) => Ok(Some(m)),
                    None => Err(Op::Select { alts }),
                }
            }
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
    fn run(&mut self, op: Op) -> Result<Option<(RoleId, Message)>, Error> {
        self.run_back::<false>(op, &mut None)
    }

    /// [`run`](Self::run), with a failed send's message put in `back` if
    /// `BACK` (a constant, so that the plain operations compile as if it
    /// were not there).
    fn run_back<const BACK: bool>(
        &mut self,
        mut op: Op,
        back: &mut Option<Message>,
    ) -> Result<Option<(RoleId, Message)>, Error> {
        // Disjoint borrows of the fields: no reference count touched per call.
        let shared = &*self.shared;
        let me = self.role;
        // Ends the operation on every return (and unwind): until then a
        // guard's panic cannot declare the role dead under our feet.
        let _in_op = match InOp::begin(&shared.uses[me], &shared.names[me], self.shared_use) {
            Ok(in_op) => in_op,
            Err(e) => {
                if BACK {
                    op.give_back(back);
                }
                return Err(e);
            }
        };
        if let Op::Send { to, .. } = &op {
            if shared.closes.is_closed(me, *to) {
                let e = send_after_close(&shared.names, me, *to);
                if BACK {
                    op.give_back(back);
                }
                return Err(e);
            }
        }
        let mut announced = false;
        let result = loop {
            if shared.failed.load(SeqCst) {
                if BACK {
                    op.give_back(back);
                }
                break Err(shared.failure());
            }
            let epoch = shared.epoch.load(SeqCst);
            let effect = Effect::of(&op);
            let local = self.local.as_mut().expect("owned while running");
            match Self::attempt(shared, me, local, op) {
                Ok(got) => {
                    shared.stepped(me, effect, got.as_ref());
                    break Ok(got);
                }
                Err(back) => op = back,
            }
            if let Op::Recv { from } = &op {
                if shared.recv_ended(me, *from) {
                    break Err(closed_error(&shared.names, me, *from));
                }
            }
            if let Op::Select { alts } = &op {
                if !alts.is_empty() && alts.iter().all(|a| shared.recv_ended(me, Some(a.from))) {
                    break Err(closed_error(&shared.names, me, None));
                }
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
            {
                let mut slot = lock(&shared.slots[me]);
                slot.wait = Some(Wait::of(&op));
                slot.local = self.local.take();
            }
            shared.leave(me, epoch + 1);
            self.parker.park();
            // Back to running before any further try (see the module docs).
            shared.resume(me);
            self.local = lock(&shared.slots[me]).local.take();
        };
        if announced {
            poll::store_intent(&shared.waiting_for[me], NOT_WAITING);
        }
        result
    }
}

impl<P: Split> Drop for SplitEndpoint<P> {
    fn drop(&mut self) {
        // Dropped while its thread unwinds: the role ends as panicked, not
        // as finished (recorded before it is dead, for the report).
        self.shared.uses[self.role].drop_endpoint(std::thread::panicking());
        {
            let mut slot = lock(&self.shared.slots[self.role]);
            slot.local = self.local.take();
            slot.waiters.entries.clear();
        }
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
