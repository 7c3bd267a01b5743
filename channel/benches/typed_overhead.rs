//! Typed send/recv (`prust::channel`) against the raw endpoint operations
//! they stand for, on real sessions, side by side in one run: the ratio is
//! what the typed layer costs (the goal is at most 1.05).
//!
//! ```text
//! cargo bench -p prust-channel --bench typed_overhead            # full run
//! cargo bench -p prust-channel --bench typed_overhead -- --quick # a smoke run
//! cargo bench -p prust-channel --bench typed_overhead -- --only liberal "one thread" typed  # for a profiler
//! ```
//!
//! Two shapes, each on the strict object under a `Session` and the liberal
//! one under a `SplitSession`, protocol `(Job boss→hand; Done hand→boss)*`:
//! - `one thread`: one thread plays both roles, so every operation succeeds
//!   at once: the bare cost of an operation, where an overhead shows most;
//! - `two threads`: boss and hand on their own threads, a round trip per
//!   job (each operation may park and wake a thread), as a program runs.
//!
//! Raw and typed runs alternate, several rounds each; the best round of
//! each is reported (the least disturbed by other processes).

use std::hint::black_box;
use std::time::{Duration, Instant};

use channel::Ends;
use protocols::session::{BlockingEndpoint, Session, SplitSession};
use protocols::spec::{msg, seq, Spec};
use protocols::{Liberal, Strict};

#[derive(Clone, Debug)]
struct Job(u64);
#[derive(Clone, Debug)]
struct Done(u64);

fn spec() -> Spec {
    Spec::new(
        "round-trips",
        seq([msg("Job", "boss", "hand"), msg("Done", "hand", "boss")]).star(),
    )
}

/// The two endpoints of a fresh session of `kind` (`strict`/`liberal`).
fn pair(kind: &str) -> Pair {
    let lts = spec().compile().unwrap();
    if kind == "strict" {
        let [b, h] = Session::new(Strict::new(lts))
            .into_endpoints()
            .try_into()
            .unwrap();
        Pair::Strict(b, h)
    } else {
        let [b, h] = SplitSession::new(Liberal::new(lts))
            .into_endpoints()
            .try_into()
            .unwrap();
        Pair::Liberal(b, h)
    }
}

enum Pair {
    Strict(
        protocols::session::Endpoint<Strict>,
        protocols::session::Endpoint<Strict>,
    ),
    Liberal(
        protocols::session::SplitEndpoint<Liberal>,
        protocols::session::SplitEndpoint<Liberal>,
    ),
}

fn raw_one_thread<E: BlockingEndpoint>(mut boss: E, mut hand: E, n: u64) -> u64 {
    let (to_hand, to_boss) = (boss.peer("hand").unwrap(), hand.peer("boss").unwrap());
    let mut sum = 0;
    for i in 0..n {
        boss.send(to_hand, Job(i)).unwrap();
        let Job(j) = hand.recv_from(to_boss).unwrap().downcast::<Job>().unwrap();
        hand.send(to_boss, Done(j)).unwrap();
        sum += boss
            .recv_from(to_hand)
            .unwrap()
            .downcast::<Done>()
            .unwrap()
            .0;
    }
    sum
}

fn typed_one_thread<E: BlockingEndpoint + 'static>(boss: E, hand: E, n: u64) -> u64 {
    let (boss, hand) = (Ends::new(boss), Ends::new(hand));
    let (jobs, done_rx) = (
        boss.sender::<Job>("hand").unwrap(),
        boss.receiver::<Done>("hand").unwrap(),
    );
    let (jobs_rx, done) = (
        hand.receiver::<Job>("boss").unwrap(),
        hand.sender::<Done>("boss").unwrap(),
    );
    let mut sum = 0;
    for i in 0..n {
        jobs.send(Job(i)).unwrap();
        let Job(j) = jobs_rx.recv().unwrap();
        done.send(Done(j)).unwrap();
        sum += done_rx.recv().unwrap().0;
    }
    sum
}

fn raw_two_threads<E: BlockingEndpoint + 'static>(mut boss: E, mut hand: E, n: u64) -> u64 {
    let t = std::thread::spawn(move || {
        let to_boss = hand.peer("boss").unwrap();
        for _ in 0..n {
            let Job(j) = hand.recv_from(to_boss).unwrap().downcast::<Job>().unwrap();
            hand.send(to_boss, Done(j)).unwrap();
        }
    });
    let to_hand = boss.peer("hand").unwrap();
    let mut sum = 0;
    for i in 0..n {
        boss.send(to_hand, Job(i)).unwrap();
        sum += boss
            .recv_from(to_hand)
            .unwrap()
            .downcast::<Done>()
            .unwrap()
            .0;
    }
    t.join().unwrap();
    sum
}

fn typed_two_threads<E: BlockingEndpoint + 'static>(boss: E, hand: E, n: u64) -> u64 {
    let hand = Ends::new(hand);
    let t = std::thread::spawn(move || {
        let (jobs_rx, done) = (
            hand.receiver::<Job>("boss").unwrap(),
            hand.sender::<Done>("boss").unwrap(),
        );
        for _ in 0..n {
            let Job(j) = jobs_rx.recv().unwrap();
            done.send(Done(j)).unwrap();
        }
    });
    let boss = Ends::new(boss);
    let (jobs, done_rx) = (
        boss.sender::<Job>("hand").unwrap(),
        boss.receiver::<Done>("hand").unwrap(),
    );
    let mut sum = 0;
    for i in 0..n {
        jobs.send(Job(i)).unwrap();
        sum += done_rx.recv().unwrap().0;
    }
    t.join().unwrap();
    sum
}

/// One timed run of `version` (`raw`/`typed`) × `shape` on `kind`.
fn run(kind: &str, shape: &str, version: &str, n: u64) -> Duration {
    macro_rules! go {
        ($b:expr, $h:expr) => {{
            let start = Instant::now();
            let sum = match (shape, version) {
                ("one thread", "raw") => raw_one_thread($b, $h, n),
                ("one thread", _) => typed_one_thread($b, $h, n),
                (_, "raw") => raw_two_threads($b, $h, n),
                _ => typed_two_threads($b, $h, n),
            };
            let took = start.elapsed();
            assert_eq!(black_box(sum), n * (n - 1) / 2);
            took
        }};
    }
    match pair(kind) {
        Pair::Strict(b, h) => go!(b, h),
        Pair::Liberal(b, h) => go!(b, h),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let quick = args.iter().any(|a| a == "--quick");
    let (rounds, n_one, n_two) = if quick {
        (2, 2_000, 500)
    } else {
        (9, 200_000, 20_000)
    };
    if let Some(i) = args.iter().position(|a| a == "--only") {
        // One version of one shape on one object, once: for perf or callgrind.
        let (kind, shape, version) = (&args[i + 1], &args[i + 2], &args[i + 3]);
        let n = if shape == "one thread" { n_one } else { n_two };
        let took = run(kind, shape, version, n);
        println!(
            "{kind} {shape} {version}: {:.0} ns per job",
            took.as_nanos() as f64 / n as f64
        );
        return;
    }
    println!("typed ends against raw endpoint operations (best of {rounds} rounds each)");
    println!(
        "{:<8} {:<12} {:>8} {:>12} {:>12} {:>7}",
        "object", "shape", "jobs", "raw/job", "typed/job", "ratio"
    );
    for kind in ["strict", "liberal"] {
        for (shape, n) in [("one thread", n_one), ("two threads", n_two)] {
            let (mut raw, mut typed) = (Duration::MAX, Duration::MAX);
            for _ in 0..rounds {
                raw = raw.min(run(kind, shape, "raw", n));
                typed = typed.min(run(kind, shape, "typed", n));
            }
            let per = |d: Duration| format!("{:.0} ns", d.as_nanos() as f64 / n as f64);
            println!(
                "{:<8} {:<12} {:>8} {:>12} {:>12} {:>6.3}x",
                kind,
                shape,
                n,
                per(raw),
                per(typed),
                typed.as_secs_f64() / raw.as_secs_f64()
            );
        }
    }
}
