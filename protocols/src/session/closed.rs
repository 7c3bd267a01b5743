//! Seeing a close: which channels their senders have closed, and whether a
//! receive can therefore never succeed.
//!
//! Both sessions and `prust::explore` keep one [`Closes`] and ask it after
//! a refused receive: a receive on a channel that its sender closed and
//! that holds nothing can only wait for ever (a close is final: a send
//! after it fails with [`Error::SendAfterClose`](super::Error::SendAfterClose)
//! without reaching the object), so the receiver gets
//! [`Error::Closed`](super::Error::Closed) instead.

use std::sync::atomic::{AtomicBool, Ordering::SeqCst};

use engine::{Protocol, RoleId};

/// The channels closed so far in one run, and who may send to whom.
///
/// The flags are atomics so that a [`SplitSession`](super::SplitSession)
/// can share them without a lock: a sender marks its channel closed after
/// its last message is in the receiver's inbox, so a receiver that sees
/// the mark and then finds the inbox empty of that sender's messages knows
/// nothing more will come.
///
/// ```
/// use protocols::session::Closes;
/// use protocols::spec::{close, msg, seq, Spec};
/// let lts = Spec::new("one", seq([msg("Job", "boss", "hand"), close("boss", "hand")]))
///     .compile()
///     .unwrap();
/// let object = protocols::Strict::new(lts);
/// let closes = Closes::new(&object);
/// assert!(!closes.recv_ended(1, Some(0), |_| true));
/// closes.mark(0, 1);
/// assert!(closes.recv_ended(1, Some(0), |_| true)); // closed and empty
/// assert!(!closes.recv_ended(1, Some(0), |_| false)); // a message is left
/// assert!(closes.recv_ended(1, None, |_| true)); // boss is hand's only sender
/// ```
#[derive(Debug)]
pub struct Closes {
    n: usize,
    /// `from * n + to`: whether `from` closed its channel to `to`.
    closed: Vec<AtomicBool>,
    /// Per receiver: the roles that may ever send to it.
    senders: Vec<Vec<RoleId>>,
}

impl Closes {
    /// No channel closed yet; the senders of each role are taken from the
    /// object's [`sends_to`](Protocol::sends_to) (every other role where it
    /// does not say).
    pub fn new<P: Protocol>(object: &P) -> Closes {
        let n = object.roles().len();
        let mut senders = vec![Vec::new(); n];
        for from in 0..n {
            let to = object
                .sends_to(from)
                .unwrap_or_else(|| (0..n).filter(|&t| t != from).collect());
            for t in to {
                if t < n && t != from && !senders[t].contains(&from) {
                    senders[t].push(from);
                }
            }
        }
        Closes {
            n,
            closed: (0..n * n).map(|_| AtomicBool::new(false)).collect(),
            senders,
        }
    }

    /// `from` has closed its channel to `to`.
    pub fn mark(&self, from: RoleId, to: RoleId) {
        if from < self.n && to < self.n {
            self.closed[from * self.n + to].store(true, SeqCst);
        }
    }

    /// Whether `from` has closed its channel to `to`.
    #[inline]
    pub fn is_closed(&self, from: RoleId, to: RoleId) -> bool {
        from < self.n && to < self.n && self.closed[from * self.n + to].load(SeqCst)
    }

    /// Whether a receive of `role` (from `from`, or from anyone) can never
    /// succeed: its channel (every channel to `role`, for a receive from
    /// anyone) is closed and `empty(sender)` says it holds nothing. A role
    /// that nobody may send to never ends this way (there is no close to
    /// see). Each close mark is read before its channel is looked at.
    #[inline]
    pub fn recv_ended(
        &self,
        role: RoleId,
        from: Option<RoleId>,
        mut empty: impl FnMut(RoleId) -> bool,
    ) -> bool {
        match from {
            Some(f) => self.is_closed(f, role) && empty(f),
            None => self.senders.get(role).is_some_and(|senders| {
                !senders.is_empty() && senders.iter().all(|&f| self.is_closed(f, role) && empty(f))
            }),
        }
    }
}

/// The error a receive that can never succeed returns, by role names.
/// (Cold: once per channel at most, and kept out of the polls' code.)
#[cold]
#[inline(never)]
pub(super) fn closed_error(names: &[String], role: RoleId, from: Option<RoleId>) -> super::Error {
    super::Error::Closed {
        role: names[role].clone(),
        from: from.map(|f| names[f].clone()),
    }
}

/// The error of a send on a channel its sender closed, by role names.
#[cold]
#[inline(never)]
pub(super) fn send_after_close(names: &[String], role: RoleId, to: RoleId) -> super::Error {
    super::Error::SendAfterClose {
        role: names[role].clone(),
        to: names[to].clone(),
    }
}
