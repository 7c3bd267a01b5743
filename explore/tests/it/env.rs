//! `PRUST_*` variables of `prust::explore`, set in a child process where
//! this test runs alone: setting a variable here cannot reach another
//! test's explorer.

use prust::explore::{explore, ExploreError, Explorer, Outcome, Roles};
use prust::protocols;
use prust::session::BlockingEndpoint;
use prust::Strict;

#[derive(Clone, Debug)]
struct Move(u32);

/// White plays one of two openings first; black rejects the second.
fn game(r: &mut Roles<'_, Strict>) {
    r.spawn("white", |mut ep| {
        let opening = prust::explore::choose(2) as u32;
        ep.send("black", Move(opening)).unwrap();
        ep.recv_from("black").unwrap();
    });
    r.spawn("black", |mut ep| {
        let Move(m) = ep.recv_from("white").unwrap().downcast().unwrap();
        assert_eq!(m, 0, "black only knows opening 0");
        ep.send("white", Move(m)).unwrap();
    });
}

#[test]
fn the_environment_sets_the_options_and_replays_a_schedule() {
    // No other test runs in the child, so none reads the environment
    // meanwhile.
    if !testkit::alone::in_child(
        module_path!(),
        "the_environment_sets_the_options_and_replays_a_schedule",
    ) {
        return;
    }
    // Unset, the timeout is sized for a test (a minute), not unlimited.
    if std::env::var_os("PRUST_TIMEOUT").is_none() {
        let limits = Explorer::from_env().unwrap().limits();
        assert_eq!(
            limits.time_budget(),
            Some(std::time::Duration::from_secs(60)),
            "{limits:?}"
        );
    }
    std::env::set_var("PRUST_PREEMPTION_BOUND", "two");
    let err = Explorer::from_env().unwrap_err();
    assert!(
        matches!(&err, ExploreError::Env { variable, .. } if variable == "PRUST_PREEMPTION_BOUND"),
        "{err}"
    );
    std::env::set_var("PRUST_PREEMPTION_BOUND", "none");

    let ex = explore(protocols::chess::strict(), game);
    assert_eq!(ex.failures().len(), 1, "{ex}");
    let printed = ex.failures()[0].schedule.to_string();
    assert!(printed.starts_with("white#1"), "{printed}");

    // PRUST_SCHEDULE: the same call runs that one schedule.
    std::env::set_var("PRUST_SCHEDULE", &printed);
    let again = explore(protocols::chess::strict(), game);
    assert_eq!(again.executions(), 1);
    assert_eq!(again.failures(), ex.failures(), "{again}");
    assert!(again.is_replay() && !again.is_complete(), "{again}");
    assert!(matches!(
        again.failures()[0].outcome,
        Outcome::Panicked { .. }
    ));
    // A schedule that does not parse is named with its column.
    std::env::set_var("PRUST_SCHEDULE", "white black#x");
    let err = Explorer::from_env().unwrap_err();
    assert!(err.to_string().contains("column 7"), "{err}");
    std::env::remove_var("PRUST_SCHEDULE");
    std::env::set_var("PRUST_MAX_EXECUTIONS", "1");
    let one = explore(protocols::chess::strict(), game);
    assert!(!one.is_complete() && one.executions() == 1, "{one}");
    std::env::remove_var("PRUST_MAX_EXECUTIONS");
}

/// `PRUST_FAIRNESS=weak` changes no property's verdict, even for an
/// object with more roles than a check's fairness marks (which a check
/// refuses): every execution's trace is a weakly fair run.
#[test]
fn prust_fairness_changes_no_property_verdict() {
    if !testkit::alone::in_child(module_path!(), "prust_fairness_changes_no_property_verdict") {
        return;
    }
    let lts = prust::bundled::by_name("token-full-mesh:40").unwrap();
    let run = || {
        Explorer::new()
            .property(r#"F "* SEND *""#)
            .try_explore(Strict::try_new(lts.clone()).unwrap(), |_| {})
            .map(|ex| ex.failures().len())
            .map_err(|e| e.to_string())
    };
    let unfair = run();
    assert_eq!(unfair, Ok(1), "no role moves, so nothing is sent");
    std::env::set_var("PRUST_FAIRNESS", "weak");
    assert_eq!(run(), unfair);
}
