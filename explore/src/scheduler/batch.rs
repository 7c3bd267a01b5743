//! Executions back to back on the executor's thread ([`run_batch`]).
//!
//! One execution at a time cost two hand-overs between OS threads: the
//! explorer's thread handed each execution to the executor's (which runs
//! the roles, see `executor.rs`) and waited for it back, a third of an
//! execution's CPU time in the kernel. The explorer's thread stays out
//! of the roles' way so that it can report a role stuck in its own code
//! instead of hanging with it; but it need not meet the executor for
//! every execution. The executor runs a batch's executions one after the
//! other, calling the program right before each (`call.rs`: the program
//! is borrowed, not `'static`) and making the search's decisions between
//! them ([`Search`]), so the threads meet once a batch.
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
//! of one where a failure would stop the search. The program is called
//! once an execution, right before it, as one at a time: a batch changes
//! nothing a program or its roles can see but the thread the program is
//! called on.

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
use super::super::stuck::{Turn, TurnWatch};
use super::super::visible::Visibility;
use super::call::{Closing, Gate, Program};
use super::execution::{
    collect, drop_unstarted, executor_worker, names_of, new_run, start, take, take_kept, Setting,
    Started, Taken,
};
use super::{Kept, Run, RunLimits};

/// The most executions run back to back on the executor's thread between
/// two meetings with the explorer's: past a few dozen the hand-over is
/// noise, and a longer batch only holds more results back from the
/// explorer's thread (its progress lines, its checks of the limits).
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

/// The executions of one batch, in order, with what each gave (`finish`
/// of [`run_batch`]); the search back; and whether it has an execution
/// left after the last one run.
pub(crate) struct Batch<S, V> {
    pub(crate) runs: Vec<(Run, V)>,
    pub(crate) search: S,
    pub(crate) more: bool,
}

/// How a batch ended on the executor's thread: the search, what the next
/// execution keeps, whether the search has more; or the panic that
/// stopped it (the object's code, or the scheduler's).
type Ended<P, S> = Result<(S, Option<Kept<P>>, bool), Box<dyn Any + Send>>;

/// The execution running, watched by the explorer's thread.
struct Current<O> {
    shared: Arc<Shared>,
    /// Its spawned roles.
    spawned: Vec<RoleId>,
    /// What the program returned for it: the explorer's if it takes the
    /// execution over.
    observed: O,
}

/// What the executor's thread posts for the explorer's.
struct Posted<P, S, O, V> {
    current: Option<Current<O>>,
    /// The executions run before it.
    runs: Vec<(Run, V)>,
    end: Option<Ended<P, S>>,
}

struct Watch<P, S, O, V> {
    posted: Mutex<Posted<P, S, O, V>>,
    cv: Condvar,
}

impl<P, S, O, V> Watch<P, S, O, V> {
    fn lock(&self) -> MutexGuard<'_, Posted<P, S, O, V>> {
        self.posted.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Runs up to `n` executions of `program` back to back on the
/// executor's thread (fewer where the search ends or the exploration
/// stops), `search` deciding; thread roles run as coroutines. The
/// executor's thread calls the program right before each execution (see
/// `call.rs`), and `finish`es what it returned right after it, before
/// the next call.
#[allow(clippy::too_many_arguments)]
pub(crate) fn run_batch<P, F, O, S, V>(
    pool: &Pool,
    object: &P,
    program: &F,
    limits: RunLimits,
    visible: Option<&Arc<Visibility>>,
    search: S,
    n: usize,
    stop_on_failure: bool,
    finish: fn(&Run, O) -> V,
) -> Batch<S, V>
where
    P: Protocol,
    F: Fn(&mut Roles<'_, P>) -> O + Sync,
    O: Send + 'static,
    S: Search,
    V: Send + 'static,
{
    let kept = take_kept::<P>(pool);
    let names = names_of(kept.as_ref(), object);
    let gate = Arc::new(Gate::default());
    // Made before the program can reach the executor's thread, dropped
    // (closing the gate, waiting for a call under way) on every way out
    // of this function: the program's borrow outlives every call.
    let _closing = Closing(&gate);
    // SAFETY: `_closing` closes the gate before `program`'s borrow ends.
    let program = unsafe { Program::new(program, Arc::clone(&gate)) };
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
            finish,
        };
        Box::new(move || runner.run(&watch, &program, n.max(1), search, kept))
    };
    let worker = executor_worker(&names);
    pool.place(worker, job).open();
    let (runs, ended) = watch_batch(&watch, limits, pool, &names, finish);
    let (search, kept, more) = match ended {
        Ok(ended) => ended,
        // Nothing of the exploration is reported past a panic of the
        // program or the object's code: it is the caller's, as with one
        // execution.
        Err(payload) => resume_unwind(payload),
    };
    if let Some(kept) = kept {
        *pool.memo.borrow_mut() = Some(Box::new(kept));
    }
    Batch { runs, search, more }
}

/// What the executor's thread needs besides the program and the search.
struct Runner<P, O, V> {
    object: P,
    limits: RunLimits,
    visible: Option<Arc<Visibility>>,
    names: Arc<[String]>,
    stop_on_failure: bool,
    finish: fn(&Run, O) -> V,
}

impl<P: Protocol, O: Send, V> Runner<P, O, V> {
    /// The executor's thread's job: runs up to `n` executions and posts
    /// how the batch ended, unless the explorer took an execution over
    /// (this thread was then left behind).
    fn run<S: Search>(
        self,
        watch: &Watch<P, S, O, V>,
        program: &Program<P, O>,
        n: usize,
        search: S,
        kept: Option<Kept<P>>,
    ) {
        let ended = catch_unwind(AssertUnwindSafe(|| {
            self.executions(watch, program, n, search, kept)
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

    /// The executions; `None` if the explorer took one over (or closed
    /// the gate). A panic of the program unwinds out of here.
    fn executions<S: Search>(
        &self,
        watch: &Watch<P, S, O, V>,
        program: &Program<P, O>,
        n: usize,
        mut search: S,
        mut kept: Option<Kept<P>>,
    ) -> Option<(S, Option<Kept<P>>, bool)> {
        let setting = Setting {
            object: &self.object,
            limits: self.limits,
            visible: self.visible.as_ref(),
            names: &self.names,
        };
        let mut more = true;
        for _ in 0..n {
            let (mut roles, observed) = match program.call(&self.names)? {
                Ok(called) => called,
                Err(payload) => resume_unwind(payload),
            };
            search.begin();
            let mut run = new_run(self.limits);
            if let Some(e) = roles.error.take() {
                run.end = End::Program(e);
                let value = (self.finish)(&run, observed);
                watch.lock().runs.push((run, value));
                break;
            }
            let Started {
                shared,
                spawned,
                tasks,
                wake,
            } = start(&setting, roles, search, kept.take(), None);
            watch.lock().current = Some(Current {
                shared: Arc::clone(&shared),
                spawned,
                observed,
            });
            shared.wake(wake);
            if let Some(tasks) = tasks {
                executor::<P>(Arc::clone(&shared), tasks);
                // The executor quiets the roles' panics; the object's code
                // run from here on is not theirs, nor is the program's.
                engine::quiet::set_quiet(false);
            }
            drop_unstarted(&shared);
            let taken = take(&shared)?;
            // Not watched from here on: the program's next call is no
            // role's time (the explorer takes nothing over once `taken`).
            let observed = {
                let current = watch.lock().current.take();
                current.expect("the execution was posted").observed
            };
            if let Some(payload) = taken.fault {
                resume_unwind(payload);
            }
            let (run, back, k) = collect::<P, S>(taken, run, Arc::clone(&self.names), shared);
            search = back;
            kept = Some(k);
            let stop;
            (more, stop) = after(&mut search, &run, self.stop_on_failure);
            let value = (self.finish)(&run, observed);
            watch.lock().runs.push((run, value));
            if stop {
                break;
            }
        }
        Some((search, kept, more))
    }
}

/// What the explorer's thread found in one look at the execution running.
enum Look {
    /// Nothing to do before this instant.
    Until(Instant),
    /// Nothing to do until the batch posts something (no role time
    /// limit).
    Forever,
    /// Nothing to do (the execution ended, the executor goes on).
    Fine,
    /// The execution was stopped and its role holds the executor's
    /// thread: its result, taken from it, and the roles left behind.
    TakenOver(Taken, Vec<RoleId>),
}

/// Waits for the batch to end, watching its executions as the explorer
/// watches one (see `execution::run`); returns the executions run and how
/// the batch ended.
fn watch_batch<P: Protocol, S: Search, O, V>(
    watch: &Watch<P, S, O, V>,
    limits: RunLimits,
    pool: &Pool,
    names: &Arc<[String]>,
    finish: fn(&Run, O) -> V,
) -> (Vec<(Run, V)>, Ended<P, S>) {
    let grace = limits.role_timeout;
    let mut turns = TurnWatch::default();
    let mut posted = watch.lock();
    loop {
        if let Some(ended) = posted.end.take() {
            return (std::mem::take(&mut posted.runs), ended);
        }
        let current = posted
            .current
            .as_ref()
            .map(|c| (Arc::clone(&c.shared), c.spawned.clone()));
        drop(posted);
        // Nothing posted yet (the program is being called) or nothing to
        // do: look again within a quarter of the limit, as for a turn
        // (see `stuck.rs`), since an execution is posted without a
        // notification and its turns are timed from the first look.
        let mut until = Instant::now().checked_add(grace / 4);
        if let Some((shared, spawned)) = current {
            match look(&shared, &spawned, grace, &mut turns) {
                Look::Until(at) => until = Some(at),
                Look::Forever => until = None,
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
                    let (run, search, kept) =
                        collect::<P, S>(taken, run, Arc::clone(names), shared);
                    let mut posted = watch.lock();
                    let observed = posted
                        .current
                        .take()
                        .expect("the execution taken over")
                        .observed;
                    let mut runs = std::mem::take(&mut posted.runs);
                    drop(posted);
                    let value = finish(&run, observed);
                    runs.push((run, value));
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
fn look(shared: &Shared, spawned: &[RoleId], grace: Duration, turns: &mut TurnWatch) -> Look {
    let mut ctl = shared.lock();
    let stuck = if ctl.end.is_none() {
        match turns.look(ctl.turns, Instant::now(), grace) {
            Turn::LookBy(Some(at)) => return Look::Until(at),
            Turn::LookBy(None) => return Look::Forever,
            Turn::Stuck => {}
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
