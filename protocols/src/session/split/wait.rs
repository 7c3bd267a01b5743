//! What a waiting role of a [`SplitSession`](super::SplitSession) waits
//! for, as its slot keeps it for a deadlock report. A role records it each
//! time it parks or a poll of it is refused, and a report is rare: so it is
//! kept by role ids and interned types (no allocation, but for a select's
//! alternatives) and named only when a report is written.

use engine::{Message, MessageType, RoleId};

use super::super::error::WaitsFor;
use super::super::op::Op;
use super::super::select::Alternative;

#[derive(Clone)]
pub(super) enum Wait {
    Send {
        to: RoleId,
        ty: MessageType,
    },
    Recv {
        from: Option<RoleId>,
    },
    Close {
        to: RoleId,
    },
    Select {
        alts: Vec<Alternative>,
    },
    /// Each of the role's async registrations (a task that awaits several
    /// operations at once), all refused at one epoch.
    Several(Vec<Wait>),
}

impl Wait {
    /// What a role refused `op` waits for.
    pub(super) fn of(op: &Op) -> Wait {
        match op {
            Op::Send { to, msg } => Wait::Send {
                to: *to,
                ty: msg.message_type(),
            },
            Op::Recv { from } => Wait::Recv { from: *from },
            Op::Close { to } => Wait::Close { to: *to },
            Op::Select { alts } => Wait::Select { alts: alts.clone() },
        }
    }

    /// Drops the wait, without a call of its drop glue where it holds
    /// nothing to free (a woken poll drops its registration's each time).
    #[inline]
    pub(super) fn discard(self) {
        match self {
            Wait::Send { .. } | Wait::Recv { .. } | Wait::Close { .. } => std::mem::forget(self),
            Wait::Select { .. } | Wait::Several(_) => drop(self),
        }
    }

    /// The wait by role and type names, as a report says it.
    pub(super) fn describe(&self, names: &[String]) -> WaitsFor {
        match self {
            Wait::Send { to, ty } => WaitsFor::send(*to, &Message::with_type(*ty, ()), names),
            Wait::Recv { from } => WaitsFor::recv(*from, names),
            Wait::Close { to } => WaitsFor::close(*to, names),
            Wait::Select { alts } => WaitsFor::select(alts, names),
            Wait::Several(waits) => WaitsFor::Select {
                alternatives: waits
                    .iter()
                    .map(|w| w.describe(names).to_string())
                    .collect(),
            },
        }
    }
}
