//! Message enums (`#[derive(prust::Message)]`) on typed ends: each variant
//! is one protocol message type, a receiver of the enum takes all of them
//! and nothing else, and the checker names them as the ends do.

use channel::{select, Ends, Error, TryRecvError};
use engine::dummies;
use protocols::session::BlockingEndpoint;
use protocols::spec::{msg, par, seq, Spec};
use protocols::{Liberal, Strict};
use prust_explore::{Explorer, Outcome, Reduction};

use crate::{both, liberal_ends, Done};

/// The boss's commands: each variant one message type (`Job`, `Stop`,
/// `Resize`), fields of every shape.
#[derive(Clone, Debug, PartialEq, prust_derive::Message)]
#[message(crate = "engine")]
pub enum Cmd {
    Job(u32),
    Stop,
    Resize { width: u16 },
}

/// Jobs, then a stop.
fn jobs_then_stop() -> Spec {
    Spec::new(
        "jobs",
        seq([
            msg("Job", "boss", "worker").star(),
            msg("Resize", "boss", "worker").star(),
            msg("Stop", "boss", "worker"),
        ]),
    )
}

/// The worker's loop: every command until the stop, matched by variant.
fn worker<E: BlockingEndpoint + 'static>(ends: Ends<E>) -> Vec<Cmd> {
    let cmds = ends.receiver::<Cmd>("boss").unwrap();
    let mut got = Vec::new();
    loop {
        let cmd = cmds.recv().unwrap();
        got.push(cmd.clone());
        match cmd {
            Cmd::Job(_) | Cmd::Resize { .. } => {}
            Cmd::Stop => return got,
        }
    }
}

fn sends_and_takes_every_variant<E: BlockingEndpoint + 'static>(ends: Vec<Ends<E>>) {
    let [boss, hand]: [Ends<E>; 2] = ends.try_into().unwrap();
    let t = std::thread::spawn(move || worker(hand));
    let cmds = boss.sender::<Cmd>("worker").unwrap();
    let sent = [
        Cmd::Job(1),
        Cmd::Job(2),
        Cmd::Resize { width: 3 },
        Cmd::Stop,
    ];
    for c in sent.clone() {
        cmds.send(c).unwrap();
    }
    assert_eq!(t.join().unwrap(), sent);
    assert_eq!(
        format!("{cmds:?}"),
        r#"Sender<Cmd> { role: "boss", to: "worker" }"#
    );
}

/// A `Sender<Cmd>` sends each value as its variant's type (the protocol
/// accepts `Job`, `Resize`, `Stop` in its order), and one `Receiver<Cmd>`
/// takes them all, on a strict session and a liberal one.
#[test]
fn an_enum_sender_sends_each_variant_and_one_receiver_takes_them_all() {
    both!(jobs_then_stop(), sends_and_takes_every_variant);
}

/// A message of a type that is no variant of the enum, at the head of the
/// channel, is left for its own receiver: the enum's receiver waits.
#[test]
fn an_enum_receiver_never_takes_another_type_at_the_head() {
    let spec = Spec::new(
        "done first",
        seq([
            msg("Done", "boss", "worker"),
            msg("Job", "boss", "worker"),
            msg("Stop", "boss", "worker"),
        ]),
    );
    let [boss, worker]: [_; 2] = liberal_ends(&spec).try_into().unwrap();
    boss.sender::<Done>("worker")
        .unwrap()
        .send(Done(9))
        .unwrap();
    let cmds_tx = boss.sender::<Cmd>("worker").unwrap();
    cmds_tx.send(Cmd::Job(1)).unwrap();
    cmds_tx.send(Cmd::Stop).unwrap();
    let cmds = worker.receiver::<Cmd>("boss").unwrap();
    assert_eq!(cmds.try_recv(), Err(TryRecvError::Empty), "a Done is first");
    assert_eq!(worker.receiver::<Done>("boss").unwrap().recv(), Ok(Done(9)));
    assert_eq!(cmds.recv(), Ok(Cmd::Job(1)));
    assert_eq!(cmds.recv(), Ok(Cmd::Stop));
}

/// An enum whose variants the channel never carries is refused when the
/// end is made, with the closest type the channel does carry; an enum
/// with some variants on the channel takes those.
#[test]
fn an_enum_none_of_whose_variants_is_carried_is_refused_at_creation() {
    // Never constructed: only ends of them are made.
    #[allow(dead_code)]
    #[derive(Clone, Debug, prust_derive::Message)]
    #[message(crate = "engine")]
    enum Typo {
        Jobs,
        Halt,
    }
    #[allow(dead_code)]
    #[derive(Clone, Debug, PartialEq, prust_derive::Message)]
    #[message(crate = "engine")]
    enum Wide {
        Job(u32),
        Elsewhere,
    }
    let [boss, worker]: [_; 2] = liberal_ends(&jobs_then_stop()).try_into().unwrap();
    let e = worker.receiver::<Typo>("boss").unwrap_err();
    assert_eq!(
        e.to_string(),
        "the protocol never sends <Jobs|Halt> from boss to worker; did you mean <Job>? \
         it sends: Job, Resize, Stop"
    );
    assert!(matches!(
        boss.sender::<Typo>("worker"),
        Err(Error::NotOnChannel { .. })
    ));
    // `Wide::Job` is on the channel: the receiver takes Jobs, and leaves
    // the Stop (no variant of `Wide`) to a receiver of `Cmd`.
    let wide = worker.receiver::<Wide>("boss").unwrap();
    let tx = boss.sender::<Cmd>("worker").unwrap();
    tx.send(Cmd::Job(4)).unwrap();
    tx.send(Cmd::Stop).unwrap();
    let Err(Error::Payload { type_name, .. }) = wide.recv().map_err(|e| match e {
        channel::RecvError::Failed(e) => e,
        e => panic!("{e:?}"),
    }) else {
        panic!("a Cmd is no Wide");
    };
    assert_eq!(type_name, "Job");
    assert_eq!(
        wide.try_recv(),
        Err(TryRecvError::Empty),
        "the Stop is not Wide's"
    );
    assert_eq!(
        worker.receiver::<Cmd>("boss").unwrap().recv(),
        Ok(Cmd::Stop)
    );
}

/// `select!` with an enum receiver: its arm is taken for any of its
/// variants, the other arm for its own type.
#[test]
fn select_takes_an_enum_arm_for_any_of_its_variants() {
    #[derive(Clone, Debug, PartialEq)]
    struct Tick;
    let spec = Spec::new(
        "two",
        par([
            seq([
                msg("Job", "boss", "worker").star(),
                msg("Stop", "boss", "worker"),
            ]),
            msg("Tick", "clock", "worker"),
        ]),
    );
    let [boss, worker, clock]: [_; 3] = liberal_ends(&spec).try_into().unwrap();
    clock.sender::<Tick>("worker").unwrap().send(Tick).unwrap();
    boss.sender::<Cmd>("worker")
        .unwrap()
        .send(Cmd::Stop)
        .unwrap();
    let (cmds, ticks) = (
        worker.receiver::<Cmd>("boss").unwrap(),
        worker.receiver::<Tick>("clock").unwrap(),
    );
    let mut got = Vec::new();
    for _ in 0..2 {
        got.push(select! {
            recv(cmds) -> c => format!("cmd {:?}", c.unwrap()),
            recv(ticks) -> t => format!("tick {:?}", t.unwrap()),
        });
    }
    // The first arm is first in order; its `Stop` is its second
    // alternative, and still the first arm.
    assert_eq!(got, ["cmd Stop", "tick Tick"]);
}

/// The boss's role: jobs, then the stop, through one `Sender<Cmd>`.
fn boss<E: BlockingEndpoint + 'static>(ends: Ends<E>) {
    let cmds = ends.sender::<Cmd>("worker").unwrap();
    for i in 0..2 {
        cmds.send(Cmd::Job(i)).unwrap();
    }
    cmds.send(Cmd::Stop).unwrap();
}

/// End to end: the object checked with the enum's values as dummies, and
/// the typed program explored with a property, both over `<Job>` and
/// `<Stop>` as the formula names them.
#[test]
fn the_checker_and_explore_name_an_enum_by_its_variants() {
    let spec = Spec::new(
        "jobs",
        seq([
            msg("Job", "boss", "worker").star(),
            msg("Stop", "boss", "worker"),
        ]),
    );
    let dummies = || dummies![Cmd::Job(0), Cmd::Stop];
    let strict = || Strict::new(spec.compile().unwrap());
    engine::check(
        r#"G ("worker RECV <Stop>" -> G !"worker RECV <Job>")"#,
        strict(),
        dummies(),
    );
    engine::check_violated(r#"G !"boss SEND <Job>""#, strict(), dummies());

    for object in [
        protocols::Object::from(strict()),
        protocols::Object::from(Liberal::new(spec.compile().unwrap())),
    ] {
        let explore = |property: &str| {
            Explorer::new()
                .reduction(Reduction::None)
                .property(property)
                .explore(object.clone(), |r| {
                    r.spawn("boss", |ep| boss(Ends::new(ep)));
                    r.spawn("worker", |ep| {
                        assert_eq!(worker(Ends::new(ep)).len(), 3);
                    });
                })
        };
        let holds = explore(
            r#"F "worker RECV <Stop>" & G ("worker RECV <Stop>" -> G !"worker RECV <Job>")"#,
        );
        assert!(holds.is_successful(), "{holds}");
        let violated = explore(r#"G !"worker RECV <Job>""#);
        assert!(violated.is_complete());
        assert!(
            matches!(
                violated.failures()[0].outcome,
                Outcome::PropertyViolated { .. }
            ),
            "{violated}"
        );
    }
}
