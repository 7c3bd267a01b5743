//! A receiver sees a close: once a sender has closed its
//! channel and nothing is left in it, a receive from it fails with
//! `Error::Closed` instead of waiting for ever, so a loop that receives
//! until its peer closes ends. On both sessions (locked, split), for
//! `recv_from` and for `recv()` from anyone (which ends only when every
//! sender has closed). A send after a close fails with
//! `Error::SendAfterClose`. Every test runs under a watchdog.

use crate::session_support;
use testkit::close_specs;

use std::time::Duration;

use close_specs::{jobs, results};
use engine::Message;
use protocols::session::{BlockingEndpoint, Error, Session, SplitSession};
use protocols::spec::{close, msg, par, Spec};
use protocols::{Liberal, Strict};
use session_support::watchdog;

const LIMIT: Duration = Duration::from_secs(10);

/// Receives from `from` until it closes; the number of messages, or the
/// first error that is not the close.
fn drain<E: BlockingEndpoint>(e: &mut E, from: &str) -> Result<usize, Error> {
    let mut n = 0;
    loop {
        match e.recv_from(from) {
            Ok(_) => n += 1,
            Err(Error::Closed { role, from: f }) => {
                assert_eq!((role.as_str(), f.as_deref()), ("hand", Some(from)));
                return Ok(n);
            }
            Err(other) => return Err(other),
        }
    }
}

/// The boss sends `n` jobs then closes (after a pause, so that the hand
/// is already waiting when the close comes, at least in most runs).
fn boss<E: BlockingEndpoint>(e: &mut E, n: usize, pause: bool) -> Result<(), Error> {
    for i in 0..n {
        e.send("hand", Message::named("Job", i))?;
    }
    if pause {
        std::thread::sleep(Duration::from_millis(20));
    }
    e.close("hand")
}

fn jobs_on<E: BlockingEndpoint + 'static>(mut eps: Vec<E>, n: usize, pause: bool) -> usize {
    let mut hand = eps.pop().unwrap();
    let mut boss_ep = eps.pop().unwrap();
    let t = std::thread::spawn(move || drain(&mut hand, "boss"));
    boss(&mut boss_ep, n, pause).unwrap();
    // A close is final: the boss can send no more.
    let again = boss_ep.send("hand", Message::named("Job", 99));
    assert_eq!(
        again,
        Err(Error::SendAfterClose {
            role: "boss".into(),
            to: "hand".into()
        })
    );
    t.join().unwrap().unwrap()
}

#[test]
fn a_loop_that_receives_until_its_peer_closes_ends_on_the_locked_session() {
    for (n, pause) in [(0, false), (3, false), (5, true)] {
        let got = watchdog("locked", LIMIT, move || {
            let eps = Session::new(Strict::from_spec(&jobs()).unwrap()).into_endpoints();
            jobs_on(eps, n, pause)
        });
        assert_eq!(got, n);
    }
}

#[test]
fn a_loop_that_receives_until_its_peer_closes_ends_on_the_split_session() {
    for (n, pause) in [(0, false), (3, false), (5, true)] {
        let got = watchdog("split", LIMIT, move || {
            let eps = SplitSession::new(Liberal::from_spec(&jobs()).unwrap()).into_endpoints();
            jobs_on(eps, n, pause)
        });
        assert_eq!(got, n);
    }
}

/// `m` receives from anyone: after `w1` closes, `w2`'s messages still
/// arrive, and `Closed` (with no sender named) comes only once both have
/// closed and every message was taken.
fn results_on<E: BlockingEndpoint + 'static>(mut eps: Vec<E>) -> (usize, usize) {
    let mut w2 = eps.pop().unwrap();
    let mut w1 = eps.pop().unwrap();
    let mut m = eps.pop().unwrap();
    let (w1_id, w2_id) = (w1.role(), w2.role());
    let t = std::thread::spawn(move || {
        let mut counts = (0, 0);
        loop {
            match m.recv() {
                Ok((from, _)) if from == w1_id => counts.0 += 1,
                Ok((from, _)) if from == w2_id => counts.1 += 1,
                Ok((from, _)) => panic!("a message from role {from}"),
                Err(Error::Closed { role, from: None }) if role == "m" => return counts,
                Err(other) => panic!("m: {other}"),
            }
        }
    });
    w1.send("m", Message::named("Res", 1)).unwrap();
    w1.close("m").unwrap();
    std::thread::sleep(Duration::from_millis(20));
    for i in 0..4 {
        w2.send("m", Message::named("Res", i)).unwrap();
    }
    w2.close("m").unwrap();
    t.join().unwrap()
}

#[test]
fn recv_from_anyone_ends_only_when_every_sender_has_closed() {
    let locked = watchdog("locked", LIMIT, || {
        results_on(Session::new(Strict::from_spec(&results()).unwrap()).into_endpoints())
    });
    let split = watchdog("split", LIMIT, || {
        results_on(SplitSession::new(Liberal::from_spec(&results()).unwrap()).into_endpoints())
    });
    assert_eq!(locked, (1, 4));
    assert_eq!(split, (1, 4));
}

/// A close is seen only after the messages sent before it: the boss
/// sends its job and closes before the hand receives anything (the spec
/// lets the close overtake the receive), and the hand takes the job first.
fn late_receiver<E: BlockingEndpoint>(mut eps: Vec<E>) -> Result<usize, Error> {
    let mut hand = eps.pop().unwrap();
    let mut b = eps.pop().unwrap();
    boss(&mut b, 1, false)?;
    drop(b);
    drain(&mut hand, "boss")
}

#[test]
fn messages_sent_before_a_close_are_received_before_it_is_seen() {
    let late = || {
        Spec::new(
            "late",
            par([msg("Job", "boss", "hand"), close("boss", "hand")]),
        )
    };
    let locked = watchdog("locked", LIMIT, move || {
        late_receiver(Session::new(Strict::from_spec(&late()).unwrap()).into_endpoints())
    });
    let split = watchdog("split", LIMIT, move || {
        late_receiver(SplitSession::new(Liberal::from_spec(&late()).unwrap()).into_endpoints())
    });
    assert_eq!(locked, Ok(1));
    assert_eq!(split, Ok(1));
}
