//! The program, called on the executor's thread right before each
//! execution of a batch ([`Program`]), while the explorer's thread that
//! borrows it waits for the batch.
//!
//! Calling the program ahead of a batch on the explorer's thread (so that
//! only the role bodies, which are `'static`, cross to the executor's)
//! changed what a program sees: a call made before the executions that
//! precede it cannot reset state its roles share with them, and a role
//! could pass where it fails. Calling it on the explorer's thread right
//! before each execution cost two hand-overs between threads an
//! execution. So the executor's thread calls it, through a pointer whose
//! lifetime the type system cannot see; a [`Gate`] makes that sound.

use std::any::Any;
use std::marker::PhantomData;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex, MutexGuard};

use engine::Protocol;

use super::super::roles::Roles;
use super::super::signal::Signal;
use super::execution::prepare;

/// Whether the program may be called, and whether a call is under way.
#[derive(Default)]
struct Calls {
    /// Set once by the explorer's thread: no call from now on.
    closed: bool,
    /// A call is under way on the executor's thread.
    calling: bool,
}

/// Keeps the explorer's thread in the function that borrows the program
/// for as long as the executor's thread may be calling it.
#[derive(Default)]
pub(super) struct Gate {
    calls: Mutex<Calls>,
    /// Where the explorer's thread waits for a call under way to end
    /// (hardly ever: notified after each call, it cost a system call an
    /// execution as a plain condition variable).
    left: Signal,
}

impl Gate {
    fn lock(&self) -> MutexGuard<'_, Calls> {
        self.calls.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// No call after this returns, and none under way: waits for the one
    /// under way (a program that never returns keeps the explorer's
    /// thread waiting, as it did when the explorer called it itself).
    pub(super) fn close(&self) {
        let mut calls = self.lock();
        calls.closed = true;
        while calls.calling {
            calls = self.left.wait(calls);
        }
    }
}

/// Closes the gate when dropped: held by the function whose borrow of
/// the program [`Program`] extends, so that it cannot return, nor unwind,
/// past a call under way.
pub(super) struct Closing<'g>(pub(super) &'g Gate);

impl Drop for Closing<'_> {
    fn drop(&mut self) {
        self.0.close();
    }
}

/// The roles of one call and what it returned, or its panic.
pub(super) type Called<P, O> = Result<(Roles<'static, P>, O), Box<dyn Any + Send>>;

/// Calls the program behind a pointer (one function per program type).
type Call<P, O> = unsafe fn(*const (), &Arc<[String]>) -> (Roles<'static, P>, O);

/// A program `F: Fn(&mut Roles<'_, P>) -> O + Sync` borrowed by the
/// explorer's thread, callable from the executor's until its [`Gate`]
/// closes.
pub(super) struct Program<P: Protocol, O> {
    data: *const (),
    call: Call<P, O>,
    gate: Arc<Gate>,
    _returns: PhantomData<fn() -> O>,
}

// SAFETY: `data` points to an `F: Sync` (see `Program::new`), so calling
// it from another thread through a shared reference is sound, and the
// `O` it returns is `Send` (bound there too); whether the pointer is still
// valid when it is used is the gate's business, not the thread's.
unsafe impl<P: Protocol, O: Send> Send for Program<P, O> {}

impl<P: Protocol, O: Send> Program<P, O> {
    /// `program`, callable until `gate` closes.
    ///
    /// # Safety
    ///
    /// `gate` must be closed ([`Gate::close`]) before `program`'s borrow
    /// ends, on every path out of the borrowing function, unwinding
    /// included (hold a [`Closing`] of it made before the `Program` is
    /// handed to another thread).
    pub(super) unsafe fn new<F>(program: &F, gate: Arc<Gate>) -> Program<P, O>
    where
        F: Fn(&mut Roles<'_, P>) -> O + Sync,
    {
        /// Calls the `F` behind `data` (see `execution::prepare`).
        ///
        /// # Safety
        ///
        /// `data` points to a live `F`.
        unsafe fn call<P: Protocol, F, O>(
            data: *const (),
            names: &Arc<[String]>,
        ) -> (Roles<'static, P>, O)
        where
            F: Fn(&mut Roles<'_, P>) -> O,
        {
            // SAFETY: the caller's guarantee.
            let program = unsafe { &*data.cast::<F>() };
            prepare(program, names)
        }
        Program {
            data: (program as *const F).cast(),
            call: call::<P, F, O>,
            gate,
            _returns: PhantomData,
        }
    }

    /// Calls the program once (its panic caught): the roles it spawned
    /// and what it returned; `None` once the gate is closed.
    pub(super) fn call(&self, names: &Arc<[String]>) -> Option<Called<P, O>> {
        {
            let mut calls = self.gate.lock();
            if calls.closed {
                return None;
            }
            calls.calling = true;
        }
        // Marks the call over however it ends.
        struct Over<'g>(&'g Gate);
        impl Drop for Over<'_> {
            fn drop(&mut self) {
                self.0.lock().calling = false;
                self.0.left.notify_all();
            }
        }
        let _over = Over(&self.gate);
        // SAFETY: the gate was open when this call began and cannot close
        // before `_over` is dropped (`close` waits for `calling` to be
        // unset), and `Program::new`'s caller closes it before the borrow
        // of the program ends: `data` points to a live `F`.
        Some(catch_unwind(AssertUnwindSafe(|| unsafe {
            (self.call)(self.data, names)
        })))
    }
}
