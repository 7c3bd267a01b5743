//! Objects whose channels are not apart, against the same-channel rule
//! (a send of S to R and a receive of R that takes an earlier message of
//! S may commute): one object, [`Net`], with a FIFO (or LIFO) queue per
//! ordered pair of roles and rules across its channels that a rule judged
//! on one channel could miss. A capacity shared by the channels to one
//! receiver, or by every channel (a receive makes room for another
//! role's send); a priority sender whose waiting messages hold back the
//! others (a send takes a sender away from a receive from anyone); a
//! gate (a send allowed only once another channel is empty: enabled by a
//! receive of another channel); a receive that answers by a payload's
//! value. Every role reports the messages it received, each numbered by
//! its send, so that results tell apart which message went where; the
//! reductions must find every result and failure of plain search.

use proptest::prelude::*;
use prust::session::{Alternative, BlockingEndpoint};
use prust::{Message, Protocol, Refused, RoleId};

use super::support::agree;
use super::support::programs::each_role;
use super::support::queues::{close, Grid};

/// The rules of a [`Net`] across its channels.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
struct Rules {
    /// At most this many messages in transit to one receiver, from all.
    per_receiver: Option<usize>,
    /// At most this many messages in transit in all.
    total: Option<usize>,
    /// Newest first on every channel.
    lifo: bool,
    /// Once two messages of role 0 wait for a receiver, it may take from
    /// no one else.
    priority: bool,
    /// Role 0's sends to role 1 are refused while role 2 → role 1 is not
    /// empty.
    gate: bool,
    /// A receive refuses an odd payload while another channel to the
    /// receiver is not empty (it reads the payload's value).
    by_value: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Net {
    rules: Rules,
    grid: Grid,
}

impl Net {
    fn new(n: usize, rules: Rules) -> Self {
        Net {
            rules,
            grid: Grid::new(n),
        }
    }
    fn q(&self, from: RoleId, to: RoleId) -> &std::collections::VecDeque<Message> {
        self.grid.q(from, to)
    }
    fn may_take(&self, role: RoleId, from: RoleId) -> bool {
        let Some(m) = self.head(from, role) else {
            return false;
        };
        let held_back = self.rules.priority && from != 0 && self.q(0, role).len() >= 2;
        let odd = self.rules.by_value
            && m.downcast_ref::<u32>().is_some_and(|v| v % 2 == 1)
            && (0..self.grid.n).any(|f| f != from && !self.q(f, role).is_empty());
        !held_back && !odd
    }
    fn head(&self, from: RoleId, to: RoleId) -> Option<&Message> {
        let q = self.q(from, to);
        if self.rules.lifo {
            q.back()
        } else {
            q.front()
        }
    }
}

impl Protocol for Net {
    fn roles(&self) -> Vec<String> {
        self.grid.roles()
    }
    fn try_send(&mut self, role: RoleId, to: RoleId, msg: Message) -> Result<(), Refused<Message>> {
        let (r, n) = (self.rules, self.grid.n);
        let full = r
            .per_receiver
            .is_some_and(|c| self.grid.in_transit_to(to) >= c)
            || r.total.is_some_and(|c| self.grid.len() >= c);
        let gated = r.gate && (role, to) == (0, 1) && n > 2 && !self.q(2, 1).is_empty();
        if role == to || to >= n || full || gated {
            return Err(Refused(msg));
        }
        self.grid.q_mut(role, to).push_back(msg);
        Ok(())
    }
    fn try_recv(
        &mut self,
        role: RoleId,
        from: Option<RoleId>,
    ) -> Result<(RoleId, Message), Refused> {
        let f = self
            .grid
            .sender(from, |f| f != role && self.may_take(role, f))?;
        if f >= self.grid.n || f == role || !self.may_take(role, f) {
            return Err(Refused(()));
        }
        let lifo = self.rules.lifo;
        let q = self.grid.q_mut(f, role);
        let m = if lifo { q.pop_back() } else { q.pop_front() };
        Ok((f, m.expect("may_take saw a message")))
    }
    fn try_close(&mut self, role: RoleId, to: RoleId) -> Result<(), Refused> {
        close(role, to)
    }
    fn is_channel_empty(&self, from: RoleId, to: RoleId) -> bool {
        self.q(from, to).is_empty()
    }
    fn is_terminated(&self) -> bool {
        self.grid.is_empty()
    }
}

/// One operation of a role's program.
#[derive(Clone, Debug)]
enum Op {
    /// Sends its message, numbered by the value.
    Send(RoleId, u32),
    Anyone,
    From(RoleId),
    /// A select over these senders.
    Select(Vec<RoleId>),
}

/// What a role received: (sender, number) in order.
type Got = Vec<(RoleId, u32)>;

fn run(ep: &mut impl BlockingEndpoint, ops: &[Op]) -> Got {
    let mut got = Vec::new();
    let number = |m: &Message| *m.downcast_ref::<u32>().expect("a numbered message");
    for op in ops {
        let r = match op {
            Op::Send(to, v) => ep.send(*to, Message::named("M", *v)).map(|_| None),
            Op::Anyone => ep.recv().map(|(f, m)| Some((f, number(&m)))),
            Op::From(f) => ep.recv_from(*f).map(|m| Some((*f, number(&m)))),
            Op::Select(fs) => {
                let alts: Vec<Alternative> = fs.iter().map(|&f| Alternative::sender(f)).collect();
                ep.select(&alts).map(|(i, m)| Some((fs[i], number(&m))))
            }
        };
        match r {
            Ok(Some(x)) => got.push(x),
            Ok(None) => {}
            Err(_) => break,
        }
    }
    got
}

/// What DPOR (and sleep sets, and DPOR under a preemption bound of 1
/// against plain search under it) find differently from plain search:
/// the failures' outcomes or the distinct results. `None` if plain
/// search does not finish within `max` executions.
fn differences(net: &Net, ops: &[Vec<Op>], max: usize) -> Option<Vec<String>> {
    let case = format!("{net:?}, {ops:?}");
    agree::differences(net, &case, each_role(ops, run), &[None, Some(1)], max)
}

fn assert_agree(net: Net, ops: &[Vec<Op>]) {
    let missed = differences(&net, ops, 200_000).expect("plain search finishes");
    agree::assert_agree(missed);
}

use Op::{Anyone, From, Select, Send};

/// r0 sends 0, 1 to r2; r1 sends 10 to r2 late (after a message from r3);
/// r2 takes three from anyone. The inbox of r2 holds two: r0's second
/// send and r2's first receive commute on their channel, but the send
/// alone fills the inbox where r1's send would go.
#[test]
fn a_capacity_shared_by_the_senders_of_one_receiver() {
    for (cap, late) in [(2, false), (2, true), (1, true), (3, true)] {
        let rules = Rules {
            per_receiver: Some(cap),
            ..Rules::default()
        };
        let r1 = if late {
            vec![From(3), Send(2, 10)]
        } else {
            vec![Send(2, 10)]
        };
        let r3 = if late { vec![Send(1, 30)] } else { vec![] };
        assert_agree(
            Net::new(4, rules),
            &[
                vec![Send(2, 0), Send(2, 1)],
                r1,
                vec![Anyone, Anyone, Anyone],
                r3,
            ],
        );
    }
}

/// Two receivers share one capacity: r0 sends r1 two messages, r2 sends
/// r3 one; a receive of r1 makes room for r2's send to r3.
#[test]
fn a_capacity_shared_by_two_receivers() {
    for total in [1, 2, 3] {
        let rules = Rules {
            total: Some(total),
            ..Rules::default()
        };
        assert_agree(
            Net::new(4, rules),
            &[
                vec![Send(1, 0), Send(1, 1), From(2)],
                vec![From(0), From(0), Send(3, 11)],
                vec![Send(3, 20), Send(0, 21)],
                vec![Anyone, Anyone],
            ],
        );
    }
}

/// Newest first on every channel, with a receive from anyone of two
/// senders and a select: the same-channel pair hands out another message
/// in each order.
#[test]
fn a_lifo_channel_with_two_senders() {
    let rules = Rules {
        lifo: true,
        ..Rules::default()
    };
    for take in [Anyone, Select(vec![0, 2]), From(0)] {
        assert_agree(
            Net::new(3, rules),
            &[
                vec![Send(1, 0), Send(1, 1), Send(1, 2)],
                vec![take.clone(), Anyone, take, Anyone],
                vec![Send(1, 20)],
            ],
        );
    }
}

/// Role 0's waiting messages hold back the other senders: role 0's
/// second send takes r1 and r2 away from r3's receive from anyone,
/// though it commutes with r3's receive of its first message.
#[test]
fn a_priority_sender_holds_back_the_others() {
    let rules = Rules {
        priority: true,
        ..Rules::default()
    };
    for take in [Anyone, Select(vec![0, 1, 2])] {
        assert_agree(
            Net::new(4, rules),
            &[
                vec![Send(3, 0), Send(3, 1), Send(3, 2)],
                vec![Send(3, 10)],
                vec![Send(3, 20)],
                vec![take.clone(), Anyone, take, Anyone, Anyone],
            ],
        );
    }
}

/// r0's sends to r1 wait while r2 → r1 holds a message: a receive of r1
/// from r2 enables r0's send, on another channel than the pair of r0's
/// send and r1's receive of r0's earlier message.
#[test]
fn a_send_enabled_by_a_receive_of_another_channel() {
    let rules = Rules {
        gate: true,
        ..Rules::default()
    };
    for take in [Anyone, Select(vec![0, 2])] {
        assert_agree(
            Net::new(3, rules),
            &[
                vec![Send(1, 0), Send(1, 1), Send(1, 2)],
                vec![take.clone(), take.clone(), take, Anyone, Anyone],
                vec![Send(1, 20), Send(1, 21)],
            ],
        );
    }
}

/// A receive that reads the payload: odd numbers wait while another
/// sender's message is there.
#[test]
fn a_receive_that_answers_by_the_payload_value() {
    let rules = Rules {
        by_value: true,
        ..Rules::default()
    };
    assert_agree(
        Net::new(3, rules),
        &[
            vec![Send(1, 1), Send(1, 2), Send(1, 3)],
            vec![Anyone, Anyone, Anyone, Anyone],
            vec![Send(1, 20)],
        ],
    );
}

/// A select over two senders whose channels both come from one role's
/// relay: r0 sends r1 and r2, r2 forwards to r1; r1 selects over r0 and
/// r2, with a shared capacity of two for r1.
#[test]
fn a_select_over_a_sender_and_its_relay() {
    for cap in [None, Some(2), Some(1)] {
        let rules = Rules {
            per_receiver: cap,
            ..Rules::default()
        };
        assert_agree(
            Net::new(3, rules),
            &[
                vec![Send(1, 0), Send(2, 1), Send(1, 2)],
                vec![Select(vec![0, 2]), Select(vec![0, 2]), Select(vec![2, 0])],
                vec![From(0), Send(1, 21)],
            ],
        );
    }
}

/// Random programs (each message's receive from anyone, from its sender,
/// or a select over its sender and another) on random rules.
fn cases() -> impl Strategy<Value = (Net, Vec<Vec<Op>>)> {
    let rules = (
        prop::option::of(1usize..=3),
        prop::option::of(2usize..=4),
        any::<(bool, bool, bool, bool)>(),
    )
        .prop_map(
            |(per_receiver, total, (lifo, priority, gate, by_value))| Rules {
                per_receiver,
                total,
                lifo,
                priority,
                gate,
                by_value,
            },
        );
    (3usize..=4, rules).prop_flat_map(|(n, rules)| {
        let message = (0..n, 1..n, 0..3usize, 1..n);
        proptest::collection::vec(message, 2..=6).prop_map(move |msgs| {
            let mut ops: Vec<Vec<Op>> = vec![Vec::new(); n];
            for (i, (from, d, how, e)) in msgs.into_iter().enumerate() {
                let to = (from + d) % n;
                ops[from].push(Send(to, i as u32));
                let other = (to + e) % n;
                ops[to].push(match how {
                    0 => Anyone,
                    1 => From(from),
                    _ if other != from => Select(vec![from, other]),
                    _ => From(from),
                });
            }
            (Net::new(n, rules), ops)
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(150))]

    #[test]
    fn reductions_agree_with_plain_search_on_nets((net, ops) in cases()) {
        let missed = differences(&net, &ops, 3_000);
        prop_assume!(missed.is_some());
        let missed = missed.unwrap();
        prop_assert!(missed.is_empty(), "{}", missed.join("\n\n"));
    }
}
