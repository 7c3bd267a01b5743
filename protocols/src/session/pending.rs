//! Async operations on the sessions: what a future of a session operation
//! holds between polls ([`AsyncOp`]), what it completes with ([`Done`]),
//! and the list of registered wakers of one role that both sessions keep
//! next to their parkers.
//!
//! An async operation is never completed on its owner's behalf (as a
//! parked thread's is by the hand-off of a [`Session`](super::Session)):
//! a change that may enable it only wakes its waker, and the owner's next
//! poll tries it. So a future dropped between polls has done nothing:
//! a cancelled receive took no message, a cancelled send sent none.

use std::task::Waker;

use engine::{Message, Payload, RoleId};

use super::op::Op;
use super::Alternative;

/// One async session operation in progress: made by
/// [`send`](AsyncOp::send), [`recv_from`](AsyncOp::recv_from),
/// [`select`](AsyncOp::select) or [`close`](AsyncOp::close), driven by an
/// endpoint's
/// [`poll_op`](super::BlockingEndpoint::poll_op) until it is ready, and
/// given up with [`cancel_op`](super::BlockingEndpoint::cancel_op) (which
/// the owner must call if it drops the operation before it is ready: the
/// endpoint counts the role as waiting on it until then).
///
/// ```
/// use std::task::{Context, Poll, Waker};
/// use engine::Message;
/// use protocols::session::{AsyncOp, BlockingEndpoint, Done, Session};
/// use protocols::spec::{msg, Spec};
/// let object = protocols::Strict::from_spec(&Spec::new("ping", msg("Ping", "a", "b"))).unwrap();
/// let [mut a, mut b] = Session::new(object).into_endpoints().try_into().unwrap();
/// let mut cx = Context::from_waker(Waker::noop());
/// let mut recv = AsyncOp::recv_from(0);
/// assert!(b.poll_op(&mut cx, &mut recv).is_pending()); // registered: b waits
/// assert!(recv.is_registered());
/// a.send("b", Message::named("Ping", ())).unwrap();
/// let Poll::Ready(Ok(Done::Received(0, m))) = b.poll_op(&mut cx, &mut recv) else { panic!() };
/// assert_eq!(m.type_name(), "Ping");
/// ```
pub struct AsyncOp {
    /// The operation while the future holds it (the [`Session`] keeps it
    /// in the registration instead, to re-try it after changes).
    ///
    /// [`Session`]: super::Session
    pub(super) op: Option<Op>,
    /// The registration with the endpoint, once a poll was refused.
    pub(super) ticket: Option<u64>,
}

/// What a ready [`AsyncOp`] did.
#[derive(Debug)]
pub enum Done {
    /// The message was sent.
    Sent,
    /// The channel was closed.
    Closed,
    /// A message from this sender was received.
    Received(RoleId, Message),
    /// The select took this alternative and received this message.
    Selected(usize, Message),
}

impl AsyncOp {
    fn of(op: Op) -> AsyncOp {
        AsyncOp {
            op: Some(op),
            ticket: None,
        }
    }

    /// Send `value` to `to`.
    pub fn send<T: Payload>(to: RoleId, value: T) -> AsyncOp {
        AsyncOp::of(Op::Send {
            to,
            msg: Message::new(value),
        })
    }

    /// Receive from `from` (`None`: from anyone).
    pub fn recv_from(from: impl Into<Option<RoleId>>) -> AsyncOp {
        AsyncOp::of(Op::Recv { from: from.into() })
    }

    /// Receive the first of `alternatives` (see [`Alternative`]).
    pub fn select(alternatives: &[Alternative]) -> AsyncOp {
        AsyncOp::of(Op::Select {
            alts: alternatives.to_vec(),
        })
    }

    /// Close this role's channel to `to`.
    pub fn close(to: RoleId) -> AsyncOp {
        AsyncOp::of(Op::Close { to })
    }

    /// Whether the endpoint holds a registration of this operation (a
    /// poll returned `Pending`): it must be given up with `cancel_op` if
    /// the operation is dropped before it is ready.
    pub fn is_registered(&self) -> bool {
        self.ticket.is_some()
    }

    /// Whether the operation was taken out (it is done): then it holds
    /// nothing to drop.
    #[inline]
    pub fn is_done(&self) -> bool {
        self.op.is_none()
    }

    /// For an endpoint implemented outside this crate (`prust::explore`'s):
    /// takes the operation out, to keep it in the endpoint's own
    /// registration; `None` once taken.
    pub fn take_request(&mut self) -> Option<Request> {
        Some(match self.op.take()? {
            Op::Send { to, msg } => Request::Send { to, msg },
            Op::Recv { from } => Request::Recv { from },
            Op::Close { to } => Request::Close { to },
            Op::Select { alts } => Request::Select { alts },
        })
    }

    /// For an endpoint implemented outside this crate: the registration
    /// this operation holds with it (`None`: not registered), as
    /// [`is_registered`](Self::is_registered) reports it to the owner.
    pub fn ticket(&self) -> Option<u64> {
        self.ticket
    }

    /// For an endpoint implemented outside this crate: records (or, with
    /// `None`, clears) this operation's registration with it.
    pub fn set_ticket(&mut self, ticket: Option<u64>) {
        self.ticket = ticket;
    }
}

/// What an [`AsyncOp`] asks for, as an endpoint implemented outside this
/// crate takes it ([`AsyncOp::take_request`]).
#[derive(Debug)]
#[non_exhaustive]
pub enum Request {
    /// Send `msg` to `to`.
    Send {
        /// The receiver.
        to: RoleId,
        /// The message.
        msg: Message,
    },
    /// Receive from `from` (`None`: from anyone).
    Recv {
        /// The sender, if one is asked for.
        from: Option<RoleId>,
    },
    /// Close the channel to `to`.
    Close {
        /// The receiver of the channel.
        to: RoleId,
    },
    /// Receive the first of these alternatives the protocol allows.
    Select {
        /// The alternatives.
        alts: Vec<Alternative>,
    },
}

impl std::fmt::Debug for AsyncOp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AsyncOp")
            .field("registered", &self.ticket.is_some())
            .finish_non_exhaustive()
    }
}

/// One registered async operation of a role.
pub(super) struct Entry<O> {
    pub(super) ticket: u64,
    /// The epoch at which its last try was refused; `None` once a change
    /// may have enabled it (it was woken, and counts as running until its
    /// owner polls it again).
    pub(super) refused_at: Option<u64>,
    pub(super) waker: Waker,
    /// What the session keeps of the operation (the operation itself, or
    /// what a deadlock report says of it).
    pub(super) op: O,
}

/// The registered async operations of one role.
pub(super) struct Waiters<O> {
    next: u64,
    pub(super) entries: Vec<Entry<O>>,
}

impl<O> Default for Waiters<O> {
    fn default() -> Self {
        Waiters {
            next: 0,
            entries: Vec::new(),
        }
    }
}

impl<O> Waiters<O> {
    /// Registers (or re-registers) the operation of `ticket` as refused at
    /// `epoch`, to be woken through `waker`.
    #[inline]
    pub(super) fn put(&mut self, ticket: &mut Option<u64>, epoch: u64, waker: &Waker, op: O) {
        let t = *ticket.get_or_insert_with(|| {
            self.next += 1;
            self.next
        });
        self.entries.push(Entry {
            ticket: t,
            refused_at: Some(epoch),
            waker: waker.clone(),
            op,
        });
    }

    /// The entry of `ticket`, if registered.
    pub(super) fn get_mut(&mut self, ticket: u64) -> Option<&mut Entry<O>> {
        self.entries.iter_mut().find(|e| e.ticket == ticket)
    }

    /// Where the entry of `ticket` is in `entries`, if registered.
    #[inline]
    pub(super) fn position(&self, ticket: u64) -> Option<usize> {
        self.entries.iter().position(|e| e.ticket == ticket)
    }

    /// Removes the entry of `ticket`.
    pub(super) fn take(&mut self, ticket: u64) -> Option<Entry<O>> {
        let i = self.entries.iter().position(|e| e.ticket == ticket)?;
        Some(self.entries.swap_remove(i))
    }

    /// `Some(e)` if the role has registrations and every one was refused
    /// at epoch `e`: the role waits.
    pub(super) fn blocked_at(&self) -> Option<u64> {
        let first = self.entries.first()?.refused_at?;
        self.entries
            .iter()
            .all(|e| e.refused_at == Some(first))
            .then_some(first)
    }

    /// Marks every registration as possibly enabled; their wakers, to be
    /// woken once the lock over these waiters is released.
    pub(super) fn wake_all(&mut self) -> Wakers {
        let mut wakers = Wakers::default();
        for e in &mut self.entries {
            e.refused_at = None;
            wakers.push(&e.waker);
        }
        wakers
    }

    /// Marks the registrations refused before `epoch` (their owners try
    /// again, so that the role can be seen waiting at one epoch); their
    /// wakers, to be woken once the lock is released.
    pub(super) fn wake_older(&mut self, epoch: u64) -> Wakers {
        let mut wakers = Wakers::default();
        for e in &mut self.entries {
            if e.refused_at.is_some_and(|r| r != epoch) {
                e.refused_at = None;
                wakers.push(&e.waker);
            }
        }
        wakers
    }
}

/// Wakers taken out from under a lock, woken after it is released: a wake
/// may be long (an executor may unpark one of its threads, a system call)
/// and the owner's next poll needs that lock, so waking under it made the
/// woken task's thread block on it. One waker (the usual case) is kept
/// without an allocation.
#[derive(Default)]
pub(super) struct Wakers {
    first: Option<Waker>,
    rest: Vec<Waker>,
}

impl Wakers {
    fn push(&mut self, waker: &Waker) {
        self.push_owned(waker.clone());
    }

    fn push_owned(&mut self, waker: Waker) {
        match self.first {
            None => self.first = Some(waker),
            Some(_) => self.rest.push(waker),
        }
    }

    /// Wakes them all (call with no lock held that their owners take).
    #[inline]
    pub(super) fn wake(self) {
        if let Some(w) = self.first {
            w.wake();
            if !self.rest.is_empty() {
                self.rest.into_iter().for_each(Waker::wake);
            }
        }
    }
}

impl FromIterator<Waker> for Wakers {
    fn from_iter<I: IntoIterator<Item = Waker>>(iter: I) -> Wakers {
        let mut wakers = Wakers::default();
        iter.into_iter().for_each(|w| wakers.push_owned(w));
        wakers
    }
}
