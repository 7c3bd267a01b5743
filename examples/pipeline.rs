//! A three-stage pipeline over one message enum: a source sends numbers,
//! a middle stage squares them, a sink adds them up; each stage `match`es
//! on the enum, and `Item::End` tells the next stage that the stream is
//! over.
//!
//! ```text
//! cargo run --example pipeline
//! ```
//!
//! The specification is Discourje's `.dcj` text, embedded: each stage's
//! channel carries `Data` until an `End`, the two channels side by side
//! (the source may run ahead of the square stage). `#[derive(prust::Message)]`
//! makes each variant of `Item` one protocol message type, named by the
//! variant: a `Sender<Item>` sends `Item::Data(3)` as a `Data`, one
//! `Receiver<Item>` takes both.
//!
//! The planted bug: the square stage stops at `End` without passing it on
//! (a `match` arm that only `break`s), so the sink waits for ever. A
//! stage that reads one channel and writes one (a Kahn network) does the
//! same thing in every schedule, so the bug is no race: real sessions
//! report it as a deadlock error (never a hang), and `prust::explore`
//! finds it with the schedule that leads there.

use prust::channel::{Ends, RecvError, SessionEnds};
use prust::explore::{explore, Outcome, Roles};
use prust::session::{BlockingEndpoint, Session, SplitSession};
use prust::{Liberal, Protocol, Spec, Strict};

/// What flows down the pipeline.
#[derive(Clone, Debug, PartialEq, prust::Message)]
pub enum Item {
    /// A number.
    Data(u64),
    /// The end of the stream.
    End,
}

/// The specification, in Discourje's notation.
pub const DCJ: &str = r#"
(s/defrole ::source)
(s/defrole ::square)
(s/defrole ::sink)
(s/defsession ::pipeline []
  (s/par (s/cat (s/* (s/-->> Data ::source ::square)) (s/-->> End ::source ::square))
         (s/cat (s/* (s/-->> Data ::square ::sink)) (s/-->> End ::square ::sink))))
"#;

/// The numbers the source sends.
pub const NUMBERS: [u64; 3] = [1, 2, 3];

/// The pipeline's specification, imported from [`DCJ`].
pub fn spec() -> Spec {
    prust::dcj::import_str(DCJ, Some("pipeline"), &[])
        .unwrap()
        .spec
}

/// The first stage: the numbers, then the end.
pub fn source<E: BlockingEndpoint + 'static>(ends: Ends<E>, numbers: &[u64]) {
    let out = ends.sender::<Item>("square").unwrap();
    for &n in numbers {
        out.send(Item::Data(n)).unwrap();
    }
    out.send(Item::End).unwrap();
}

/// The middle stage: squares every number and passes the end on (with
/// `planted_bug`, it forgets to).
pub fn square<E: BlockingEndpoint + 'static>(ends: Ends<E>, planted_bug: bool) {
    let input = ends.receiver::<Item>("source").unwrap();
    let out = ends.sender::<Item>("sink").unwrap();
    loop {
        match input.recv().unwrap() {
            Item::Data(n) => out.send(Item::Data(n * n)).unwrap(),
            Item::End if planted_bug => break,
            Item::End => {
                out.send(Item::End).unwrap();
                break;
            }
        }
    }
}

/// The last stage: the sum of what arrives before the end.
pub fn sink<E: BlockingEndpoint + 'static>(ends: Ends<E>) -> Result<u64, RecvError> {
    let input = ends.receiver::<Item>("square").unwrap();
    let mut sum = 0;
    loop {
        match input.recv()? {
            Item::Data(n) => sum += n,
            Item::End => return Ok(sum),
        }
    }
}

/// The pipeline on real threads, one per stage: the sink's answer.
pub fn run<E: BlockingEndpoint + Send + 'static>(
    ends: Vec<Ends<E>>,
    planted_bug: bool,
) -> Result<u64, RecvError> {
    let [src, sq, sink_ends]: [Ends<E>; 3] = ends.try_into().expect("three roles");
    let stages = [
        std::thread::spawn(move || source(src, &NUMBERS)),
        std::thread::spawn(move || square(sq, planted_bug)),
    ];
    let sum = sink(sink_ends);
    for s in stages {
        s.join().unwrap();
    }
    sum
}

/// The pipeline as `prust::explore` runs it (the sink checking the sum):
/// the same stage functions.
pub fn pipeline<P: Protocol>(planted_bug: bool) -> impl Fn(&mut Roles<'_, P>) + Sync {
    move |r: &mut Roles<'_, P>| {
        r.spawn("source", |ep| source(Ends::new(ep), &NUMBERS));
        r.spawn("square", move |ep| square(Ends::new(ep), planted_bug));
        r.spawn("sink", |ep| assert_eq!(sink(Ends::new(ep)), Ok(14)));
    }
}

fn main() -> std::process::ExitCode {
    let spec = spec();
    let (strict, liberal) = (
        Strict::from_spec(&spec).unwrap(),
        Liberal::from_spec(&spec).unwrap(),
    );
    let sum = run(Session::new(strict.clone()).into_ends(), false);
    println!("strict session:  sum of squares {sum:?}");
    let sum = run(SplitSession::new(liberal.clone()).into_ends(), false);
    println!("liberal session: sum of squares {sum:?}");
    match run(SplitSession::new(liberal).into_ends(), true) {
        Err(e) => println!("with the planted bug, the sink is told:\n{e}"),
        Ok(sum) => println!("with the planted bug: {sum}?"),
    }

    let bug = explore(strict.clone(), pipeline(true));
    println!("\nthe square stage that drops the end:\n{bug}");
    let fixed = explore(strict, pipeline(false));
    println!("\nthe square stage that passes it on:\n{fixed}");
    let found = bug
        .failures()
        .iter()
        .any(|f| matches!(f.outcome, Outcome::Deadlock { .. }));
    if found && fixed.is_successful() {
        std::process::ExitCode::SUCCESS
    } else {
        std::process::ExitCode::FAILURE
    }
}
