//! Typed send/recv (`prust::channel`) against the raw endpoint operations
//! they stand for, on real sessions, side by side in one run: the ratio is
//! what the typed layer costs (the goal is at most 1.05).
//!
//! ```text
//! cargo bench -p prust-channel --bench typed_overhead            # full run
//! cargo bench -p prust-channel --bench typed_overhead -- --quick # a smoke run
//! cargo bench -p prust-channel --bench typed_overhead -- --only liberal "one thread" typed  # for a profiler
//! cargo bench -p prust-channel --bench typed_overhead -- --cpu 41  # the CPU-time ratio, 41 pairs
//! ```
//!
//! `--cpu ROUNDS` (the figure of record for the goal) times the `one
//! thread` shape only, on the thread's own CPU clock: raw and typed rounds
//! of 50,000 jobs alternate, on fresh sessions, and the ratio is taken
//! pair by pair; it prints the median pair and the range, and the ratio
//! of the two medians. The thread's CPU clock counts neither the time other
//! processes hold the core nor process start-up, which the whole process's
//! CPU time from `/usr/bin/time` (10 ms ticks, runs of tenths of a
//! second) does.
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
use testkit::cpu::{median, thread_cpu};

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

/// `--cpu ROUNDS`: the one-thread shape, raw and typed alternating, each
/// round timed on the thread's CPU clock; ratios pair by pair.
fn cpu_pairs(rounds: usize) {
    const JOBS: u64 = 50_000;
    println!("typed / raw, one thread, thread CPU time, {rounds} alternating pairs of {JOBS} jobs");
    for kind in ["strict", "liberal"] {
        // One warm-up pair, not counted.
        run(kind, "one thread", "raw", JOBS);
        run(kind, "one thread", "typed", JOBS);
        let (mut raw, mut typed, mut ratio) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..rounds {
            let t0 = thread_cpu();
            run(kind, "one thread", "raw", JOBS);
            let t1 = thread_cpu();
            run(kind, "one thread", "typed", JOBS);
            let t2 = thread_cpu();
            let (r, t) = ((t1 - t0).as_secs_f64(), (t2 - t1).as_secs_f64());
            raw.push(r);
            typed.push(t);
            ratio.push(t / r);
        }
        let per = |s: f64| s * 1e9 / JOBS as f64;
        let (mr, mt, mq) = (median(&mut raw), median(&mut typed), median(&mut ratio));
        println!(
            "{kind:<8} raw {:.0} ns/job  typed {:.0} ns/job  typed/raw: median pair {mq:.3} \
             ({:.3}-{:.3}), medians {:.3}",
            per(mr),
            per(mt),
            ratio[0],
            ratio[ratio.len() - 1],
            mt / mr
        );
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--cpu") {
        let rounds = match args.get(i + 1).map(|r| r.parse::<usize>()) {
            None => 41,
            Some(Ok(r)) if r > 0 => r,
            Some(_) => {
                eprintln!("--cpu takes a number of rounds (at least 1), e.g. --cpu 41");
                std::process::exit(2);
            }
        };
        return cpu_pairs(rounds);
    }
    let quick = args.iter().any(|a| a == "--quick");
    let (rounds, n_one, n_two) = if quick {
        (2, 2_000, 500)
    } else {
        (9, 200_000, 20_000)
    };
    if let Some(i) = args.iter().position(|a| a == "--only") {
        // One version of one shape on one object, once: for perf or callgrind.
        let [kind, shape, version] = match &args[i + 1..] {
            [k, s, v, ..]
                if ["strict", "liberal"].contains(&k.as_str())
                    && ["one thread", "two threads"].contains(&s.as_str())
                    && ["raw", "typed"].contains(&v.as_str()) =>
            {
                [k, s, v]
            }
            _ => {
                eprintln!(
                    "--only takes an object (strict, liberal), a shape (\"one thread\", \
                     \"two threads\") and a version (raw, typed)"
                );
                std::process::exit(2);
            }
        };
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
