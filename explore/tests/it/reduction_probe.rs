//! A send and a receive on one channel, on objects that look at payload
//! values (which the `Protocol` contract does not forbid): the reductions
//! must keep their order wherever the real message would overtake, and
//! must never hand the object a payload no program sends. A probe that
//! judged the pair with a marker payload in place of the real one once
//! broke both (a missed failure, and a panic escaping `explore`).

use prust::explore::{Explorer, Reduction};
use prust::session::BlockingEndpoint;
use prust::{Message, Protocol, Refused, RoleId};

/// One channel per ordered pair; a receive hands out the queued message
/// with the largest `u32` payload (the oldest among equals; anything
/// else counts as 0). Deterministic, refusals leave no trace, and equal
/// objects (messages compare by type) behave alike up to payloads.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Priority {
    n: usize,
    queues: Vec<Vec<Message>>,
}

impl Priority {
    fn new(n: usize) -> Self {
        Priority {
            n,
            queues: vec![Vec::new(); n * n],
        }
    }
}

fn prio(m: &Message) -> u32 {
    m.downcast_ref::<u32>().copied().unwrap_or(0)
}

impl Protocol for Priority {
    fn roles(&self) -> Vec<String> {
        (0..self.n).map(|i| format!("r{i}")).collect()
    }
    fn type_names(&self) -> Vec<String> {
        vec!["M".into()]
    }
    fn try_send(&mut self, role: RoleId, to: RoleId, msg: Message) -> Result<(), Refused<Message>> {
        if role == to {
            return Err(Refused(msg));
        }
        self.queues[role * self.n + to].push(msg);
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
                .find(|&f| !self.queues[f * n + role].is_empty())
                .ok_or(Refused(()))?,
        };
        let q = &mut self.queues[f * n + role];
        let best = (0..q.len())
            .rev()
            .max_by_key(|&i| prio(&q[i]))
            .ok_or(Refused(()))?;
        Ok((f, q.remove(best)))
    }
    fn is_terminated(&self) -> bool {
        self.queues.iter().all(Vec::is_empty)
    }
}

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
            .explore(Priority::new(2), |r| {
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
    inner: Priority,
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
                    inner: Priority::new(2),
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
