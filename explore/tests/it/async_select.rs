//! A task awaiting several `recv_async`s at once (a `select!`) under
//! `spawn_async`: one pending choice of its role, each receive a
//! scheduling point; the loser did nothing (its message is received
//! later); the order in which the task polls the receives does not
//! matter; a receive whose channel ended wins at once, as on a real
//! session.

use std::future::{poll_fn, Future};
use std::pin::pin;
use std::task::Poll;

use prust::channel::{Ends, RecvError};
use prust::explore::{Exploration, Explorer, Handle, Reduction, Roles, Status};
use prust::spec::{close, msg, par, seq, Spec};
use prust::Strict;

#[derive(Clone, Debug, PartialEq)]
struct Job(u32);
#[derive(Clone, Debug, PartialEq)]
struct Stop;

/// The first of `a` and `b` to be ready, polling `a` first unless `flip`
/// (tokio's `select!` picks the order at random): `Ok` for `a`'s output.
async fn select2<A: Future, B: Future>(a: A, b: B, flip: bool) -> Result<A::Output, B::Output> {
    let (mut a, mut b) = (pin!(a), pin!(b));
    poll_fn(|cx| {
        if flip {
            if let Poll::Ready(y) = b.as_mut().poll(cx) {
                return Poll::Ready(Err(y));
            }
        }
        if let Poll::Ready(x) = a.as_mut().poll(cx) {
            return Poll::Ready(Ok(x));
        }
        if let Poll::Ready(y) = b.as_mut().poll(cx) {
            return Poll::Ready(Err(y));
        }
        Poll::Pending
    })
    .await
}

/// boss sends a job and clock a stop, in parallel, to hand.
fn object() -> Strict {
    let spec = Spec::new(
        "two",
        par([msg("Job", "boss", "hand"), msg("Stop", "clock", "hand")]),
    );
    Strict::new(spec.compile().unwrap())
}

/// hand selects between the job and the stop, then takes the other one:
/// returns which came first, and both.
fn explore_select(flip: bool, reduction: Reduction) -> Exploration<(&'static str, u32)> {
    Explorer::new()
        .preemption_bound(None)
        .reduction(reduction)
        .explore(object(), program(flip))
}

type First = (&'static str, u32);

fn program(flip: bool) -> impl Fn(&mut Roles<'_, Strict>) -> Handle<First> + Sync {
    move |r| {
        r.spawn_async("boss", |ep| async move {
            Ends::new(ep)
                .sender::<Job>("hand")
                .unwrap()
                .send_async(Job(7))
                .await
                .unwrap()
        });
        r.spawn_async("clock", |ep| async move {
            Ends::new(ep)
                .sender::<Stop>("hand")
                .unwrap()
                .send_async(Stop)
                .await
                .unwrap()
        });
        r.spawn_async("hand", move |ep| async move {
            let hand = Ends::new(ep);
            let (jobs, stop) = (
                hand.receiver::<Job>("boss").unwrap(),
                hand.receiver::<Stop>("clock").unwrap(),
            );
            match select2(jobs.recv_async(), stop.recv_async(), flip).await {
                Ok(job) => {
                    let Job(j) = job.unwrap();
                    assert_eq!(stop.recv_async().await, Ok(Stop));
                    ("job first", j)
                }
                Err(s) => {
                    assert_eq!(s, Ok(Stop));
                    // The losing receive took nothing: the job is still there.
                    let Job(j) = jobs.recv_async().await.unwrap();
                    ("stop first", j)
                }
            }
        })
    }
}

#[test]
fn a_select_over_two_receives_branches_over_both_and_loses_nothing() {
    for reduction in [Reduction::None, Reduction::Dpor] {
        let ex = explore_select(false, reduction);
        assert!(ex.is_complete() && ex.is_successful(), "{ex}");
        let mut values: Vec<_> = ex.results().iter().map(|r| r.value).collect();
        values.sort();
        assert_eq!(values, vec![("job first", 7), ("stop first", 7)], "{ex}");
        // Each result replays to itself from its schedule.
        for r in ex.results() {
            let again = Explorer::new()
                .replay(&r.schedule)
                .explore(object(), program(false));
            assert_eq!(again.results()[0].value, r.value, "{again}");
        }
    }
}

#[test]
fn the_order_in_which_the_task_polls_its_receives_does_not_matter() {
    for reduction in [Reduction::None, Reduction::Dpor] {
        let a = explore_select(false, reduction);
        let b = explore_select(true, reduction);
        assert_eq!(a.executions(), b.executions(), "{a}\n{b}");
        let key = |ex: &Exploration<First>| {
            let mut v: Vec<_> = ex
                .results()
                .iter()
                .map(|r| (r.value, r.schedule.to_string()))
                .collect();
            v.sort();
            v
        };
        assert_eq!(key(&a), key(&b), "{a}\n{b}");
    }
}

/// hand takes jobs until boss closes, then tells clock, which only then
/// sends the stop: a receive whose channel ended is ready at once with
/// `Closed` (as on a real session), whatever the other receive of the
/// select waits for; were it not, hand would wait for a stop that never
/// comes.
#[test]
fn a_receive_whose_channel_closed_wins_the_select_at_once() {
    let spec = Spec::new(
        "closing",
        seq([
            msg("Job", "boss", "hand"),
            close("boss", "hand"),
            msg("Done", "hand", "clock"),
            msg("Stop", "clock", "hand"),
        ]),
    );
    #[derive(Clone, Debug)]
    struct Done;
    let object = Strict::new(spec.compile().unwrap());
    let ex = Explorer::new().preemption_bound(None).explore(object, |r| {
        r.spawn_async("boss", |ep| async move {
            let jobs = Ends::new(ep).sender::<Job>("hand").unwrap();
            jobs.send_async(Job(1)).await.unwrap();
            // Dropping the last sender closes the channel (a blocking
            // close, performed as boss's next step).
        });
        r.spawn_async("clock", |ep| async move {
            let clock = Ends::new(ep);
            clock
                .receiver::<Done>("hand")
                .unwrap()
                .recv_async()
                .await
                .unwrap();
            clock
                .sender::<Stop>("hand")
                .unwrap()
                .send_async(Stop)
                .await
                .unwrap()
        });
        r.spawn_async("hand", |ep| async move {
            let hand = Ends::new(ep);
            let jobs = hand.receiver::<Job>("boss").unwrap();
            let stop = hand.receiver::<Stop>("clock").unwrap();
            let mut seen = Vec::new();
            loop {
                match select2(jobs.recv_async(), stop.recv_async(), false).await {
                    Ok(Ok(Job(j))) => seen.push(j),
                    Ok(Err(RecvError::Closed)) => break,
                    other => panic!("{other:?}"),
                }
            }
            hand.sender::<Done>("clock")
                .unwrap()
                .send_async(Done)
                .await
                .unwrap();
            assert_eq!(stop.recv_async().await, Ok(Stop));
            seen
        })
    });
    assert!(ex.is_complete() && ex.is_successful(), "{ex}");
    assert!(ex.always(|seen| seen == &vec![1]).holds(), "{ex}");
}

/// boss closes at once (its last sender dropped), clock sends a stop, and
/// hand selects over both: the stop comes first if hand's select runs
/// before the close, the close first otherwise (a receive whose channel
/// ended wins at once). The close and hand's receive from clock are on
/// different channels and commute on the object, but not for the task:
/// a reduction that took them for independent ran one order only, lost
/// the result `["stop", "closed"]`, and said `always_same` holds.
#[test]
fn a_close_racing_a_select_gives_both_results_in_every_reduction() {
    let spec = Spec::new(
        "race",
        par([
            seq([msg("Job", "boss", "hand").star(), close("boss", "hand")]),
            msg("Stop", "clock", "hand"),
        ]),
    );
    let object = Strict::new(spec.compile().unwrap());
    let program = |r: &mut Roles<'_, Strict>| {
        r.spawn("boss", |ep| {
            drop(Ends::new(ep).sender::<Job>("hand").unwrap())
        });
        r.spawn_async("clock", |ep| async move {
            let stop = Ends::new(ep).sender::<Stop>("hand").unwrap();
            stop.send_async(Stop).await.unwrap()
        });
        r.spawn_async("hand", |ep| async move {
            let hand = Ends::new(ep);
            let jobs = hand.receiver::<Job>("boss").unwrap();
            let stop = hand.receiver::<Stop>("clock").unwrap();
            match select2(jobs.recv_async(), stop.recv_async(), false).await {
                Ok(closed) => {
                    assert_eq!(closed, Err(RecvError::Closed));
                    assert_eq!(stop.recv_async().await, Ok(Stop));
                    ["closed", "stop"]
                }
                Err(s) => {
                    assert_eq!(s, Ok(Stop));
                    assert_eq!(jobs.recv_async().await, Err(RecvError::Closed));
                    ["stop", "closed"]
                }
            }
        })
    };
    let values = |ex: &Exploration<[&'static str; 2]>| {
        let mut v: Vec<_> = ex.results().iter().map(|r| r.value).collect();
        v.sort();
        v
    };
    for reduction in [Reduction::None, Reduction::SleepSets, Reduction::Dpor] {
        let ex = Explorer::new()
            .preemption_bound(None)
            .reduction(reduction)
            .explore(object.clone(), program);
        assert!(ex.is_successful(), "{reduction}: {ex}");
        assert_eq!(
            values(&ex),
            [["closed", "stop"], ["stop", "closed"]],
            "{reduction}: {ex}"
        );
        assert_eq!(ex.always_same().status, Status::Fails, "{reduction}");
    }
}
