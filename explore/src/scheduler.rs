//! Running one execution: the role threads, one at a time, and the
//! object, driven by a [`Chooser`] at every scheduling point. The
//! decisions are made by [`Exec::step`] on whichever role thread just
//! reached an operation (see `endpoint.rs`); the explorer's thread sets
//! the execution up, waits for its end, and collects the result.

use std::any::Any;
use std::marker::PhantomData;
use std::sync::Arc;
use std::time::{Duration, Instant};

use engine::{Protocol, RoleId};

use super::chooser::{Chooser, Decision};
use super::closed::Closed;
use super::dpor::History;
use super::enabled::{perform, Listing};
use super::end::{stop_error, End};
use super::ending::{finish, panicked};
use super::endpoint::{Ctl, ExploreEndpoint, Next, RoleBody, Shared, Slot, Step, Wake};
use super::executor::executor;
use super::independence::independent;
use super::op::Op;
use super::point::{self, pending_ops, same_pending, survey, Point, Spare};
use super::pool::{Job, Pool};
use super::roles::Body;
use super::roles::Roles;
use super::step::{Act, Alt};
use super::task::Task;
use super::violation::Never;
use super::visible::Visibility;
use threads::{gates_of_threads, role_thread};

/// The limits of one execution: the exploration's [`engine::Limits`]
/// with their defaults applied, and its deadline.
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
    /// A hash of the object at the end (see
    /// [`Exploration::final_states`](super::Exploration::final_states)).
    pub(crate) final_state: u64,
    /// Threads woken to run a role (role starts and switches): what the
    /// execution paid in context switches.
    pub(crate) handovers: usize,
    /// Scheduling points whose enabled choices were taken from the
    /// previous execution's record instead of probed (see [`Kept`]).
    pub(crate) recorded: usize,
    /// The roles whose threads did not return after the execution was
    /// stopped (blocked or busy outside the session): left running, cut
    /// off from everything but their own, stopped execution.
    pub(crate) left_behind: Vec<RoleId>,
    /// How long each role was given to return after the stop (the role
    /// time limit).
    pub(crate) role_timeout: Duration,
}

/// What the scheduler of one execution owns: the object, the chooser,
/// what has happened so far. Moved into the execution's shared state for
/// its length, and back to the explorer at its end.
struct Exec<P, C> {
    obj: P,
    chooser: C,
    limits: RunLimits,
    /// The exploration's deadline, ticked at every step and kept across
    /// executions (see [`Kept`]): the clock is read about once a
    /// millisecond, not at every step, where it was a twentieth of an
    /// execution's work once roles stopped being threads.
    clock: engine::Deadline,
    trace: Vec<Act>,
    schedule: Vec<Alt>,
    history: Option<History<P>>,
    /// How many leading scheduling points of `history` were recorded by
    /// the previous execution, which this one replays (see [`Kept`]).
    reuse: usize,
    /// How many points took their enabled choices from the record.
    recorded: usize,
    never: Box<Never<P>>,
    listing: Listing,
    closed: Closed,
    /// The role that made the last step.
    prev: Option<RoleId>,
    /// Answers given without a choice (closes seen), bounded like steps
    /// so that a role that ignores them in a loop cannot run for ever.
    answers: usize,
    /// The spawned roles, in order, and how many have been started: they
    /// start one at a time, each up to its first operation.
    spawned: Vec<RoleId>,
    started: usize,
    /// Under a property, the actions it sees (see `independence`).
    visible: Option<Arc<Visibility>>,
    /// The allocations of the last point's pending operations and
    /// choices where no history keeps them (see [`Spare`]).
    spare: Spare,
}

/// What the scheduler keeps across the executions of one exploration
/// (in [`Pool::memo`], typed by the object, hence `Any` there).
struct Kept<P> {
    /// The answers of `violation.rs`.
    never: Box<Never<P>>,
    /// The object's declared types, for reading its list of enabled
    /// actions.
    listing: Listing,
    /// The object's role names.
    names: Arc<[String]>,
    /// The exploration's deadline.
    clock: engine::Deadline,
    /// The last execution's length: the next one's trace and schedule
    /// are allocated that long at once instead of growing step by step.
    steps: usize,
    /// The last execution's DPOR history (`None` without DPOR). A
    /// depth-first search re-runs the same prefix of choices (the
    /// chooser's [`HbCache::keep`](super::dpor::HbCache)), so the objects,
    /// pending operations and enabled choices of those scheduling points
    /// are the ones recorded last time (the `Protocol` contract: equal
    /// calls on equal objects give equal results). Reusing them spares,
    /// at each replayed point, the probes on object clones that find the
    /// enabled choices and the clone kept for the race analysis: most of
    /// an execution's own work.
    history: Option<History<P>>,
}

/// Runs one execution of `program` on a clone of `object`, with
/// `chooser` deciding; gives the chooser back with the result, and what
/// the program returned (its handles are filled once the roles returned).
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
    let kept = pool.memo.borrow_mut().take().map(|m| {
        *m.downcast::<Kept<P>>()
            .expect("one object type per exploration")
    });
    // Asked of the object once per exploration: its role names went into
    // eight allocations an execution.
    let names = match &kept {
        Some(k) => Arc::clone(&k.names),
        None => Arc::from(object.roles()),
    };
    // 'static: the bodies may outlive the execution (a role stuck outside
    // the session is left behind), and a program takes roles of any
    // lifetime, so this costs it nothing.
    let mut roles: Roles<'static, P> = Roles::new(Arc::clone(&names));
    let observed = program(&mut roles);
    let mut run = Run {
        trace: Vec::new(),
        schedule: Vec::new(),
        end: End::Success,
        terminated: false,
        final_state: 0,
        handovers: 0,
        recorded: 0,
        left_behind: Vec::new(),
        role_timeout: limits.role_timeout,
    };
    if let Some(e) = roles.error.take() {
        run.end = End::Program(e);
        return (run, chooser, observed);
    }
    let shared = Arc::new(Shared::new(Arc::clone(&names)));
    let spawned: Vec<RoleId> = roles.bodies.iter().map(|(r, _)| *r).collect();
    let (never, listing, clock, history, steps) = match kept {
        Some(k) => (k.never, k.listing, Some(k.clock), k.history, k.steps),
        None => (Box::new(Never::new()), Listing::new(), None, None, 0),
    };
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
    let exec = Exec {
        obj: object.clone(),
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
        spawned: spawned.clone(),
        started: 0,
        visible: visible.cloned(),
        spare: Spare::default(),
    };
    // Each job waits in its pool thread until its role starts; the async
    // roles' tasks all go to the executor's thread, after the role threads.
    let executor_worker = spawned.len();
    let mut tasks = Vec::new();
    let mut gates = Vec::new();
    let mut coroutines = Vec::new();
    for (worker, (role, body)) in roles.bodies.into_iter().enumerate() {
        match body {
            Body::Thread(body) if pool.os_threads => {
                let shared = Arc::clone(&shared);
                let job: Job = Box::new(move || role_thread(role, body, shared));
                gates.push((role, Some(pool.place(worker, job))));
            }
            Body::Thread(body) => {
                let start = move |shared| {
                    body(ExploreEndpoint {
                        role,
                        shared,
                        _object: PhantomData,
                    })
                };
                coroutines.push((role, RoleBody(Box::new(start))));
                gates.push((role, None));
            }
            Body::Async(body) => {
                tasks.push((role, body));
                gates.push((role, None));
            }
        }
    }
    let has_tasks = !tasks.is_empty() || !coroutines.is_empty();
    let executor_gate = has_tasks.then(|| {
        let shared = Arc::clone(&shared);
        let job: Job = Box::new(move || executor::<P>(shared, tasks));
        pool.place(executor_worker, job)
    });
    let mut ctl = shared.lock();
    for (role, body) in coroutines {
        ctl.coroutines[role] = true;
        ctl.bodies[role] = Some(body);
    }
    for (role, gate) in gates {
        ctl.slots[role] = Slot::NotStarted;
        if gate.is_none() && !ctl.coroutines[role] {
            ctl.tasks[role] = Some(Task::default());
        }
        ctl.gates[role] = gate;
    }
    ctl.executor_running = has_tasks;
    ctl.exec = Some(Box::new(exec));
    // The first decision (start the first role) is made here; the others
    // on the role threads and the executor's.
    let wake = shared.advance(&mut ctl, None);
    if matches!(wake, Wake::Task) {
        ctl.handovers += 1;
    }
    drop(ctl);
    if let Some(gate) = executor_gate {
        gate.open();
    }
    shared.wake(wake);
    let mut ctl = shared.lock();
    let mut stuck = None;
    loop {
        if ctl.end.is_some() {
            break;
        }
        // A role that runs its own code too long without reaching an
        // operation: blocked outside the session?
        let now = Instant::now();
        let deadline = ctl.since + limits.role_timeout;
        if now >= deadline {
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
        }
        ctl = shared.wait_until(ctl, Some(deadline));
    }
    let unstarted = std::mem::take(&mut ctl.unstarted);
    let unrun: Vec<RoleBody> = unstarted
        .iter()
        .filter_map(|&r| ctl.bodies[r].take())
        .collect();
    drop(ctl);
    // Dropped without the lock: what they own may call an endpoint.
    drop(unrun);
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
    let (exec, end, fault) = {
        let mut ctl = shared.lock();
        run.handovers = ctl.handovers;
        (ctl.exec.take(), ctl.end.take(), ctl.fault.take())
    };
    if let Some(payload) = fault {
        std::panic::resume_unwind(payload);
    }
    let exec = exec
        .expect("the scheduler's state is back after the execution")
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
        ..
    } = *exec;
    run.recorded = recorded;
    run.trace = trace;
    run.schedule = schedule;
    run.end = end.expect("the execution has ended");
    if let (Some(h), true) = (&history, chooser.wants_races()) {
        let cache = chooser.hb_cache();
        let backtracks = super::dpor::after_run(h, &run.schedule, &run.end, cache);
        chooser.add_backtracks(backtracks);
    }
    *pool.memo.borrow_mut() = Some(Box::new(Kept {
        never,
        listing,
        names,
        clock,
        steps: run.trace.len(),
        history,
    }));
    run.terminated = obj.is_terminated();
    run.final_state = fingerprint(&obj);
    (run, chooser, observed)
}

/// A hash of `obj` that is the same for equal objects throughout the
/// process (`DefaultHasher::new` has fixed keys), so that two
/// explorations' final states compare.
fn fingerprint<P: Protocol>(obj: &P) -> u64 {
    use std::hash::Hasher;
    let mut h = std::hash::DefaultHasher::new();
    obj.hash(&mut h);
    h.finish()
}

impl<P: Protocol, C: Chooser + Send + 'static> Step for Exec<P, C> {
    fn channel_types(&self, from: RoleId, to: RoleId) -> Option<Vec<String>> {
        self.obj.channel_types(from, to)
    }

    fn may_close(&self, from: RoleId, to: RoleId) -> Option<bool> {
        self.obj.may_close(from, to)
    }

    fn step(&mut self, ctl: &mut Ctl, names: &[String]) -> Next {
        if let Some(end) = panicked(ctl) {
            return Next::End(end);
        }
        if let Some(&role) = self.spawned.get(self.started) {
            self.started += 1;
            return Next::Start(role);
        }
        let obj = &mut self.obj;
        // The pending operations (cloned): only wanted where a close may
        // answer one, or at a point not recorded before.
        let mut pending = None;
        if self.closed.any() {
            let now = pending_ops(ctl);
            if let Some((role, reply)) = self.closed.answer(obj, &now, names) {
                self.answers += 1;
                if self.answers > self.limits.max_steps {
                    return Next::End(End::Steps(self.limits.max_steps));
                }
                ctl.slots[role] = Slot::Reply(reply);
                return Next::Resume(role);
            }
            // A task awaiting several receives: one whose channel ended is
            // answered at once, as a real session makes it ready.
            for (role, _) in &now {
                let Some(task) = ctl.tasks[*role].as_mut() else {
                    continue;
                };
                let closed = &self.closed;
                let obj = &*obj;
                if task.answer_each(|op| {
                    closed
                        .answer(obj, &[(*role, op.clone())], names)
                        .map(|(_, r)| r)
                }) {
                    self.answers += 1;
                    if self.answers > self.limits.max_steps {
                        return Next::End(End::Steps(self.limits.max_steps));
                    }
                    // Answered in the task's registration, not the slot.
                    ctl.slots[*role] = Slot::Running;
                    return Next::Resume(*role);
                }
            }
            pending = Some(now);
        }
        let step = self.trace.len();
        // A point the previous execution recorded (the same choices led
        // here): its enabled choices are known, and it was no violation
        // and not stuck (that execution went on from it).
        let recorded = step < self.reuse
            && self
                .history
                .as_ref()
                .is_some_and(|h| same_pending(&h.pending[step], &ctl.slots));
        // This point's operations and choices when there is no history
        // to keep them in.
        let mut local: Option<Point> = None;
        if recorded {
            self.recorded += 1;
        } else {
            let mut now = self.spare.pending();
            point::pending(pending.as_deref(), ctl, &mut now);
            let never = &mut self.never;
            let (alts, end) = match survey(
                obj,
                &now,
                ctl,
                names,
                (self.prev, step),
                &mut self.listing,
                never,
                std::mem::take(&mut self.spare.alts),
            ) {
                Ok(found) => found,
                Err(end) => return Next::End(end),
            };
            match self.history.as_mut() {
                Some(h) => {
                    // From here on, this execution records its own points.
                    self.reuse = self.reuse.min(step);
                    h.objects.truncate(step);
                    h.pending.truncate(step);
                    h.alts.truncate(step);
                    h.objects.push(obj.clone());
                    h.pending
                        .push(now.iter().map(|(r, op)| (*r, (*op).clone())).collect());
                    h.alts.push(alts);
                }
                None => local = Some((now, alts)),
            }
            if let Some(end) = end {
                return Next::End(end);
            }
        }
        let history = &self.history;
        let alts: &[Alt] = match (history, &local) {
            (_, Some((_, a))) => a,
            (Some(h), None) => &h.alts[step],
            (None, None) => unreachable!("a point is recorded only with a history"),
        };
        if step >= self.limits.max_steps {
            return Next::End(End::Steps(self.limits.max_steps));
        }
        if self.clock.expired() {
            return Next::End(End::Time);
        }
        let op_of = |alt: Alt| -> &Op {
            let found = match (history, &local) {
                (_, Some((p, _))) => p.iter().find(|(r, _)| *r == alt.role).map(|(_, op)| *op),
                (Some(h), None) => h.pending[step]
                    .iter()
                    .find(|(r, _)| *r == alt.role)
                    .map(|(_, op)| op),
                (None, None) => None,
            };
            found.expect("an enabled choice is a pending operation")
        };
        let probe = |i: usize, j: usize| {
            independent(
                &*obj,
                (alts[i], op_of(alts[i])),
                (alts[j], op_of(alts[j])),
                self.visible.as_deref(),
            )
        };
        let i = match self.chooser.choose(step, alts, self.prev, &probe) {
            Decision::Take(i) => i,
            Decision::Redundant => return Next::End(End::Redundant),
            Decision::Diverged { expected, found } => {
                return Next::End(End::Diverged {
                    step: step + 1,
                    expected,
                    found,
                })
            }
        };
        let alt = alts[i];
        // The point's vectors go back for the next point's (a history
        // keeps its own): two allocations a step less.
        if let Some((now, alts)) = local {
            self.spare.keep(now, alts);
        }
        // The operation as this execution's role called it (its payload),
        // not as recorded: taken from its slot (which gets the reply
        // below), not cloned.
        let Slot::Pending(op) = std::mem::replace(&mut ctl.slots[alt.role], Slot::Running) else {
            unreachable!("an enabled choice is a pending operation")
        };
        let Some((act, reply)) = perform(obj, alt, op) else {
            let end = End::Diverged {
                step: step + 1,
                expected: "the object to accept the operation its clone accepted".into(),
                found: "a refusal: the object is not deterministic (see the Protocol contract)"
                    .into(),
            };
            // Its operation was taken from the slot: the role gets the
            // stopped execution's error as every pending one does.
            ctl.slots[alt.role] = Slot::Reply(Err(stop_error(names, &end)));
            return Next::End(end);
        };
        self.closed.note(obj, &act);
        self.trace.push(act);
        self.schedule.push(alt);
        self.prev = Some(alt.role);
        ctl.slots[alt.role] = Slot::Reply(Ok(reply));
        Next::Resume(alt.role)
    }

    fn into_any(self: Box<Self>) -> Box<dyn Any> {
        self
    }
}

mod threads;

#[cfg(test)]
mod tests;
