//! How an execution ends when nothing can move, the error stopped
//! endpoints get, and waiting for every role thread to return.

use std::sync::Arc;
use std::time::{Duration, Instant};

use engine::{Protocol, RoleId};
use protocols::session::{Blocked, Deadlock, Error, WaitsFor};

use super::endpoint::{Ctl, Op, Shared, Slot};
use super::scheduler::End;

/// What a pending operation waits for, by role names (named as the
/// sessions name them: [`WaitsFor`]'s constructors are the one place).
pub(crate) fn waits_for(op: &Op, names: &[String]) -> WaitsFor {
    match op {
        Op::Send { to, msg } => WaitsFor::send(*to, msg, names),
        Op::Recv { from } => WaitsFor::recv(*from, names),
        Op::Close { to } => WaitsFor::close(*to, names),
        Op::Select { alts } => WaitsFor::select(alts, names),
        Op::Choose { .. } => unreachable!("a choice is always enabled, so never waited on"),
    }
}

/// How an execution ends when nothing can move.
pub(crate) fn stuck_end<P: Protocol>(
    ctl: &Ctl,
    names: &[String],
    obj: &P,
    pending: &[(RoleId, Op)],
) -> End {
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
pub(crate) fn stop_error(names: &[String], end: &End) -> Error {
    match end {
        End::Deadlock(d) => Error::Deadlock(Arc::clone(d)),
        // Not a deadlock: the other roles may still have been able to go
        // on (a violation is reported as soon as it is certain).
        End::Violation { role, op } => Error::Aborted(format!(
            "protocol violation: {} waits to {op}, which the protocol can never accept",
            names[*role]
        )),
        End::Steps(n) => Error::Aborted(format!("the execution reached {n} steps")),
        End::Time => Error::Aborted("the exploration's time ran out".into()),
        End::Stuck { role, .. } => Error::Aborted(format!(
            "role {} did not reach an endpoint operation in time",
            names[*role]
        )),
        End::Panicked { role, .. } => Error::Aborted(format!("role {} panicked", names[*role])),
        _ => Error::Aborted("the execution was stopped".into()),
    }
}

/// Waits for every thread to end (after [`Shared::end`]); says on stderr which
/// one it is still waiting for, so that a hang has a name.
pub(crate) fn finish(shared: &Shared, spawned: &[RoleId], grace: Duration) {
    let finished = |ctl: &Ctl| {
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
