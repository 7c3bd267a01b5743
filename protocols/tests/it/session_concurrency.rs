//! Concurrency tests of the endpoints themselves: many threads on both
//! sessions (the locked one over strict and hand-written objects, the split
//! one over liberal and hand-written objects); per-channel message order is
//! preserved, and no message is lost or duplicated.

use crate::session_support;

use std::time::Duration;

use engine::{Message, RoleId};
use protocols::session::Error;
use session_support::{
    live_scripts, locked, split, watchdog, AnyEndpoint, Rng, Scripted, Step, SESSIONS,
};

const LIMIT: Duration = Duration::from_secs(60);

/// Runs one closure per endpoint on its own thread; returns their results.
fn run_all<T: Send>(
    endpoints: Vec<Box<dyn AnyEndpoint>>,
    body: impl Fn(RoleId, &mut dyn AnyEndpoint) -> T + Sync,
) -> Vec<T> {
    let body = &body;
    std::thread::scope(|s| {
        let handles: Vec<_> = endpoints
            .into_iter()
            .enumerate()
            .map(|(me, mut ep)| s.spawn(move || body(me, &mut *ep)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("thread panicked"))
            .collect()
    })
}

/// Many senders, one receiver taking from whoever is ready (`recv()`):
/// every message arrives exactly once, in order per sender.
#[test]
fn many_senders_one_receiver_nothing_lost_or_duplicated() {
    const SENDERS: usize = 8;
    const EACH: usize = 400;
    for (name, make) in SESSIONS {
        for capacity in [1, usize::MAX] {
            let mut scripts = vec![vec![Step::RecvAny; SENDERS * EACH]];
            scripts.extend((0..SENDERS).map(|_| vec![Step::Send(0); EACH]));
            let object = Scripted::new(scripts, capacity);
            let results = watchdog(name, LIMIT, move || {
                run_all(make(object), |me, ep| -> Result<Vec<usize>, Error> {
                    let mut next = vec![0usize; SENDERS + 1];
                    if me == 0 {
                        for _ in 0..SENDERS * EACH {
                            let (from, msg) = ep.recv_any()?;
                            let (sender, seq): (RoleId, usize) = msg.downcast().unwrap();
                            assert_eq!(sender, from, "{name}: sender");
                            assert_eq!(seq, next[from], "{name}: order from {from}");
                            next[from] += 1;
                        }
                    } else {
                        for seq in 0..EACH {
                            ep.send_msg(0, Message::new((me, seq)))?;
                        }
                    }
                    Ok(next)
                })
            });
            let counts = results[0].as_ref().expect("receiver finished");
            assert_eq!(counts[1..], [EACH; SENDERS], "{name}, capacity {capacity}");
            assert!(results.iter().all(Result::is_ok), "{name}: {results:?}");
        }
    }
}

/// Sixteen threads exchanging thousands of messages along random channels
/// (a live system): each message arrives once, in order on its channel.
#[test]
fn sixteen_threads_random_channels_keep_fifo_order() {
    const ROLES: usize = 16;
    for (name, make) in SESSIONS {
        for capacity in [1, usize::MAX] {
            let mut rng = Rng::new(42 + capacity as u64 % 7);
            let scripts = live_scripts(&mut rng, ROLES, 4000);
            let expected_in: Vec<usize> = scripts
                .iter()
                .map(|s| s.iter().filter(|st| matches!(st, Step::Recv(_))).count())
                .collect();
            let object = Scripted::new(scripts.clone(), capacity);
            let received = watchdog(name, LIMIT, move || {
                run_all(make(object), |me, ep| {
                    let mut sent = [0usize; ROLES];
                    let mut got = [0usize; ROLES];
                    for step in &scripts[me] {
                        match *step {
                            Step::Send(to) => {
                                ep.send_msg(to, Message::new((me, sent[to]))).unwrap();
                                sent[to] += 1;
                            }
                            Step::Recv(from) => {
                                let m = ep.recv_one(from).unwrap();
                                assert_eq!(
                                    m.downcast::<(RoleId, usize)>().unwrap(),
                                    (from, got[from])
                                );
                                got[from] += 1;
                            }
                            Step::RecvAny => unreachable!(),
                        }
                    }
                    got.iter().sum::<usize>()
                })
            });
            assert_eq!(received, expected_in, "{name}, capacity {capacity}");
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
struct CGMessage {
    round: usize,
    worker: usize,
}
#[derive(Clone, Debug, PartialEq)]
struct DoneMessage {
    round: usize,
    worker: usize,
}
#[derive(Clone, Debug)]
struct ExitMessage;

/// The bundled NPB CG protocol with a master and `k` workers, run for
/// `rounds` rounds on real threads: every work item and every reply is
/// delivered once and in protocol order, and the closes complete.
fn npb_cg_run(endpoints: Vec<Box<dyn AnyEndpoint>>, k: usize, rounds: usize) {
    let replies = run_all(endpoints, |me, ep| -> Result<usize, Error> {
        let master = 0;
        let mut count = 0;
        if me == master {
            for round in 0..rounds {
                for w in 1..=k {
                    ep.send_msg(w, Message::new(CGMessage { round, worker: w }))?;
                }
                for w in 1..=k {
                    // recv() from anyone: the protocol itself orders the replies.
                    let (from, m) = ep.recv_any()?;
                    assert_eq!(from, w, "replies come in worker order");
                    assert_eq!(
                        m.downcast::<DoneMessage>().unwrap(),
                        DoneMessage { round, worker: w }
                    );
                    count += 1;
                }
            }
            for w in 1..=k {
                ep.send_msg(w, Message::new(ExitMessage))?;
                ep.recv_one(w)?.downcast::<DoneMessage>().unwrap();
            }
            for w in 1..=k {
                ep.close_to(w)?;
            }
        } else {
            let mut round = 0;
            loop {
                let m = ep.recv_one(master)?;
                match m.downcast::<CGMessage>() {
                    Ok(work) => {
                        assert_eq!(work, CGMessage { round, worker: me });
                        ep.send_msg(master, Message::new(DoneMessage { round, worker: me }))?;
                        round += 1;
                        count += 1;
                    }
                    Err(m) => {
                        m.downcast::<ExitMessage>().unwrap();
                        ep.send_msg(master, Message::new(DoneMessage { round, worker: me }))?;
                        break;
                    }
                }
            }
            ep.close_to(master)?;
        }
        Ok(count)
    });
    let replies: Vec<usize> = replies.into_iter().map(|r| r.unwrap()).collect();
    assert_eq!(replies[0], k * rounds);
    assert!(replies[1..].iter().all(|&c| c == rounds));
}

#[test]
fn npb_cg_strict_on_locked_session() {
    watchdog("npb-cg strict", LIMIT, || {
        npb_cg_run(locked(protocols::npb::cg(12).strict().unwrap()), 12, 200)
    });
}

#[test]
fn npb_cg_liberal_on_split_session() {
    watchdog("npb-cg liberal", LIMIT, || {
        npb_cg_run(split(protocols::npb::cg(12).liberal().unwrap()), 12, 200)
    });
}

#[test]
fn npb_cg_liberal_on_locked_session() {
    // A liberal object is a protocol object too: it also runs under one lock.
    watchdog("npb-cg liberal, locked", LIMIT, || {
        npb_cg_run(locked(protocols::npb::cg(4).liberal().unwrap()), 4, 100)
    });
}
