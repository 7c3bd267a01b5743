//! Thread roles ([`Roles::spawn`]) as stackful coroutines: each role body
//! runs on a stack of its own, but on the executor's thread (see
//! `executor.rs`), and an endpoint operation that hands the turn to
//! another role suspends the body ([`suspend`]) instead of waking another
//! OS thread. A switch between roles is then a few register moves, where
//! a hand-over between threads cost two context switches and most of an
//! execution's time.
//!
//! A role body stays ordinary blocking code: only the endpoint's
//! operations suspend it. Everything else it does blocks the executor's
//! thread, as it blocked the role's own thread before: the explorer's
//! thread still watches how long the running role goes without reaching
//! an operation, reports it stuck and leaves the executor's thread behind.
//!
//! Every coroutine of an execution runs on that one thread, so a body's
//! thread-locals are shared with the other roles of its execution (and
//! with later executions of the exploration); an endpoint used from a
//! thread the body spawned cannot suspend the body. Both are documented on
//! [`Roles::spawn`].
//!
//! [`Roles::spawn`]: super::Roles::spawn

use std::cell::{Cell, RefCell};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr;

use corosensei::stack::DefaultStack;
use corosensei::{Coroutine, CoroutineResult, Yielder};

use super::panics::panic_message;

/// How a role body ended: `Err` with the panic's message (and its place,
/// after a `\0`, as the thread roles reported it).
pub(crate) type Ended = Result<(), String>;

/// The yielder of the coroutine running on this thread (null outside any).
type Link = *const Yielder<(), ()>;

thread_local! {
    /// Set by the running coroutine each time it gets the thread (at its
    /// start and on every return from a suspension), cleared by
    /// [`RoleCoroutine::resume`] when it gives the thread back.
    static RUNNING: Cell<Link> = const { Cell::new(ptr::null()) };
    /// Stacks of finished coroutines, for the next ones on this thread:
    /// mapping (and unmapping) a stack for each role of each execution
    /// would cost more than the execution's switches.
    static STACKS: RefCell<Vec<DefaultStack>> = const { RefCell::new(Vec::new()) };
}

/// At most this many spare stacks are kept per thread.
const SPARE_STACKS: usize = 16;

/// One role body, run as a coroutine on the current thread.
pub(crate) struct RoleCoroutine {
    co: Option<Coroutine<(), (), Ended, DefaultStack>>,
}

impl RoleCoroutine {
    /// A coroutine that runs `body` (not started yet).
    pub(crate) fn new(body: impl FnOnce() + 'static) -> RoleCoroutine {
        let stack = STACKS
            .with(|s| s.borrow_mut().pop())
            .map_or_else(new_stack, Ok)
            .expect("failed to map a role's stack");
        let co = Coroutine::with_stack(stack, move |yielder: &Yielder<(), ()>, ()| {
            RUNNING.with(|r| r.set(yielder));
            // A place noted before the body runs is not the body's.
            let _ = engine::quiet::take_location();
            match catch_unwind(AssertUnwindSafe(body)) {
                Ok(()) => Ok(()),
                Err(payload) => {
                    let mut message = panic_message(&*payload);
                    if let Some(at) = engine::quiet::take_location() {
                        message.push_str(&format!("\u{0}{at}"));
                    }
                    Err(message)
                }
            }
        });
        RoleCoroutine { co: Some(co) }
    }

    /// Runs the body until it suspends (`None`) or returns.
    pub(crate) fn resume(&mut self) -> Option<Ended> {
        let co = self.co.as_mut()?;
        let result = co.resume(());
        RUNNING.with(|r| r.set(ptr::null()));
        match result {
            CoroutineResult::Yield(()) => None,
            CoroutineResult::Return(ended) => {
                if let Some(co) = self.co.take() {
                    let stack = co.into_stack();
                    STACKS.with(|s| {
                        let mut s = s.borrow_mut();
                        if s.len() < SPARE_STACKS {
                            s.push(stack);
                        }
                    });
                }
                Some(ended)
            }
        }
    }

    /// Whether the body has not returned yet.
    pub(crate) fn suspended(&self) -> bool {
        self.co.is_some()
    }
}

/// A stack as deep as the threads' that ran role bodies before (the
/// object's code runs on it too: the scheduling decision is made inside
/// the operation that reached it). Only the pages it touches are
/// committed.
fn new_stack() -> std::io::Result<DefaultStack> {
    DefaultStack::new(engine::stack::WORKER_STACK_BYTES)
}

/// Whether the current code runs inside a role coroutine (only then can
/// it [`suspend`]).
pub(crate) fn inside() -> bool {
    !RUNNING.with(Cell::get).is_null()
}

/// Suspends the running role coroutine until the executor resumes it;
/// `false` (at once) outside any.
pub(crate) fn suspend() -> bool {
    let link = RUNNING.with(Cell::get);
    if link.is_null() {
        return false;
    }
    // SAFETY: `link` was set by the coroutine running on this thread, the
    // only code that runs here until it suspends or returns: it is that
    // coroutine's own yielder, which lives on its stack for as long as its
    // closure runs, and that closure is still running (we are in it). The
    // pointer is cleared whenever the coroutine gives the thread back, so
    // it is never read for a coroutine that is not the running one.
    let yielder = unsafe { &*link };
    yielder.suspend(());
    RUNNING.with(|r| r.set(link));
    true
}
