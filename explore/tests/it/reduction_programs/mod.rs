//! DPOR and sleep sets against plain depth-first exploration on random
//! *programs* over random *specifications*: every reduction must find
//! exactly the failures of the plain search, and reach exactly the same
//! final states of the object.
//!
//! Why this file exists beside `explore_reduction.rs`: that one explores
//! random programs over a hand-written mailbox, an object that accepts
//! every send while its channel has room. A protocol object derived from
//! a specification also *disables*: one role's send can take away another
//! role's (the two sides of a choice), and a later step gives it back.
//! Source-set DPOR once judged such a pair only where the second send was
//! finally taken, behind the step that re-enabled it, and missed the race
//! (a program that fails was reported correct in every schedule); no
//! mailbox program can show that.
//!
//! The programs are what users write: each role's operations are a run
//! of the specification projected on the role, then mutated (an operation
//! dropped or added, a receive from anyone instead of from its sender, an
//! assertion on who sent first, a `choose` between the projections of two
//! runs, a close, a panic). The roles are declared in every order (role
//! numbers decide the order in which the searches try choices), or not at
//! all.

use proptest::prelude::*;
use prust::explore::{choose, Explorer, Reduction, Roles};
use prust::session::BlockingEndpoint;
use prust::{Liberal, Message, Protocol, Strict};
use testkit::mailbox::outcomes;

mod cases;
mod found;

pub(crate) use cases::{
    build_case, case, fixed_case, leaf, spec_of, term, Case, Mutation, Op, NAMES, TYPES,
};

/// Runs `ops` on `ep`, stopping at the first operation that fails (a
/// deadlock, a stopped execution); `names` are the object's role names.
fn run_ops(ep: &mut impl BlockingEndpoint, ops: &[Op], names: &[String]) {
    for (k, op) in ops.iter().enumerate() {
        let ok = match op {
            Op::Send(to, ty) => ep
                .send(names[*to].as_str(), Message::named(TYPES[*ty], k))
                .is_ok(),
            Op::RecvFrom(from) => ep.recv_from(names[*from].as_str()).is_ok(),
            Op::Recv => ep.recv().is_ok(),
            Op::RecvAssert(from) => match ep.recv() {
                Ok((got, _)) => {
                    assert_eq!(
                        names[got], names[*from],
                        "the first message came from elsewhere"
                    );
                    true
                }
                Err(_) => false,
            },
            Op::Close(to) => ep.close(names[*to].as_str()).is_ok(),
            Op::Panic => panic!("a planted panic"),
            Op::Choose(x, y) => {
                let branch = if choose(2) == 0 { x } else { y };
                run_ops(ep, branch, names);
                return;
            }
        };
        if !ok {
            return;
        }
    }
}

/// The program of `case` (operations name peers by the object's role
/// numbers, resolved to names here).
pub(crate) fn program<'c, P: Protocol>(
    case: &'c Case,
    names: &'c [String],
) -> impl Fn(&mut Roles<'_, P>) + Sync + 'c {
    move |r| {
        for (name, ops) in &case.programs {
            // Role bodies own what they use (they run on pool threads).
            let (ops, names) = (ops.clone(), names.to_vec());
            r.spawn(name, move |mut ep| run_ops(&mut ep, &ops, &names));
        }
    }
}

/// Plain search (at most `max` executions) and each reduction on `case`,
/// on its strict object and on its liberal one (each role's projection,
/// with a queue of its own: other enabling and disabling): the same
/// failures and final states. Cases the plain search cannot finish on
/// the strict object are skipped; the liberal object is skipped where it
/// cannot be built or its plain search cannot finish.
pub(crate) fn agree(case: &Case, max: usize) -> Result<(), TestCaseError> {
    let strict = Strict::from_spec(&case.spec).expect("compiled before");
    let names = strict.roles();
    prop_assume!(agree_on(case, strict, &names, max)?, "too many executions");
    // The projection of some small random specs takes minutes (it is not
    // what this test is about): bounded here, and skipped past the bound.
    let bounded = prust::engine::Limits::default()
        .max_states(5_000)
        .timeout(std::time::Duration::from_secs(2))
        .max_memory(256 << 20);
    let liberal = match case.spec.compile_bounded(2_000) {
        Ok(lts) => Liberal::try_new_with(lts, &bounded).ok(),
        Err(_) => None,
    };
    if let Some(liberal) = liberal {
        if liberal.roles() == names {
            agree_on(case, liberal, &names, max)?;
        }
    }
    Ok(())
}

/// [`agree`] on one object; `false` if the plain search could not finish.
fn agree_on<P: Protocol>(
    case: &Case,
    object: P,
    names: &[String],
    max: usize,
) -> Result<bool, TestCaseError> {
    let explore = |reduction: Reduction, max: usize| {
        Explorer::new()
            .preemption_bound(None)
            .reduction(reduction)
            .max_executions(max)
            .explore(object.clone(), program(case, names))
    };
    let plain = explore(Reduction::None, max);
    if !plain.is_complete() {
        return Ok(false);
    }
    for reduction in [Reduction::SleepSets, Reduction::Dpor] {
        // A reduction runs a subset of the plain search's schedules (and
        // starts some it cuts short): a bound that a runaway would hit.
        let reduced = explore(reduction, 8 * plain.executions() + 100);
        prop_assert!(reduced.is_complete(), "{reduction}: {reduced}");
        prop_assert!(
            reduced.executions() - reduced.redundant() <= plain.executions(),
            "{reduction} ran more full executions than plain search: {reduced}\nplain: {plain}"
        );
        prop_assert_eq!(
            outcomes(&plain),
            outcomes(&reduced),
            "{}: plain:\n{}\nreduced:\n{}",
            reduction,
            plain,
            reduced
        );
        prop_assert_eq!(
            plain.final_states(),
            reduced.final_states(),
            "{}: final states differ; plain:\n{}\nreduced:\n{}",
            reduction,
            plain,
            reduced
        );
    }
    Ok(true)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn reductions_find_the_failures_and_final_states_of_plain_search(case in case()) {
        agree(&case, 400)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    /// The same, longer: `cargo test --test explore_reduction_programs -- --ignored`.
    #[test]
    #[ignore]
    fn soak_reductions_find_the_failures_and_final_states_of_plain_search(case in case()) {
        agree(&case, 1_000)?;
    }
}
