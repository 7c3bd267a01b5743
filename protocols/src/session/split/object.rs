//! The [`Split`] trait: a protocol object that comes apart into roles,
//! each step touching one role's local state and at most one inbox; and
//! its implementation for the liberal object.

use engine::{Message, Protocol, Refused, RoleId};

/// A protocol object whose roles can run apart: every step of a role
/// touches only that role's local state and at most one inbox.
///
/// The step functions must be the very functions the object's own
/// [`Protocol`] try-operations run on its parts (then what the checker
/// explores is what the threads run), and the same contract holds: a
/// refused step changes nothing.
pub trait Split: Protocol {
    /// One role's local state, owned by the role's thread.
    type Local: Send + 'static;
    /// One role's inbox, shared under a lock.
    type Inbox: Send + 'static;

    /// Whether taking a message out of an inbox may enable a send of the
    /// message's sender (bounded channels). If not, a receive wakes nobody.
    const RECV_MAY_ENABLE_SENDER: bool = false;

    /// Every role's local state and every role's inbox, in role order.
    fn split(self) -> (Vec<Self::Local>, Vec<Self::Inbox>);

    /// The local state's role sends `msg` to `to`, whose inbox is given.
    fn send_step(
        local: &mut Self::Local,
        to: RoleId,
        msg: Message,
        inbox_of_to: &mut Self::Inbox,
    ) -> Result<(), Refused<Message>>;

    /// The local state's role receives from its own inbox.
    fn recv_step(
        local: &mut Self::Local,
        from: Option<RoleId>,
        own_inbox: &mut Self::Inbox,
    ) -> Result<(RoleId, Message), Refused>;

    /// The local state's role closes its channel to `to`.
    fn close_step(local: &mut Self::Local, to: RoleId) -> Result<(), Refused>;

    /// Whether `inbox` holds no message from `from`: the split form of
    /// [`Protocol::is_channel_empty`], with the same contract (`false`, the
    /// default, means "not known to be empty", and then a receiver never
    /// sees a close).
    fn inbox_empty_from(inbox: &Self::Inbox, from: RoleId) -> bool {
        let _ = (inbox, from);
        false
    }

    /// The type name of the first message from `from` in `inbox` (the
    /// one a receive from `from` would consider), if any: a `select` with
    /// typed alternatives looks at it before it receives. `None`, the
    /// default, means "none, or not known": an object that keeps it never
    /// serves a typed alternative (such a select waits for an untyped
    /// alternative, or for ever).
    fn first_type_from(inbox: &Self::Inbox, from: RoleId) -> Option<&str> {
        let _ = (inbox, from);
        None
    }

    /// Whether the parts, put back together, have terminated normally (for
    /// the deadlock report only).
    fn parts_terminated(locals: &[&Self::Local], inboxes: &[&Self::Inbox]) -> bool;
}

impl Split for crate::Liberal {
    type Local = crate::LocalRole;
    type Inbox = crate::liberal::Inbox;

    fn split(self) -> (Vec<Self::Local>, Vec<Self::Inbox>) {
        crate::Liberal::split(self)
    }

    #[inline]
    fn send_step(
        local: &mut Self::Local,
        to: RoleId,
        msg: Message,
        inbox_of_to: &mut Self::Inbox,
    ) -> Result<(), Refused<Message>> {
        local.try_send(to, msg, inbox_of_to)
    }

    #[inline]
    fn recv_step(
        local: &mut Self::Local,
        from: Option<RoleId>,
        own_inbox: &mut Self::Inbox,
    ) -> Result<(RoleId, Message), Refused> {
        local.try_recv(from, own_inbox)
    }

    fn close_step(local: &mut Self::Local, to: RoleId) -> Result<(), Refused> {
        local.try_close(to)
    }

    fn inbox_empty_from(inbox: &Self::Inbox, from: RoleId) -> bool {
        inbox.iter().all(|e| e.from != from)
    }

    fn first_type_from(inbox: &Self::Inbox, from: RoleId) -> Option<&str> {
        inbox
            .iter()
            .find(|e| e.from == from)
            .map(|e| e.msg.type_name())
    }

    fn parts_terminated(locals: &[&Self::Local], inboxes: &[&Self::Inbox]) -> bool {
        let states: Vec<u32> = locals.iter().map(|l| l.state()).collect();
        inboxes.iter().all(|i| i.is_empty())
            && locals
                .first()
                .is_none_or(|l| l.projection().may_end(&states))
    }
}
