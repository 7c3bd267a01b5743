//! Discourje FM'24 example 2, the load balancer, as a program under
//! `prust::explore`: clients send requests to a balancer, which
//! hands each one to a worker of its own choosing (`choose`); the worker
//! answers the client directly. Clients close their channel to the
//! balancer when done; the balancer, once every client has closed (its
//! `recv()` from anyone fails with `Closed`), closes its channels to the
//! workers, whose receive loops end on that close.
//!
//! The program and the spec are written here from the example's
//! description (roles, messages, who decides what). Each buggy variant is
//! found in a complete exploration, for the balancer's choice that
//! triggers it, its schedule replays to the same failure, and the fixed
//! program is correct in every schedule and for every choice.

use prust::explore::{choose, Exploration, Explorer, Outcome, Roles};
use prust::session::{BlockingEndpoint, Error};
use prust::spec::{alt, close, msg, par, seq, Spec};
use prust::Strict;

const CLIENTS: [&str; 2] = ["client1", "client2"];
const WORKERS: [&str; 2] = ["worker1", "worker2"];

/// A client's request, with whom to answer (the worker does not know the
/// client otherwise).
#[derive(Clone, Debug)]
struct Request {
    client: &'static str,
    x: u32,
}

#[derive(Clone, Debug)]
struct Response(u32);

/// The protocol: each client, any number of times, sends a `Request` to
/// the balancer, which forwards it to one worker, which sends the
/// `Response` to that client; then the client closes its channel to the
/// balancer. Once every client is done, the balancer closes its channels
/// to the workers.
fn spec() -> Spec {
    let round = |c: &str, w: &str| {
        seq([
            msg("Request", c, "balancer"),
            msg("Request", "balancer", w),
            msg("Response", w, c),
        ])
    };
    let client = |c: &str| {
        seq([
            alt(WORKERS.map(|w| round(c, w))).star(),
            close(c, "balancer"),
        ])
    };
    Spec::new(
        "load-balancer-fm24",
        seq([
            par(CLIENTS.map(client)),
            par(WORKERS.map(|w| close("balancer", w))),
        ]),
    )
    .roles(["client1", "client2", "balancer", "worker1", "worker2"])
    .types(["Request", "Response"])
}

/// The program and its bugs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Variant {
    /// Correct.
    Fixed,
    /// BUG: a client waits for worker1's response, whichever worker the
    /// balancer chose.
    ClientWaitsForWorker1,
    /// BUG: a worker answers client1, whichever client asked.
    WorkerAnswersClient1,
    /// BUG: the balancer returns without closing its channels to the
    /// workers, so their receive loops never end.
    BalancerDoesNotClose,
}

fn client(mut e: impl BlockingEndpoint, me: &'static str, x: u32, v: Variant) {
    e.send("balancer", Request { client: me, x }).unwrap();
    let answer = if v == Variant::ClientWaitsForWorker1 {
        e.recv_from("worker1")
    } else {
        e.recv().map(|(_, m)| m)
    };
    // An error here is the deadlock's (reported as such), not a panic.
    let Ok(m) = answer else { return };
    let Response(y) = m.downcast().unwrap();
    assert_eq!(y, x * x, "{me} asked for {x}² and got {y}");
    e.close("balancer").unwrap();
}

fn balancer(mut e: impl BlockingEndpoint, v: Variant) {
    loop {
        match e.recv() {
            Ok((_, m)) => {
                let request: Request = m.downcast().unwrap();
                let worker = WORKERS[choose(WORKERS.len())];
                if e.send(worker, request).is_err() {
                    return;
                }
            }
            // Every client has closed: no request can come any more.
            Err(Error::Closed { .. }) => break,
            Err(_) => return,
        }
    }
    if v != Variant::BalancerDoesNotClose {
        for w in WORKERS {
            e.close(w).unwrap();
        }
    }
}

fn worker(mut e: impl BlockingEndpoint, v: Variant) {
    // Ends on the balancer's close (or on a deadlock's error).
    while let Ok(m) = e.recv_from("balancer") {
        let Request { client, x } = m.downcast().unwrap();
        let to = if v == Variant::WorkerAnswersClient1 {
            "client1"
        } else {
            client
        };
        if e.send(to, Response(x * x)).is_err() {
            return;
        }
    }
}

/// The program of `variant`: each client sends one request.
fn program(v: Variant) -> impl Fn(&mut Roles<'_, Strict>) + Sync {
    move |r| {
        for (i, c) in CLIENTS.into_iter().enumerate() {
            r.spawn(c, move |e| client(e, c, i as u32 + 2, v));
        }
        r.spawn("balancer", move |e| balancer(e, v));
        for w in WORKERS {
            r.spawn(w, move |e| worker(e, v));
        }
    }
}

fn object() -> Strict {
    Strict::from_spec(&spec()).unwrap()
}

/// Explores `v`; every failure replays to the same outcome.
fn explored(v: Variant) -> Exploration {
    let ex = Explorer::new().explore(object(), program(v));
    println!("--- {v:?}\n{ex}");
    assert!(ex.is_complete(), "{ex}");
    for f in ex.failures() {
        let again = Explorer::new()
            .replay(&f.schedule)
            .explore(object(), program(v));
        assert_eq!(again.executions(), 1);
        assert_eq!(
            again.failures().first().map(|g| g.outcome.to_string()),
            Some(f.outcome.to_string()),
            "replaying {}: {again}",
            f.schedule
        );
    }
    ex
}

#[test]
fn the_fixed_load_balancer_is_correct_in_every_schedule_and_for_every_choice() {
    let ex = explored(Variant::Fixed);
    assert!(ex.is_successful(), "{ex}");
    // Two requests, each to either worker, in either order: many schedules.
    assert!(ex.executions() >= 4, "{ex}");
}

#[test]
fn a_client_that_waits_for_the_wrong_worker_is_found_for_the_choice_of_worker2() {
    let ex = explored(Variant::ClientWaitsForWorker1);
    assert!(!ex.is_successful(), "{ex}");
    for f in ex.failures() {
        let Outcome::Deadlock { deadlock } = &f.outcome else {
            panic!("expected deadlocks only: {ex}");
        };
        // Only where the balancer gave a request to worker2.
        assert!(f.schedule.to_string().contains("balancer#1"), "{ex}");
        assert!(
            deadlock
                .blocked
                .iter()
                .any(|b| b.waits_for.to_string() == "receive from worker1"),
            "{ex}"
        );
    }
}

#[test]
fn a_worker_that_answers_the_wrong_client_is_found() {
    let ex = explored(Variant::WorkerAnswersClient1);
    assert!(!ex.is_successful(), "{ex}");
    // Where client1 is no longer waiting for that worker, the send can
    // never be accepted: a violation, reported as soon as the worker
    // tries it (violations are detected early), not a deadlock.
    let violation = ex
        .failures()
        .iter()
        .find_map(|f| match &f.outcome {
            Outcome::Violation { role, operation } => Some((role, operation.to_string())),
            _ => None,
        })
        .unwrap_or_else(|| panic!("{ex}"));
    assert!(violation.0.starts_with("worker"), "{ex}");
    assert_eq!(violation.1, "send <Response> to client1", "{ex}");
    for f in ex.failures() {
        if let Outcome::Deadlock { deadlock } = &f.outcome {
            assert!(
                deadlock
                    .blocked
                    .iter()
                    .all(|b| !b.waits_for.to_string().starts_with("send")),
                "a waiting send that can never be accepted is a violation: {ex}"
            );
        }
    }
    // Found where client2's request is served; whichever worker serves it.
    for pick in ["balancer#0", "balancer#1"] {
        assert!(
            ex.failures()
                .iter()
                .any(|f| f.schedule.to_string().contains(pick)),
            "{ex}"
        );
    }
}

#[test]
fn a_balancer_that_does_not_close_leaves_the_workers_waiting() {
    let ex = explored(Variant::BalancerDoesNotClose);
    assert!(!ex.is_successful(), "{ex}");
    for f in ex.failures() {
        let Outcome::Deadlock { deadlock } = &f.outcome else {
            panic!("expected deadlocks only: {ex}");
        };
        let mut waiting: Vec<&str> = deadlock.blocked.iter().map(|b| b.role.as_str()).collect();
        waiting.sort();
        assert_eq!(waiting, WORKERS, "{ex}");
        assert!(deadlock.finished.contains(&"balancer".to_string()), "{ex}");
    }
}
