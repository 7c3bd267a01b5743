//! The run-time cost of protocol objects in a real program, as Prut4j
//! measured it on the NAS parallel benchmarks: an NPB-like master/worker
//! computation run side by side as hand-written channels
//! (`std::sync::mpsc`) and as three protocol versions — the strict object
//! on a [`Session`], the liberal object on a [`SplitSession`], both of
//! Prut4j's protocol, and the strict object of the *concurrent* protocol
//! (built on the fly) on a [`Session`] — reporting each protocol version's
//! time as a ratio to the hand-written one.
//!
//! ```text
//! cargo bench -p prust-protocols --bench session_overhead            # full table
//! cargo bench -p prust-protocols --bench session_overhead -- --quick # a smoke run
//! cargo bench -p prust-protocols --bench session_overhead -- --kernel is --workers 8,16
//! cargo bench -p prust-protocols --bench session_overhead -- --only is 16 liberal  # for perf
//! ```
//!
//! Versions:
//! - `strict`, `liberal`: the bundled `npb-cg(k)` / `npb-is(k)`, Prut4j's
//!   protocols, in which every round is one global order (worker `i`
//!   replies after worker `i - 1`'s reply was taken): the strict object
//!   enforces that order, so a worker that is ready early waits;
//! - `concurrent`: the strict object of `npb::cg_concurrent(k)` /
//!   `npb::is_concurrent(k)`, in which the workers' exchanges within a
//!   round interleave freely — what the program does — built with
//!   `Strict::on_the_fly` (its LTS has 5^k states per round); the states
//!   are computed during the run, inside the clock.
//!
//! Kernels (the work per item is real arithmetic, and every version must
//! compute the same checksum):
//! - `cg`: CG-like, coarse-grained — each work item is a few sparse
//!   matrix-vector products over the worker's block of rows (protocol
//!   `npb-cg(k)`, message `CGMessage`).
//! - `is`: IS-like, communication-intensive — each work item ranks the
//!   worker's share of a small key array by bucket counting (protocol
//!   `npb-is(k)`, message `RankMessage`).
//!
//! Every round the master sends one work item to each worker in order and
//! takes the `DoneMessage` replies in worker order; at the end it sends
//! `ExitMessage` to each worker and takes its last `DoneMessage`; then the
//! master closes its channels, then the workers theirs (the protocol's
//! closes; the hand-written version drops its senders). The total work per
//! round is fixed; `k` workers split it.

use std::hint::black_box;
use std::sync::mpsc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use engine::Message;
use protocols::session::{BlockingEndpoint, Error, Session, SplitSession};
use protocols::Strict;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kernel {
    Cg,
    Is,
}

impl Kernel {
    fn name(self) -> &'static str {
        match self {
            Kernel::Cg => "cg",
            Kernel::Is => "is",
        }
    }
    fn work_type(self) -> &'static str {
        match self {
            Kernel::Cg => "CGMessage",
            Kernel::Is => "RankMessage",
        }
    }
}

/// The data every worker reads (shared, read-only).
struct Problem {
    kernel: Kernel,
    rounds: usize,
    /// CG: a sparse matrix in CSR form and a vector.
    row_start: Vec<usize>,
    cols: Vec<usize>,
    vals: Vec<f64>,
    x: Vec<f64>,
    /// IS: keys to rank.
    keys: Vec<u32>,
}

// Sizes of NPB class S: CG na = 1400 with about 64 non-zeros per row and
// 25 inner iterations (one matrix-vector product each) per outer one; IS
// 2^16 keys in 2^10 buckets.
const CG_ROWS: usize = 1400;
const CG_NNZ_PER_ROW: usize = 64;
const CG_PRODUCTS: usize = 25;
const IS_KEYS: usize = 1 << 16;
const IS_BUCKETS: usize = 1 << 10;

impl Problem {
    fn new(kernel: Kernel, rounds: usize) -> Problem {
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut rand = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut p = Problem {
            kernel,
            rounds,
            row_start: vec![0],
            cols: Vec::new(),
            vals: Vec::new(),
            x: Vec::new(),
            keys: Vec::new(),
        };
        match kernel {
            Kernel::Cg => {
                for _ in 0..CG_ROWS {
                    for _ in 0..CG_NNZ_PER_ROW {
                        p.cols.push(rand() as usize % CG_ROWS);
                        p.vals.push((rand() % 1000) as f64 / 1000.0);
                    }
                    p.row_start.push(p.cols.len());
                }
                p.x = (0..CG_ROWS)
                    .map(|_| (rand() % 1000) as f64 / 1000.0)
                    .collect();
            }
            Kernel::Is => p.keys = (0..IS_KEYS).map(|_| rand() as u32).collect(),
        }
        p
    }

    /// Worker `w` of `k`'s share of round `round`: real arithmetic, and a
    /// checksum of it.
    fn work(&self, round: usize, w: usize, k: usize) -> f64 {
        match self.kernel {
            Kernel::Cg => {
                let (lo, hi) = (CG_ROWS * w / k, CG_ROWS * (w + 1) / k);
                let shift = round as f64 * 1e-3;
                let mut acc = 0.0;
                for _ in 0..CG_PRODUCTS {
                    for r in lo..hi {
                        let mut y = 0.0;
                        for i in self.row_start[r]..self.row_start[r + 1] {
                            y += self.vals[i] * (self.x[self.cols[i]] + shift);
                        }
                        acc += y;
                    }
                    acc *= 0.5;
                }
                acc
            }
            Kernel::Is => {
                let (lo, hi) = (IS_KEYS * w / k, IS_KEYS * (w + 1) / k);
                let mut counts = [0u32; IS_BUCKETS];
                let salt = round as u32;
                for &key in &self.keys[lo..hi] {
                    counts[((key ^ salt) >> 22) as usize % IS_BUCKETS] += 1;
                }
                let mut rank = 0u64;
                let mut sum = 0u64;
                for (b, c) in counts.iter().enumerate() {
                    sum += rank * b as u64;
                    rank += *c as u64;
                }
                sum as f64
            }
        }
    }
}

#[derive(Clone, Debug)]
struct Work {
    round: usize,
}
#[derive(Clone, Debug)]
struct DoneMessage(f64);
#[derive(Clone, Debug)]
struct ExitMessage;

// ---------------------------------------------------------------- protocol

fn master(mut ep: impl BlockingEndpoint, p: &Problem, k: usize) -> Result<f64, Error> {
    let workers: Vec<_> = (0..k)
        .map(|i| ep.peer(format!("worker_{i}_")).unwrap())
        .collect();
    let mut total = 0.0;
    for round in 0..p.rounds {
        for &w in &workers {
            ep.send(w, Message::named(p.kernel.work_type(), Work { round }))?;
        }
        for &w in &workers {
            total += ep.recv_from(w)?.downcast::<DoneMessage>().expect("done").0;
        }
    }
    for &w in &workers {
        ep.send(w, ExitMessage)?;
        ep.recv_from(w)?;
    }
    for &w in &workers {
        ep.close(w)?;
    }
    Ok(total)
}

fn worker(mut ep: impl BlockingEndpoint, p: &Problem, i: usize, k: usize) -> Result<(), Error> {
    let master = ep.peer("master")?;
    loop {
        let m = ep.recv_from(master)?;
        match m.downcast::<Work>() {
            Ok(Work { round }) => ep.send(master, DoneMessage(p.work(round, i, k)))?,
            Err(_) => {
                ep.send(master, DoneMessage(0.0))?;
                break;
            }
        }
    }
    ep.close(master)
}

fn run_endpoints<E: BlockingEndpoint>(endpoints: Vec<E>, p: &Problem) -> f64 {
    let k = endpoints.len() - 1;
    std::thread::scope(|s| {
        let mut eps = endpoints.into_iter();
        let m = eps.next().expect("master");
        for (i, ep) in eps.enumerate() {
            s.spawn(move || worker(ep, p, i, k).expect("worker"));
        }
        master(m, p, k).expect("master")
    })
}

// -------------------------------------------------------------- hand-written

enum ToWorker {
    Work(Work),
    Exit,
}

fn run_channels(p: &Problem, k: usize) -> f64 {
    std::thread::scope(|s| {
        let mut to_workers = Vec::new();
        let mut from_workers = Vec::new();
        for i in 0..k {
            let (tx, rx) = mpsc::channel::<ToWorker>();
            let (done_tx, done_rx) = mpsc::channel::<DoneMessage>();
            to_workers.push(tx);
            from_workers.push(done_rx);
            s.spawn(move || {
                while let Ok(m) = rx.recv() {
                    match m {
                        ToWorker::Work(Work { round }) => {
                            done_tx.send(DoneMessage(p.work(round, i, k))).unwrap()
                        }
                        ToWorker::Exit => done_tx.send(DoneMessage(0.0)).unwrap(),
                    }
                }
            });
        }
        let mut total = 0.0;
        for round in 0..p.rounds {
            for tx in &to_workers {
                tx.send(ToWorker::Work(Work { round })).unwrap();
            }
            for rx in &from_workers {
                total += rx.recv().unwrap().0;
            }
        }
        for (tx, rx) in to_workers.iter().zip(&from_workers) {
            tx.send(ToWorker::Exit).unwrap();
            rx.recv().unwrap();
        }
        drop(to_workers); // the closes
        total
    })
}

// ------------------------------------------------------------------ driver

#[derive(Clone, Copy)]
enum Version {
    Hand,
    Strict,
    Liberal,
    Concurrent,
}

/// CPU time used so far by the whole process (all threads, finished ones
/// included): on a loaded machine it is a steadier measure of the work done
/// than the wall clock.
#[cfg(target_os = "linux")]
fn process_cpu_time() -> Duration {
    #[repr(C)]
    struct Timespec {
        tv_sec: i64,
        tv_nsec: i64,
    }
    unsafe extern "C" {
        fn clock_gettime(clock: i32, tp: *mut Timespec) -> i32;
    }
    const CLOCK_PROCESS_CPUTIME_ID: i32 = 2;
    let mut t = Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `clock_gettime` writes one `struct timespec` (two 64-bit
    // fields on 64-bit Linux, which `Timespec` mirrors with `repr(C)`) to a
    // valid, exclusive pointer and reads nothing else.
    let rc = unsafe { clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &mut t) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_PROCESS_CPUTIME_ID)");
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

#[cfg(not(target_os = "linux"))]
fn process_cpu_time() -> Duration {
    Duration::ZERO
}

fn run_once(v: Version, p: &Problem, k: usize) -> (Duration, Duration, f64) {
    // Objects are built (the protocol compiled) before the clock starts.
    let (strict, liberal) = match (v, p.kernel) {
        (Version::Strict, Kernel::Cg) => (Some(protocols::npb::cg(k).strict().unwrap()), None),
        (Version::Strict, Kernel::Is) => (Some(protocols::npb::is(k).strict().unwrap()), None),
        (Version::Concurrent, kernel) => {
            let spec = match kernel {
                Kernel::Cg => protocols::npb::cg_concurrent(k),
                Kernel::Is => protocols::npb::is_concurrent(k),
            };
            (Some(Strict::on_the_fly(&spec).expect("a valid spec")), None)
        }
        (Version::Liberal, Kernel::Cg) => (None, Some(protocols::npb::cg(k).liberal().unwrap())),
        (Version::Liberal, Kernel::Is) => (None, Some(protocols::npb::is(k).liberal().unwrap())),
        (Version::Hand, _) => (None, None),
    };
    let start = Instant::now();
    let cpu = process_cpu_time();
    let sum = match v {
        Version::Hand => run_channels(p, k),
        Version::Strict | Version::Concurrent => {
            run_endpoints(Session::new(strict.expect("built")).into_endpoints(), p)
        }
        Version::Liberal => run_endpoints(
            SplitSession::new(liberal.expect("built")).into_endpoints(),
            p,
        ),
    };
    let cpu = process_cpu_time() - cpu;
    (start.elapsed(), cpu, black_box(sum))
}

fn min(v: &[Duration]) -> f64 {
    v.iter()
        .copied()
        .min()
        .expect("at least one run")
        .as_secs_f64()
        * 1e3
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let quick = args.iter().any(|a| a == "--quick");
    if let Some(i) = args.iter().position(|a| a == "--only") {
        // `--only is 16 liberal`: one cell, one version, for a profiler.
        let usage = "usage: --only cg|is WORKERS hand|strict|liberal|concurrent";
        let arg = |j: usize| args.get(i + j).map(String::as_str).unwrap_or("");
        let kernel = match arg(1) {
            "cg" => Kernel::Cg,
            "is" => Kernel::Is,
            other => panic!("unknown kernel `{other}`; {usage}"),
        };
        let k: usize = match arg(2).parse() {
            Ok(k) if k >= 1 => k,
            _ => panic!(
                "`{}` is not a number of workers (at least 1); {usage}",
                arg(2)
            ),
        };
        let v = match arg(3) {
            "hand" => Version::Hand,
            "strict" => Version::Strict,
            "liberal" => Version::Liberal,
            "concurrent" => Version::Concurrent,
            other => panic!("unknown version `{other}`; {usage}"),
        };
        let p = Problem::new(kernel, if kernel == Kernel::Cg { 60 } else { 1500 });
        for _ in 0..5 {
            let (w, c, _) = run_once(v, &p, k);
            println!("wall {w:?} cpu {c:?}");
        }
        return;
    }
    // `--kernel is` and `--workers 8,16`: a part of the table.
    let option = |name: &str| {
        let i = args.iter().position(|a| a == name)?;
        Some(
            args.get(i + 1)
                .unwrap_or_else(|| panic!("{name} needs a value")),
        )
    };
    let reps = if quick { 1 } else { 11 };
    let workers: Vec<usize> = match option("--workers") {
        Some(list) => list
            .split(',')
            .map(|k| k.parse().expect("--workers 8,16"))
            .collect(),
        None if quick => vec![1, 4],
        None => vec![1, 2, 4, 8, 16],
    };
    let kernels: Vec<Kernel> = [Kernel::Cg, Kernel::Is]
        .into_iter()
        .filter(|k| option("--kernel").is_none_or(|name| name == k.name()))
        .collect();
    println!(
        "session overhead: NPB-like master/worker; {reps} runs per version and cell, versions interleaved;"
    );
    println!(
        "each figure is the minimum over the runs: wall-clock time and process CPU time (all threads)"
    );
    println!();
    println!("| kernel | workers | rounds | hand wall ms | strict / hand | liberal / hand | concurrent / hand | hand CPU ms | strict / hand | liberal / hand | concurrent / hand |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for kernel in kernels {
        let rounds = match (kernel, quick) {
            (Kernel::Cg, false) => 60,
            (Kernel::Is, false) => 1500,
            (_, true) => 20,
        };
        let p = Arc::new(Problem::new(kernel, rounds));
        for &k in &workers {
            let versions = [
                Version::Hand,
                Version::Strict,
                Version::Liberal,
                Version::Concurrent,
            ];
            let mut wall = versions.map(|_| Vec::new());
            let mut cpu = versions.map(|_| Vec::new());
            let mut sums = [0.0f64; 4];
            // warm-up, then rotate the order so no version always runs first
            run_once(Version::Hand, &p, k);
            for rep in 0..reps {
                for j in 0..versions.len() {
                    let i = (rep + j) % versions.len();
                    let (w, c, s) = run_once(versions[i], &p, k);
                    wall[i].push(w);
                    cpu[i].push(c);
                    sums[i] = s;
                }
            }
            assert!(
                sums.iter()
                    .all(|s| (s - sums[0]).abs() <= 1e-9 * sums[0].abs().max(1.0)),
                "the versions computed different results: {sums:?}"
            );
            let [hw, sw, lw, cw] = wall.map(|t| min(&t));
            let [hc, sc, lc, cc] = cpu.map(|t| min(&t));
            println!(
                "| {} | {k} | {rounds} | {hw:.1} | {:.3} | {:.3} | {:.3} | {hc:.1} | {:.3} | {:.3} | {:.3} |",
                kernel.name(),
                sw / hw,
                lw / hw,
                cw / hw,
                sc / hc,
                lc / hc,
                cc / hc,
            );
        }
    }
}
