//! Sleep sets and DPOR find exactly the outcomes of the plain depth-first
//! exploration on random programs that close channels, receive until a
//! close, and select (issue 13): the close answers given without a choice
//! and the branching of a select must not hide an outcome.

use std::collections::{BTreeSet, VecDeque};

use proptest::prelude::*;
use prust::explore::{Explorer, Reduction, Roles};
use prust::session::{Alternative, BlockingEndpoint};
use prust::{Message, Protocol, Refused, RoleId};

/// FIFO channels between every pair of roles (capacity 2) that each
/// sender may close; terminated when nothing is in transit.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Mailbox {
    roles: usize,
    queues: Vec<VecDeque<Message>>,
}

impl Protocol for Mailbox {
    fn roles(&self) -> Vec<String> {
        (0..self.roles).map(|r| format!("r{r}")).collect()
    }
    fn type_names(&self) -> Vec<String> {
        vec!["M".into()]
    }
    fn try_send(&mut self, role: RoleId, to: RoleId, msg: Message) -> Result<(), Refused<Message>> {
        let q = &mut self.queues[role * self.roles + to];
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
        let n = self.roles;
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
        self.queues[from * self.roles + to].is_empty()
    }
    fn is_terminated(&self) -> bool {
        self.queues.iter().all(VecDeque::is_empty)
    }
}

#[derive(Clone, Debug)]
enum Step {
    Send(RoleId),
    Close(RoleId),
    RecvFrom(RoleId),
    /// Receive from this role until it closes; assert on the count.
    Drain(RoleId, usize),
    /// Select over two senders; assert which one is taken first.
    SelectNot(RoleId, RoleId),
}

/// Random message sequences become each role's sends and receives; some
/// roles close a channel after their last send on it (their receivers
/// drain it instead of receiving one by one), some receives become a
/// select over two senders, and some programs get two steps swapped.
fn programs() -> impl Strategy<Value = Vec<Vec<Step>>> {
    (2usize..=3).prop_flat_map(|n| {
        let pair = (0..n, 1..n).prop_map(move |(a, d)| (a, (a + d) % n));
        (
            proptest::collection::vec((pair.clone(), 0..3u8, 0..n), 1..=4),
            proptest::collection::vec(pair, 0..=2),
            proptest::collection::vec((0..n, any::<bool>()), n),
        )
            .prop_map(move |(messages, closes, swaps)| {
                let mut roles: Vec<Vec<Step>> = vec![Vec::new(); n];
                let mut sent = vec![0usize; n * n];
                for ((from, to), kind, other) in messages {
                    roles[from].push(Step::Send(to));
                    sent[from * n + to] += 1;
                    if closes.contains(&(from, to)) {
                        continue; // received by a drain below
                    }
                    roles[to].push(match kind {
                        0 if other != to && other != from => Step::SelectNot(from, other),
                        _ => Step::RecvFrom(from),
                    });
                }
                for &(from, to) in &closes {
                    if !roles[from]
                        .iter()
                        .any(|s| matches!(s, Step::Close(t) if *t == to))
                    {
                        roles[from].push(Step::Close(to));
                        roles[to].push(Step::Drain(from, sent[from * n + to]));
                    }
                }
                for (role, (at, swap)) in swaps.into_iter().enumerate() {
                    let ops = &mut roles[role];
                    if swap && at + 1 < ops.len() {
                        ops.swap(at, at + 1);
                    }
                    ops.truncate(6);
                }
                roles
            })
    })
}

fn program(steps: &[Vec<Step>]) -> impl Fn(&mut Roles<'_, Mailbox>) + Sync + '_ {
    move |r| {
        for (role, body) in steps.iter().enumerate() {
            let body = body.clone();
            r.spawn(&format!("r{role}"), move |mut ep| {
                for s in body {
                    let ok = match s {
                        Step::Send(to) => ep.send(to, Message::named("M", ())).is_ok(),
                        Step::Close(to) => ep.close(to).is_ok(),
                        Step::RecvFrom(from) => ep.recv_from(from).is_ok(),
                        Step::Drain(from, n) => {
                            let mut got = 0;
                            while ep.recv_from(from).is_ok() {
                                got += 1;
                            }
                            assert_eq!(got, n, "drained from r{from}");
                            true
                        }
                        Step::SelectNot(a, b) => {
                            let alts = [Alternative::sender(a), Alternative::sender(b)];
                            match ep.select(&alts) {
                                Ok((i, _)) => {
                                    assert_eq!(i, 0, "selected r{b}");
                                    true
                                }
                                Err(_) => false,
                            }
                        }
                    };
                    if !ok {
                        return;
                    }
                }
            });
        }
    }
}

fn outcomes(ex: &prust::explore::Exploration) -> BTreeSet<String> {
    ex.failures()
        .iter()
        .map(|f| f.outcome.to_string())
        .collect()
}

fn same_outcomes(steps: &[Vec<Step>]) -> Result<(), TestCaseError> {
    let n = steps.len();
    let object = Mailbox {
        roles: n,
        queues: vec![VecDeque::new(); n * n],
    };
    let plain = Explorer::new()
        .preemption_bound(None)
        .reduction(Reduction::None)
        .max_executions(300)
        .explore(object.clone(), program(steps));
    prop_assume!(plain.is_complete());
    for reduction in [Reduction::SleepSets, Reduction::Dpor] {
        let reduced = Explorer::new()
            .preemption_bound(None)
            .reduction(reduction)
            .explore(object.clone(), program(steps));
        prop_assert!(reduced.is_complete(), "{}", reduced);
        prop_assert_eq!(
            outcomes(&plain),
            outcomes(&reduced),
            "{}: plain:\n{}\nreduced:\n{}",
            reduction,
            plain,
            reduced
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn reductions_find_the_outcomes_of_plain_search_with_closes_and_selects(
        steps in programs()
    ) {
        same_outcomes(&steps)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1500))]

    /// The same, longer: `cargo test --test explore_reduction_close_select -- --ignored`.
    #[test]
    #[ignore]
    fn soak_reductions_with_closes_and_selects(steps in programs()) {
        same_outcomes(&steps)?;
    }
}
