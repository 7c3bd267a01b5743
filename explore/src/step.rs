//! What an execution is made of: the enabled choices ([`Alt`]) taken at
//! scheduling points, and the actions ([`Act`]) they performed.

use engine::RoleId;

/// An enabled choice at a scheduling point: `role`'s pending operation,
/// and for a receive from anyone the sender.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Alt {
    pub(crate) role: RoleId,
    pub(crate) from: Option<RoleId>,
    /// For a [`choose`](super::choose): the value chosen.
    pub(crate) pick: Option<usize>,
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
    // The message type's short name: a name kept by the type's interned
    // entry for the life of the process, so that an act costs no `String`
    // (one is made at every step, probe and replay).
    Send {
        to: RoleId,
        ty: &'static str,
    },
    Recv {
        from: RoleId,
        ty: &'static str,
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
