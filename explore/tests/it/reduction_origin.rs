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
use std::collections::VecDeque;
use std::fmt::Debug;

use prust::engine::MessageType;
use prust::explore::{Exploration, Explorer, Handle, Reduction, Roles};
use prust::session::{Alternative, AsyncOp, BlockingEndpoint, Done};
use prust::{Message, Protocol, Refused, RoleId};
use testkit::aio;
use testkit::mailbox::{outcomes, results};

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
    n: usize,
    kind: Kind,
    capacity: Option<usize>,
    queues: Vec<VecDeque<Message>>,
    /// Whether r1 may receive from r0 only in turns: after each receive
    /// from r0, one from r2 first.
    gated: bool,
    /// Whether r1's next receive from r0 must wait for one from r2.
    r2_turn: bool,
}

impl Chan {
    fn new(n: usize, kind: Kind) -> Self {
        Chan {
            n,
            kind,
            capacity: None,
            queues: vec![VecDeque::new(); n * n],
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
        self.queues[from * self.n + to].extend(msgs);
        self
    }

    fn queue(&mut self, from: RoleId, to: RoleId) -> &mut VecDeque<Message> {
        &mut self.queues[from * self.n + to]
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
        let other_empty = self.queues[2 % self.n * self.n + 1].is_empty();
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
        (0..self.n).map(|i| format!("r{i}")).collect()
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
        if kind == Kind::NotifyHead && (role, to) == (0, 1) && self.n > 2 {
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
        let n = self.n;
        let f = match from {
            Some(f) => f,
            None => (0..n)
                .find(|&f| !self.queues[f * n + role].is_empty() && self.may_take(role, f))
                .ok_or(Refused(()))?,
        };
        if f >= n || f == role {
            return Err(Refused(()));
        }
        self.take(role, f).map(|m| (f, m)).ok_or(Refused(()))
    }
    fn try_close(&mut self, role: RoleId, to: RoleId) -> Result<(), Refused> {
        if role == to {
            Err(Refused(()))
        } else {
            Ok(())
        }
    }
    fn is_channel_empty(&self, from: RoleId, to: RoleId) -> bool {
        self.queues[from * self.n + to].is_empty()
    }
    fn is_terminated(&self) -> bool {
        self.queues.iter().all(VecDeque::is_empty)
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

/// Explores `program` on `object` with plain search and with each
/// reduction (and DPOR under a preemption bound of 1 against plain
/// search under it), each under `property` if given, and returns what
/// differs: the failures' outcomes or the distinct results. Plain search
/// must find more than one of them, or there would be nothing to lose.
fn disagreements<P, F, T>(object: &P, program: F, property: Option<&str>) -> Vec<String>
where
    P: Protocol,
    F: Fn(&mut Roles<'_, P>) -> Handle<T> + Sync,
    T: Ord + Clone + Debug + Send + 'static,
{
    let run = |reduction, bound| {
        let explorer = Explorer::new().preemption_bound(bound).reduction(reduction);
        let explorer = match property {
            Some(f) => explorer.property(f),
            None => explorer,
        };
        explorer.explore(object.clone(), &program)
    };
    let seen = |ex: &Exploration<T>| (outcomes(ex), results(ex));
    let mut out = Vec::new();
    for bound in [None, Some(1)] {
        let plain = run(Reduction::None, bound);
        let found = seen(&plain);
        if bound.is_none() {
            assert!(plain.is_complete(), "{plain}");
            assert!(
                found.0.len() + found.1.len() > 1,
                "plain search finds one outcome only: {plain}"
            );
        }
        let reductions: &[Reduction] = match bound {
            None => &[Reduction::SleepSets, Reduction::Dpor],
            // Sleep sets are off under a bound.
            Some(_) => &[Reduction::Dpor],
        };
        for &reduction in reductions {
            let reduced = run(reduction, bound);
            assert_eq!(reduced.reduction(), reduction, "{reduced}");
            if bound.is_none() {
                assert_eq!(reduced.reduction_off(), None, "{reduced}");
            }
            if seen(&reduced) != found {
                out.push(format!(
                    "{reduction} bound {bound:?}: {:?}\nplain: {:?}\n{reduced}\nplain: {plain}",
                    seen(&reduced),
                    found
                ));
            }
        }
    }
    out
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

fn assert_agree(missed: Vec<String>) {
    assert!(missed.is_empty(), "{}", missed.join("\n\n"));
}

/// Attacks origin by payload address: the object writes the number of
/// messages left into the very box it hands out (a `Cell<u32>` payload,
/// reached through `downcast_ref`). The message taken is r0's first in
/// both orders of r0's second send and r1's first receive, by address
/// and by type, the objects are equal and the rest of the channel is
/// the same message: but r1 reads a number one larger in one order.
/// r0 sends three; each way of taking them (from r0, from anyone, a
/// select), and on a channel bounded to two messages (the third send
/// waits for a receive). Contract points relied on: the
/// object is deterministic (a clone of the object clones the cell) and
/// hands out a payload as its state says at the receive.
#[test]
fn a_stamp_written_into_the_payload_on_receive_keeps_the_pair_ordered() {
    let mut missed = Vec::new();
    for object in [
        Chan::new(3, Kind::Stamp),
        Chan::new(3, Kind::Stamp).bounded(2),
    ] {
        for (how, bad) in takes_and([None, Some(0), Some(1)]) {
            missed.extend(disagreements(
                &object,
                move |r| {
                    r.spawn("r0", |mut ep| {
                        for _ in 0..3 {
                            ep.send("r1", Cell::new(7u32)).unwrap();
                        }
                    });
                    r.spawn("r2", |_ep| {});
                    r.spawn("r1", move |mut ep| {
                        let stamps: Vec<u32> = (0..3)
                            .map(|_| {
                                take(&mut ep, how)
                                    .downcast_ref::<Cell<u32>>()
                                    .unwrap()
                                    .get()
                            })
                            .collect();
                        refuse(&stamps[0], bad, "the first stamp");
                        stamps
                    })
                },
                None,
            ));
        }
    }
    assert_agree(missed);
}

/// A payload taken out of its box and boxed again at the same address
/// (`downcast_box`, changed, `with_boxed`), and one taken by value and
/// rebuilt (`downcast`, `Message::with_type`, which the allocator
/// likely places at the freed address): neither may count as the
/// message that was sent. r1 reads 1 or 101 depending on the order of
/// r0's second send and its first receive.
#[test]
fn a_payload_reboxed_or_rebuilt_in_place_is_not_the_message_sent() {
    let mut missed = Vec::new();
    for kind in [Kind::Rebox, Kind::Rebuild] {
        for (how, bad) in takes_and([None, Some(1), Some(101)]) {
            missed.extend(disagreements(
                &Chan::new(3, kind),
                move |r| {
                    r.spawn("r0", |mut ep| {
                        ep.send("r1", Message::named("M", 1u32)).unwrap();
                        ep.send("r1", Message::named("M", 2u32)).unwrap();
                    });
                    r.spawn("r2", |_ep| {});
                    r.spawn("r1", move |mut ep| {
                        let first = *take(&mut ep, how).downcast_ref::<u32>().unwrap();
                        let second = *take(&mut ep, how).downcast_ref::<u32>().unwrap();
                        refuse(&first, bad, "the first value");
                        (first, second)
                    })
                },
                None,
            ));
        }
    }
    assert_agree(missed);
}

/// What a payload is, as a receiver tells it apart.
fn what(m: &Message) -> &'static str {
    if m.is_unit() {
        "()"
    } else if m.downcast_ref::<Blue>().is_some() {
        "Blue"
    } else if m.downcast_ref::<Green>().is_some() {
        "Green"
    } else if m.downcast_ref::<[u8; 0]>().is_some() {
        "[u8; 0]"
    } else if m.downcast_ref::<u32>().is_some() {
        "u32"
    } else {
        "other"
    }
}

/// Zero-sized payload types: no address tells two of them apart.
#[derive(Clone, Debug)]
struct Blue;
#[derive(Clone, Debug)]
struct Green;

fn payload(which: &str) -> Message {
    match which {
        "()" => Message::named("M", ()),
        "Blue" => Message::named("M", Blue),
        "Green" => Message::named("M", Green),
        "[u8; 0]" => Message::named("M", [0u8; 0]),
        "u32" => Message::named("M", 5u32),
        _ => unreachable!(),
    }
}

/// Payloads with no data under one message type: two zero-sized Rust
/// types, a zero-sized one and `()`, a zero-sized array and a unit
/// struct, a zero-sized one and data. On a LIFO channel the first
/// receive takes the first or the second message by the order of the
/// second send and the receive; judged by type path alone the two
/// orders hand out "the same" message.
#[test]
fn payloads_without_data_of_different_rust_types_are_different_messages() {
    let mut missed = Vec::new();
    let pairs = [
        ("Blue", "Green"),
        ("()", "Blue"),
        ("Green", "()"),
        ("[u8; 0]", "Blue"),
        ("Blue", "u32"),
        ("()", "u32"),
    ];
    for ((a, b), bad) in pairs
        .into_iter()
        .flat_map(|(a, b)| [None, Some(a), Some(b)].map(|bad| ((a, b), bad)))
    {
        missed.extend(disagreements(
            &Chan::new(3, Kind::Lifo),
            move |r| {
                r.spawn("r0", move |mut ep| {
                    ep.send("r1", payload(a)).unwrap();
                    ep.send("r1", payload(b)).unwrap();
                });
                r.spawn("r2", |_ep| {});
                r.spawn("r1", move |mut ep| {
                    let first = what(&take(&mut ep, Take::From));
                    let second = what(&take(&mut ep, Take::Anyone));
                    refuse(&first, bad, "the first payload");
                    (first, second)
                })
            },
            None,
        ));
    }
    assert_agree(missed);
}

/// A receive that hands out `a::M` or `b::M` (unit payloads, one short
/// name: the acts of the two orders are equal) by whether the channel is
/// empty after it. Only the received message's full type path tells the
/// two orders of r0's second send and r1's first receive apart.
#[test]
fn a_receive_that_changes_the_type_path_by_state_keeps_the_pair_ordered() {
    let mut missed = Vec::new();
    for (how, bad) in takes_and([None, Some("a::M"), Some("b::M")]) {
        missed.extend(disagreements(
            &Chan::new(3, Kind::Retype),
            move |r| {
                r.spawn("r0", |mut ep| {
                    for _ in 0..2 {
                        ep.send("r1", Message::named("M", ())).unwrap();
                    }
                });
                r.spawn("r2", |_ep| {});
                r.spawn("r1", move |mut ep| {
                    let first = take(&mut ep, how).type_path().to_string();
                    take(&mut ep, how);
                    refuse(&first.as_str(), bad, "the first type path");
                    first
                })
            },
            None,
        ));
    }
    assert_agree(missed);
}

/// The most likely hole: a receive of r1 also sends r0 a receipt, a copy
/// of the message r1 will get next (or of the one it got, if none is
/// left). In both orders of r0's second send and r1's first receive, r1
/// takes the same message, the objects are equal (one message on each
/// channel), and the rest of r0 → r1 is the same message: only the
/// receipt on *another* channel differs (r0's second message in one
/// order, its first in the other). Contract points relied on: the
/// receipt is a copy handed out as the state says at the receive; the
/// object moves nothing afterwards; the receipt depends only on the
/// channel r0 → r1, which no step of another channel can change.
#[test]
fn a_receipt_on_another_channel_keeps_the_pair_ordered() {
    let mut missed = Vec::new();
    for (how, bad) in takes_and([None, Some(1), Some(2)]) {
        missed.extend(disagreements(
            &Chan::new(3, Kind::EchoHead),
            move |r| {
                r.spawn("r2", |_ep| {});
                r.spawn("r1", move |mut ep| {
                    take(&mut ep, how);
                    take(&mut ep, how);
                });
                r.spawn("r0", move |mut ep| {
                    ep.send("r1", Message::named("M", 1u32)).unwrap();
                    ep.send("r1", Message::named("M", 2u32)).unwrap();
                    let receipt = *ep.recv_from("r1").unwrap().downcast_ref::<u32>().unwrap();
                    ep.recv_from("r1").unwrap();
                    refuse(&receipt, bad, "the receipt");
                    receipt
                })
            },
            None,
        ));
    }
    assert_agree(missed);
}

/// As above from the send's side, with a third role: a send of r0 to r1
/// also tells a monitor r2 which message r1 will get next. r0's second
/// send before r1's first receive tells r2 "1", after it "2"; r1 gets 1
/// then 2 either way and the objects are equal. The failure is r2's, a
/// role that touches neither step of the pair.
#[test]
fn a_notice_to_a_third_role_keeps_the_pair_ordered() {
    let mut missed = Vec::new();
    for (how, bad) in takes_and([None, Some([1, 1]), Some([1, 2])]) {
        missed.extend(disagreements(
            &Chan::new(3, Kind::NotifyHead),
            move |r| {
                r.spawn("r0", |mut ep| {
                    ep.send("r1", Message::named("M", 1u32)).unwrap();
                    ep.send("r1", Message::named("M", 2u32)).unwrap();
                });
                r.spawn("r1", move |mut ep| {
                    take(&mut ep, how);
                    take(&mut ep, how);
                });
                r.spawn("r2", move |mut ep| {
                    let mut heads = [0u32; 2];
                    for h in &mut heads {
                        *h = *ep.recv_from("r0").unwrap().downcast_ref::<u32>().unwrap();
                    }
                    refuse(&heads, bad, "the notices");
                    heads
                })
            },
            None,
        ));
    }
    assert_agree(missed);
}

/// The same receipt object under a property whose atoms see only r0's
/// receives of receipts (so they are dependent on every step), not the
/// pair: the pair must stay ordered there too, and the property (which
/// holds) must not hide it.
#[test]
fn a_receipt_on_another_channel_keeps_the_pair_ordered_under_a_property() {
    let mut missed = Vec::new();
    for bad in [None, Some(1), Some(2)] {
        missed.extend(disagreements(
            &Chan::new(3, Kind::EchoHead),
            move |r| {
                r.spawn("r2", |_ep| {});
                r.spawn("r1", |mut ep| {
                    take(&mut ep, Take::Anyone);
                    take(&mut ep, Take::Anyone);
                });
                r.spawn("r0", move |mut ep| {
                    ep.send("r1", Message::named("M", 1u32)).unwrap();
                    ep.send("r1", Message::named("M", 2u32)).unwrap();
                    let receipt = *ep.recv_from("r1").unwrap().downcast_ref::<u32>().unwrap();
                    ep.recv_from("r1").unwrap();
                    refuse(&receipt, bad, "the receipt");
                    receipt
                })
            },
            Some(r#"F "r0 RECV * FROM r1""#),
        ));
    }
    assert_agree(missed);
}

/// The rest of the channel deeper than the drain that compares it: 66
/// messages wait, a send into exactly 66 goes before the last. r0's
/// send and r1's first receive leave the rest of the channel equal in
/// its first 64 messages in both orders, and different in the 65th and
/// 66th (r0's message before or after the preloaded 65): the drain
/// stops at 64 with the channel not empty, which must mean "dependent".
#[test]
fn a_difference_past_the_drained_part_of_the_channel_keeps_the_pair_ordered() {
    let preload = (0..66u32).map(|v| Message::named("M", v));
    let object = Chan::new(2, Kind::InsertAt(66, 65)).preloaded(0, 1, preload);
    let mut missed = Vec::new();
    for bad in [None, Some(false), Some(true)] {
        missed.extend(disagreements(
            &object,
            move |r| {
                r.spawn("r0", |mut ep| {
                    ep.send("r1", Message::named("M", 1000u32)).unwrap();
                });
                r.spawn("r1", move |mut ep| {
                    let got: Vec<u32> = (0..67)
                        .map(|_| *ep.recv_from("r0").unwrap().downcast_ref::<u32>().unwrap())
                        .collect();
                    let at = |v| got.iter().position(|&x| x == v).unwrap();
                    let early = at(1000) < at(65);
                    refuse(&early, bad, "r0's message before the last preloaded one");
                    early
                })
            },
            None,
        ));
    }
    assert_agree(missed);
}

/// A channel whose receives r1 may take only in turns with r2's, and
/// where a send into exactly two messages goes between them: in both
/// orders of r0's third send and r1's first receive, r1 takes r0's first
/// message, but the rest of the channel is 3, 2 in one order and 2, 3 in
/// the other. After the pair the drain that would compare that rest is
/// refused at once (r2's turn) while messages are still there, and the
/// object says so (`is_channel_empty` is false): the pair must stay
/// dependent. r1 receives in turns, or from anyone (which may also
/// deadlock: r2's messages taken first leave r0's blocked behind the
/// turn, an outcome to find as well).
#[test]
fn a_drain_refused_by_the_object_keeps_the_pair_ordered() {
    let mut missed = Vec::new();
    let bads = [None, Some([1, 2, 3]), Some([1, 3, 2])];
    for (anyone, bad) in [false, true].into_iter().flat_map(|a| bads.map(|b| (a, b))) {
        missed.extend(disagreements(
            &Chan::new(3, Kind::InsertAt(2, 1)).gated(),
            move |r| {
                r.spawn("r0", |mut ep| {
                    for v in [1u32, 2, 3] {
                        ep.send("r1", Message::named("M", v)).unwrap();
                    }
                });
                r.spawn("r2", |mut ep| {
                    ep.send("r1", Message::named("T", ())).unwrap();
                    ep.send("r1", Message::named("T", ())).unwrap();
                });
                r.spawn("r1", move |mut ep| {
                    let mut got = Vec::new();
                    for i in 0..5 {
                        let (from, m) = if anyone {
                            ep.recv().unwrap()
                        } else {
                            let from = if i % 2 == 0 { 0 } else { 2 };
                            (from, ep.recv_from(from).unwrap())
                        };
                        if from == 0 {
                            got.push(*m.downcast_ref::<u32>().unwrap());
                        }
                    }
                    let got: [u32; 3] = got.try_into().unwrap();
                    refuse(&got, bad, "r0's messages");
                    got
                })
            },
            None,
        ));
    }
    assert_agree(missed);
}

/// r0 sends two stamped messages and closes; r1 takes messages until the
/// channel is closed and empty, which the object tells honestly: the
/// close, the end of the channel and the stamps (1 or 0 on the first)
/// must all be found in every order plain search finds them.
#[test]
fn a_close_after_the_pair_keeps_every_stamp_and_the_end_of_the_channel() {
    let missed = disagreements(
        &Chan::new(2, Kind::Stamp),
        |r| {
            r.spawn("r0", |mut ep| {
                ep.send("r1", Cell::new(9u32)).unwrap();
                ep.send("r1", Cell::new(9u32)).unwrap();
                ep.close("r1").unwrap();
            });
            r.spawn("r1", |mut ep| {
                let mut stamps = Vec::new();
                while let Ok(m) = ep.recv_from("r0") {
                    stamps.push(m.downcast_ref::<Cell<u32>>().unwrap().get());
                }
                stamps
            })
        },
        None,
    );
    assert_agree(missed);
}

/// Async roles: r1's task awaits a select over r0 and r2 (the explored
/// select of a task), r0's task sends two stamped messages and r2's one
/// plain message; which alternative wins and the stamp r1 reads must
/// be found as plain search finds them.
#[test]
fn an_async_select_keeps_the_stamp_of_the_pair() {
    let missed = disagreements(
        &Chan::new(3, Kind::Stamp),
        |r| {
            r.spawn_async("r0", |mut ep| async move {
                aio::send(&mut ep, "r1", Cell::new(3u32)).await.unwrap();
                aio::send(&mut ep, "r1", Cell::new(3u32)).await.unwrap();
            });
            r.spawn_async("r2", |mut ep| async move {
                aio::send(&mut ep, "r1", Message::named("M", 8u32))
                    .await
                    .unwrap();
            });
            r.spawn_async("r1", |mut ep| async move {
                let alts = [Alternative::sender(0), Alternative::sender(2)];
                let mut seen = Vec::new();
                for _ in 0..3 {
                    let done = aio::Op::new(&mut ep, AsyncOp::select(&alts)).await;
                    let Ok(Done::Selected(i, m)) = done else {
                        panic!("{done:?}")
                    };
                    let stamp = m.downcast_ref::<Cell<u32>>().map(Cell::get);
                    seen.push((i, stamp));
                }
                seen
            })
        },
        None,
    );
    assert_agree(missed);
}

/// The finer rule where it is right: a FIFO channel with payloads of
/// every kind, received from anyone by r1 while r2 also sends. The
/// reductions must find every order in which r1 sees the two senders'
/// messages (the send-receive pairs of one channel commute here, those
/// of a receive from anyone and another sender's send do not).
#[test]
fn a_fifo_channel_with_a_receive_from_anyone_loses_no_interleaving() {
    let missed = disagreements(
        &Chan::new(3, Kind::Fifo),
        |r| {
            r.spawn("r0", |mut ep| {
                ep.send("r1", payload("Blue")).unwrap();
                ep.send("r1", payload("u32")).unwrap();
                ep.send("r1", payload("()")).unwrap();
            });
            r.spawn("r2", |mut ep| {
                ep.send("r1", payload("Green")).unwrap();
            });
            r.spawn("r1", |mut ep| {
                let got: Vec<(RoleId, &str)> = (0..4)
                    .map(|_| {
                        let (from, m) = ep.recv().unwrap();
                        (from, what(&m))
                    })
                    .collect();
                got
            })
        },
        None,
    );
    assert_agree(missed);
}

/// Not a same-channel pair, and a bug this file found: r1's receive from
/// r0 hands out `a::M` or `b::M` (unit payloads, one short name) by
/// whether r2 → r1 is empty, so r2's send and that receive (different
/// channels) commute on the object, with acts that name the same short
/// type, while r1 sees another type path in each order. The reductions
/// take them for independent and lose `b::M`. Contract points relied on:
/// the object is deterministic and answers a receive by its state; a
/// type path is part of what `==` compares (no payload is involved).
/// Acts named a received message by its short type name then; they name
/// its full path now.
#[test]
fn a_type_path_told_by_another_channel_keeps_the_two_steps_ordered() {
    assert_agree(disagreements(
        &Chan::new(3, Kind::RetypeByOther),
        |r| {
            r.spawn("r0", |mut ep| {
                ep.send("r1", Message::named("M", ())).unwrap()
            });
            r.spawn("r2", |mut ep| {
                ep.send("r1", Message::named("M", ())).unwrap()
            });
            r.spawn("r1", |mut ep| {
                let p = ep.recv_from("r0").unwrap().type_path().to_string();
                ep.recv_from("r2").unwrap();
                p
            })
        },
        None,
    ));
}
