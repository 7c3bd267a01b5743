//! A send and a receive of an earlier message on one channel are
//! independent where the object is FIFO there (`independence::passes`):
//! DPOR then runs one execution per receive order of the fan-in programs
//! (their trace count), and one per class on random mailbox programs
//! whose roles send to and receive from fixed peers; on an object that
//! hands out the newest message, the pair stays dependent and every
//! reduction still finds what plain search finds.
//!
//! Before, the channel rule made every such pair dependent, and DPOR ran
//! one execution per interleaving of each channel's sends and receives:
//! 2 / 24 / 500 complete executions on fan-in 2 × 1..3 (a Catalan number
//! per channel times the 2 / 6 / 20 receive orders) and 16 more cut by
//! sleep sets; wakeup trees would have saved only those 16.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use proptest::prelude::*;
use prust::explore::{Exploration, Explorer, Handle, Reduction, Roles};
use prust::session::BlockingEndpoint;
use prust::{Message, Protocol, Refused, RoleId};
use testkit::mailbox::{observing_program, outcomes, results, Mailbox, Received, Step};

const FAN_IN: [&str; 4] = ["a", "b", "c", "collector"];

/// `p` producers each send `k` messages to a collector that receives
/// from anyone and returns the senders in the order it received.
fn fan_in(p: usize, k: usize) -> impl Fn(&mut Roles<'_, Mailbox>) -> Handle<String> + Sync {
    move |r| {
        for s in &FAN_IN[..p] {
            r.spawn(s, move |mut ep| {
                for i in 0..k {
                    ep.send("collector", Message::named("M", i)).unwrap();
                }
            });
        }
        r.spawn("collector", move |mut ep| {
            let mut order = String::new();
            for _ in 0..p * k {
                let (from, _) = ep.recv().unwrap();
                order.push_str(&ep.roles()[from]);
            }
            order
        })
    }
}

/// The receive orders of `p` producers of `k` messages each:
/// (p·k)! / (k!)^p, the number of Mazurkiewicz traces of the fan-in
/// programs once sends and receives of earlier messages commute.
fn receive_orders(p: usize, k: usize) -> usize {
    let fact = |n: usize| (1..=n).product::<usize>();
    fact(p * k) / fact(k).pow(p as u32)
}

#[test]
fn dpor_runs_one_execution_per_receive_order_of_fan_in() {
    for (p, k) in [(2, 1), (2, 2), (2, 3), (3, 2), (3, 3)] {
        let names: &'static [&'static str] = if p == 2 {
            &["a", "b", "collector"]
        } else {
            &FAN_IN
        };
        let ex = Explorer::new()
            .preemption_bound(None)
            .reduction(Reduction::Dpor)
            .explore(Mailbox::named(names, None), fan_in(p, k));
        assert!(ex.is_complete() && ex.is_successful(), "{ex}");
        let orders = receive_orders(p, k);
        // 2, 6, 20, 90 and 1,680: each order once, none cut short.
        assert_eq!(ex.results().len(), orders, "{p} x {k}: {ex}");
        assert!(ex.results().iter().all(|r| r.count == 1), "{p} x {k}: {ex}");
        assert_eq!((ex.executions(), ex.redundant()), (orders, 0), "{p} x {k}");
    }
}

/// Programs whose dependency is static: a random sequence of messages
/// between random pairs becomes each role's sends and receives from the
/// sender (in that order), some receives become receives from anyone
/// (that assert nothing: a role's own choice of sender is all they add).
fn static_programs() -> impl Strategy<Value = Vec<Vec<Step>>> {
    (2usize..=4).prop_flat_map(|n| {
        let pair = (0..n, 1..n).prop_map(move |(a, d)| (a, (a + d) % n));
        proptest::collection::vec((pair, prop::bool::weighted(0.3)), 1..=7).prop_map(
            move |messages| {
                let mut roles: Vec<Vec<Step>> = vec![Vec::new(); n];
                for ((from, to), any) in messages {
                    roles[from].push(Step::Send(to));
                    // `RecvAnyNot(to)`: a role never receives from itself.
                    roles[to].push(if any {
                        Step::RecvAnyNot(to)
                    } else {
                        Step::RecvFrom(from)
                    });
                }
                roles
            },
        )
    })
}

/// On a static program that no schedule fails, DPOR runs exactly one
/// complete execution per Mazurkiewicz trace, counted by brute force:
/// every schedule of the plain search, canonicalised as what each role
/// received in order (sender and message number). Two schedules with the
/// same receipts order every dependent pair alike (a role's own steps by
/// program order, a message's send before its receive, the sends and
/// receives of one channel by FIFO, a receive from anyone by the sender
/// it took), so the distinct receipts are the trace classes.
///
/// Where no role receives from anyone and channels are unbounded, no
/// execution is cut short by the sleep sets either. A receive from
/// anyone can leave some (source sets without wakeup trees: the first
/// such program the soak found, two traces, three executions, one cut
/// short: `[[RecvAnyNot(0), RecvAnyNot(0)], [Send(0)], [Send(0), Send(3)],
/// [RecvFrom(2)]]`). On channels of two messages ([`Mailbox::new`]) some
/// are as well: a
/// third send waits for a receive, which no order that holds in every
/// execution puts first (`dpor` rule 4 knows program order and a
/// message's send before its receive, not the object's capacity), so
/// every choice at the receive is explored, and the ones already covered
/// end asleep (`[[RecvFrom(1) x3, Send(1)], [Send(0) x3, RecvFrom(0)]]`:
/// two executions, one of them cut short, for one trace).
fn one_execution_per_trace(steps: &[Vec<Step>], bounded: bool) -> Result<(), TestCaseError> {
    let n = steps.len();
    let object = || {
        if bounded {
            Mailbox::new(n)
        } else {
            Mailbox::named(&["r0", "r1", "r2", "r3"][..n], None)
        }
    };
    let plain = Explorer::new()
        .preemption_bound(None)
        .reduction(Reduction::None)
        .max_executions(3000)
        .explore(object(), observing_program(steps));
    prop_assume!(plain.is_complete() && plain.failures().is_empty());
    let classes = plain.results().len();
    let dpor = Explorer::new()
        .preemption_bound(None)
        .reduction(Reduction::Dpor)
        .explore(object(), observing_program(steps));
    prop_assert_eq!(results(&plain), results(&dpor), "{}", dpor);
    prop_assert!(dpor.failures().is_empty(), "{}", dpor);
    let complete = dpor.executions() - dpor.redundant();
    let any = steps
        .iter()
        .flatten()
        .any(|s| matches!(s, Step::RecvAnyNot(_)));
    let cut = if bounded || any { dpor.redundant() } else { 0 };
    prop_assert_eq!(
        (complete, dpor.redundant()),
        (classes, cut),
        "{:?}: {} of the plain search's {} schedules are distinct",
        steps,
        classes,
        plain.executions()
    );
    Ok(())
}

/// Channels of two messages, like [`Mailbox::new`]'s, that hand out the
/// newest message first: a send and a receive on one channel do not
/// commute, although both orders give equal objects (messages compare by
/// type), and no reduction may treat them as if they did.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Lifo {
    names: Vec<String>,
    stacks: Vec<VecDeque<Message>>,
}

impl Lifo {
    fn new(roles: usize) -> Self {
        Lifo {
            names: (0..roles).map(|i| format!("r{i}")).collect(),
            stacks: vec![VecDeque::new(); roles * roles],
        }
    }
}

impl Protocol for Lifo {
    fn roles(&self) -> Vec<String> {
        self.names.clone()
    }
    fn type_names(&self) -> Vec<String> {
        vec!["M".into()]
    }
    fn try_send(&mut self, role: RoleId, to: RoleId, msg: Message) -> Result<(), Refused<Message>> {
        let q = &mut self.stacks[role * self.names.len() + to];
        if role == to || q.len() >= 2 {
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
        let n = self.names.len();
        let f = match from {
            Some(f) => f,
            None => (0..n)
                .find(|&f| !self.stacks[f * n + role].is_empty())
                .ok_or(Refused(()))?,
        };
        let m = self.stacks[f * n + role].pop_back().ok_or(Refused(()))?;
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
        self.stacks[from * self.names.len() + to].is_empty()
    }
    fn is_terminated(&self) -> bool {
        self.stacks.iter().all(VecDeque::is_empty)
    }
}

/// What each role received (sender, message number), as
/// [`observing_program`] returns, for the sends and receives of `steps`
/// on the LIFO object.
fn lifo_program(
    steps: &[Vec<Step>],
) -> impl Fn(&mut Roles<'_, Lifo>) -> Vec<Handle<Received>> + Sync + '_ {
    move |r| {
        let mut handles = Vec::new();
        for (role, body) in steps.iter().enumerate() {
            let body = body.clone();
            handles.push(r.spawn(&format!("r{role}"), move |mut ep| {
                let mut got = Vec::new();
                for (i, s) in body.into_iter().enumerate() {
                    let received = match s {
                        Step::Send(to) => ep.send(to, Message::named("M", i)).map(|_| None),
                        Step::RecvFrom(from) => ep.recv_from(from).map(|m| Some((from, m))),
                        _ => ep.recv().map(Some),
                    };
                    match received {
                        Ok(Some((from, m))) => {
                            got.push((from, *m.downcast_ref::<usize>().unwrap()))
                        }
                        Ok(None) => {}
                        Err(_) => break,
                    }
                }
                got
            }));
        }
        handles
    }
}

/// Every reduction finds the results and failures of plain search on the
/// LIFO object.
fn lifo_agrees(steps: &[Vec<Step>]) -> Result<(), TestCaseError> {
    let n = steps.len();
    let explore = |reduction| -> Exploration<Vec<Received>> {
        Explorer::new()
            .preemption_bound(None)
            .reduction(reduction)
            .max_executions(3000)
            .explore(Lifo::new(n), lifo_program(steps))
    };
    let plain = explore(Reduction::None);
    prop_assume!(plain.is_complete());
    for reduction in [Reduction::SleepSets, Reduction::Dpor] {
        let reduced = explore(reduction);
        prop_assert_eq!(
            outcomes(&plain),
            outcomes(&reduced),
            "{}: {}",
            reduction,
            reduced
        );
        prop_assert_eq!(
            results(&plain),
            results(&reduced),
            "{}: {}",
            reduction,
            reduced
        );
    }
    Ok(())
}

#[test]
fn a_channel_that_hands_out_its_newest_message_keeps_its_orders() {
    // r0 sends 0 and 1; r1 receives twice: 0 then 1 if it receives
    // between the sends, 1 then 0 if after both.
    let steps = vec![
        vec![Step::Send(1), Step::Send(1)],
        vec![Step::RecvFrom(0), Step::RecvFrom(0)],
    ];
    lifo_agrees(&steps).unwrap();
    let dpor = Explorer::new()
        .preemption_bound(None)
        .reduction(Reduction::Dpor)
        .explore(Lifo::new(2), lifo_program(&steps));
    let got: BTreeMap<_, _> = dpor
        .results()
        .iter()
        .map(|r| (r.value[1].clone(), r.count))
        .collect();
    assert_eq!(
        got.keys().cloned().collect::<BTreeSet<_>>(),
        BTreeSet::from([vec![(0, 0), (0, 1)], vec![(0, 1), (0, 0)]]),
        "{dpor}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(150))]

    #[test]
    fn dpor_runs_one_execution_per_trace_of_static_programs(steps in static_programs()) {
        one_execution_per_trace(&steps, false)?;
    }

    #[test]
    fn dpor_runs_one_complete_execution_per_trace_on_bounded_channels(steps in static_programs()) {
        one_execution_per_trace(&steps, true)?;
    }

    #[test]
    fn reductions_find_what_plain_search_finds_on_lifo_channels(steps in static_programs()) {
        lifo_agrees(&steps)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    #[ignore]
    fn soak_dpor_runs_one_execution_per_trace_of_static_programs(steps in static_programs()) {
        one_execution_per_trace(&steps, false)?;
        one_execution_per_trace(&steps, true)?;
    }

    #[test]
    #[ignore]
    fn soak_reductions_find_what_plain_search_finds_on_lifo_channels(steps in static_programs()) {
        lifo_agrees(&steps)?;
    }
}
