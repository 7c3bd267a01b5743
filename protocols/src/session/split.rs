//! A session over a protocol object that comes apart into roles (the liberal
//! runtime's model): each endpoint owns its role's local state, the roles
//! share only one inbox per role, each under its own lock.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::SeqCst};
use std::sync::{Arc, Mutex, MutexGuard};

use crossbeam_utils::sync::{Parker, Unparker};
use crossbeam_utils::CachePadded;
use engine::{Message, Payload, Protocol, Refused, RoleId};

use super::error::{Blocked, Deadlock, Error, ToRole, WaitsFor};

/// A protocol object whose roles can run apart: every step of a role
/// touches only that role's local state and at most one inbox.
///
/// The step functions must be the very functions the object's own
/// [`Protocol`] try-operations run on its parts (then what the checker
/// explores is what the threads run), and the same contract holds: a
/// refused step changes nothing.
pub trait Split: Protocol {
    /// One role's local state, owned by the role's thread.
    type Local: Clone + Send + 'static;
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
    fn parts_terminated(locals: &[Self::Local], inboxes: &[&Self::Inbox]) -> bool;
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

    fn parts_terminated(locals: &[Self::Local], inboxes: &[&Self::Inbox]) -> bool {
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
/// receiver's inbox, a receive only the role's own inbox. A global lock is
/// taken only on the way into and out of a wait, for deadlock detection.
pub struct SplitSession<P: Split> {
    shared: Arc<Shared<P>>,
}

/// One role's handle on a [`SplitSession`]; see [`Endpoint`](super::Endpoint).
pub struct SplitEndpoint<P: Split> {
    shared: Arc<Shared<P>>,
    role: RoleId,
    local: P::Local,
    parker: Parker,
}

struct Shared<P: Split> {
    names: Vec<String>,
    inboxes: Vec<CachePadded<Mutex<P::Inbox>>>,
    unparkers: Vec<Unparker>,
    /// Bumped after every step that changed a local state or an inbox.
    epoch: CachePadded<AtomicU64>,
    /// Set with `Detector::failure`, read without the lock on the fast path.
    failed: AtomicBool,
    detector: Mutex<Detector<P::Local>>,
}

struct Detector<L> {
    slots: Vec<Slot<L>>,
    session_open: bool,
    failure: Option<Error>,
}

enum Slot<L> {
    /// Not taken yet: the initial local state and the parker.
    Unclaimed(L, Parker),
    Running,
    /// Blocked on `waits_for`, refused at `epoch`; `local` is a copy of the
    /// role's local state for the report.
    Waiting {
        waits_for: Wait,
        epoch: u64,
        local: L,
    },
    /// The endpoint was dropped in local state `L`.
    Dropped(L),
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
        let (locals, inboxes) = object.split();
        assert_eq!(
            locals.len(),
            names.len(),
            "Split::split gives one local state per role"
        );
        assert_eq!(
            inboxes.len(),
            names.len(),
            "Split::split gives one inbox per role"
        );
        let parkers: Vec<Parker> = names.iter().map(|_| Parker::new()).collect();
        let unparkers = parkers.iter().map(|p| p.unparker().clone()).collect();
        let slots = locals
            .into_iter()
            .zip(parkers)
            .map(|(l, p)| Slot::Unclaimed(l, p))
            .collect();
        SplitSession {
            shared: Arc::new(Shared {
                names,
                inboxes: inboxes
                    .into_iter()
                    .map(|i| CachePadded::new(Mutex::new(i)))
                    .collect(),
                unparkers,
                epoch: CachePadded::new(AtomicU64::new(0)),
                failed: AtomicBool::new(false),
                detector: Mutex::new(Detector {
                    slots,
                    session_open: true,
                    failure: None,
                }),
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
        let mut det = self.shared.detector();
        match std::mem::replace(&mut det.slots[role], Slot::Running) {
            Slot::Unclaimed(local, parker) => {
                drop(det);
                Ok(SplitEndpoint {
                    shared: Arc::clone(&self.shared),
                    role,
                    local,
                    parker,
                })
            }
            other => {
                det.slots[role] = other;
                Err(Error::RoleTaken(self.shared.names[role].clone()))
            }
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
        let mut det = self.shared.detector();
        det.session_open = false;
        self.shared.decide(&mut det);
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
        &self.local
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

    /// One step on the parts; the operation back if refused.
    fn attempt(&mut self, op: Op) -> Result<Option<(RoleId, Message)>, Op> {
        let shared = &*self.shared;
        match op {
            Op::Send { to, msg } => {
                let mut inbox = lock(&shared.inboxes[to]);
                match P::send_step(&mut self.local, to, msg, &mut inbox) {
                    Ok(()) => Ok(None),
                    Err(Refused(msg)) => Err(Op::Send { to, msg }),
                }
            }
            Op::Recv { from } => {
                let mut inbox = lock(&shared.inboxes[self.role]);
                match P::recv_step(&mut self.local, from, &mut inbox) {
                    Ok(got) => Ok(Some(got)),
                    Err(Refused(())) => Err(Op::Recv { from }),
                }
            }
            Op::Close { to } => match P::close_step(&mut self.local, to) {
                Ok(()) => Ok(None),
                Err(Refused(())) => Err(Op::Close { to }),
            },
        }
    }

    /// The blocking loop: read the epoch, try; on success bump the epoch and
    /// wake the peer the step may have enabled; on refusal register as
    /// waiting (with the epoch read *before* the try), let the detector
    /// decide, park, deregister, and try again.
    fn run(&mut self, mut op: Op) -> Result<Option<(RoleId, Message)>, Error> {
        loop {
            if self.shared.failed.load(SeqCst) {
                return Err(self.shared.failure());
            }
            let epoch = self.shared.epoch.load(SeqCst);
            let wake = match &op {
                Op::Send { to, .. } | Op::Close { to } => Some(*to),
                Op::Recv { .. } => None,
            };
            match self.attempt(op) {
                Ok(got) => {
                    self.shared.epoch.fetch_add(1, SeqCst);
                    let wake = match &got {
                        Some((from, _)) if P::RECV_MAY_ENABLE_SENDER => Some(*from),
                        _ => wake,
                    };
                    if let Some(peer) = wake {
                        self.shared.unparkers[peer].unpark();
                    }
                    return Ok(got);
                }
                Err(back) => op = back,
            }
            let waits_for = match &op {
                Op::Send { to, msg } => Wait::Send {
                    to: *to,
                    type_name: msg.type_name().to_string(),
                },
                Op::Recv { from } => Wait::Recv { from: *from },
                Op::Close { to } => Wait::Close { to: *to },
            };
            {
                let mut det = self.shared.detector();
                if let Some(e) = &det.failure {
                    return Err(e.clone());
                }
                det.slots[self.role] = Slot::Waiting {
                    waits_for,
                    epoch,
                    local: self.local.clone(),
                };
                self.shared.decide(&mut det);
            }
            self.parker.park();
            let mut det = self.shared.detector();
            det.slots[self.role] = Slot::Running;
            if let Some(e) = &det.failure {
                return Err(e.clone());
            }
        }
    }
}

impl<P: Split> Drop for SplitEndpoint<P> {
    fn drop(&mut self) {
        let mut det = self.shared.detector();
        det.slots[self.role] = Slot::Dropped(self.local.clone());
        self.shared.decide(&mut det);
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

/// A lock that does not care about poisoning: the protected data is only
/// changed by steps that complete (a panicking step is reported by the
/// panicking thread itself; the others then find the session failed).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl<P: Split> Shared<P> {
    fn detector(&self) -> MutexGuard<'_, Detector<P::Local>> {
        lock(&self.detector)
    }

    fn failure(&self) -> Error {
        self.detector().failure.clone().unwrap_or(Error::Panicked)
    }

    /// The deadlock decision, under the detector lock. If every live role
    /// is waiting and every wait was refused at the current epoch, declare
    /// a deadlock and release every waiter. If every live role is waiting
    /// but some refusals are older, unpark those to try again (the change
    /// since may not have concerned them, so nobody else wakes them).
    fn decide(&self, det: &mut Detector<P::Local>) {
        if det.failure.is_some() {
            return;
        }
        let now = self.epoch.load(SeqCst);
        let mut stale = false;
        let mut any_waiting = false;
        for slot in &det.slots {
            match slot {
                Slot::Waiting { epoch, .. } => {
                    any_waiting = true;
                    stale |= *epoch != now;
                }
                Slot::Dropped(_) => {}
                Slot::Unclaimed(..) if !det.session_open => {}
                _ => return, // someone may still act
            }
        }
        if !any_waiting {
            return;
        }
        if stale {
            for (r, slot) in det.slots.iter().enumerate() {
                if matches!(slot, Slot::Waiting { epoch, .. } if *epoch != now) {
                    self.unparkers[r].unpark();
                }
            }
            return;
        }
        let names = &self.names;
        let mut blocked = Vec::new();
        let mut finished = Vec::new();
        let mut locals = Vec::with_capacity(det.slots.len());
        for (r, slot) in det.slots.iter().enumerate() {
            match slot {
                Slot::Waiting {
                    waits_for, local, ..
                } => {
                    let waits_for = match *waits_for {
                        Wait::Send { to, ref type_name } => WaitsFor::Send {
                            to: names[to].clone(),
                            type_name: type_name.clone(),
                        },
                        Wait::Recv { from } => WaitsFor::Recv {
                            from: from.map(|f| names[f].clone()),
                        },
                        Wait::Close { to } => WaitsFor::Close {
                            to: names[to].clone(),
                        },
                    };
                    blocked.push(Blocked {
                        role: names[r].clone(),
                        waits_for,
                    });
                    locals.push(local.clone());
                }
                Slot::Dropped(local) | Slot::Unclaimed(local, _) => {
                    finished.push(names[r].clone());
                    locals.push(local.clone());
                }
                Slot::Running => unreachable!("checked above"),
            }
        }
        let guards: Vec<_> = self.inboxes.iter().map(|i| lock(i)).collect();
        let inboxes: Vec<&P::Inbox> = guards.iter().map(|g| &**g).collect();
        let terminated = P::parts_terminated(&locals, &inboxes);
        drop(inboxes);
        drop(guards);
        det.failure = Some(Error::Deadlock(Arc::new(Deadlock {
            blocked,
            finished,
            terminated,
        })));
        self.failed.store(true, SeqCst);
        for (r, slot) in det.slots.iter().enumerate() {
            if let Slot::Waiting { .. } = slot {
                self.unparkers[r].unpark();
            }
        }
    }
}
