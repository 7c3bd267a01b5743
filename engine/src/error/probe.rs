//! Errors of probing protocol code, and their translation into the
//! [`Error`]s a user reads: the search adds the trace that led there.

use crate::ids::LetterId;

use super::Error;

/// Why probing a state failed; the search adds the trace.
#[derive(Debug)]
pub(crate) enum ProbeError {
    Panic {
        letter: LetterId,
        message: String,
    },
    Nondeterminism {
        letter: LetterId,
        detail: String,
    },
    Contract {
        letter: LetterId,
        detail: String,
    },
    /// The object's Clone, Hash or Eq panicked while the engine probed
    /// `letter` (cloned the state to probe it, or stored its successor).
    Object {
        op: ObjectOp,
        letter: LetterId,
        /// The object's type name.
        object: &'static str,
        message: String,
    },
    /// An error at something that is not a letter: `enabled()` itself, or
    /// a probe along a pair of roles that is not a channel (the
    /// determinism check's); `action` names it for people.
    Other {
        action: String,
        panic: bool,
        detail: String,
    },
}

/// Which of the object's own operations panicked during a probe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ObjectOp {
    /// Cloning the state to probe (each probe runs on a clone).
    Clone,
    /// Hashing or comparing the successor to store it.
    HashEq,
}

/// The counterexample is built by re-probing stored states; when a state
/// or cycle that the search found cannot be found again, the object
/// answered the same probe differently the second time. Without the
/// determinism check nothing names the action, so say how to find it.
pub(crate) fn lost(trace: Vec<String>) -> Error {
    Error::Nondeterminism {
        action: "re-exploring the stored states to build the counterexample".to_string(),
        detail: "gave other successors than during the search (a state or cycle the search \
                 found cannot be reached again); rerun with the determinism check \
                 (PRUST_DETERMINISM=1) to find the action"
            .to_string(),
        trace,
    }
}

impl ProbeError {
    /// The error a user reads: the probe named by `describe` (the
    /// alphabet's [`describe_probe`](crate::alphabet::Alphabet::describe_probe)),
    /// with the `trace` of actions that led to the probed state.
    pub(crate) fn into_error(
        self,
        describe: impl FnOnce(LetterId) -> String,
        trace: Vec<String>,
    ) -> Error {
        match self {
            ProbeError::Panic { letter, message } => Error::ProtocolPanic {
                action: describe(letter),
                message,
                trace,
            },
            ProbeError::Object {
                op,
                letter,
                object,
                message,
            } => Error::ObjectPanic {
                object: object.to_string(),
                operation: match op {
                    // Which probe the clone was for is not known (a walk
                    // clones before its first probe): the trace says where.
                    ObjectOp::Clone => "Clone (of the state reached, to probe it)".to_string(),
                    ObjectOp::HashEq => format!(
                        "Hash or Eq (storing the state that `{}` leads to)",
                        describe(letter)
                    ),
                },
                message,
                trace,
            },
            ProbeError::Nondeterminism { letter, detail } => Error::Nondeterminism {
                action: describe(letter),
                detail,
                trace,
            },
            ProbeError::Contract { letter, detail } => Error::Contract {
                action: describe(letter),
                detail,
                trace,
            },
            ProbeError::Other {
                action,
                panic: true,
                detail,
            } => Error::ProtocolPanic {
                action,
                message: detail,
                trace,
            },
            ProbeError::Other { action, detail, .. } => Error::Contract {
                action,
                detail,
                trace,
            },
        }
    }
}
