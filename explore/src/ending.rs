//! How an execution ends when nothing can move, the error stopped
//! endpoints get, and waiting for every role thread to return.

use std::sync::Arc;
use std::time::{Duration, Instant};

use engine::{Protocol, RoleId};
use protocols::session::{Blocked, Deadlock, WaitsFor};

use super::end::End;
use super::endpoint::{Ctl, Shared, Slot};
use super::op::Op;

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
    pending: &[(RoleId, &Op)],
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

/// Waits for the started threads to return (after [`Shared::end`]): each
/// gets `grace` from now, as long as a role may run its own code between
/// two operations, except `stuck`, which already had that and is not
/// waited for. Returns the roles whose threads have not returned: they
/// are blocked or busy outside the session, where nothing can stop them,
/// and are left behind (see `Pool::abandon`).
pub(crate) fn finish(
    shared: &Shared,
    spawned: &[RoleId],
    grace: Duration,
    stuck: Option<RoleId>,
) -> Vec<RoleId> {
    // An async role's code runs only while the executor polls its task;
    // the executor's thread itself is waited for until it has dropped the
    // tasks (unless it is stuck in a poll).
    let returned = |ctl: &Ctl, r: RoleId| {
        matches!(ctl.slots[r], Slot::Done | Slot::Panicked(_))
            || ((ctl.tasks[r].is_some() || ctl.coroutines[r]) && ctl.polling != Some(r))
    };
    let mut ctl = shared.lock();
    // A deadline too far to represent (an unlimited role time) is none.
    let deadline = Instant::now().checked_add(grace);
    loop {
        let executor_done = !ctl.executor_running || ctl.polling.is_some_and(|r| Some(r) == stuck);
        if executor_done
            && spawned
                .iter()
                .all(|&r| Some(r) == stuck || returned(&ctl, r))
        {
            break;
        }
        if deadline.is_some_and(|at| Instant::now() >= at) {
            break;
        }
        ctl = shared.wait_until(ctl, deadline);
    }
    spawned
        .iter()
        .copied()
        .filter(|&r| !returned(&ctl, r))
        .collect()
}

/// A panic recorded in a slot, if any.
pub(crate) fn panicked(ctl: &Ctl) -> Option<End> {
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
