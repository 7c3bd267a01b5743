//! Seeing a close under exploration: the same answers as in real sessions
//! (`protocols::session`, "Seeing a close"), given without a scheduling
//! choice.
//!
//! A receive whose channel was closed by its sender and holds nothing
//! gets `Err(Closed)`, and a send on a channel its own role closed gets
//! `Err(SendAfterClose)`. Neither touches the object, and neither can be
//! undone (a close is final and a closed channel never fills again), so
//! the answer commutes with every other step: giving it at once, before
//! the next choice, runs the same outcomes as choosing it at every later
//! point, with no branching. So it is not a step of the schedule or the
//! trace (it is no action of the protocol); the role just goes on.

use engine::{Protocol, RoleId};
use protocols::session::{Closes, Error};

use super::op::{Op, Reply};
use super::step::{Act, ActKind};

/// The closes of one execution (none until the first one: a program
/// without closes pays nothing).
#[derive(Default)]
pub(crate) struct Closed {
    closes: Option<Closes>,
}

impl Closed {
    /// Whether any channel was closed in this execution.
    pub(crate) fn any(&self) -> bool {
        self.closes.is_some()
    }

    /// Records `act` if it is a close.
    pub(crate) fn note<P: Protocol>(&mut self, obj: &P, act: &Act) {
        if let ActKind::Close { to } = act.kind {
            self.closes
                .get_or_insert_with(|| Closes::new(obj))
                .mark(act.role, to);
        }
    }

    /// The first pending operation (in role order) that is answered
    /// without a choice, with its answer.
    pub(crate) fn answer<P: Protocol>(
        &self,
        obj: &P,
        pending: &[(RoleId, Op)],
        names: &[String],
    ) -> Option<(RoleId, Result<Reply, Error>)> {
        let closes = self.closes.as_ref()?;
        pending.iter().find_map(|(role, op)| {
            let role = *role;
            match op {
                Op::Recv { from }
                    if closes.recv_ended(role, *from, |f| obj.is_channel_empty(f, role)) =>
                {
                    Some((role, Ok(Reply::Ended)))
                }
                Op::Select { alts }
                    if !alts.is_empty()
                        && alts.iter().all(|a| {
                            closes.recv_ended(role, Some(a.from), |f| obj.is_channel_empty(f, role))
                        }) =>
                {
                    Some((role, Ok(Reply::Ended)))
                }
                Op::Send { to, .. } if closes.is_closed(role, *to) => Some((
                    role,
                    Err(Error::SendAfterClose {
                        role: names[role].clone(),
                        to: names[*to].clone(),
                    }),
                )),
                _ => None,
            }
        })
    }
}
