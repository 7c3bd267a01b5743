//! One execution in parts: the setup of the execution's shared state
//! ([`start`]), and the collection of its result ([`take`], [`collect`]).
//! [`run`] puts them around the program's call ([`prepare`]) and a watch
//! on the explorer's thread, one execution at a time (role threads only,
//! `Explorer::role_threads`); `batch.rs` runs executions back to back on
//! the executor's thread, which calls the program itself (`call.rs`).

use std::any::Any;
use std::sync::Arc;
use std::time::Instant;

use engine::{Protocol, RoleId};

use super::super::chooser::Chooser;
use super::super::end::End;
use super::super::ending::finish;
use super::super::endpoint::{RoleBody, Shared, Slot, Step, Wake};
use super::super::executor::{executor, AsyncBody};
use super::super::pool::{Job, Pool};
use super::super::roles::{Body, Roles};
use super::super::stuck::{Turn, TurnWatch};
use super::super::task::Task;
use super::super::visible::Visibility;
use super::threads::{gates_of_threads, role_thread};
use super::{Closed, Exec, Kept, Listing, Never, Run, RunLimits, Spare};

/// What [`Kept`] the pool holds for the next execution, if any.
pub(super) fn take_kept<P: Protocol>(pool: &Pool) -> Option<Kept<P>> {
    pool.memo.borrow_mut().take().map(|m| {
        *m.downcast::<Kept<P>>()
            .expect("one object type per exploration")
    })
}

/// The object's role names: asked once per exploration (they went into
/// eight allocations an execution).
pub(super) fn names_of<P: Protocol>(kept: Option<&Kept<P>>, object: &P) -> Arc<[String]> {
    match kept {
        Some(k) => Arc::clone(&k.names),
        None => Arc::from(object.roles()),
    }
}

/// Calls the program once: the roles it spawned (their bodies `'static`:
/// they may outlive the execution, a role stuck outside the session is
/// left behind, and a program takes roles of any lifetime, so this costs
/// it nothing), and what it returned.
pub(super) fn prepare<P, F, O>(program: &F, names: &Arc<[String]>) -> (Roles<'static, P>, O)
where
    P: Protocol,
    F: Fn(&mut Roles<'_, P>) -> O,
{
    let mut roles: Roles<'static, P> = Roles::new(Arc::clone(names));
    let observed = program(&mut roles);
    (roles, observed)
}

/// An execution's result before it has run.
pub(super) fn new_run(limits: RunLimits) -> Run {
    Run {
        trace: Vec::new(),
        schedule: Vec::new(),
        end: End::Success,
        terminated: false,
        final_state: 0,
        handovers: 0,
        recorded: 0,
        left_behind: Vec::new(),
        role_timeout: limits.role_timeout,
    }
}

/// An execution set up, its first decision made.
pub(super) struct Started<P: Protocol> {
    pub(super) shared: Arc<Shared>,
    pub(super) spawned: Vec<RoleId>,
    /// The async roles' tasks for the executor, which runs the coroutine
    /// roles too (`None`: no role runs on the executor).
    pub(super) tasks: Option<Vec<(RoleId, AsyncBody<'static, P>)>>,
    /// Whom the first decision wakes.
    pub(super) wake: Wake,
}

/// The parts of an execution that do not change between its executions.
pub(super) struct Setting<'a, P> {
    pub(super) object: &'a P,
    pub(super) limits: RunLimits,
    pub(super) visible: Option<&'a Arc<Visibility>>,
    pub(super) names: &'a Arc<[String]>,
}

/// Sets up the execution of `roles` (without error) on a clone of the
/// object, with `chooser` deciding, and makes its first decision (start
/// the first role). Thread roles run on `threads`' pool threads if given
/// (`Explorer::role_threads`), else as coroutines on the executor.
pub(super) fn start<P, C>(
    setting: &Setting<'_, P>,
    roles: Roles<'static, P>,
    chooser: C,
    kept: Option<Kept<P>>,
    threads: Option<&Pool>,
) -> Started<P>
where
    P: Protocol,
    C: Chooser + Send + 'static,
{
    let limits = setting.limits;
    let visible = setting.visible;
    let spawned: Vec<RoleId> = roles.bodies.iter().map(|(r, _)| *r).collect();
    let (never, listing, clock, history, steps, shared, spare) = match kept {
        Some(k) => (
            k.never,
            k.listing,
            Some(k.clock),
            k.history,
            k.steps,
            k.shared,
            k.spare,
        ),
        None => (
            Box::new(Never::new()),
            Listing::new(),
            None,
            None,
            0,
            None,
            Spare::default(),
        ),
    };
    let shared = shared.unwrap_or_else(|| Arc::new(Shared::new(Arc::clone(setting.names))));
    let clock = clock
        .filter(|c| c.at() == limits.deadline)
        .unwrap_or_else(|| engine::Deadline::new(limits.deadline, Instant::now(), 64));
    let mut chooser = chooser;
    let (history, reuse) = match chooser.wants_races() {
        false => (None, 0),
        true => {
            let mut h = history.unwrap_or_default();
            // The first `keep` steps are the same, so the records of the
            // points before them and of the point after them are too.
            let keep = chooser.hb_cache().map_or(0, |c| c.keep + 1);
            let reuse = keep.min(h.objects.len());
            h.objects.truncate(reuse);
            h.pending.truncate(reuse);
            h.alts.truncate(reuse);
            h.visible = visible.cloned();
            (Some(h), reuse)
        }
    };
    let mut spare = spare;
    let mut to_start = std::mem::take(&mut spare.spawned);
    to_start.clear();
    to_start.extend_from_slice(&spawned);
    let exec = Exec {
        obj: setting.object.clone(),
        history,
        reuse,
        recorded: 0,
        chooser,
        limits,
        clock,
        trace: Vec::with_capacity(steps),
        schedule: Vec::with_capacity(steps),
        never,
        listing,
        closed: Closed::default(),
        prev: None,
        answers: 0,
        spawned: to_start,
        started: 0,
        visible: visible.cloned(),
        spare,
    };
    // Each job waits in its pool thread until its role starts (placing it
    // does not wait, so it is done under the lock); the async roles'
    // tasks and the coroutines all go to the executor. Written into the
    // shared state directly: lists of them made first were two
    // allocations an execution.
    let mut tasks = Vec::new();
    let mut coroutines = false;
    let mut ctl = shared.lock();
    for (worker, (role, body)) in roles.bodies.into_iter().enumerate() {
        ctl.slots[role] = Slot::NotStarted;
        ctl.gates[role] = None;
        match (body, threads) {
            (Body::Thread(body), Some(pool)) => {
                let shared = Arc::clone(&shared);
                let job: Job = Box::new(move || role_thread(role, body, shared));
                ctl.gates[role] = Some(pool.place(worker, job));
            }
            (Body::Thread(body), None) => {
                coroutines = true;
                ctl.coroutines[role] = true;
                ctl.bodies[role] = Some(RoleBody(body));
            }
            (Body::Async(body), _) => {
                tasks.push((role, body));
                ctl.tasks[role] = Some(Task::default());
            }
        }
    }
    let has_tasks = !tasks.is_empty() || coroutines;
    ctl.executor_running = has_tasks;
    ctl.exec = Some(Box::new(exec));
    // The first decision (start the first role) is made here; the others
    // on the role threads and the executor's.
    let wake = shared.advance(&mut ctl, None);
    if matches!(wake, Wake::Task) {
        ctl.handovers += 1;
    }
    drop(ctl);
    Started {
        shared,
        spawned,
        tasks: has_tasks.then_some(tasks),
        wake,
    }
}

/// Drops the bodies of the coroutine roles never started (without the
/// lock: what they own may call an endpoint); returns the roles never
/// started.
pub(super) fn drop_unstarted(shared: &Shared) -> Vec<RoleId> {
    let mut ctl = shared.lock();
    let unstarted = std::mem::take(&mut ctl.unstarted);
    let unrun: Vec<RoleBody> = unstarted
        .iter()
        .filter_map(|&r| ctl.bodies[r].take())
        .collect();
    drop(ctl);
    drop(unrun);
    unstarted
}

/// The scheduler's state of an ended execution, taken out of it by
/// whichever thread collects its result (the executor's, or the
/// explorer's when a role stuck outside the session holds the executor).
pub(super) struct Taken {
    exec: Box<dyn Step>,
    end: Option<End>,
    pub(super) fault: Option<Box<dyn Any + Send>>,
    handovers: usize,
}

/// Takes the scheduler's state out of `shared`; `None` if another thread
/// took it first.
pub(super) fn take(shared: &Shared) -> Option<Taken> {
    let mut ctl = shared.lock();
    let exec = ctl.exec.take()?;
    Some(Taken {
        exec,
        end: ctl.end.take(),
        fault: ctl.fault.take(),
        handovers: ctl.handovers,
    })
}

/// The result of the execution whose state is `taken` (its fault, if
/// any, dealt with by the caller), the chooser back, and what the next
/// execution keeps. `shared` is the execution's shared state, which the
/// next one reuses if nothing holds it any more.
pub(super) fn collect<P, C>(
    taken: Taken,
    mut run: Run,
    names: Arc<[String]>,
    shared: Arc<Shared>,
) -> (Run, C, Kept<P>)
where
    P: Protocol,
    C: Chooser + Send + 'static,
{
    run.handovers = taken.handovers;
    let exec = taken
        .exec
        .into_any()
        .downcast::<Exec<P, C>>()
        .expect("the execution's own scheduler");
    let Exec {
        obj,
        mut chooser,
        trace,
        schedule,
        history,
        never,
        listing,
        clock,
        recorded,
        mut spare,
        spawned: to_start,
        ..
    } = *exec;
    spare.spawned = to_start;
    run.recorded = recorded;
    run.trace = trace;
    run.schedule = schedule;
    run.end = taken.end.expect("the execution has ended");
    if let (Some(h), true) = (&history, chooser.wants_races()) {
        let cache = chooser.hb_cache();
        let backtracks = super::super::dpor::after_run(h, &run.schedule, &run.end, cache);
        chooser.add_backtracks(backtracks);
    }
    let kept = Kept {
        never,
        listing,
        shared: Shared::renewed(shared, &names),
        names,
        clock,
        steps: run.trace.len(),
        history,
        spare,
    };
    run.terminated = obj.is_terminated();
    run.final_state = fingerprint(&obj);
    (run, chooser, kept)
}

/// Runs one execution of `program` on a clone of `object`, with
/// `chooser` deciding, the explorer's thread watching it; gives the
/// chooser back with the result, and what the program returned (its
/// handles are filled once the roles returned).
pub(crate) fn run<P, F, C, O>(
    pool: &Pool,
    object: &P,
    program: &F,
    limits: RunLimits,
    chooser: C,
    visible: Option<&Arc<Visibility>>,
) -> (Run, C, O)
where
    P: Protocol,
    F: Fn(&mut Roles<'_, P>) -> O + Sync,
    C: Chooser + Send + 'static,
{
    let kept = take_kept::<P>(pool);
    let names = names_of(kept.as_ref(), object);
    let (mut roles, observed) = prepare(program, &names);
    let mut run = new_run(limits);
    if let Some(e) = roles.error.take() {
        run.end = End::Program(e);
        return (run, chooser, observed);
    }
    let setting = Setting {
        object,
        limits,
        visible,
        names: &names,
    };
    let threads = pool.os_threads.then_some(pool);
    let Started {
        shared,
        spawned,
        tasks,
        wake,
    } = start(&setting, roles, chooser, kept, threads);
    let executor_worker = executor_worker(&names);
    if let Some(tasks) = tasks {
        let shared = Arc::clone(&shared);
        let job: Job = Box::new(move || executor::<P>(shared, tasks));
        pool.place(executor_worker, job).open();
    }
    shared.wake(wake);
    let mut ctl = shared.lock();
    let mut stuck = None;
    let mut turns = TurnWatch::default();
    loop {
        if ctl.end.is_some() {
            break;
        }
        // A role that runs its own code too long without reaching an
        // operation: blocked outside the session?
        let look = turns.look(ctl.turns, Instant::now(), limits.role_timeout);
        let Turn::LookBy(again) = look else {
            let role = ctl.current;
            stuck = Some(role);
            shared.end(
                &mut ctl,
                End::Stuck {
                    role,
                    waited: limits.role_timeout,
                },
            );
            drop(ctl);
            shared.wake(Wake::Everyone);
            ctl = shared.lock();
            break;
        };
        ctl = shared.wait_until(ctl, again);
    }
    drop(ctl);
    let unstarted = drop_unstarted(&shared);
    // The jobs of roles never started are dropped unrun, before waiting
    // for the others: a running role may wait for what they own.
    pool.clear(
        unstarted
            .iter()
            .filter_map(|r| spawned.iter().position(|s| s == r)),
    );
    // Every started job has returned after this, or its thread is given up
    // (a new one takes its place): the pool's threads are free for the
    // next execution.
    run.left_behind = finish(&shared, &spawned, limits.role_timeout, stuck);
    let mut executor_left = false;
    for role in &run.left_behind {
        if let Some(worker) = spawned.iter().position(|s| s == role) {
            if gates_of_threads(&shared, *role) {
                pool.abandon(worker);
            } else if !executor_left {
                executor_left = true;
                pool.abandon(executor_worker);
            }
        }
    }
    let taken = take(&shared).expect("the scheduler's state is back after the execution");
    if let Some(payload) = taken.fault {
        std::panic::resume_unwind(payload);
    }
    let (run, chooser, kept) = collect::<P, C>(taken, run, names, shared);
    *pool.memo.borrow_mut() = Some(Box::new(kept));
    (run, chooser, observed)
}

/// The pool place of the executor's thread: after every role's thread
/// (`Explorer::role_threads`), the same for every execution of an
/// exploration, so that one thread serves them all.
pub(super) fn executor_worker(names: &[String]) -> usize {
    names.len()
}

/// A hash of `obj` that is the same for equal objects throughout the
/// process (a fixed seed), so that two explorations' final states
/// compare: foldhash's quality variant, a quarter of the instructions
/// of SipHash (`DefaultHasher`, which was 3.6% of an execution's on the
/// bench's mailbox), with the same 64 bits of output.
fn fingerprint<P: Protocol>(obj: &P) -> u64 {
    use std::hash::BuildHasher;
    const SEED: u64 = 0x2545_f491_4f6c_dd1d;
    foldhash::quality::FixedState::with_seed(SEED).hash_one(obj)
}
