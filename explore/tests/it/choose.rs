//! `prust::explore::choose`: the program's own choices are explored, one
//! branch per value, replayed from the printed schedule, and left out of
//! the run that a property is checked on.

use prust::explore::{choose, Explorer, Outcome, Roles, Schedule};
use prust::protocols;
use prust::session::BlockingEndpoint;
use prust::Strict;

#[derive(Clone, Debug)]
struct Request(u32);
#[derive(Clone, Debug)]
struct Response(u32);

/// The load balancer picks a server with `choose(2)`; the client (BUG)
/// waits for server2 whatever the choice; each server serves one request.
fn balanced(r: &mut Roles<'_, Strict>) {
    r.spawn("client", |mut ep| {
        ep.send("balancer", Request(7)).unwrap();
        if let Ok(m) = ep.recv_from("server2") {
            let Response(y) = m.downcast().unwrap();
            assert_eq!(y, 49);
        }
    });
    r.spawn("balancer", |mut ep| {
        let Request(x) = ep.recv_from("client").unwrap().downcast().unwrap();
        let server = ["server1", "server2"][choose(2)];
        ep.send(server, Request(x)).unwrap();
    });
    for s in ["server1", "server2"] {
        r.spawn(s, |mut ep| {
            if let Ok(m) = ep.recv_from("balancer") {
                let Request(x) = m.downcast().unwrap();
                let _ = ep.send("client", Response(x * x));
            }
        });
    }
}

#[test]
fn each_choice_of_the_program_is_explored() {
    let ex = Explorer::new().explore(protocols::load_balancer::strict(), balanced);
    assert!(ex.is_complete(), "{ex}");
    // Choice 0 (server1): the client waits for server2 forever.
    let deadlock = ex
        .failures()
        .iter()
        .find(|f| matches!(f.outcome, Outcome::Deadlock { .. }))
        .unwrap_or_else(|| panic!("{ex}"));
    assert!(deadlock.schedule.to_string().contains("balancer#0"), "{ex}");
    assert!(deadlock
        .outcome
        .to_string()
        .contains("client waits to receive from server2"));
    assert!(deadlock
        .trace
        .iter()
        .any(|s| s.to_string() == "balancer chooses 0 (of 0..2)"));
    // Choice 1 (server2): the protocol ends, but server1 still waits.
    let violation = ex
        .failures()
        .iter()
        .find(|f| matches!(f.outcome, Outcome::Violation { .. }))
        .unwrap_or_else(|| panic!("{ex}"));
    assert!(
        violation.schedule.to_string().contains("balancer#1"),
        "{ex}"
    );
    // The printed schedule replays the same failure.
    let again = Explorer::new()
        .replay(&violation.schedule.to_string().parse::<Schedule>().unwrap())
        .explore(protocols::load_balancer::strict(), balanced);
    assert_eq!(again.failures(), std::slice::from_ref(violation));
}

#[test]
fn choices_are_not_protocol_actions_for_properties() {
    #[derive(Clone, Debug)]
    struct Move(usize);
    let ex = Explorer::new()
        .property(r#"F "END" && G ("white SEND <Move>" -> F "white RECV <Move>")"#)
        .explore(protocols::chess::strict(), |r| {
            r.spawn("white", |mut ep| {
                for _ in 0..choose(3) + 1 {
                    ep.send("black", Move(0)).unwrap();
                    ep.recv_from("black").unwrap();
                }
                ep.send("black", Move(99)).unwrap();
                ep.recv_from("black").unwrap();
            });
            r.spawn("black", |mut ep| loop {
                let Move(m) = ep.recv_from("white").unwrap().downcast().unwrap();
                ep.send("white", Move(m)).unwrap();
                if m == 99 {
                    break;
                }
            });
        });
    assert!(ex.is_successful(), "{ex}");
    // One execution per value (2 to 4 rounds), nothing else interleaves.
    assert_eq!(ex.executions() - ex.redundant(), 3, "{ex}");
}

#[test]
fn choose_outside_an_exploration_is_random_within_range() {
    let seen: std::collections::HashSet<usize> = (0..200).map(|_| choose(3)).collect();
    assert!(seen.iter().all(|&k| k < 3));
    assert!(seen.len() > 1, "{seen:?}");
    assert_eq!(choose(1), 0);
}
