//! What can go wrong with a typed end: at creation (a role or a type the
//! protocol does not have there), and in an operation (a close, a
//! deadlock, a session failure), in std's `mpsc` shapes.

use std::fmt;

use protocols::session::{self, Deadlock};

/// Why a typed end could not be made, or an operation failed.
///
/// ```
/// use protocols::session::Session;
/// use protocols::spec::{msg, Spec};
/// #[derive(Clone, Debug)]
/// struct Pnig;
/// let object = protocols::Strict::from_spec(&Spec::new("ping", msg("Ping", "a", "b"))).unwrap();
/// let b = channel::Ends::new(Session::new(object).endpoint("b").unwrap());
/// let e = b.receiver::<Pnig>("a").unwrap_err();
/// assert!(matches!(e, channel::Error::NotOnChannel { ref hint, .. } if hint.as_deref() == Some("Ping")));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// A role name the protocol does not have.
    UnknownRole {
        /// The name asked for.
        name: String,
        /// The closest role name, if one is close.
        hint: Option<String>,
        /// The roles the protocol has.
        known: Vec<String>,
    },
    /// The protocol never sends `type_name` from `from` to `to`: a
    /// [`Receiver`](crate::Receiver) of it would wait for ever, a
    /// [`Sender`](crate::Sender) would be refused.
    NotOnChannel {
        /// The short name of the message type asked for.
        type_name: String,
        /// The sending role.
        from: String,
        /// The receiving role.
        to: String,
        /// The types the protocol does send on that channel.
        carried: Vec<String>,
        /// The closest of those, if one is close.
        hint: Option<String>,
    },
    /// A message of the receiver's type name arrived whose payload is
    /// another Rust type (two types of one name in different modules, or
    /// a `Message::named` by hand). It is consumed: the session took it.
    Payload {
        /// The receiving role.
        role: String,
        /// The message's type name.
        type_name: String,
        /// The Rust type the receiver expected.
        expected: &'static str,
    },
    /// The role's endpoint is in an operation on another thread right now.
    /// A role is one sequential thread of the protocol: its ends may move
    /// between threads, but not be used by two at once (waiting for the
    /// other thread would hide the wait from the deadlock detection).
    Busy {
        /// The role.
        role: String,
    },
    /// A `select!` over receivers of different roles' ends: a select is
    /// one operation of one role.
    MixedRoles,
    /// What the session said: a deadlock, a close, a poisoned session, a
    /// role that is its own peer, ...
    Session(session::Error),
}

impl Error {
    /// The deadlock, if the operation failed because every live role waits.
    pub fn deadlock(&self) -> Option<&Deadlock> {
        match self {
            Error::Session(session::Error::Deadlock(d)) => Some(d),
            _ => None,
        }
    }

    /// Whether the channel is closed: the peer closed it (a receive) or this
    /// role did (a send).
    pub fn is_closed(&self) -> bool {
        matches!(
            self,
            Error::Session(session::Error::Closed { .. } | session::Error::SendAfterClose { .. })
        )
    }
}

impl From<session::Error> for Error {
    fn from(e: session::Error) -> Error {
        Error::Session(e)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::UnknownRole { name, hint, known } => {
                write!(f, "unknown role `{name}`; ")?;
                if let Some(h) = hint {
                    write!(f, "did you mean `{h}`? ")?;
                }
                write!(f, "the protocol has: {}", known.join(", "))
            }
            Error::NotOnChannel {
                type_name,
                from,
                to,
                carried,
                hint,
            } => {
                write!(
                    f,
                    "the protocol never sends <{type_name}> from {from} to {to}; "
                )?;
                if let Some(h) = hint {
                    write!(f, "did you mean <{h}>? ")?;
                }
                if carried.is_empty() {
                    write!(f, "it sends nothing on that channel")
                } else {
                    write!(f, "it sends: {}", carried.join(", "))
                }
            }
            Error::Payload {
                role,
                type_name,
                expected,
            } => write!(
                f,
                "{role} received a <{type_name}> whose payload is not a {expected} \
                 (two types of one name?)"
            ),
            Error::Busy { role } => write!(
                f,
                "the endpoint of {role} is in an operation on another thread \
                 (a role is one thread at a time)"
            ),
            Error::MixedRoles => {
                write!(
                    f,
                    "a select! over receivers of different roles (one role selects)"
                )
            }
            Error::Session(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Session(e) => Some(e),
            _ => None,
        }
    }
}

/// A send that failed, with the value back (std's `SendError<T>`) and why:
/// the channel closed by this role ([`Error::is_closed`]), a deadlock
/// ([`Error::deadlock`]; a send the protocol never allows waits and ends in
/// one), or another failure of the session. Examples at
/// [`Sender::send`](crate::Sender::send).
#[derive(Clone, PartialEq, Eq)]
pub struct SendError<T> {
    /// The value that was not sent.
    pub value: T,
    /// Why.
    pub error: Error,
}

impl<T> SendError<T> {
    /// The value that was not sent.
    pub fn into_inner(self) -> T {
        self.value
    }
}

impl<T> fmt::Debug for SendError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SendError")
            .field("error", &self.error)
            .finish_non_exhaustive()
    }
}

impl<T> fmt::Display for SendError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "sending failed: {}", self.error)
    }
}

impl<T> std::error::Error for SendError<T> {}

/// A receive that failed.
///
/// ```
/// use channel::RecvError;
/// use protocols::session::Session;
/// use protocols::spec::{close, msg, seq, Spec};
/// #[derive(Clone, Debug, PartialEq)]
/// struct Job;
/// let spec = Spec::new("jobs", seq([msg("Job", "boss", "hand").star(), close("boss", "hand")]));
/// let object = protocols::Strict::from_spec(&spec).unwrap();
/// let [boss, hand] = Session::new(object).into_endpoints().try_into().unwrap();
/// let (boss, hand) = (channel::Ends::new(boss), channel::Ends::new(hand));
/// drop(boss.sender::<Job>("hand").unwrap()); // the last sender: closes
/// let jobs = hand.receiver::<Job>("boss").unwrap();
/// assert_eq!(jobs.recv(), Err(RecvError::Closed));
/// # drop(boss);
/// drop(hand);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecvError {
    /// The peer closed its channel to this role and every message it sent
    /// was received (std's "disconnected").
    Closed,
    /// Anything else: a deadlock ([`Error::deadlock`] says who waits for
    /// what), a payload of the wrong type, a failed session.
    Failed(Error),
}

/// A [`Receiver::try_recv`](crate::Receiver::try_recv) that got nothing
/// (an example is there).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TryRecvError {
    /// Nothing the protocol lets this role receive now.
    Empty,
    /// As [`RecvError::Closed`].
    Closed,
    /// As [`RecvError::Failed`]; also an endpoint that cannot receive
    /// without waiting (under `prust::explore`).
    Failed(Error),
}

/// A [`Receiver::recv_timeout`](crate::Receiver::recv_timeout) that got
/// nothing (an example is there).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecvTimeoutError {
    /// Nothing arrived in time.
    Timeout,
    /// As [`RecvError::Closed`].
    Closed,
    /// As [`TryRecvError::Failed`].
    Failed(Error),
}

impl RecvError {
    /// The deadlock, if the receive failed because every live role waits.
    pub fn deadlock(&self) -> Option<&Deadlock> {
        match self {
            RecvError::Failed(e) => e.deadlock(),
            RecvError::Closed => None,
        }
    }

    /// A session error as a receive's: a close is [`RecvError::Closed`].
    pub(crate) fn of(e: Error) -> RecvError {
        match e {
            Error::Session(session::Error::Closed { .. }) => RecvError::Closed,
            e => RecvError::Failed(e),
        }
    }
}

impl fmt::Display for RecvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RecvError::Closed => write!(f, "receiving on a closed channel"),
            RecvError::Failed(e) => e.fmt(f),
        }
    }
}

impl fmt::Display for TryRecvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TryRecvError::Empty => write!(f, "receiving on an empty channel"),
            TryRecvError::Closed => write!(f, "receiving on a closed channel"),
            TryRecvError::Failed(e) => e.fmt(f),
        }
    }
}

impl fmt::Display for RecvTimeoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RecvTimeoutError::Timeout => write!(f, "timed out waiting on a channel"),
            RecvTimeoutError::Closed => write!(f, "receiving on a closed channel"),
            RecvTimeoutError::Failed(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for RecvError {}
impl std::error::Error for TryRecvError {}
impl std::error::Error for RecvTimeoutError {}
