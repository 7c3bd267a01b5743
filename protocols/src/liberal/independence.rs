//! The liberal object's declaration for partial-order reduction
//! ([`engine::Independence`]): each role whose next steps nothing else can
//! interfere with is a component.
//!
//! A role's steps touch its own local state and inbox, and a send appends
//! to the receiver's inbox. So a step of another role commutes with a
//! receive or close of role `p` (it at most appends to `p`'s inbox, behind
//! the envelopes `p` takes first), and with a send of `p` to `r` unless it
//! is a send to `r` too (two appends to one inbox in two orders are two
//! different inboxes). And only a send to `p` from `x` can change what `p`
//! may do: make a receive from `x` possible when `p`'s inbox holds nothing
//! from `x` yet. Role `p` is a component, with the steps its local state
//! offers, when
//! - for every sender `x` its local state may receive from, its inbox
//!   already holds an envelope from `x` (the first one from `x`, the only
//!   one `p` may take, is then fixed until `p` takes it), and
//! - every receiver `r` its local state may send to has no sender but `p`.

use engine::{ActionKind, ActionRef, Independence};

use super::Liberal;
use crate::lts::Action;

impl Liberal {
    /// The roles that are components in this state (see the module docs).
    pub(super) fn components(&self) -> Independence {
        let senders = self.proj.senders.get_or_init(|| {
            let n = self.n();
            let mut senders = vec![Vec::new(); n];
            for (p, local) in self.proj.locals.iter().enumerate() {
                for out in &local.out {
                    for &(label, _, _) in out {
                        let r = label.to.index();
                        if label.action == Action::Send && r < n && !senders[r].contains(&p) {
                            senders[r].push(p);
                        }
                    }
                }
            }
            senders
        });
        let mut ind = Independence::new();
        for p in 0..self.n() {
            let state = self.state(p);
            let local = &self.proj.locals[p];
            let (out, inp) = (&local.out[state as usize], &local.inp[state as usize]);
            let settled = inp.iter().all(|&((label, _), _)| {
                self.inbox(p)
                    .any(|j| self.envelope(j).1 == label.from.raw())
            });
            let exclusive = out.iter().all(|&(label, _, _)| {
                label.action != Action::Send || senders[label.to.index()].iter().all(|&s| s == p)
            });
            if settled && exclusive {
                let sends = out.iter().map(|&(l, _, _)| {
                    let kind = if l.action == Action::Send {
                        ActionKind::Send
                    } else {
                        ActionKind::Close
                    };
                    ActionRef::new(p, kind, l.to.index())
                });
                let receives = inp
                    .iter()
                    .map(|&((l, _), _)| ActionRef::new(p, ActionKind::Recv, l.from.index()));
                ind = ind.component(sends.chain(receives));
            }
        }
        ind
    }
}
