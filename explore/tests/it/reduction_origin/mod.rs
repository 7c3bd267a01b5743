//! A send of S to R and a receive of R that takes from S, on objects that
//! answer `is_channel_empty` honestly, where taking the two for
//! independent loses an outcome: the reductions must find every failure
//! and every result of plain search. Written against a finer rule for
//! such pairs (both orders hand out *the same message*, told by where its
//! payload came from, and leave the same rest of the channel): each test
//! makes the two orders differ in a way such a rule could miss. Tried
//! against a sketch of that rule: the tests of stamps, receipts and
//! notices fail under it as planned; each other test fails under it with
//! one of its checks left out (the payload's origin, the Rust type of a
//! payload with no data, the full type path, the drain of the rest, the
//! emptiness after it).
//!
//! Every object is deterministic, leaves no trace when it refuses, says a
//! channel is empty exactly when a receive from it would find nothing,
//! and keeps payloads where `==` says: a payload (or a copy) goes where
//! the object's state says at the step that puts it there, and nothing
//! moves it afterwards unseen.

use std::cell::Cell;
use std::fmt::Debug;

use prust::engine::MessageType;
use prust::session::{Alternative, BlockingEndpoint};
use prust::{Message, Protocol, Refused, RoleId};

use super::support::queues::{close, Grid};

mod channels;
mod payloads;

/// Plain search against each reduction unbounded, and against DPOR
/// under a preemption bound of 1 (see `support::agree`).
const BOUNDS: [Option<usize>; 2] = [None, Some(1)];

/// What a receive does to the message it hands out, or to other channels,
/// besides taking it off its channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Kind {
    /// A plain FIFO channel: the finer rule is right on it.
    Fifo,
    /// Newest first.
    Lifo,
    /// FIFO; a receive writes how many messages are left on the channel
    /// into the payload it hands out, if that is a `Cell<u32>`: the same
    /// box, its content changed through a shared reference.
    Stamp,
    /// FIFO; a receive takes a `u32` payload's box (`downcast_box`), adds
    /// 100 for each message left, and hands out the same box again
    /// (`with_boxed`).
    Rebox,
    /// FIFO; a receive takes a `u32` payload by value and hands out a new
    /// message of it plus 100 for each message left (whose box the
    /// allocator likely puts where the old one was).
    Rebuild,
    /// FIFO of unit messages; a receive hands out `a::M` if the channel is
    /// then empty, `b::M` otherwise: one short name, two type paths.
    Retype,
    /// FIFO; a receive of r1 from r0 also puts on r1 → r0 a copy of the
    /// message now at the head of r0 → r1 (the next one r1 will get), or
    /// of the one received if none is left: a receipt that says what comes
    /// next.
    EchoHead,
    /// FIFO; a send of r0 to r1 also puts on r0 → r2 a copy of the message
    /// then at the head of r0 → r1 (the one r1 gets next): a monitor r2
    /// told what r1 is about to take.
    NotifyHead,
    /// FIFO, but a send into a queue of exactly `.0` messages goes to
    /// index `.1`.
    InsertAt(usize, usize),
    /// FIFO of unit messages; a receive of r1 from r0 hands out `a::M` if
    /// r2 → r1 is empty, `b::M` otherwise: the type path told by another
    /// channel's state.
    RetypeByOther,
}

/// Queues between every ordered pair of roles, one [`Kind`] for all,
/// each bounded by `capacity` if given. Closes are the exploration's own
/// (as `testkit::mailbox`'s): the object accepts every close.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Chan {
    kind: Kind,
    capacity: Option<usize>,
    grid: Grid,
    /// Whether r1 may receive from r0 only in turns: after each receive
    /// from r0, one from r2 first.
    gated: bool,
    /// Whether r1's next receive from r0 must wait for one from r2.
    r2_turn: bool,
}

impl Chan {
    fn new(n: usize, kind: Kind) -> Self {
        Chan {
            kind,
            capacity: None,
            grid: Grid::new(n),
            gated: false,
            r2_turn: false,
        }
    }

    fn gated(mut self) -> Self {
        self.gated = true;
        self
    }

    fn bounded(mut self, capacity: usize) -> Self {
        self.capacity = Some(capacity);
        self
    }

    /// `msgs` already in transit from `from` to `to`.
    fn preloaded(
        mut self,
        from: RoleId,
        to: RoleId,
        msgs: impl IntoIterator<Item = Message>,
    ) -> Self {
        self.queue(from, to).extend(msgs);
        self
    }

    fn queue(&mut self, from: RoleId, to: RoleId) -> &mut std::collections::VecDeque<Message> {
        self.grid.q_mut(from, to)
    }

    /// Whether `role` may receive from `from` now (the turns of a gated
    /// object).
    fn may_take(&self, role: RoleId, from: RoleId) -> bool {
        !(self.gated && (from, role) == (0, 1) && self.r2_turn)
    }

    /// The message `role` takes from `from`, after the kind has done its
    /// part; `None` (and nothing changed) if there is none.
    fn take(&mut self, role: RoleId, from: RoleId) -> Option<Message> {
        if !self.may_take(role, from) {
            return None;
        }
        let kind = self.kind;
        let q = self.queue(from, role);
        let m = q.pop_front()?;
        let left = q.len() as u32;
        let head = q.front().cloned();
        let other_empty = self.grid.q(2 % self.grid.n, 1).is_empty();
        if self.gated && role == 1 && (from == 0 || from == 2) {
            self.r2_turn = from == 0;
        }
        Some(match kind {
            Kind::Stamp => {
                if let Some(c) = m.downcast_ref::<Cell<u32>>() {
                    c.set(left);
                }
                m
            }
            Kind::Rebox => {
                let ty = m.message_type();
                let mut b = m.downcast_box::<u32>().expect("a u32 payload");
                *b += 100 * left;
                Message::with_boxed(ty, b)
            }
            Kind::Rebuild => {
                let ty = m.message_type();
                let v = m.downcast::<u32>().expect("a u32 payload");
                Message::with_type(ty, v + 100 * left)
            }
            Kind::Retype => {
                let path = if left == 0 { "a::M" } else { "b::M" };
                Message::with_type(MessageType::of(path), ())
            }
            Kind::RetypeByOther if (from, role) == (0, 1) => {
                let path = if other_empty { "a::M" } else { "b::M" };
                Message::with_type(MessageType::of(path), ())
            }
            Kind::EchoHead if (from, role) == (0, 1) => {
                let echo = head.unwrap_or_else(|| m.clone());
                self.queue(1, 0).push_back(echo);
                m
            }
            _ => m,
        })
    }
}

impl Protocol for Chan {
    fn roles(&self) -> Vec<String> {
        self.grid.roles()
    }
    fn try_send(&mut self, role: RoleId, to: RoleId, msg: Message) -> Result<(), Refused<Message>> {
        let (kind, capacity) = (self.kind, self.capacity);
        let q = self.queue(role, to);
        if role == to || capacity.is_some_and(|c| q.len() >= c) {
            return Err(Refused(msg));
        }
        match kind {
            Kind::Lifo => q.push_front(msg),
            Kind::InsertAt(len, at) if q.len() == len => q.insert(at, msg),
            _ => q.push_back(msg),
        }
        if kind == Kind::NotifyHead && (role, to) == (0, 1) && self.grid.n > 2 {
            let head = self.queue(0, 1).front().cloned().expect("just sent");
            self.queue(0, 2).push_back(head);
        }
        Ok(())
    }
    fn try_recv(
        &mut self,
        role: RoleId,
        from: Option<RoleId>,
    ) -> Result<(RoleId, Message), Refused> {
        let f = self.grid.sender(from, |f| {
            !self.grid.q(f, role).is_empty() && self.may_take(role, f)
        })?;
        if f >= self.grid.n || f == role {
            return Err(Refused(()));
        }
        self.take(role, f).map(|m| (f, m)).ok_or(Refused(()))
    }
    fn try_close(&mut self, role: RoleId, to: RoleId) -> Result<(), Refused> {
        close(role, to)
    }
    fn is_channel_empty(&self, from: RoleId, to: RoleId) -> bool {
        self.grid.q(from, to).is_empty()
    }
    fn is_terminated(&self) -> bool {
        self.grid.is_empty()
    }
}

/// How r1 takes a message from r0: the three forms the finer rule covers.
#[derive(Clone, Copy, Debug)]
enum Take {
    From,
    Anyone,
    /// A select over r0 and r2.
    Select,
}

const TAKES: [Take; 3] = [Take::From, Take::Anyone, Take::Select];

/// Each way of taking with each of `bads` (see [`refuse`]).
fn takes_and<T: Copy, const N: usize>(
    bads: [Option<T>; N],
) -> impl Iterator<Item = (Take, Option<T>)> {
    TAKES
        .into_iter()
        .flat_map(move |how| bads.map(|bad| (how, bad)))
}

/// One message of r1 from r0, taken as `how` says.
fn take<E: BlockingEndpoint>(ep: &mut E, how: Take) -> Message {
    match how {
        Take::From => ep.recv_from("r0").unwrap(),
        Take::Anyone => {
            let (from, m) = ep.recv().unwrap();
            assert_eq!(from, 0, "only r0 sends to r1");
            m
        }
        Take::Select => {
            let (i, m) = ep
                .select(&[Alternative::sender("r0"), Alternative::sender("r2")])
                .unwrap();
            assert_eq!(i, 0, "only r0 sends to r1");
            m
        }
    }
}

/// Fails the role if it saw `bad`. Each test runs with no bad value (the
/// results alone tell the two orders apart) and with each value in turn:
/// a failure ends its execution early, and the steps still pending then
/// are races by doubt, which must not be what makes a reduction run the
/// other order.
fn refuse<T: PartialEq + Debug>(got: &T, bad: Option<T>, what: &str) {
    if let Some(bad) = bad {
        assert_ne!(*got, bad, "{what}");
    }
}
