//! A review of the rule for two steps on different channels
//! (`independence::commute`): both orders run in one origin recording
//! window, and the pair is dependent if a step makes a message, looks into
//! a payload, or hands a role another message in each order. The rest of
//! the objects after both orders is compared by `==` alone, which sees
//! messages by type: each object here puts payloads in another order
//! after each order of two such steps, or hands out messages whose origin
//! the window cannot tell, while `==` and the acts agree. Plain search
//! finds both orders' results; a reduction that takes the two steps for
//! independent runs one order and loses the other's.
//!
//! Every object is deterministic, leaves no trace when it refuses, says a
//! channel is empty exactly when a receive from it would find nothing,
//! compares messages by type, and moves no payload once it is placed.

use std::collections::VecDeque;
use std::fmt::Debug;

use prust::explore::{Exploration, Explorer, Handle, Reduction, Roles};
use prust::session::{Alternative, BlockingEndpoint};
use prust::{Message, Protocol, Refused, RoleId};
use testkit::mailbox::{outcomes, results, Mailbox};

/// Explores `program` on `object` with plain search and with each
/// reduction (DPOR also under a preemption bound of 1), and returns what
/// differs from plain search: the failures' outcomes or the distinct
/// results. Plain search must find more than one result.
fn disagreements<P, F, T>(object: &P, program: F) -> Vec<String>
where
    P: Protocol,
    F: Fn(&mut Roles<'_, P>) -> Handle<T> + Sync,
    T: Ord + Clone + Debug + Send + 'static,
{
    let run = |reduction, bound| {
        Explorer::new()
            .preemption_bound(bound)
            .reduction(reduction)
            .explore(object.clone(), &program)
    };
    let seen = |ex: &Exploration<T>| (outcomes(ex), results(ex));
    let mut out = Vec::new();
    for bound in [None, Some(1)] {
        let plain = run(Reduction::None, bound);
        let found = seen(&plain);
        if bound.is_none() {
            assert!(plain.is_complete(), "{plain}");
            assert!(found.1.len() > 1, "plain search finds one result: {plain}");
        }
        let reductions: &[Reduction] = match bound {
            None => &[Reduction::SleepSets, Reduction::Dpor],
            Some(_) => &[Reduction::Dpor],
        };
        for &reduction in reductions {
            let reduced = run(reduction, bound);
            if seen(&reduced) != found {
                out.push(format!(
                    "{reduction} bound {bound:?}: {:?}\nplain: {found:?}",
                    seen(&reduced),
                ));
            }
        }
    }
    out
}

fn assert_agree(missed: Vec<String>) {
    assert!(missed.is_empty(), "{}", missed.join("\n\n"));
}

/// The number a message carries.
fn value(m: &Message) -> u32 {
    *m.downcast_ref::<u32>().expect("a u32 payload")
}

/// A broker the object plays itself: r0 and r1 send to r2, a role that
/// does nothing, and whatever reaches r2 waits in one FIFO queue for r3,
/// which receives it from r2. Each send puts its own message at the back
/// of the queue (nothing is copied, moved afterwards or looked into), so
/// the two sends, on channels r0 → r2 and r1 → r2, leave the queue in
/// another order in each of their orders: equal objects by type.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
struct Broker {
    queue: VecDeque<Message>,
}

impl Protocol for Broker {
    fn roles(&self) -> Vec<String> {
        (0..4).map(|i| format!("r{i}")).collect()
    }
    fn try_send(&mut self, role: RoleId, to: RoleId, msg: Message) -> Result<(), Refused<Message>> {
        if role > 1 || to != 2 {
            return Err(Refused(msg));
        }
        self.queue.push_back(msg);
        Ok(())
    }
    fn try_recv(
        &mut self,
        role: RoleId,
        from: Option<RoleId>,
    ) -> Result<(RoleId, Message), Refused> {
        if role != 3 || from.is_some_and(|f| f != 2) {
            return Err(Refused(()));
        }
        self.queue.pop_front().map(|m| (2, m)).ok_or(Refused(()))
    }
    fn is_channel_empty(&self, from: RoleId, to: RoleId) -> bool {
        (from, to) != (2, 3) || self.queue.is_empty()
    }
    fn is_terminated(&self) -> bool {
        self.queue.is_empty()
    }
}

/// Two producers whose sends meet in one queue of the object, on two
/// channels (r0 → r2 and r1 → r2): r3 gets 0 then 1 or 1 then 0. The
/// reductions took the two sends for independent (equal objects, equal
/// acts, no message made, nothing handed out) and ran one order only.
#[test]
fn two_sends_on_two_channels_that_meet_in_one_queue() {
    assert_agree(disagreements(&Broker::default(), |r| {
        r.spawn("r0", |mut ep| {
            ep.send("r2", Message::named("M", 0u32)).unwrap()
        });
        r.spawn("r1", |mut ep| {
            ep.send("r2", Message::named("M", 1u32)).unwrap()
        });
        r.spawn("r2", |_ep| {});
        r.spawn("r3", |mut ep| {
            (0..2)
                .map(|_| value(&ep.recv_from("r2").unwrap()))
                .collect::<Vec<_>>()
        })
    }));
}

/// r0 → r2 holds numbered messages; r1's send to r0 turns that channel
/// newest first for good. The object's `clone` boxes each number anew
/// (`Message::with_type`, the number read from a copy taken by value):
/// a clone's messages are then fresh to a recording window, made before
/// any step of the probe.
#[derive(Debug, PartialEq, Eq, Hash)]
struct Reboxed {
    newest_first: bool,
    to_r2: VecDeque<Message>,
    to_r0: VecDeque<Message>,
}

impl Clone for Reboxed {
    fn clone(&self) -> Self {
        let again = |m: &Message| {
            let v = m.clone().downcast::<u32>().expect("a u32 payload");
            Message::with_type(m.message_type(), v)
        };
        Reboxed {
            newest_first: self.newest_first,
            to_r2: self.to_r2.iter().map(again).collect(),
            to_r0: self.to_r0.iter().map(again).collect(),
        }
    }
}

impl Protocol for Reboxed {
    fn roles(&self) -> Vec<String> {
        (0..3).map(|i| format!("r{i}")).collect()
    }
    fn try_send(&mut self, role: RoleId, to: RoleId, msg: Message) -> Result<(), Refused<Message>> {
        if (role, to) != (1, 0) {
            return Err(Refused(msg));
        }
        self.newest_first = true;
        self.to_r0.push_back(msg);
        Ok(())
    }
    fn try_recv(
        &mut self,
        role: RoleId,
        from: Option<RoleId>,
    ) -> Result<(RoleId, Message), Refused> {
        let (f, q) = match role {
            0 => (1, &mut self.to_r0),
            2 => (0, &mut self.to_r2),
            _ => return Err(Refused(())),
        };
        if from.is_some_and(|x| x != f) {
            return Err(Refused(()));
        }
        let m = if self.newest_first && role == 2 {
            q.pop_back()
        } else {
            q.pop_front()
        };
        m.map(|m| (f, m)).ok_or(Refused(()))
    }
    fn is_channel_empty(&self, from: RoleId, to: RoleId) -> bool {
        match (from, to) {
            (1, 0) => self.to_r0.is_empty(),
            (0, 2) => self.to_r2.is_empty(),
            _ => true,
        }
    }
    /// Messages may be left over: the results tell the orders apart.
    fn is_terminated(&self) -> bool {
        true
    }
}

/// r1's send to r0 and r2's receive from r0 (channels r1 → r0 and
/// r0 → r2): r2 gets 0 if it receives first, 1 otherwise, with equal
/// objects and acts either way. The two messages handed out are fresh
/// to the window (the object's clone made them), and the rule compared
/// their origins only: `Fresh` equals `Fresh`.
#[test]
fn a_receive_of_messages_a_clone_made_fresh() {
    let object = Reboxed {
        newest_first: false,
        to_r2: (0..2).map(|v| Message::named("M", v as u32)).collect(),
        to_r0: VecDeque::new(),
    };
    assert_agree(disagreements(&object, |r| {
        r.spawn("r1", |mut ep| {
            ep.send("r0", Message::named("M", 9u32)).unwrap()
        });
        r.spawn("r0", |mut ep| value(&ep.recv_from("r1").unwrap()));
        r.spawn("r2", |mut ep| value(&ep.recv_from("r0").unwrap()))
    }));
}

/// Two channels: r0 → r2 and r1 → r3. A send of r1 goes to the front of
/// r1 → r3 while the message at the head of r0 → r2 carries data, to its
/// back while that one is a unit (`Message::is_unit`, which no recording
/// window sees as looking into a payload).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Peek {
    to_r2: VecDeque<Message>,
    to_r3: VecDeque<Message>,
}

impl Protocol for Peek {
    fn roles(&self) -> Vec<String> {
        (0..4).map(|i| format!("r{i}")).collect()
    }
    fn try_send(&mut self, role: RoleId, to: RoleId, msg: Message) -> Result<(), Refused<Message>> {
        if (role, to) != (1, 3) {
            return Err(Refused(msg));
        }
        if self.to_r2.front().is_some_and(Message::is_unit) {
            self.to_r3.push_back(msg);
        } else {
            self.to_r3.push_front(msg);
        }
        Ok(())
    }
    fn try_recv(
        &mut self,
        role: RoleId,
        from: Option<RoleId>,
    ) -> Result<(RoleId, Message), Refused> {
        let (f, q) = match role {
            2 => (0, &mut self.to_r2),
            3 => (1, &mut self.to_r3),
            _ => return Err(Refused(())),
        };
        if from.is_some_and(|x| x != f) {
            return Err(Refused(()));
        }
        q.pop_front().map(|m| (f, m)).ok_or(Refused(()))
    }
    fn is_channel_empty(&self, from: RoleId, to: RoleId) -> bool {
        match (from, to) {
            (0, 2) => self.to_r2.is_empty(),
            (1, 3) => self.to_r3.is_empty(),
            _ => true,
        }
    }
    /// Messages may be left over: the results tell the orders apart.
    fn is_terminated(&self) -> bool {
        true
    }
}

/// r0 → r2 holds a unit message and then a number; r1 → r3 holds 7. r2's
/// receive of the unit and r1's send of 8 (channels r0 → r2 and r1 → r3)
/// leave r1 → r3 as 7, 8 or as 8, 7: equal objects by type, the same
/// acts, the same message (a unit) handed out, nothing made, and no
/// `downcast_ref`.
#[test]
fn a_send_placed_by_whether_another_channel_holds_a_unit() {
    let object = Peek {
        to_r2: VecDeque::from([Message::named("M", ()), Message::named("M", 5u32)]),
        to_r3: VecDeque::from([Message::named("M", 7u32)]),
    };
    assert_agree(disagreements(&object, |r| {
        r.spawn("r0", |_ep| {});
        r.spawn("r1", |mut ep| {
            ep.send("r3", Message::named("M", 8u32)).unwrap()
        });
        r.spawn("r2", |mut ep| ep.recv_from("r0").unwrap().is_unit());
        r.spawn("r3", |mut ep| {
            (0..2)
                .map(|_| value(&ep.recv_from("r1").unwrap()))
                .collect::<Vec<_>>()
        })
    }));
}

/// How many executions `reduction` runs of two pairs apart on the
/// mailbox: r0 sends two numbers to r1, r2 two to r3, each receiver
/// takes its two from its sender, r1 by a select over r0 alone if
/// `select`.
fn executions_of_two_pairs(select: bool, reduction: Reduction) -> usize {
    let ex = Explorer::new()
        .reduction(reduction)
        .explore(Mailbox::new(4), move |r| {
            r.spawn("r0", |mut ep| {
                for v in 0..2u32 {
                    ep.send("r1", Message::named("M", v)).unwrap();
                }
            });
            r.spawn("r1", move |mut ep| {
                for _ in 0..2 {
                    if select {
                        ep.select(&[Alternative::sender("r0")]).unwrap();
                    } else {
                        ep.recv_from("r0").unwrap();
                    }
                }
            });
            r.spawn("r2", |mut ep| {
                for v in 0..2u32 {
                    ep.send("r3", Message::named("M", v)).unwrap();
                }
            });
            r.spawn("r3", |mut ep| {
                for _ in 0..2 {
                    ep.recv_from("r2").unwrap();
                }
            })
        });
    assert!(ex.is_complete(), "{ex}");
    ex.executions()
}

/// A select is a receive whose type is looked at first on a clone of the
/// object (`enabled::perform`): with numbers in transit, that clone makes
/// copies of them, which the rule counted against the select's step, so
/// a select was dependent on every step of another channel. The two
/// pairs apart must cost the reductions as many executions with a select
/// as with a receive.
#[test]
fn a_select_commutes_with_steps_of_other_channels_as_a_receive_does() {
    for reduction in [Reduction::SleepSets, Reduction::Dpor] {
        assert_eq!(
            executions_of_two_pairs(true, reduction),
            executions_of_two_pairs(false, reduction),
            "{reduction}"
        );
    }
}
