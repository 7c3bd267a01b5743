//! One execution per trace: DPOR against a brute-force count of the
//! trace classes of random programs.
//!
//! The programs send and receive over the test mailbox (one FIFO channel
//! per ordered pair of roles), and a role's control flow does not depend
//! on what it receives. Two executions are then one trace exactly when
//! every role received the same messages in the same order: a role's
//! events are fixed by its program, a message by its sender and the
//! sender's step, and everything else about the order of two events of
//! different roles commutes. So the distinct results of the plain search
//! (each role's received messages, in order) are the traces, counted by
//! brute force.
//!
//! DPOR must find every one of them (the other differential tests check
//! that too), and should run one complete execution for each (executions
//! that the sleep sets stop before they end, [`Exploration::redundant`],
//! counted apart), on 300 programs here and 10,000 in an ignored soak;
//! `trace_counts_over_random_programs` prints the totals.
//!
//! [`Exploration::redundant`]: prust::explore::Exploration::redundant

use testkit::mailbox;

use mailbox::{observing_program, results, Mailbox, Step};
use proptest::prelude::*;
use prust::explore::{Explorer, Reduction};

/// Programs that fit together and cannot fail: a random sequence of
/// messages between random pairs becomes each role's sends and receives
/// in that order (so that order is an execution); a role receives either
/// every message from its sender, or every one from anyone (asserting
/// only that the sender is not the receiver itself, which no mailbox
/// allows). A role that mixed the two could take from anyone the message
/// its later receive from one sender waits for, and deadlock.
fn programs() -> impl Strategy<Value = Vec<Vec<Step>>> {
    (2usize..=4).prop_flat_map(|n| {
        let pair = (0..n, 1..n).prop_map(move |(a, d)| (a, (a + d) % n));
        (
            proptest::collection::vec(pair, 1..=7),
            proptest::collection::vec(any::<bool>(), n),
        )
            .prop_map(move |(messages, any)| {
                let mut roles: Vec<Vec<Step>> = vec![Vec::new(); n];
                for (from, to) in messages {
                    roles[from].push(Step::Send(to));
                    roles[to].push(if any[to] {
                        Step::RecvAnyNot(to)
                    } else {
                        Step::RecvFrom(from)
                    });
                }
                roles
            })
    })
}

/// The traces of `steps` (brute force) and DPOR's complete and
/// sleep-set-stopped executions.
fn counts(steps: &[Vec<Step>]) -> Result<(usize, usize, usize), TestCaseError> {
    let n = steps.len();
    let plain = Explorer::new()
        .reduction(Reduction::None)
        .max_executions(5_000)
        .explore(Mailbox::new(n), observing_program(steps));
    prop_assume!(plain.is_complete());
    prop_assert!(plain.failures().is_empty(), "{}", plain);
    let dpor = Explorer::new()
        .reduction(Reduction::Dpor)
        .explore(Mailbox::new(n), observing_program(steps));
    prop_assert!(dpor.is_complete(), "{}", dpor);
    prop_assert!(dpor.failures().is_empty(), "{}", dpor);
    prop_assert_eq!(results(&plain), results(&dpor), "{}", dpor);
    let traces = results(&plain).len();
    Ok((
        traces,
        dpor.executions() - dpor.redundant(),
        dpor.redundant(),
    ))
}

/// DPOR runs exactly one complete execution per trace of `steps`.
fn one_per_trace(steps: &[Vec<Step>]) -> Result<(), TestCaseError> {
    let (traces, complete, _) = counts(steps)?;
    prop_assert_eq!(complete, traces, "{:?}", steps);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// DPOR finds every trace that plain search finds (`counts` checks
    /// it), and runs one complete execution for each.
    #[test]
    fn dpor_runs_one_complete_execution_per_trace(steps in programs()) {
        one_per_trace(&steps)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(10_000))]

    /// The same on 10,000 programs: met since a send and the receive of
    /// its sender's earlier message may commute (the `dpor` module's
    /// docs). A soak: `cargo test --release -p prust-explore --test it
    /// soak_dpor -- --ignored`.
    #[test]
    #[ignore = "slow: 10,000 programs, each explored twice"]
    fn soak_dpor_runs_one_complete_execution_per_trace(steps in programs()) {
        one_per_trace(&steps)?;
    }
}

/// The totals over 1,000 random programs, printed: traces, DPOR's complete
/// executions and those the sleep sets stopped, and how many programs
/// DPOR ran in one complete execution per trace. A measurement, not a
/// check: `cargo test -p prust-explore --test it trace_counts -- --ignored --nocapture`.
#[test]
#[ignore]
fn trace_counts_over_random_programs() {
    use proptest::test_runner::{Config, TestRunner};
    let mut runner = TestRunner::new(Config {
        cases: 1000,
        ..Config::default()
    });
    let totals = std::cell::Cell::new((0, 0, 0, 0, 0));
    runner
        .run(&programs(), |steps| {
            let (traces, complete, cut) = counts(&steps)?;
            let (t, c, r, exact, programs) = totals.get();
            totals.set((
                t + traces,
                c + complete,
                r + cut,
                exact + usize::from(complete == traces),
                programs + 1,
            ));
            Ok(())
        })
        .expect("every program explores");
    let (t, c, r, exact, programs) = totals.get();
    println!(
        "{programs} programs: {t} traces, DPOR {c} complete executions and {r} stopped by \
         sleep sets; one complete execution per trace in {exact} programs"
    );
}

/// A receive from one sender that its role reaches before the message is
/// sent waits for a step that fills the channel, and judged where it is
/// taken, after that step, it races with what it can race with. This
/// program of 12 steps has 2 traces; judging each such receive also
/// where it was refused made every earlier step of another role a race
/// with no reversal, and DPOR ran 16 executions that the sleep sets
/// stopped, besides the 2 complete ones.
#[test]
fn a_receive_waiting_for_its_message_costs_no_redundant_executions() {
    use Step::{RecvAnyNot, RecvFrom, Send};
    let steps = vec![
        vec![RecvAnyNot(0), Send(1), Send(1), RecvAnyNot(0), Send(3)],
        vec![Send(0), RecvFrom(0), RecvFrom(0), RecvFrom(3)],
        vec![Send(0)],
        vec![Send(1), RecvFrom(0)],
    ];
    let (traces, complete, redundant) = counts(&steps).expect("the program explores");
    assert_eq!((traces, complete, redundant), (2, 2, 0));
}
