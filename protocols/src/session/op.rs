//! What both sessions share below their endpoints: the operation a
//! blocking call performs (kept whole across refusals, so that a refused
//! send keeps its message for the next try), how it is named in a deadlock
//! report, and a lock that does not care about poisoning.

use std::sync::{Mutex, MutexGuard};

use engine::{Message, RoleId};

use super::{Alternative, WaitsFor};

/// One blocking call's operation, handed back by a refused try.
pub(super) enum Op {
    Send { to: RoleId, msg: Message },
    Recv { from: Option<RoleId> },
    Close { to: RoleId },
    Select { alts: Vec<Alternative> },
}

impl Op {
    /// What a role blocked on this operation waits for, by role names.
    pub(super) fn waits_for(&self, names: &[String]) -> WaitsFor {
        match self {
            Op::Send { to, msg } => WaitsFor::send(*to, msg, names),
            Op::Recv { from } => WaitsFor::recv(*from, names),
            Op::Close { to } => WaitsFor::close(*to, names),
            Op::Select { alts } => WaitsFor::select(alts, names),
        }
    }

    /// A failed send's message, into `back` (for
    /// [`send_back`](super::BlockingEndpoint::send_back)); nothing for
    /// another operation.
    pub(super) fn give_back(self, back: &mut Option<Message>) {
        if let Op::Send { msg, .. } = self {
            *back = Some(msg);
        }
    }
}

/// A lock that does not care about poisoning. Each session makes sure that
/// nobody goes on from half-updated data some other way: a [`Session`]
/// poisons itself when its big lock was poisoned, and a [`SplitSession`]
/// when a step unwinds (so the data behind the small locks is either
/// consistent or never used again).
///
/// [`Session`]: super::Session
/// [`SplitSession`]: super::SplitSession
#[inline]
pub(super) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}
