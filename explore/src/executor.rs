//! The deterministic executor of async roles ([`Roles::spawn_async`]):
//! one thread per execution that polls the role tasks, one at a time,
//! when the scheduler lets them run.
//!
//! A task's poll registers the session operations it awaits (see
//! `task_ops.rs`); when it returns, the executor settles the role's
//! pending operation and makes the next scheduling decision itself, as a
//! role thread does at an operation (`endpoint.rs`). A decision for
//! another async role is a poll on the same thread: a program of async
//! roles runs without any hand-over between threads but the start and
//! the end of each execution. A decision for a thread role wakes that
//! thread, and the executor waits for its next turn.
//!
//! Why a thread of its own, not the explorer's: the explorer's thread
//! watches the time a role runs its own code, so that a task busy in a
//! poll is reported stuck (as a thread role is) instead of hanging. A
//! search's executions run here back to back, a batch at a time (see
//! `scheduler/batch.rs`), the explorer's thread watching them.
//!
//! [`Roles::spawn_async`]: super::Roles::spawn_async

use std::future::Future;
use std::marker::PhantomData;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, MutexGuard};
use std::task::{Context, Poll, Wake as WakeTask, Waker};

use engine::RoleId;

use super::coroutine::RoleCoroutine;
use super::endpoint::{Ctl, ExploreEndpoint, RoleBody, Shared, Slot, Wake};
use super::panics::panic_message;

/// An async role's task, its output already stored in its handle.
pub(crate) type TaskFuture<'a> = Pin<Box<dyn Future<Output = ()> + Send + 'a>>;

/// An async role body, boxed until its role starts.
pub(crate) type AsyncBody<'a, P> =
    Box<dyn FnOnce(ExploreEndpoint<P>) -> TaskFuture<'a> + Send + 'a>;

/// How many times in a row a task awaiting no session operation may wake
/// itself (a `yield_now`) and be polled again before it counts as
/// awaiting something else.
const MAX_SELF_WAKES: usize = 1_000;

/// The waker the tasks are given: it only notes a wake. Only a wake from
/// inside the poll (a task yielding) is acted on: nothing else under
/// exploration may wake a task.
#[derive(Default)]
struct Noted(AtomicBool);

impl WakeTask for Noted {
    fn wake(self: Arc<Self>) {
        self.0.store(true, Ordering::Release);
    }
    fn wake_by_ref(self: &Arc<Self>) {
        self.0.store(true, Ordering::Release);
    }
}

thread_local! {
    /// The table of coroutines of the executor's last execution on this
    /// thread, empty (see `executor`).
    static SPARE_COROUTINES: std::cell::Cell<Vec<Option<RoleCoroutine>>> =
        const { std::cell::Cell::new(Vec::new()) };
}

/// What one poll of a task gave.
enum Polled {
    Ready,
    Pending,
    Panicked(String),
}

/// The executor's thread of one execution: polls `bodies`' tasks when the
/// scheduler lets their roles run, until the execution ends; then drops
/// the tasks not finished (outside the lock: their drops may call the
/// endpoint, whose every operation fails at once by then).
pub(crate) fn executor<P: engine::Protocol>(
    shared: Arc<Shared>,
    bodies: Vec<(RoleId, AsyncBody<'static, P>)>,
) {
    // The tasks' panics are part of the report, as a thread role's are.
    engine::quiet::set_quiet(true);
    let n = shared.names.len();
    // The tasks' tables and waker only where there are tasks: a program
    // of thread roles alone (coroutines) was three allocations an
    // execution for nothing.
    let mut starts: Vec<Option<AsyncBody<'static, P>>> = Vec::new();
    let mut tasks: Vec<Option<TaskFuture<'static>>> = Vec::new();
    let mut waking = None;
    if !bodies.is_empty() {
        starts.resize_with(n, || None);
        tasks.resize_with(n, || None);
        let noted = Arc::new(Noted::default());
        waking = Some((Waker::from(Arc::clone(&noted)), noted));
    }
    for (role, body) in bodies {
        starts[role] = Some(body);
    }
    // The executor's thread runs execution after execution: the table of
    // their coroutines is its own, kept empty between them.
    let mut coroutines = SPARE_COROUTINES.take();
    coroutines.resize_with(n, || None);
    let mut ctl = shared.lock();
    loop {
        if ctl.end.is_some() {
            break;
        }
        let Some(role) = ctl.task_turn.take() else {
            ctl = shared.exec_cv.wait(ctl);
            continue;
        };
        if ctl.coroutines[role] {
            // The decision that gave it the turn was made before: it runs
            // to its next operation (which decides again) or returns.
            let body = ctl.bodies[role].take();
            ctl = run_coroutine(&shared, ctl, role, &mut coroutines[role], body);
            continue;
        }
        // Only a role with a task is given a task's turn.
        let (waker, noted) = waking.as_ref().expect("a task's turn with no task");
        let mut self_wakes = 0;
        let polled = loop {
            ctl.polling = Some(role);
            drop(ctl);
            noted.0.store(false, Ordering::Release);
            let polled = poll(&shared, role, &mut starts[role], &mut tasks[role], waker);
            ctl = shared.lock();
            ctl.polling = None;
            let idle = matches!(polled, Polled::Pending)
                && ctl.tasks[role]
                    .as_ref()
                    .is_some_and(|t| t.regs.is_empty() && t.deferred.is_empty());
            if idle
                && noted.0.load(Ordering::Acquire)
                && self_wakes < MAX_SELF_WAKES
                && ctl.end.is_none()
            {
                self_wakes += 1;
                continue;
            }
            break polled;
        };
        if ctl.end.is_some() {
            break;
        }
        match polled {
            Polled::Ready => {
                if let Some(t) = ctl.tasks[role].as_mut() {
                    t.finished = true;
                }
                shared.settle_task(&mut ctl, role);
            }
            Polled::Pending => shared.settle_task(&mut ctl, role),
            Polled::Panicked(message) => {
                if let Some(t) = ctl.tasks[role].as_mut() {
                    t.panicked = Some(message);
                }
                shared.settle_task(&mut ctl, role);
            }
        }
        match shared.advance(&mut ctl, None) {
            Wake::Task | Wake::Nobody => {}
            wake => {
                drop(ctl);
                shared.wake(wake);
                ctl = shared.lock();
            }
        }
    }
    // The coroutine roles stopped at an operation run on to their end,
    // as their threads would: every operation fails at once by now.
    for (role, coroutine) in coroutines.iter_mut().enumerate() {
        while coroutine.as_ref().is_some_and(RoleCoroutine::suspended) {
            ctl = run_coroutine(&shared, ctl, role, coroutine, None);
        }
    }
    drop(ctl);
    // Every coroutine has returned: the table holds nothing now.
    coroutines.clear();
    SPARE_COROUTINES.set(coroutines);
    let _ = catch_unwind(AssertUnwindSafe(move || {
        drop(tasks);
        drop(starts);
    }));
    shared.lock().executor_running = false;
    shared.cv.notify_all();
}

/// Runs coroutine role `role` (started from `body` the first time) until
/// it suspends at an operation or returns; a return is recorded in its
/// slot and followed by the next decision, as a role thread's was. The
/// role's code runs without the lock, which is taken back on return.
fn run_coroutine<'a>(
    shared: &'a Arc<Shared>,
    mut ctl: MutexGuard<'a, Ctl>,
    role: RoleId,
    coroutine: &mut Option<RoleCoroutine>,
    body: Option<RoleBody>,
) -> MutexGuard<'a, Ctl> {
    if let Some(RoleBody(body)) = body {
        let shared = Arc::clone(shared);
        *coroutine = Some(RoleCoroutine::new(move || body(role, shared)));
    }
    let Some(co) = coroutine.as_mut() else {
        return ctl;
    };
    ctl.polling = Some(role);
    drop(ctl);
    let ended = {
        let _entered = super::choose::enter(Arc::clone(shared), role);
        co.resume()
    };
    let mut ctl = shared.lock();
    ctl.polling = None;
    let Some(ended) = ended else {
        return ctl;
    };
    *coroutine = None;
    ctl.slots[role] = match ended {
        Ok(()) => Slot::Done,
        Err(message) => Slot::Panicked(message),
    };
    // Once the execution has ended, `advance` only says to wake the
    // explorer (waiting for every role to return).
    match shared.advance(&mut ctl, None) {
        Wake::Nobody => {}
        Wake::Task => ctl.handovers += 1,
        wake => {
            drop(ctl);
            shared.wake(wake);
            ctl = shared.lock();
        }
    }
    ctl
}

/// Polls `role`'s task once (making it from its body on the first poll),
/// as the role: its panics are caught, with their place.
fn poll<P: engine::Protocol>(
    shared: &Arc<Shared>,
    role: RoleId,
    start: &mut Option<AsyncBody<'static, P>>,
    task: &mut Option<TaskFuture<'static>>,
    waker: &Waker,
) -> Polled {
    let _entered = super::choose::enter(Arc::clone(shared), role);
    // A place noted before the poll is not the task's.
    let _ = engine::quiet::take_location();
    let result = catch_unwind(AssertUnwindSafe(|| {
        let future = match task {
            Some(f) => f,
            None => {
                let body = start.take().expect("a task is started once");
                task.insert(body(ExploreEndpoint {
                    role,
                    shared: Arc::clone(shared),
                    _object: PhantomData,
                }))
            }
        };
        future.as_mut().poll(&mut Context::from_waker(waker))
    }));
    match result {
        Ok(Poll::Ready(())) => {
            // Finished: what it owned was dropped when it returned.
            *task = None;
            Polled::Ready
        }
        Ok(Poll::Pending) => Polled::Pending,
        Err(payload) => {
            let mut message = panic_message(&*payload);
            if let Some(at) = engine::quiet::take_location() {
                message.push_str(&format!("\u{0}{at}"));
            }
            // A task that panicked is not polled again; what it owns is
            // dropped with the others at the end of the execution.
            Polled::Panicked(message)
        }
    }
}
