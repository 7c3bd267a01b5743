//! What the scheduler sees of an async role ([`Roles::spawn_async`]):
//! the session operations its task awaits, registered by its polls
//! ([`Task`]), turned into the one pending operation of the role, and the
//! scheduler's answer handed back to the registration it is for.
//!
//! A task awaiting one operation has exactly the pending operation a
//! thread calling it would have, so the same program gives the same
//! schedules as threads or as tasks. A task awaiting several receives at
//! once (a `select!` or `join!` over `recv_async`s) has one pending
//! select over all of them, as a blocking `select` over alternatives is:
//! each alternative a choice. The alternatives are ordered by sender and
//! type, not by registration: the order in which the task polled its
//! futures (random in `tokio::select!`) must not change what a choice
//! index means on a replay.
//!
//! [`Roles::spawn_async`]: super::Roles::spawn_async

use std::collections::VecDeque;

use engine::RoleId;
use protocols::session::{Alternative, Error};

use super::op::{Op, Reply};

/// One session operation a task awaits: its future holds `ticket`.
#[derive(Debug)]
pub(crate) struct Reg {
    pub(crate) ticket: u64,
    pub(crate) op: Op,
    /// The scheduler's answer, until the future's next poll takes it.
    pub(crate) reply: Option<Result<Reply, Error>>,
}

/// Which registration alternative `k` of a merged select stands for, and
/// how its answer reads for that registration.
#[derive(Debug, Clone, Copy)]
struct Route {
    ticket: u64,
    /// The registration's own alternative (for a select), `None` for a
    /// receive (answered with the sender).
    inner: Option<usize>,
    from: RoleId,
}

/// The executor's record of one async role in one execution.
#[derive(Debug, Default)]
pub(crate) struct Task {
    pub(crate) regs: Vec<Reg>,
    next_ticket: u64,
    /// Closes called the blocking way from inside a poll (a dropped
    /// channel `Sender`'s close), in program order: each is the role's
    /// next operation before what the task awaits. Their results are not
    /// waited for (the call returned at once): a close that fails stops
    /// the execution with its own outcome.
    pub(crate) deferred: VecDeque<Op>,
    /// Whether the role's pending operation is `deferred`'s first.
    on_deferred: bool,
    /// The alternatives of the pending merged select (empty when the task
    /// awaits one operation).
    routes: Vec<Route>,
    /// The future returned `Ready`.
    pub(crate) finished: bool,
    /// The task panicked, with this message: reported once the closes it
    /// called before are performed (a thread's would have been).
    pub(crate) panicked: Option<String>,
    /// Why the task cannot be explored, if it did something the executor
    /// cannot model (a future dropped after its operation was performed).
    pub(crate) unsupported: Option<String>,
}

/// What the role's slot becomes after a poll (or after a deferred close
/// was performed).
pub(crate) enum Settled {
    Pending(Op),
    Done,
    Panicked(String),
    /// Pending with no session operation to wait for: the task awaits
    /// something else.
    Awaiting,
    /// Something the executor cannot model (several operations at once
    /// that are not all receives, a performed operation dropped).
    Unsupported(String),
}

impl Task {
    /// Registers `op`: the ticket its future keeps.
    pub(crate) fn register(&mut self, op: Op) -> u64 {
        self.next_ticket += 1;
        self.regs.push(Reg {
            ticket: self.next_ticket,
            op,
            reply: None,
        });
        self.next_ticket
    }

    /// The answer for `ticket`, if the scheduler gave it: the registration
    /// is then gone. `None` while it waits.
    pub(crate) fn take_reply(&mut self, ticket: u64) -> Option<(Op, Result<Reply, Error>)> {
        let i = self.regs.iter().position(|r| r.ticket == ticket)?;
        self.regs[i].reply.as_ref()?;
        let reg = self.regs.swap_remove(i);
        Some((reg.op, reg.reply?))
    }

    /// Gives up `ticket` (its future was dropped): it has done nothing,
    /// unless the scheduler had performed it (then the executor says it
    /// cannot model the program, rather than lose what it did).
    pub(crate) fn cancel(&mut self, ticket: u64) {
        let Some(i) = self.regs.iter().position(|r| r.ticket == ticket) else {
            return;
        };
        if self.regs.swap_remove(i).reply.is_some_and(|r| r.is_ok()) {
            self.unsupported.get_or_insert_with(|| {
                "a task dropped the future of a session operation that had been \
                 performed (a select whose other branch, not a session operation, \
                 was ready in the same poll): its result would be lost, which a \
                 real session never does"
                    .into()
            });
        }
    }

    /// For a merged select: answers the first registration that `answer`
    /// answers without a choice (a receive whose channel was closed and
    /// is empty, which a real session makes ready at once, whatever the
    /// other registrations wait for). `true` if one was answered.
    pub(crate) fn answer_each(
        &mut self,
        mut answer: impl FnMut(&Op) -> Option<Result<Reply, Error>>,
    ) -> bool {
        if self.routes.is_empty() {
            return false;
        }
        for reg in &mut self.regs {
            if let Some(reply) = answer(&reg.op) {
                reg.reply = Some(reply);
                return true;
            }
        }
        false
    }

    /// The role's pending operation now, as the scheduler is to see it.
    pub(crate) fn settle(&mut self, names: &[String]) -> Settled {
        self.routes.clear();
        self.on_deferred = false;
        if let Some(op) = self.deferred.front() {
            self.on_deferred = true;
            return Settled::Pending(op.clone());
        }
        if let Some(message) = self.panicked.take() {
            return Settled::Panicked(message);
        }
        if let Some(why) = self.unsupported.take() {
            return Settled::Unsupported(why);
        }
        if self.finished {
            return Settled::Done;
        }
        // An answer the task did not take: it waits on something else.
        if self.regs.is_empty() || self.regs.iter().any(|r| r.reply.is_some()) {
            return Settled::Awaiting;
        }
        if let [one] = &self.regs[..] {
            return Settled::Pending(one.op.clone());
        }
        let mut alts: Vec<(Alternative, Route)> = Vec::new();
        for reg in &self.regs {
            match &reg.op {
                Op::Recv { from: Some(f) } => alts.push((
                    Alternative::sender(*f),
                    Route {
                        ticket: reg.ticket,
                        inner: None,
                        from: *f,
                    },
                )),
                Op::Recv { from: None } => {
                    // Which role the task runs is not known here; the
                    // caller drops its own role's alternative below.
                    alts.extend((0..names.len()).map(|f| {
                        (
                            Alternative::sender(f),
                            Route {
                                ticket: reg.ticket,
                                inner: None,
                                from: f,
                            },
                        )
                    }))
                }
                Op::Select { alts: options } => {
                    alts.extend(options.iter().enumerate().map(|(k, a)| {
                        (
                            a.clone(),
                            Route {
                                ticket: reg.ticket,
                                inner: Some(k),
                                from: a.from,
                            },
                        )
                    }))
                }
                _ => {
                    return Settled::Unsupported(
                        "a task awaits a send or close together with other session \
                         operations; under exploration a task may await several \
                         receives at once, or one operation of any kind"
                            .into(),
                    )
                }
            }
        }
        // Ordered by what they receive, not by when the task polled them;
        // a tie (the same receive awaited twice) keeps registration order.
        alts.sort_by(|(a, ra), (b, rb)| {
            (a.from, a.type_name.as_deref(), ra.ticket).cmp(&(
                b.from,
                b.type_name.as_deref(),
                rb.ticket,
            ))
        });
        self.routes = alts.iter().map(|(_, r)| *r).collect();
        Settled::Pending(Op::Select {
            alts: alts.into_iter().map(|(a, _)| a).collect(),
        })
    }

    /// Drops the alternatives from `role` itself (a receive from anyone
    /// in a merged select names every role).
    pub(crate) fn without_self(&mut self, role: RoleId, op: Op) -> Op {
        match op {
            Op::Select { alts } if !self.routes.is_empty() => {
                let (alts, routes) = alts
                    .into_iter()
                    .zip(std::mem::take(&mut self.routes))
                    .filter(|(a, _)| a.from != role)
                    .unzip();
                self.routes = routes;
                Op::Select { alts }
            }
            op => op,
        }
    }

    /// Hands the scheduler's `reply` to the registration(s) it answers.
    /// `false`: it answered a deferred close, which nobody polls for.
    pub(crate) fn deliver(&mut self, reply: Result<Reply, Error>) -> bool {
        if self.on_deferred {
            self.on_deferred = false;
            self.deferred.pop_front();
            return false;
        }
        if self.routes.is_empty() {
            if let Some(reg) = self.regs.first_mut() {
                reg.reply = Some(reply);
            }
            return true;
        }
        match reply {
            Ok(Reply::Selected(k, msg)) => {
                let route = self.routes[k];
                if let Some(reg) = self.regs.iter_mut().find(|r| r.ticket == route.ticket) {
                    reg.reply = Some(Ok(match route.inner {
                        Some(j) => Reply::Selected(j, msg),
                        None => Reply::Received(route.from, msg),
                    }));
                }
            }
            // Every alternative ended, or the execution stopped: every
            // registration gets the answer.
            other => {
                for reg in &mut self.regs {
                    reg.reply = Some(match &other {
                        Ok(Reply::Ended) => Ok(Reply::Ended),
                        Err(e) => Err(e.clone()),
                        Ok(_) => unreachable!("a select completes with a message"),
                    });
                }
            }
        }
        true
    }
}
