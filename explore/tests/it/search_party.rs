//! Déjà Fu's "search party", ported to a session program under
//! `prust::explore`. Two searchers each look through their part
//! of the search space and stream every match to a collector; each tells
//! the party when it is done; the party then asks the collector for the
//! results. The collector waits on a `select` over the two result streams
//! and the party's request.
//!
//! BUG: nothing on the result streams says they are complete, so the
//! collector answers the request with whatever has reached it: a match
//! still on its way is lost, in some schedules only. A test that asserts
//! the results are the same in every schedule finds it. FIX: each
//! searcher closes its stream after its last match (the close is the
//! completion marker), and the collector, once asked, drains the streams
//! until both are closed before it answers.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use prust::explore::{Exploration, Explorer, Outcome, Roles};
use prust::session::{Alternative, BlockingEndpoint};
use prust::spec::{close, msg, par, seq, Spec};
use prust::Strict;

#[derive(Clone, Debug)]
struct Found(u32);
#[derive(Clone, Debug)]
struct Done;
#[derive(Clone, Debug)]
struct Report;
#[derive(Clone, Debug)]
struct Results(Vec<u32>);

/// What each searcher looks through; the matches are the even numbers.
const PARTS: [(&str, &[u32]); 2] = [("s1", &[1, 2, 3, 4]), ("s2", &[5, 6, 7])];
const ALL: [u32; 3] = [2, 4, 6];

/// Each searcher streams any number of `Found` to the collector and then
/// closes that stream; independently, it tells the party `Done`. After
/// both are done, the party asks for the `Results`.
fn spec() -> Spec {
    let stream = |s: &str| seq([msg("Found", s, "collector").star(), close(s, "collector")]);
    Spec::new(
        "search-party",
        par([
            stream("s1"),
            stream("s2"),
            seq([
                par([msg("Done", "s1", "party"), msg("Done", "s2", "party")]),
                msg("Report", "party", "collector"),
                msg("Results", "collector", "party"),
            ]),
        ]),
    )
    .roles(["party", "collector", "s1", "s2"])
    .types(["Found", "Done", "Report", "Results"])
}

fn searcher(mut e: impl BlockingEndpoint, part: &[u32]) {
    for &x in part {
        if x % 2 == 0 && e.send("collector", Found(x)).is_err() {
            return;
        }
    }
    if e.send("party", Done).is_ok() {
        let _ = e.close("collector");
    }
}

fn collector(mut e: impl BlockingEndpoint, fixed: bool) {
    // Senders by name (the endpoint resolves them), one stream by index.
    let s2 = e.peer("s2").unwrap();
    let streams = [
        Alternative::sender("s1").of_type("Found"),
        Alternative::sender(s2).of_type("Found"),
    ];
    let mut with_request = streams.to_vec();
    with_request.push(Alternative::sender("party").of_type("Report"));
    let mut found = Vec::new();
    // Collect until the party asks.
    loop {
        match e.select(&with_request) {
            Ok((2, _)) => break,
            Ok((_, m)) => found.push(m.downcast::<Found>().unwrap().0),
            Err(_) => return,
        }
    }
    if fixed {
        // The closes say the streams are complete: take what is still on
        // its way, then answer.
        found.extend(drain(&mut e, &streams));
        let _ = e.send("party", Results(found));
    } else if e.send("party", Results(found)).is_ok() {
        // BUG: answered with what had arrived so far; swallows the rest
        // (so that the protocol still ends).
        drain(&mut e, &streams);
    }
}

/// The matches still on their way, until both streams are closed.
fn drain(e: &mut impl BlockingEndpoint, streams: &[Alternative]) -> Vec<u32> {
    let mut rest = Vec::new();
    while let Ok((_, m)) = e.select(streams) {
        rest.push(m.downcast::<Found>().unwrap().0);
    }
    rest
}

/// Where the party hands its sorted results (test code, outside the roles'
/// communication: it never blocks).
type Record = Arc<dyn Fn(Vec<u32>) + Send + Sync>;

/// The program; the party hands its sorted results to `record`.
fn program(fixed: bool, record: Record) -> impl Fn(&mut Roles<'_, Strict>) + Sync {
    move |r| {
        let record = Arc::clone(&record);
        r.spawn("party", move |mut e| {
            for s in ["s1", "s2"] {
                if e.recv_from(s).is_err() {
                    return;
                }
            }
            if e.send("collector", Report).is_err() {
                return;
            }
            let Ok(m) = e.recv_from("collector") else {
                return;
            };
            let Results(mut got) = m.downcast().unwrap();
            got.sort();
            record(got);
        });
        r.spawn("collector", move |e| collector(e, fixed));
        for (s, part) in PARTS {
            r.spawn(s, move |e| searcher(e, part));
        }
    }
}

fn object() -> Strict {
    Strict::from_spec(&spec()).unwrap()
}

/// Explores the program, recording the results of every execution.
fn results_of(fixed: bool) -> (Exploration, BTreeSet<Vec<u32>>) {
    let seen = Arc::new(Mutex::new(BTreeSet::new()));
    let into = Arc::clone(&seen);
    let record: Record = Arc::new(move |got| {
        into.lock().unwrap().insert(got);
    });
    let ex = Explorer::new().explore(object(), program(fixed, record));
    let seen = seen.lock().unwrap().clone();
    (ex, seen)
}

#[test]
fn the_results_differ_between_schedules_without_a_completion_marker() {
    let (ex, seen) = results_of(false);
    assert!(ex.is_complete(), "{ex}");
    assert!(
        seen.len() > 1,
        "the same results in every schedule: {seen:?}"
    );
    assert!(seen.contains(ALL.as_slice()), "{seen:?}");
}

#[test]
fn with_the_close_as_completion_marker_the_results_are_the_same_in_every_schedule() {
    let (ex, seen) = results_of(true);
    assert!(ex.is_successful(), "{ex}");
    assert_eq!(seen, BTreeSet::from([ALL.to_vec()]), "{ex}");
    assert!(ex.executions() > 1, "{ex}");
}

/// The same check written as an assertion in the program: the exploration
/// finds the schedule that loses a result, prints it, and the printed
/// schedule replays to the same failure.
#[test]
fn an_assertion_that_every_result_is_found_fails_in_some_schedule() {
    let check: Record = Arc::new(|got| assert_eq!(got, ALL, "the search party lost results"));
    let ex = Explorer::new().explore(object(), program(false, Arc::clone(&check)));
    println!("{ex}");
    assert!(ex.is_complete() && !ex.is_successful(), "{ex}");
    let f = &ex.failures()[0];
    let Outcome::Panicked { role, message, .. } = &f.outcome else {
        panic!("expected a failed assertion: {ex}");
    };
    assert_eq!(role, "party");
    assert!(message.contains("the search party lost results"), "{ex}");
    // The collector took the party's request before some match.
    assert!(
        f.schedule.to_string().contains("collector<-party#2"),
        "{ex}"
    );
    let again = Explorer::new()
        .replay(&f.schedule.to_string().parse().unwrap())
        .explore(object(), program(false, Arc::clone(&check)));
    assert_eq!(again.failures()[0].outcome, f.outcome, "{again}");
    let fixed = Explorer::new().explore(object(), program(true, check));
    assert!(fixed.is_successful(), "{fixed}");
}
