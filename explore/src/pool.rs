//! [`Pool`]: the threads that run role bodies, kept across executions.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::Thread;

/// A job for a pool thread: one role body of one execution. `'static`,
/// so that a thread stuck in its role's own code can be left behind (see
/// [`Pool::abandon`]): a role body borrows nothing of the explorer's
/// (`Roles::spawn` takes bodies for any lifetime the explorer picks).
pub(crate) type Job = Box<dyn FnOnce() + Send + 'static>;

/// What starts a pool thread's job: whichever thread decides that the
/// role starts (the explorer or another role's thread) opens the gate.
#[derive(Clone, Debug)]
pub(crate) struct Gate {
    go: Arc<AtomicBool>,
    thread: Thread,
}

impl Gate {
    /// Lets the thread run the job placed for it.
    pub(crate) fn open(&self) {
        self.go.store(true, Ordering::Release);
        self.thread.unpark();
    }
}

/// One pool thread: its job for the current execution, its gate, and
/// whether it was left behind (it then ends as soon as its job returns).
struct Worker {
    job: Arc<Mutex<Option<Job>>>,
    gate: Gate,
    retired: Arc<AtomicBool>,
}

/// The threads that run role bodies, kept across the executions of one
/// exploration; spawning threads afresh for each execution cost most of
/// an execution's time.
///
/// A job is placed with its thread when the execution begins, but the
/// thread wakes only when the role starts ([`Gate::open`]): placing it
/// with a wake-up would cost every role a second hand-over.
///
/// The threads are not scoped: a role blocked or busy outside the session
/// cannot be stopped, and a scope would wait for it for ever. Such a
/// thread is [abandoned](Pool::abandon) instead: it keeps only its own
/// execution's state, whose every operation fails once stopped, and ends
/// when its code returns (or with the process).
pub(crate) struct Pool {
    /// `None`: the thread of that place was abandoned; the next job placed
    /// there gets a new one.
    workers: std::cell::RefCell<Vec<Option<Worker>>>,
    /// Set when the pool is dropped: idle threads end.
    closed: Arc<AtomicBool>,
    /// What the scheduler keeps across the executions of the exploration
    /// besides the threads: the answers of `violation.rs`, typed by the
    /// object (hence `Any`).
    pub(crate) memo: std::cell::RefCell<Option<Box<dyn std::any::Any + Send>>>,
    /// Thread roles run on threads of their own, one hand-over between
    /// threads per switch of roles, instead of as coroutines on the
    /// executor's thread: kept to measure the two side by side (see
    /// [`Explorer::role_threads`](super::Explorer::role_threads)).
    pub(crate) os_threads: bool,
}

impl Pool {
    pub(crate) fn new() -> Self {
        Pool {
            workers: std::cell::RefCell::new(Vec::new()),
            closed: Arc::new(AtomicBool::new(false)),
            memo: std::cell::RefCell::new(None),
            os_threads: false,
        }
    }

    /// A new thread, parked until its gate opens.
    fn spawn(&self, index: usize) -> Worker {
        let slot: Arc<Mutex<Option<Job>>> = Arc::new(Mutex::new(None));
        let go = Arc::new(AtomicBool::new(false));
        let retired = Arc::new(AtomicBool::new(false));
        let (mine, my_go, closed, my_retired) = (
            Arc::clone(&slot),
            Arc::clone(&go),
            Arc::clone(&self.closed),
            Arc::clone(&retired),
        );
        // The object's code runs on these threads too (the scheduler
        // steps it there): the search workers' stack, so that how deep it
        // may recurse does not depend on which thread runs it.
        let spawned = engine::stack::worker(format!("prust-role-{index}")).spawn(move || loop {
            if my_go.swap(false, Ordering::Acquire) {
                let job = mine.lock().unwrap_or_else(|e| e.into_inner()).take();
                if let Some(job) = job {
                    job();
                }
                if my_retired.load(Ordering::Acquire) {
                    return;
                }
                continue;
            }
            if closed.load(Ordering::Acquire) || my_retired.load(Ordering::Acquire) {
                return;
            }
            // A spurious or stale wake-up only loops back here.
            std::thread::park();
        });
        // As `Scope::spawn` does: no role can run without its thread.
        let handle = spawned.expect("failed to spawn a role thread");
        Worker {
            job: slot,
            gate: Gate {
                go,
                thread: handle.thread().clone(),
            },
            retired,
        }
    }

    /// Places `job` with the `worker`-th thread (started on first use, or
    /// anew after [`abandon`](Self::abandon)) and returns the gate that
    /// runs it. The caller waits for each job to end (or clears it,
    /// [`Pool::clear`], or abandons its thread) before it places another.
    pub(crate) fn place(&self, worker: usize, job: Job) -> Gate {
        let mut workers = self.workers.borrow_mut();
        if workers.len() <= worker {
            workers.resize_with(worker + 1, || None);
        }
        let w = match &mut workers[worker] {
            Some(w) => w,
            none => none.insert(self.spawn(worker)),
        };
        *w.job.lock().unwrap_or_else(|e| e.into_inner()) = Some(job);
        w.gate.clone()
    }

    /// Drops the jobs placed with these workers, which were never started
    /// (an execution that ended before every role started). A job never
    /// started is never touched by its thread (its gate is closed), so
    /// taking it here races with nothing.
    pub(crate) fn clear(&self, workers: impl IntoIterator<Item = usize>) {
        let all = self.workers.borrow();
        for w in workers {
            if let Some(Some(w)) = all.get(w) {
                w.job.lock().unwrap_or_else(|e| e.into_inner()).take();
            }
        }
    }

    /// Leaves the `worker`-th thread to the job it is running (a role
    /// that did not return in time): it ends when the job returns, and the
    /// pool gives that place a new thread.
    pub(crate) fn abandon(&self, worker: usize) {
        if let Some(slot) = self.workers.borrow_mut().get_mut(worker) {
            if let Some(w) = slot.take() {
                w.retired.store(true, Ordering::Release);
            }
        }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.closed.store(true, Ordering::Release);
        for w in self.workers.get_mut().iter().flatten() {
            w.gate.thread.unpark();
        }
    }
}
