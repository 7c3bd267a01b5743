//! [`Pool`]: the threads that run role bodies, kept across executions.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::Thread;

/// A job for a pool thread: one role body of one execution.
pub(crate) type Job<'s> = Box<dyn FnOnce() + Send + 's>;

/// What starts a pool thread's job: whichever thread decides that the
/// role starts (the explorer or another role's thread) opens the gate.
/// It carries no lifetime, so that the execution's shared state can
/// hold it while the job itself (which borrows what the program borrows)
/// stays in the pool.
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

/// One pool thread: its job for the current execution, and its gate.
struct Worker<'s> {
    job: Arc<Mutex<Option<Job<'s>>>>,
    gate: Gate,
}

/// The threads that run role bodies, kept across the executions of one
/// exploration (scoped threads: role bodies may borrow what the program
/// borrows); spawning threads afresh for each execution cost most of an
/// execution's time.
///
/// A job is placed with its thread when the execution begins, but the
/// thread wakes only when the role starts ([`Gate::open`]): placing it
/// with a wake-up would cost every role a second hand-over.
pub(crate) struct Pool<'scope, 'env> {
    scope: &'scope std::thread::Scope<'scope, 'env>,
    workers: std::cell::RefCell<Vec<Worker<'scope>>>,
    /// Set when the pool is dropped: idle threads end.
    closed: Arc<AtomicBool>,
    /// What the scheduler keeps across the executions of the exploration
    /// besides the threads: the answers of `violation.rs`, typed by the
    /// object (hence `Any`).
    pub(crate) memo: std::cell::RefCell<Option<Box<dyn std::any::Any + Send>>>,
}

impl<'scope, 'env> Pool<'scope, 'env> {
    pub(crate) fn new(scope: &'scope std::thread::Scope<'scope, 'env>) -> Self {
        Pool {
            scope,
            workers: std::cell::RefCell::new(Vec::new()),
            closed: Arc::new(AtomicBool::new(false)),
            memo: std::cell::RefCell::new(None),
        }
    }

    /// Places `job` with the `worker`-th thread (started on first use)
    /// and returns the gate that runs it. The caller waits for each job
    /// to end (or clears it, [`Pool::clear`]) before it places another.
    pub(crate) fn place(&self, worker: usize, job: Job<'scope>) -> Gate {
        let mut workers = self.workers.borrow_mut();
        while workers.len() <= worker {
            let slot: Arc<Mutex<Option<Job<'scope>>>> = Arc::new(Mutex::new(None));
            let go = Arc::new(AtomicBool::new(false));
            let (mine, my_go, closed) =
                (Arc::clone(&slot), Arc::clone(&go), Arc::clone(&self.closed));
            // The object's code runs on these threads too (the scheduler
            // steps it there): the search workers' stack, so that how deep
            // it may recurse does not depend on which thread runs it.
            let spawned = engine::stack::worker(format!("prust-role-{}", workers.len()))
                .spawn_scoped(self.scope, move || loop {
                    if my_go.swap(false, Ordering::Acquire) {
                        let job = mine.lock().unwrap_or_else(|e| e.into_inner()).take();
                        if let Some(job) = job {
                            job();
                        }
                        continue;
                    }
                    if closed.load(Ordering::Acquire) {
                        return;
                    }
                    // A spurious or stale wake-up only loops back here.
                    std::thread::park();
                });
            // As `Scope::spawn` does: no role can run without its thread.
            let handle = spawned.expect("failed to spawn a role thread");
            workers.push(Worker {
                job: slot,
                gate: Gate {
                    go,
                    thread: handle.thread().clone(),
                },
            });
        }
        let w = &workers[worker];
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
            if let Some(w) = all.get(w) {
                w.job.lock().unwrap_or_else(|e| e.into_inner()).take();
            }
        }
    }
}

impl Drop for Pool<'_, '_> {
    fn drop(&mut self) {
        self.closed.store(true, Ordering::Release);
        for w in self.workers.get_mut().iter() {
            w.gate.thread.unpark();
        }
    }
}
