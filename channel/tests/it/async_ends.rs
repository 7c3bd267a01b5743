//! `send_async` / `recv_async` on real sessions inside tokio: round trips
//! in spawned tasks, `tokio::select!` over several receives, what a
//! cancelled future did (nothing), deadlocks between tasks reported, a role
//! async against a role on a blocking thread, and the clear errors of
//! mixing an async and a blocking use of one role.

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use channel::{Ends, Error, RecvError, TryRecvError};
use protocols::session::{self, BlockingEndpoint};
use protocols::spec::{close, msg, par, seq, Spec};

use crate::{both, Done, Job, Stop};

/// A generous bound that only catches a hang (each test runs in
/// milliseconds).
const HANG: Duration = Duration::from_secs(20);

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_time()
        .build()
        .unwrap()
}

/// Polls `f` once with a waker that does nothing.
fn poll_once<F: Future>(f: std::pin::Pin<&mut F>) -> Poll<F::Output> {
    f.poll(&mut Context::from_waker(Waker::noop()))
}

/// Jobs and answers alternate until the boss closes the job channel.
fn squares() -> Spec {
    Spec::new(
        "squares",
        seq([
            seq([msg("Job", "boss", "worker"), msg("Done", "worker", "boss")]).star(),
            close("boss", "worker"),
        ]),
    )
}

const ROUNDS: u32 = 200;

fn round_trip_in_tasks<E: BlockingEndpoint + 'static>(ends: Vec<Ends<E>>) {
    let [boss, worker]: [Ends<E>; 2] = ends.try_into().unwrap();
    let rt = runtime();
    let worker = rt.spawn(async move {
        let jobs = worker.receiver::<Job>("boss").unwrap();
        let done = worker.sender::<Done>("boss").unwrap();
        let mut n = 0;
        loop {
            match jobs.recv_async().await {
                Ok(Job(j)) => done.send_async(Done(u64::from(j) * 2)).await.unwrap(),
                Err(RecvError::Closed) => return n,
                Err(e) => panic!("{e}"),
            }
            n += 1;
        }
    });
    let boss = rt.spawn(async move {
        let jobs = boss.sender::<Job>("worker").unwrap();
        let done = boss.receiver::<Done>("worker").unwrap();
        let mut sum = 0;
        for i in 0..ROUNDS {
            jobs.send_async(Job(i)).await.unwrap();
            sum += done.recv_async().await.unwrap().0;
        }
        jobs.close().unwrap();
        sum
    });
    rt.block_on(async {
        let both = async { (boss.await.unwrap(), worker.await.unwrap()) };
        let (sum, n) = tokio::time::timeout(HANG, both).await.expect("no hang");
        assert_eq!(sum, u64::from(ROUNDS * (ROUNDS - 1)));
        assert_eq!(n, ROUNDS);
    });
}

#[test]
fn round_trips_in_spawned_tasks() {
    both!(squares(), round_trip_in_tasks);
}

/// Three senders, one receiver that takes whichever comes first.
fn three_senders() -> Spec {
    Spec::new(
        "three",
        par([
            msg("Job", "a", "r"),
            msg("Stop", "b", "r"),
            msg("Done", "c", "r"),
        ]),
    )
    .roles(["a", "b", "c", "r"])
}

fn select_over_three<E: BlockingEndpoint + 'static>(ends: Vec<Ends<E>>) {
    let [a, b, c, r]: [Ends<E>; 4] = ends.try_into().unwrap();
    let rt = runtime();
    let taker = rt.spawn(async move {
        let (jobs, stops, dones) = (
            r.receiver::<Job>("a").unwrap(),
            r.receiver::<Stop>("b").unwrap(),
            r.receiver::<Done>("c").unwrap(),
        );
        let mut got = Vec::new();
        let (mut job, mut stop, mut done) = (false, false, false);
        while got.len() < 3 {
            tokio::select! {
                j = jobs.recv_async(), if !job => { job = true; got.push(format!("{:?}", j.unwrap())) }
                s = stops.recv_async(), if !stop => { stop = true; got.push(format!("{:?}", s.unwrap())) }
                d = dones.recv_async(), if !done => { done = true; got.push(format!("{:?}", d.unwrap())) }
            }
        }
        got.sort();
        got
    });
    // The senders come after the taker is (probably) waiting on all three.
    let senders = rt.spawn(async move {
        c.sender::<Done>("r")
            .unwrap()
            .send_async(Done(3))
            .await
            .unwrap();
        a.sender::<Job>("r")
            .unwrap()
            .send_async(Job(1))
            .await
            .unwrap();
        b.sender::<Stop>("r")
            .unwrap()
            .send_async(Stop)
            .await
            .unwrap();
    });
    rt.block_on(async {
        let got = tokio::time::timeout(HANG, taker)
            .await
            .expect("no hang")
            .unwrap();
        assert_eq!(got, ["Done(3)", "Job(1)", "Stop"]);
        senders.await.unwrap();
    });
}

#[test]
fn select_over_three_receives_in_one_task() {
    both!(three_senders(), select_over_three);
}

fn ping_pong() -> Spec {
    Spec::new("ping", seq([msg("Job", "a", "b"), msg("Done", "b", "a")]))
}

/// A receive that was pending when its message arrived, then dropped,
/// took nothing: the message is received later.
fn cancelled_recv<E: BlockingEndpoint + 'static>(ends: Vec<Ends<E>>) {
    let [a, b]: [Ends<E>; 2] = ends.try_into().unwrap();
    let jobs = b.receiver::<Job>("a").unwrap();
    {
        let mut fut = pin!(jobs.recv_async());
        assert!(poll_once(fut.as_mut()).is_pending());
        // Arrives while the receive is registered (and wakes it) ...
        a.sender::<Job>("b").unwrap().send(Job(5)).unwrap();
    } // ... which is dropped before it is polled again.
    assert_eq!(jobs.try_recv(), Ok(Job(5)));
    b.sender::<Done>("a").unwrap().send(Done(1)).unwrap();
    assert_eq!(a.receiver::<Done>("b").unwrap().recv(), Ok(Done(1)));
}

#[test]
fn a_cancelled_receive_takes_nothing() {
    both!(ping_pong(), cancelled_recv);
}

/// `tokio::select!`'s losing branch was a receive: the message is still
/// there for the next receive.
fn select_loser_keeps_message<E: BlockingEndpoint + 'static>(ends: Vec<Ends<E>>) {
    let [a, b]: [Ends<E>; 2] = ends.try_into().unwrap();
    let rt = runtime();
    rt.block_on(async move {
        let jobs = b.receiver::<Job>("a").unwrap();
        let sender = a.sender::<Job>("b").unwrap();
        let mut sent = false;
        tokio::select! {
            biased;
            _ = jobs.recv_async() => panic!("nothing was sent yet"),
            // Polled after the receive registered: sends, and wins.
            r = async { sent = true; sender.send_async(Job(9)).await } => r.unwrap(),
        }
        assert!(sent);
        assert_eq!(jobs.recv_async().await, Ok(Job(9)));
        b.sender::<Done>("a")
            .unwrap()
            .send_async(Done(0))
            .await
            .unwrap();
        assert_eq!(
            a.receiver::<Done>("b").unwrap().recv_async().await,
            Ok(Done(0))
        );
    });
}

#[test]
fn a_select_whose_loser_was_a_receive_loses_no_message() {
    both!(ping_pong(), select_loser_keeps_message);
}

/// A send that the protocol did not allow yet, dropped while pending, sent
/// nothing.
fn cancelled_send<E: BlockingEndpoint + 'static>(ends: Vec<Ends<E>>) {
    let [a, b]: [Ends<E>; 2] = ends.try_into().unwrap();
    let dones = b.sender::<Done>("a").unwrap();
    let answers = a.receiver::<Done>("b").unwrap();
    {
        // b may answer only after it has the job.
        let mut fut = pin!(dones.send_async(Done(1)));
        assert!(poll_once(fut.as_mut()).is_pending());
    }
    a.sender::<Job>("b").unwrap().send(Job(1)).unwrap();
    assert_eq!(b.receiver::<Job>("a").unwrap().recv(), Ok(Job(1)));
    assert_eq!(answers.try_recv(), Err(TryRecvError::Empty));
    dones.send(Done(2)).unwrap();
    assert_eq!(answers.recv(), Ok(Done(2)));
}

#[test]
fn a_cancelled_send_sends_nothing() {
    both!(ping_pong(), cancelled_send);
}

/// Both tasks wait to receive first: a deadlock, reported to both.
fn async_deadlock<E: BlockingEndpoint + 'static>(ends: Vec<Ends<E>>) {
    let [a, b]: [Ends<E>; 2] = ends.try_into().unwrap();
    let rt = runtime();
    let ta = rt.spawn(async move { a.receiver::<Done>("b").unwrap().recv_async().await });
    let tb = rt.spawn(async move { b.receiver::<Job>("a").unwrap().recv_async().await });
    rt.block_on(async {
        let both = async { (ta.await.unwrap(), tb.await.unwrap()) };
        let (ra, rb) = tokio::time::timeout(HANG, both)
            .await
            .expect("a deadlock, not a hang");
        for r in [ra.map(|_| ()), rb.map(|_| ())] {
            let e = r.unwrap_err();
            let d = e.deadlock().unwrap_or_else(|| panic!("{e}"));
            let text = d.to_string();
            assert!(text.contains("a waits to receive from b"), "{text}");
            assert!(text.contains("b waits to receive from a"), "{text}");
        }
    });
}

#[test]
fn a_deadlock_between_two_tasks_is_reported() {
    both!(ping_pong(), async_deadlock);
}

/// One task waits on two receives at once whose senders never send: a
/// deadlock (the role waits on both), not a hang.
fn select_deadlock<E: BlockingEndpoint + 'static>(ends: Vec<Ends<E>>) {
    let [a, b, c, r]: [Ends<E>; 4] = ends.try_into().unwrap();
    drop((a, b));
    let rt = runtime();
    let done = c.sender::<Done>("r").unwrap();
    let taker = rt.spawn(async move {
        let (jobs, stops) = (
            r.receiver::<Job>("a").unwrap(),
            r.receiver::<Stop>("b").unwrap(),
        );
        tokio::select! {
            j = jobs.recv_async() => j.map(|_| ()),
            s = stops.recv_async() => s.map(|_| ()),
        }
    });
    rt.block_on(async move {
        drop((done, c)); // c leaves without sending: nobody can send to r
        let got = tokio::time::timeout(HANG, taker)
            .await
            .expect("no hang")
            .unwrap();
        let e = got.unwrap_err();
        let d = e.deadlock().unwrap_or_else(|| panic!("{e}"));
        // The report says what the role waits on, read off its pending
        // receives: both, or (on the liberal session, if the last sender
        // left between the task's two first polls) the one registered
        // then, which already made the role wait.
        let text = d.to_string();
        let both = text.contains("r waits to receive the first of: receive from a, receive from b")
            || text.contains("r waits to receive the first of: receive from b, receive from a");
        let one = text.contains("r waits to receive from a\n")
            || text.contains("r waits to receive from b\n");
        assert!(both || one, "{text}");
    });
}

#[test]
fn a_task_waiting_on_two_receives_is_part_of_a_deadlock() {
    both!(three_senders(), select_deadlock);
}

/// The boss is an async task, the worker a blocking thread.
fn mixed<E: BlockingEndpoint + 'static>(ends: Vec<Ends<E>>) {
    let [boss, worker]: [Ends<E>; 2] = ends.try_into().unwrap();
    let thread = std::thread::spawn(move || {
        let jobs = worker.receiver::<Job>("boss").unwrap();
        let done = worker.sender::<Done>("boss").unwrap();
        jobs.iter()
            .map(|Job(j)| done.send(Done(j.into())).unwrap())
            .count()
    });
    let rt = runtime();
    let sum = rt.block_on(async move {
        let jobs = boss.sender::<Job>("worker").unwrap();
        let done = boss.receiver::<Done>("worker").unwrap();
        let mut sum = 0;
        for i in 0..ROUNDS {
            jobs.send_async(Job(i)).await.unwrap();
            sum += done.recv_async().await.unwrap().0;
        }
        jobs.close().unwrap();
        sum
    });
    assert_eq!(sum, u64::from(ROUNDS * (ROUNDS - 1) / 2));
    assert_eq!(thread.join().unwrap(), ROUNDS as usize);
}

#[test]
fn an_async_role_talks_to_a_blocking_thread() {
    both!(squares(), mixed);
}

/// A blocking call on a role whose future is pending fails at once; once
/// the future is dropped the role blocks as usual.
fn blocking_while_pending<E: BlockingEndpoint + 'static>(ends: Vec<Ends<E>>) {
    let [a, b]: [Ends<E>; 2] = ends.try_into().unwrap();
    let jobs = b.receiver::<Job>("a").unwrap();
    let mut fut = Box::pin(jobs.recv_async());
    assert!(poll_once(fut.as_mut()).is_pending());
    let e = jobs.recv().unwrap_err();
    assert!(
        matches!(e, RecvError::Failed(Error::Session(session::Error::AsyncPending(ref r))) if r == "b"),
        "{e:?}"
    );
    assert!(e.to_string().contains("async operation pending"), "{e}");
    drop(fut);
    a.sender::<Job>("b").unwrap().send(Job(3)).unwrap();
    assert_eq!(jobs.recv(), Ok(Job(3)));
}

#[test]
fn a_blocking_call_while_a_future_is_pending_is_an_error() {
    both!(ping_pong(), blocking_while_pending);
}

/// A poll of a role whose endpoint a blocking call holds on another thread
/// fails with `Busy`, instead of waiting for that thread.
fn async_while_blocked<E: BlockingEndpoint + 'static>(ends: Vec<Ends<E>>) {
    let [a, b]: [Ends<E>; 2] = ends.try_into().unwrap();
    let jobs = b.receiver::<Job>("a").unwrap();
    let theirs = b.receiver::<Job>("a").unwrap();
    let t = std::thread::spawn(move || {
        loop {
            // The main thread's look may hold the endpoint for a moment.
            match theirs.recv() {
                Err(RecvError::Failed(Error::Busy { .. })) => std::thread::yield_now(),
                got => return got,
            }
        }
    });
    let started = std::time::Instant::now();
    // Until the thread blocks in its receive (holding the endpoint).
    while jobs.try_recv() != Err(TryRecvError::Failed(Error::Busy { role: "b".into() })) {
        assert!(started.elapsed() < HANG, "the thread never blocked");
        std::thread::yield_now();
    }
    let mut fut = pin!(jobs.recv_async());
    match poll_once(fut.as_mut()) {
        Poll::Ready(Err(RecvError::Failed(Error::Busy { role }))) => assert_eq!(role, "b"),
        other => panic!("{other:?}"),
    }
    a.sender::<Job>("b").unwrap().send(Job(4)).unwrap();
    assert_eq!(t.join().unwrap(), Ok(Job(4)));
}

#[test]
fn an_async_call_while_a_thread_blocks_on_the_role_is_busy() {
    both!(ping_pong(), async_while_blocked);
}

/// Under `prust::explore` an async call in a thread role (spawned with
/// `Roles::spawn`, not `spawn_async`) says it is not supported, at once.
#[test]
fn async_under_explore_is_unsupported_not_a_hang() {
    let one = Spec::new("one", msg("Job", "a", "b"));
    let object = protocols::Object::from(protocols::Strict::new(one.compile().unwrap()));
    let run = prust_explore::explore(object, |r| {
        r.spawn("a", |ep| {
            let a = Ends::new(ep);
            let _ = a.sender::<Job>("b").unwrap().send(Job(1));
        });
        r.spawn("b", |ep| {
            let b = Ends::new(ep);
            let jobs = b.receiver::<Job>("a").unwrap();
            let mut fut = pin!(jobs.recv_async());
            let Poll::Ready(Err(RecvError::Failed(e))) = poll_once(fut.as_mut()) else {
                panic!("an async call under explore is ready at once with an error");
            };
            assert!(
                matches!(e, Error::Session(session::Error::Unsupported { .. })),
                "{e:?}"
            );
            assert!(
                e.to_string().contains(
                    "cannot await a session operation in a role spawned with Roles::spawn"
                ),
                "{e}"
            );
            assert_eq!(jobs.recv(), Ok(Job(1)));
        });
    });
    assert!(run.is_successful(), "{:?}", run.failures());
}
