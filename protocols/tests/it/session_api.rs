//! The blocking API's contract, case by case, on both sessions: role names,
//! errors, what counts as live, deadlock reports and poisoning, panics.

use crate::session_support;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use engine::{Message, Protocol, Refused, RoleId};
use protocols::session::{BlockingEndpoint, Error, Session, Split, SplitSession, WaitsFor};
use session_support::{watchdog, Scripted, Step, SESSIONS};

const LIMIT: Duration = Duration::from_secs(30);

#[derive(Clone, Debug)]
#[allow(dead_code)] // the payload is only printed
struct Move(&'static str);

fn deadlock_of(e: Error) -> Arc<protocols::session::Deadlock> {
    match e {
        Error::Deadlock(d) => d,
        other => panic!("expected a deadlock, got {other}"),
    }
}

#[test]
fn roles_by_name_and_index_with_clear_errors() {
    let session = Session::new(protocols::chess::strict());
    assert_eq!(session.roles(), ["white", "black"]);
    assert_eq!(session.role("black"), Ok(1));
    let err = session.endpoint("blak").unwrap_err();
    assert_eq!(
        err.to_string(),
        "unknown role `blak`; the protocol has: white, black"
    );
    assert_eq!(
        session.endpoint(7usize).unwrap_err(),
        Error::RoleOutOfRange { role: 7, count: 2 }
    );
    let mut white = session.endpoint("white").unwrap();
    assert_eq!((white.role(), white.name()), (0, "white"));
    assert_eq!(
        session.endpoint(0usize).unwrap_err(),
        Error::RoleTaken("white".into())
    );
    assert!(matches!(
        white.send("whit", Move("e4")),
        Err(Error::UnknownRole { .. })
    ));

    let split = SplitSession::new(protocols::chess::spec().liberal().unwrap());
    assert_eq!(split.role("white"), Ok(0));
    let black = split.endpoint("black").unwrap();
    assert_eq!(black.peer("white"), Ok(0));
    assert_eq!(
        split.endpoint("black").unwrap_err(),
        Error::RoleTaken("black".into())
    );
}

/// Black moves first: a protocol violation. It blocks; once white has
/// finished, black is the last live role and gets a deadlock naming it.
#[test]
fn a_violation_is_reported_once_the_others_are_done() {
    let object = protocols::chess::strict();
    let report = watchdog("violation", LIMIT, move || {
        let session = Session::new(object);
        let mut black = session.endpoint("black").unwrap();
        let white = session.endpoint("white").unwrap();
        drop(session);
        let t = std::thread::spawn(move || black.send("white", Move("e5")));
        std::thread::sleep(Duration::from_millis(20));
        drop(white); // white's thread ends without moving
        t.join().unwrap()
    });
    let d = deadlock_of(report.unwrap_err());
    assert_eq!(d.blocked.len(), 1);
    assert_eq!(d.blocked[0].role, "black");
    assert_eq!(
        d.blocked[0].waits_for,
        WaitsFor::Send {
            to: "white".into(),
            type_name: "Move".into()
        }
    );
    assert_eq!(d.finished, ["white"]);
    assert!(!d.terminated);
    assert_eq!(
        d.to_string(),
        "deadlock: every live role is blocked\n  black waits to send <Move> to white\n  finished (endpoint dropped): white"
    );
}

/// Every blocked call gets the error, and later calls too (poisoned).
#[test]
fn every_blocked_role_gets_the_deadlock_and_the_session_stays_poisoned() {
    for (name, make) in SESSIONS {
        // r0 and r1 each wait for the other first: a cycle.
        let object = Scripted::new(
            vec![
                vec![Step::Recv(1), Step::Send(1)],
                vec![Step::Recv(0), Step::Send(0)],
            ],
            1,
        );
        let results = watchdog(name, LIMIT, move || {
            let endpoints = make(object);
            std::thread::scope(|s| {
                let hs: Vec<_> = endpoints
                    .into_iter()
                    .enumerate()
                    .map(|(me, mut ep)| {
                        s.spawn(move || {
                            let first = ep.recv_one(1 - me).unwrap_err();
                            let again = ep.send_msg(1 - me, Message::new(1u8)).unwrap_err();
                            (first, again)
                        })
                    })
                    .collect();
                hs.into_iter()
                    .map(|h| h.join().unwrap())
                    .collect::<Vec<_>>()
            })
        });
        let (d0, again0) = (deadlock_of(results[0].0.clone()), results[0].1.clone());
        let d1 = deadlock_of(results[1].0.clone());
        assert!(Arc::ptr_eq(&d0, &d1), "{name}: one deadlock");
        assert_eq!(again0, Error::Deadlock(d0.clone()), "{name}: poisoned");
        let who: Vec<_> = d0
            .blocked
            .iter()
            .map(|b| (b.role.as_str(), b.waits_for.to_string()))
            .collect();
        assert_eq!(
            who,
            [
                ("r0", "receive from r1".to_string()),
                ("r1", "receive from r0".to_string())
            ],
            "{name}"
        );
        assert!(d0.finished.is_empty());
    }
}

/// A role whose endpoint was never taken is live while the session exists
/// (someone may take it), and finished once the session is dropped.
#[test]
fn unclaimed_roles_are_live_until_the_session_is_dropped() {
    let object = Scripted::new(vec![vec![Step::Recv(1)], vec![Step::Send(0)]], 1);
    let result = watchdog("unclaimed", LIMIT, move || {
        let session = SplitSession::new(object);
        let mut r0 = session.endpoint("r0").unwrap();
        let done = Arc::new(AtomicBool::new(false));
        let flag = done.clone();
        let t = std::thread::spawn(move || {
            let r = r0.recv_from("r1");
            flag.store(true, Ordering::SeqCst);
            r
        });
        std::thread::sleep(Duration::from_millis(30));
        // r1 may still be taken: no deadlock may have been declared.
        assert!(
            !done.load(Ordering::SeqCst),
            "declared a deadlock while r1 could still be taken"
        );
        drop(session);
        t.join().unwrap()
    });
    let d = deadlock_of(result.unwrap_err());
    assert_eq!(d.finished, ["r1"]);
    assert_eq!(
        d.blocked[0].waits_for,
        WaitsFor::Recv {
            from: Some("r1".into())
        }
    );
}

#[derive(Clone, Debug)]
struct Title;
#[derive(Clone, Debug)]
struct Quote(u32);
#[derive(Clone, Debug)]
struct Contribution(u32);
#[derive(Clone, Debug)]
#[allow(dead_code)] // the payload is only printed
struct Decision(bool);

/// Plays the two-buyer protocol once, with a seller that then waits for the
/// next title forever; returns the seller's error.
fn two_buyer_then_wait<E: BlockingEndpoint>([mut b1, mut b2, mut seller]: [E; 3]) -> Error {
    std::thread::scope(|s| {
        s.spawn(move || -> Result<(), Error> {
            b1.send("seller", Title)?;
            let q = b1.recv_from("seller")?.downcast::<Quote>().unwrap();
            b1.send("buyer2", Contribution(q.0 / 2))
        });
        s.spawn(move || -> Result<(), Error> {
            let q = b2.recv_from("seller")?.downcast::<Quote>().unwrap();
            let c = b2.recv_from("buyer1")?.downcast::<Contribution>().unwrap();
            b2.send("seller", Decision(q.0 - c.0 <= 50))
        });
        let seller = s.spawn(move || -> Result<(), Error> {
            loop {
                seller.recv_from("buyer1")?;
                seller.send("buyer1", Quote(80))?;
                seller.send("buyer2", Quote(80))?;
                seller.recv_from("buyer2")?;
            }
        });
        seller.join().unwrap().unwrap_err()
    })
}

/// Servers that loop waiting for requests after the protocol has ended: the
/// report says the protocol had terminated, on both sessions (on the split
/// one, every role's local state is in the report's view however the wake-ups
/// fall, so this is asserted over many runs).
#[test]
fn waiting_after_the_end_of_the_protocol_is_reported_as_such() {
    let strict = protocols::two_buyer::strict();
    let locked = watchdog("two-buyer strict", LIMIT, move || {
        two_buyer_then_wait(Session::new(strict).into_endpoints().try_into().unwrap())
    });
    let d = deadlock_of(locked);
    assert!(d.terminated, "{d}");
    assert_eq!(d.blocked[0].role, "seller");
    assert!(d
        .to_string()
        .contains("the protocol had already terminated normally"));
    for run in 0..200 {
        let liberal = protocols::two_buyer::spec().liberal().unwrap();
        let split = watchdog("two-buyer liberal", LIMIT, move || {
            two_buyer_then_wait(
                SplitSession::new(liberal)
                    .into_endpoints()
                    .try_into()
                    .unwrap(),
            )
        });
        let d = deadlock_of(split);
        assert!(d.terminated, "run {run}: {d}");
        assert_eq!(d.finished, ["buyer1", "buyer2"], "run {run}");
        assert_eq!(
            d.blocked[0].waits_for,
            WaitsFor::Recv {
                from: Some("buyer1".into())
            }
        );
    }
    let liberal = protocols::two_buyer::spec().liberal().unwrap();
    let split = watchdog("two-buyer liberal, nothing done", LIMIT, move || {
        let [b1, b2, mut seller] = SplitSession::new(liberal)
            .into_endpoints()
            .try_into()
            .unwrap();
        drop((b1, b2)); // their threads end at once
        seller.recv_from("buyer1")
    });
    let d = deadlock_of(split.unwrap_err());
    assert!(!d.terminated, "nothing happened yet: {d}");
    assert_eq!(d.finished, ["buyer1", "buyer2"]);
}

/// A protocol whose send panics: the other thread is released with
/// `Error::Panicked` instead of waiting forever, on both sessions.
#[test]
fn a_panic_in_protocol_code_releases_the_waiters() {
    #[derive(Clone, PartialEq, Eq, Hash)]
    struct Faulty;
    impl Protocol for Faulty {
        fn roles(&self) -> Vec<String> {
            vec!["a".into(), "b".into()]
        }
        fn try_send(&mut self, _: RoleId, _: RoleId, _: Message) -> Result<(), Refused<Message>> {
            panic!("bug in protocol code")
        }
        fn try_recv(&mut self, _: RoleId, _: Option<RoleId>) -> Result<(RoleId, Message), Refused> {
            Err(Refused(()))
        }
    }
    // The same protocol code as the steps of a split object.
    impl Split for Faulty {
        type Local = ();
        type Inbox = ();
        fn split(self) -> (Vec<()>, Vec<()>) {
            (vec![(), ()], vec![(), ()])
        }
        fn send_step(
            _: &mut (),
            _: RoleId,
            _: Message,
            _: &mut (),
        ) -> Result<(), Refused<Message>> {
            panic!("bug in protocol code")
        }
        fn recv_step(
            _: &mut (),
            _: Option<RoleId>,
            _: &mut (),
        ) -> Result<(RoleId, Message), Refused> {
            Err(Refused(()))
        }
        fn close_step(_: &mut (), _: RoleId) -> Result<(), Refused> {
            Err(Refused(()))
        }
        fn parts_terminated(_: &[&()], _: &[&()]) -> bool {
            false
        }
    }
    /// The waiter's first and second result.
    fn waiter_sees<E: BlockingEndpoint + 'static>([mut a, mut b]: [E; 2]) -> [Error; 2] {
        let waiter = std::thread::spawn(move || [b.recv().unwrap_err(), b.recv().unwrap_err()]);
        std::thread::sleep(Duration::from_millis(10));
        let sender = std::thread::spawn(move || a.send("b", 1u8));
        assert!(sender.join().is_err(), "the sender's thread panicked");
        waiter.join().unwrap()
    }
    let locked = watchdog("panic", LIMIT, || {
        waiter_sees(Session::new(Faulty).into_endpoints().try_into().unwrap())
    });
    assert_eq!(locked, [Error::Panicked, Error::Panicked]);
    // Not a deadlock report (the sender's endpoint is dropped while it
    // unwinds, which would leave the waiter the last live role): the
    // session is poisoned and stays so.
    let split = watchdog("panic split", LIMIT, || {
        waiter_sees(
            SplitSession::new(Faulty)
                .into_endpoints()
                .try_into()
                .unwrap(),
        )
    });
    assert_eq!(split, [Error::Panicked, Error::Panicked]);
}

/// A split object whose `parts_terminated` panics: called only for the
/// deadlock report, with every slot locked.
#[derive(Clone, PartialEq, Eq, Hash)]
struct PanicsInReport;

impl Protocol for PanicsInReport {
    fn roles(&self) -> Vec<String> {
        vec!["a".into(), "b".into()]
    }
    fn try_send(&mut self, _: RoleId, _: RoleId, m: Message) -> Result<(), Refused<Message>> {
        Err(Refused(m))
    }
    fn try_recv(&mut self, _: RoleId, _: Option<RoleId>) -> Result<(RoleId, Message), Refused> {
        Err(Refused(()))
    }
}

impl Split for PanicsInReport {
    type Local = ();
    type Inbox = ();
    fn split(self) -> (Vec<()>, Vec<()>) {
        (vec![(), ()], vec![(), ()])
    }
    fn send_step(_: &mut (), _: RoleId, m: Message, _: &mut ()) -> Result<(), Refused<Message>> {
        Err(Refused(m))
    }
    fn recv_step(_: &mut (), _: Option<RoleId>, _: &mut ()) -> Result<(RoleId, Message), Refused> {
        Err(Refused(()))
    }
    fn close_step(_: &mut (), _: RoleId) -> Result<(), Refused> {
        Err(Refused(()))
    }
    fn parts_terminated(_: &[&()], _: &[&()]) -> bool {
        panic!("parts_terminated panics")
    }
}

/// The deadlock is still reported to every blocked role when the protocol
/// code that the report calls panics (it once unwound out of the decision,
/// leaving the other role parked for ever).
#[test]
fn a_panic_while_building_the_deadlock_report_still_releases_everyone() {
    for _ in 0..20 {
        let errors = watchdog("both roles released", LIMIT, || {
            let session = SplitSession::new(PanicsInReport);
            let (mut a, mut b) = (
                session.endpoint("a").unwrap(),
                session.endpoint("b").unwrap(),
            );
            drop(session);
            std::thread::scope(|s| {
                let ha = s.spawn(move || a.recv().map(|_| ()));
                let hb = s.spawn(move || b.recv().map(|_| ()));
                [ha.join().unwrap(), hb.join().unwrap()]
            })
        });
        for e in errors {
            let d = deadlock_of(e.expect_err("nobody can receive"));
            assert!(!d.terminated);
        }
    }
}

/// A role that names itself as its peer gets an error at once on both
/// sessions (the same call used to wait, and end as a deadlock "white
/// waits to send <Move> to white"): no protocol has a channel from a role
/// to itself.
#[test]
fn a_role_that_names_itself_as_its_peer_is_refused_at_once() {
    fn to_self<E: BlockingEndpoint>(mut white: E) {
        let refused = |r: Result<(), Error>, what: &str| {
            let e = r.expect_err("refused");
            assert_eq!(
                e,
                Error::ToSelf {
                    role: "white".into(),
                    what: match what {
                        "send" => "send to",
                        "recv" => "receive from",
                        _ => "close its channel to",
                    }
                }
            );
            assert!(e.to_string().starts_with("white tries to"), "{e}");
        };
        refused(white.send("white", Move("e4")), "send");
        refused(white.recv_from("white").map(|_| ()), "recv");
        refused(
            white
                .select(&[protocols::session::Alternative::sender(0)])
                .map(|_| ()),
            "recv",
        );
        refused(white.close("white"), "close");
        // The session goes on: the call never reached the object.
        white.send("black", Move("e4")).unwrap();
    }
    watchdog("a send to oneself", Duration::from_secs(10), || {
        let session = Session::new(protocols::chess::strict());
        to_self(session.endpoint("white").unwrap());
        let split = SplitSession::new(protocols::chess::spec().liberal().unwrap());
        to_self(split.endpoint("white").unwrap());
    });
}
