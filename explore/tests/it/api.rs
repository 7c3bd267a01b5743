//! `prust::explore` on real programs: each outcome kind, replays, bounds
//! and properties.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use prust::explore::{explore, ExploreError, Explorer, Outcome, Roles, Schedule};
use prust::protocols;
use prust::session::BlockingEndpoint;
use prust::Strict;

use testkit::two_buyer;

use two_buyer::{buyer1, buyer2, buyer2_first_come, Decision, Title, R};

/// The seller, which asserts that buyer2 buys (it does at this price, in
/// every schedule of the correct program).
fn seller(ep: impl BlockingEndpoint) -> R<()> {
    let (_, _, buy) = two_buyer::seller(ep)?;
    assert!(buy, "at this price buyer2 buys");
    Ok(())
}

fn two_buyer(r: &mut Roles<'_, Strict>) {
    r.spawn("buyer1", |ep| {
        buyer1(ep).unwrap();
    });
    r.spawn("buyer2", |ep| {
        buyer2(ep).unwrap();
    });
    r.spawn("seller", |ep| seller(ep).unwrap());
}

fn two_buyer_buggy(r: &mut Roles<'_, Strict>) {
    r.spawn("buyer1", |ep| {
        buyer1(ep).unwrap();
    });
    r.spawn("buyer2", |ep| {
        buyer2_first_come(ep).unwrap();
    });
    r.spawn("seller", |ep| seller(ep).unwrap());
}

#[test]
fn the_correct_two_buyer_program_is_correct_in_every_schedule() {
    let ex = Explorer::new()
        .preemption_bound(None)
        .explore(protocols::two_buyer::strict(), two_buyer);
    assert!(ex.is_complete(), "{ex}");
    assert!(ex.is_successful(), "{ex}");
    assert!(ex.to_string().contains("correct in every schedule"));
    // The quotes and the contribution interleave: several schedules, all
    // equivalent to one for source-set DPOR (different channels that
    // commute on the object), run one by one by plain search.
    let plain = Explorer::new()
        .preemption_bound(None)
        .reduction(prust::explore::Reduction::None)
        .explore(protocols::two_buyer::strict(), two_buyer);
    assert!(plain.is_successful(), "{plain}");
    assert!(plain.executions() > ex.executions(), "{plain} vs {ex}");
}

#[test]
fn the_first_come_buyer2_fails_in_every_exploration_and_replays() {
    for _ in 0..3 {
        let ex = Explorer::new()
            .preemption_bound(None)
            .explore(protocols::two_buyer::strict(), two_buyer_buggy);
        assert!(ex.is_complete() && !ex.is_successful(), "{ex}");
        assert_eq!(ex.failures().len(), 1, "{ex}");
        let failure = &ex.failures()[0];
        let Outcome::Panicked { role, message, .. } = &failure.outcome else {
            panic!("expected a panic: {ex}");
        };
        assert_eq!(role, "buyer2");
        assert!(message.contains("the seller's quote"), "{message}");
        // The trace shows buyer2 receiving the contribution first.
        assert!(
            failure
                .trace
                .last()
                .is_some_and(|s| s.to_string() == "buyer2 receives <Contribution> from buyer1"),
            "{failure}"
        );
        // Simplified: short, and no more context switches than needed.
        assert!(failure.schedule.len() <= 12, "{failure}");
        // The report says how to replay it.
        let text = ex.to_string();
        assert!(text.contains(&format!("PRUST_SCHEDULE=\"{}\"", failure.schedule)));
    }
    // Replay the printed schedule 100 times: the same failure each time.
    let ex = Explorer::new().explore(protocols::two_buyer::strict(), two_buyer_buggy);
    let printed = ex.failures()[0].schedule.to_string();
    let schedule: Schedule = printed.parse().unwrap();
    for _ in 0..100 {
        let again = Explorer::new()
            .replay(&schedule)
            .explore(protocols::two_buyer::strict(), two_buyer_buggy);
        assert_eq!(again.executions(), 1);
        assert_eq!(again.failures(), ex.failures(), "{again}");
    }
}

#[derive(Clone, Debug)]
struct Request(u32);
#[derive(Clone, Debug)]
struct Response(u32);

/// `examples/deadlock.rs`'s program.
fn load_balancer(r: &mut Roles<'_, Strict>, errors: &Arc<Mutex<Vec<String>>>) {
    fn server(mut ep: impl BlockingEndpoint) -> R<()> {
        loop {
            let Request(x) = ep.recv_from("balancer")?.downcast().expect("a request");
            ep.send("client", Response(x * x))?;
        }
    }
    let e = Arc::clone(errors);
    r.spawn("client", move |mut ep| {
        let got = (|| -> R<u32> {
            ep.send("balancer", Request(7))?;
            let Response(r) = ep.recv_from("server2")?.downcast().expect("a response");
            Ok(r)
        })();
        // Panics that follow from the deadlock are part of the deadlock.
        let err = got.expect_err("the response comes from server1");
        e.lock().unwrap().push(format!("client: {err}"));
        panic!("the client gave up: {err}");
    });
    r.spawn("balancer", |mut ep| {
        let Request(x) = ep.recv_from("client").unwrap().downcast().unwrap();
        ep.send("server1", Request(x)).unwrap();
    });
    for s in ["server1", "server2"] {
        let e = Arc::clone(errors);
        r.spawn(s, move |ep| {
            if let Err(err) = server(ep) {
                e.lock().unwrap().push(format!("{s}: {err}"));
            }
        });
    }
}

#[test]
fn the_load_balancer_deadlocks_and_the_waiting_endpoints_are_told() {
    let errors = Arc::new(Mutex::new(Vec::new()));
    let ex = Explorer::new().explore(protocols::load_balancer::strict(), |r| {
        load_balancer(r, &errors)
    });
    assert!(ex.is_complete() && !ex.is_successful(), "{ex}");
    assert!(!ex.failures().is_empty());
    for f in ex.failures() {
        let Outcome::Deadlock { deadlock } = &f.outcome else {
            panic!("expected only deadlocks: {ex}");
        };
        let client = deadlock.blocked.iter().find(|b| b.role == "client");
        assert_eq!(
            client.map(|b| b.waits_for.to_string()).as_deref(),
            Some("receive from server2"),
            "{ex}"
        );
    }
    let errors = errors.lock().unwrap();
    assert!(
        errors.iter().any(|e| e.starts_with("client: deadlock")),
        "{errors:?}"
    );
    assert!(
        errors.iter().any(|e| e.starts_with("server2: deadlock")),
        "{errors:?}"
    );
}

#[derive(Clone, Debug)]
struct Move(u32);

fn chess_rounds(r: &mut Roles<'_, Strict>, rounds: u32) {
    r.spawn("white", move |mut ep| {
        for i in 0..rounds {
            ep.send("black", Move(i)).unwrap();
            let Move(j) = ep.recv_from("black").unwrap().downcast().unwrap();
            assert_eq!(j, i);
        }
    });
    r.spawn("black", move |mut ep| {
        for _ in 0..rounds {
            let Move(i) = ep.recv_from("white").unwrap().downcast().unwrap();
            ep.send("white", Move(i)).unwrap();
        }
    });
}

#[test]
fn chess_with_bounded_rounds_is_complete_and_successful() {
    let ex = Explorer::new()
        .preemption_bound(None)
        .property(
            r#"G ("white SEND <Move> TO black" -> F "black RECV <Move> FROM white") && F "END""#,
        )
        .explore(protocols::chess::strict(), |r| chess_rounds(r, 5));
    assert!(ex.is_successful(), "{ex}");
}

#[test]
fn a_message_never_received_is_an_unfinished_protocol() {
    let ex = explore(protocols::chess::strict(), |r| {
        r.spawn("white", |mut ep| ep.send("black", Move(1)).unwrap());
        r.spawn("black", |mut ep| {
            ep.recv_from("white").unwrap();
            ep.send("white", Move(2)).unwrap();
        });
    });
    assert!(ex.is_complete() && !ex.is_successful());
    assert!(
        matches!(ex.failures()[0].outcome, Outcome::Unfinished { .. }),
        "{ex}"
    );
}

#[test]
fn an_operation_after_the_protocol_ended_is_a_violation() {
    let ex = explore(protocols::two_buyer::strict(), |r| {
        r.spawn("buyer1", |ep| {
            buyer1(ep).unwrap();
        });
        r.spawn("buyer2", |mut ep| {
            ep.recv_from("seller").unwrap();
            ep.recv_from("buyer1").unwrap();
            ep.send("seller", Decision(true)).unwrap();
            // BUG: a second decision; the protocol has ended.
            let _ = ep.send("seller", Decision(false));
        });
        r.spawn("seller", |ep| seller(ep).unwrap());
    });
    assert_eq!(ex.failures().len(), 1, "{ex}");
    let Outcome::Violation { role, operation } = &ex.failures()[0].outcome else {
        panic!("expected a violation: {ex}");
    };
    assert_eq!(role, "buyer2");
    assert_eq!(operation.to_string(), "send <Decision> to seller");
}

#[test]
fn a_property_is_checked_on_every_execution() {
    // In some schedule buyer2 gets its quote before buyer1 gets its own.
    let ex = Explorer::new()
        .property(r#"!"buyer2 RECV <Quote> FROM seller" U "buyer1 RECV <Quote> FROM seller""#)
        .explore(protocols::two_buyer::strict(), two_buyer);
    assert!(!ex.is_successful(), "{ex}");
    let f = &ex.failures()[0];
    assert!(
        matches!(f.outcome, Outcome::PropertyViolated { .. }),
        "{ex}"
    );
    let b2 = f
        .trace
        .iter()
        .position(|s| s.to_string() == "buyer2 receives <Quote> from seller");
    let b1 = f
        .trace
        .iter()
        .position(|s| s.to_string() == "buyer1 receives <Quote> from seller");
    assert!(b2 < b1, "{f}");
    // A property that holds on every trace.
    let ex = Explorer::new()
        .property(r#"F "END" && G !"DEADLOCK""#)
        .explore(protocols::two_buyer::strict(), two_buyer);
    assert!(ex.is_successful(), "{ex}");
}

#[test]
fn a_misspelled_role_in_the_property_is_an_error_not_a_pass() {
    let err = Explorer::new()
        .property(r#"G F "byer2 RECV *""#)
        .try_explore(protocols::two_buyer::strict(), two_buyer)
        .unwrap_err();
    assert!(matches!(err, ExploreError::Property(_)), "{err}");
    assert!(err.to_string().contains("byer2"), "{err}");
}

#[test]
#[should_panic(expected = "no role `buyer3`")]
fn spawning_a_role_the_object_lacks_is_an_error() {
    explore(protocols::two_buyer::strict(), |r| {
        r.spawn("buyer3", |_| {});
    });
}

#[test]
fn a_misspelt_role_is_an_error_with_a_suggestion() {
    let e = Explorer::new()
        .try_explore(protocols::two_buyer::strict(), |r| {
            r.spawn("buyr1", |_| {});
        })
        .unwrap_err();
    assert!(matches!(e, ExploreError::Program(_)), "{e}");
    let text = e.to_string();
    assert!(
        text.contains("no role `buyr1`; did you mean `buyer1`?"),
        "{text}"
    );
    // And `explore` fails the test with the same message.
    let caught = std::panic::catch_unwind(|| {
        explore(protocols::chess::strict(), |r| r.spawn("blak", |_| {}));
    })
    .unwrap_err();
    let message = caught.downcast_ref::<String>().unwrap();
    assert!(message.contains("did you mean `black`?"), "{message}");
}

#[test]
fn a_step_bound_aborts_and_the_exploration_is_not_successful() {
    let ex = Explorer::new()
        .max_steps(3)
        .explore(protocols::chess::strict(), |r| chess_rounds(r, 5));
    assert!(!ex.is_complete() && !ex.is_successful(), "{ex}");
    assert!(
        matches!(ex.failures()[0].outcome, Outcome::Aborted { .. }),
        "{ex}"
    );
    assert_eq!(ex.failures()[0].trace.len(), 3);
}

#[test]
fn an_execution_bound_leaves_the_exploration_incomplete() {
    // Plain search: DPOR needs one execution for this program.
    let ex = Explorer::new()
        .max_executions(1)
        .reduction(prust::explore::Reduction::None)
        .explore(protocols::two_buyer::strict(), two_buyer);
    assert_eq!(ex.executions(), 1);
    assert!(!ex.is_complete() && !ex.is_successful(), "{ex}");
    assert!(ex.incomplete_reason().unwrap().contains("max_executions"));
    // A bound of the exploration is no failure of the program: no
    // failure with an empty schedule, and the report says how to raise it.
    assert!(ex.failures().is_empty(), "{ex}");
    let text = ex.to_string();
    assert!(
        !text.contains("distinct failure") && text.contains("no failure"),
        "{text}"
    );
    assert!(
        text.contains("INCOMPLETE: stopped after max_executions = 1"),
        "{text}"
    );
    assert!(
        text.contains("raise it with Explorer::max_executions"),
        "{text}"
    );
    assert!(text.contains("not a proof"), "{text}");
    // Nothing to replay: no empty schedule is offered.
    assert!(!text.contains("PRUST_SCHEDULE"), "{text}");
}

#[test]
fn the_time_running_out_leaves_the_exploration_incomplete_without_a_failure() {
    let ex = Explorer::new()
        .timeout(Duration::from_nanos(1))
        .explore(protocols::two_buyer::strict(), two_buyer);
    assert!(!ex.is_complete() && !ex.is_successful(), "{ex}");
    assert!(ex.failures().is_empty(), "{ex}");
    assert!(
        ex.incomplete_reason()
            .unwrap()
            .contains("Explorer::timeout"),
        "{ex}"
    );
}

#[test]
fn a_replay_is_one_schedule_never_a_proof() {
    let ex = Explorer::new()
        .replay(&"buyer1".parse().unwrap())
        .explore(protocols::two_buyer::strict(), two_buyer);
    assert!(ex.failures().is_empty(), "{ex}");
    assert!(
        ex.is_replay() && !ex.is_complete() && !ex.is_successful(),
        "{ex}"
    );
    let text = ex.to_string();
    assert!(text.starts_with("replayed 1 schedule"), "{text}");
    assert!(!text.contains("correct in every schedule"), "{text}");
    assert!(
        text.contains("not a proof: only the replayed schedule ran"),
        "{text}"
    );
    // An exploration is no replay.
    assert!(!explore(protocols::two_buyer::strict(), two_buyer).is_replay());
}

#[test]
fn a_preemption_bound_that_skips_schedules_is_not_a_proof() {
    // Plain search, whose every schedule the bound can cut (DPOR needs
    // one execution for this program).
    let full = Explorer::new()
        .preemption_bound(None)
        .reduction(prust::explore::Reduction::None)
        .explore(protocols::two_buyer::strict(), two_buyer);
    let bounded = Explorer::new()
        .preemption_bound(Some(0))
        .reduction(prust::explore::Reduction::None)
        .explore(protocols::two_buyer::strict(), two_buyer);
    assert!(bounded.executions() < full.executions());
    assert!(bounded.skipped_by_bound() > 0);
    assert!(
        !bounded.is_complete() && !bounded.is_successful(),
        "{bounded}"
    );
    // Déjà Fu's default bound 2 still finds the first-come bug.
    let ex = Explorer::new()
        .preemption_bound(Some(2))
        .explore(protocols::two_buyer::strict(), two_buyer_buggy);
    assert!(
        matches!(ex.failures()[0].outcome, Outcome::Panicked { .. }),
        "{ex}"
    );
}

#[test]
fn a_role_blocked_outside_the_session_is_reported_not_a_hang() {
    let ex = Explorer::new()
        .role_timeout(Duration::from_millis(200))
        .explore(protocols::chess::strict(), |r| {
            // Sharing a channel between roles breaks the assumption.
            let (tx, rx) = std::sync::mpsc::channel::<()>();
            r.spawn("white", move |mut ep| {
                let _ = rx.recv(); // waits for black, which waits in the session
                let _ = ep.send("black", Move(0));
            });
            r.spawn("black", move |mut ep| {
                let _ = ep.recv_from("white");
                let _ = tx.send(());
            });
        });
    assert!(!ex.is_complete() && !ex.is_successful(), "{ex}");
    let Outcome::Stuck { role, .. } = &ex.failures()[0].outcome else {
        panic!("expected a stuck role: {ex}");
    };
    assert_eq!(role, "white");
}

#[test]
fn a_replay_that_does_not_fit_the_program_reports_nondeterminism() {
    let ex = Explorer::new()
        .replay(&"black".parse().unwrap())
        .explore(protocols::chess::strict(), |r| chess_rounds(r, 1));
    let Outcome::Nondeterministic { step, .. } = &ex.failures()[0].outcome else {
        panic!("expected nondeterminism: {ex}");
    };
    assert_eq!(*step, 1);
    assert!(!ex.is_complete());
}

/// A schedule of two rounds replayed on a program of one: the program
/// returns with choices left, which is no run of that schedule (it read
/// "no failure" while the failing steps were never reached).
#[test]
fn a_replay_with_choices_left_when_the_program_returns_is_reported() {
    let two_rounds = "white black black white white black black white";
    let ex = Explorer::new()
        .replay(&two_rounds.parse().unwrap())
        .explore(protocols::chess::strict(), |r| chess_rounds(r, 1));
    let Some(Outcome::Nondeterministic {
        step,
        expected,
        found,
    }) = ex.failures().first().map(|f| &f.outcome)
    else {
        panic!("expected the replay to diverge: {ex}");
    };
    assert_eq!((*step, expected.as_str()), (5, "the choice white"), "{ex}");
    assert!(found.contains("every role had returned"), "{found}");
    assert!(ex.results().is_empty(), "{ex}");
    // The whole schedule (or a prefix, extended by first choices) fits.
    for fits in [two_rounds, "white black"] {
        let ex = Explorer::new()
            .replay(&fits.parse().unwrap())
            .explore(protocols::chess::strict(), |r| chess_rounds(r, 2));
        assert!(ex.failures().is_empty(), "{fits}: {ex}");
        assert_eq!(ex.results().len(), 1, "{fits}: {ex}");
    }
}

#[test]
fn a_panicking_role_is_reported_with_its_message() {
    let ex = explore(protocols::chess::strict(), |r| {
        r.spawn("white", |mut ep| {
            ep.send("black", Move(1)).unwrap();
            let Move(m) = ep.recv_from("black").unwrap().downcast().unwrap();
            assert!(m > 100, "black's answer {m} is too small");
        });
        r.spawn("black", |mut ep| {
            ep.recv_from("white").unwrap();
            ep.send("white", Move(2)).unwrap();
        });
    });
    let Outcome::Panicked {
        role,
        message,
        location,
    } = &ex.failures()[0].outcome
    else {
        panic!("expected a panic: {ex}");
    };
    assert_eq!(role, "white");
    assert_eq!(message, "black's answer 2 is too small");
    assert!(location.as_deref().is_some_and(|l| l.starts_with(file!())));
}

/// Discourje's FM'24 example 1: buyer1 waits for its quote from the wrong
/// peer.
#[test]
fn buyer1_waiting_on_the_wrong_peer_deadlocks_in_every_schedule() {
    let ex = Explorer::new()
        .reduction(prust::explore::Reduction::None)
        .explore(protocols::two_buyer::strict(), |r| {
            r.spawn("buyer1", |mut ep| {
                ep.send("seller", Title("War and Peace")).unwrap();
                let _ = ep.recv_from("buyer2"); // BUG: the quote comes from the seller
            });
            r.spawn("buyer2", |ep| {
                let _ = buyer2(ep);
            });
            r.spawn("seller", |ep| {
                let _ = seller(ep);
            });
        });
    assert!(ex.is_complete(), "{ex}");
    let deadlocked: usize = (0..ex.failures().len())
        .filter(|&i| matches!(ex.failures()[i].outcome, Outcome::Deadlock { .. }))
        .map(|i| ex.failure_count(i))
        .sum();
    assert_eq!(deadlocked, ex.executions(), "{ex}");
    for f in ex.failures() {
        let Outcome::Deadlock { deadlock } = &f.outcome else {
            unreachable!()
        };
        let waits: Vec<String> = deadlock
            .blocked
            .iter()
            .map(|b| format!("{} {}", b.role, b.waits_for))
            .collect();
        assert_eq!(
            waits,
            [
                "buyer1 receive from buyer2",
                "buyer2 receive from buyer1",
                "seller receive from buyer2"
            ],
            "{ex}"
        );
    }
}

#[test]
fn a_role_that_ignores_the_deadlock_error_in_a_loop_is_still_ended() {
    let ex = explore(protocols::chess::strict(), |r| {
        r.spawn("white", |_| {}); // never moves
        r.spawn("black", |mut ep| loop {
            // BUG: the error is ignored; with a real session this spins.
            let _ = ep.recv_from("white");
        });
    });
    assert!(ex.is_complete(), "{ex}");
    let Outcome::Deadlock { deadlock } = &ex.failures()[0].outcome else {
        panic!("expected a deadlock: {ex}");
    };
    assert_eq!(deadlock.blocked[0].role, "black");
}

/// Under exploration too, a role that names itself as its peer gets
/// `Error::ToSelf` at once, not a violation or a deadlock at the end.
#[test]
fn a_send_to_oneself_is_refused_at_once_under_exploration() {
    #[derive(Clone, Debug)]
    struct Move;
    let ex = Explorer::new().explore(protocols::chess::strict(), |r| {
        r.spawn("white", |mut ep| {
            let e = ep.send("white", Move).unwrap_err();
            assert!(matches!(e, prust::session::Error::ToSelf { .. }), "{e:?}");
            ep.send("black", Move).unwrap();
            ep.recv_from("black").unwrap();
        });
        r.spawn("black", |mut ep| {
            ep.recv_from("white").unwrap();
            ep.send("white", Move).unwrap();
        });
    });
    assert!(ex.is_successful(), "{ex}");
}
