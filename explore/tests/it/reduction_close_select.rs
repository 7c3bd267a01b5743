//! Sleep sets and DPOR find exactly the outcomes of the plain depth-first
//! exploration on random programs that close channels, receive until a
//! close, and select: the close answers given without a choice
//! and the branching of a select must not hide an outcome.

use testkit::mailbox;

use mailbox::{observing_program as program, outcomes, results, swap_and_truncate, Mailbox, Step};
use proptest::prelude::*;
use prust::explore::{Explorer, Reduction};

/// Random message sequences become each role's sends and receives; some
/// roles close a channel after their last send on it (their receivers
/// drain it instead of receiving one by one), some receives become a
/// select over two senders, and some programs get two steps swapped.
pub(crate) fn programs() -> impl Strategy<Value = Vec<Vec<Step>>> {
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
                swap_and_truncate(&mut roles, swaps);
                roles
            })
    })
}

fn same_outcomes(steps: &[Vec<Step>]) -> Result<(), TestCaseError> {
    let n = steps.len();
    let object = Mailbox::new(n);
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
        // What each role received, in order: a reduction runs fewer
        // schedules per result, never loses one.
        prop_assert_eq!(results(&plain), results(&reduced), "{}", reduction);
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
