//! Each operation of the typed ends on a real strict session and a real
//! liberal one.

use std::time::Duration;

use channel::{select, Ends, RecvError, RecvTimeoutError, TryRecvError};
use engine::Message;
use protocols::session::BlockingEndpoint;
use protocols::spec::{close, msg, par, seq, Spec};

use crate::{both, Done, Job, Stop};

type AllEnds<E> = Vec<Ends<E>>;

fn jobs_then_close() -> Spec {
    Spec::new(
        "jobs",
        seq([msg("Job", "boss", "hand").star(), close("boss", "hand")]),
    )
}

/// Sends arrive in order; `iter` ends at the explicit close.
fn send_recv_iter_close<E: BlockingEndpoint + 'static>(ends: AllEnds<E>) {
    let [boss, hand]: [Ends<E>; 2] = ends.try_into().unwrap();
    let t = std::thread::spawn(move || {
        let jobs = hand.receiver::<Job>("boss").unwrap();
        jobs.iter().collect::<Vec<_>>()
    });
    let jobs = boss.sender::<Job>("hand").unwrap();
    for i in 0..4 {
        jobs.send(Job(i)).unwrap();
    }
    jobs.close().unwrap();
    assert_eq!(t.join().unwrap(), (0..4).map(Job).collect::<Vec<_>>());
}

#[test]
fn send_recv_iter_and_close() {
    both!(jobs_then_close(), send_recv_iter_close);
}

/// Dropping the last sender closes (the spec closes there); a clone keeps
/// the channel open.
fn drop_last_sender<E: BlockingEndpoint + 'static>(ends: AllEnds<E>) {
    let [boss, hand]: [Ends<E>; 2] = ends.try_into().unwrap();
    let jobs = hand.receiver::<Job>("boss").unwrap();
    let tx = boss.sender::<Job>("hand").unwrap();
    let tx2 = tx.clone();
    tx.send(Job(1)).unwrap();
    drop(tx);
    assert_eq!(jobs.recv(), Ok(Job(1)));
    assert_eq!(
        jobs.try_recv(),
        Err(TryRecvError::Empty),
        "a clone is alive"
    );
    tx2.send(Job(2)).unwrap();
    // (The strict object allows the close only once the job is received.)
    assert_eq!(jobs.recv(), Ok(Job(2)));
    drop(tx2);
    assert_eq!(jobs.recv(), Err(RecvError::Closed));
    assert_eq!(jobs.try_recv(), Err(TryRecvError::Closed));
    // A close is final: a new sender cannot send.
    let e = boss
        .sender::<Job>("hand")
        .unwrap()
        .send(Job(3))
        .unwrap_err();
    assert!(e.error.is_closed(), "{e}");
    assert_eq!(e.value, Job(3));
}

#[test]
fn dropping_the_last_sender_closes_where_the_spec_closes() {
    both!(jobs_then_close(), drop_last_sender);
}

/// Where the spec has no close on the channel, a drop closes nothing: a
/// new sender sends on.
fn drop_without_close<E: BlockingEndpoint + 'static>(ends: AllEnds<E>) {
    let [boss, hand]: [Ends<E>; 2] = ends.try_into().unwrap();
    let jobs = hand.receiver::<Job>("boss").unwrap();
    boss.sender::<Job>("hand").unwrap().send(Job(1)).unwrap();
    assert_eq!(jobs.recv(), Ok(Job(1)));
    boss.sender::<Job>("hand").unwrap().send(Job(2)).unwrap();
    assert_eq!(jobs.recv(), Ok(Job(2)));
    assert_eq!(jobs.try_recv(), Err(TryRecvError::Empty));
}

#[test]
fn dropping_a_sender_where_the_spec_has_no_close_does_nothing() {
    both!(
        Spec::new("jobs", msg("Job", "boss", "hand").star()),
        drop_without_close
    );
}

/// `recv_timeout`: a timeout when nothing can come yet, the value when it
/// is there, `Closed` after the close.
fn timeouts<E: BlockingEndpoint + 'static>(ends: AllEnds<E>) {
    let [boss, hand]: [Ends<E>; 2] = ends.try_into().unwrap();
    let jobs = hand.receiver::<Job>("boss").unwrap();
    let tx = boss.sender::<Job>("hand").unwrap();
    let short = Duration::from_millis(2);
    assert_eq!(jobs.recv_timeout(short), Err(RecvTimeoutError::Timeout));
    tx.send(Job(5)).unwrap();
    assert_eq!(jobs.recv_timeout(short), Ok(Job(5)));
    drop(tx);
    assert_eq!(jobs.recv_timeout(short), Err(RecvTimeoutError::Closed));
    drop((boss, hand));
}

#[test]
fn recv_timeout_times_out_receives_and_sees_the_close() {
    both!(jobs_then_close(), timeouts);
}

/// A receiver takes only its type: a `Stop` receiver leaves a `Job` at the
/// head of the channel; `Receiver<Message>` takes either.
fn typed_heads<E: BlockingEndpoint + 'static>(ends: AllEnds<E>) {
    let [boss, hand]: [Ends<E>; 2] = ends.try_into().unwrap();
    let stops = hand.receiver::<Stop>("boss").unwrap();
    let jobs = hand.receiver::<Job>("boss").unwrap();
    let any = hand.receiver::<Message>("boss").unwrap();
    // (The strict object takes each send only after the one before it was
    // received: one message at a time at the head.)
    boss.sender::<Job>("hand").unwrap().send(Job(1)).unwrap();
    assert_eq!(stops.try_recv(), Err(TryRecvError::Empty), "a Job is first");
    assert_eq!(
        stops.recv_timeout(Duration::from_millis(2)),
        Err(RecvTimeoutError::Timeout)
    );
    assert_eq!(jobs.recv(), Ok(Job(1)));
    boss.sender::<Stop>("hand").unwrap().send(Stop).unwrap();
    assert_eq!(jobs.try_recv(), Err(TryRecvError::Empty), "a Stop is first");
    assert_eq!(stops.recv(), Ok(Stop));
    boss.sender::<Job>("hand").unwrap().send(Job(2)).unwrap();
    let m = any.recv().unwrap();
    assert_eq!(m.downcast::<Job>().unwrap(), Job(2));
}

#[test]
fn a_receiver_takes_only_its_own_type() {
    both!(
        Spec::new(
            "mixed",
            seq([
                msg("Job", "boss", "hand"),
                msg("Stop", "boss", "hand"),
                msg("Job", "boss", "hand"),
            ]),
        ),
        typed_heads
    );
}

/// `select!` takes the arm that can receive; once every peer has closed,
/// the first arm gets `Closed`.
fn selects<E: BlockingEndpoint + 'static>(ends: AllEnds<E>) {
    let [boss, hand, clock]: [Ends<E>; 3] = ends.try_into().unwrap();
    let jobs = hand.receiver::<Job>("boss").unwrap();
    let stop = hand.receiver::<Stop>("clock").unwrap();
    let stop_tx = clock.sender::<Stop>("hand").unwrap();
    stop_tx.send(Stop).unwrap();
    let got = select! {
        recv(jobs) -> j => format!("job {j:?}"),
        recv(stop) -> s => format!("stop {s:?}"),
    };
    assert_eq!(got, "stop Ok(Stop)");
    let t = std::thread::spawn(move || {
        let tx = boss.sender::<Job>("hand").unwrap();
        tx.send(Job(9)).unwrap();
        // dropped: closes boss → hand
    });
    let got = select! {
        recv(jobs) -> j => { j.map(|j| j.0) }
        recv(stop) -> _s => { Ok(0) }
    };
    assert_eq!(got, Ok(9));
    t.join().unwrap();
    drop(stop_tx); // closes clock → hand
    let got = select! {
        recv(stop) -> s => s.map(|_| "stop"),
        recv(jobs) -> j => j.map(|_| "job"),
    };
    assert_eq!(got, Err(RecvError::Closed));
}

#[test]
fn select_takes_the_arm_that_can_receive() {
    both!(
        Spec::new(
            "select",
            par([
                seq([msg("Job", "boss", "hand").star(), close("boss", "hand")]),
                seq([msg("Stop", "clock", "hand"), close("clock", "hand")]),
            ]),
        ),
        selects
    );
}

/// A deadlock is an error for every blocked role; a failed send hands the
/// value back and names the deadlock.
fn deadlocks<E: BlockingEndpoint + 'static>(ends: AllEnds<E>) {
    let [boss, hand]: [Ends<E>; 2] = ends.try_into().unwrap();
    // Both wait to receive first: the spec wants the boss to send.
    let t = std::thread::spawn(move || hand.receiver::<Job>("boss").unwrap().recv());
    let done = boss.receiver::<Done>("hand").unwrap();
    let e = done.recv().unwrap_err();
    let d = e.deadlock().expect("a deadlock").to_string();
    assert!(d.contains("boss waits to receive from hand"), "{d}");
    assert!(t.join().unwrap().unwrap_err().deadlock().is_some());
    // The session is poisoned: a send fails with the value back.
    let e = boss
        .sender::<Job>("hand")
        .unwrap()
        .send(Job(4))
        .unwrap_err();
    assert!(e.error.deadlock().is_some(), "{e}");
    assert_eq!(e.into_inner(), Job(4));
}

#[test]
fn a_deadlock_is_an_error_with_the_value_back() {
    both!(
        Spec::new(
            "pair",
            seq([msg("Job", "boss", "hand"), msg("Done", "hand", "boss")])
        ),
        deadlocks
    );
}

/// A payload that counts its clones (message type `Job`).
#[derive(Debug)]
struct Counted(std::sync::Arc<std::sync::atomic::AtomicUsize>);

impl Clone for Counted {
    fn clone(&self) -> Self {
        self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Counted(std::sync::Arc::clone(&self.0))
    }
}

/// A send done at once moves the value into the session, and a failed one
/// hands back the value it was given: no clone either way.
fn sends_without_a_clone<E: BlockingEndpoint + 'static>(ends: AllEnds<E>) {
    let [boss, hand]: [Ends<E>; 2] = ends.try_into().unwrap();
    let clones = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let jobs = boss.sender::<Counted>("hand").unwrap();
    jobs.send(Counted(std::sync::Arc::clone(&clones))).unwrap();
    let got = hand.receiver::<Counted>("boss").unwrap().recv().unwrap();
    assert!(std::sync::Arc::ptr_eq(&got.0, &clones));
    jobs.clone().close().unwrap();
    let e = jobs.send(got).unwrap_err();
    assert!(e.error.is_closed(), "{e}");
    assert!(std::sync::Arc::ptr_eq(&e.into_inner().0, &clones));
    assert_eq!(clones.load(std::sync::atomic::Ordering::SeqCst), 0);
}

#[test]
fn a_send_moves_its_value_and_a_failed_one_hands_it_back_uncloned() {
    let spec = Spec::new(
        "counted",
        seq([msg("Counted", "boss", "hand").star(), close("boss", "hand")]),
    );
    both!(spec, sends_without_a_clone);
}

/// A role function written once, over both sessions, with a reply.
fn round_trips<E: BlockingEndpoint + 'static>(ends: AllEnds<E>) {
    let [boss, hand]: [Ends<E>; 2] = ends.try_into().unwrap();
    let t = std::thread::spawn(move || {
        let (jobs, done) = (
            hand.receiver::<Job>("boss").unwrap(),
            hand.sender::<Done>("boss").unwrap(),
        );
        for Job(j) in jobs.iter() {
            done.send(Done(u64::from(j) * 2)).unwrap();
        }
    });
    let (jobs, done) = (
        boss.sender::<Job>("hand").unwrap(),
        boss.receiver::<Done>("hand").unwrap(),
    );
    let mut sum = 0;
    for i in 1..=10 {
        jobs.send(Job(i)).unwrap();
        sum += done.recv().unwrap().0;
    }
    drop(jobs);
    t.join().unwrap();
    assert_eq!(sum, 110);
}

#[test]
fn a_worker_loop_runs_on_both_sessions() {
    both!(
        Spec::new(
            "squares",
            seq([
                seq([msg("Job", "boss", "hand"), msg("Done", "hand", "boss")]).star(),
                close("boss", "hand"),
            ]),
        ),
        round_trips
    );
}

/// An object that does not say what its channels carry (the strict object
/// built on the fly): any type may be asked for (no check at creation),
/// receivers look at the type first, and a dropped sender closes nothing.
#[test]
fn an_object_that_does_not_list_its_channels_still_works() {
    let spec = Spec::new(
        "mixed",
        seq([
            msg("Job", "boss", "hand"),
            msg("Stop", "boss", "hand"),
            close("boss", "hand"),
        ]),
    );
    let object = protocols::Strict::on_the_fly(&spec).unwrap();
    let [boss, hand] = protocols::session::Session::new(object)
        .into_endpoints()
        .try_into()
        .unwrap();
    let (boss, hand) = (Ends::new(boss), Ends::new(hand));
    assert!(
        hand.receiver::<Done>("boss").is_ok(),
        "not known: not refused"
    );
    let stops = hand.receiver::<Stop>("boss").unwrap();
    let jobs = hand.receiver::<Job>("boss").unwrap();
    boss.sender::<Job>("hand").unwrap().send(Job(1)).unwrap();
    assert_eq!(stops.try_recv(), Err(TryRecvError::Empty));
    assert_eq!(jobs.recv(), Ok(Job(1)));
    let tx = boss.sender::<Stop>("hand").unwrap();
    tx.send(Stop).unwrap();
    drop(tx); // the object does not say it closes: nothing closed
    assert_eq!(stops.recv(), Ok(Stop));
    assert_eq!(stops.try_recv(), Err(TryRecvError::Empty));
}
