//! The channels of the reduction tests' hand-written objects: a queue
//! per ordered pair of roles `r0`, `r1`, … ([`Grid`]), what their
//! `Protocol` impls share, and [`Queues`], channels that keep their
//! messages in one of a few orders.

use std::collections::VecDeque;

use prust::{Message, Protocol, Refused, RoleId};

/// A queue for each ordered pair of `n` roles, `r0` to `r{n-1}`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Grid<T = Message> {
    pub n: usize,
    queues: Vec<VecDeque<T>>,
}

impl<T: Clone> Grid<T> {
    pub fn new(n: usize) -> Self {
        Grid {
            n,
            queues: vec![VecDeque::new(); n * n],
        }
    }
}

impl<T> Grid<T> {
    /// The channel from `from` to `to`.
    pub fn q(&self, from: RoleId, to: RoleId) -> &VecDeque<T> {
        &self.queues[from * self.n + to]
    }
    pub fn q_mut(&mut self, from: RoleId, to: RoleId) -> &mut VecDeque<T> {
        &mut self.queues[from * self.n + to]
    }
    /// The role names, `r0`, `r1`, …
    pub fn roles(&self) -> Vec<String> {
        (0..self.n).map(|i| format!("r{i}")).collect()
    }
    /// The messages in transit to `to`, from all.
    pub fn in_transit_to(&self, to: RoleId) -> usize {
        (0..self.n).map(|f| self.q(f, to).len()).sum()
    }
    /// The messages in transit from `from`, to all.
    pub fn in_transit_from(&self, from: RoleId) -> usize {
        (0..self.n).map(|t| self.q(from, t).len()).sum()
    }
    /// The messages in transit in all.
    pub fn len(&self) -> usize {
        self.queues.iter().map(VecDeque::len).sum()
    }
    /// Whether every channel is empty.
    pub fn is_empty(&self) -> bool {
        self.queues.iter().all(VecDeque::is_empty)
    }
    /// The sender a receive takes from: the one it names (`from`), or
    /// for a receive from anyone the lowest role that `first` accepts;
    /// refused if there is none.
    pub fn sender(
        &self,
        from: Option<RoleId>,
        first: impl Fn(RoleId) -> bool,
    ) -> Result<RoleId, Refused> {
        match from {
            Some(f) => Ok(f),
            None => (0..self.n).find(|&f| first(f)).ok_or(Refused(())),
        }
    }
}

/// A close as the objects here answer it: refused to oneself, accepted
/// otherwise (what a close does is the exploration's own, as in
/// `testkit::mailbox`).
pub fn close(role: RoleId, to: RoleId) -> Result<(), Refused> {
    if role == to {
        Err(Refused(()))
    } else {
        Ok(())
    }
}

/// A payload whose hand-written `Debug` hides a field the receiver reads.
#[derive(Clone)]
pub struct Tagged {
    pub shown: u32,
    pub hidden: u32,
}

impl std::fmt::Debug for Tagged {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Tagged({})", self.shown)
    }
}

/// Where a send puts its message in [`Queues`], and what it keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Policy {
    /// At the front when the queue holds exactly two messages, else at
    /// the back.
    FrontAtTwo,
    /// Always at the front: the newest message is received first.
    Lifo,
    /// Newest first, each message a clone of the one sent (the sent one
    /// dropped), and handed out as a clone again.
    LifoClones,
    /// Oldest first, as clones (handed out as clones again).
    FifoClones,
    /// Oldest first, each [`Tagged`] payload taken out and boxed again
    /// (handed out as a clone).
    FifoRebuilt,
    /// At the back; a receive hands out the queued message with the
    /// largest `u32` payload (the oldest among equals; anything else
    /// counts as 0).
    Largest,
}

impl Policy {
    /// Whether a receive hands out a clone of the message kept.
    fn hands_out_clones(self) -> bool {
        !matches!(self, Policy::FrontAtTwo | Policy::Lifo | Policy::Largest)
    }
}

/// One channel per ordered pair, each a queue whose receive takes the
/// front (but see [`Policy::Largest`]); where a send puts its message,
/// and whether it keeps the one sent, depends on `policy`. A receive from anyone takes from the
/// lowest sender with a message. Deterministic, refusals leave no trace,
/// equal objects (messages compare by type) behave alike up to
/// payloads, and it answers `is_channel_empty`, so that the same-channel
/// rule applies to it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Queues {
    pub policy: Policy,
    pub grid: Grid,
}

impl Queues {
    pub fn new(n: usize, policy: Policy) -> Self {
        Queues {
            policy,
            grid: Grid::new(n),
        }
    }
}

impl Protocol for Queues {
    fn roles(&self) -> Vec<String> {
        self.grid.roles()
    }
    fn type_names(&self) -> Vec<String> {
        vec!["M".into()]
    }
    fn try_send(&mut self, role: RoleId, to: RoleId, msg: Message) -> Result<(), Refused<Message>> {
        if role == to {
            return Err(Refused(msg));
        }
        let q = self.grid.q_mut(role, to);
        match self.policy {
            Policy::FrontAtTwo if q.len() == 2 => q.push_front(msg),
            Policy::FrontAtTwo | Policy::Largest => q.push_back(msg),
            Policy::Lifo => q.push_front(msg),
            Policy::LifoClones => q.push_front(msg.clone()),
            Policy::FifoClones => q.push_back(msg.clone()),
            Policy::FifoRebuilt => {
                let ty = msg.message_type();
                match msg.downcast::<Tagged>() {
                    Ok(t) => q.push_back(Message::with_type(ty, t)),
                    Err(m) => q.push_back(m),
                }
            }
        }
        Ok(())
    }
    fn try_recv(
        &mut self,
        role: RoleId,
        from: Option<RoleId>,
    ) -> Result<(RoleId, Message), Refused> {
        let f = self
            .grid
            .sender(from, |f| !self.grid.q(f, role).is_empty())?;
        let q = self.grid.q_mut(f, role);
        let m = match self.policy {
            Policy::Largest => (0..q.len())
                .rev()
                .max_by_key(|&i| q[i].downcast_ref::<u32>().copied().unwrap_or(0))
                .and_then(|best| q.remove(best)),
            _ => q.pop_front(),
        }
        .ok_or(Refused(()))?;
        if self.policy.hands_out_clones() {
            Ok((f, m.clone()))
        } else {
            Ok((f, m))
        }
    }
    fn is_channel_empty(&self, from: RoleId, to: RoleId) -> bool {
        self.grid.q(from, to).is_empty()
    }
    fn is_terminated(&self) -> bool {
        self.grid.is_empty()
    }
}
