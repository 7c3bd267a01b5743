//! `examples/server.rs`: a server that `select!`s between requests and a
//! shutdown, on real sessions, and under `prust::explore` the planted bug
//! (it stops at the shutdown at once) found and replayed, the graceful
//! server passing every schedule.

use prust::channel::SessionEnds;
use prust::explore::{explore, Outcome};
use prust::session::{Session, SplitSession};
use prust::{Liberal, Strict};

use crate::worked_examples::{found_and_replayed, passes_complete};

#[path = "../../examples/server.rs"]
#[allow(dead_code)] // its `main`
mod example;

use example::{run, serve, spec, REQUESTS};

#[test]
fn the_server_runs_on_strict_and_liberal_sessions() {
    let spec = spec();
    for (answers, served) in [
        run(
            Session::new(Strict::from_spec(&spec).unwrap()).into_ends(),
            false,
        ),
        run(
            SplitSession::new(Liberal::from_spec(&spec).unwrap()).into_ends(),
            false,
        ),
    ] {
        assert_eq!(answers, Ok(vec![2, 4]));
        assert_eq!(served, REQUESTS.len());
    }
}

#[test]
fn explore_finds_the_abrupt_shutdown_and_passes_the_graceful_one() {
    let spec = spec();
    let strict = Strict::from_spec(&spec).unwrap();
    let liberal = Liberal::from_spec(&spec).unwrap();
    let bug = explore(strict.clone(), serve(true));
    // A race: the schedules where the shutdown comes after the client's
    // close pass.
    assert!(bug.failures().len() < bug.executions(), "{bug}");
    let Outcome::Deadlock { deadlock } =
        found_and_replayed(&bug, "deadlock", strict.clone(), serve(true))
    else {
        unreachable!()
    };
    assert!(
        deadlock
            .to_string()
            .contains("client waits to receive from server"),
        "{deadlock}"
    );
    let bug = explore(liberal.clone(), serve(true));
    found_and_replayed(&bug, "deadlock", liberal.clone(), serve(true));

    passes_complete(&explore(strict, serve(false)));
    passes_complete(&explore(liberal, serve(false)));
}
