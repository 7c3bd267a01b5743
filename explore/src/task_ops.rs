//! The endpoint's side of async roles: `poll_op` registers the operation
//! a task awaits (the role's pending operation, as a thread's call
//! publishes it) and is ready once the scheduler performed it; a blocking
//! call from inside a task cannot wait (the executor's thread runs every
//! task), so it is an error, except a close (see [`Task::deferred`]).
//!
//! [`Task::deferred`]: super::task::Task

use std::task::{Context, Poll};

use engine::RoleId;
use protocols::session::{AsyncOp, Done, Error, Request, ToRole};

use super::end::End;
use super::endpoint::{Ctl, ExploreEndpoint, Shared, Slot};
use super::op::{Op, Reply};
use super::task::Settled;

/// What a blocking call in an async role is told.
const BLOCKING_IN_TASK: &str = "block inside an async role's task (spawned with \
     Roles::spawn_async): await the operation's async form (send_async, recv_async, \
     poll_op) instead";

/// What an async call in a thread role is told.
const ASYNC_IN_THREAD: &str = "await a session operation in a role spawned with \
     Roles::spawn (its thread can only block): spawn the role with Roles::spawn_async";

impl Shared {
    /// A blocking call `op` of async role `role`, under the lock: a close
    /// is performed as the role's next operation, before anything its
    /// task awaits after it (a dropped channel `Sender` closes the
    /// blocking way, and its drop cannot wait); anything else fails.
    pub(crate) fn blocking_in_task(
        &self,
        ctl: &mut Ctl,
        role: RoleId,
        op: Op,
    ) -> Result<Reply, Error> {
        let task = ctl.tasks[role].as_mut().expect("an async role has a task");
        match op {
            Op::Close { .. } => {
                task.deferred.push_back(op);
                Ok(Reply::Done)
            }
            _ => Err(Error::Unsupported {
                role: self.names[role].clone(),
                what: BLOCKING_IN_TASK,
            }),
        }
    }

    /// Hands the scheduler's answer in `role`'s slot to its task: `true`
    /// if the task is to be polled; `false` if the answer was a deferred
    /// close's (the role's slot is then settled again, without a poll).
    /// A slot without an answer was answered in the registration itself
    /// (a receive of a merged select whose channel ended).
    pub(crate) fn deliver(&self, ctl: &mut Ctl, role: RoleId) -> bool {
        let Slot::Reply(reply) = std::mem::replace(&mut ctl.slots[role], Slot::Running) else {
            return true;
        };
        let task = ctl.tasks[role].as_mut().expect("an async role has a task");
        if task.deliver(reply) {
            return true;
        }
        self.settle_task(ctl, role);
        false
    }

    /// Sets `role`'s slot from what its task awaits, after a poll (or a
    /// deferred close); ends the execution if the task awaits nothing the
    /// scheduler can perform.
    pub(crate) fn settle_task(&self, ctl: &mut Ctl, role: RoleId) {
        let task = ctl.tasks[role].as_mut().expect("an async role has a task");
        match task.settle(&self.names) {
            Settled::Pending(op) => ctl.slots[role] = Slot::Pending(task.without_self(role, op)),
            Settled::Done => ctl.slots[role] = Slot::Done,
            Settled::Panicked(message) => ctl.slots[role] = Slot::Panicked(message),
            Settled::Awaiting => self.end(ctl, End::Awaiting { role }),
            Settled::Unsupported(why) => {
                let e = format!("role {}: {why}", self.names[role]);
                self.end(ctl, End::Program(e))
            }
        }
    }
}

impl<P> ExploreEndpoint<P> {
    /// See `BlockingEndpoint::poll_op` on [`ExploreEndpoint`].
    pub(crate) fn poll_task_op(
        &mut self,
        _cx: &mut Context<'_>,
        op: &mut AsyncOp,
    ) -> Poll<Result<Done, Error>> {
        let role = self.role;
        let names = &self.shared.names;
        let mut ctl = self.shared.lock();
        let stop = self.shared.stop_error(&ctl);
        let Some(task) = ctl.tasks[role].as_mut() else {
            return Poll::Ready(Err(Error::Unsupported {
                role: names[role].clone(),
                what: ASYNC_IN_THREAD,
            }));
        };
        if let Some(ticket) = op.ticket() {
            return match task.take_reply(ticket) {
                Some((asked, reply)) => {
                    op.set_ticket(None);
                    Poll::Ready(done(names, role, &asked, reply))
                }
                None if stop.is_some() => {
                    task.cancel(ticket);
                    op.set_ticket(None);
                    Poll::Ready(Err(stop.expect("matched")))
                }
                None => Poll::Pending,
            };
        }
        if let Some(e) = stop {
            return Poll::Ready(Err(e));
        }
        let Some(request) = op.take_request() else {
            return Poll::Ready(Err(Error::Aborted(format!(
                "{}: an async operation was polled again after it was ready",
                names[role]
            ))));
        };
        match to_op(names, role, request) {
            Ok(asked) => {
                op.set_ticket(Some(task.register(asked)));
                Poll::Pending
            }
            Err(e) => Poll::Ready(Err(e)),
        }
    }

    /// See `BlockingEndpoint::cancel_op` on [`ExploreEndpoint`].
    pub(crate) fn cancel_task_op(&mut self, op: &mut AsyncOp) {
        let Some(ticket) = op.ticket() else {
            return;
        };
        op.set_ticket(None);
        if let Some(task) = self.shared.lock().tasks[self.role].as_mut() {
            task.cancel(ticket);
        }
    }
}

/// The explorer's operation for `request`, with peers checked as the
/// blocking calls check them.
fn to_op(names: &[String], role: RoleId, request: Request) -> Result<Op, Error> {
    Ok(match request {
        Request::Send { to, msg } => Op::Send {
            to: to.to_peer(role, names, "send to")?,
            msg,
        },
        Request::Recv { from } => Op::Recv {
            from: match from {
                Some(f) => Some(f.to_peer(role, names, "receive from")?),
                None => None,
            },
        },
        Request::Close { to } => Op::Close {
            to: to.to_peer(role, names, "close its channel to")?,
        },
        Request::Select { alts } => {
            let mut resolved = Vec::with_capacity(alts.len());
            for a in alts {
                let a = a.resolved(names)?;
                a.from.to_peer(role, names, "receive from")?;
                resolved.push(a);
            }
            Op::Select { alts: resolved }
        }
        _ => {
            return Err(Error::Unsupported {
                role: names[role].clone(),
                what: "await this kind of operation",
            })
        }
    })
}

/// A performed operation's answer, as the async API gives it.
fn done(
    names: &[String],
    role: RoleId,
    asked: &Op,
    reply: Result<Reply, Error>,
) -> Result<Done, Error> {
    Ok(match reply? {
        Reply::Done => match asked {
            Op::Close { .. } => Done::Closed,
            _ => Done::Sent,
        },
        Reply::Received(from, msg) => Done::Received(from, msg),
        Reply::Selected(k, msg) => Done::Selected(k, msg),
        Reply::Ended => {
            return Err(Error::Closed {
                role: names[role].clone(),
                from: match asked {
                    Op::Recv { from: Some(f) } => Some(names[*f].clone()),
                    _ => None,
                },
            })
        }
        Reply::Chose(_) => unreachable!("a task awaits no choice"),
    })
}
