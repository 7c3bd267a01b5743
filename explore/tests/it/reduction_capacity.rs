//! DPOR on channels whose object gives their capacity
//! (`Protocol::channel_capacity`): a send on a full channel is ordered
//! after the receive that makes room for it, and judged where it is
//! taken rather than where it waited. Checked against plain search, with
//! and without a preemption bound, on random programs over mailboxes
//! whose channels hold one or two messages, where sends wait often.

use proptest::prelude::*;
use prust::engine::{Message, Protocol, Refused, RoleId};
use prust::explore::{Exploration, Explorer, Handle, Reduction, Roles};
use prust::session::BlockingEndpoint;
use testkit::mailbox::{observing_program, outcomes, results, Mailbox, Received, Step};

use super::reduction::programs_of;

/// A random program ([`programs_of`], some operations swapped: a bug of
/// ordering, which may deadlock on a full channel) of up to six messages,
/// and a capacity (1 or 2).
fn programs() -> impl Strategy<Value = (usize, Vec<Vec<Step>>)> {
    (1usize..=2, programs_of(6))
}

/// The exploration of `steps` on `object` with `reduction` under `bound`.
fn explore(
    object: Mailbox,
    steps: &[Vec<Step>],
    reduction: Reduction,
    bound: Option<usize>,
    max: usize,
) -> Exploration<Vec<Received>> {
    Explorer::new()
        .preemption_bound(bound)
        .reduction(reduction)
        .max_executions(max)
        .explore(object, observing_program(steps))
}

/// DPOR finds exactly the failures and results of plain search, without
/// a bound and under bounds 0 to 2.
fn dpor_agrees(capacity: usize, steps: &[Vec<Step>]) -> Result<(), TestCaseError> {
    let mailbox = || Mailbox::numbered(steps.len(), Some(capacity));
    for bound in [None, Some(0), Some(1), Some(2)] {
        let plain = explore(mailbox(), steps, Reduction::None, bound, 400);
        // Complete, or stopped by nothing but the bound.
        prop_assume!(plain.executions() < 400);
        let dpor = explore(mailbox(), steps, Reduction::Dpor, bound, 100_000);
        if plain.is_complete() {
            prop_assert!(dpor.is_complete(), "{}", dpor);
        }
        prop_assert_eq!(
            outcomes(&plain),
            outcomes(&dpor),
            "capacity {} bound {:?}: plain:\n{}\nDPOR:\n{}",
            capacity,
            bound,
            plain,
            dpor
        );
        prop_assert_eq!(
            results(&plain),
            results(&dpor),
            "capacity {} bound {:?}: plain:\n{}\nDPOR:\n{}",
            capacity,
            bound,
            plain,
            dpor
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn dpor_agrees_with_plain_search_on_full_channels((capacity, steps) in programs()) {
        dpor_agrees(capacity, &steps)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]
    /// The same, longer (`cargo test --release -p prust-explore --test it
    /// soak_dpor_on_full_channels -- --ignored`).
    #[test]
    #[ignore = "slow: 2,000 programs, each explored eight times"]
    fn soak_dpor_on_full_channels((capacity, steps) in programs()) {
        dpor_agrees(capacity, &steps)?;
    }
}

/// The mailbox with its capacity word hidden: what DPOR did before it
/// read one.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Unsaid(Mailbox);

impl Protocol for Unsaid {
    fn roles(&self) -> Vec<String> {
        self.0.roles()
    }
    fn type_names(&self) -> Vec<String> {
        self.0.type_names()
    }
    fn try_send(&mut self, role: RoleId, to: RoleId, msg: Message) -> Result<(), Refused<Message>> {
        self.0.try_send(role, to, msg)
    }
    fn try_recv(
        &mut self,
        role: RoleId,
        from: Option<RoleId>,
    ) -> Result<(RoleId, Message), Refused> {
        self.0.try_recv(role, from)
    }
    fn is_channel_empty(&self, from: RoleId, to: RoleId) -> bool {
        self.0.is_channel_empty(from, to)
    }
    fn is_terminated(&self) -> bool {
        self.0.is_terminated()
    }
}

/// Two producers, `r0` and `r1`, send three messages each to `r2`, which
/// receives six from anyone: what it received, in order.
fn fan_in<P: Protocol>(r: &mut Roles<'_, P>) -> Vec<Handle<Received>> {
    for name in ["r0", "r1"] {
        r.spawn(name, |mut ep| {
            for i in 0..3usize {
                ep.send("r2", Message::named("M", i)).unwrap();
            }
        });
    }
    vec![r.spawn("r2", |mut ep| {
        (0..6)
            .map(|_| {
                let (from, m) = ep.recv().unwrap();
                (from, *m.downcast_ref::<usize>().unwrap())
            })
            .collect::<Received>()
    })]
}

/// The fan-in through channels of one with DPOR, and with no reduction:
/// the results of each; the DPOR exploration.
fn fan_in_on<P: Protocol>(object: P) -> (Exploration<Vec<Received>>, usize) {
    let run = |reduction| {
        Explorer::new()
            .reduction(reduction)
            .explore(object.clone(), fan_in::<P>)
    };
    let (dpor, plain) = (run(Reduction::Dpor), run(Reduction::None));
    assert!(
        dpor.is_successful() && plain.is_successful(),
        "{dpor}\n{plain}"
    );
    assert_eq!(results(&dpor), results(&plain), "{dpor}");
    (dpor, results(&plain).len())
}

/// Two producers send three messages each through channels of one to a
/// consumer that receives from anyone: with the capacity word, DPOR runs
/// one execution per receive order and none that the sleep sets stop;
/// without it, the same orders in more executions. (20 orders: the
/// consumer sees 6!/(3!·3!) interleavings of the two streams.)
#[test]
fn a_send_that_waits_for_room_is_judged_where_it_is_taken() {
    let (said, orders) = fan_in_on(Mailbox::numbered(3, Some(1)));
    let (unsaid, _) = fan_in_on(Unsaid(Mailbox::numbered(3, Some(1))));
    assert_eq!(orders, 20);
    assert_eq!((said.executions(), said.redundant()), (20, 0), "{said}");
    assert!(
        unsaid.executions() > said.executions(),
        "without the word: {unsaid}"
    );
}
