//! `prust::explore` with a role blocked or busy outside the session (a
//! `Condvar`, a busy loop, a sleep): the exploration returns after the
//! role time limit with the role reported stuck, leaves its thread
//! running, and that thread cannot reach any later execution.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use prust::explore::{Exploration, Explorer, Outcome, Roles};
use prust::protocols;
use prust::session::BlockingEndpoint;
use prust::Strict;

#[derive(Clone, Debug)]
struct Move(u32);

/// A flag that a thread can wait for (outside any session).
#[derive(Default)]
struct Flag {
    set: Mutex<bool>,
    cv: Condvar,
}

impl Flag {
    fn set(&self) {
        *self.set.lock().unwrap() = true;
        self.cv.notify_all();
    }

    fn wait(&self) {
        let mut set = self.set.lock().unwrap();
        while !*set {
            set = self.cv.wait(set).unwrap();
        }
    }
}

/// The role time limit of these tests: far above what a chess role runs
/// between two operations, far below the hang guard.
const ROLE_TIMEOUT: Duration = Duration::from_millis(500);

/// Explores `program` on chess with the options, on a thread of
/// its own: an exploration that hangs fails the test (after a guard of
/// more than 20 times the role time limit) instead of hanging it.
fn explore_guarded(
    program: impl Fn(&mut Roles<'_, Strict>) + Sync + Send + 'static,
) -> Exploration {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let ex = Explorer::new()
            .role_timeout(ROLE_TIMEOUT)
            .timeout(Duration::from_secs(30))
            .explore(protocols::chess::strict(), program);
        let _ = tx.send(ex);
    });
    rx.recv_timeout(Duration::from_secs(12))
        .expect("the exploration returns instead of waiting for the stuck role")
}

/// White blocks (in `block`) before its first move; black waits for it.
fn white_blocks(
    block: impl Fn() + Send + Sync + Clone + 'static,
) -> impl Fn(&mut Roles<'_, Strict>) + Sync + Send {
    move |r| {
        let block = block.clone();
        r.spawn("white", move |mut ep| {
            block();
            let _ = ep.send("black", Move(0));
        });
        r.spawn("black", |mut ep| {
            let _ = ep.recv_from("white");
        });
    }
}

/// The exploration reports white stuck outside the session, incomplete,
/// with its thread left running.
fn assert_white_stuck(ex: &Exploration) {
    assert!(!ex.is_complete() && !ex.is_successful(), "{ex}");
    let Outcome::Stuck { role, waited } = &ex.failures()[0].outcome else {
        panic!("expected a stuck role: {ex}");
    };
    assert_eq!((role.as_str(), *waited), ("white", ROLE_TIMEOUT), "{ex}");
    assert_eq!(
        ex.failures()[0].outcome.kind(),
        "role stuck outside the session"
    );
    assert_eq!(ex.threads_left_running(), ["white"], "{ex}");
    assert!(
        ex.to_string().contains("left running: the thread of white"),
        "{ex}"
    );
    // One execution: the exploration stops at a thread it cannot stop.
    assert_eq!(ex.executions(), 1, "{ex}");
}

#[test]
fn a_role_waiting_on_a_condvar_is_stuck_and_left_running() {
    let flag = Arc::new(Flag::default());
    let f = Arc::clone(&flag);
    let ex = explore_guarded(white_blocks(move || f.wait()));
    assert_white_stuck(&ex);
    flag.set();
}

#[test]
fn a_role_in_a_busy_loop_is_stuck_and_left_running() {
    let stop = Arc::new(AtomicBool::new(false));
    let s = Arc::clone(&stop);
    let ex = explore_guarded(white_blocks(move || {
        while !s.load(Ordering::Relaxed) {
            std::hint::spin_loop();
        }
    }));
    assert_white_stuck(&ex);
    // Not to burn a core for the rest of the tests.
    stop.store(true, Ordering::Relaxed);
}

#[test]
fn a_sleeping_role_is_stuck_and_left_running_until_the_process_exits() {
    // Never woken: that this test binary still exits is the check that a
    // thread left running does not keep the process alive.
    let ex = explore_guarded(white_blocks(|| loop {
        std::thread::sleep(Duration::from_secs(3600));
    }));
    assert_white_stuck(&ex);
}

#[test]
fn a_role_that_blocks_after_its_execution_stopped_is_stuck_too() {
    let flag = Arc::new(Flag::default());
    let f = Arc::clone(&flag);
    let ex = explore_guarded(move |r| {
        let f = Arc::clone(&f);
        r.spawn("white", move |mut ep| {
            if ep.send("black", Move(0)).is_ok() {
                let _ = ep.recv_from("black");
            }
            // The execution was stopped by black's panic: white then
            // waits for something no role will ever do.
            f.wait();
        });
        r.spawn("black", |mut ep| {
            let _ = ep.recv_from("white");
            panic!("black gives up");
        });
    });
    assert!(!ex.is_complete() && !ex.is_successful(), "{ex}");
    let kinds: Vec<&str> = ex.failures().iter().map(|f| f.outcome.kind()).collect();
    assert_eq!(kinds, ["panic", "role stuck outside the session"], "{ex}");
    assert!(
        matches!(&ex.failures()[1].outcome, Outcome::Stuck { role, .. } if role == "white"),
        "{ex}"
    );
    assert_eq!(ex.threads_left_running(), ["white"], "{ex}");
    assert!(ex.incomplete_reason().unwrap().contains("white"), "{ex}");
    flag.set();
}

/// What the thread left behind got from its endpoint once released.
type Results = Arc<Mutex<Vec<String>>>;

#[test]
fn a_thread_left_running_cannot_reach_a_later_exploration() {
    // First exploration: white waits on `release`, and is left running.
    let release = Arc::new(Flag::default());
    let done = Arc::new(Flag::default());
    let results: Results = Arc::default();
    let (rel, dn, res) = (
        Arc::clone(&release),
        Arc::clone(&done),
        Arc::clone(&results),
    );
    let first = explore_guarded(move |r| {
        let (rel, dn, res) = (Arc::clone(&rel), Arc::clone(&dn), Arc::clone(&res));
        r.spawn("white", move |mut ep| {
            rel.wait();
            // Released during the second exploration: every operation of
            // this stopped execution fails, and touches nothing else.
            let mut got = res.lock().unwrap();
            got.push(format!(
                "{:?}",
                ep.send("black", Move(7)).map_err(|e| e.to_string())
            ));
            got.push(format!(
                "{:?}",
                ep.recv().map(|_| ()).map_err(|e| e.to_string())
            ));
            got.push(format!("choose: {}", prust::explore::choose(3)));
            drop(got);
            dn.set();
        });
        r.spawn("black", |mut ep| {
            let _ = ep.recv_from("white");
        });
    });
    assert_white_stuck(&first);
    assert!(results.lock().unwrap().is_empty());

    // Second exploration of the same roles: its first white releases the
    // old thread and waits until it has called its endpoint (well within
    // the role time limit), then plays a round.
    let (rel, dn) = (Arc::clone(&release), Arc::clone(&done));
    let second = Explorer::new()
        .role_timeout(Duration::from_secs(10))
        .explore(protocols::chess::strict(), move |r| {
            let (rel, dn) = (Arc::clone(&rel), Arc::clone(&dn));
            r.spawn("white", move |mut ep| {
                rel.set();
                dn.wait();
                ep.send("black", Move(1)).unwrap();
                let Move(m) = ep.recv_from("black").unwrap().downcast().unwrap();
                assert_eq!(
                    m, 1,
                    "black answers with white's move, not the old thread's"
                );
            });
            r.spawn("black", |mut ep| {
                let Move(m) = ep.recv_from("white").unwrap().downcast().unwrap();
                assert_eq!(m, 1, "only this execution's white moves");
                ep.send("white", Move(m)).unwrap();
            });
        });
    assert!(second.is_successful(), "{second}");
    assert!(second.threads_left_running().is_empty(), "{second}");
    let got = results.lock().unwrap().clone();
    assert_eq!(got.len(), 3, "{got:?}");
    assert!(
        got[0].starts_with("Err(") && got[1].starts_with("Err("),
        "{got:?}"
    );
    assert_eq!(got[2], "choose: 0");
}

/// Two independent sends, r0 → r1 and r2 → r3: with sleep sets, the
/// second order of the two sends ends sleep-set-blocked (redundant), and
/// the roles still waiting there get the stop's error. Each then waits
/// outside the session (on `released`), as a role does that blocks after
/// an error: the redundant execution leaves its thread behind. The
/// exploration must report that role and stop, as after any execution
/// that leaves a thread behind; it used to take the next schedule from
/// a search that had not moved on, and ran the same redundant execution
/// again until its executions ran out.
#[test]
fn a_role_blocked_after_a_redundant_execution_is_stuck_and_the_search_stops() {
    use prust::explore::Reduction;
    use testkit::mailbox::Mailbox;
    let released = Arc::new(Flag::default());
    let (tx, rx) = mpsc::channel();
    let flag = Arc::clone(&released);
    std::thread::spawn(move || {
        let program = move |r: &mut Roles<'_, Mailbox>| {
            for (from, to) in [("r0", "r1"), ("r2", "r3")] {
                let (sent, received) = (Arc::clone(&flag), Arc::clone(&flag));
                r.spawn(from, move |mut ep| {
                    if ep.send(to, Move(0)).is_err() {
                        sent.wait();
                    }
                });
                r.spawn(to, move |mut ep| {
                    if ep.recv_from(from).is_err() {
                        received.wait();
                    }
                });
            }
        };
        let ex = Explorer::new()
            .reduction(Reduction::SleepSets)
            .role_timeout(ROLE_TIMEOUT)
            .timeout(Duration::from_secs(30))
            .explore(Mailbox::new(4), program);
        let _ = tx.send(ex);
    });
    let ex = rx
        .recv_timeout(Duration::from_secs(12))
        .expect("the exploration returns instead of running one redundant execution again");
    released.set();
    assert!(!ex.is_complete() && !ex.is_successful(), "{ex}");
    assert!(!ex.threads_left_running().is_empty(), "{ex}");
    assert!(
        matches!(ex.failures()[0].outcome, Outcome::Stuck { .. }),
        "{ex}"
    );
}

/// A role stuck in its first operation's wait is reported after the role
/// time limit and within 1.25 times it (the explorer's thread looks four
/// times a limit); here with room for a loaded machine, but not for the
/// twice the limit that a watcher sleeping a whole limit before its first
/// look took. In batches, in batches of one and with role threads: each
/// has a watcher of its own.
#[test]
fn a_stuck_role_is_reported_within_a_quarter_of_the_limit_after_it() {
    let limit = Duration::from_millis(800);
    for (name, batches, threads) in [
        ("batches", true, false),
        ("batches of one", false, false),
        ("role threads", true, true),
    ] {
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let started = Instant::now();
            let ex = Explorer::new()
                .role_timeout(limit)
                .batches(batches)
                .role_threads(threads)
                .timeout(Duration::from_secs(30))
                .explore(
                    protocols::chess::strict(),
                    white_blocks(|| loop {
                        std::thread::sleep(Duration::from_secs(3600));
                    }),
                );
            let _ = tx.send((ex, started.elapsed()));
        });
        let (ex, took) = rx
            .recv_timeout(Duration::from_secs(20))
            .expect("the exploration returns");
        assert!(
            matches!(ex.failures()[0].outcome, Outcome::Stuck { .. }),
            "{name}: {ex}"
        );
        assert!(took >= limit, "{name}: reported after {took:?}");
        assert!(took < limit * 7 / 4, "{name}: reported after {took:?}");
    }
}

/// Roles that run their own code for most of the limit between their
/// operations, and again after them, are never reported stuck: the limit
/// counts from each operation.
#[test]
fn a_role_under_the_limit_between_operations_is_not_stuck() {
    let limit = Duration::from_millis(500);
    let nap = || std::thread::sleep(Duration::from_millis(250));
    for (batches, threads) in [(true, false), (true, true)] {
        let ex = Explorer::new()
            .role_timeout(limit)
            .batches(batches)
            .role_threads(threads)
            .max_executions(2)
            .explore(protocols::chess::strict(), move |r| {
                r.spawn("white", move |mut ep| {
                    for i in 0..2 {
                        nap();
                        if ep.send("black", Move(i)).is_err() {
                            return;
                        }
                        nap();
                        if ep.recv_from("black").is_err() {
                            return;
                        }
                    }
                });
                r.spawn("black", move |mut ep| {
                    for i in 0..2 {
                        if ep.recv_from("white").is_err() {
                            return;
                        }
                        nap();
                        if ep.send("white", Move(i)).is_err() {
                            return;
                        }
                    }
                });
            });
        assert!(
            !ex.failures()
                .iter()
                .any(|f| matches!(f.outcome, Outcome::Stuck { .. })),
            "threads {threads}: {ex}"
        );
    }
}
