//! [`Roles`]: what a program under exploration is given to start its
//! role threads.

use engine::{Protocol, RoleId};

use std::future::Future;
use std::marker::PhantomData;
use std::sync::Arc;

use super::endpoint::{ExploreEndpoint, Shared};
use super::executor::AsyncBody;
use super::observe::Handle;

/// A role body, boxed until the execution starts it: a thread's, or an
/// async role's (see `executor.rs`).
pub(crate) enum Body<'a, P> {
    /// Called with the role and the execution's shared state, from which
    /// it makes its endpoint: so a coroutine role runs this very box,
    /// where wrapping it in a closure of that shape was a second
    /// allocation per role and execution.
    Thread(Box<dyn FnOnce(RoleId, Arc<Shared>) + Send + 'a>),
    Async(AsyncBody<'a, P>),
}

/// The roles of one execution: the program calls [`spawn`](Self::spawn)
/// once for each role it runs.
///
/// A role that is not spawned never acts (as a role whose endpoint was
/// never taken from a session that is gone). Spawning a role the object
/// does not have, or the same role twice, is an error of the program,
/// reported by [`Explorer::try_explore`](super::Explorer::try_explore).
///
/// The program runs once for each execution, right before it (after the
/// execution before it has ended), on the thread that then runs the
/// roles it spawns (as coroutines), not the caller's.
pub struct Roles<'a, P: Protocol> {
    pub(crate) names: Arc<[String]>,
    pub(crate) bodies: Vec<(RoleId, Body<'a, P>)>,
    pub(crate) error: Option<String>,
}

impl<'a, P: Protocol> Roles<'a, P> {
    pub(crate) fn new(names: Arc<[String]>) -> Self {
        Roles {
            names,
            bodies: Vec::new(),
            error: None,
        }
    }

    /// Runs `body` as `role`, with an endpoint that implements the same
    /// `protocols::session::BlockingEndpoint` trait as real sessions'
    /// endpoints, so the same `fn buyer2(e: &mut impl BlockingEndpoint)`
    /// runs in production and under exploration.
    ///
    /// The body runs only when the explorer lets it, one role at a time;
    /// it must share nothing with the other roles but the session.
    ///
    /// **A stack, not a thread.** The body is ordinary blocking code, run
    /// as a coroutine with a stack of its own on the exploration's
    /// executor thread: each endpoint operation suspends it while other
    /// roles run, without the cost of waking another OS thread. Two things
    /// follow. The roles of an execution share that one thread, so a
    /// thread-local a body sets is seen by the other roles (and by later
    /// executions, and by the program, which is called on that thread
    /// too); keep per-role state in the body. And the endpoint is
    /// used from the body itself, not from a thread the body spawns. A
    /// body that blocks on anything but its endpoint (a lock, a channel,
    /// a sleep) blocks that thread, as it blocked a thread of its own
    /// before: after the role time limit it is reported
    /// [`Outcome::Stuck`](super::Outcome::Stuck), with its role, and the
    /// thread is left to it.
    ///
    /// The body may return a value: the returned [`Handle`] stands for it.
    /// A program that returns handles (or a tuple, array or `Vec` of them,
    /// see [`Observe`](super::Observe)) makes their values the result of
    /// each complete execution ([`Exploration::results`](super::Exploration::results));
    /// a program that returns nothing has the result `()`.
    ///
    /// ```
    /// use prust::explore::explore;
    /// use prust::session::BlockingEndpoint;
    /// #[derive(Clone, Debug)] struct Move(u32);
    /// let ex = explore(prust::protocols::chess::strict(), |r| {
    ///     r.spawn("white", |mut ep| {
    ///         ep.send("black", Move(1)).unwrap();
    ///         ep.recv_from("black").unwrap();
    ///     });
    ///     r.spawn("black", |mut ep| {
    ///         let Move(m) = ep.recv_from("white").unwrap().downcast().unwrap();
    ///         ep.send("white", Move(m + 1)).unwrap();
    ///         m
    ///     })
    /// });
    /// // The result of each complete execution: what black's body returned.
    /// assert_eq!(ex.results().len(), 1);
    /// assert_eq!(ex.results()[0].value, 1);
    /// ```
    pub fn spawn<R: Send + 'static>(
        &mut self,
        role: &str,
        body: impl FnOnce(ExploreEndpoint<P>) -> R + Send + 'a,
    ) -> Handle<R> {
        let handle = Handle::new();
        let slot = handle.clone();
        let body = move |role, shared| {
            slot.set(body(ExploreEndpoint {
                role,
                shared,
                _object: PhantomData,
            }))
        };
        self.add(role, Body::Thread(Box::new(body)));
        handle
    }

    /// Runs the async `body` as `role`, on the exploration's own
    /// deterministic executor (no runtime: no tokio, no OS thread per
    /// role), with the same endpoint as [`spawn`](Self::spawn) gives; so
    /// the same `async fn worker<E: BlockingEndpoint>(ends: Ends<E>)` that
    /// runs in production inside `tokio::spawn` runs here.
    ///
    /// **Scheduling points.** Every session operation the task awaits
    /// (`poll_op`: `prust::channel`'s `send_async`, `recv_async`) is one,
    /// exactly as a thread's blocking call is: the same program gives the
    /// same schedules as threads or as tasks, and DPOR, replay,
    /// simplification, properties and results work alike. A task that
    /// awaits several receives at once (`tokio::select!`, `join!` over
    /// `recv_async`s) has one pending choice over all of them, as a
    /// blocking `select` over alternatives: the one the scheduler performs
    /// becomes ready, the others did nothing (the order in which the task
    /// polls them does not matter). Receives and one other operation at
    /// once (a send awaited beside a receive) are not supported: the
    /// exploration fails with [`ExploreError::Program`](super::ExploreError::Program).
    ///
    /// **Stuck.** A task that returns `Pending` without awaiting a session
    /// operation (a timer, I/O, a `tokio::sync` primitive,
    /// `std::future::pending()`) is reported as [`Outcome::Stuck`](super::Outcome::Stuck)
    /// with its role at once (nothing under exploration would wake it),
    /// and the exploration goes on. A task that wakes itself (a yield) is
    /// polled again.
    ///
    /// **Blocking calls** from inside the task (`send`, `recv`, `select`,
    /// [`choose`](super::choose)) cannot wait on the executor: they fail
    /// with `Error::Unsupported` (`choose` panics), never hang. A close is
    /// the exception (a dropped channel `Sender` closes the blocking way):
    /// it returns at once and is performed as the role's next scheduling
    /// point, before anything the task awaits after it. Awaiting an
    /// operation in a thread role (spawned with `spawn`) fails the same
    /// way. Thread and async roles mix freely in one program.
    ///
    /// ```
    /// use std::future::poll_fn;
    /// use prust::explore::explore;
    /// use prust::session::{AsyncOp, BlockingEndpoint, Done};
    /// #[derive(Clone, Debug)] struct Move(u32);
    /// let ex = explore(prust::protocols::chess::strict(), |r| {
    ///     r.spawn("white", |mut ep| {
    ///         ep.send("black", Move(1)).unwrap();
    ///         ep.recv_from("black").unwrap();
    ///     });
    ///     r.spawn_async("black", |mut ep| async move {
    ///         let mut recv = AsyncOp::recv_from(0);
    ///         let Ok(Done::Received(_, m)) = poll_fn(|cx| ep.poll_op(cx, &mut recv)).await else {
    ///             panic!()
    ///         };
    ///         let Move(m) = m.downcast().unwrap();
    ///         let mut send = AsyncOp::send(0, Move(m + 1));
    ///         poll_fn(|cx| ep.poll_op(cx, &mut send)).await.unwrap();
    ///         m
    ///     })
    /// });
    /// assert!(ex.is_complete());
    /// assert_eq!(ex.results()[0].value, 1);
    /// ```
    pub fn spawn_async<R, F>(
        &mut self,
        role: &str,
        body: impl FnOnce(ExploreEndpoint<P>) -> F + Send + 'a,
    ) -> Handle<R>
    where
        R: Send + 'static,
        F: Future<Output = R> + Send + 'a,
    {
        let handle = Handle::new();
        let slot = handle.clone();
        let body: AsyncBody<'a, P> = Box::new(move |ep| {
            let task = body(ep);
            Box::pin(async move { slot.set(task.await) })
        });
        self.add(role, Body::Async(body));
        handle
    }

    /// Adds `body` as `role`'s, or notes why the program is wrong.
    fn add(&mut self, role: &str, body: Body<'a, P>) {
        let Some(id) = self.names.iter().position(|n| n == role) else {
            self.error.get_or_insert_with(|| {
                let hint = engine::names::closest(role, self.names.iter().map(String::as_str))
                    .map(|c| format!("did you mean `{c}`? "))
                    .unwrap_or_default();
                format!(
                    "spawn(\"{role}\"): the protocol has no role `{role}`; {hint}its roles: {}",
                    self.names.join(", ")
                )
            });
            return;
        };
        if self.bodies.iter().any(|(r, _)| *r == id) {
            self.error.get_or_insert_with(|| {
                format!("spawn(\"{role}\"): the role is spawned twice (one body per role)")
            });
            return;
        }
        self.bodies.push((id, body));
    }
}

impl<P: Protocol> std::fmt::Debug for Roles<'_, P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Roles")
            .field("names", &self.names)
            .field("spawned", &self.bodies.len())
            .finish_non_exhaustive()
    }
}
