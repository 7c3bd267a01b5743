//! The same random programs (`reduction_programs.rs`'s generator) run as
//! threads and as async tasks: the same outcomes, results, executions and
//! final states under exploration, with and without DPOR; and DPOR finds
//! the outcomes, results and final states of plain search on the async
//! programs. A role whose program makes its own choice (`choose`, which a
//! task cannot wait for) stays a thread: those cases mix both kinds.

use std::collections::BTreeSet;

use proptest::prelude::*;
use prust::explore::{choose, Exploration, ExploreEndpoint, Explorer, Handle, Reduction, Roles};
use prust::session::BlockingEndpoint;
use prust::{Liberal, Message, Protocol, Strict};

use testkit::aio;

use super::async_roles::outcome;
use super::reduction_programs::{case, Case, Op, TYPES};

/// What a role saw: each message it received, and how it stopped.
type Log = Vec<String>;

/// Runs `ops` with blocking calls, noting what is received.
fn run_ops(ep: &mut impl BlockingEndpoint, ops: &[Op], names: &[String], log: &mut Log) {
    for (k, op) in ops.iter().enumerate() {
        let ok = match op {
            Op::Send(to, ty) => ep
                .send(names[*to].as_str(), Message::named(TYPES[*ty], k))
                .is_ok(),
            Op::RecvFrom(from) => {
                note(log, ep.recv_from(names[*from].as_str()).map(|m| (*from, m)))
            }
            Op::Recv => note(log, ep.recv()),
            Op::RecvAssert(from) => assert_from(log, ep.recv(), *from, names),
            Op::Close(to) => ep.close(names[*to].as_str()).is_ok(),
            Op::Panic => panic!("a planted panic"),
            Op::Choose(x, y) => {
                let branch = if choose(2) == 0 { x } else { y };
                run_ops(ep, branch, names, log);
                return;
            }
        };
        if !ok {
            return;
        }
    }
}

/// [`run_ops`] awaiting each operation (no `Choose`: such roles are
/// threads).
async fn run_ops_async<E: BlockingEndpoint>(mut ep: E, ops: Vec<Op>, names: Vec<String>) -> Log {
    let mut log = Log::new();
    for (k, op) in ops.iter().enumerate() {
        let ok = match op {
            Op::Send(to, ty) => {
                aio::send(&mut ep, names[*to].as_str(), Message::named(TYPES[*ty], k))
                    .await
                    .is_ok()
            }
            Op::RecvFrom(from) => note(
                &mut log,
                aio::recv_from(&mut ep, names[*from].as_str())
                    .await
                    .map(|m| (*from, m)),
            ),
            Op::Recv => note(&mut log, aio::recv(&mut ep).await),
            Op::RecvAssert(from) => assert_from(&mut log, aio::recv(&mut ep).await, *from, &names),
            // The blocking close, as a dropped channel sender makes it.
            Op::Close(to) => ep.close(names[*to].as_str()).is_ok(),
            Op::Panic => panic!("a planted panic"),
            Op::Choose(..) => unreachable!("roles that choose are threads"),
        };
        if !ok {
            break;
        }
    }
    log
}

fn note(log: &mut Log, got: Result<(usize, Message), prust::session::Error>) -> bool {
    match got {
        Ok((from, m)) => {
            log.push(format!("{}:{from}", m.type_name()));
            true
        }
        Err(e) => {
            log.push(format!("error: {e}"));
            false
        }
    }
}

fn assert_from(
    log: &mut Log,
    got: Result<(usize, Message), prust::session::Error>,
    from: usize,
    names: &[String],
) -> bool {
    if let Ok((got, _)) = &got {
        assert_eq!(
            names[*got], names[from],
            "the first message came from elsewhere"
        );
    }
    note(log, got)
}

fn has_choice(ops: &[Op]) -> bool {
    ops.iter().any(|o| matches!(o, Op::Choose(..)))
}

/// The program of `case`, its roles as threads, or as tasks where they
/// make no choice of their own.
fn program<'c, P: Protocol>(
    case: &'c Case,
    names: &'c [String],
    tasks: bool,
) -> impl Fn(&mut Roles<'_, P>) -> Vec<Handle<Log>> + Sync + 'c {
    move |r| {
        let mut handles = Vec::new();
        for (name, ops) in &case.programs {
            let (ops, names) = (ops.clone(), names.to_vec());
            handles.push(if tasks && !has_choice(&ops) {
                r.spawn_async(name, move |ep: ExploreEndpoint<P>| {
                    run_ops_async(ep, ops, names)
                })
            } else {
                r.spawn(name, move |mut ep| {
                    let mut log = Log::new();
                    run_ops(&mut ep, &ops, &names, &mut log);
                    log
                })
            });
        }
        handles
    }
}

fn outcomes<T>(ex: &Exploration<T>) -> BTreeSet<String> {
    ex.failures().iter().map(|f| outcome(&f.outcome)).collect()
}

fn results(ex: &Exploration<Vec<Log>>) -> BTreeSet<Vec<Log>> {
    ex.results().iter().map(|r| r.value.clone()).collect()
}

/// Threads against tasks (plain search and DPOR), and plain search
/// against DPOR on the tasks; `false` if plain search could not finish.
fn agree_on<P: Protocol>(case: &Case, object: P, max: usize) -> Result<bool, TestCaseError> {
    let names = object.roles();
    let explore = |reduction: Reduction, tasks: bool, max: usize| {
        Explorer::new()
            .preemption_bound(None)
            .reduction(reduction)
            .max_executions(max)
            .explore(object.clone(), program(case, &names, tasks))
    };
    let plain = explore(Reduction::None, false, max);
    if !plain.is_complete() {
        return Ok(false);
    }
    let plain_tasks = explore(Reduction::None, true, max);
    for (reduction, threads, tasks) in [
        (Reduction::None, plain, plain_tasks.clone()),
        (
            Reduction::Dpor,
            explore(Reduction::Dpor, false, max),
            explore(Reduction::Dpor, true, max),
        ),
    ] {
        prop_assert!(tasks.is_complete(), "{reduction}: {tasks}");
        prop_assert_eq!(
            threads.executions(),
            tasks.executions(),
            "{}: {}\n{}",
            reduction,
            threads,
            tasks
        );
        prop_assert_eq!(
            outcomes(&threads),
            outcomes(&tasks),
            "{}: {}\n{}",
            reduction,
            threads,
            tasks
        );
        prop_assert_eq!(
            results(&threads),
            results(&tasks),
            "{}: {}\n{}",
            reduction,
            threads,
            tasks
        );
        prop_assert_eq!(threads.final_states(), tasks.final_states());
        if reduction == Reduction::Dpor {
            prop_assert_eq!(
                outcomes(&plain_tasks),
                outcomes(&tasks),
                "{}\n{}",
                plain_tasks,
                tasks
            );
            prop_assert_eq!(
                results(&plain_tasks),
                results(&tasks),
                "{}\n{}",
                plain_tasks,
                tasks
            );
            prop_assert_eq!(plain_tasks.final_states(), tasks.final_states());
        }
    }
    Ok(true)
}

fn agree(case: &Case) -> Result<(), TestCaseError> {
    let strict = Strict::from_spec(&case.spec).expect("compiled before");
    prop_assume!(agree_on(case, strict, 300)?, "too many executions");
    let bounded = prust::engine::Limits::default()
        .max_states(5_000)
        .timeout(std::time::Duration::from_secs(2))
        .max_memory(256 << 20);
    if let Some(liberal) = case
        .spec
        .compile_bounded(2_000)
        .ok()
        .and_then(|lts| Liberal::try_new_with(lts, &bounded).ok())
    {
        agree_on(case, liberal, 300)?;
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    #[test]
    fn threads_and_tasks_explore_alike_and_dpor_keeps_the_tasks_outcomes(case in case()) {
        agree(&case)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// The same, longer: `cargo test -p prust-explore --test it async_differential -- --ignored`.
    #[test]
    #[ignore]
    fn threads_and_tasks_explore_alike_soak(case in case()) {
        agree(&case)?;
    }
}
