//! The hand-written mailbox object and the random role programs over it
//! that the reduction tests (`explore_reduction`,
//! `explore_reduction_close_select`) and the `explore_rate` bench share:
//! one definition, so that a fix to the object or to how a step runs
//! reaches every test that compares searches on it.

use std::collections::{BTreeSet, VecDeque};

use engine::{Enabled, Message, Protocol, Refused, RoleId};
use protocols::session::{Alternative, BlockingEndpoint};
use prust_explore::{Exploration, Handle, Roles};

/// FIFO channels between every pair of roles, bounded by `capacity` (none:
/// unbounded): sends are asynchronous, a receive takes the oldest message
/// of its channel, each sender may close its channels. Terminated when
/// nothing is in transit.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Mailbox {
    names: &'static [&'static str],
    capacity: Option<usize>,
    queues: Vec<VecDeque<Message>>,
}

/// The role names of [`Mailbox::new`]: `r0`, `r1`, …
const NUMBERED: [&str; 8] = ["r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7"];

impl Mailbox {
    /// `roles` roles named `r0`, `r1`, … (at most 8), whose channels hold
    /// two messages each: a third send waits, which gives the random
    /// programs blocked sends to explore.
    pub fn new(roles: usize) -> Self {
        Mailbox::named(&NUMBERED[..roles], Some(2))
    }

    /// `roles` roles named `r0`, `r1`, … (at most 8), channels bounded by
    /// `capacity` (`None`: unbounded).
    pub fn numbered(roles: usize, capacity: Option<usize>) -> Self {
        Mailbox::named(&NUMBERED[..roles], capacity)
    }

    /// Roles with these names, channels bounded by `capacity` (`None`:
    /// unbounded, so that no send ever waits).
    pub fn named(names: &'static [&'static str], capacity: Option<usize>) -> Self {
        Mailbox {
            names,
            capacity,
            queues: vec![VecDeque::new(); names.len() * names.len()],
        }
    }

    /// How many roles (the trait's `roles` gives their names).
    fn count(&self) -> usize {
        self.names.len()
    }
}

impl Protocol for Mailbox {
    fn roles(&self) -> Vec<String> {
        self.names.iter().map(|n| n.to_string()).collect()
    }
    fn type_names(&self) -> Vec<String> {
        vec!["M".into()]
    }
    fn try_send(&mut self, role: RoleId, to: RoleId, msg: Message) -> Result<(), Refused<Message>> {
        let n = self.count();
        let q = &mut self.queues[role * n + to];
        if role == to || self.capacity.is_some_and(|c| q.len() >= c) {
            return Err(Refused(msg));
        }
        q.push_back(msg);
        Ok(())
    }
    fn try_recv(
        &mut self,
        role: RoleId,
        from: Option<RoleId>,
    ) -> Result<(RoleId, Message), Refused> {
        let n = self.count();
        let f = match from {
            Some(f) => f,
            None => (0..n)
                .find(|&f| !self.queues[f * n + role].is_empty())
                .ok_or(Refused(()))?,
        };
        let m = self.queues[f * n + role].pop_front().ok_or(Refused(()))?;
        Ok((f, m))
    }
    fn try_close(&mut self, role: RoleId, to: RoleId) -> Result<(), Refused> {
        if role == to {
            Err(Refused(()))
        } else {
            Ok(())
        }
    }
    fn is_channel_empty(&self, from: RoleId, to: RoleId) -> bool {
        self.queues[from * self.count() + to].is_empty()
    }
    /// Each channel a FIFO queue of the mailbox's capacity: what DPOR
    /// reads to order a send on a full channel after the receive that
    /// makes room.
    fn channel_capacity(&self, from: RoleId, to: RoleId) -> Option<usize> {
        let n = self.count();
        self.capacity.filter(|_| from != to && from < n && to < n)
    }
    fn is_terminated(&self) -> bool {
        self.queues.iter().all(VecDeque::is_empty)
    }
    /// Answered at once: the explorer asks this for the operations its
    /// roles wait on instead of listing every channel's actions.
    fn is_enabled(&self, action: Enabled) -> Option<bool> {
        let n = self.count();
        let pair = |a: RoleId, b: RoleId| a != b && a < n && b < n;
        Some(match action {
            Enabled::Send { role, to, ty } => {
                ty == 0
                    && pair(role, to)
                    && self
                        .capacity
                        .is_none_or(|c| self.queues[role * n + to].len() < c)
            }
            Enabled::Recv { role, from } => {
                pair(role, from) && !self.queues[from * n + role].is_empty()
            }
            Enabled::Close { role, to } => pair(role, to),
        })
    }
    /// Listed rather than probed, as the objects built from
    /// specifications do: what a hand-written object does to be explored
    /// without a clone per pending operation and step.
    fn enabled(&self, out: &mut Vec<Enabled>) -> bool {
        let n = self.count();
        for role in 0..n {
            for to in (0..n).filter(|&to| to != role) {
                let q = &self.queues[role * n + to];
                if self.capacity.is_none_or(|c| q.len() < c) {
                    out.push(Enabled::Send { role, to, ty: 0 });
                }
                if !q.is_empty() {
                    out.push(Enabled::Recv {
                        role: to,
                        from: role,
                    });
                }
                out.push(Enabled::Close { role, to });
            }
        }
        true
    }
}

/// One operation of a random role program.
#[derive(Clone, Debug)]
pub enum Step {
    /// Send a message to this role.
    Send(RoleId),
    /// Close the channel to this role.
    Close(RoleId),
    /// Receive from this role.
    RecvFrom(RoleId),
    /// Receive from anyone and assert that it is not this role.
    RecvAnyNot(RoleId),
    /// Receive from this role until it closes; assert on the count.
    Drain(RoleId, usize),
    /// Select over two senders; assert which one is taken first.
    SelectNot(RoleId, RoleId),
}

/// The program that runs role `r{i}` as `steps[i]` says; a role stops at
/// its first operation that fails (a closed channel, a stopped search).
/// The `k`-th message a role sends carries `k`.
pub fn program(steps: &[Vec<Step>]) -> impl Fn(&mut Roles<'_, Mailbox>) + Sync + '_ {
    let observing = observing_program(steps);
    move |r| {
        observing(r);
    }
}

/// What role `r{i}` received, in order: the sender and the number each
/// message carries (the sender's step). It depends on the order in which
/// messages arrive, so an execution's result tells schedules apart that
/// its failures do not.
pub type Received = Vec<(RoleId, usize)>;

/// [`program`], whose result is what each role received
/// ([`Received`]): the reductions must find every result of the plain
/// search, as they find every failure.
pub fn observing_program(
    steps: &[Vec<Step>],
) -> impl Fn(&mut Roles<'_, Mailbox>) -> Vec<Handle<Received>> + Sync + '_ {
    move |r| {
        let mut handles = Vec::new();
        for (role, body) in steps.iter().enumerate() {
            let body = body.clone();
            handles.push(r.spawn(NUMBERED[role], move |mut ep| {
                let mut got: Received = Vec::new();
                let mut note = |from: RoleId, m: &Message| {
                    got.push((
                        from,
                        m.downcast_ref::<usize>().copied().unwrap_or(usize::MAX),
                    ));
                };
                for (i, s) in body.into_iter().enumerate() {
                    let ok = match s {
                        Step::Send(to) => ep.send(to, Message::named("M", i)).is_ok(),
                        Step::Close(to) => ep.close(to).is_ok(),
                        Step::RecvFrom(from) => match ep.recv_from(from) {
                            Ok(m) => {
                                note(from, &m);
                                true
                            }
                            Err(_) => false,
                        },
                        Step::RecvAnyNot(not) => match ep.recv() {
                            Ok((from, m)) => {
                                note(from, &m);
                                assert_ne!(from, not, "received from r{not}");
                                true
                            }
                            Err(_) => false,
                        },
                        Step::Drain(from, n) => {
                            let mut count = 0;
                            while let Ok(m) = ep.recv_from(from) {
                                note(from, &m);
                                count += 1;
                            }
                            assert_eq!(count, n, "drained from r{from}");
                            true
                        }
                        Step::SelectNot(a, b) => {
                            let alts = [Alternative::sender(a), Alternative::sender(b)];
                            match ep.select(&alts) {
                                Ok((i, m)) => {
                                    note([a, b][i], &m);
                                    assert_eq!(i, 0, "selected r{b}");
                                    true
                                }
                                Err(_) => false,
                            }
                        }
                    };
                    if !ok {
                        break;
                    }
                }
                got
            }));
        }
        handles
    }
}

/// Ordering bugs and a length bound for generated programs: where
/// `swaps[role]` says so, the role's steps `at` and `at + 1` trade places;
/// then every role keeps at most six steps (longer programs make the plain
/// search too slow to compare against).
pub fn swap_and_truncate(roles: &mut [Vec<Step>], swaps: Vec<(usize, bool)>) {
    for (role, (at, swap)) in swaps.into_iter().enumerate() {
        let ops = &mut roles[role];
        if swap && at + 1 < ops.len() {
            ops.swap(at, at + 1);
        }
        ops.truncate(6);
    }
}

/// The distinct results of an exploration's complete executions: what
/// two searches of the same program must agree on besides the failures.
pub fn results<T: Ord + Clone>(ex: &Exploration<T>) -> BTreeSet<T> {
    ex.results().iter().map(|r| r.value.clone()).collect()
}

/// The distinct outcomes of the failures an exploration found, as text:
/// what two searches of the same program must agree on.
pub fn outcomes<T>(ex: &Exploration<T>) -> BTreeSet<String> {
    ex.failures()
        .iter()
        .map(|f| f.outcome.to_string())
        .collect()
}
