//! Executions back to back on the executor's thread ([`run_batch`]).
//!
//! One execution at a time cost two hand-overs between OS threads: the
//! explorer's thread handed each execution to the executor's (which runs
//! the roles, see `executor.rs`) and waited for it back, a third of an
//! execution's CPU time in the kernel. The explorer's thread stays out
//! of the roles' way so that it can report a role stuck in its own code
//! instead of hanging with it; but it need not meet the executor for
//! every execution. It calls the program ahead for a batch (the program
//! is not `'static`, the role bodies it spawns are), and the executor
//! runs the batch's executions one after the other, making the search's
//! decisions between them ([`Search`]), so the threads meet once a batch.
//!
//! The explorer's thread meanwhile watches the execution running (the
//! executor publishes each one as it starts): a role that runs its own
//! code past the role time limit is stopped and reported as before, and
//! if it holds the executor's thread, the explorer takes the
//! execution's result out of its shared state itself, with the search's
//! state (the chooser lives there), and leaves that thread behind.
//!
//! A batch stops where the explorer would stop after one of its
//! executions (the same predicates, [`Run::stops_exploration`] and
//! [`Run::fails_without_property`]), so the executions run and reported
//! are those of one execution at a time. What a batch cannot know is
//! whether a property fails; `enumerate` and `sampling` then run batches
//! of one where a failure would stop the search. Bodies of a batch not
//! run because the search ended are dropped unstarted: the program may
//! be called a few more times than there were executions.

use std::any::Any;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use engine::{Protocol, RoleId};

use super::super::chooser::Chooser;
use super::super::end::End;
use super::super::ending::finish;
use super::super::endpoint::{Shared, Wake};
use super::super::executor::executor;
use super::super::pool::{Job, Pool};
use super::super::roles::Roles;
use super::super::visible::Visibility;
use super::execution::{
    collect, drop_unstarted, executor_worker, names_of, new_run, prepare, start, take, take_kept,
    Setting, Started, Taken,
};
use super::{Kept, Run, RunLimits};

/// The most executions run back to back on the executor's thread between
/// two meetings with the explorer's: past a few dozen the hand-over is
/// noise, and a longer batch only calls the program more times ahead.
pub(crate) const MAX_BATCH: usize = 64;

/// A search whose executions can run back to back on the executor's
/// thread: it makes its between-execution decisions there.
pub(crate) trait Search: Chooser + Send + 'static {
    /// Before each execution.
    fn begin(&mut self);
    /// After each execution, before anything else is decided.
    fn ran(&mut self, _run: &Run) {}
    /// Moves on to the next execution after one the exploration goes on
    /// from; `false` when none is left.
    fn next(&mut self) -> bool;
}

impl Run {
    /// Whether the exploration stops after this execution whatever the
    /// search has left: a role out of time, stuck outside the session or
    /// diverged, a thread left behind (running on could leave one behind
    /// per execution), or an error of the program.
    pub(crate) fn stops_exploration(&self) -> bool {
        matches!(
            self.end,
            End::Time | End::Stuck { .. } | End::Diverged { .. } | End::Program(_)
        ) || !self.left_behind.is_empty()
    }

    /// Whether this execution is a failure when no property is checked
    /// (with one, a success may fail it too).
    pub(crate) fn fails_without_property(&self) -> bool {
        !self.left_behind.is_empty()
            || !matches!(self.end, End::Success | End::Time | End::Redundant)
    }
}

/// After `run`: whether the search has another execution, and whether a
/// batch must stop here (the explorer stops after this execution, or
/// may: its failure with `stop_on_failure`).
pub(crate) fn after<S: Search>(search: &mut S, run: &Run, stop_on_failure: bool) -> (bool, bool) {
    search.ran(run);
    if run.stops_exploration() {
        return (true, true);
    }
    let more = search.next();
    (
        more,
        !more || (stop_on_failure && run.fails_without_property()),
    )
}

/// The executions of one batch, in order, with what the program returned
/// for each; the search back; and whether it has an execution left after
/// the last one run.
pub(crate) struct Batch<S, O> {
    pub(crate) runs: Vec<(Run, O)>,
    pub(crate) search: S,
    pub(crate) more: bool,
}

/// How a batch ended on the executor's thread: the search, what the next
/// execution keeps, whether the search has more; or the panic that
/// stopped it (the object's code, or the scheduler's).
type Ended<P, S> = Result<(S, Option<Kept<P>>, bool), Box<dyn Any + Send>>;

/// What the executor's thread posts for the explorer's.
struct Posted<P, S> {
    /// The execution running, and its spawned roles: watched.
    current: Option<(Arc<Shared>, Vec<RoleId>)>,
    /// The executions run before it.
    runs: Vec<Run>,
    end: Option<Ended<P, S>>,
}

struct Watch<P, S> {
    posted: Mutex<Posted<P, S>>,
    cv: Condvar,
}

impl<P, S> Watch<P, S> {
    fn lock(&self) -> MutexGuard<'_, Posted<P, S>> {
        self.posted.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Runs up to `n` executions of `program` back to back on the
/// executor's thread (fewer where the search ends or the exploration
/// stops), `search` deciding; thread roles run as coroutines.
/// `deferred`: the panic of a call of the program ahead of its execution,
/// raised by the next batch.
#[allow(clippy::too_many_arguments)]
pub(crate) fn run_batch<P, F, O, S>(
    pool: &Pool,
    object: &P,
    program: &F,
    limits: RunLimits,
    visible: Option<&Arc<Visibility>>,
    search: S,
    n: usize,
    stop_on_failure: bool,
    deferred: &mut Option<Box<dyn Any + Send>>,
) -> Batch<S, O>
where
    P: Protocol,
    F: Fn(&mut Roles<'_, P>) -> O + Sync,
    S: Search,
{
    if let Some(payload) = deferred.take() {
        // The program's call for this execution panicked ahead of it.
        resume_unwind(payload);
    }
    let kept = take_kept::<P>(pool);
    let names = names_of(kept.as_ref(), object);
    let mut bodies = Vec::with_capacity(n);
    let mut observed = Vec::with_capacity(n);
    for i in 0..n.max(1) {
        // A call ahead of its execution panics where that execution is
        // due (the next batch), not now: the search may end before.
        let (roles, o) = match i {
            0 => prepare(program, &names),
            _ => match catch_unwind(AssertUnwindSafe(|| prepare(program, &names))) {
                Ok(prepared) => prepared,
                Err(payload) => {
                    *deferred = Some(payload);
                    break;
                }
            },
        };
        let wrong = roles.error.is_some();
        bodies.push(roles);
        observed.push(o);
        if wrong {
            // The exploration stops at this one with the program's error.
            break;
        }
    }
    let watch = Arc::new(Watch {
        posted: Mutex::new(Posted {
            current: None,
            runs: Vec::new(),
            end: None,
        }),
        cv: Condvar::new(),
    });
    let job: Job = {
        let watch = Arc::clone(&watch);
        let object = object.clone();
        let visible = visible.cloned();
        let names = Arc::clone(&names);
        let runner = Runner {
            object,
            limits,
            visible,
            names,
            stop_on_failure,
        };
        Box::new(move || runner.run(&watch, bodies, search, kept))
    };
    let worker = executor_worker(&names);
    pool.place(worker, job).open();
    let (runs, ended) = watch_batch::<P, S>(&watch, limits, pool, &names);
    let (search, kept, more) = match ended {
        Ok(ended) => ended,
        // Nothing of the exploration is reported past a panic of the
        // object's code: it is the caller's, as with one execution.
        Err(payload) => resume_unwind(payload),
    };
    if let Some(kept) = kept {
        *pool.memo.borrow_mut() = Some(Box::new(kept));
    }
    // The program's returns for executions not run are dropped here.
    Batch {
        runs: runs.into_iter().zip(observed).collect(),
        search,
        more,
    }
}

/// What the executor's thread needs besides the batch's bodies.
struct Runner<P> {
    object: P,
    limits: RunLimits,
    visible: Option<Arc<Visibility>>,
    names: Arc<[String]>,
    stop_on_failure: bool,
}

impl<P: Protocol> Runner<P> {
    /// The executor's thread's job: runs `bodies`' executions and posts
    /// how the batch ended, unless the explorer took an execution over
    /// (this thread was then left behind).
    fn run<S: Search>(
        self,
        watch: &Watch<P, S>,
        bodies: Vec<Roles<'static, P>>,
        search: S,
        kept: Option<Kept<P>>,
    ) {
        let ended = catch_unwind(AssertUnwindSafe(|| {
            self.executions(watch, bodies, search, kept)
        }));
        let ended = match ended {
            Ok(Some(ended)) => Ok(ended),
            Ok(None) => return,
            Err(payload) => Err(payload),
        };
        let mut posted = watch.lock();
        posted.current = None;
        posted.end = Some(ended);
        drop(posted);
        watch.cv.notify_all();
    }

    /// The executions; `None` if the explorer took one over.
    fn executions<S: Search>(
        &self,
        watch: &Watch<P, S>,
        bodies: Vec<Roles<'static, P>>,
        mut search: S,
        mut kept: Option<Kept<P>>,
    ) -> Option<(S, Option<Kept<P>>, bool)> {
        let setting = Setting {
            object: &self.object,
            limits: self.limits,
            visible: self.visible.as_ref(),
            names: &self.names,
        };
        let mut last: Option<Run> = None;
        let mut more = true;
        for mut roles in bodies {
            search.begin();
            let mut run = new_run(self.limits);
            if let Some(e) = roles.error.take() {
                run.end = End::Program(e);
                watch.lock().runs.extend(last.replace(run));
                break;
            }
            let Started {
                shared,
                spawned,
                tasks,
                wake,
            } = start(&setting, roles, search, kept.take(), None);
            {
                let mut posted = watch.lock();
                posted.runs.extend(last.take());
                posted.current = Some((Arc::clone(&shared), spawned));
            }
            shared.wake(wake);
            if let Some(tasks) = tasks {
                executor::<P>(Arc::clone(&shared), tasks);
                // The executor quiets the roles' panics; the object's code
                // run from here on is not theirs.
                engine::quiet::set_quiet(false);
            }
            drop_unstarted(&shared);
            let taken = take(&shared)?;
            if let Some(payload) = taken.fault {
                resume_unwind(payload);
            }
            let (run, back, k) = collect::<P, S>(taken, run, Arc::clone(&self.names));
            search = back;
            kept = Some(k);
            let stop;
            (more, stop) = after(&mut search, &run, self.stop_on_failure);
            last = Some(run);
            if stop {
                break;
            }
        }
        watch.lock().runs.extend(last);
        Some((search, kept, more))
    }
}

/// What the explorer's thread found in one look at the execution running.
enum Look {
    /// Nothing to do before this instant.
    Until(Instant),
    /// Nothing to do (the execution ended, the executor goes on).
    Fine,
    /// The execution was stopped and its role holds the executor's
    /// thread: its result, taken from it, and the roles left behind.
    TakenOver(Taken, Vec<RoleId>),
}

/// Waits for the batch to end, watching its executions as the explorer
/// watches one (see `execution::run`); returns the executions run and how
/// the batch ended.
fn watch_batch<P: Protocol, S: Search>(
    watch: &Watch<P, S>,
    limits: RunLimits,
    pool: &Pool,
    names: &Arc<[String]>,
) -> (Vec<Run>, Ended<P, S>) {
    let grace = limits.role_timeout;
    let mut posted = watch.lock();
    loop {
        if let Some(ended) = posted.end.take() {
            return (std::mem::take(&mut posted.runs), ended);
        }
        let current = posted.current.clone();
        drop(posted);
        let mut until = Instant::now().checked_add(grace);
        if let Some((shared, spawned)) = current {
            match look(&shared, &spawned, grace) {
                Look::Until(at) => until = Some(at),
                Look::Fine => {}
                Look::TakenOver(taken, left_behind) => {
                    // Its thread is left to the role; the pool gives the
                    // next job a new one.
                    pool.abandon(executor_worker(names));
                    if let Some(payload) = taken.fault {
                        return (Vec::new(), Err(payload));
                    }
                    let mut run = new_run(limits);
                    run.left_behind = left_behind;
                    let (run, search, kept) = collect::<P, S>(taken, run, Arc::clone(names));
                    let mut runs = std::mem::take(&mut watch.lock().runs);
                    runs.push(run);
                    return (runs, Ok((search, Some(kept), true)));
                }
            }
        }
        posted = watch.lock();
        if posted.end.is_none() {
            posted = wait(&watch.cv, posted, until);
        }
    }
}

/// Waits on `cv` until notified or until `until` (`None`: no limit).
fn wait<'a, T>(
    cv: &Condvar,
    guard: MutexGuard<'a, T>,
    until: Option<Instant>,
) -> MutexGuard<'a, T> {
    match until {
        None => cv.wait(guard).unwrap_or_else(|e| e.into_inner()),
        Some(at) => {
            let left = at.saturating_duration_since(Instant::now());
            cv.wait_timeout(guard, left.max(Duration::from_micros(1)))
                .unwrap_or_else(|e| e.into_inner())
                .0
        }
    }
}

/// One look at the execution running: a role past the role time limit
/// is stopped (reported stuck), and an execution stopped whose roles do
/// not return within the limit (stuck now, or earlier after the stop)
/// is taken over.
fn look(shared: &Shared, spawned: &[RoleId], grace: Duration) -> Look {
    let mut ctl = shared.lock();
    let stuck = if ctl.end.is_none() {
        let deadline = ctl.since + grace;
        if Instant::now() < deadline {
            return Look::Until(deadline);
        }
        let role = ctl.current;
        shared.end(
            &mut ctl,
            End::Stuck {
                role,
                waited: grace,
            },
        );
        drop(ctl);
        shared.wake(Wake::Everyone);
        Some(role)
    } else if ctl.executor_running {
        drop(ctl);
        None
    } else {
        return Look::Fine;
    };
    let left_behind = finish(shared, spawned, grace, stuck);
    if left_behind.is_empty() {
        // The executor's thread came back: it collects the execution.
        return Look::Fine;
    }
    match take(shared) {
        Some(taken) => Look::TakenOver(taken, left_behind),
        // It came back and took it first.
        None => Look::Fine,
    }
}
