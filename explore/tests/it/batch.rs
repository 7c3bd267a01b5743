//! Executions run back to back on the executor's thread, in batches that
//! grow 1, 2, 4, … (`Explorer::batches`, the default), the program called
//! right before each: what happens in the middle of a batch is reported as
//! it was one execution at a time — a role stuck outside the session (and
//! its thread left running), a panic, and a stop at the first failure,
//! with exactly the executions that one at a time ran.
//!
//! The program lets white pick one of six values with `choose`: the
//! depth-first search runs them in order, so the fifth execution (value
//! 4) is the second of the third batch (executions 4 to 7).

use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

use prust::explore::{choose, Exploration, Explorer, Observe, Outcome, Roles};
use prust::session::BlockingEndpoint;
use prust::spec::{msg, Spec};
use prust::Strict;

/// One move, white to black: the protocol ends after it.
fn one_move() -> Strict {
    Strict::from_spec(&Spec::new("one-move", msg("Move", "white", "black"))).unwrap()
}

#[derive(Clone, Debug)]
struct Move(u32);

/// What white does with the value 4.
#[derive(Clone, Copy)]
enum AtFour {
    Panic,
    /// Spins until the flag is set: busy outside the session.
    Spin,
}

/// White picks a value of `choose(6)` and sends it; black receives it.
/// `runs` counts white's bodies that ran.
fn program(
    at_four: AtFour,
    runs: Arc<AtomicUsize>,
    release: Arc<AtomicBool>,
) -> impl Fn(&mut Roles<'_, Strict>) + Sync + Send + 'static {
    move |r| {
        let (runs, release) = (Arc::clone(&runs), Arc::clone(&release));
        r.spawn("white", move |mut ep| {
            runs.fetch_add(1, Ordering::SeqCst);
            let v = choose(6);
            if v == 4 {
                match at_four {
                    AtFour::Panic => panic!("white picked 4"),
                    AtFour::Spin => {
                        while !release.load(Ordering::Relaxed) {
                            std::hint::spin_loop();
                        }
                    }
                }
            }
            let _ = ep.send("black", Move(v as u32));
        });
        r.spawn("black", |mut ep| {
            if let Ok(m) = ep.recv_from("white") {
                let Move(v) = m.downcast().unwrap();
                assert!(v < 6);
            }
        });
    }
}

/// Explores on a thread of its own, so that a hang fails the test.
fn explore_guarded(explorer: Explorer, at_four: AtFour) -> (Exploration, usize) {
    let runs = Arc::new(AtomicUsize::new(0));
    let release = Arc::new(AtomicBool::new(false));
    let (tx, rx) = mpsc::channel();
    let p = program(at_four, Arc::clone(&runs), Arc::clone(&release));
    std::thread::spawn(move || {
        let _ = tx.send(explorer.explore(one_move(), p));
    });
    let ex = rx
        .recv_timeout(Duration::from_secs(20))
        .expect("the exploration returns");
    // Not to burn a core for the rest of the tests.
    release.store(true, Ordering::Relaxed);
    (ex, runs.load(Ordering::SeqCst))
}

#[test]
fn a_role_stuck_in_the_middle_of_a_batch_is_reported_with_its_schedule() {
    let explorer = Explorer::new()
        .batches(true)
        .role_timeout(Duration::from_millis(300))
        .timeout(Duration::from_secs(30));
    let (ex, runs) = explore_guarded(explorer, AtFour::Spin);
    assert_eq!(ex.failures().len(), 1, "{ex}");
    let failure = &ex.failures()[0];
    let Outcome::Stuck { role, .. } = &failure.outcome else {
        panic!("expected a stuck role: {ex}");
    };
    assert_eq!(role, "white", "{ex}");
    assert!(failure.schedule.to_string().contains("white#4"), "{ex}");
    assert_eq!(ex.threads_left_running(), ["white"], "{ex}");
    // The exploration stops there: the sixth value is never run.
    assert_eq!((ex.executions(), runs), (5, 5), "{ex}");
    assert!(!ex.is_complete(), "{ex}");
}

#[test]
fn a_panic_in_the_middle_of_a_batch_is_its_own_execution() {
    let (ex, runs) = explore_guarded(Explorer::new().batches(true).simplify(false), AtFour::Panic);
    assert!(ex.is_complete(), "{ex}");
    assert_eq!(ex.failures().len(), 1, "{ex}");
    let failure = &ex.failures()[0];
    assert!(
        matches!(&failure.outcome, Outcome::Panicked { role, message, .. }
            if role == "white" && message == "white picked 4"),
        "{ex}"
    );
    assert!(failure.schedule.to_string().contains("white#4"), "{ex}");
    assert_eq!((ex.executions(), runs), (6, 6), "{ex}");
}

#[test]
fn a_batch_stops_at_the_first_failure_when_the_exploration_does() {
    // Without a shortest-schedule search, which would run white again.
    let explorer = Explorer::new()
        .batches(true)
        .stop_on_failure(true)
        .simplify(false);
    let (ex, runs) = explore_guarded(explorer, AtFour::Panic);
    assert!(!ex.is_complete(), "{ex}");
    assert_eq!(ex.failures().len(), 1, "{ex}");
    // White ran no body past the failing execution's.
    assert_eq!((ex.executions(), runs), (5, 5), "{ex}");
}

#[test]
fn a_sampled_batch_stops_at_the_first_failure_too() {
    let explorer = Explorer::new()
        .batches(true)
        .random(3, 1_000)
        .stop_on_failure(true)
        .simplify(false);
    let (ex, runs) = explore_guarded(explorer, AtFour::Panic);
    assert_eq!(ex.failures().len(), 1, "{ex}");
    let executions = ex.executions();
    assert!(executions < 1_000, "{ex}");
    assert_eq!(runs, executions, "{ex}");
}

/// White picks one of `values` and sends it; black gives back the token
/// the program takes, and the program's call past `max_calls` panics.
fn explore_counting_calls(
    explorer: Explorer,
    values: usize,
    max_calls: usize,
) -> (Exploration, usize) {
    let calls = AtomicUsize::new(0);
    let token = Arc::new(AtomicBool::new(true));
    let ex = explorer.explore(one_move(), |r| {
        let call = calls.fetch_add(1, Ordering::SeqCst) + 1;
        assert!(call <= max_calls, "the program's call {call}");
        // Taken here, given back at the end of the execution: a call made
        // before the execution ahead of it ended finds it gone.
        let fresh = token.swap(false, Ordering::SeqCst);
        let token = Arc::clone(&token);
        r.spawn("white", move |mut ep| {
            assert!(
                fresh,
                "the program was called before the last execution ended"
            );
            let v = choose(values);
            let _ = ep.send("black", Move(v as u32));
        });
        r.spawn("black", move |mut ep| {
            let _ = ep.recv_from("white");
            token.store(true, Ordering::SeqCst);
        });
    });
    (ex, calls.load(Ordering::SeqCst))
}

#[test]
fn the_program_is_called_once_an_execution_after_the_one_before_ended() {
    // Batches (the default) or not, exhaustive or sampled: a program may
    // share state with its earlier executions.
    for explorer in [
        Explorer::new().batches(true),
        Explorer::new().batches(false),
        Explorer::new().batches(true).random(7, 40),
    ] {
        let (ex, calls) = explore_counting_calls(explorer, 6, 1_000);
        assert!(ex.failures().is_empty(), "{ex}");
        assert!(ex.executions() >= 6, "{ex}");
        assert_eq!(calls, ex.executions(), "{ex}");
    }
}

#[test]
fn a_panic_of_the_program_in_a_batch_is_the_callers() {
    // The third call panics, in the second batch: the caller gets it,
    // and the program was not called again.
    let calls = AtomicUsize::new(0);
    let caught = std::panic::catch_unwind(AssertUnwindSafe(|| {
        Explorer::new().explore(one_move(), |r| {
            let call = calls.fetch_add(1, Ordering::SeqCst) + 1;
            assert!(call < 3, "the program's call {call}");
            r.spawn("white", |mut ep| {
                let _ = ep.send("black", Move(choose(6) as u32));
            });
            r.spawn("black", |mut ep| {
                let _ = ep.recv_from("white");
            });
        })
    }));
    let panicked = caught.expect_err("the program's panic reaches the caller");
    let message = panicked
        .downcast_ref::<String>()
        .cloned()
        .unwrap_or_default();
    assert_eq!(message, "the program's call 3");
    assert_eq!(calls.load(Ordering::SeqCst), 3);
}

#[test]
fn a_program_slower_than_the_role_timeout_is_no_stuck_role() {
    // The program's time between two executions of a batch is no role's.
    let explorer = Explorer::new().role_timeout(Duration::from_millis(100));
    let ex = explorer.explore(one_move(), |r| {
        std::thread::sleep(Duration::from_millis(150));
        r.spawn("white", |mut ep| {
            let _ = ep.send("black", Move(choose(3) as u32));
        });
        r.spawn("black", |mut ep| {
            let _ = ep.recv_from("white");
        });
    });
    assert!(ex.is_successful(), "{ex}");
    assert_eq!(ex.executions(), 3, "{ex}");
}

/// What black logged in one execution, read as its result.
struct Logged(Arc<Mutex<Vec<u32>>>);

impl Observe for Logged {
    type Value = Vec<u32>;
    fn observe(self) -> Option<Vec<u32>> {
        Some(self.0.lock().unwrap().clone())
    }
}

#[test]
fn each_result_is_read_before_the_program_is_called_again() {
    // The program clears the log that its result reads: read after the
    // next call, a result would be another execution's.
    let log = Arc::new(Mutex::new(Vec::new()));
    let ex = Explorer::new().explore(one_move(), |r| {
        log.lock().unwrap().clear();
        let black_log = Arc::clone(&log);
        r.spawn("white", |mut ep| {
            let _ = ep.send("black", Move(choose(4) as u32));
        });
        r.spawn("black", move |mut ep| {
            if let Ok(m) = ep.recv_from("white") {
                let Move(v) = m.downcast().unwrap();
                black_log.lock().unwrap().push(v);
            }
        });
        Logged(Arc::clone(&log))
    });
    let results: Vec<Vec<u32>> = ex.results().iter().map(|r| r.value.clone()).collect();
    assert_eq!(results, [[0], [1], [2], [3]], "{ex}");
}
