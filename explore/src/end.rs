//! How an execution ends, and what the endpoints of a stopped execution
//! are told: a leaf below the scheduler, the endpoints and the race
//! analysis, which all speak of it.

use std::sync::Arc;
use std::time::Duration;

use engine::RoleId;
use protocols::session::{Deadlock, Error, WaitsFor};

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
    /// An async role's task returned `Pending` with no session operation
    /// registered: it awaits something else (a timer, I/O, another
    /// runtime's primitive), which nothing under exploration completes.
    Awaiting {
        role: RoleId,
    },
    Diverged {
        step: usize,
        expected: String,
        found: String,
    },
    /// The program spawned a role the object does not have, or twice.
    Program(String),
}

impl End {
    /// Whether the execution went as far as it could: every role returned
    /// or waits with nothing able to move. A panic or a violation stops
    /// the other roles where they are; a bound or the sleep sets cut the
    /// execution short.
    pub(crate) fn is_maximal(&self) -> bool {
        matches!(
            self,
            End::Success | End::Deadlock(_) | End::Unfinished { .. }
        )
    }
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
        End::Awaiting { role } => Error::Aborted(format!(
            "role {} awaits something other than a session operation",
            names[*role]
        )),
        _ => Error::Aborted("the execution was stopped".into()),
    }
}
