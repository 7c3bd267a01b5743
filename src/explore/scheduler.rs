//! Running one execution: the role threads, one at a time, and the
//! object, driven by a [`Chooser`] at every scheduling point.

use std::marker::PhantomData;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;
use std::time::{Duration, Instant};

use engine::{Protocol, RoleId};
use protocols::session::{Deadlock, WaitsFor};

use super::chooser::{Chooser, Decision};
use super::closed::Closed;
use super::dpor::History;
use super::enabled::{enabled, perform};
use super::ending::{finish, stop, stuck_end, waits_for};
use super::endpoint::{ExploreEndpoint, Op, Shared, Slot};
use super::independence::independent;
use super::panics::{install_panic_hook, panic_message, LOCATION, QUIET};
use super::pool::{Job, Pool};
use super::roles::Roles;
use super::step::{Act, Alt};
use super::violation::Never;

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
    // Each job goes to its pool thread when the role starts (see `drive`).
    let jobs: Vec<(RoleId, Job<'s>)> = roles
        .bodies
        .into_iter()
        .map(|(role, body)| {
            let shared = Arc::clone(&shared);
            let job: Job<'s> = Box::new(move || role_thread(role, body, shared));
            (role, job)
        })
        .collect();
    let flavour = chooser.wants_races();
    let mut history = flavour.map(|_| History::default());
    let mut memo = pool.memo.borrow_mut();
    let never = memo
        .get_or_insert_with(|| Box::new(Never::<P>::new()))
        .downcast_mut::<Never<P>>()
        .expect("one object type per exploration");
    drive(
        &shared,
        (pool, jobs),
        &mut obj,
        limits,
        chooser,
        &mut run,
        history.as_mut(),
        never,
    );
    drop(memo);
    if let (Some(h), Some(flavour)) = (&history, flavour) {
        let cache = chooser.hb_cache();
        let backtracks = super::dpor::after_run(h, &run.schedule, &run.end, flavour, cache);
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
// Each argument is a different part of the execution's context, owned by
// `run` for different lengths of time; a struct would only rename them.
#[allow(clippy::too_many_arguments)]
fn drive<'s, P: Protocol>(
    shared: &Shared,
    (pool, jobs): (&Pool<'s, '_>, Vec<(RoleId, Job<'s>)>),
    obj: &mut P,
    limits: RunLimits,
    chooser: &mut dyn Chooser,
    run: &mut Run,
    mut history: Option<&mut History<P>>,
    never: &mut Never<P>,
) {
    // Start the threads one at a time, each up to its first operation.
    // A job is handed to its pool thread only now, with its slot already
    // running, so that starting a role is one hand-over, not two (the
    // pool thread's wake-up for the job, then another to start). Jobs
    // not handed over when the execution stops early are dropped unrun.
    for (worker, (role, job)) in jobs.into_iter().enumerate() {
        shared.lock().slots[role] = Slot::Running;
        pool.run(worker, job);
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
    let mut closed = Closed::default();
    // Answers given without a choice (closes seen), bounded like steps so
    // that a role that ignores them in a loop cannot run for ever.
    let mut answers = 0;
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
        if let Some((role, reply)) = closed.answer(obj, &pending, &shared.names) {
            answers += 1;
            if answers > limits.max_steps {
                run.end = End::Steps(limits.max_steps);
                return;
            }
            shared.lock().slots[role] = Slot::Reply(reply);
            if let Err(end) = let_run(shared, role, limits) {
                run.end = end;
                return;
            }
            if let Some(end) = panicked(shared) {
                run.end = end;
                return;
            }
            continue;
        }
        let alts = enabled(obj, &pending, prev, n);
        if let Some(h) = history.as_deref_mut() {
            h.objects.push(obj.clone());
            h.pending.push(pending.clone());
            h.alts.push(alts.clone());
        }
        // A send or close that the object can never accept ends the run
        // as a violation at once (see `violation.rs`).
        if let Some((role, op)) = pending
            .iter()
            .find(|(r, op)| !alts.iter().any(|a| a.role == *r) && never.never_accepted(obj, *r, op))
        {
            run.end = End::Violation {
                role: *role,
                op: waits_for(op, &shared.names),
            };
            return;
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
        closed.note(obj, &act);
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
