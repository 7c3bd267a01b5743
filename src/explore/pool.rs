//! [`Pool`]: the threads that run role bodies, kept across executions.

/// A job for a pool thread: one role body of one execution.
pub(crate) type Job<'s> = Box<dyn FnOnce() + Send + 's>;

/// The threads that run role bodies, kept across the executions of one
/// exploration (scoped threads: role bodies may borrow what the program
/// borrows); spawning threads afresh for each execution cost most of an
/// execution's time.
pub(crate) struct Pool<'scope, 'env> {
    scope: &'scope std::thread::Scope<'scope, 'env>,
    workers: std::cell::RefCell<Vec<std::sync::mpsc::Sender<Job<'scope>>>>,
    /// What the scheduler keeps across the executions of the exploration
    /// besides the threads: the answers of `violation.rs`, typed by the
    /// object (hence `Any`).
    pub(crate) memo: std::cell::RefCell<Option<Box<dyn std::any::Any>>>,
}

impl<'scope, 'env> Pool<'scope, 'env> {
    pub(crate) fn new(scope: &'scope std::thread::Scope<'scope, 'env>) -> Self {
        Pool {
            scope,
            workers: std::cell::RefCell::new(Vec::new()),
            memo: std::cell::RefCell::new(None),
        }
    }

    /// Runs `job` on the `worker`-th thread (started on first use). The
    /// caller waits for each job to end before it gives that thread
    /// another.
    pub(crate) fn run(&self, worker: usize, job: Job<'scope>) {
        let mut workers = self.workers.borrow_mut();
        while workers.len() <= worker {
            let (tx, rx) = std::sync::mpsc::channel::<Job<'scope>>();
            self.scope.spawn(move || {
                for job in rx {
                    job();
                }
            });
            workers.push(tx);
        }
        workers[worker]
            .send(job)
            .expect("pool threads live as long as the pool");
    }
}
