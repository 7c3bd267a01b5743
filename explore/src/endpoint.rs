//! [`ExploreEndpoint`]: a role's endpoint under exploration, and the
//! hand-over protocol between the role threads.
//!
//! Only one thread runs at a time. A role thread that reaches an endpoint
//! operation publishes it (its slot becomes [`Slot::Pending`]) and then,
//! still holding the lock, makes the scheduling decision itself
//! ([`Shared::advance`]): it picks one pending operation, performs it on
//! the object and hands the result to that operation's thread
//! ([`Slot::Reply`]), which then runs alone until its next operation. A
//! step that continues the same role hands over nothing, and a switch to
//! another role is one wake-up; when the scheduler was a thread of its own,
//! every step cost two (role → scheduler → role), about half of an
//! execution's time. The explorer's thread only starts the execution and
//! waits for its end (and times out a role that never reaches an
//! operation).
//!
//! Thread roles run as coroutines on the executor's thread (see
//! `coroutine.rs`): there, handing the turn to another role is suspending
//! the body, and the executor resumes the role whose turn it is, so an
//! execution costs no hand-over between OS threads but its start and end;
//! and the searches run their executions there in batches (see
//! `scheduler/batch.rs`), so the threads meet once a batch.
//! The role threads above remain for [`Explorer::role_threads`](super::Explorer::role_threads).
//! Either way the object is only ever touched under the lock, by one
//! thread at a time, and each endpoint operation is exactly one
//! scheduling point.

use std::any::Any;
use std::marker::PhantomData;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use engine::{Message, Payload, Protocol, RoleId};
use std::task::{Context, Poll};

use protocols::session::{Alternative, AsyncOp, BlockingEndpoint, Done, Error, PanicGuard, ToRole};

use super::end::{stop_error, End};
use super::op::{Op, Reply};
use super::pool::Gate;
use super::signal::Signal;
use super::stuck::fresh_turns;
use super::task::Task;

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

/// The state shared by the scheduler and the role threads of one execution.
#[derive(Debug)]
pub(crate) struct Ctl {
    pub(crate) slots: Vec<Slot>,
    /// Set when the execution is being stopped (deadlock, bound, stuck
    /// role): every operation from then on fails at once, with the error
    /// of this end ([`Shared::stop_error`]). Kept as the end, not as the
    /// error: an execution that succeeds has no operation left to fail,
    /// and making its error was two strings an execution for nothing.
    pub(crate) stop: Option<End>,
    /// Operations refused since the stop, per role: a role that ignores
    /// the error and keeps calling would never end (see [`Shared::op`]).
    pub(crate) after_stop: Vec<usize>,
    /// How the execution ended, once it has.
    pub(crate) end: Option<End>,
    /// The scheduler's state (the object, the chooser, the trace): taken
    /// out while a decision is being made, and by the explorer at the end.
    pub(crate) exec: Option<Box<dyn Step>>,
    /// What starts each role's pool thread (`None`: not spawned).
    pub(crate) gates: Vec<Option<Gate>>,
    /// The role last let run, and how many turns were handed out before
    /// (counted from [`fresh_turns`]): the explorer's thread reports the
    /// role as stuck when the count stands for the role time limit (see
    /// `stuck.rs`).
    pub(crate) current: RoleId,
    pub(crate) turns: u64,
    /// How many times a thread was woken to run a role (a start, or a
    /// switch to another role): the hand-overs that cost a context switch.
    pub(crate) handovers: usize,
    /// The roles never started (set when the execution ends): their jobs
    /// are dropped unrun, which also drops what they own (a channel's
    /// sender that a running role may be waiting on).
    pub(crate) unstarted: Vec<RoleId>,
    /// A panic of the scheduler itself (in the object's code, or a bug):
    /// re-raised on the explorer's thread once the execution is stopped.
    pub(crate) fault: Option<Box<dyn Any + Send>>,
    /// The async roles' tasks as the scheduler sees them (`None` for a
    /// thread role): see `task.rs`.
    pub(crate) tasks: Vec<Option<Task>>,
    /// The async role the executor is to poll next.
    pub(crate) task_turn: Option<RoleId>,
    /// The async role whose task the executor is polling (its code runs).
    pub(crate) polling: Option<RoleId>,
    /// Whether the executor's thread is in its job (the explorer waits for
    /// it to return, as for the role threads).
    pub(crate) executor_running: bool,
    /// Which thread roles run as coroutines on the executor's thread (see
    /// `coroutine.rs`) rather than on threads of their own.
    pub(crate) coroutines: Vec<bool>,
    /// The coroutine roles' bodies until they start: the explorer drops
    /// those never started (as a pool thread's job), the executor takes
    /// the others.
    pub(crate) bodies: Vec<Option<RoleBody>>,
}

/// A coroutine role's body, given its execution's shared state.
pub(crate) struct RoleBody(pub(crate) Box<dyn FnOnce(RoleId, Arc<Shared>) + Send>);

impl std::fmt::Debug for RoleBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RoleBody")
    }
}

/// Whom to wake once the lock is released (waking a thread that then
/// has to wait for the lock costs it a second wake-up).
#[derive(Debug)]
pub(crate) enum Wake {
    /// Nobody: the thread that decided goes on itself.
    Nobody,
    /// The thread of this role, handed its operation's result.
    Role(RoleId),
    /// A role's pool thread, to start it.
    Start(Gate),
    /// The executor's thread, to poll an async role's task
    /// ([`Ctl::task_turn`]).
    Task,
    /// Every thread: the execution has ended.
    Everyone,
}

/// How many operations a role may call after its execution was stopped
/// (each failing at once) before its thread is ended by a panic.
const MAX_CALLS_AFTER_STOP: usize = 1_000;

/// The lock and condition variable of one execution.
#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) ctl: Mutex<Ctl>,
    /// Where the explorer's thread waits (for the execution to end, then
    /// for every thread to return).
    pub(crate) cv: Signal,
    /// Where each role's thread waits (to start, or for its operation's
    /// result): one per role, so that a hand-over wakes exactly one thread.
    pub(crate) role_cvs: Vec<Signal>,
    /// Where the executor's thread waits for a task to poll.
    pub(crate) exec_cv: Signal,
    pub(crate) names: Arc<[String]>,
}

impl Shared {
    pub(crate) fn new(names: Arc<[String]>) -> Shared {
        Shared {
            ctl: Mutex::new(Ctl {
                slots: (0..names.len()).map(|_| Slot::Done).collect(),
                stop: None,
                after_stop: vec![0; names.len()],
                end: None,
                exec: None,
                gates: names.iter().map(|_| None).collect(),
                current: 0,
                turns: fresh_turns(),
                handovers: 0,
                unstarted: Vec::new(),
                fault: None,
                tasks: names.iter().map(|_| None).collect(),
                task_turn: None,
                polling: None,
                executor_running: false,
                coroutines: vec![false; names.len()],
                bodies: names.iter().map(|_| None).collect(),
            }),
            cv: Signal::default(),
            exec_cv: Signal::default(),
            role_cvs: names.iter().map(|_| Signal::default()).collect(),
            names,
        }
    }

    /// `shared` made again as [`Shared::new`] makes it for `names`,
    /// keeping its allocations, if nothing else holds it (no role, no
    /// task, no watch of an execution that ended); `None` otherwise.
    /// Why: the state of one execution was eight allocations, made and
    /// freed for each of the thousands of executions of an exploration.
    pub(crate) fn renewed(mut shared: Arc<Shared>, names: &Arc<[String]>) -> Option<Arc<Shared>> {
        let this = Arc::get_mut(&mut shared)?;
        if !Arc::ptr_eq(&this.names, names) || this.ctl.is_poisoned() {
            return None;
        }
        let ctl = this.ctl.get_mut().ok()?;
        // Every field by name (no `..`): a field added to `Ctl` must be
        // renewed here too, or this does not compile.
        let Ctl {
            slots,
            stop,
            after_stop,
            end,
            exec,
            gates,
            current,
            turns,
            handovers,
            unstarted,
            fault,
            tasks,
            task_turn,
            polling,
            executor_running,
            coroutines,
            bodies,
        } = ctl;
        slots.fill_with(|| Slot::Done);
        *stop = None;
        after_stop.fill(0);
        *end = None;
        *exec = None;
        gates.fill_with(|| None);
        *current = 0;
        *turns = fresh_turns();
        *handovers = 0;
        unstarted.clear();
        *fault = None;
        tasks.fill_with(|| None);
        *task_turn = None;
        *polling = None;
        *executor_running = false;
        coroutines.fill(false);
        bodies.fill_with(|| None);
        Some(shared)
    }

    /// The lock; a poisoned lock is taken anyway: no role code runs under
    /// it, and the object's code (the scheduling decision) runs inside
    /// `catch_unwind`, so a poison can only come from our own bug, and the
    /// state is still consistent (every update is a single assignment).
    pub(crate) fn lock(&self) -> MutexGuard<'_, Ctl> {
        self.ctl.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits, holding `ctl` again on return, until the next notification
    /// or until `deadline` (`None`: no deadline), whichever comes first;
    /// a poisoned lock is taken anyway, as by [`lock`](Self::lock).
    pub(crate) fn wait_until<'a>(
        &'a self,
        ctl: MutexGuard<'a, Ctl>,
        deadline: Option<Instant>,
    ) -> MutexGuard<'a, Ctl> {
        match deadline {
            None => self.cv.wait(ctl),
            Some(at) => {
                let left = at.saturating_duration_since(Instant::now());
                self.cv.wait_timeout(ctl, left)
            }
        }
    }

    /// Publishes `role`'s operation `op`, makes the scheduling decision,
    /// and waits for this operation's turn (called on `role`'s thread).
    pub(crate) fn op(&self, role: RoleId, op: Op) -> Result<Reply, Error> {
        let mut ctl = self.lock();
        if let Some(e) = self.stop_error(&ctl) {
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
        if ctl.tasks[role].is_some() {
            // An async role's task runs on the executor's thread: it
            // cannot wait here (see `task_ops.rs`).
            return self.blocking_in_task(&mut ctl, role, op);
        }
        ctl.slots[role] = Slot::Pending(op);
        let wake = self.advance(&mut ctl, Some(role));
        if matches!(wake, Wake::Task) {
            ctl.handovers += 1;
        }
        // A coroutine role gives the executor's thread back: the turn is
        // another role's, which the executor runs next.
        let coroutine = ctl.coroutines[role] && super::coroutine::inside();
        match wake {
            Wake::Nobody => {}
            Wake::Task if coroutine => {
                drop(ctl);
                super::coroutine::suspend();
                ctl = self.lock();
            }
            wake => {
                drop(ctl);
                self.wake(wake);
                ctl = self.lock();
            }
        }
        loop {
            if matches!(ctl.slots[role], Slot::Reply(_)) {
                let Slot::Reply(r) = std::mem::replace(&mut ctl.slots[role], Slot::Running) else {
                    unreachable!("matched just before")
                };
                return r;
            }
            if coroutine {
                // Resumed before its answer (not expected): let the
                // executor run whoever has the turn.
                drop(ctl);
                super::coroutine::suspend();
                ctl = self.lock();
                continue;
            }
            ctl = self.role_cvs[role].wait(ctl);
        }
    }

    /// Makes the next scheduling decision, with the lock held, on the
    /// thread that just settled (`me`: its role if it waits at an
    /// operation, `None` for the explorer or a role that returned). Says
    /// whom to wake once the lock is released.
    pub(crate) fn advance(&self, ctl: &mut Ctl, me: Option<RoleId>) -> Wake {
        loop {
            if let Some(wake) = self.advance_once(ctl, me) {
                return wake;
            }
        }
    }

    /// One decision of [`advance`](Self::advance); `None` when it needs
    /// another one at once (an async role's deferred close was performed:
    /// its task has nothing new to poll).
    fn advance_once(&self, ctl: &mut Ctl, me: Option<RoleId>) -> Option<Wake> {
        if ctl.end.is_some() {
            return Some(Wake::Everyone);
        }
        let Some(mut exec) = ctl.exec.take() else {
            return Some(Wake::Nobody);
        };
        // The object's code runs here, maybe on a role thread whose
        // panics are otherwise kept quiet: a panic of the scheduler is
        // not the role's, so it is printed, and re-raised by the explorer.
        let quiet = engine::quiet::set_quiet(false);
        let next = catch_unwind(AssertUnwindSafe(|| exec.step(ctl, &self.names)));
        engine::quiet::set_quiet(quiet);
        ctl.exec = Some(exec);
        Some(match next {
            Ok(Next::Start(role)) => {
                ctl.slots[role] = Slot::Running;
                ctl.current = role;
                ctl.turns = ctl.turns.wrapping_add(1);
                if ctl.tasks[role].is_some() || ctl.coroutines[role] {
                    ctl.task_turn = Some(role);
                    return Some(Wake::Task);
                }
                ctl.handovers += 1;
                match &ctl.gates[role] {
                    Some(gate) => Wake::Start(gate.clone()),
                    None => unreachable!("only spawned roles are started"),
                }
            }
            Ok(Next::Resume(role)) => {
                ctl.current = role;
                ctl.turns = ctl.turns.wrapping_add(1);
                if ctl.tasks[role].is_some() {
                    if !self.deliver(ctl, role) {
                        return None;
                    }
                    ctl.task_turn = Some(role);
                    Wake::Task
                } else if me == Some(role) {
                    Wake::Nobody
                } else if ctl.coroutines[role] {
                    ctl.task_turn = Some(role);
                    Wake::Task
                } else {
                    ctl.handovers += 1;
                    Wake::Role(role)
                }
            }
            Ok(Next::End(end)) => {
                self.end(ctl, end);
                Wake::Everyone
            }
            Err(payload) => {
                ctl.fault = Some(payload);
                self.end(ctl, End::Program("the scheduler panicked".into()));
                Wake::Everyone
            }
        })
    }

    /// Ends the execution (with the lock held): pending operations fail,
    /// later ones too, and threads not started yet never run. The caller
    /// then wakes everyone ([`Wake::Everyone`]).
    pub(crate) fn end(&self, ctl: &mut Ctl, end: End) {
        let mut error = None;
        for (role, slot) in ctl.slots.iter_mut().enumerate() {
            match slot {
                Slot::Pending(_) => {
                    let e = error.get_or_insert_with(|| stop_error(&self.names, &end));
                    *slot = Slot::Reply(Err(e.clone()));
                }
                Slot::NotStarted => {
                    *slot = Slot::Done;
                    ctl.unstarted.push(role);
                }
                _ => {}
            }
        }
        ctl.stop = Some(end.clone());
        ctl.end = Some(end);
    }

    /// The error every operation gets once the execution is stopped
    /// (`None` before).
    pub(crate) fn stop_error(&self, ctl: &Ctl) -> Option<Error> {
        ctl.stop.as_ref().map(|end| stop_error(&self.names, end))
    }

    /// Wakes whom [`advance`](Self::advance) said, without the lock held.
    pub(crate) fn wake(&self, wake: Wake) {
        match wake {
            Wake::Nobody => {}
            Wake::Role(role) => self.role_cvs[role].notify_one(),
            Wake::Start(gate) => gate.open(),
            Wake::Task => self.exec_cv.notify_one(),
            Wake::Everyone => {
                for cv in &self.role_cvs {
                    cv.notify_all();
                }
                self.exec_cv.notify_all();
                self.cv.notify_all();
            }
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

    fn roles(&self) -> &[String] {
        &self.shared.names
    }

    /// Asked of the object (the scheduler holds it while this role runs).
    fn channel_types(&self, from: RoleId, to: RoleId) -> Option<Vec<String>> {
        self.shared.lock().exec.as_ref()?.channel_types(from, to)
    }

    fn may_close(&self, from: RoleId, to: RoleId) -> Option<bool> {
        self.shared.lock().exec.as_ref()?.may_close(from, to)
    }

    fn peer(&self, role: impl ToRole) -> Result<RoleId, Error> {
        role.to_role(&self.shared.names)
    }

    fn send<T: Payload>(&mut self, to: impl ToRole, value: T) -> Result<(), Error> {
        let to = to.to_peer(self.role, &self.shared.names, "send to")?;
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
        let from = from.to_peer(self.role, &self.shared.names, "receive from")?;
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
        let to = to.to_peer(self.role, &self.shared.names, "close its channel to")?;
        self.run(Op::Close { to }).map(|_| ())
    }

    /// A select branches over every alternative the object allows at that
    /// point (printed `role<-sender#k` in schedules, `k` the alternative's
    /// index), not only the first.
    fn select(&mut self, alternatives: &[Alternative]) -> Result<(usize, Message), Error> {
        // Senders given by name are resolved here, once: the scheduler
        // and the reports work with indices.
        let mut alts = Vec::with_capacity(alternatives.len());
        for a in alternatives {
            let a = a.resolved(&self.shared.names)?;
            a.from
                .to_peer(self.role, &self.shared.names, "receive from")?;
            alts.push(a);
        }
        match self.run(Op::Select { alts })? {
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

    /// In an async role ([`Roles::spawn_async`](super::Roles::spawn_async)):
    /// registers the operation as the role's pending operation (a
    /// scheduling point, as a thread's call is) and returns `Pending`;
    /// once the scheduler performed it, the next poll is `Ready` with its
    /// result. In a thread role: `Err(Unsupported)` at once.
    fn poll_op(&mut self, cx: &mut Context<'_>, op: &mut AsyncOp) -> Poll<Result<Done, Error>> {
        self.poll_task_op(cx, op)
    }

    /// Gives the registration up: the operation was not performed (the
    /// scheduler performs only the registered operation it picks, and
    /// that one's future is then ready), so it did nothing.
    fn cancel_op(&mut self, op: &mut AsyncOp) {
        self.cancel_task_op(op)
    }
}

/// What a scheduling decision leads to.
pub(crate) enum Next {
    /// Start this role (the next one spawned): it runs to its first
    /// operation alone.
    Start(RoleId),
    /// This role's slot holds its operation's result: it runs on.
    Resume(RoleId),
    /// The execution is over.
    End(End),
}

/// The scheduler of one execution, reached through the lock by whichever
/// thread is running (hence `Send`, and typed away: the endpoints do not
/// know the chooser's type).
pub(crate) trait Step: Send {
    /// The next decision; `ctl` is the state under the lock.
    fn step(&mut self, ctl: &mut Ctl, names: &[String]) -> Next;
    /// For the explorer to take the execution's results back.
    fn into_any(self: Box<Self>) -> Box<dyn Any>;
    /// The object's [`Protocol::channel_types`].
    fn channel_types(&self, from: RoleId, to: RoleId) -> Option<Vec<String>>;
    /// The object's [`Protocol::may_close`].
    fn may_close(&self, from: RoleId, to: RoleId) -> Option<bool>;
}

impl std::fmt::Debug for dyn Step {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Step")
    }
}
