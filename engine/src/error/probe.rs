//! Errors of probing protocol code, and their translation into the
//! [`Error`]s a user reads: the search adds the trace that led there.

use crate::alphabet::{ActionKind, Alphabet, LetterId};

use super::Error;

/// Why probing a state failed; the search adds the trace.
#[derive(Debug)]
pub(crate) enum ProbeError {
    Panic { letter: LetterId, message: String },
    Nondeterminism { letter: LetterId, detail: String },
    Contract { letter: LetterId, detail: String },
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

pub(crate) fn probe_error(alphabet: &Alphabet, e: ProbeError, trace: Vec<String>) -> Error {
    match e {
        ProbeError::Panic { letter, message } => Error::ProtocolPanic {
            action: describe_probe(alphabet, letter),
            message,
            trace,
        },
        ProbeError::Nondeterminism { letter, detail } => Error::Nondeterminism {
            action: describe_probe(alphabet, letter),
            detail,
            trace,
        },
        ProbeError::Contract { letter, detail } => Error::Contract {
            action: describe_probe(alphabet, letter),
            detail,
            trace,
        },
    }
}

/// A probe as people read it; receives are probed before their type is
/// known, so they are named without one.
pub(crate) fn describe_probe(alphabet: &Alphabet, letter: LetterId) -> String {
    if letter == alphabet.end() {
        // Asked of a state where nothing is enabled (END or DEADLOCK).
        return "is_terminated()".to_string();
    }
    let l = alphabet.letter(letter);
    if l.kind == ActionKind::Recv {
        format!(
            "{} RECV FROM {}",
            alphabet.roles[l.role], alphabet.roles[l.peer]
        )
    } else {
        alphabet.describe(letter)
    }
}
