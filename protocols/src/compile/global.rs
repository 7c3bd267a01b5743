//! A global state of a specification: its residual term and the contents
//! of its channels, and the FIFO rule that a step applies to the latter.

use crate::ids::{RoleIndex, TypeIndex};
use crate::lts::{Action, Label};

/// One message in transit: `(from, to, type)`.
pub(crate) type InTransit = (RoleIndex, RoleIndex, TypeIndex);

/// A global state: residual term and channel contents, the latter as
/// `(from, to, type)` entries sorted by channel, in FIFO order within one.
#[derive(Clone, PartialEq, Eq, Hash)]
pub(crate) struct Global {
    pub(crate) term: u32,
    pub(crate) chans: Box<[InTransit]>,
}

impl Global {
    /// The channel contents after an action labelled `l`; `None` if `l`
    /// is a receive of a message that is not at the head of its channel.
    pub(super) fn chans_after(&self, l: Label) -> Option<Box<[InTransit]>> {
        let mut c = Vec::new();
        chans_after(&self.chans, l, &mut c).then(|| c.into())
    }

    /// Whether the FIFO rule lets a step labelled `l` happen (exactly when
    /// [`chans_after`](Self::chans_after) is `Some`), without building the
    /// channels after it: a receive only of the message at the head of
    /// its channel.
    pub(crate) fn allows(&self, l: Label) -> bool {
        l.action != Action::Recv || {
            let at = self
                .chans
                .partition_point(|&(f, t, _)| (f, t) < (l.from, l.to));
            self.chans.get(at) == Some(&(l.from, l.to, l.ty))
        }
    }
}

/// The channel contents `chans` after an action labelled `l`, written into
/// `out` (cleared first, so one buffer serves a whole search without an
/// allocation a step); `false` if `l` is a receive of a message that is
/// not at the head of its channel (FIFO).
pub(super) fn chans_after(chans: &[InTransit], l: Label, out: &mut Vec<InTransit>) -> bool {
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
