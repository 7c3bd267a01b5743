//! A review of the same-channel rule against a wider family of objects
//! than `reduction_adversary`'s: credits per sender (a receive gives the
//! sender back the right to send to anyone), drop-oldest channels, a
//! receive from anyone that picks by state (highest sender first, round
//! robin, oldest message first, smallest payload first, the payload read
//! through a clone taken by value), a named receive refused unless the
//! object would pick that sender, a carbon copy of every message received
//! put on another channel, and programs with relays, unit and zero-sized
//! payloads, a clone sent twice and closes. Every result names the
//! message received, so that plain search and each reduction must agree
//! on which message went where.

use std::collections::VecDeque;

use proptest::prelude::*;
use prust::session::{Alternative, BlockingEndpoint};
use prust::{Message, Protocol, Refused, RoleId};

use super::support::agree;
use super::support::programs::each_role;
use super::support::queues::{close, Grid};

/// How a receive from anyone chooses among the senders it could take from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Pick {
    #[default]
    Lowest,
    Highest,
    /// The first sender after the one taken last (per receiver).
    RoundRobin,
    /// The channel whose head was sent first (a global clock).
    Oldest,
    /// The channel whose head has the smallest payload, read by value
    /// from a clone (`downcast`, no `downcast_ref`).
    Smallest,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Rules {
    /// At most this many on one channel.
    pub per_channel: Option<usize>,
    /// With `per_channel`: a send into a full channel drops its oldest.
    pub lossy: bool,
    /// At most this many messages of one sender in transit, to anyone.
    pub per_sender: Option<usize>,
    /// At most this many messages in transit to one receiver.
    pub per_receiver: Option<usize>,
    pub lifo: bool,
    pub pick: Pick,
    /// A receive from a named sender is refused unless a receive from
    /// anyone would take from it.
    pub strict_from: bool,
    /// A receive of this role also puts a clone of the message on its
    /// channel to the next role.
    pub cc: Option<RoleId>,
    /// A receive refuses an odd payload (read by value from a clone)
    /// while another channel to the receiver holds a message.
    pub odd_waits: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Zoo {
    rules: Rules,
    grid: Grid<(u64, Message)>,
    last: Vec<usize>,
    clock: u64,
}

/// A payload's number, read without `downcast_ref` (unseen by `looked_into`).
fn value_of(m: &Message) -> u32 {
    m.clone().downcast::<u32>().unwrap_or(999)
}

impl Zoo {
    pub fn new(n: usize, rules: Rules) -> Self {
        Zoo {
            rules,
            grid: Grid::new(n),
            last: vec![0; n],
            clock: 0,
        }
    }
    /// The object with `msgs` already in transit from `from` to `to`.
    pub fn preloaded(mut self, from: RoleId, to: RoleId, msgs: &[u32]) -> Self {
        for &v in msgs {
            self.push(from, to, Message::named("M", v)).expect("room");
        }
        self
    }
    fn q(&self, from: RoleId, to: RoleId) -> &VecDeque<(u64, Message)> {
        self.grid.q(from, to)
    }
    fn head(&self, from: RoleId, to: RoleId) -> Option<&(u64, Message)> {
        let q = self.q(from, to);
        if self.rules.lifo {
            q.back()
        } else {
            q.front()
        }
    }
    fn may_take(&self, role: RoleId, from: RoleId) -> bool {
        let Some((_, m)) = self.head(from, role) else {
            return false;
        };
        let odd = self.rules.odd_waits
            && value_of(m) % 2 == 1
            && (0..self.grid.n).any(|f| f != from && !self.q(f, role).is_empty());
        !odd
    }
    fn pick(&self, role: RoleId) -> Option<RoleId> {
        let ok: Vec<RoleId> = (0..self.grid.n)
            .filter(|&f| f != role && self.may_take(role, f))
            .collect();
        let head = |f: RoleId| self.head(f, role).expect("may_take saw one");
        match self.rules.pick {
            Pick::Lowest => ok.first().copied(),
            Pick::Highest => ok.last().copied(),
            Pick::RoundRobin => {
                let after = self.last[role];
                ok.iter()
                    .copied()
                    .find(|&f| f > after)
                    .or(ok.first().copied())
            }
            Pick::Oldest => ok.iter().copied().min_by_key(|&f| head(f).0),
            Pick::Smallest => ok
                .iter()
                .copied()
                .min_by_key(|&f| (value_of(&head(f).1), f)),
        }
    }
    fn push(&mut self, from: RoleId, to: RoleId, msg: Message) -> Result<(), Message> {
        let r = self.rules;
        let full_channel = r.per_channel.is_some_and(|c| self.q(from, to).len() >= c);
        let full = (full_channel && !r.lossy)
            || r.per_sender
                .is_some_and(|c| self.grid.in_transit_from(from) >= c)
            || r.per_receiver
                .is_some_and(|c| self.grid.in_transit_to(to) >= c);
        if from == to || to >= self.grid.n || full {
            return Err(msg);
        }
        if self.rules.pick == Pick::Oldest {
            self.clock += 1;
        }
        let clock = self.clock;
        let q = self.grid.q_mut(from, to);
        if full_channel {
            q.pop_front();
        }
        q.push_back((clock, msg));
        Ok(())
    }
}

impl Protocol for Zoo {
    fn roles(&self) -> Vec<String> {
        self.grid.roles()
    }
    fn try_send(&mut self, role: RoleId, to: RoleId, msg: Message) -> Result<(), Refused<Message>> {
        self.push(role, to, msg).map_err(Refused)
    }
    fn try_recv(
        &mut self,
        role: RoleId,
        from: Option<RoleId>,
    ) -> Result<(RoleId, Message), Refused> {
        let f = match from {
            Some(f) => f,
            None => self.pick(role).ok_or(Refused(()))?,
        };
        if f >= self.grid.n || f == role || !self.may_take(role, f) {
            return Err(Refused(()));
        }
        if self.rules.strict_from && self.pick(role) != Some(f) {
            return Err(Refused(()));
        }
        let before = self.clone();
        let lifo = self.rules.lifo;
        let q = self.grid.q_mut(f, role);
        let (_, m) = if lifo { q.pop_back() } else { q.pop_front() }.expect("may_take saw one");
        if self.rules.pick == Pick::RoundRobin {
            self.last[role] = f;
        }
        if self.rules.cc == Some(role) {
            let to = (role + 1) % self.grid.n;
            if self.push(role, to, m.clone()).is_err() {
                *self = before;
                return Err(Refused(()));
            }
        }
        Ok((f, m))
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

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Body {
    Num(u32),
    Unit,
    Zst,
}

#[derive(Clone, Debug)]
pub enum Op {
    Send(RoleId, Body),
    /// Sends one message to both (a clone to the second).
    Twice(RoleId, RoleId, u32),
    Anyone,
    From(RoleId),
    Select(Vec<RoleId>),
    /// Receives from anyone and forwards what it got.
    Relay(RoleId),
    Close(RoleId),
}

/// What a role received: (sender, what) in order; 1000 a unit, 2000 a
/// token.
pub type Got = Vec<(RoleId, u32)>;

fn message(b: Body) -> Message {
    match b {
        Body::Num(v) => Message::named("M", v),
        Body::Unit => Message::named("M", ()),
        Body::Zst => Message::named("M", Token),
    }
}

fn what(m: &Message) -> u32 {
    if let Some(v) = m.downcast_ref::<u32>() {
        *v
    } else if m.downcast_ref::<Token>().is_some() {
        2000
    } else {
        1000
    }
}

fn run(ep: &mut impl BlockingEndpoint, ops: &[Op]) -> Got {
    let mut got = Vec::new();
    for op in ops {
        let r = match op {
            Op::Send(to, b) => ep.send(*to, message(*b)).map(|_| None),
            Op::Twice(a, b, v) => {
                let m = Message::named("M", *v);
                ep.send(*a, m.clone())
                    .and_then(|_| ep.send(*b, m))
                    .map(|_| None)
            }
            Op::Anyone => ep.recv().map(|(f, m)| Some((f, what(&m)))),
            Op::From(f) => ep.recv_from(*f).map(|m| Some((*f, what(&m)))),
            Op::Select(fs) => {
                let alts: Vec<Alternative> = fs.iter().map(|&f| Alternative::sender(f)).collect();
                ep.select(&alts).map(|(i, m)| Some((fs[i], what(&m))))
            }
            Op::Relay(to) => ep.recv().and_then(|(f, m)| {
                let w = what(&m);
                ep.send(*to, m).map(|_| Some((f, w)))
            }),
            Op::Close(to) => ep.close(*to).map(|_| None),
        };
        match r {
            Ok(Some(x)) => got.push(x),
            Ok(None) => {}
            Err(_) => break,
        }
    }
    got
}

/// What the reductions find differently from plain search (DPOR also
/// under preemption bounds 1 and 2); `None` if plain search does not
/// finish within `max` executions.
pub fn differences(zoo: &Zoo, ops: &[Vec<Op>], max: usize) -> Option<Vec<String>> {
    let case = format!("{zoo:?}, {ops:?}");
    let program = each_role(ops, run);
    agree::differences(zoo, &case, program, &[None, Some(1), Some(2)], max)
}

fn rules() -> impl Strategy<Value = Rules> {
    (
        prop::option::of(1usize..=2),
        any::<bool>(),
        prop::option::of(1usize..=2),
        prop::option::of(1usize..=3),
        any::<bool>(),
        0..5u8,
        any::<(bool, bool, bool)>(),
        0..4usize,
    )
        .prop_map(
            |(
                per_channel,
                lossy,
                per_sender,
                per_receiver,
                lifo,
                pick,
                (strict_from, cc, odd),
                who,
            )| {
                Rules {
                    per_channel,
                    lossy,
                    per_sender,
                    per_receiver,
                    lifo,
                    pick: [
                        Pick::Lowest,
                        Pick::Highest,
                        Pick::RoundRobin,
                        Pick::Oldest,
                        Pick::Smallest,
                    ][pick as usize],
                    strict_from,
                    cc: cc.then_some(who),
                    odd_waits: odd,
                }
            },
        )
}

/// Random programs: each message sent by one role and received by its
/// receiver from anyone, from its sender, by a select, or relayed to a
/// third role that takes it from anyone; some bodies units or tokens, some
/// messages sent twice, some channels closed at the end.
pub fn cases() -> impl Strategy<Value = (Zoo, Vec<Vec<Op>>)> {
    (3usize..=4, rules()).prop_flat_map(|(n, rules)| {
        let message = (0..n, 1..n, 0..5usize, 1..n, 0..8u8);
        (
            proptest::collection::vec(message, 2..=6),
            proptest::collection::vec((0..n, 1..n), 0..=1),
        )
            .prop_map(move |(msgs, closes)| {
                let mut ops: Vec<Vec<Op>> = vec![Vec::new(); n];
                for (i, (from, d, how, e, body)) in msgs.into_iter().enumerate() {
                    let to = (from + d) % n;
                    let other = (to + e) % n;
                    let b = match body {
                        0 => Body::Unit,
                        1 => Body::Zst,
                        _ => Body::Num(i as u32),
                    };
                    if body == 7 && other != from && other != to {
                        ops[from].push(Op::Twice(to, other, i as u32));
                        ops[to].push(Op::Anyone);
                        ops[other].push(Op::Anyone);
                        continue;
                    }
                    ops[from].push(Op::Send(to, b));
                    let take = match how {
                        0 => Op::Anyone,
                        1 => Op::From(from),
                        2 if other != from => Op::Select(vec![from, other]),
                        3 if other != from => {
                            ops[other].push(Op::Anyone);
                            Op::Relay(other)
                        }
                        _ => Op::From(from),
                    };
                    ops[to].push(take);
                }
                for (from, d) in closes {
                    ops[from].push(Op::Close((from + d) % n));
                }
                (Zoo::new(n, rules), ops)
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("ZOO_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(64)
    ))]

    #[test]
    fn reductions_agree_with_plain_search_on_a_zoo((zoo, ops) in cases()) {
        let missed = differences(&zoo, &ops, 3_000);
        prop_assume!(missed.is_some());
        let missed = missed.unwrap();
        prop_assert!(missed.is_empty(), "{}", missed.join("\n\n"));
    }
}

fn assert_agree(zoo: Zoo, ops: &[Vec<Op>]) {
    let missed = differences(&zoo, ops, 200_000).expect("plain search finishes");
    agree::assert_agree(missed);
}

use Body::Num;
use Op::{Anyone, Send};

/// `reduction_adversary`'s receive that answers by the payload's value,
/// the payload read from a clone taken by value (no `downcast_ref`, so
/// the recorder does not see it looked into).
#[test]
fn a_receive_that_answers_by_a_value_read_from_a_clone() {
    let rules = Rules {
        odd_waits: true,
        ..Rules::default()
    };
    assert_agree(
        Zoo::new(3, rules),
        &[
            vec![Send(1, Num(1)), Send(1, Num(2)), Send(1, Num(3))],
            vec![Anyone, Anyone, Anyone, Anyone],
            vec![Send(1, Num(20))],
        ],
    );
}

/// A channel of two that drops its oldest: a third send of r0 and r1's
/// receive of r0's first message do not commute.
#[test]
fn a_drop_oldest_channel_with_two_senders() {
    for pick in [Pick::Lowest, Pick::Highest, Pick::Oldest] {
        let rules = Rules {
            per_channel: Some(2),
            lossy: true,
            pick,
            ..Rules::default()
        };
        assert_agree(
            Zoo::new(3, rules),
            &[
                vec![Send(1, Num(0)), Send(1, Num(1)), Send(1, Num(2))],
                vec![Anyone, Anyone],
                vec![Send(1, Num(20))],
            ],
        );
    }
}

/// A receive from anyone that must take the lowest sender that has a
/// message for it, and a relay made by the object: r2's receive of r1's
/// message puts a copy on r2 → r3. r3 takes three from anyone: the copy
/// may come before, between or after r0's two messages. No program step
/// sends on r2 → r3, so neither `feeds` nor the count of messages in
/// transit of `blocked_alternatives` sees the copy wait.
#[test]
fn a_copy_made_by_the_object_waits_behind_a_priority_sender() {
    let rules = Rules {
        strict_from: true,
        cc: Some(2),
        ..Rules::default()
    };
    assert_agree(
        Zoo::new(4, rules),
        &[
            vec![Send(3, Num(0)), Send(3, Num(1))],
            vec![Send(2, Num(10))],
            vec![Op::From(1)],
            vec![Anyone, Anyone, Anyone],
        ],
    );
}

/// The same without a copy: r2 → r3 holds a message from the start,
/// which no program step sent.
#[test]
fn a_message_there_from_the_start_waits_behind_a_priority_sender() {
    let rules = Rules {
        strict_from: true,
        ..Rules::default()
    };
    assert_agree(
        Zoo::new(4, rules).preloaded(2, 3, &[10]),
        &[
            vec![Send(3, Num(0)), Send(3, Num(1))],
            vec![],
            vec![],
            vec![Anyone, Anyone, Anyone],
        ],
    );
}

/// A copy made by the object, behind a program's relay instead of a
/// priority: r2 forwards r1's message to r3 itself (a program send).
#[test]
fn a_relayed_message_waits_behind_a_priority_sender() {
    let rules = Rules {
        strict_from: true,
        ..Rules::default()
    };
    assert_agree(
        Zoo::new(4, rules),
        &[
            vec![Send(3, Num(0)), Send(3, Num(1))],
            vec![Send(2, Num(10))],
            vec![Op::Relay(3)],
            vec![Anyone, Anyone, Anyone],
        ],
    );
}

/// As the message there from the start, with r3's receives named (the
/// second from r2, refused while r0 → r3 holds a message: a deadlock if
/// r0's second message comes first) or a select over r0 and r2.
#[test]
fn a_message_there_from_the_start_and_named_receives_or_a_select() {
    let rules = Rules {
        strict_from: true,
        ..Rules::default()
    };
    let select = || Op::Select(vec![0, 2]);
    for r3 in [
        vec![Op::From(0), Op::From(2), Op::From(0)],
        vec![select(), select(), select()],
    ] {
        assert_agree(
            Zoo::new(4, rules).preloaded(2, 3, &[10]),
            &[vec![Send(3, Num(0)), Send(3, Num(1))], vec![], vec![], r3],
        );
    }
}

/// Newest first, and r1's receives copied onto r1 → r2: r1's receive of
/// r0's message puts its copy on top of r1's own message to r2, so r2's
/// receive gets another payload after it than before it, with objects
/// equal by type either way. The two receives are on different channels
/// (r0 → r1 and r1 → r2): `==` objects do not show it.
#[test]
fn a_copy_pushed_on_a_lifo_channel_by_a_receive_of_another() {
    let rules = Rules {
        lifo: true,
        cc: Some(1),
        ..Rules::default()
    };
    assert_agree(
        Zoo::new(3, rules),
        &[
            vec![Send(1, Num(0))],
            vec![Send(2, Num(5)), Op::From(0)],
            vec![Op::From(1), Op::From(1)],
        ],
    );
}
