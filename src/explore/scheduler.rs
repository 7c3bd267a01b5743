//! Running one execution: the role threads, one at a time, and the
//! object, driven by a [`Chooser`] at every scheduling point.

use std::cell::{Cell, RefCell};
use std::marker::PhantomData;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Once};
use std::time::{Duration, Instant};

use engine::{Protocol, RoleId};
use protocols::session::{Blocked, Deadlock, Error, WaitsFor};

use super::dpor::History;
use super::endpoint::{ExploreEndpoint, Op, Reply, Shared, Slot};
use super::roles::Roles;

/// An enabled choice at a scheduling point: `role`'s pending operation,
/// and for a receive from anyone the sender.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Alt {
    pub(crate) role: RoleId,
    pub(crate) from: Option<RoleId>,
    /// For a [`choose`](super::choose): the value chosen.
    pub(crate) pick: Option<usize>,
}

/// One action performed, by role indices (names are for reports).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Act {
    pub(crate) role: RoleId,
    pub(crate) kind: ActKind,
}

/// What an [`Act`] did.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum ActKind {
    Send {
        to: RoleId,
        ty: String,
    },
    Recv {
        from: RoleId,
        ty: String,
    },
    Close {
        to: RoleId,
    },
    /// The role's program chose `pick` among `n` values (no protocol
    /// action: left out of the run a property is checked on).
    Choose {
        pick: usize,
        n: usize,
    },
}

/// What the chooser decides at a scheduling point.
pub(crate) enum Decision {
    /// Take `alts[i]`.
    Take(usize),
    /// Every enabled choice is asleep: this execution can only repeat
    /// schedules equivalent to ones already run. Stop it.
    Redundant,
    /// The enabled choices are not what they were (or should be): stop.
    Diverged { expected: String, found: String },
}

/// Picks the next step at each scheduling point.
pub(crate) trait Chooser {
    /// `alts` are the enabled choices (the previously running role's
    /// first, then by role), `prev` the role that made the last step;
    /// `independent(i, j)` says whether `alts[i]` and `alts[j]` commute
    /// here (see [`independent`]).
    fn choose(
        &mut self,
        step: usize,
        alts: &[Alt],
        prev: Option<RoleId>,
        independent: &dyn Fn(usize, usize) -> bool,
    ) -> Decision;

    /// Whether the chooser wants the races of each execution (DPOR): the
    /// run then keeps a [`History`] and calls
    /// [`add_backtracks`](Self::add_backtracks) at its end.
    fn wants_races(&self) -> bool {
        false
    }

    /// The races of the execution just run: at scheduling point `k`, the
    /// choices `alts[i]` for each `i` listed must be explored too.
    fn add_backtracks(&mut self, _backtracks: Vec<(usize, Vec<usize>)>) {}
}

/// The channel an enabled choice uses: (sender, receiver).
fn channel(alt: Alt, op: &Op) -> (RoleId, RoleId) {
    match op {
        Op::Send { to, .. } | Op::Close { to } => (alt.role, *to),
        Op::Recv { from } => (
            alt.from.or(*from).expect("a receive choice has a sender"),
            alt.role,
        ),
        // A choice touches no channel; (role, role) is no channel's.
        Op::Choose { .. } => (alt.role, alt.role),
    }
}

/// Whether two enabled choices of different roles are independent in the
/// object's state `obj`: they use different channels, and they commute on
/// the object (each stays enabled after the other, and both orders give
/// equal objects). Same role, same channel, or any doubt: dependent. The
/// channel rule matters because objects compare messages by type only:
/// two messages on one channel may commute on the object and still reach
/// the receiver in a different order.
pub(crate) fn independent<P: Protocol>(obj: &P, a: (Alt, &Op), b: (Alt, &Op)) -> bool {
    if a.0.role == b.0.role || channel(a.0, a.1) == channel(b.0, b.1) {
        return false;
    }
    let both = |first: (Alt, &Op), second: (Alt, &Op)| {
        let mut o = obj.clone();
        perform(&mut o, first.0, first.1.clone())?;
        perform(&mut o, second.0, second.1.clone())?;
        Some(o)
    };
    match (both(a, b), both(b, a)) {
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
}

/// A job for a pool thread: one role body of one execution.
type Job<'s> = Box<dyn FnOnce() + Send + 's>;

/// The threads that run role bodies, kept across the executions of one
/// exploration (scoped threads: role bodies may borrow what the program
/// borrows); spawning threads afresh for each execution cost most of an
/// execution's time.
pub(crate) struct Pool<'scope, 'env> {
    scope: &'scope std::thread::Scope<'scope, 'env>,
    workers: std::cell::RefCell<Vec<std::sync::mpsc::Sender<Job<'scope>>>>,
}

impl<'scope, 'env> Pool<'scope, 'env> {
    pub(crate) fn new(scope: &'scope std::thread::Scope<'scope, 'env>) -> Self {
        Pool {
            scope,
            workers: std::cell::RefCell::new(Vec::new()),
        }
    }

    /// Runs `job` on the `worker`-th thread (started on first use). The
    /// caller waits for each job to end before it gives that thread
    /// another.
    fn run(&self, worker: usize, job: Job<'scope>) {
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

/// How an execution ended.
#[derive(Debug, Clone)]
pub(crate) enum End {
    Success,
    Deadlock(Arc<Deadlock>),
    Violation {
        role: RoleId,
        op: WaitsFor,
    },
    Panicked {
        role: RoleId,
        message: String,
        location: Option<String>,
    },
    Unfinished {
        not_finished: Vec<RoleId>,
    },
    Steps(usize),
    Time,
    /// Stopped by the sleep sets: equivalent to an execution already run.
    Redundant,
    Stuck {
        role: RoleId,
        waited: Duration,
    },
    Diverged {
        step: usize,
        expected: String,
        found: String,
    },
    /// The program spawned a role the object does not have, or twice.
    Program(String),
}

/// The limits of one execution.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RunLimits {
    pub(crate) max_steps: usize,
    pub(crate) role_timeout: Duration,
    pub(crate) deadline: Option<Instant>,
}

/// The result of one execution.
#[derive(Debug, Clone)]
pub(crate) struct Run {
    pub(crate) trace: Vec<Act>,
    pub(crate) schedule: Vec<Alt>,
    pub(crate) end: End,
    /// Whether the object had terminated at the end (for the property's
    /// `END` / `DEADLOCK`).
    pub(crate) terminated: bool,
}

thread_local! {
    /// Set on role threads: their panics are part of the report, not
    /// printed by the panic hook.
    static QUIET: Cell<bool> = const { Cell::new(false) };
    /// Where the last quiet panic of this thread happened.
    static LOCATION: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Installs (once) a panic hook that keeps role threads' panics quiet and
/// records their location; other threads' panics go to the previous hook.
fn install_panic_hook() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if QUIET.with(Cell::get) {
                let at = info
                    .location()
                    .map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column()));
                LOCATION.with(|l| *l.borrow_mut() = at);
            } else {
                previous(info)
            }
        }));
    });
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "(a panic payload that is not a string)".to_string()
    }
}

fn waits_for(op: &Op, names: &[String]) -> WaitsFor {
    match op {
        Op::Send { to, msg } => WaitsFor::Send {
            to: names[*to].clone(),
            type_name: msg.type_name().to_string(),
        },
        Op::Recv { from } => WaitsFor::Recv {
            from: from.map(|f| names[f].clone()),
        },
        Op::Close { to } => WaitsFor::Close {
            to: names[*to].clone(),
        },
        Op::Choose { .. } => unreachable!("a choice is always enabled, so never waited on"),
    }
}

/// The enabled choices among the pending operations, probed on clones of
/// `obj`: `prev`'s first (so that the first choice never preempts), then
/// by role; a receive from anyone gives one choice per possible sender.
pub(crate) fn enabled<P: Protocol>(
    obj: &P,
    pending: &[(RoleId, Op)],
    prev: Option<RoleId>,
    roles: usize,
) -> Vec<Alt> {
    let mut order: Vec<&(RoleId, Op)> = pending.iter().collect();
    order.sort_by_key(|(r, _)| (Some(*r) != prev, *r));
    let mut alts = Vec::new();
    for (role, op) in order {
        let role = *role;
        match op {
            Op::Send { to, msg } => {
                if obj.clone().try_send(role, *to, msg.clone()).is_ok() {
                    alts.push(Alt {
                        role,
                        from: None,
                        pick: None,
                    });
                }
            }
            Op::Recv { from: Some(f) } => {
                if obj.clone().try_recv(role, Some(*f)).is_ok() {
                    alts.push(Alt {
                        role,
                        from: None,
                        pick: None,
                    });
                }
            }
            Op::Recv { from: None } => {
                for f in (0..roles).filter(|&f| f != role) {
                    if obj.clone().try_recv(role, Some(f)).is_ok() {
                        alts.push(Alt {
                            role,
                            from: Some(f),
                            pick: None,
                        });
                    }
                }
            }
            Op::Choose { n } => {
                alts.extend((0..*n).map(|k| Alt {
                    role,
                    from: None,
                    pick: Some(k),
                }));
            }
            Op::Close { to } => {
                if obj.clone().try_close(role, *to).is_ok() {
                    alts.push(Alt {
                        role,
                        from: None,
                        pick: None,
                    });
                }
            }
        }
    }
    alts
}

/// Performs `op` of `role` on `obj` (a choice found enabled by
/// [`enabled`]); `None` if the object refuses what its clone accepted.
pub(crate) fn perform<P: Protocol>(obj: &mut P, alt: Alt, op: Op) -> Option<(Act, Reply)> {
    let (role, from) = (alt.role, alt.from);
    match op {
        Op::Choose { n } => {
            let pick = alt.pick?;
            Some((
                Act {
                    role,
                    kind: ActKind::Choose { pick, n },
                },
                Reply::Chose(pick),
            ))
        }
        Op::Send { to, msg } => {
            let ty = msg.type_name().to_string();
            obj.try_send(role, to, msg).ok()?;
            Some((
                Act {
                    role,
                    kind: ActKind::Send { to, ty },
                },
                Reply::Done,
            ))
        }
        Op::Recv { from: asked } => {
            let (f, msg) = obj.try_recv(role, from.or(asked)).ok()?;
            Some((
                Act {
                    role,
                    kind: ActKind::Recv {
                        from: f,
                        ty: msg.type_name().to_string(),
                    },
                },
                Reply::Received(f, msg),
            ))
        }
        Op::Close { to } => {
            obj.try_close(role, to).ok()?;
            Some((
                Act {
                    role,
                    kind: ActKind::Close { to },
                },
                Reply::Done,
            ))
        }
    }
}

/// Runs one execution of `program` on a clone of `object`.
pub(crate) fn run<'s, P, F>(
    pool: &Pool<'s, '_>,
    object: &P,
    program: &F,
    limits: RunLimits,
    chooser: &mut dyn Chooser,
) -> Run
where
    P: Protocol,
    F: Fn(&mut Roles<'_, P>) + Sync,
{
    install_panic_hook();
    let names = object.roles();
    let mut roles: Roles<'s, P> = Roles::new(names.clone());
    program(&mut roles);
    let mut run = Run {
        trace: Vec::new(),
        schedule: Vec::new(),
        end: End::Success,
        terminated: false,
    };
    if let Some(e) = roles.error.take() {
        run.end = End::Program(e);
        return run;
    }
    let shared = Arc::new(Shared::new(names));
    let spawned: Vec<RoleId> = roles.bodies.iter().map(|(r, _)| *r).collect();
    {
        let mut ctl = shared.lock();
        for &r in &spawned {
            ctl.slots[r] = Slot::NotStarted;
        }
    }
    let mut obj = object.clone();
    for (worker, (role, body)) in roles.bodies.into_iter().enumerate() {
        let shared = Arc::clone(&shared);
        pool.run(worker, Box::new(move || role_thread(role, body, shared)));
    }
    let mut history = chooser.wants_races().then(History::default);
    drive(
        &shared,
        &spawned,
        &mut obj,
        limits,
        chooser,
        &mut run,
        history.as_mut(),
    );
    if let Some(h) = &history {
        let backtracks = if matches!(run.end, End::Panicked { .. }) {
            // A panic stops every role, so this execution is not maximal:
            // the races that the other roles' later steps would have shown
            // are unknown. Explore every choice of its prefix.
            super::dpor::every_choice(h)
        } else {
            super::dpor::backtracks(h, &run.schedule)
        };
        chooser.add_backtracks(backtracks);
    }
    stop(&shared, &run.end);
    // Every job has returned after this, so the pool's threads are free
    // for the next execution.
    finish(&shared, &spawned, limits.role_timeout);
    run.terminated = obj.is_terminated();
    run
}

/// A role thread: waits to be started, runs the body, records how it
/// ended.
fn role_thread<P: Protocol>(role: RoleId, body: super::roles::Body<'_, P>, shared: Arc<Shared>) {
    QUIET.with(|q| q.set(true));
    {
        let mut ctl = shared.lock();
        while matches!(ctl.slots[role], Slot::NotStarted) {
            ctl = shared.role_cvs[role]
                .wait(ctl)
                .unwrap_or_else(|e| e.into_inner());
        }
        if !matches!(ctl.slots[role], Slot::Running) {
            // Stopped before it started: the body never runs.
            return;
        }
    }
    let _entered = super::choose::enter(Arc::clone(&shared), role);
    let ep = ExploreEndpoint {
        role,
        shared: Arc::clone(&shared),
        _object: PhantomData,
    };
    let result = catch_unwind(AssertUnwindSafe(move || body(ep)));
    let mut ctl = shared.lock();
    ctl.slots[role] = match result {
        Ok(()) => Slot::Done,
        Err(p) => Slot::Panicked(panic_message(&*p)),
    };
    if let Some(at) = LOCATION.with(|l| l.borrow_mut().take()) {
        if let Slot::Panicked(m) = &mut ctl.slots[role] {
            m.push_str(&format!("\u{0}{at}"));
        }
    }
    shared.cv.notify_all();
}

/// Lets `role` run (its slot is already set) and waits until it settles.
fn let_run(shared: &Shared, role: RoleId, limits: RunLimits) -> Result<(), End> {
    shared.role_cvs[role].notify_one();
    if shared.wait_settled(role, Instant::now() + limits.role_timeout) {
        Ok(())
    } else {
        Err(End::Stuck {
            role,
            waited: limits.role_timeout,
        })
    }
}

/// A panic recorded in a slot, if any.
fn panicked(shared: &Shared) -> Option<End> {
    let ctl = shared.lock();
    ctl.slots.iter().enumerate().find_map(|(role, s)| match s {
        Slot::Panicked(m) => {
            let (message, location) = match m.split_once('\u{0}') {
                Some((m, at)) => (m.to_string(), Some(at.to_string())),
                None => (m.clone(), None),
            };
            Some(End::Panicked {
                role,
                message,
                location,
            })
        }
        _ => None,
    })
}

/// The scheduling loop of one execution; sets `run.end`.
fn drive<P: Protocol>(
    shared: &Shared,
    spawned: &[RoleId],
    obj: &mut P,
    limits: RunLimits,
    chooser: &mut dyn Chooser,
    run: &mut Run,
    mut history: Option<&mut History<P>>,
) {
    // Start the threads one at a time, each up to its first operation.
    for &role in spawned {
        shared.lock().slots[role] = Slot::Running;
        if let Err(end) = let_run(shared, role, limits) {
            run.end = end;
            return;
        }
        if let Some(end) = panicked(shared) {
            run.end = end;
            return;
        }
    }
    let n = shared.names.len();
    let mut prev = None;
    loop {
        let pending: Vec<(RoleId, Op)> = {
            let ctl = shared.lock();
            ctl.slots
                .iter()
                .enumerate()
                .filter_map(|(r, s)| match s {
                    Slot::Pending(op) => Some((r, op.clone())),
                    _ => None,
                })
                .collect()
        };
        let alts = enabled(obj, &pending, prev, n);
        if let Some(h) = history.as_deref_mut() {
            h.objects.push(obj.clone());
            h.pending.push(pending.clone());
            h.alts.push(alts.clone());
        }
        if alts.is_empty() {
            run.end = stuck_end(shared, obj, &pending);
            return;
        }
        let step = run.trace.len();
        if step >= limits.max_steps {
            run.end = End::Steps(limits.max_steps);
            return;
        }
        if limits.deadline.is_some_and(|d| Instant::now() >= d) {
            run.end = End::Time;
            return;
        }
        let op_of = |alt: Alt| {
            &pending
                .iter()
                .find(|(r, _)| *r == alt.role)
                .expect("an enabled choice is a pending operation")
                .1
        };
        let probe = |i: usize, j: usize| {
            independent(&*obj, (alts[i], op_of(alts[i])), (alts[j], op_of(alts[j])))
        };
        let i = match chooser.choose(step, &alts, prev, &probe) {
            Decision::Take(i) => i,
            Decision::Redundant => {
                run.end = End::Redundant;
                return;
            }
            Decision::Diverged { expected, found } => {
                run.end = End::Diverged {
                    step: step + 1,
                    expected,
                    found,
                };
                return;
            }
        };
        let alt = alts[i];
        let op = pending
            .iter()
            .find(|(r, _)| *r == alt.role)
            .map(|(_, op)| op.clone())
            .expect("an enabled choice is a pending operation");
        let Some((act, reply)) = perform(obj, alt, op) else {
            run.end = End::Diverged {
                step: step + 1,
                expected: "the object to accept the operation its clone accepted".into(),
                found: "a refusal: the object is not deterministic (see the Protocol contract)"
                    .into(),
            };
            return;
        };
        run.trace.push(act);
        run.schedule.push(alt);
        prev = Some(alt.role);
        shared.lock().slots[alt.role] = Slot::Reply(Ok(reply));
        if let Err(end) = let_run(shared, alt.role, limits) {
            run.end = end;
            return;
        }
        if let Some(end) = panicked(shared) {
            run.end = end;
            return;
        }
    }
}

/// How an execution ends when nothing can move.
fn stuck_end<P: Protocol>(shared: &Shared, obj: &P, pending: &[(RoleId, Op)]) -> End {
    let names = &shared.names;
    let terminated = obj.is_terminated();
    if pending.is_empty() {
        return if terminated {
            End::Success
        } else {
            End::Unfinished {
                not_finished: (0..names.len()).filter(|&r| !obj.is_finished(r)).collect(),
            }
        };
    }
    if terminated {
        let (role, op) = &pending[0];
        return End::Violation {
            role: *role,
            op: waits_for(op, names),
        };
    }
    let ctl = shared.lock();
    let mut deadlock = Deadlock {
        blocked: Vec::new(),
        finished: Vec::new(),
        panicked: Vec::new(),
        terminated,
    };
    for (role, slot) in ctl.slots.iter().enumerate() {
        match slot {
            Slot::Pending(op) => deadlock.blocked.push(Blocked {
                role: names[role].clone(),
                waits_for: waits_for(op, names),
            }),
            Slot::Panicked(_) => deadlock.panicked.push(names[role].clone()),
            _ => deadlock.finished.push(names[role].clone()),
        }
    }
    End::Deadlock(Arc::new(deadlock))
}

/// The error that stopped endpoints get.
fn stop_error(shared: &Shared, end: &End) -> Error {
    match end {
        End::Deadlock(d) => Error::Deadlock(Arc::clone(d)),
        End::Violation { role, op } => Error::Deadlock(Arc::new(Deadlock {
            blocked: vec![Blocked {
                role: shared.names[*role].clone(),
                waits_for: op.clone(),
            }],
            finished: Vec::new(),
            panicked: Vec::new(),
            terminated: true,
        })),
        End::Steps(n) => Error::Aborted(format!("the execution reached {n} steps")),
        End::Time => Error::Aborted("the exploration's time ran out".into()),
        End::Stuck { role, .. } => Error::Aborted(format!(
            "role {} did not reach an endpoint operation in time",
            shared.names[*role]
        )),
        End::Panicked { role, .. } => {
            Error::Aborted(format!("role {} panicked", shared.names[*role]))
        }
        _ => Error::Aborted("the execution was stopped".into()),
    }
}

/// Releases every thread: pending operations fail, later ones too, and
/// threads not started yet never run.
fn stop(shared: &Shared, end: &End) {
    let error = stop_error(shared, end);
    let mut ctl = shared.lock();
    ctl.stop = Some(error.clone());
    for slot in ctl.slots.iter_mut() {
        match slot {
            Slot::Pending(_) => *slot = Slot::Reply(Err(error.clone())),
            Slot::NotStarted => *slot = Slot::Done,
            _ => {}
        }
    }
    for cv in &shared.role_cvs {
        cv.notify_all();
    }
    shared.cv.notify_all();
}

/// Waits for every thread to end (after [`stop`]); says on stderr which
/// one it is still waiting for, so that a hang has a name.
fn finish(shared: &Shared, spawned: &[RoleId], grace: Duration) {
    let finished = |ctl: &super::endpoint::Ctl| {
        spawned
            .iter()
            .all(|&r| matches!(ctl.slots[r], Slot::Done | Slot::Panicked(_)))
    };
    let mut ctl = shared.lock();
    let mut deadline = Instant::now() + grace;
    while !finished(&ctl) {
        let now = Instant::now();
        if now >= deadline {
            let late: Vec<&str> = spawned
                .iter()
                .filter(|&&r| !matches!(ctl.slots[r], Slot::Done | Slot::Panicked(_)))
                .map(|&r| shared.names[r].as_str())
                .collect();
            eprintln!(
                "prust explore: still waiting for role(s) {} to return after the execution \
                 was stopped: blocked outside the session? (threads may share nothing but \
                 the session)",
                late.join(", ")
            );
            deadline = now + grace;
            continue;
        }
        ctl = shared
            .cv
            .wait_timeout(ctl, deadline - now)
            .unwrap_or_else(|e| e.into_inner())
            .0;
    }
}
