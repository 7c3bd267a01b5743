//! A send and a receive on one channel, on objects that look at payload
//! values (which the `Protocol` contract does not forbid): the reductions
//! must keep their order wherever the real message would overtake, and
//! must never hand the object a payload no program sends. A probe that
//! judged the pair with a marker payload in place of the real one once
//! broke both (a missed failure, and a panic escaping `explore`).
//!
//! The objects answer `is_channel_empty`, so that a send and a receive on
//! one channel are judged by the probe of `same_channel` (which compares
//! where the messages came from), not kept dependent for want of it.

use prust::explore::{Explorer, Reduction};
use prust::session::BlockingEndpoint;
use prust::{Message, Protocol, Refused, RoleId};

use super::support::queues::{Policy, Queues, Tagged};

/// r0 sends 1 then 5 to r1; r1 receives twice and insists on 5 first.
/// Received between the two sends, the first is 1: plain search finds
/// that failure. The probe's marker counts as 0, below 1, so the probe
/// says the second send only queues behind the first message; the real
/// 5 overtakes it. Both orders give equal objects (messages compare by
/// type) and equal acts, so the object-level check of rule 5 agrees.
#[test]
fn a_priority_channel_keeps_the_order_of_a_send_and_a_receive() {
    let explore = |reduction| {
        Explorer::new()
            .preemption_bound(None)
            .reduction(reduction)
            .explore(Queues::new(2, Policy::Largest), |r| {
                r.spawn("r0", |mut ep| {
                    ep.send("r1", Message::named("M", 1u32)).unwrap();
                    ep.send("r1", Message::named("M", 5u32)).unwrap();
                });
                r.spawn("r1", |mut ep| {
                    let m = ep.recv_from("r0").unwrap();
                    ep.recv_from("r0").unwrap();
                    assert_eq!(m.downcast_ref::<u32>(), Some(&5), "took the first message");
                })
            })
    };
    let plain = explore(Reduction::None);
    assert_eq!(plain.failures().len(), 1, "{plain}");
    let missed: Vec<String> = [Reduction::SleepSets, Reduction::Dpor]
        .into_iter()
        .map(|reduction| (reduction, explore(reduction)))
        .filter(|(_, reduced)| reduced.failures().len() != 1)
        .map(|(reduction, reduced)| format!("{reduction}: {reduced}"))
        .collect();
    assert!(missed.is_empty(), "{}", missed.join("\n"));
}

/// FIFO channels whose messages must carry a `u32` sequence number (the
/// object panics on any other payload, as an object that trusts its
/// programs may): the probe's marker payload reaches it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Numbered {
    inner: Queues,
}

impl Protocol for Numbered {
    fn roles(&self) -> Vec<String> {
        self.inner.roles()
    }
    fn type_names(&self) -> Vec<String> {
        vec!["M".into()]
    }
    fn try_send(&mut self, role: RoleId, to: RoleId, msg: Message) -> Result<(), Refused<Message>> {
        let n = msg.downcast_ref::<u32>().expect("a numbered message");
        // Every number is 0: the channel stays FIFO.
        assert_eq!(*n, 0);
        self.inner.try_send(role, to, msg)
    }
    fn try_recv(
        &mut self,
        role: RoleId,
        from: Option<RoleId>,
    ) -> Result<(RoleId, Message), Refused> {
        self.inner.try_recv(role, from)
    }
    fn is_channel_empty(&self, from: RoleId, to: RoleId) -> bool {
        self.inner.is_channel_empty(from, to)
    }
    fn is_terminated(&self) -> bool {
        self.inner.is_terminated()
    }
}

/// A correct program on an object that panics on payloads no program
/// sends: every reduction must find it correct.
#[test]
fn an_object_that_reads_payloads_is_not_handed_a_marker() {
    for reduction in [Reduction::None, Reduction::SleepSets, Reduction::Dpor] {
        let ex = Explorer::new()
            .preemption_bound(None)
            .reduction(reduction)
            .explore(
                Numbered {
                    inner: Queues::new(2, Policy::Largest),
                },
                |r| {
                    r.spawn("r0", |mut ep| {
                        ep.send("r1", Message::named("M", 0u32)).unwrap();
                        ep.send("r1", Message::named("M", 0u32)).unwrap();
                    });
                    r.spawn("r1", |mut ep| {
                        ep.recv_from("r0").unwrap();
                        ep.recv_from("r0").unwrap();
                    })
                },
            );
        // A panic of the object in the reductions' probe escapes
        // `explore` (it is not the program's failure, nor reported).
        assert!(ex.is_complete() && ex.is_successful(), "{reduction}: {ex}");
    }
}

/// Explores `program` on `object` with every reduction and returns, for
/// each reduction that finds a different number of failures than plain
/// search, both outputs.
fn misses<P, F>(object: P, program: F) -> Vec<String>
where
    P: Protocol,
    F: Fn(&mut prust::explore::Roles<'_, P>) + Sync,
{
    let explore = |reduction| {
        Explorer::new()
            .preemption_bound(None)
            .reduction(reduction)
            .explore(object.clone(), &program)
    };
    let plain = explore(Reduction::None);
    assert!(
        !plain.failures().is_empty(),
        "plain search finds no failure: {plain}"
    );
    [Reduction::SleepSets, Reduction::Dpor]
        .into_iter()
        .map(|reduction| (reduction, explore(reduction)))
        .filter(|(_, reduced)| reduced.failures().len() != plain.failures().len())
        .map(|(reduction, reduced)| format!("{reduction}: {reduced}\nplain: {plain}"))
        .collect()
}

/// Assumption E of `send_passes_receive`: r0 sends 1, 2, 1 to r1. From
/// the queue [1, 2], the third send goes to the front: sent before r1's
/// first receive, r1 gets 1 and [1, 2] is left; received first, r1 gets
/// 1 and [2, 1] is left. Both orders hand out a `1`, the objects are
/// equal by `==`, the acts equal: the probe calls the pair independent,
/// but r1's next receive differs. Each of the two receive sequences is
/// made the failure in turn; no reduction may miss either.
#[test]
fn a_queue_that_rearranges_its_payloads_keeps_a_send_and_a_receive_ordered() {
    let mut missed = Vec::new();
    for bad in [[1u32, 2, 1], [1, 1, 2]] {
        missed.extend(misses(Queues::new(2, Policy::FrontAtTwo), move |r| {
            r.spawn("r0", |mut ep| {
                for v in [1u32, 2, 1] {
                    ep.send("r1", Message::named("M", v)).unwrap();
                }
            });
            r.spawn("r1", move |mut ep| {
                let got: Vec<u32> = (0..3)
                    .map(|_| *ep.recv_from("r0").unwrap().downcast_ref::<u32>().unwrap())
                    .collect();
                assert_ne!(got, bad, "received in the bad order");
            });
        }));
    }
    assert!(missed.is_empty(), "{}", missed.join("\n"));
}

/// As above with r1 receiving from anyone (and a third role that sends
/// nothing): the receive-from-anyone path of the relation.
#[test]
fn a_queue_that_rearranges_its_payloads_keeps_a_receive_from_anyone_ordered() {
    let mut missed = Vec::new();
    for bad in [[1u32, 2, 1], [1, 1, 2]] {
        missed.extend(misses(Queues::new(3, Policy::FrontAtTwo), move |r| {
            r.spawn("r0", |mut ep| {
                for v in [1u32, 2, 1] {
                    ep.send("r1", Message::named("M", v)).unwrap();
                }
            });
            r.spawn("r1", move |mut ep| {
                let got: Vec<u32> = (0..3)
                    .map(|_| *ep.recv().unwrap().1.downcast_ref::<u32>().unwrap())
                    .collect();
                assert_ne!(got, bad, "received in the bad order");
            });
            r.spawn("r2", |_ep| {});
        }));
    }
    assert!(missed.is_empty(), "{}", missed.join("\n"));
}

/// Two messages whose `Debug` text is equal but whose payloads a receiver
/// tells apart with no hand-written `Debug`: `1u32` and `1u64`, both
/// `<M>(1)`. On a LIFO channel holding the first, the receive gets the
/// first or the second depending on the order; the probe sees `<M>(1)`
/// both times.
#[test]
fn a_lifo_channel_tells_payload_types_apart_that_print_alike() {
    let mut missed = Vec::new();
    for bad_is_u64 in [false, true] {
        missed.extend(misses(Queues::new(2, Policy::Lifo), move |r| {
            r.spawn("r0", |mut ep| {
                ep.send("r1", Message::named("M", 1u32)).unwrap();
                ep.send("r1", Message::named("M", 1u64)).unwrap();
            });
            r.spawn("r1", move |mut ep| {
                let first = ep.recv_from("r0").unwrap();
                ep.recv_from("r0").unwrap();
                assert_ne!(
                    first.downcast_ref::<u64>().is_some(),
                    bad_is_u64,
                    "bad first"
                );
            });
        }));
    }
    assert!(missed.is_empty(), "{}", missed.join("\n"));
}

/// As above with two payloads of one type whose `Debug` hides the field
/// that differs.
#[test]
fn a_lifo_channel_tells_apart_payloads_whose_debug_hides_a_field() {
    let mut missed = Vec::new();
    for bad in [1u32, 2] {
        missed.extend(misses(Queues::new(2, Policy::Lifo), move |r| {
            r.spawn("r0", |mut ep| {
                for hidden in [1u32, 2] {
                    let m = Message::named("M", Tagged { shown: 0, hidden });
                    ep.send("r1", m).unwrap();
                }
            });
            r.spawn("r1", move |mut ep| {
                let first = ep.recv_from("r0").unwrap();
                ep.recv_from("r0").unwrap();
                assert_ne!(
                    first.downcast_ref::<Tagged>().unwrap().hidden,
                    bad,
                    "bad first"
                );
            });
        }));
    }
    assert!(missed.is_empty(), "{}", missed.join("\n"));
}

/// FIFO channels, except that a send from r0 reverses the channel r2 → r1
/// when it holds exactly two messages. Deterministic, refusals leave no
/// trace, equal objects behave alike up to payloads; but two sends on
/// different channels give objects equal by `==` with their payloads in
/// a different order, which the `Protocol` contract rules out ("payloads
/// stay where `==` says").
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Reversing {
    inner: Queues,
}

impl Protocol for Reversing {
    fn roles(&self) -> Vec<String> {
        self.inner.roles()
    }
    fn type_names(&self) -> Vec<String> {
        vec!["M".into()]
    }
    fn try_send(&mut self, role: RoleId, to: RoleId, msg: Message) -> Result<(), Refused<Message>> {
        self.inner.try_send(role, to, msg)?;
        let other = self.inner.grid.q_mut(2, 1);
        if role == 0 && other.len() == 2 {
            other.swap(0, 1);
        }
        Ok(())
    }
    fn try_recv(
        &mut self,
        role: RoleId,
        from: Option<RoleId>,
    ) -> Result<(RoleId, Message), Refused> {
        self.inner.try_recv(role, from)
    }
    fn is_channel_empty(&self, from: RoleId, to: RoleId) -> bool {
        self.inner.is_channel_empty(from, to)
    }
    fn is_terminated(&self) -> bool {
        self.inner.is_terminated()
    }
}

/// Not a same-channel pair: r0's send to r1 and r2's third send to r1
/// use different channels and commute by `==`, but r1 gets r2's
/// messages as 2, 1, 3 in one order and 1, 2, 3 in the other. Outside
/// the `Protocol` contract (payloads moved where `==` cannot see), and
/// seen all the same: the objects of the two orders are compared with
/// messages told apart by origin (`Origins::strictly`), and the object's
/// derived `==` compares the queue it reversed.
#[test]
fn sends_on_different_channels_that_rearrange_payloads_stay_ordered() {
    let mut missed = Vec::new();
    for bad in [[2u32, 1, 3], [1, 2, 3]] {
        // Newest first: r2's messages leave as 3, 2, 1 unless r0's send
        // swapped the older two (got is reversed to the sending order).
        let object = Reversing {
            inner: Queues::new(3, Policy::Lifo),
        };
        missed.extend(misses(object, move |r| {
            r.spawn("r0", |mut ep| {
                ep.send("r1", Message::named("M", 0u32)).unwrap();
            });
            r.spawn("r2", |mut ep| {
                for v in [1u32, 2, 3] {
                    ep.send("r1", Message::named("M", v)).unwrap();
                }
            });
            r.spawn("r1", move |mut ep| {
                let mut got: Vec<u32> = (0..3)
                    .map(|_| *ep.recv_from("r2").unwrap().downcast_ref::<u32>().unwrap())
                    .collect();
                ep.recv_from("r0").unwrap();
                got.reverse();
                assert_ne!(got, bad, "received in the bad order");
            });
        }));
    }
    assert!(missed.is_empty(), "{}", missed.join("\n"));
}
