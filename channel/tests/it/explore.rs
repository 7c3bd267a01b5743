//! Typed programs under `prust::explore`: the same role functions, every
//! typed operation a scheduling point; explore finds the planted bugs and
//! passes their fixes.

use channel::{Ends, TryRecvError};
use protocols::session::BlockingEndpoint;
use protocols::spec::{close, msg, seq, Spec};
use protocols::{Liberal, Strict};
use prust_explore::{explore, Outcome};

use crate::{Done, Job};

/// Jobs until the boss closes, then the hand's count.
fn jobs_then_count() -> Spec {
    Spec::new(
        "count",
        seq([
            msg("Job", "boss", "hand").star(),
            close("boss", "hand"),
            msg("Done", "hand", "boss"),
        ]),
    )
}

fn hand<E: BlockingEndpoint + 'static>(ends: Ends<E>) {
    let jobs = ends.receiver::<Job>("boss").unwrap();
    let done = ends.sender::<Done>("boss").unwrap();
    let n = jobs.iter().count();
    let _ = done.send(Done(n as u64));
}

/// The planted bug: the boss waits for the count while its job sender is
/// still alive, so the hand's loop never sees the close.
fn boss_waits_holding_the_sender<E: BlockingEndpoint + 'static>(ends: Ends<E>) {
    let jobs = ends.sender::<Job>("hand").unwrap();
    let done = ends.receiver::<Done>("hand").unwrap();
    for i in 0..2 {
        let _ = jobs.send(Job(i));
    }
    let _ = done.recv();
    drop(jobs);
}

/// The fix: drop the last sender (which closes) before waiting.
fn boss_closes_then_waits<E: BlockingEndpoint + 'static>(ends: Ends<E>) {
    let jobs = ends.sender::<Job>("hand").unwrap();
    let done = ends.receiver::<Done>("hand").unwrap();
    for i in 0..2 {
        jobs.send(Job(i)).unwrap();
    }
    drop(jobs);
    assert_eq!(done.recv(), Ok(Done(2)));
}

#[test]
fn explore_finds_a_missing_close_and_passes_the_fix() {
    for object in [
        protocols::Object::from(Strict::new(jobs_then_count().compile().unwrap())),
        protocols::Object::from(Liberal::new(jobs_then_count().compile().unwrap())),
    ] {
        let bug = explore(object.clone(), |r| {
            r.spawn("boss", |ep| boss_waits_holding_the_sender(Ends::new(ep)));
            r.spawn("hand", |ep| hand(Ends::new(ep)));
        });
        assert!(!bug.is_successful());
        let Outcome::Deadlock { deadlock } = &bug.failures()[0].outcome else {
            panic!("{:?}", bug.failures()[0].outcome);
        };
        let text = deadlock.to_string();
        assert!(text.contains("boss waits to receive from hand"), "{text}");
        assert!(text.contains("hand waits to receive from boss"), "{text}");

        let fixed = explore(object, |r| {
            r.spawn("boss", |ep| boss_closes_then_waits(Ends::new(ep)));
            r.spawn("hand", |ep| hand(Ends::new(ep)));
        });
        assert!(fixed.is_successful(), "{:?}", fixed.failures());
        assert!(fixed.is_complete());
    }
}

/// Two workers report in the specification's order; the planted bug
/// collects them the other way round.
#[test]
fn explore_finds_a_wrong_order_and_passes_the_fix() {
    let spec = Spec::new(
        "two",
        seq([
            msg("Job", "boss", "w1"),
            msg("Job", "boss", "w2"),
            msg("Done", "w1", "boss"),
            msg("Done", "w2", "boss"),
        ]),
    );
    fn worker<E: BlockingEndpoint + 'static>(ends: Ends<E>) {
        if let Ok(Job(j)) = ends.receiver::<Job>("boss").unwrap().recv() {
            let _ = ends.sender::<Done>("boss").unwrap().send(Done(j.into()));
        }
    }
    fn boss<E: BlockingEndpoint + 'static>(ends: Ends<E>, order: [&str; 2]) -> u64 {
        for (i, w) in ["w1", "w2"].into_iter().enumerate() {
            let _ = ends.sender::<Job>(w).unwrap().send(Job(i as u32 + 1));
        }
        let mut sum = 0;
        for w in order {
            sum += ends.receiver::<Done>(w).unwrap().recv().map_or(0, |d| d.0);
        }
        sum
    }
    for object in [
        protocols::Object::from(Strict::new(spec.compile().unwrap())),
        protocols::Object::from(Liberal::new(spec.compile().unwrap())),
    ] {
        let run = |order: [&'static str; 2]| {
            explore(object.clone(), move |r| {
                r.spawn("boss", move |ep| assert_eq!(boss(Ends::new(ep), order), 3));
                r.spawn("w1", |ep| worker(Ends::new(ep)));
                r.spawn("w2", |ep| worker(Ends::new(ep)));
            })
        };
        let bug = run(["w2", "w1"]);
        assert!(!bug.is_successful());
        assert!(
            bug.failures()
                .iter()
                .all(|f| matches!(f.outcome, Outcome::Deadlock { .. })),
            "{:?}",
            bug.failures()
        );
        let fixed = run(["w1", "w2"]);
        assert!(
            fixed.is_successful() && fixed.is_complete(),
            "{:?}",
            fixed.failures()
        );
    }
}

/// Polling has no meaning under exploration: `try_recv` says so at once.
#[test]
fn try_recv_under_explore_is_an_error_not_a_hang() {
    let spec = Spec::new("one", msg("Job", "boss", "hand"));
    let ex = explore(Strict::new(spec.compile().unwrap()), |r| {
        r.spawn("boss", |ep| {
            let _ = Ends::new(ep).sender::<Job>("hand").unwrap().send(Job(1));
        });
        r.spawn("hand", |ep| {
            let jobs = Ends::new(ep).receiver::<Job>("boss").unwrap();
            match jobs.try_recv() {
                Err(TryRecvError::Failed(e)) => {
                    assert!(
                        e.to_string().contains("cannot receive without waiting"),
                        "{e}"
                    )
                }
                other => panic!("{other:?}"),
            }
            assert_eq!(jobs.recv(), Ok(Job(1)));
        });
    });
    assert!(ex.is_successful(), "{:?}", ex.failures());
}
