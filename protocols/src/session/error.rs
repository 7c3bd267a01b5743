//! What can go wrong on an endpoint, and how roles are named.

use std::fmt;
use std::sync::Arc;

use engine::{Message, RoleId};

use super::Alternative;

/// Why a blocking operation failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// Every live endpoint of the session is blocked: nobody can ever make
    /// progress. Every blocked call of the session returns this, and so does
    /// every later call (the session is poisoned, like a `Mutex`).
    Deadlock(Arc<Deadlock>),
    /// A role name the protocol does not have.
    UnknownRole {
        /// The name asked for.
        name: String,
        /// The roles the protocol has.
        known: Vec<String>,
    },
    /// A role index out of range.
    RoleOutOfRange {
        /// The index asked for.
        role: RoleId,
        /// How many roles the protocol has.
        count: usize,
    },
    /// The endpoint of this role was taken already (each role has exactly
    /// one endpoint, used by one thread).
    RoleTaken(String),
    /// Protocol code panicked in another thread while it held the session;
    /// the object may be half-updated, so the session refuses to go on.
    Panicked,
    /// The thread that ran this role panicked (its
    /// [`PanicGuard`](super::PanicGuard) was dropped while unwinding), so
    /// the role was declared dead; its endpoint, kept alive elsewhere,
    /// can no longer be used.
    RolePanicked(String),
    /// The run was stopped from outside the program: `prust::explore` ends
    /// an execution this way when a bound is hit (steps, time) or a role is
    /// stuck outside the session, so that every thread can unwind and be
    /// joined. The text says why.
    Aborted(String),
    /// A receive that can never succeed because its sender closed the
    /// channel: `from` closed its channel to `role` and nothing sent on it
    /// is left. For a receive from anyone (`from` is `None`): every role
    /// that may send to `role` (by the object's
    /// [`sends_to`](engine::Protocol::sends_to), every other role if it
    /// does not say) has closed its channel to `role`, and none of them
    /// holds a message. Not a failure of the session: the receiver's loop
    /// ends here, and the session goes on.
    Closed {
        /// The receiving role.
        role: String,
        /// The sender asked for; `None` for a receive from anyone.
        from: Option<String>,
    },
    /// `role` sends on a channel it closed before. A close is final (what
    /// lets a receiver see it, [`Error::Closed`]); the message is not
    /// offered to the protocol object.
    SendAfterClose {
        /// The sending role.
        role: String,
        /// The peer whose channel it closed.
        to: String,
    },
    /// `role` named itself as the peer of a send, a receive or a close.
    /// No protocol has a channel from a role to itself, so the call could
    /// only wait for ever (or be reported as a deadlock); refused at once.
    ToSelf {
        /// The role.
        role: String,
        /// What it tried: `send to`, `receive from` or `close its channel to`.
        what: &'static str,
    },
    /// The endpoint has no such operation: a non-blocking receive
    /// ([`BlockingEndpoint::try_select`](super::BlockingEndpoint::try_select))
    /// on an endpoint that can only wait (under `prust::explore`, whether a
    /// message is there yet is the scheduler's choice, not a fact to poll).
    Unsupported {
        /// The role.
        role: String,
        /// The operation, as the caller named it.
        what: &'static str,
    },
    /// A blocking call on a role that has an async operation pending (a
    /// future polled but neither ready nor dropped): the session counts
    /// the role as waiting on the future, so a blocking wait now could
    /// hang unseen. Await or drop the future first.
    AsyncPending(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Deadlock(d) => d.fmt(f),
            Error::UnknownRole { name, known } => write!(
                f,
                "unknown role `{name}`; the protocol has: {}",
                if known.is_empty() {
                    "no roles".to_string()
                } else {
                    known.join(", ")
                }
            ),
            Error::RoleOutOfRange { role, count } => {
                write!(
                    f,
                    "role index {role} out of range; the protocol has {count} roles"
                )
            }
            Error::RoleTaken(role) => {
                write!(
                    f,
                    "the endpoint of role `{role}` was already taken (one endpoint per role)"
                )
            }
            Error::Panicked => {
                write!(
                    f,
                    "protocol code panicked in another thread; the session cannot go on"
                )
            }
            Error::RolePanicked(role) => write!(
                f,
                "the thread running role `{role}` panicked; its endpoint can no longer be used"
            ),
            Error::Aborted(why) => write!(f, "the run was stopped: {why}"),
            Error::Closed {
                role,
                from: Some(from),
            } => write!(
                f,
                "{role} cannot receive from {from}: {from} closed its channel to {role} \
                 and nothing is left in it"
            ),
            Error::Closed { role, from: None } => write!(
                f,
                "{role} cannot receive: every role that may send to {role} closed its \
                 channel to it and nothing is left in them"
            ),
            Error::SendAfterClose { role, to } => write!(
                f,
                "{role} sends to {to} after closing its channel to {to} (a close is final)"
            ),
            Error::ToSelf { role, what } => write!(
                f,
                "{role} tries to {what} itself: a role has no channel to itself \
                 (did you pass the wrong peer?)"
            ),
            Error::AsyncPending(role) => write!(
                f,
                "role `{role}` has an async operation pending (a future neither \
                 ready nor dropped); a blocking call on it would wait where the \
                 session cannot see it: await or drop the future first"
            ),
            Error::Unsupported { role, what } => write!(f, "{role}: this endpoint cannot {what}"),
        }
    }
}

impl std::error::Error for Error {}

/// A run-time communication deadlock: every live role waits, and what for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Deadlock {
    /// The blocked roles, in role order, with the operation each waits on.
    pub blocked: Vec<Blocked>,
    /// Roles whose endpoint was dropped (their thread finished) or never
    /// taken: they will never act again.
    pub finished: Vec<String>,
    /// Roles whose thread panicked: their endpoint was dropped while the
    /// thread unwound, or their [`PanicGuard`](super::PanicGuard) was.
    /// They will never act again either, but not because they were done.
    pub panicked: Vec<String>,
    /// Whether the protocol had terminated normally: then the blocked
    /// operations are steps the protocol does not have at all.
    pub terminated: bool,
}

/// One blocked role of a [`Deadlock`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Blocked {
    /// The role's name.
    pub role: String,
    /// What it waits to do.
    pub waits_for: WaitsFor,
}

/// The operation a blocked role waits on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WaitsFor {
    /// To send a message of this type to this role.
    Send {
        /// The receiver.
        to: String,
        /// Short type name of the message.
        type_name: String,
    },
    /// To receive, from this role or from anyone (`None`).
    Recv {
        /// The sender asked for, if any.
        from: Option<String>,
    },
    /// To close its channel to this role.
    Close {
        /// The peer.
        to: String,
    },
    /// To receive the first of several alternatives (a `select`).
    Select {
        /// Each alternative, as `<Type> from sender` (or `from sender`).
        alternatives: Vec<String>,
    },
}

/// The constructors name roles and messages one way for every caller (the
/// sessions and `prust::explore` each have their own pending-operation
/// type): a deadlock report reads the same whichever found it.
impl WaitsFor {
    /// Blocked sending `msg` to role `to`; `names` are the object's roles.
    ///
    /// ```
    /// use protocols::session::WaitsFor;
    /// use engine::Message;
    /// let names = ["a".to_string(), "b".to_string()];
    /// let w = WaitsFor::send(1, &Message::named("Ping", ()), &names);
    /// assert_eq!(w.to_string(), "send <Ping> to b");
    /// ```
    pub fn send(to: RoleId, msg: &Message, names: &[String]) -> WaitsFor {
        WaitsFor::Send {
            to: name(names, to),
            type_name: msg.type_name().to_string(),
        }
    }

    /// Blocked receiving from role `from`, or from anyone (`None`).
    ///
    /// ```
    /// use protocols::session::WaitsFor;
    /// let names = ["a".to_string(), "b".to_string()];
    /// assert_eq!(WaitsFor::recv(None, &names).to_string(), "receive (from anyone)");
    /// ```
    pub fn recv(from: Option<RoleId>, names: &[String]) -> WaitsFor {
        WaitsFor::Recv {
            from: from.map(|f| name(names, f)),
        }
    }

    /// Blocked closing its channel to role `to`.
    pub fn close(to: RoleId, names: &[String]) -> WaitsFor {
        WaitsFor::Close {
            to: name(names, to),
        }
    }

    /// Blocked in a select over `alts`.
    ///
    /// ```
    /// use protocols::session::{Alternative, WaitsFor};
    /// let names = ["a".to_string(), "b".to_string()];
    /// let alts = [Alternative::sender(0).of_type("Ping"), Alternative::sender(1)];
    /// assert_eq!(
    ///     WaitsFor::select(&alts, &names).to_string(),
    ///     "receive the first of: <Ping> from a, from b"
    /// );
    /// ```
    pub fn select(alts: &[Alternative], names: &[String]) -> WaitsFor {
        WaitsFor::Select {
            alternatives: alts.iter().map(|a| a.describe(names)).collect(),
        }
    }
}

/// A role's name; `?` for an id the object does not have (a report must
/// not panic on the object's own inconsistency).
fn name(names: &[String], role: RoleId) -> String {
    names
        .get(role)
        .map_or_else(|| "?".to_string(), String::clone)
}

impl fmt::Display for WaitsFor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WaitsFor::Send { to, type_name } => write!(f, "send <{type_name}> to {to}"),
            WaitsFor::Recv { from: Some(from) } => write!(f, "receive from {from}"),
            WaitsFor::Recv { from: None } => write!(f, "receive (from anyone)"),
            WaitsFor::Close { to } => write!(f, "close its channel to {to}"),
            WaitsFor::Select { alternatives } => {
                write!(f, "receive the first of: {}", alternatives.join(", "))
            }
        }
    }
}

impl fmt::Display for Deadlock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "deadlock: every live role is blocked")?;
        for b in &self.blocked {
            write!(f, "\n  {} waits to {}", b.role, b.waits_for)?;
        }
        if !self.finished.is_empty() {
            write!(
                f,
                "\n  finished (endpoint dropped): {}",
                self.finished.join(", ")
            )?;
        }
        if !self.panicked.is_empty() {
            write!(
                f,
                "\n  panicked (their thread panicked): {}",
                self.panicked.join(", ")
            )?;
        }
        if self.terminated {
            write!(
                f,
                "\n  the protocol had already terminated normally: \
                 the operations above are not part of it"
            )?;
        }
        Ok(())
    }
}

impl std::error::Error for Deadlock {}

/// Something that names a role: its name (`"white"`) or its [`RoleId`].
///
/// Names are resolved by a linear search over the role names; resolve a name
/// once with [`Session::role`](super::Session::role) or
/// [`Endpoint::peer`](super::Endpoint::peer) and pass the `RoleId` in hot
/// loops.
pub trait ToRole {
    /// The role's index among `names`.
    fn to_role(&self, names: &[String]) -> Result<RoleId, Error>;

    /// The role's index among `names` as the peer of `me` in an operation
    /// (`what`: `send to`, `receive from`, `close its channel to`): an
    /// error ([`Error::ToSelf`]) if it is `me`.
    fn to_peer(&self, me: RoleId, names: &[String], what: &'static str) -> Result<RoleId, Error> {
        let peer = self.to_role(names)?;
        if peer == me {
            return Err(Error::ToSelf {
                role: names[me].clone(),
                what,
            });
        }
        Ok(peer)
    }
}

impl ToRole for RoleId {
    fn to_role(&self, names: &[String]) -> Result<RoleId, Error> {
        if *self < names.len() {
            Ok(*self)
        } else {
            Err(Error::RoleOutOfRange {
                role: *self,
                count: names.len(),
            })
        }
    }
}

impl ToRole for str {
    fn to_role(&self, names: &[String]) -> Result<RoleId, Error> {
        names
            .iter()
            .position(|n| n == self)
            .ok_or_else(|| Error::UnknownRole {
                name: self.to_string(),
                known: names.to_vec(),
            })
    }
}

impl ToRole for &str {
    fn to_role(&self, names: &[String]) -> Result<RoleId, Error> {
        (**self).to_role(names)
    }
}

impl ToRole for String {
    fn to_role(&self, names: &[String]) -> Result<RoleId, Error> {
        self.as_str().to_role(names)
    }
}

impl ToRole for &String {
    fn to_role(&self, names: &[String]) -> Result<RoleId, Error> {
        self.as_str().to_role(names)
    }
}
