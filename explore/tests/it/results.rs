//! Results across schedules: the distinct results of complete
//! executions, Déjà Fu's predicates over them, and `autocheck`.

use std::collections::BTreeSet;

use prust::explore::{Explorer, Reduction, Roles, Status};
use prust::session::BlockingEndpoint;
use testkit::mailbox::Mailbox;

#[derive(Clone, Debug)]
struct M;

/// Two senders and a receiver over unbounded FIFO channels.
fn mailbox() -> Mailbox {
    Mailbox::named(&["s1", "s2", "recv"], None)
}

/// Two senders race to a receiver that returns the order in which their
/// messages arrived: the result depends on the schedule.
fn race(r: &mut Roles<'_, Mailbox>) -> prust::explore::Handle<Vec<String>> {
    r.spawn("s1", |mut ep| {
        ep.send("s2", M).and(ep.send("recv", M)).unwrap()
    });
    r.spawn("s2", |mut ep| {
        ep.recv_from("s1").unwrap();
        ep.send("recv", M).unwrap();
    });
    r.spawn("recv", |mut ep| {
        (0..2)
            .map(|_| {
                let (from, _) = ep.recv().unwrap();
                ep.roles()[from].clone()
            })
            .collect()
    })
}

/// The same receiver taking its messages in a fixed order: one result.
fn in_order(r: &mut Roles<'_, Mailbox>) -> prust::explore::Handle<Vec<String>> {
    r.spawn("s1", |mut ep| ep.send("recv", M).unwrap());
    r.spawn("s2", |mut ep| ep.send("recv", M).unwrap());
    r.spawn("recv", |mut ep| {
        ["s1", "s2"]
            .map(|from| {
                ep.recv_from(from).unwrap();
                from.to_string()
            })
            .to_vec()
    })
}

fn order(names: &[&str]) -> Vec<String> {
    names.iter().map(|n| n.to_string()).collect()
}

#[test]
fn a_race_gives_two_results_each_with_a_schedule_that_replays_to_it() {
    let ex = Explorer::new().explore(mailbox(), race);
    assert!(ex.is_successful(), "{ex}");
    let found: BTreeSet<_> = ex.results().iter().map(|r| r.value.clone()).collect();
    assert_eq!(
        found,
        BTreeSet::from([order(&["s1", "s2"]), order(&["s2", "s1"])])
    );
    assert!(ex.not_always_same().holds());
    let same = ex.always_same();
    assert_eq!(same.status, Status::Fails, "{same}");
    assert_eq!(same.results.len(), 2, "{same}");
    for r in &same.results {
        let again = Explorer::new().replay(&r.schedule).explore(mailbox(), race);
        assert!(again.failures().is_empty(), "{again}");
        assert_eq!(again.results().len(), 1);
        assert_eq!(again.results()[0].value, r.value, "{}", r.schedule);
        // The verdict prints each result with its schedule.
        assert!(
            same.to_string()
                .contains(&format!("{:?}  schedule: {}", r.value, r.schedule)),
            "{same}"
        );
    }
}

#[test]
fn every_reduction_finds_both_results_of_the_race() {
    for reduction in [Reduction::None, Reduction::SleepSets, Reduction::Dpor] {
        let ex = Explorer::new()
            .reduction(reduction)
            .explore(mailbox(), race);
        assert_eq!(ex.results().len(), 2, "{reduction}: {ex}");
    }
}

#[test]
fn a_deterministic_program_always_gives_the_same_result() {
    let ex = Explorer::new().explore(mailbox(), in_order);
    assert!(ex.is_successful(), "{ex}");
    assert!(ex.always_same().holds(), "{}", ex.always_same());
    assert!(ex.not_always_same().fails());
    assert!(ex.always(|r| r.len() == 2).holds());
    assert!(ex.somewhere(|r| r[0] == "s1").holds());
    assert!(ex.somewhere(|r| r[0] == "s2").fails());
    assert!(ex.gives(&[order(&["s1", "s2"])]).holds());
}

#[test]
fn gives_names_the_unexpected_and_the_missing_results() {
    let ex = Explorer::new().explore(mailbox(), race);
    let both = [order(&["s1", "s2"]), order(&["s2", "s1"])];
    assert!(ex.gives(&both).holds());
    let one = ex.gives(&both[..1]);
    assert!(one.fails());
    assert_eq!(one.results.len(), 1);
    assert_eq!(one.results[0].value, both[1]);
    let three = ex.gives(&[both[0].clone(), both[1].clone(), order(&["recv"])]);
    assert!(three.fails());
    assert_eq!(three.missing, [order(&["recv"])]);
    assert!(
        three.to_string().contains("no execution gave it"),
        "{three}"
    );
}

#[test]
fn a_cut_short_exploration_leaves_universal_predicates_inconclusive() {
    // One execution of the race: one result found, the other not run.
    let ex = Explorer::new().max_executions(1).explore(mailbox(), race);
    assert!(!ex.is_complete());
    assert_eq!(ex.results().len(), 1);
    let found = ex.results()[0].value.clone();
    let both = [order(&["s1", "s2"]), order(&["s2", "s1"])];
    for v in [ex.always_same(), ex.always(|_| true), ex.gives(&both)] {
        assert_eq!(v.status, Status::Inconclusive, "{v}");
        assert!(v.to_string().contains("cut short"), "{v}");
    }
    // Existential ones succeed on a witness, and are inconclusive without.
    assert!(ex.somewhere(|r| *r == found).holds());
    assert!(ex.somewhere(|r| *r != found).is_inconclusive());
    assert!(ex.not_always_same().is_inconclusive());
    // A counterexample is certain even so.
    assert!(ex.gives(&[order(&["recv"])]).fails());
    assert!(ex.always(|r| *r != found).fails());

    // A replay is no exploration either.
    let schedule = ex.results()[0].schedule.clone();
    let replay = Explorer::new().replay(&schedule).explore(mailbox(), race);
    assert!(replay.always_same().is_inconclusive());
    let check = Explorer::new().max_executions(1).autocheck(mailbox(), race);
    assert!(!check.passed());
    assert!(
        check
            .to_string()
            .contains("[inconclusive] Consistent Result"),
        "{check}"
    );
}

#[test]
fn failing_executions_break_the_universal_predicates() {
    // The receiver panics where s2's message arrives first.
    let ex = Explorer::new().explore(mailbox(), |r| {
        r.spawn("s1", |mut ep| {
            ep.send("s2", M).and(ep.send("recv", M)).unwrap()
        });
        r.spawn("s2", |mut ep| {
            ep.recv_from("s1").unwrap();
            ep.send("recv", M).unwrap();
        });
        r.spawn("recv", |mut ep| {
            let (first, _) = ep.recv().unwrap();
            assert_eq!(ep.roles()[first], "s1", "s2 came first");
            ep.recv().unwrap();
            1
        })
    });
    assert_eq!(ex.results().len(), 1, "{ex}");
    for v in [ex.always(|_| true), ex.always_same(), ex.gives(&[1])] {
        assert!(v.fails(), "{v}");
        assert_eq!(v.failures.len(), 1, "{v}");
        assert!(v.results.is_empty(), "{v}");
    }
}

#[test]
fn autocheck_prints_deja_fus_three_lines() {
    let check = Explorer::new().autocheck(mailbox(), in_order);
    assert!(check.passed(), "{check}");
    assert_eq!(
        check.to_string(),
        "[pass] Never Deadlocks\n[pass] No Exceptions\n[pass] Consistent Result\n"
    );

    let check = Explorer::new().autocheck(mailbox(), race);
    assert!(!check.passed());
    let text = check.to_string();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[..3],
        [
            "[pass] Never Deadlocks",
            "[pass] No Exceptions",
            "[fail] Consistent Result"
        ],
        "{text}"
    );
    // Under the fail: each result with a schedule that gives it.
    for r in check.exploration.results() {
        assert!(
            lines.contains(&format!("    {:?}  schedule: {}", r.value, r.schedule).as_str()),
            "{text}"
        );
    }

    // The receiver asserts on the order (a panic where s2 comes first),
    // then waits for a second message from s1 while s2's is in transit (a
    // deadlock where s1 comes first).
    let check = Explorer::new().autocheck(mailbox(), |r| {
        r.spawn("s1", |mut ep| ep.send("recv", M).unwrap());
        r.spawn("s2", |mut ep| ep.send("recv", M).unwrap());
        r.spawn("recv", |mut ep| {
            let (first, _) = ep.recv().unwrap();
            assert_eq!(ep.roles()[first], "s1", "s2 came first");
            ep.recv_from("s1").is_ok()
        })
    });
    let text = check.to_string();
    assert!(
        text.starts_with("[fail] Never Deadlocks\n    deadlock"),
        "{text}"
    );
    assert!(
        text.contains("[fail] No Exceptions\n    panic: recv panicked"),
        "{text}"
    );
    assert!(text.contains("[fail] Consistent Result"), "{text}");
}
