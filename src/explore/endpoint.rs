//! [`ExploreEndpoint`]: a role's endpoint under exploration, and the
//! hand-over protocol between the role threads and the scheduler.
//!
//! Only one thread runs at a time. A role thread that reaches an endpoint
//! operation publishes it (its slot becomes [`Slot::Pending`]) and waits;
//! the scheduler, which waits until every role thread is at an operation
//! or finished, picks one pending operation, performs it on the object and
//! hands the result back ([`Slot::Reply`]); that thread then runs alone
//! until its next operation. So the object is only ever touched by the
//! scheduler, and each endpoint operation is exactly one scheduling point.

use std::marker::PhantomData;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Instant;

use engine::{Message, Payload, Protocol, RoleId};
use protocols::session::{Alternative, BlockingEndpoint, Error, PanicGuard, ToRole};

/// An operation a role waits to do.
#[derive(Debug, Clone)]
pub(crate) enum Op {
    Send {
        to: RoleId,
        msg: Message,
    },
    Recv {
        from: Option<RoleId>,
    },
    Close {
        to: RoleId,
    },
    /// [`choose`](super::choose): the program picks one of `n` values.
    Choose {
        n: usize,
    },
    /// A `select`: the first of these receives that the object allows.
    Select {
        alts: Vec<Alternative>,
    },
}

/// What a completed operation gives back to its thread.
#[derive(Debug)]
pub(crate) enum Reply {
    Done,
    Received(RoleId, Message),
    Chose(usize),
    /// A select took alternative `.0`.
    Selected(usize, Message),
    /// A receive that can never succeed: its channel was closed and holds
    /// nothing (`Err(Closed)` for the caller; see `closed.rs`).
    Ended,
}

/// Where a role thread is.
#[derive(Debug)]
pub(crate) enum Slot {
    /// Spawned, waiting for the scheduler to let it start.
    NotStarted,
    /// Running its own code (alone).
    Running,
    /// Waiting at an endpoint operation.
    Pending(Op),
    /// The operation is decided; the thread has not picked the result up.
    Reply(Result<Reply, Error>),
    /// The body returned.
    Done,
    /// The body panicked, with this message.
    Panicked(String),
}

impl Slot {
    /// Whether the thread is at a point where the scheduler may decide
    /// (it runs no code of its own).
    pub(crate) fn is_settled(&self) -> bool {
        matches!(self, Slot::Pending(_) | Slot::Done | Slot::Panicked(_))
    }
}

/// The state shared by the scheduler and the role threads of one execution.
#[derive(Debug)]
pub(crate) struct Ctl {
    pub(crate) slots: Vec<Slot>,
    /// Set when the execution is being stopped (deadlock, bound, stuck
    /// role): every operation from then on fails with this error at once.
    pub(crate) stop: Option<Error>,
    /// Operations refused since the stop, per role: a role that ignores
    /// the error and keeps calling would never end (see [`Shared::op`]).
    pub(crate) after_stop: Vec<usize>,
}

/// How many operations a role may call after its execution was stopped
/// (each failing at once) before its thread is ended by a panic.
const MAX_CALLS_AFTER_STOP: usize = 1_000;

/// The lock and condition variable of one execution.
#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) ctl: Mutex<Ctl>,
    /// Where the scheduler waits (for a thread to settle).
    pub(crate) cv: Condvar,
    /// Where each role's thread waits (to start, or for its operation's
    /// result): one per role, so that a hand-over wakes exactly one thread.
    pub(crate) role_cvs: Vec<Condvar>,
    pub(crate) names: Vec<String>,
}

impl Shared {
    pub(crate) fn new(names: Vec<String>) -> Shared {
        Shared {
            ctl: Mutex::new(Ctl {
                slots: (0..names.len()).map(|_| Slot::Done).collect(),
                stop: None,
                after_stop: vec![0; names.len()],
            }),
            cv: Condvar::new(),
            role_cvs: names.iter().map(|_| Condvar::new()).collect(),
            names,
        }
    }

    /// The lock; a poisoned lock is taken anyway: no user code runs under
    /// it, so a poison can only come from our own bug, and the state is
    /// still consistent (every update is a single assignment).
    pub(crate) fn lock(&self) -> MutexGuard<'_, Ctl> {
        self.ctl.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Publishes `role`'s operation `op` and waits for the scheduler's
    /// decision (called on `role`'s thread).
    pub(crate) fn op(&self, role: RoleId, op: Op) -> Result<Reply, Error> {
        let mut ctl = self.lock();
        if let Some(e) = ctl.stop.clone() {
            ctl.after_stop[role] += 1;
            if ctl.after_stop[role] > MAX_CALLS_AFTER_STOP {
                drop(ctl);
                // The execution is over and its outcome known; unwinding
                // is the only way left to end a thread that ignores the
                // error in a loop (the panic is caught with the body's).
                panic!(
                    "prust explore: role {} called its endpoint {MAX_CALLS_AFTER_STOP} times \
                     after the execution was stopped ({e}); ending its thread",
                    self.names[role]
                );
            }
            return Err(e);
        }
        ctl.slots[role] = Slot::Pending(op);
        // Wake the scheduler without the lock held, so that it does not
        // wake only to block on the lock (the profile showed that
        // contention), then wait for the decision.
        drop(ctl);
        self.cv.notify_all();
        let mut ctl = self.lock();
        loop {
            if matches!(ctl.slots[role], Slot::Reply(_)) {
                let Slot::Reply(r) = std::mem::replace(&mut ctl.slots[role], Slot::Running) else {
                    unreachable!("matched just before")
                };
                return r;
            }
            ctl = self.role_cvs[role]
                .wait(ctl)
                .unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Waits until `role`'s thread is settled (at an operation, done or
    /// panicked), or until `deadline`; `false` on time-out.
    pub(crate) fn wait_settled(&self, role: RoleId, deadline: Instant) -> bool {
        let mut ctl = self.lock();
        loop {
            if ctl.slots[role].is_settled() {
                return true;
            }
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            ctl = self
                .cv
                .wait_timeout(ctl, deadline - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }
}

/// A role's endpoint under exploration: it implements the same
/// [`BlockingEndpoint`] trait as the endpoints of real sessions, so the
/// same role function runs in production and under
/// [`explore`](super::explore).
///
/// Each operation is a scheduling point: the thread stops there until the
/// explorer decides that the object takes this operation now (and then
/// runs alone until its next operation), or the execution ends in a
/// deadlock (`Err(Deadlock)`, as a [`Session`](protocols::session::Session)
/// reports it) or is stopped (`Err(Aborted)`).
///
/// Closes are seen as in real sessions (see "Seeing a close" in
/// [`protocols::session`]): a receive whose channel was closed by its
/// sender and holds nothing fails with `Err(Closed)` (for `recv()` from
/// anyone: once every sender has closed), and a send after the role's own
/// close fails with `Err(SendAfterClose)`. Those answers are given at
/// once, without a scheduling choice: they commute with every other step,
/// so the schedule and the trace do not show them.
///
/// ```
/// use prust::explore::explore;
/// use prust::session::BlockingEndpoint;
/// #[derive(Clone, Debug)]
/// struct Move;
/// let ex = explore(prust::protocols::chess::strict(), |r| {
///     r.spawn("white", |mut ep| ep.send("black", Move).unwrap());
///     r.spawn("black", |mut ep| {
///         ep.recv_from("white").unwrap();
///         ep.send("white", Move).unwrap();
///     });
///     // the roles return after one round each: the last move is never received
/// });
/// assert!(!ex.is_successful());
/// ```
pub struct ExploreEndpoint<P> {
    pub(crate) role: RoleId,
    pub(crate) shared: Arc<Shared>,
    pub(crate) _object: PhantomData<fn() -> P>,
}

impl<P> std::fmt::Debug for ExploreEndpoint<P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExploreEndpoint")
            .field("role", &self.shared.names[self.role])
            .finish_non_exhaustive()
    }
}

impl<P> ExploreEndpoint<P> {
    /// This endpoint's role name.
    pub fn name(&self) -> &str {
        &self.shared.names[self.role]
    }

    /// The role names, indexed by [`RoleId`].
    pub fn roles(&self) -> &[String] {
        &self.shared.names
    }

    /// Publishes `op` and waits for the scheduler's decision.
    fn run(&mut self, op: Op) -> Result<Reply, Error> {
        self.shared.op(self.role, op)
    }
}

impl<P: Protocol> BlockingEndpoint for ExploreEndpoint<P> {
    fn role(&self) -> RoleId {
        self.role
    }

    fn peer(&self, role: impl ToRole) -> Result<RoleId, Error> {
        role.to_role(&self.shared.names)
    }

    fn send<T: Payload>(&mut self, to: impl ToRole, value: T) -> Result<(), Error> {
        let to = to.to_role(&self.shared.names)?;
        self.run(Op::Send {
            to,
            msg: Message::new(value),
        })
        .map(|_| ())
    }

    fn recv(&mut self) -> Result<(RoleId, Message), Error> {
        match self.run(Op::Recv { from: None })? {
            Reply::Received(from, msg) => Ok((from, msg)),
            Reply::Ended => Err(Error::Closed {
                role: self.name().to_string(),
                from: None,
            }),
            _ => unreachable!("a receive completes with a message"),
        }
    }

    fn recv_from(&mut self, from: impl ToRole) -> Result<Message, Error> {
        let from = from.to_role(&self.shared.names)?;
        match self.run(Op::Recv { from: Some(from) })? {
            Reply::Received(_, msg) => Ok(msg),
            Reply::Ended => Err(Error::Closed {
                role: self.name().to_string(),
                from: Some(self.shared.names[from].clone()),
            }),
            _ => unreachable!("a receive completes with a message"),
        }
    }

    fn close(&mut self, to: impl ToRole) -> Result<(), Error> {
        let to = to.to_role(&self.shared.names)?;
        self.run(Op::Close { to }).map(|_| ())
    }

    /// A select branches over every alternative the object allows at that
    /// point (printed `role<-sender#k` in schedules, `k` the alternative's
    /// index), not only the first.
    fn select(&mut self, alternatives: &[Alternative]) -> Result<(usize, Message), Error> {
        for a in alternatives {
            a.from.to_role(&self.shared.names)?;
        }
        match self.run(Op::Select {
            alts: alternatives.to_vec(),
        })? {
            Reply::Selected(i, msg) => Ok((i, msg)),
            Reply::Ended => Err(Error::Closed {
                role: self.name().to_string(),
                from: None,
            }),
            _ => unreachable!("a select completes with a message"),
        }
    }

    /// A guard that does nothing: the explorer catches every panic of a
    /// role's body itself.
    fn panic_guard(&self) -> PanicGuard {
        PanicGuard::from_fn(self.role, |_| {})
    }
}
