//! `examples/worker_pool.rs`: the Rust book's pool on real sessions, and
//! under `prust::explore` the planted bug (results filed in the order they
//! arrive) found and replayed, the fix passing every schedule.

use prust::channel::SessionEnds;
use prust::explore::{explore, Outcome};
use prust::session::{Session, SplitSession};
use prust::{Liberal, Strict};

use crate::worked_examples::{found_and_replayed, passes_complete};

#[path = "../../examples/worker_pool.rs"]
#[allow(dead_code)] // its `main`
mod example;

use example::{expected, pool, run, spec, NUMBERS};

#[test]
fn the_pool_runs_on_strict_and_liberal_sessions() {
    let spec = spec();
    for (results, counts) in [
        run(Session::new(Strict::from_spec(&spec).unwrap()).into_ends()),
        run(SplitSession::new(Liberal::from_spec(&spec).unwrap()).into_ends()),
    ] {
        assert_eq!(results, expected(&NUMBERS));
        assert_eq!(counts.iter().sum::<usize>(), NUMBERS.len());
        assert!(
            counts.iter().all(|&c| c >= 1),
            "each worker had a job: {counts:?}"
        );
    }
}

#[test]
fn explore_finds_results_filed_by_arrival_and_passes_the_fix() {
    let spec = spec();
    let strict = Strict::from_spec(&spec).unwrap();
    let liberal = Liberal::from_spec(&spec).unwrap();

    let bug = explore(strict.clone(), pool(true));
    let outcome = found_and_replayed(&bug, "panic", strict.clone(), pool(true));
    let Outcome::Panicked { role, message, .. } = outcome else {
        unreachable!()
    };
    assert_eq!(role, "master");
    assert!(
        message.contains("assertion `left == right` failed"),
        "{message}"
    );
    // Only the schedules where worker 1 answers first: not every one fails.
    assert!(bug.failures().len() < bug.executions(), "{bug}");

    let bug = explore(liberal.clone(), pool(true));
    found_and_replayed(&bug, "panic", liberal.clone(), pool(true));

    passes_complete(&explore(strict, pool(false)));
    passes_complete(&explore(liberal, pool(false)));
}
