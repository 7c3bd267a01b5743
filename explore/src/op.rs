//! The operations a role waits to do and what they give back: the
//! vocabulary shared by the scheduler, the role threads and the async
//! executor's tasks.

use engine::{Message, RoleId};
use protocols::session::Alternative;

/// An operation a role waits to do.
#[derive(Debug, Clone)]
pub(crate) enum Op {
    Send {
        to: RoleId,
        msg: Message,
    },
    Recv {
        from: Option<RoleId>,
    },
    Close {
        to: RoleId,
    },
    /// [`choose`](super::choose): the program picks one of `n` values.
    Choose {
        n: usize,
    },
    /// A `select`: the first of these receives that the object allows.
    Select {
        alts: Vec<Alternative>,
    },
}

/// What a completed operation gives back to its thread.
#[derive(Debug)]
pub(crate) enum Reply {
    Done,
    Received(RoleId, Message),
    Chose(usize),
    /// A select took alternative `.0`.
    Selected(usize, Message),
    /// A receive that can never succeed: its channel was closed and holds
    /// nothing (`Err(Closed)` for the caller; see `closed.rs`).
    Ended,
}

/// Whether two pending operations are the same request (the same peer,
/// message type or alternatives), whatever the message inside.
pub(crate) fn same_op(a: &Op, b: &Op) -> bool {
    match (a, b) {
        (Op::Send { to: t1, msg: m1 }, Op::Send { to: t2, msg: m2 }) => {
            t1 == t2 && m1.type_name() == m2.type_name()
        }
        (Op::Recv { from: f1 }, Op::Recv { from: f2 }) => f1 == f2,
        (Op::Close { to: t1 }, Op::Close { to: t2 }) => t1 == t2,
        (Op::Choose { n: n1 }, Op::Choose { n: n2 }) => n1 == n2,
        (Op::Select { alts: a1 }, Op::Select { alts: a2 }) => {
            a1.len() == a2.len()
                && a1
                    .iter()
                    .zip(a2)
                    .all(|(x, y)| x.from == y.from && x.type_name == y.type_name)
        }
        _ => false,
    }
}
