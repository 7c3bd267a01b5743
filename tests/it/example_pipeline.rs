//! `examples/pipeline.rs`: three stages over a `#[derive(prust::Message)]`
//! enum on real sessions, and under `prust::explore` the planted bug (the
//! middle stage drops the end) found and replayed, the fix passing every
//! schedule.

use prust::channel::SessionEnds;
use prust::explore::{explore, Outcome};
use prust::session::{Session, SplitSession};
use prust::{Liberal, Strict};

use crate::worked_examples::{found_and_replayed, passes_complete};

#[path = "../../examples/pipeline.rs"]
#[allow(dead_code)] // its `main`
mod example;

use example::{pipeline, run, spec};

#[test]
fn the_spec_is_imported_from_its_dcj_text() {
    let lts = spec().compile().unwrap();
    assert_eq!(lts.roles(), ["source", "square", "sink"]);
}

#[test]
fn the_pipeline_runs_on_strict_and_liberal_sessions() {
    let spec = spec();
    let strict = || Session::new(Strict::from_spec(&spec).unwrap()).into_ends();
    let liberal = || SplitSession::new(Liberal::from_spec(&spec).unwrap()).into_ends();
    assert_eq!(run(strict(), false), Ok(14));
    assert_eq!(run(liberal(), false), Ok(14));
    // The bug on real threads: a deadlock error for the sink, not a hang.
    for e in [
        run(strict(), true).unwrap_err(),
        run(liberal(), true).unwrap_err(),
    ] {
        let deadlock = e.deadlock().unwrap_or_else(|| panic!("{e:?}"));
        assert!(
            deadlock
                .to_string()
                .contains("sink waits to receive from square"),
            "{deadlock}"
        );
    }
}

#[test]
fn explore_finds_the_dropped_end_and_passes_the_fix() {
    let spec = spec();
    let strict = Strict::from_spec(&spec).unwrap();
    let liberal = Liberal::from_spec(&spec).unwrap();
    for bug in [
        {
            let bug = explore(strict.clone(), pipeline(true));
            found_and_replayed(&bug, "deadlock", strict.clone(), pipeline(true))
        },
        {
            let bug = explore(liberal.clone(), pipeline(true));
            found_and_replayed(&bug, "deadlock", liberal.clone(), pipeline(true))
        },
    ] {
        let Outcome::Deadlock { deadlock } = bug else {
            unreachable!()
        };
        let text = deadlock.to_string();
        assert!(text.contains("sink waits to receive from square"), "{text}");
    }
    passes_complete(&explore(strict, pipeline(false)));
    passes_complete(&explore(liberal, pipeline(false)));
}
