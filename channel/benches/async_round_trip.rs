//! Async round trips on tokio: `send_async`/`recv_async` over real
//! sessions against `tokio::sync::mpsc`, the same message count, side by
//! side in one run (the goal on the liberal runtime is at most 2×).
//!
//! ```text
//! cargo bench -p prust-channel --bench async_round_trip            # full run
//! cargo bench -p prust-channel --bench async_round_trip -- --quick # a smoke run
//! cargo bench -p prust-channel --bench async_round_trip -- --only current_thread liberal  # for a profiler
//! cargo bench -p prust-channel --bench async_round_trip -- --jobs 2000 --only multi_thread liberal
//! cargo bench -p prust-channel --bench async_round_trip -- --cpu 31  # the CPU-time ratios, 31 triples
//! ```
//!
//! `--cpu ROUNDS` (the figure of record for the goal) times the
//! `current_thread` flavour only, where both tasks run on the calling
//! thread, on that thread's CPU clock: tokio, liberal and strict rounds of
//! 50,000 jobs alternate, each on a fresh runtime and session, and each
//! ratio to tokio is taken within its triple; it prints the median and
//! the range. The thread's CPU clock counts neither the time other
//! processes hold the core nor process start-up.
//!
//! A boss task sends a job and awaits its answer from a hand task, `n`
//! times, on each runtime flavour: `current_thread` (both tasks on one
//! thread: the bare cost of the operations and their wakes) and
//! `multi_thread` with two workers (where a wake may hand the task to the
//! other worker, and the OS thread switch shows); protocol
//! `(Job boss→hand; Done hand→boss)*` on the strict object under a
//! `Session` and the liberal one under a `SplitSession`; tokio's version
//! uses two bounded channels of capacity 1. Runs alternate, several
//! rounds each; the best round of each is reported.

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

/// A runtime of `flavour`, the same for every version of a row.
fn runtime(flavour: &str) -> tokio::runtime::Runtime {
    let mut b = if flavour == "current_thread" {
        tokio::runtime::Builder::new_current_thread()
    } else {
        let mut b = tokio::runtime::Builder::new_multi_thread();
        b.worker_threads(2);
        b
    };
    b.build().unwrap()
}

fn tokio_mpsc(rt: &tokio::runtime::Runtime, n: u64) -> u64 {
    let (jobs, mut jobs_rx) = tokio::sync::mpsc::channel::<Job>(1);
    let (done, mut done_rx) = tokio::sync::mpsc::channel::<Done>(1);
    let hand = rt.spawn(async move {
        while let Some(Job(j)) = jobs_rx.recv().await {
            done.send(Done(j)).await.unwrap();
        }
    });
    rt.block_on(async move {
        let boss = tokio::spawn(async move {
            let mut sum = 0;
            for i in 0..n {
                jobs.send(Job(i)).await.unwrap();
                sum += done_rx.recv().await.unwrap().0;
            }
            sum
        });
        let sum = boss.await.unwrap();
        hand.await.unwrap();
        sum
    })
}

fn prust<E: BlockingEndpoint + 'static>(
    rt: &tokio::runtime::Runtime,
    boss: E,
    hand: E,
    n: u64,
) -> u64 {
    let (boss, hand) = (Ends::new(boss), Ends::new(hand));
    let hand = rt.spawn(async move {
        let (jobs_rx, done) = (
            hand.receiver::<Job>("boss").unwrap(),
            hand.sender::<Done>("boss").unwrap(),
        );
        for _ in 0..n {
            let Job(j) = jobs_rx.recv_async().await.unwrap();
            done.send_async(Done(j)).await.unwrap();
        }
    });
    rt.block_on(async move {
        let boss = tokio::spawn(async move {
            let (jobs, done_rx) = (
                boss.sender::<Job>("hand").unwrap(),
                boss.receiver::<Done>("hand").unwrap(),
            );
            let mut sum = 0;
            for i in 0..n {
                jobs.send_async(Job(i)).await.unwrap();
                sum += done_rx.recv_async().await.unwrap().0;
            }
            sum
        });
        let sum = boss.await.unwrap();
        hand.await.unwrap();
        sum
    })
}

/// One timed run of `version` (`tokio`/`strict`/`liberal`) on a fresh
/// runtime of `flavour`.
fn run(flavour: &str, version: &str, n: u64) -> Duration {
    let rt = runtime(flavour);
    let lts = spec().compile().unwrap();
    let start = Instant::now();
    let sum = match version {
        "tokio" => tokio_mpsc(&rt, n),
        "strict" => {
            let [b, h] = Session::new(Strict::new(lts))
                .into_endpoints()
                .try_into()
                .unwrap();
            prust(&rt, b, h, n)
        }
        _ => {
            let [b, h] = SplitSession::new(Liberal::new(lts))
                .into_endpoints()
                .try_into()
                .unwrap();
            prust(&rt, b, h, n)
        }
    };
    let took = start.elapsed();
    assert_eq!(black_box(sum), n * (n - 1) / 2);
    took
}

/// `--cpu ROUNDS`: `current_thread` rounds of tokio, liberal and strict
/// in turn, each timed on the thread's CPU clock; ratios within a triple.
fn cpu_triples(rounds: usize) {
    const JOBS: u64 = 50_000;
    let versions = ["tokio", "liberal", "strict"];
    println!("async round trips, current_thread, thread CPU time, {rounds} triples of {JOBS} jobs");
    // One warm-up triple, not counted.
    for v in versions {
        run("current_thread", v, JOBS);
    }
    let mut per_job: [Vec<f64>; 3] = Default::default();
    let mut ratios: [Vec<f64>; 2] = Default::default();
    for _ in 0..rounds {
        let mut took = [0.0; 3];
        for (t, v) in took.iter_mut().zip(versions) {
            let start = thread_cpu();
            run("current_thread", v, JOBS);
            *t = (thread_cpu() - start).as_secs_f64();
        }
        for (p, t) in per_job.iter_mut().zip(took) {
            p.push(t * 1e9 / JOBS as f64);
        }
        ratios[0].push(took[1] / took[0]);
        ratios[1].push(took[2] / took[0]);
    }
    let tokio = median(&mut per_job[0]);
    println!("tokio::sync::mpsc      {tokio:>6.0} ns/job");
    for (k, name) in [(1, "prust liberal Split"), (2, "prust strict Session")] {
        let ns = median(&mut per_job[k]);
        let r = &mut ratios[k - 1];
        let m = median(r);
        println!(
            "{name:<22} {ns:>6.0} ns/job  vs tokio: median {m:.2} ({:.2}-{:.2})",
            r[0],
            r[r.len() - 1]
        );
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--cpu") {
        let rounds = match args.get(i + 1).map(|r| r.parse::<usize>()) {
            None => 31,
            Some(Ok(r)) if r > 0 => r,
            Some(_) => {
                eprintln!("--cpu takes a number of rounds (at least 1), e.g. --cpu 31");
                std::process::exit(2);
            }
        };
        return cpu_triples(rounds);
    }
    let quick = args.iter().any(|a| a == "--quick");
    let (rounds, mut n) = if quick { (2, 1_000) } else { (9, 50_000) };
    if let Some(i) = args.iter().position(|a| a == "--jobs") {
        n = args[i + 1].parse().expect("--jobs takes a number");
    }
    if let Some(i) = args.iter().position(|a| a == "--only") {
        // One version on one flavour, once: for perf or callgrind.
        let (flavour, version) = (&args[i + 1], &args[i + 2]);
        let took = run(flavour, version, n);
        println!(
            "{flavour} {version}: {:.0} ns per job",
            took.as_nanos() as f64 / n as f64
        );
        return;
    }
    println!("async round trips on tokio, best of {rounds} rounds each, {n} jobs");
    println!(
        "{:<15} {:<22} {:>12} {:>9}",
        "runtime", "version", "per job", "vs tokio"
    );
    let versions = ["tokio", "strict", "liberal"];
    for flavour in ["current_thread", "multi_thread(2)"] {
        let mut best = [Duration::MAX; 3];
        for _ in 0..rounds {
            for (b, v) in best.iter_mut().zip(versions) {
                *b = (*b).min(run(flavour, v, n));
            }
        }
        for (b, v) in best.iter().zip(versions) {
            let name = match v {
                "tokio" => "tokio::sync::mpsc",
                "strict" => "prust strict Session",
                _ => "prust liberal Split",
            };
            println!(
                "{:<15} {:<22} {:>9.0} ns {:>8.2}x",
                flavour,
                name,
                b.as_nanos() as f64 / n as f64,
                b.as_secs_f64() / best[0].as_secs_f64()
            );
        }
    }
}
