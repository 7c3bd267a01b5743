//! What a successful step changes for the other roles of a split
//! session ([`Effect`]), and the wakes and close marks that follow from it
//! ([`Shared::stepped`]); whether a refused receive can never succeed
//! ([`Shared::recv_ended`]).

use std::sync::atomic::Ordering::SeqCst;

use engine::{Message, RoleId};

use super::super::op::{lock, Op};
use super::{Shared, Split, ANYONE};

/// What a successful step of an operation may have changed for another
/// role, read off the operation before the step consumes it.
#[derive(Clone, Copy)]
pub(super) struct Effect {
    /// The receiver of a send or close: it may wait for this step.
    pub(super) peer: Option<RoleId>,
    /// Whether the step closes the channel to `peer`.
    pub(super) closing: bool,
}

impl Effect {
    /// A receive's: nothing beyond what `Split::RECV_MAY_ENABLE_SENDER` says.
    pub(super) const NONE: Effect = Effect {
        peer: None,
        closing: false,
    };

    pub(super) fn of(op: &Op) -> Effect {
        match op {
            Op::Send { to, .. } => Effect {
                peer: Some(*to),
                closing: false,
            },
            Op::Close { to } => Effect {
                peer: Some(*to),
                closing: true,
            },
            Op::Recv { .. } | Op::Select { .. } => Effect::NONE,
        }
    }
}

impl<P: Split> Shared<P> {
    /// After a step of `me` succeeded (a blocking call's or a poll's):
    /// marks a close, bumps the epoch, and wakes whom the step may have
    /// enabled: the sender of a received message (where a receive can
    /// enable a send), the receiver of a send or close if it waits for
    /// `me` (or anyone).
    pub(super) fn stepped(&self, me: RoleId, effect: Effect, got: Option<&(RoleId, Message)>) {
        // Marked before the wake below reads whom the peer waits for: a
        // receiver that announced itself is woken and sees the mark; one
        // that did not sees it on its next try (see `recv_ended`).
        if let (Some(to), true) = (effect.peer, effect.closing) {
            self.closes.mark(me, to);
        }
        self.epoch.fetch_add(1, SeqCst);
        if let Some((from, _)) = got {
            if P::RECV_MAY_ENABLE_SENDER {
                self.wake(*from);
            }
        }
        if let Some(peer) = effect.peer {
            let w = self.waiting_for[peer].load(SeqCst);
            if w == me || w == ANYONE {
                self.wake(peer);
            }
        }
    }

    /// Whether a refused receive of `role` can never succeed: its channel
    /// (every channel to it, from anyone) closed and empty. Each close mark
    /// is read before the inbox: a sender pushes its messages before it
    /// marks its close, so a mark seen means every message of that sender
    /// is in the inbox already.
    #[inline(always)]
    pub(super) fn recv_ended(&self, role: RoleId, from: Option<RoleId>) -> bool {
        // A receive from one peer (every refused poll of a typed
        // receiver): one mark to read, here, without a call.
        match from {
            Some(f) if !self.closes.is_closed(f, role) => false,
            _ => self.recv_ended_looked(role, from),
        }
    }

    /// [`recv_ended`](Self::recv_ended), looked at in full.
    #[inline(never)]
    fn recv_ended_looked(&self, role: RoleId, from: Option<RoleId>) -> bool {
        // Cheap first look, without the inbox lock: nothing closed, no end.
        if !self.closes.recv_ended(role, from, |_| true) {
            return false;
        }
        let inbox = lock(&self.inboxes[role]);
        self.closes
            .recv_ended(role, from, |f| P::inbox_empty_from(&inbox, f))
    }
}
