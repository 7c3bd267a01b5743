//! What one failing execution was: its [`Outcome`], and the [`TraceStep`]s
//! and schedule of the [`Failure`] that reports it.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use protocols::session::{Deadlock, WaitsFor};

use crate::schedule::Schedule;

/// One action of an execution, as the protocol saw it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Action {
    /// The role sent a message of this type to `to`.
    Send {
        /// The receiver.
        to: String,
        /// The message's short type name.
        type_name: String,
    },
    /// The role received a message of this type from `from`.
    Recv {
        /// The sender.
        from: String,
        /// The message's short type name.
        type_name: String,
    },
    /// The role closed its channel to `to`.
    Close {
        /// The peer.
        to: String,
    },
    /// The role's program chose `value` among `of` values
    /// ([`choose`](crate::choose)); not an action of the protocol.
    Choose {
        /// The value chosen.
        value: usize,
        /// How many there were.
        of: usize,
    },
}

/// One numbered step of a trace: who did what.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TraceStep {
    /// The role that acted.
    pub role: String,
    /// What it did.
    pub action: Action,
}

impl fmt::Display for TraceStep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.action {
            Action::Send { to, type_name } => {
                write!(f, "{} sends <{type_name}> to {to}", self.role)
            }
            Action::Recv { from, type_name } => {
                write!(f, "{} receives <{type_name}> from {from}", self.role)
            }
            Action::Close { to } => write!(f, "{} closes its channel to {to}", self.role),
            Action::Choose { value, of } => {
                write!(f, "{} chooses {value} (of 0..{of})", self.role)
            }
        }
    }
}

/// How an execution (or the exploration) went wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Nothing could move while some roles waited at their endpoints. The
    /// waiting endpoints got `Err(Deadlock)` with this report, as in a
    /// [`Session`](protocols::session::Session); panics that followed from
    /// that error are part of the deadlock.
    Deadlock {
        /// Who waited for what.
        deadlock: Arc<Deadlock>,
    },
    /// A role asked for an operation that the protocol can never accept
    /// from where it is, reported as soon as that is certain: a send or
    /// close that no sequence of the other roles' actions makes
    /// acceptable (found by a bounded search of the object's states, even
    /// while the other roles could still go on), or any operation still
    /// waiting when the protocol has terminated and nothing else can
    /// move. A receive waiting for a message the protocol will not
    /// deliver is a [`Deadlock`](Outcome::Deadlock) instead (it does
    /// nothing illegal).
    Violation {
        /// The role.
        role: String,
        /// The operation it asked for.
        operation: WaitsFor,
    },
    /// A role's code panicked (a failed assertion, an `expect`).
    Panicked {
        /// The role.
        role: String,
        /// The panic message.
        message: String,
        /// Where it panicked (`file:line:column`), if known.
        location: Option<String>,
    },
    /// Every role returned, but the protocol had not terminated.
    Unfinished {
        /// The roles the object says have not finished their part.
        not_finished: Vec<String>,
    },
    /// The execution's trace violates the property given with
    /// [`Explorer::property`](crate::Explorer::property) (checked under
    /// the stutter semantics).
    PropertyViolated {
        /// The formula.
        formula: String,
    },
    /// A bound on one execution was hit (`max_steps`, or a limit of the
    /// property check): this execution was cut short, and the exploration
    /// is then not complete. The exploration's own bounds
    /// (`max_executions`, the timeout) are no failure of the program: they
    /// only make it incomplete ([`Exploration::incomplete_reason`](crate::Exploration::incomplete_reason)).
    Aborted {
        /// Which bound, with its value.
        reason: String,
    },
    /// A role did not reach an endpoint operation (or return) within the
    /// role time limit ([`Explorer::role_timeout`](crate::Explorer::role_timeout)):
    /// blocked or busy outside the session (a `Condvar`, a lock, a sleep,
    /// a busy loop)? Threads may share nothing but the session. Also
    /// reported for a role that does not return within that time after
    /// its execution was stopped. Nothing can stop a thread from outside,
    /// so the exploration stops, and leaves the thread running
    /// ([`Exploration::threads_left_running`](crate::Exploration::threads_left_running)).
    ///
    /// An async role ([`Roles::spawn_async`](crate::Roles::spawn_async))
    /// whose task returns `Pending` without awaiting a session operation
    /// (a timer, I/O, a `tokio::sync` primitive, a future never woken) is
    /// reported as stuck at once, with `waited` zero: nothing under
    /// exploration would ever complete what it awaits. Its task is
    /// dropped, so the exploration goes on.
    Stuck {
        /// The role.
        role: String,
        /// How long it was given (zero for an async role that awaits
        /// something other than a session operation).
        waited: Duration,
    },
    /// Running the same schedule again gave different choices: the
    /// program (or the object) is not deterministic given its messages,
    /// or a replayed schedule does not fit the program.
    Nondeterministic {
        /// The 1-based step at which the executions parted.
        step: usize,
        /// What was expected there.
        expected: String,
        /// What the program offered instead.
        found: String,
    },
}

impl Outcome {
    /// A short name of the kind of outcome (`deadlock`, `panic`, …).
    pub fn kind(&self) -> &'static str {
        match self {
            Outcome::Deadlock { .. } => "deadlock",
            Outcome::Violation { .. } => "protocol violation",
            Outcome::Panicked { .. } => "panic",
            Outcome::Unfinished { .. } => "unfinished protocol",
            Outcome::PropertyViolated { .. } => "property violated",
            Outcome::Aborted { .. } => "aborted",
            Outcome::Stuck { .. } => "role stuck outside the session",
            Outcome::Nondeterministic { .. } => "nondeterminism",
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Deadlock { deadlock } => deadlock.fmt(f),
            Outcome::Violation { role, operation } => write!(
                f,
                "protocol violation: {role} waits to {operation}, \
                 which the protocol can never accept from here, whatever the other roles do"
            ),
            Outcome::Panicked {
                role,
                message,
                location,
            } => {
                write!(f, "{role} panicked: {message}")?;
                if let Some(at) = location {
                    write!(f, " (at {at})")?;
                }
                Ok(())
            }
            Outcome::Unfinished { not_finished } => {
                write!(f, "every role returned but the protocol had not terminated")?;
                if !not_finished.is_empty() {
                    write!(f, " (not finished: {})", not_finished.join(", "))?;
                }
                Ok(())
            }
            Outcome::PropertyViolated { formula } => {
                write!(f, "the trace violates the property {formula}")
            }
            Outcome::Aborted { reason } => write!(f, "aborted: {reason}"),
            Outcome::Stuck { role, waited } if waited.is_zero() => write!(
                f,
                "{role} (an async role) awaits something other than a session \
                 operation (a timer, I/O, another runtime's primitive, a future \
                 never woken): under exploration only session operations complete"
            ),
            Outcome::Stuck { role, waited } => write!(
                f,
                "{role} did not reach an endpoint operation or return within {waited:?}: \
                 blocked or busy outside the session? (threads may share nothing \
                 but the session; raise the limit with Explorer::role_timeout or \
                 PRUST_ROLE_TIMEOUT)"
            ),
            Outcome::Nondeterministic {
                step,
                expected,
                found,
            } => write!(
                f,
                "nondeterminism at step {step}: expected {expected}, the program offered \
                 {found} (the roles must decide only on what they receive; a replayed \
                 schedule must be one this program printed)"
            ),
        }
    }
}

/// A failing execution: what went wrong, the schedule that leads there,
/// and the trace of the protocol's actions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// What went wrong.
    pub outcome: Outcome,
    /// The scheduling choices; replay them with
    /// [`Explorer::replay`](crate::Explorer::replay) or `PRUST_SCHEDULE`.
    pub schedule: Schedule,
    /// The actions performed, in order.
    pub trace: Vec<TraceStep>,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Some outcomes' own text already begins with their kind
        // (`protocol violation: …`, `deadlock: …`): say it once.
        let (kind, text) = (self.outcome.kind(), self.outcome.to_string());
        if text.starts_with(kind) {
            writeln!(f, "{text}")?;
        } else {
            writeln!(f, "{kind}: {text}")?;
        }
        if self.trace.is_empty() {
            writeln!(f, "  (no action happened)")?;
        }
        for (i, step) in self.trace.iter().enumerate() {
            writeln!(f, "  {:>3}. {step}", i + 1)?;
        }
        write!(f, "  schedule: {}", self.schedule)
    }
}
