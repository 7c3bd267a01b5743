//! The channel contents of a global state of a specification (its
//! residual term and these), and the FIFO rule that a step applies to
//! them. Contents are `(from, to, type)` entries sorted by channel, in FIFO
//! order within one.

use crate::ids::{RoleIndex, TypeIndex};
use crate::lts::{Action, Label};

/// One message in transit: `(from, to, type)`.
pub(crate) type InTransit = (RoleIndex, RoleIndex, TypeIndex);

/// Whether the FIFO rule lets a step labelled `l` happen from the channel
/// contents `chans` (exactly when [`chans_after`] is `true`), without
/// building the contents after it: a receive only of the message at the
/// head of its channel.
pub(crate) fn allows(chans: &[InTransit], l: Label) -> bool {
    l.action != Action::Recv || {
        let at = chans.partition_point(|&(f, t, _)| (f, t) < (l.from, l.to));
        chans.get(at) == Some(&(l.from, l.to, l.ty))
    }
}

/// The channel contents `chans` after an action labelled `l`, written into
/// `out` (cleared first, so one buffer serves a whole search without an
/// allocation a step); `false` if `l` is a receive of a message that is
/// not at the head of its channel (FIFO).
pub(crate) fn chans_after(chans: &[InTransit], l: Label, out: &mut Vec<InTransit>) -> bool {
    let key = (l.from, l.to);
    out.clear();
    match l.action {
        Action::Close => out.extend_from_slice(chans),
        Action::Send => {
            let at = chans.partition_point(|&(f, t, _)| (f, t) <= key);
            out.extend_from_slice(&chans[..at]);
            out.push((l.from, l.to, l.ty));
            out.extend_from_slice(&chans[at..]);
        }
        Action::Recv => {
            let at = chans.partition_point(|&(f, t, _)| (f, t) < key);
            if at >= chans.len() || chans[at] != (l.from, l.to, l.ty) {
                return false; // not at the head of the channel: FIFO
            }
            out.extend_from_slice(&chans[..at]);
            out.extend_from_slice(&chans[at + 1..]);
        }
    }
    true
}
