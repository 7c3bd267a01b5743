//! Sleep sets find exactly the outcomes of the plain depth-first
//! exploration, on random small programs over a hand-built mailbox object.

use std::collections::{BTreeSet, VecDeque};

use proptest::prelude::*;
use prust::explore::{Explorer, Reduction, Roles};
use prust::session::BlockingEndpoint;
use prust::{Message, Protocol, Refused, RoleId};

/// Bounded FIFO channels between every pair of roles (capacity 2): sends
/// are asynchronous, a receive takes the oldest message of its channel.
/// Terminated when nothing is in transit.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Mailbox {
    roles: usize,
    queues: Vec<VecDeque<Message>>,
}

impl Mailbox {
    fn new(roles: usize) -> Self {
        Mailbox {
            roles,
            queues: vec![VecDeque::new(); roles * roles],
        }
    }
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
    fn is_terminated(&self) -> bool {
        self.queues.iter().all(VecDeque::is_empty)
    }
}

/// One operation of a random role program.
#[derive(Clone, Debug)]
enum Step {
    Send(RoleId),
    RecvFrom(RoleId),
    /// Receive from anyone and assert that it is not this role.
    RecvAnyNot(RoleId),
}

/// Programs that mostly fit together: a random sequence of messages
/// between random pairs becomes each role's sends and receives (in that
/// order), some receives become receives from anyone that assert on the
/// sender, and some roles get two operations swapped (a bug of ordering).
fn programs() -> impl Strategy<Value = Vec<Vec<Step>>> {
    (2usize..=4).prop_flat_map(|n| {
        let max_messages = match n {
            2 => 5,
            3 => 5,
            _ => 5,
        };
        let pair = (0..n, 1..n).prop_map(move |(a, d)| (a, (a + d) % n));
        (
            proptest::collection::vec((pair, any::<bool>(), 0..n), 1..=max_messages),
            proptest::collection::vec((0..n, any::<bool>()), n),
        )
            .prop_map(move |(messages, swaps)| {
                let mut roles: Vec<Vec<Step>> = vec![Vec::new(); n];
                for ((from, to), any, not) in messages {
                    roles[from].push(Step::Send(to));
                    roles[to].push(if any {
                        Step::RecvAnyNot(not)
                    } else {
                        Step::RecvFrom(from)
                    });
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
                for (i, s) in body.into_iter().enumerate() {
                    let ok = match s {
                        Step::Send(to) => ep.send(to, Message::named("M", i)).is_ok(),
                        Step::RecvFrom(from) => ep.recv_from(from).is_ok(),
                        Step::RecvAnyNot(not) => match ep.recv() {
                            Ok((from, _)) => {
                                assert_ne!(from, not, "received from r{not}");
                                true
                            }
                            Err(_) => false,
                        },
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

/// Both explorations of `steps` find the same outcomes.
fn same_outcomes(steps: &[Vec<Step>]) -> Result<(), TestCaseError> {
    let n = steps.len();
    let plain = Explorer::new()
        .preemption_bound(None)
        .reduction(Reduction::None)
        .max_executions(300)
        .explore(Mailbox::new(n), program(steps));
    prop_assume!(plain.is_complete());
    let reduced = Explorer::new()
        .preemption_bound(None)
        .reduction(Reduction::SleepSets)
        .explore(Mailbox::new(n), program(steps));
    prop_assert!(reduced.is_complete(), "{}", reduced);
    prop_assert_eq!(
        outcomes(&plain),
        outcomes(&reduced),
        "plain:\n{}\nreduced:\n{}",
        plain,
        reduced
    );
    prop_assert!(
        reduced.executions() - reduced.redundant() <= plain.executions(),
        "{} vs {}",
        reduced,
        plain
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn sleep_sets_find_exactly_the_outcomes_of_plain_search(steps in programs()) {
        same_outcomes(&steps)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// The same, longer: `cargo test --test explore_reduction -- --ignored`.
    #[test]
    #[ignore]
    fn soak_sleep_sets_find_exactly_the_outcomes_of_plain_search(steps in programs()) {
        same_outcomes(&steps)?;
    }
}

#[test]
fn sleep_sets_cut_the_orders_of_independent_steps() {
    // Three roles each send one message to a fourth, which receives them
    // in a fixed order: the sends commute (different channels).
    let steps = vec![
        vec![Step::Send(3)],
        vec![Step::Send(3)],
        vec![Step::Send(3)],
        vec![Step::RecvFrom(0), Step::RecvFrom(1), Step::RecvFrom(2)],
    ];
    let plain = Explorer::new()
        .preemption_bound(None)
        .reduction(Reduction::None)
        .explore(Mailbox::new(4), program(&steps));
    let reduced = Explorer::new()
        .preemption_bound(None)
        .reduction(Reduction::SleepSets)
        .explore(Mailbox::new(4), program(&steps));
    assert!(plain.is_successful() && reduced.is_successful());
    let full = reduced.executions() - reduced.redundant();
    assert!(full < plain.executions(), "{reduced} vs {plain}");
}
