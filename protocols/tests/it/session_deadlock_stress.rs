//! Deadlock-detection stress test: thousands of randomised sessions with real
//! threads and random delays, half of them deadlocking. Every run must end
//! (a watchdog fails the test instead of hanging), every deadlock must be
//! reported to exactly the roles that are stuck, naming what each waits for,
//! and a live session must never see a false alarm.
//!
//! The systems are Kahn process networks (roles with fixed scripts receiving
//! from named senders), so where a run ends does not depend on the schedule
//! and a sequential reference predicts it exactly.
//!
//! The last test does the same on the bundled token-ring objects (strict
//! and liberal) with workers that stop after a random number of passes.

use crate::session_support;

use std::sync::Arc;
use std::time::Duration;

use engine::{Message, Protocol, RoleId};
use protocols::session::{Deadlock, Error, WaitsFor};
use session_support::{
    jitter, live_scripts, watchdog, AnyEndpoint, MakeEndpoints, Rng, Scripted, Step, SESSIONS,
};

/// Number of deadlocking runs, and of live runs, required.
const RUNS_OF_EACH: usize = 1000;

/// Plays one role's script on its endpoint; checks per-channel FIFO order
/// through the payloads (sender, receiver, sequence number).
fn play(
    ep: &mut dyn AnyEndpoint,
    me: RoleId,
    script: &[Step],
    n: usize,
    seed: u64,
) -> Result<(), Error> {
    let mut rng = Rng::new(seed);
    let mut sent = vec![0usize; n];
    let mut received = vec![0usize; n];
    for &step in script {
        jitter(&mut rng);
        let (from, msg) = match step {
            Step::Send(to) => {
                sent[to] += 1;
                ep.send_msg(to, Message::new((me, to, sent[to] - 1)))?;
                continue;
            }
            Step::Recv(from) => (from, ep.recv_one(from)?),
            Step::RecvAny => ep.recv_any()?,
        };
        let got: (RoleId, RoleId, usize) = msg.downcast().expect("payload type");
        assert_eq!(
            got,
            (from, me, received[from]),
            "FIFO order on channel {from}->{me}"
        );
        received[from] += 1;
    }
    Ok(())
}

/// Runs `object` with one thread per role; returns each role's result. A
/// role with `linger` set waits for one more message, from anyone, after
/// its script (a server that outlives the protocol).
fn run(
    make: MakeEndpoints,
    object: Scripted,
    seed: u64,
    linger: &[bool],
) -> Vec<Result<(), Error>> {
    let scripts: Vec<Vec<Step>> = object.scripts().to_vec();
    let n = scripts.len();
    let endpoints = make(object);
    std::thread::scope(|s| {
        let handles: Vec<_> = endpoints
            .into_iter()
            .zip(&scripts)
            .enumerate()
            .map(|(me, (mut ep, script))| {
                s.spawn(move || {
                    play(
                        &mut *ep,
                        me,
                        script,
                        n,
                        seed ^ (me as u64 + 1).wrapping_mul(0x1234_5678),
                    )?;
                    match linger[me] {
                        true => ep.recv_any().map(drop),
                        false => Ok(()),
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("role thread panicked"))
            .collect()
    })
}

/// Checks the results of a threaded run against the reference end.
fn check_run(seed: u64, object: &Scripted, results: &[Result<(), Error>]) {
    let end = object.reference_end();
    let names = object.roles();
    let expected_blocked: Vec<(String, WaitsFor)> = end
        .iter()
        .enumerate()
        .filter_map(|(r, step)| {
            step.map(|step| {
                let waits_for = match step {
                    Step::Send(to) => WaitsFor::Send {
                        to: names[to].clone(),
                        type_name: "(usize, usize, usize)".into(),
                    },
                    Step::Recv(from) => WaitsFor::Recv {
                        from: Some(names[from].clone()),
                    },
                    Step::RecvAny => WaitsFor::Recv { from: None },
                };
                (names[r].clone(), waits_for)
            })
        })
        .collect();
    let mut report: Option<Arc<Deadlock>> = None;
    for (r, result) in results.iter().enumerate() {
        match (end[r], result) {
            (None, Ok(())) => {}
            (Some(_), Err(Error::Deadlock(d))) => {
                if let Some(first) = &report {
                    assert!(
                        Arc::ptr_eq(first, d),
                        "seed {seed}: one deadlock, one report"
                    );
                }
                report = Some(Arc::clone(d));
            }
            (None, Err(e)) => panic!(
                "seed {seed}: false alarm for {}: {e}\nscripts {:?}",
                names[r],
                object.scripts()
            ),
            (Some(step), other) => {
                panic!(
                    "seed {seed}: {} should block on {step:?}, got {other:?}\nscripts {:?}",
                    names[r],
                    object.scripts()
                )
            }
        }
    }
    if let Some(d) = report {
        let got: Vec<(String, WaitsFor)> = d
            .blocked
            .iter()
            .map(|b| (b.role.clone(), b.waits_for.clone()))
            .collect();
        assert_eq!(
            got, expected_blocked,
            "seed {seed}: who waits for what\n{d}"
        );
        let finished: Vec<String> = end
            .iter()
            .enumerate()
            .filter(|(_, e)| e.is_none())
            .map(|(r, _)| names[r].clone())
            .collect();
        assert_eq!(d.finished, finished, "seed {seed}: finished roles");
        assert!(!d.terminated, "seed {seed}: a deadlock is not a normal end");
    }
}

/// A random system: live, or a live one with one mutation that usually
/// makes it deadlock (a step dropped, two steps swapped, an extra receive).
fn random_system(rng: &mut Rng, mutate: bool) -> Scripted {
    let n = 2 + rng.below(4);
    let len = 1 + rng.below(12);
    let capacity = if rng.chance(50) { 1 } else { usize::MAX };
    let mut scripts = live_scripts(rng, n, len);
    if mutate {
        let r = rng.below(n);
        match rng.below(3) {
            0 if !scripts[r].is_empty() => {
                let i = rng.below(scripts[r].len());
                scripts[r].remove(i);
            }
            1 if scripts[r].len() >= 2 => {
                let i = rng.below(scripts[r].len());
                let j = rng.below(scripts[r].len());
                scripts[r].swap(i, j);
            }
            _ => {
                let from = (r + 1 + rng.below(n - 1)) % n;
                let at = rng.below(scripts[r].len() + 1);
                scripts[r].insert(at, Step::Recv(from));
            }
        }
    }
    Scripted::new(scripts, capacity)
}

fn stress(name: &str, make: MakeEndpoints) {
    let mut rng = Rng::new(0x5EED_0001);
    let (mut live, mut dead) = (0, 0);
    let mut attempt = 0u64;
    while live < RUNS_OF_EACH || dead < RUNS_OF_EACH {
        attempt += 1;
        let object = random_system(&mut rng, live >= dead);
        let deadlocks = object.reference_end().iter().any(Option::is_some);
        if deadlocks {
            dead += 1
        } else {
            live += 1
        }
        let seed = rng.next_u64();
        let copy = object.clone();
        let no_linger = vec![false; object.scripts().len()];
        let results = watchdog(
            &format!("{name} run {attempt} (seed {seed})"),
            Duration::from_secs(20),
            move || run(make, copy, seed, &no_linger),
        );
        check_run(seed, &object, &results);
    }
    eprintln!("{name}: {live} live and {dead} deadlocking runs, all as predicted");
}

#[test]
fn locked_session_reports_every_deadlock_and_no_false_alarm() {
    let (name, make) = SESSIONS[0];
    stress(name, make);
}

#[test]
fn split_session_reports_every_deadlock_and_no_false_alarm() {
    let (name, make) = SESSIONS[1];
    stress(name, make);
}

/// Number of runs of [`lingering`] per session.
const LINGERING_RUNS: usize = 500;

/// Live systems in which some roles, once their script is done, wait for one
/// more message: the protocol has ended normally, so every lingering role
/// must get the deadlock, and the report must say that the protocol had
/// terminated, on every run, however the wake-ups fall (on a split session
/// the decision must see every role's local state for that).
fn lingering(name: &str, make: MakeEndpoints) {
    let mut rng = Rng::new(0x5EED_0002);
    for attempt in 0..LINGERING_RUNS {
        let object = random_system(&mut rng, false);
        assert!(object.reference_end().iter().all(Option::is_none), "live");
        let n = object.scripts().len();
        let mut linger: Vec<bool> = (0..n).map(|_| rng.chance(50)).collect();
        linger[rng.below(n)] = true;
        let seed = rng.next_u64();
        let (copy, l) = (object.clone(), linger.clone());
        let what = format!("{name} lingering run {attempt} (seed {seed})");
        let results = watchdog(&what, Duration::from_secs(20), move || {
            run(make, copy, seed, &l)
        });
        let names = object.roles();
        let mut report: Option<Arc<Deadlock>> = None;
        for (r, result) in results.iter().enumerate() {
            match (linger[r], result) {
                (false, Ok(())) => {}
                (true, Err(Error::Deadlock(d))) => {
                    if let Some(first) = &report {
                        assert!(Arc::ptr_eq(first, d), "{what}: one report");
                    }
                    report = Some(Arc::clone(d));
                }
                (_, other) => panic!("{what}: {} lingers: {}, got {other:?}", names[r], linger[r]),
            }
        }
        let d = report.expect("someone lingers");
        assert!(d.terminated, "{what}: the protocol had ended\n{d}");
        let blocked: Vec<(String, WaitsFor)> = d
            .blocked
            .iter()
            .map(|b| (b.role.clone(), b.waits_for.clone()))
            .collect();
        let lingerers: Vec<(String, WaitsFor)> = (0..n)
            .filter(|&r| linger[r])
            .map(|r| (names[r].clone(), WaitsFor::Recv { from: None }))
            .collect();
        assert_eq!(blocked, lingerers, "{what}");
        let others: Vec<String> = (0..n)
            .filter(|&r| !linger[r])
            .map(|r| names[r].clone())
            .collect();
        assert_eq!(d.finished, others, "{what}");
    }
    eprintln!("{name}: {LINGERING_RUNS} lingering runs, each reported as terminated");
}

#[test]
fn locked_session_reports_a_terminated_protocol_as_such() {
    let (name, make) = SESSIONS[0];
    lingering(name, make);
}

#[test]
fn split_session_reports_a_terminated_protocol_as_such() {
    let (name, make) = SESSIONS[1];
    lingering(name, make);
}

/// The same on the bundled protocol objects: a token ring (strict object on
/// a `Session`, liberal object on a `SplitSession`) whose workers each pass
/// the token a random number of times and then stop. Whoever still waits
/// for the token when it stops must get the deadlock; if every worker does
/// the same number of passes, nobody may.
#[test]
fn token_ring_objects_report_exactly_the_stuck_workers() {
    use protocols::token::{self, Topology};
    use session_support::{locked, split};
    let mut rng = Rng::new(0x70CE_u64);
    let (mut live, mut dead) = (0, 0);
    for run in 0..300u64 {
        let k = 2 + rng.below(4);
        let same = rng.chance(40);
        let passes: Vec<usize> = (0..k)
            .map(|_| if same { 3 } else { 1 + rng.below(4) })
            .collect();
        // Worker 0 holds the token first: it sends, then receives; the
        // others receive, then send on.
        let scripts: Vec<Vec<Step>> = (0..k)
            .map(|i| {
                let (prev, next) = ((i + k - 1) % k, (i + 1) % k);
                let pass = if i == 0 {
                    [Step::Send(next), Step::Recv(prev)]
                } else {
                    [Step::Recv(prev), Step::Send(next)]
                };
                pass.iter().copied().cycle().take(2 * passes[i]).collect()
            })
            .collect();
        let reference = Scripted::new(scripts.clone(), 1);
        let end = reference.reference_end();
        if end.iter().any(Option::is_some) {
            dead += 1
        } else {
            live += 1
        }
        let seed = rng.next_u64();
        for (name, endpoints) in [
            ("strict", locked(token::strict(Topology::DirectedRing, k))),
            (
                "liberal",
                split(token::spec(Topology::DirectedRing, k).liberal().unwrap()),
            ),
        ] {
            let scripts = scripts.clone();
            let results = watchdog(
                &format!("token ring {name} run {run}"),
                Duration::from_secs(20),
                move || {
                    std::thread::scope(|s| {
                        let hs: Vec<_> = endpoints
                            .into_iter()
                            .zip(&scripts)
                            .enumerate()
                            .map(|(me, (mut ep, script))| {
                                s.spawn(move || -> Result<(), Error> {
                                    let mut rng = Rng::new(seed ^ me as u64);
                                    for step in script {
                                        jitter(&mut rng);
                                        match *step {
                                            Step::Send(to) => {
                                                ep.send_msg(to, Message::named("Boolean", true))?
                                            }
                                            Step::Recv(from) => {
                                                ep.recv_one(from)?;
                                            }
                                            Step::RecvAny => unreachable!(),
                                        }
                                    }
                                    Ok(())
                                })
                            })
                            .collect();
                        hs.into_iter()
                            .map(|h| h.join().unwrap())
                            .collect::<Vec<_>>()
                    })
                },
            );
            for (r, result) in results.iter().enumerate() {
                match (end[r], result) {
                    (None, Ok(())) => {}
                    (Some(_), Err(Error::Deadlock(d))) => {
                        let stuck: Vec<usize> = (0..k).filter(|&w| end[w].is_some()).collect();
                        let named: Vec<String> = stuck.iter().map(|w| format!("worker_{w}_")).collect();
                        let got: Vec<&str> = d.blocked.iter().map(|b| b.role.as_str()).collect();
                        assert_eq!(got, named, "{name} run {run}: {d}");
                    }
                    (e, other) => panic!("{name} run {run}: worker {r} should end {e:?}, got {other:?}; passes {passes:?}"),
                }
            }
        }
    }
    assert!(
        live >= 50 && dead >= 50,
        "both kinds of runs: {live} live, {dead} deadlocking"
    );
}
