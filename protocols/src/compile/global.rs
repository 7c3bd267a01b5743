//! A global state of a specification: its residual term and the contents
//! of its channels, and the FIFO rule that a step applies to the latter.

use crate::lts::{Action, Label};

/// A global state: residual term and channel contents, the latter as
/// `(from, to, type)` entries sorted by channel, in FIFO order within one.
#[derive(Clone, PartialEq, Eq, Hash)]
pub(crate) struct Global {
    pub(crate) term: u32,
    pub(crate) chans: Box<[(u32, u32, u32)]>,
}

impl Global {
    /// The channel contents after an action labelled `l`; `None` if `l`
    /// is a receive of a message that is not at the head of its channel.
    pub(super) fn chans_after(&self, l: Label) -> Option<Box<[(u32, u32, u32)]>> {
        let key = (l.from, l.to);
        Some(match l.action {
            Action::Close => self.chans.clone(),
            Action::Send => {
                let at = self.chans.partition_point(|&(f, t, _)| (f, t) <= key);
                let mut c = self.chans.to_vec();
                c.insert(at, (l.from, l.to, l.ty));
                c.into()
            }
            Action::Recv => {
                let at = self.chans.partition_point(|&(f, t, _)| (f, t) < key);
                if at >= self.chans.len() || self.chans[at] != (l.from, l.to, l.ty) {
                    return None; // not at the head of the channel: FIFO
                }
                let mut c = self.chans.to_vec();
                c.remove(at);
                c.into()
            }
        })
    }
}
