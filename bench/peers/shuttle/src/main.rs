//! Fan-in k = 3 under shuttle's random scheduler: two producers each send
//! three messages to a collector that receives six, through shuttle's
//! `mpsc` channel — the program of `explore_rate --random` (two senders,
//! a collector receiving from anyone). Prints executions per second of
//! wall time and of the process's CPU time, three rounds.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use shuttle::scheduler::RandomScheduler;
use shuttle::sync::mpsc::channel;
use shuttle::{thread, Config, Runner};

static RUNS: AtomicUsize = AtomicUsize::new(0);

/// User and system CPU seconds of this process (`/proc/self/stat`).
fn cpu_time() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let fields: Vec<&str> = stat
        .rsplit(')')
        .next()
        .unwrap_or("")
        .split_whitespace()
        .collect();
    let ticks = |i: usize| fields.get(i).and_then(|f| f.parse::<f64>().ok());
    ticks(11).unwrap_or(0.0) / 100.0 + ticks(12).unwrap_or(0.0) / 100.0
}

fn fan_in(k: usize) {
    RUNS.fetch_add(1, Ordering::Relaxed);
    let (tx, rx) = channel();
    for producer in 0..2usize {
        let tx = tx.clone();
        thread::spawn(move || {
            for i in 0..k {
                tx.send((producer, i)).unwrap();
            }
        });
    }
    drop(tx);
    for _ in 0..2 * k {
        rx.recv().unwrap();
    }
}

fn main() {
    for _round in 0..3 {
        RUNS.store(0, Ordering::Relaxed);
        let (started, cpu) = (Instant::now(), cpu_time());
        Runner::new(RandomScheduler::new(100_000), Config::new()).run(|| fan_in(3));
        let (wall, cpu) = (started.elapsed().as_secs_f64(), cpu_time() - cpu);
        let n = RUNS.load(Ordering::Relaxed);
        println!(
            "shuttle random fan-in k=3 {n} executions {wall:.3} s wall {:.0}/s, {cpu:.2} s CPU {:.0}/CPU-s",
            n as f64 / wall,
            n as f64 / cpu.max(1e-9)
        );
    }
}
