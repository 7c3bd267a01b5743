//! Bad use gets a clear error at once, never a hang.

use std::time::{Duration, Instant};

use channel::{select, Ends, Error, Receiver, RecvError, Sender, SessionEnds};
use protocols::session::{self, Endpoint, Session, SplitEndpoint, SplitSession};
use protocols::spec::{msg, par, seq, Spec};
use protocols::{Liberal, Strict};

use crate::{liberal_ends, strict_ends, Done, Job, Stop};

fn boss_hand() -> Spec {
    Spec::new(
        "pair",
        seq([msg("Job", "boss", "hand"), msg("Done", "hand", "boss")]),
    )
}

#[test]
fn an_unknown_role_is_an_error_with_a_hint() {
    let [boss, _hand]: [Ends<_>; 2] = strict_ends(&boss_hand()).try_into().unwrap();
    let e = boss.sender::<Job>("hnad").unwrap_err();
    assert_eq!(
        e.to_string(),
        "unknown role `hnad`; did you mean `hand`? the protocol has: boss, hand"
    );
    assert!(matches!(e, Error::UnknownRole { .. }));
    let e = boss.receiver::<Done>(7usize).unwrap_err();
    assert!(
        matches!(e, Error::Session(session::Error::RoleOutOfRange { .. })),
        "{e:?}"
    );
    let e = boss.sender::<Job>("boss").unwrap_err();
    assert!(
        matches!(e, Error::Session(session::Error::ToSelf { .. })),
        "{e:?}"
    );
}

/// A receiver of a type the protocol never sends on that channel would
/// wait for ever: refused at creation, with the closest type it does send.
#[test]
fn a_receiver_of_a_type_never_sent_there_is_refused_with_a_hint() {
    #[derive(Clone, Debug)]
    struct Dnoe;
    for e in [
        strict_ends(&boss_hand())[0]
            .receiver::<Dnoe>("hand")
            .unwrap_err(),
        liberal_ends(&boss_hand())[0]
            .receiver::<Dnoe>("hand")
            .unwrap_err(),
    ] {
        assert_eq!(
            e.to_string(),
            "the protocol never sends <Dnoe> from hand to boss; did you mean <Done>? it sends: Done"
        );
    }
    // A type the protocol has, but on another channel.
    let ends = strict_ends(&boss_hand());
    let e = ends[0].receiver::<Job>("hand").unwrap_err();
    assert!(
        matches!(e, Error::NotOnChannel { ref carried, .. } if carried == &["Done"]),
        "{e:?}"
    );
    let e = ends[1].sender::<Done>("boss").map(|_| ()).err();
    assert!(e.is_none(), "hand does send Done to boss");
    let e = ends[0].sender::<Done>("hand").unwrap_err();
    assert!(
        e.to_string()
            .contains("never sends <Done> from boss to hand"),
        "{e}"
    );
}

#[test]
fn debug_names_roles_and_types() {
    let ends = liberal_ends(&boss_hand());
    let tx = ends[0].sender::<Job>("hand").unwrap();
    let rx = ends[1].receiver::<Job>("boss").unwrap();
    assert_eq!(format!("{:?}", ends[1]), r#"Ends { role: "hand" }"#);
    assert_eq!(
        format!("{tx:?}"),
        r#"Sender<Job> { role: "boss", to: "hand" }"#
    );
    assert_eq!(
        format!("{rx:?}"),
        r#"Receiver<Job> { role: "hand", from: "boss" }"#
    );
    assert_eq!(ends[0].role_name(1), Some("hand"));
}

/// One role's endpoint used by two threads at once: the second gets
/// `Busy` at once instead of waiting where the session cannot see it.
#[test]
fn a_role_used_from_two_threads_at_once_is_busy_not_a_hang() {
    let [boss, hand]: [Ends<_>; 2] = strict_ends(&boss_hand()).try_into().unwrap();
    let rx = hand.receiver::<Job>("boss").unwrap();
    let t = std::thread::spawn(move || rx.recv());
    // Until the thread is in its receive, making an end succeeds.
    let start = Instant::now();
    let busy = loop {
        match hand.sender::<Done>("boss") {
            Err(e) => break e,
            Ok(_) => {
                assert!(start.elapsed() < Duration::from_secs(20), "never busy");
                std::thread::sleep(Duration::from_millis(1));
            }
        }
    };
    assert_eq!(
        busy,
        Error::Busy {
            role: "hand".into()
        }
    );
    assert!(busy.to_string().contains("another thread"), "{busy}");
    let tx = boss.sender::<Job>("hand").unwrap();
    tx.send(Job(1)).unwrap();
    assert_eq!(t.join().unwrap(), Ok(Job(1)));
}

#[test]
fn a_select_over_two_roles_is_an_error() {
    let spec = Spec::new(
        "fan",
        par([msg("Job", "boss", "hand"), msg("Stop", "boss", "clock")]),
    );
    let [boss, hand, clock]: [Ends<_>; 3] = strict_ends(&spec).try_into().unwrap();
    let (jobs, stops) = (
        hand.receiver::<Job>("boss").unwrap(),
        clock.receiver::<Stop>("boss").unwrap(),
    );
    let got = select! {
        recv(jobs) -> j => j.map(|_| ()),
        recv(stops) -> s => s.map(|_| ()),
    };
    assert_eq!(got, Err(RecvError::Failed(Error::MixedRoles)));
    drop(boss);
}

/// The ends are `Send + Sync` for every endpoint (each is `Send`).
#[test]
fn ends_are_send_and_sync() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Ends<Endpoint<Strict>>>();
    send_sync::<Ends<SplitEndpoint<Liberal>>>();
    send_sync::<Ends<prust_explore::ExploreEndpoint<Strict>>>();
    send_sync::<Sender<Job>>();
    send_sync::<Receiver<Job>>();
}

/// `session.ends(role)` of a role the protocol does not have: an error at
/// once, with the closest name; a role's ends taken twice (two `Ends` of
/// one role, which could then be used by two threads at once): refused,
/// on both sessions.
#[test]
fn ends_of_an_unknown_or_taken_role_are_an_error() {
    fn check<S: SessionEnds>(session: S) {
        let e = session.ends("hnad").unwrap_err();
        assert_eq!(
            e,
            Error::UnknownRole {
                name: "hnad".into(),
                hint: Some("hand".into()),
                known: vec!["boss".into(), "hand".into()],
            }
        );
        let e = session.ends(5usize).unwrap_err();
        assert!(
            matches!(e, Error::Session(session::Error::RoleOutOfRange { .. })),
            "{e:?}"
        );
        let hand = session.ends("hand").unwrap();
        let e = session.ends("hand").unwrap_err();
        assert_eq!(e, Error::Session(session::Error::RoleTaken("hand".into())));
        assert!(e.to_string().contains("already taken"), "{e}");
        // The ends already taken still work, and `into_ends` skips them.
        let rest = session.into_ends();
        assert_eq!(rest.len(), 1);
        let boss = &rest[0];
        assert_eq!(boss.name(), "boss");
        boss.sender::<Job>("hand").unwrap().send(Job(3)).unwrap();
        assert_eq!(hand.receiver::<Job>("boss").unwrap().recv(), Ok(Job(3)));
    }
    check(Session::new(Strict::from_spec(&boss_hand()).unwrap()));
    check(SplitSession::new(Liberal::from_spec(&boss_hand()).unwrap()));
}

/// The typed ends and the session agree, through one word, on whether a
/// role is in use: a panic guard of `hand` whose thread panics while
/// another thread of `hand` waits in a typed receive does not declare the
/// role panicked (the receive goes on and gets its job); one that panics
/// while no thread of `hand` is in an operation does, and the typed ends
/// then say so.
fn a_guard_sees_a_typed_operation_in_progress<E: session::BlockingEndpoint + 'static>(
    [boss, hand]: [E; 2],
) {
    let guard = || hand.panic_guard();
    let panics = |g: session::PanicGuard| {
        std::thread::spawn(move || {
            let _g = g;
            panic!("hand's other thread has a bug");
        })
        .join()
        .is_err()
    };
    let (first, second) = (guard(), guard());
    let (boss, hand) = (Ends::new(boss), Ends::new(hand));
    let rx = hand.receiver::<Job>("boss").unwrap();
    let t = std::thread::spawn(move || rx.recv());
    // Wait until the receive holds the endpoint (making an end is busy).
    let start = Instant::now();
    while hand.sender::<Done>("boss").is_ok() {
        assert!(start.elapsed() < Duration::from_secs(20), "never busy");
        std::thread::sleep(Duration::from_millis(1));
    }
    assert!(panics(first));
    boss.sender::<Job>("hand").unwrap().send(Job(1)).unwrap();
    assert_eq!(t.join().unwrap(), Ok(Job(1)));
    assert!(panics(second));
    let e = hand.sender::<Done>("boss").unwrap_err();
    assert_eq!(
        e,
        Error::Session(session::Error::RolePanicked("hand".into()))
    );
}

#[test]
fn a_guard_sees_a_typed_operation_in_progress_on_both_sessions() {
    // On a thread of its own: where the session and the ends disagree,
    // the receive may wait forever, and the test must fail, not hang.
    let (done, finished) = std::sync::mpsc::channel();
    let t = std::thread::spawn(move || {
        let spec = boss_hand();
        let strict: Vec<Endpoint<Strict>> =
            Session::new(Strict::new(spec.compile().unwrap())).into_endpoints();
        a_guard_sees_a_typed_operation_in_progress(strict.try_into().ok().unwrap());
        let liberal: Vec<SplitEndpoint<Liberal>> =
            SplitSession::new(Liberal::new(spec.compile().unwrap())).into_endpoints();
        a_guard_sees_a_typed_operation_in_progress(liberal.try_into().ok().unwrap());
        done.send(()).unwrap();
    });
    if finished.recv_timeout(Duration::from_secs(60)).is_err() {
        assert!(t.is_finished(), "still waiting after 60 s");
    }
    t.join().unwrap();
}
