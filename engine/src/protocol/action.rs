//! What a protocol says about its actions: their kinds, and which of them
//! are independent where ([`Protocol::independence`](crate::Protocol::independence)).
//!
//! These are the object's declarations, so they live with the `Protocol`
//! trait; [`crate::por`] reads them and never the other way round.

use std::fmt;

use super::RoleId;

/// What a role does in one step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ActionKind {
    /// The role sent a message.
    Send,
    /// The role received a message.
    Recv,
    /// The role closed its channel to the peer.
    Close,
}

impl fmt::Display for ActionKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ActionKind::Send => "SEND",
            ActionKind::Recv => "RECV",
            ActionKind::Close => "CLOSE",
        })
    }
}

/// An action up to its message type: `role` sends to, receives from or
/// closes its channel to `peer`.
///
/// ```
/// use engine::{ActionKind, ActionRef};
/// let a = ActionRef::new(0, ActionKind::Send, 1);
/// assert_eq!((a.role, a.kind, a.peer), (0, ActionKind::Send, 1));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ActionRef {
    /// Who acts.
    pub role: RoleId,
    /// Send, receive or close.
    pub kind: ActionKind,
    /// The receiver of a send or close, the sender of a receive.
    pub peer: RoleId,
}

impl ActionRef {
    /// `role` does `kind` with `peer`.
    pub fn new(role: RoleId, kind: ActionKind, peer: RoleId) -> ActionRef {
        ActionRef { role, kind, peer }
    }
}

impl PartialOrd for ActionKind {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for ActionKind {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (*self as u8).cmp(&(*other as u8))
    }
}

/// What an object declares about one of its states for partial-order
/// reduction ([`Protocol::independence`](crate::Protocol::independence)):
/// its *components* there. Each component is a set of actions that, until
/// one of them happens, nothing else interferes with: every other step is
/// independent of the component's enabled actions (both orders possible,
/// equal results) and enables or disables none of its actions. See the
/// [module docs](crate::por) for exactly what the engine assumes and how
/// the determinism check verifies it.
///
/// ```
/// use engine::{ActionKind, ActionRef, Independence};
/// // Role 1 only ever talks to role 0 over its own channels: a component.
/// let ind = Independence::new().component([
///     ActionRef::new(1, ActionKind::Recv, 0),
///     ActionRef::new(1, ActionKind::Send, 0),
/// ]);
/// assert_eq!(ind.components().len(), 1);
/// assert!(ind.components()[0].contains(&ActionRef::new(1, ActionKind::Send, 0)));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Independence {
    components: Vec<Vec<ActionRef>>,
}

impl Independence {
    /// No component yet: declares nothing that could reduce the search.
    pub fn new() -> Independence {
        Independence::default()
    }

    /// Adds a component (duplicates in it are dropped).
    pub fn component(mut self, actions: impl IntoIterator<Item = ActionRef>) -> Independence {
        let mut c: Vec<ActionRef> = actions.into_iter().collect();
        c.sort_unstable();
        c.dedup();
        if !c.is_empty() {
            self.components.push(c);
        }
        self
    }

    /// The components, in the order they were added (each sorted).
    pub fn components(&self) -> &[Vec<ActionRef>] {
        &self.components
    }
}
