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

/// One alternative of a select: a message from `from`, of type
/// `type_name` if given (a short type name, as
/// [`Message::type_name`] gives it).
///
/// ```
/// use protocols::session::Alternative;
/// let a = Alternative::sender(2).of_type("Found");
/// assert_eq!((a.from, a.type_name.as_deref()), (2, Some("Found")));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Alternative {
    /// The sender.
    pub from: RoleId,
    /// The message type wanted; `None` for any.
    pub type_name: Option<String>,
}

impl Alternative {
    /// A message of any type from `from` (resolve names once with the
    /// endpoint's `peer`).
    pub fn sender(from: RoleId) -> Alternative {
        Alternative {
            from,
            type_name: None,
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

    /// The alternative by role names, as a deadlock report shows it.
    pub(super) fn describe(&self, names: &[String]) -> String {
        Described(self, names).to_string()
    }
}

struct Described<'a>(&'a Alternative, &'a [String]);

impl fmt::Display for Described<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Described(a, names) = self;
        let from = names.get(a.from).map_or("?", String::as_str);
        match &a.type_name {
            Some(t) => write!(f, "<{t}> from {from}"),
            None => write!(f, "from {from}"),
        }
    }
}
