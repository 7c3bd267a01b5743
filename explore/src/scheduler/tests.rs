use std::collections::VecDeque;

use engine::{Message, Refused};
use protocols::session::BlockingEndpoint;

use super::super::dfs::Dfs;
use super::super::replay::Replay;
use super::run as run_one;
use super::*;
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::panics::panic_message;
use crate::pool::Pool;
use crate::roles::Roles;

/// FIFO channels between every pair of the roles `a`, `b` and `c`;
/// `panic_on_send`: the object's own code panics (a bug in a
/// hand-written object).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Pipe {
    queues: Vec<VecDeque<Message>>,
    panic_on_send: bool,
}

impl Protocol for Pipe {
    fn roles(&self) -> Vec<String> {
        vec!["a".into(), "b".into(), "c".into()]
    }
    fn type_names(&self) -> Vec<String> {
        vec!["M".into()]
    }
    fn try_send(&mut self, role: RoleId, to: RoleId, msg: Message) -> Result<(), Refused<Message>> {
        assert!(!self.panic_on_send, "the object's own bug");
        if role == to {
            return Err(Refused(msg));
        }
        self.queues[role * 3 + to].push_back(msg);
        Ok(())
    }
    fn try_recv(
        &mut self,
        role: RoleId,
        from: Option<RoleId>,
    ) -> Result<(RoleId, Message), Refused> {
        let f = match from {
            Some(f) => f,
            None => (0..3)
                .find(|&f| !self.queues[f * 3 + role].is_empty())
                .ok_or(Refused(()))?,
        };
        let m = self.queues[f * 3 + role].pop_front().ok_or(Refused(()))?;
        Ok((f, m))
    }
    fn is_terminated(&self) -> bool {
        self.queues.iter().all(VecDeque::is_empty)
    }
}

fn pipe(panic_on_send: bool) -> Pipe {
    Pipe {
        queues: vec![VecDeque::new(); 9],
        panic_on_send,
    }
}

fn names() -> Arc<[String]> {
    vec!["a".to_string(), "b".to_string(), "c".to_string()].into()
}

/// `a` sends 5 messages, `b` receives them.
fn five(r: &mut Roles<'_, Pipe>) {
    r.spawn("a", |mut ep| {
        for i in 0..5 {
            ep.send("b", Message::named("M", i)).unwrap();
        }
    });
    r.spawn("b", |mut ep| {
        for _ in 0..5 {
            ep.recv_from("a").unwrap();
        }
    });
}

fn limits() -> RunLimits {
    RunLimits {
        max_steps: 100,
        role_timeout: Duration::from_secs(60),
        deadline: None,
    }
}

#[test]
fn a_role_that_goes_on_hands_over_nothing() {
    let names = names();
    let run = {
        let pool = Pool::new();
        // The empty schedule takes the first choice at every point:
        // the role that ran last, while it can go on.
        let chooser = Replay {
            schedule: super::super::Schedule::default(),
            names,
        };
        run(&pool, &pipe(false), &five, limits(), chooser, None).0
    };
    assert!(matches!(run.end, End::Success), "{:?}", run.end);
    assert_eq!(run.trace.len(), 10);
    // Start a; a at its first send starts b; b waits to receive and
    // hands back to a, which sends all five; when a returns, b runs
    // and receives all five. With a scheduler thread of its own,
    // every one of the 10 steps cost two wake-ups.
    assert_eq!(run.handovers, 4);
}

#[test]
fn a_panic_in_the_objects_code_reaches_the_caller_and_hangs_nothing() {
    let names = names();
    let caught = catch_unwind(AssertUnwindSafe(|| {
        let pool = Pool::new();
        let chooser = Replay {
            schedule: super::super::Schedule::default(),
            names,
        };
        run(&pool, &pipe(true), &five, limits(), chooser, None).0
    }));
    let payload = caught.expect_err("the object's panic is the caller's");
    assert_eq!(panic_message(&*payload), "the object's own bug");
}

/// `a` and `b` each send 2 messages to `c`, which receives from anyone.
fn fan_in(r: &mut Roles<'_, Pipe>) {
    for s in ["a", "b"] {
        r.spawn(s, |mut ep| {
            for i in 0..2 {
                ep.send("c", Message::named("M", i)).unwrap();
            }
        });
    }
    r.spawn("c", |mut ep| {
        for _ in 0..4 {
            ep.recv().unwrap();
        }
    });
}

/// The explorer's depth-first search with DPOR.
fn dpor() -> Dfs {
    Dfs {
        stack: Vec::new(),
        depth: 0,
        bound: None,
        sleep_sets: true,
        dpor: true,
        pruned: 0,
        names: names(),
        hb: Default::default(),
    }
}

#[test]
fn dpor_takes_the_replayed_prefix_from_the_previous_record() {
    let (executions, points, recorded) = {
        let pool = Pool::new();
        let mut dfs = dpor();
        let (mut executions, mut points, mut recorded) = (0, 0, 0);
        loop {
            dfs.depth = 0;
            let run;
            (run, dfs, _) = run_one(&pool, &pipe(false), &fan_in, limits(), dfs, None);
            // Success, or cut short by the sleep sets.
            assert!(
                matches!(run.end, End::Success | End::Redundant),
                "{:?}",
                run.end
            );
            executions += 1;
            points += run.trace.len() + 1;
            recorded += run.recorded;
            if !dfs.backtrack() {
                break;
            }
        }
        (executions, points, recorded)
    };
    // The same search as the explorer's: fan-in k=2 runs 32 executions
    // with source-set DPOR on this object, which does not answer
    // `is_channel_empty`: every pair on one channel is dependent, and
    // every sender a receive from anyone is refused counts as one whose
    // message may wait (an event of its own, `blocked_alternatives`).
    assert_eq!(executions, 32);
    // Every execution after the first replays a prefix: at least its
    // first point comes from the record, never every point.
    assert!(recorded >= executions - 1, "{recorded} of {points}");
    assert!(recorded < points, "{recorded} of {points}");
}

/// The OS thread each role of [`five`] ran its body on, in order.
fn threads_of_roles(os_threads: bool) -> Vec<std::thread::ThreadId> {
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let program = |r: &mut Roles<'_, Pipe>| {
        let (in_a, in_b) = (Arc::clone(&seen), Arc::clone(&seen));
        r.spawn("a", move |mut ep| {
            in_a.lock().unwrap().push(std::thread::current().id());
            ep.send("b", Message::named("M", 0)).unwrap();
        });
        r.spawn("b", move |mut ep| {
            in_b.lock().unwrap().push(std::thread::current().id());
            ep.recv_from("a").unwrap();
        });
    };
    let mut pool = Pool::new();
    pool.os_threads = os_threads;
    let chooser = Replay {
        schedule: super::super::Schedule::default(),
        names: names(),
    };
    let run = run(&pool, &pipe(false), &program, limits(), chooser, None).0;
    assert!(matches!(run.end, End::Success), "{:?}", run.end);
    let ids = seen.lock().unwrap().clone();
    ids
}

#[test]
fn thread_roles_run_as_coroutines_on_one_thread() {
    // Switching roles is then a coroutine switch, not a hand-over
    // between OS threads; neither is the explorer's thread.
    let ids = threads_of_roles(false);
    assert_eq!(ids.len(), 2);
    assert_eq!(ids[0], ids[1]);
    assert_ne!(ids[0], std::thread::current().id());
    // The mode kept for comparison gives each role a thread of its own.
    let ids = threads_of_roles(true);
    assert_ne!(ids[0], ids[1]);
}

/// Each execution's schedule and end, one at a time, the explorer's
/// thread watching each (the way before batches).
fn one_at_a_time() -> Vec<(Vec<Alt>, String)> {
    let pool = Pool::new();
    let mut dfs = dpor();
    let mut seen = Vec::new();
    loop {
        dfs.depth = 0;
        let run;
        (run, dfs, _) = run_one(&pool, &pipe(false), &fan_in, limits(), dfs, None);
        dfs.ran(&run);
        seen.push((run.schedule, format!("{:?}", run.end)));
        if !dfs.backtrack() {
            return seen;
        }
    }
}

#[test]
fn a_batch_runs_the_executions_that_one_at_a_time_runs() {
    let pool = Pool::new();
    let batch = run_batch(
        &pool,
        &pipe(false),
        &fan_in,
        limits(),
        None,
        dpor(),
        1_000,
        false,
        |_, ()| (),
    );
    // Every schedule, then nothing left: the search ended the batch.
    assert!(!batch.more);
    let seen: Vec<_> = batch
        .runs
        .into_iter()
        .map(|(run, ())| (run.schedule, format!("{:?}", run.end)))
        .collect();
    assert_eq!(seen.len(), 32);
    assert_eq!(seen, one_at_a_time());
}

#[test]
fn a_panic_in_the_objects_code_in_a_batch_reaches_the_caller() {
    let caught = catch_unwind(AssertUnwindSafe(|| {
        let pool = Pool::new();
        let batch = run_batch(
            &pool,
            &pipe(true),
            &five,
            limits(),
            None,
            dpor(),
            8,
            false,
            |_, ()| (),
        );
        batch.runs.len()
    }));
    let payload = caught.expect_err("the object's panic is the caller's");
    assert_eq!(panic_message(&*payload), "the object's own bug");
}
