//! `select`: wait for the first of several receives (Discourje's `alts!!`).
//!
//! A select names its [`Alternative`]s, each a sender and optionally a
//! message type. It waits until one of them can be received: the head
//! message of the sender's channel to this role has the type (any type if
//! none is named) and the protocol allows receiving it now. If several can,
//! a real session takes the first in the order given (`prust::explore`
//! instead branches over every one of them). The result is the index of
//! the alternative taken and the message.
//!
//! A select whose every sender has closed its channel to this role, with
//! nothing left in any of them, fails with
//! [`Error::Closed`](super::Error::Closed) (no sender named), as
//! `recv()` from anyone does.

use std::fmt;

use engine::{Message, RoleId};

use super::{Error, ToRole};

/// One alternative of a select: a message from `from`, of type
/// `type_name` if given (a short type name, as
/// [`Message::type_name`] gives it).
///
/// The sender is a [`RoleId`] or a role name; a name is resolved by the
/// endpoint that selects (an unknown name is its error, with the roles
/// there are), or once with [`resolved`](Self::resolved) for hot loops.
///
/// ```
/// use protocols::session::Alternative;
/// let a = Alternative::sender(2).of_type("Found");
/// assert_eq!((a.from, a.type_name.as_deref()), (2, Some("Found")));
/// let names = ["p0", "p1", "p2"].map(String::from);
/// let b = Alternative::sender("p2").of_type("Found");
/// assert_eq!(format!("{b:?}"), r#"Alternative { from: "p2", type_name: Some("Found") }"#);
/// assert_eq!(b.resolved(&names).unwrap(), a);
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Alternative {
    /// The sender; for an alternative made from a role name, set when it
    /// is [`resolved`](Self::resolved) (an endpoint's select resolves it).
    pub from: RoleId,
    /// The message type wanted; `None` for any.
    pub type_name: Option<String>,
    /// The sender's name as given, until resolved.
    name: Option<Box<str>>,
}

/// What names a select's sender: a [`RoleId`], or a role name (`&str`,
/// `String`, `&String`). Sealed: the workspace's own conversions only.
mod sender {
    use engine::RoleId;

    /// The sender of an [`Alternative`](super::Alternative): an index, or
    /// a name to resolve.
    pub trait SenderRole {
        #[doc(hidden)]
        fn into_sender(self) -> Result<RoleId, Box<str>>;
    }
    impl SenderRole for RoleId {
        fn into_sender(self) -> Result<RoleId, Box<str>> {
            Ok(self)
        }
    }
    impl SenderRole for &str {
        fn into_sender(self) -> Result<RoleId, Box<str>> {
            Err(self.into())
        }
    }
    impl SenderRole for String {
        fn into_sender(self) -> Result<RoleId, Box<str>> {
            Err(self.into())
        }
    }
    impl SenderRole for &String {
        fn into_sender(self) -> Result<RoleId, Box<str>> {
            Err(self.as_str().into())
        }
    }
}

impl Alternative {
    /// A message of any type from `from`: a [`RoleId`] or a role name
    /// (`"p1"`).
    pub fn sender(from: impl sender::SenderRole) -> Alternative {
        let (from, name) = match from.into_sender() {
            Ok(id) => (id, None),
            // Out of every session's range until resolved, so that a name
            // never passes for a role by accident.
            Err(name) => (RoleId::MAX, Some(name)),
        };
        Alternative {
            from,
            type_name: None,
            name,
        }
    }

    /// Only a message of this type (short name).
    pub fn of_type(mut self, type_name: &str) -> Alternative {
        self.type_name = Some(type_name.to_string());
        self
    }

    /// Whether `msg` is of the type wanted.
    pub fn accepts(&self, msg: &Message) -> bool {
        self.type_name
            .as_deref()
            .is_none_or(|t| t == msg.type_name())
    }

    /// The alternative with its sender as a [`RoleId`] among the role
    /// `names`: an unknown name is an [`Error::UnknownRole`], an index
    /// out of range an [`Error::RoleOutOfRange`].
    ///
    /// ```
    /// use protocols::session::{Alternative, Error};
    /// let names = ["a".to_string(), "b".to_string()];
    /// assert_eq!(Alternative::sender("b").resolved(&names).unwrap().from, 1);
    /// let e = Alternative::sender("c").resolved(&names).unwrap_err();
    /// assert_eq!(e.to_string(), "unknown role `c`; the protocol has: a, b");
    /// assert!(matches!(Alternative::sender(7).resolved(&names), Err(Error::RoleOutOfRange { .. })));
    /// ```
    pub fn resolved(&self, names: &[String]) -> Result<Alternative, Error> {
        let from = match &self.name {
            Some(name) => name.to_role(names)?,
            None => self.from.to_role(names)?,
        };
        Ok(Alternative {
            from,
            type_name: self.type_name.clone(),
            name: None,
        })
    }

    /// The alternative by role names, as a deadlock report shows it.
    pub(super) fn describe(&self, names: &[String]) -> String {
        Described(self, names).to_string()
    }
}

/// Resolves every alternative of a select by `me` (see
/// [`Alternative::resolved`]); a sender that is `me` is an error
/// ([`Error::ToSelf`]).
pub(super) fn resolve_all(
    alternatives: &[Alternative],
    me: RoleId,
    names: &[String],
) -> Result<Vec<Alternative>, Error> {
    alternatives
        .iter()
        .map(|a| {
            let a = a.resolved(names)?;
            a.from.to_peer(me, names, "receive from")?;
            Ok(a)
        })
        .collect()
}

/// By name where the alternative has one (as it was made), so that a
/// failed assertion shows the role as written.
impl fmt::Debug for Alternative {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("Alternative");
        match &self.name {
            Some(name) => d.field("from", name),
            None => d.field("from", &self.from),
        };
        d.field("type_name", &self.type_name).finish()
    }
}

struct Described<'a>(&'a Alternative, &'a [String]);

impl fmt::Display for Described<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Described(a, names) = self;
        let from = match &a.name {
            Some(name) => name,
            None => names.get(a.from).map_or("?", String::as_str),
        };
        match &a.type_name {
            Some(t) => write!(f, "<{t}> from {from}"),
            None => write!(f, "from {from}"),
        }
    }
}
