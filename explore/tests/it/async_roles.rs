//! `Roles::spawn_async`: async role bodies on the exploration's own
//! executor explore to the same outcomes, schedules and results as the
//! same programs written as threads; a planted bug is found and replays;
//! a task awaiting anything but a session operation is reported stuck.

use std::future::{pending, poll_fn};
use std::task::Poll;

use prust::explore::{explore, Explorer, Outcome, Reduction, Roles, Schedule};
use prust::protocols;
use prust::session::{BlockingEndpoint, Error};
use prust::Strict;

use testkit::aio;
use testkit::two_buyer::{self, Decision, R};

fn two_buyer_threads(r: &mut Roles<'_, Strict>, buggy: bool) {
    r.spawn("buyer1", |ep| two_buyer::buyer1(ep).unwrap());
    r.spawn("buyer2", move |ep| {
        if buggy {
            two_buyer::buyer2_first_come(ep).unwrap()
        } else {
            two_buyer::buyer2(ep).unwrap()
        }
    });
    r.spawn("seller", |ep| two_buyer::seller(ep).unwrap());
}

fn two_buyer_async(r: &mut Roles<'_, Strict>, buggy: bool) {
    r.spawn_async("buyer1", |ep| async {
        two_buyer::buyer1_async(ep).await.unwrap()
    });
    r.spawn_async("buyer2", move |ep| async move {
        if buggy {
            two_buyer::buyer2_first_come_async(ep).await.unwrap()
        } else {
            two_buyer::buyer2_async(ep).await.unwrap()
        }
    });
    r.spawn_async("seller", |ep| async {
        two_buyer::seller_async(ep).await.unwrap()
    });
}

/// What an exploration found, comparable across thread and async runs
/// (a panic's place is the thread's or the task's own line).
pub(crate) fn found(ex: &prust::explore::Exploration) -> Vec<(String, String)> {
    ex.failures()
        .iter()
        .map(|f| (outcome(&f.outcome), f.schedule.to_string()))
        .collect()
}

/// An outcome as text, without a panic's place.
pub(crate) fn outcome(o: &Outcome) -> String {
    match o {
        Outcome::Panicked { role, message, .. } => format!("{role} panicked: {message}"),
        o => o.to_string(),
    }
}

#[test]
fn async_two_buyer_explores_as_the_threads_do() {
    for buggy in [false, true] {
        for reduction in [Reduction::None, Reduction::Dpor] {
            let ex = |r: &(dyn Fn(&mut Roles<'_, Strict>) + Sync)| {
                Explorer::new()
                    .preemption_bound(None)
                    .reduction(reduction)
                    .explore(protocols::two_buyer::strict(), r)
            };
            let threads = ex(&|r| two_buyer_threads(r, buggy));
            let tasks = ex(&|r| two_buyer_async(r, buggy));
            assert!(tasks.is_complete(), "{tasks}");
            assert_eq!(tasks.is_successful(), !buggy, "{tasks}");
            assert_eq!(found(&threads), found(&tasks), "{threads}\n{tasks}");
            assert_eq!(threads.executions(), tasks.executions());
            assert_eq!(threads.final_states(), tasks.final_states());
        }
    }
}

#[test]
fn the_async_first_come_bug_is_found_printed_and_replays() {
    let ex = explore(protocols::two_buyer::strict(), |r| two_buyer_async(r, true));
    assert!(ex.is_complete() && !ex.is_successful(), "{ex}");
    let failure = &ex.failures()[0];
    let Outcome::Panicked { role, message, .. } = &failure.outcome else {
        panic!("expected a panic: {ex}");
    };
    assert_eq!(role, "buyer2");
    assert!(message.contains("the seller's quote"), "{message}");
    let text = ex.to_string();
    assert!(
        text.contains(&format!("PRUST_SCHEDULE=\"{}\"", failure.schedule)),
        "{text}"
    );
    let schedule: Schedule = failure.schedule.to_string().parse().unwrap();
    for _ in 0..20 {
        let again = Explorer::new()
            .replay(&schedule)
            .explore(protocols::two_buyer::strict(), |r| two_buyer_async(r, true));
        assert_eq!(again.executions(), 1);
        assert_eq!(again.failures(), ex.failures(), "{again}");
    }
}

#[derive(Clone, Debug)]
struct Move(u32);

type Ep = prust::explore::ExploreEndpoint<Strict>;

fn white_thread(mut ep: Ep, rounds: u32) -> u32 {
    for i in 0..rounds {
        ep.send("black", Move(i)).unwrap();
        let Move(j) = ep.recv_from("black").unwrap().downcast().unwrap();
        assert_eq!(j, i);
    }
    rounds
}

async fn white_task(mut ep: Ep, rounds: u32) -> u32 {
    for i in 0..rounds {
        aio::send(&mut ep, "black", Move(i)).await.unwrap();
        let Move(j) = aio::recv_from(&mut ep, "black")
            .await
            .unwrap()
            .downcast()
            .unwrap();
        assert_eq!(j, i);
    }
    rounds
}

fn black_thread(mut ep: Ep, rounds: u32) -> u32 {
    let mut sum = 0;
    for _ in 0..rounds {
        let Move(i) = ep.recv_from("white").unwrap().downcast().unwrap();
        sum += i;
        ep.send("white", Move(i)).unwrap();
    }
    sum
}

async fn black_task(mut ep: Ep, rounds: u32) -> u32 {
    let mut sum = 0;
    for _ in 0..rounds {
        let Move(i) = aio::recv_from(&mut ep, "white")
            .await
            .unwrap()
            .downcast()
            .unwrap();
        sum += i;
        aio::send(&mut ep, "white", Move(i)).await.unwrap();
    }
    sum
}

/// Chess for `rounds` rounds; each side a thread or a task.
fn chess(
    r: &mut Roles<'_, Strict>,
    rounds: u32,
    white_async: bool,
    black_async: bool,
) -> (prust::explore::Handle<u32>, prust::explore::Handle<u32>) {
    let w = match white_async {
        true => r.spawn_async("white", move |ep| white_task(ep, rounds)),
        false => r.spawn("white", move |ep| white_thread(ep, rounds)),
    };
    let b = match black_async {
        true => r.spawn_async("black", move |ep| black_task(ep, rounds)),
        false => r.spawn("black", move |ep| black_thread(ep, rounds)),
    };
    (w, b)
}

#[test]
fn chess_as_threads_tasks_or_both_gives_the_same_exploration_and_result() {
    let run = |w, b| {
        Explorer::new()
            .preemption_bound(None)
            .property(r#"G ("white SEND <Move> TO black" -> F "black RECV <Move> FROM white")"#)
            .explore(protocols::chess::strict(), move |r| chess(r, 4, w, b))
    };
    let threads = run(false, false);
    assert!(threads.is_successful(), "{threads}");
    for (w, b) in [(true, true), (true, false), (false, true)] {
        let ex = run(w, b);
        assert!(ex.is_complete() && ex.is_successful(), "{ex}");
        assert_eq!(ex.executions(), threads.executions());
        let values: Vec<_> = ex.results().iter().map(|r| r.value).collect();
        assert_eq!(values, vec![(4, 6)], "{ex}");
    }
}

/// A task that awaits something no session operation completes.
#[test]
fn a_task_awaiting_something_else_is_stuck_with_its_role_not_waited_for() {
    let ex = explore(protocols::chess::strict(), |r| {
        r.spawn_async("white", |mut ep: Ep| async move {
            aio::send(&mut ep, "black", Move(0)).await.unwrap();
            // A timer, I/O, a tokio::sync primitive: never woken here.
            pending::<()>().await;
        });
        r.spawn_async("black", |ep| black_task(ep, 1));
    });
    assert!(ex.is_complete(), "{ex}");
    let stuck: Vec<_> = ex
        .failures()
        .iter()
        .filter_map(|f| match &f.outcome {
            Outcome::Stuck { role, waited } => Some((role.clone(), *waited)),
            _ => None,
        })
        .collect();
    assert_eq!(
        stuck,
        vec![("white".to_string(), std::time::Duration::ZERO)],
        "{ex}"
    );
    assert!(
        ex.to_string()
            .contains("awaits something other than a session operation"),
        "{ex}"
    );
    // A future that wakes itself (a yield) is polled again, not stuck.
    let ex = explore(protocols::chess::strict(), |r| {
        r.spawn_async("white", |ep: Ep| async move {
            let mut yielded = false;
            poll_fn(|cx| {
                if std::mem::replace(&mut yielded, true) {
                    Poll::Ready(())
                } else {
                    cx.waker().wake_by_ref();
                    Poll::Pending
                }
            })
            .await;
            white_task(ep, 1).await
        });
        r.spawn_async("black", |ep| black_task(ep, 1));
    });
    assert!(ex.is_successful(), "{ex}");
}

#[test]
fn a_panic_in_an_async_body_is_a_panic_of_its_role() {
    let ex = explore(protocols::chess::strict(), |r| {
        r.spawn_async("white", |ep| white_task(ep, 1));
        r.spawn_async("black", |mut ep: Ep| async move {
            aio::recv_from(&mut ep, "white").await.unwrap();
            panic!("black resigns");
        });
    });
    let Outcome::Panicked {
        role,
        message,
        location,
    } = &ex.failures()[0].outcome
    else {
        panic!("{ex}");
    };
    assert_eq!(
        (role.as_str(), message.as_str()),
        ("black", "black resigns")
    );
    assert!(
        location
            .as_ref()
            .is_some_and(|l| l.contains("async_roles.rs")),
        "{location:?}"
    );
}

#[test]
fn blocking_in_a_task_or_awaiting_in_a_thread_is_an_error_not_a_hang() {
    let ex = explore(protocols::chess::strict(), |r| {
        r.spawn_async("white", |mut ep: Ep| async move {
            let e = ep.send("black", Move(0)).unwrap_err();
            assert!(matches!(e, Error::Unsupported { .. }), "{e:?}");
            assert!(e.to_string().contains("spawn_async"), "{e}");
            white_task(ep, 1).await
        });
        r.spawn("black", |mut ep: Ep| {
            let mut recv = prust::session::AsyncOp::recv_from(0);
            let waker = std::task::Waker::noop();
            let got = ep.poll_op(&mut std::task::Context::from_waker(waker), &mut recv);
            let Poll::Ready(Err(e)) = got else {
                panic!("{got:?}")
            };
            assert!(e.to_string().contains("spawn_async"), "{e}");
            black_thread(ep, 1)
        });
    });
    assert!(ex.is_successful(), "{ex}");
}

#[allow(dead_code)]
fn unused(_: Decision, _: R<()>) {}

/// A close called the blocking way in a task (as a dropped channel
/// sender does) is performed before what the task does next, a panic
/// included: the same trace as the thread's.
#[test]
fn a_close_before_a_panic_in_one_poll_is_performed_first() {
    use prust::spec::{close, msg, seq, Spec};
    let spec = Spec::new(
        "once",
        seq([msg("Move", "boss", "hand"), close("boss", "hand")]),
    );
    let object = Strict::new(spec.compile().unwrap());
    let run = |tasks: bool| {
        explore(object.clone(), move |r| {
            if tasks {
                r.spawn_async("boss", |mut ep| async move {
                    aio::send(&mut ep, "hand", Move(1)).await.unwrap();
                    ep.close("hand").unwrap();
                    panic!("boss gives up");
                });
            } else {
                r.spawn("boss", |mut ep| {
                    ep.send("hand", Move(1)).unwrap();
                    ep.close("hand").unwrap();
                    panic!("boss gives up");
                });
            }
            r.spawn("hand", |mut ep| {
                let _ = ep.recv_from("boss");
            });
        })
    };
    let (threads, tasks) = (run(false), run(true));
    assert_eq!(found(&threads), found(&tasks), "{threads}\n{tasks}");
    let trace = &tasks.failures()[0].trace;
    assert!(
        trace
            .iter()
            .any(|s| s.to_string() == "boss closes its channel to hand"),
        "{tasks}"
    );
}
