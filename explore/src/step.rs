//! What an execution is made of: the enabled choices ([`Alt`]) taken at
//! scheduling points, and the actions ([`Act`]) they performed.

use engine::{MessageType, RoleId};

use super::op::Op;

/// An enabled choice at a scheduling point: `role`'s pending operation,
/// and for a receive from anyone the sender.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Alt {
    pub(crate) role: RoleId,
    pub(crate) from: Option<RoleId>,
    /// For a [`choose`](super::choose): the value chosen.
    pub(crate) pick: Option<usize>,
}

impl Alt {
    /// The sender whose message this choice of `op` (its role's pending
    /// operation) takes: the one a receive names, or the one chosen for a
    /// receive from anyone or a select; `None` for other operations, and
    /// for a receive from anyone or a select whose sender is not known
    /// (an event DPOR supposes, not a choice taken). A named receive's
    /// choice carries no sender of its own (see `enabled`).
    pub(crate) fn sender(self, op: &Op) -> Option<RoleId> {
        match op {
            Op::Recv { from } => self.from.or(*from),
            Op::Select { .. } => self.from,
            _ => None,
        }
    }
}

/// One action performed, by role indices (names are for reports).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Act {
    pub(crate) role: RoleId,
    pub(crate) kind: ActKind,
}

/// What an [`Act`] did.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum ActKind {
    // The message's interned type (a word: an act costs no `String`, and
    // one is made at every step, probe and replay), compared by its full
    // path: two orders whose receive gets `a::M` in one and `b::M` in the
    // other do different things, and acts that kept only the short name
    // `M` let the reductions take them for the same.
    Send {
        to: RoleId,
        ty: MessageType,
    },
    Recv {
        from: RoleId,
        ty: MessageType,
    },
    Close {
        to: RoleId,
    },
    /// The role's program chose `pick` among `n` values (no protocol
    /// action: left out of the run a property is checked on).
    Choose {
        pick: usize,
        n: usize,
    },
}
