//! Running executions: the roles, one at a time, and the object, driven
//! by a [`Chooser`] at every scheduling point. The decisions are made by
//! [`Exec::step`] wherever a role just reached an operation (see
//! `endpoint.rs`). One execution at a time (`execution.rs`: the
//! explorer's thread sets it up, waits for its end and collects the
//! result), or a batch back to back on the executor's thread
//! (`batch.rs`), the explorer's thread watching.

use std::any::Any;
use std::sync::Arc;
use std::time::{Duration, Instant};

use engine::{Protocol, RoleId};

use super::chooser::{Chooser, Decision};
use super::closed::Closed;
use super::dpor::History;
use super::enabled::{perform, Listing};
use super::end::{stop_error, End};
use super::ending::panicked;
use super::endpoint::{Ctl, Next, Slot, Step};
use super::independence::independent;
use super::op::Op;
use super::point::{self, pending_ops, same_pending, survey, Point, Spare};
use super::step::{Act, Alt};
use super::violation::Never;
use super::visible::Visibility;

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
    /// The object's declared types, for asking it which actions are
    /// enabled.
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
    /// The last execution's shared state, made again for the next (see
    /// [`Shared::renewed`](super::endpoint::Shared::renewed)).
    shared: Option<Arc<super::endpoint::Shared>>,
    /// The last execution's spare vectors (see [`Spare`]).
    spare: Spare,
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
                // The vectors stay for the next execution's points.
                if let Some((now, alts)) = local {
                    self.spare.keep(now, alts);
                }
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

mod batch;
mod call;
mod execution;
mod threads;

pub(crate) use batch::{after, run_batch, Batch, Search, MAX_BATCH};
pub(crate) use execution::run;

#[cfg(test)]
mod tests;
