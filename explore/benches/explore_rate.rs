//! Executions per second of `prust::explore` on 3-role programs, and the
//! executions needed with no reduction, sleep sets and DPOR on growing
//! programs.
//!
//! ```text
//! cargo bench -p prust-explore --bench explore_rate
//! cargo bench -p prust-explore --bench explore_rate -- --quick   # a smoke run
//! cargo bench -p prust-explore --bench explore_rate -- --rate    # fan-in k=3 only, repeated
//! cargo bench -p prust-explore --bench explore_rate -- --profile # one DPOR exploration of fan-in k=3
//!     # (add --threads: roles on OS threads; --tasks: async roles; --none: no reduction)
//! cargo bench -p prust-explore --bench explore_rate -- --async   # threads vs async roles only
//! cargo bench -p prust-explore --bench explore_rate -- --random  # fan-in k=3, random walk
//!     # (add --executions=N: N a round instead of 100,000, for a profiler)
//! ```
//!
//! `--async` (also part of the full run) explores the same programs with
//! their roles as threads (`Roles::spawn`) and as async tasks
//! (`Roles::spawn_async`, the explorer's executor), side by side, and
//! prints executions per second of each and their ratio.
//!
//! `--rate` measures the goal's program alone: fan-in k=3 with each
//! reduction, the reduced explorations repeated 20 times (a few hundred
//! executions each is too short to time on a loaded machine), and prints
//! executions per second of wall time and of the process's CPU time, for
//! thread roles as coroutines (the default), on OS threads of their own
//! (`Explorer::role_threads`, as before) and as async roles, interleaved.
//!
//! Programs (all correct, so every exploration runs to completion):
//! - `two-buyer`: the bundled two-buyer protocol's three roles;
//! - `fan-in k`: two senders each send `k` messages to a collector that
//!   receives from anyone (`recv()`), on a hand-written mailbox object:
//!   the senders' steps are independent of each other, the collector's
//!   receives branch over the senders;
//! - `in-order k`: the same senders, and a collector that receives the
//!   `k` messages of `a` and then those of `b` (`recv_from`): the two
//!   senders never race, which DPOR sees.

use std::time::Instant;

use prust::explore::{Exploration, Explorer, Reduction, Roles};
use prust::session::BlockingEndpoint;
use prust::{Message, Strict};

use testkit::cpu::cpu_time;
use testkit::two_buyer;

/// The two-buyer program of the tests and examples, the seller asserting
/// that buyer2 buys (it does at that price, in every schedule).
fn two_buyer(r: &mut Roles<'_, Strict>) {
    r.spawn("buyer1", |ep| {
        two_buyer::buyer1(ep).unwrap();
    });
    r.spawn("buyer2", |ep| {
        two_buyer::buyer2(ep).unwrap();
    });
    r.spawn("seller", |ep| {
        let (_, _, sold) = two_buyer::seller(ep).unwrap();
        assert!(sold);
    });
}

use testkit::mailbox;

use mailbox::Mailbox;

/// The programs' mailbox: roles `a`, `b` and `collector`, unbounded
/// channels (no send ever waits).
fn mailbox() -> Mailbox {
    Mailbox::named(&["a", "b", "collector"], None)
}

fn fan_in(k: usize) -> impl Fn(&mut Roles<'_, Mailbox>) + Sync {
    move |r| {
        for s in ["a", "b"] {
            r.spawn(s, move |mut ep| {
                for i in 0..k {
                    ep.send("collector", Message::named("M", i)).unwrap();
                }
            });
        }
        r.spawn("collector", move |mut ep| {
            let mut sum = 0;
            for _ in 0..2 * k {
                let (_, m) = ep.recv().unwrap();
                sum += m.downcast_ref::<usize>().unwrap();
            }
            assert_eq!(sum, k * (k - 1));
        });
    }
}

fn in_order(k: usize) -> impl Fn(&mut Roles<'_, Mailbox>) + Sync {
    move |r| {
        for s in ["a", "b"] {
            r.spawn(s, move |mut ep| {
                for i in 0..k {
                    ep.send("collector", Message::named("M", i)).unwrap();
                }
            });
        }
        r.spawn("collector", move |mut ep| {
            for s in ["a", "b"] {
                for i in 0..k {
                    let m = ep.recv_from(s).unwrap();
                    assert_eq!(m.downcast_ref::<usize>(), Some(&i));
                }
            }
        });
    }
}

/// [`fan_in`] with every role an async task (the same operations,
/// awaited).
fn fan_in_async(k: usize) -> impl Fn(&mut Roles<'_, Mailbox>) + Sync {
    use testkit::aio;
    move |r| {
        for s in ["a", "b"] {
            r.spawn_async(s, move |mut ep| async move {
                for i in 0..k {
                    aio::send(&mut ep, "collector", Message::named("M", i))
                        .await
                        .unwrap();
                }
            });
        }
        r.spawn_async("collector", move |mut ep| async move {
            let mut sum = 0;
            for _ in 0..2 * k {
                let (_, m) = aio::recv(&mut ep).await.unwrap();
                sum += m.downcast_ref::<usize>().unwrap();
            }
            assert_eq!(sum, k * (k - 1));
        });
    }
}

/// [`two_buyer`] with every role an async task.
fn two_buyer_async(r: &mut Roles<'_, Strict>) {
    r.spawn_async("buyer1", |ep| async {
        two_buyer::buyer1_async(ep).await.unwrap();
    });
    r.spawn_async("buyer2", |ep| async {
        two_buyer::buyer2_async(ep).await.unwrap();
    });
    r.spawn_async("seller", |ep| async {
        let (_, _, sold) = two_buyer::seller_async(ep).await.unwrap();
        assert!(sold);
    });
}

/// Executions per second of `explore()` repeated `repeat` times.
fn per_second<T>(repeat: usize, explore: impl Fn() -> Exploration<T>) -> f64 {
    let started = Instant::now();
    let mut executions = 0;
    for _ in 0..repeat {
        let ex = explore();
        assert!(ex.is_complete() && ex.is_successful(), "{ex}");
        executions += ex.executions();
    }
    executions as f64 / started.elapsed().as_secs_f64()
}

/// `--async`: the same programs as threads and as async roles, side by
/// side (each measured twice, interleaved, the better kept: the machine
/// is shared).
fn threads_vs_async(quick: bool) {
    let explorer = Explorer::new().preemption_bound(None);
    let repeat = if quick { 2 } else { 20 };
    let best = |f: &dyn Fn() -> f64| f().max(f());
    let fan = |tasks: bool| {
        let e = explorer.clone().reduction(Reduction::Dpor);
        per_second(repeat, || match tasks {
            false => e.explore(mailbox(), fan_in(3)),
            true => e.explore(mailbox(), fan_in_async(3)),
        })
    };
    let buyers = |tasks: bool| {
        let e = explorer.clone().reduction(Reduction::None);
        per_second(repeat * 10, || match tasks {
            false => e.explore(prust::protocols::two_buyer::strict(), two_buyer),
            true => e.explore(prust::protocols::two_buyer::strict(), two_buyer_async),
        })
    };
    for (name, run) in [
        ("fan-in k=3 dpor", &fan as &dyn Fn(bool) -> f64),
        ("two-buyer none", &buyers),
    ] {
        let threads = best(&|| run(false));
        let tasks = best(&|| run(true));
        println!(
            "{name:<16} threads {threads:>8.0} executions/s  async {tasks:>8.0} executions/s  \
             async time per execution {:.2}x the threads'",
            threads / tasks
        );
    }
}

fn line(name: &str, reduction: Reduction, ex: &Exploration) {
    assert!(ex.is_successful(), "{ex}");
    let secs = ex.elapsed().as_secs_f64();
    println!(
        "{name:<14} {:<11} {:>8} executions ({:>6} cut by sleep sets) {:>8.3} s {:>9.0} executions/s",
        reduction.to_string(),
        ex.executions(),
        ex.redundant(),
        secs,
        ex.executions() as f64 / secs
    );
}

/// One timed run of `--rate`: executions, wall seconds, CPU seconds.
fn timed(explorer: &Explorer, repeat: usize, tasks: bool) -> (usize, f64, f64) {
    let (wall, cpu) = (Instant::now(), cpu_time());
    let mut executions = 0;
    for _ in 0..repeat {
        let ex = match tasks {
            false => explorer.explore(mailbox(), fan_in(3)),
            true => explorer.explore(mailbox(), fan_in_async(3)),
        };
        assert!(ex.is_successful(), "{ex}");
        executions += ex.executions();
    }
    (executions, wall.elapsed().as_secs_f64(), cpu_time() - cpu)
}

/// `--rate`: fan-in k=3 with each reduction, timed in wall and CPU time,
/// with its thread roles run as coroutines (the default), on OS threads
/// of their own (`Explorer::role_threads`, as before coroutines), and as
/// async roles: the three interleaved, three rounds, the best of each
/// kept (the machine is shared). Each mode must explore as many
/// executions as the others.
fn rate() {
    // In batches: role threads run one execution at a time whatever.
    let explorer = Explorer::new().preemption_bound(None).batches(true);
    let _ = explorer.explore(mailbox(), fan_in(2));
    let modes = [
        ("coroutines", false, false),
        ("os-threads", true, false),
        ("async", false, true),
    ];
    for (reduction, repeat) in [
        (Reduction::None, 1),
        (Reduction::SleepSets, 20),
        (Reduction::Dpor, 20),
    ] {
        let mut best = [(0, 0.0f64, 0.0f64); 3];
        for _round in 0..3 {
            for (m, &(_, threads, tasks)) in modes.iter().enumerate() {
                let e = explorer.clone().reduction(reduction).role_threads(threads);
                let (executions, wall, cpu) = timed(&e, repeat, tasks);
                assert!(
                    best[m].0 == 0 || best[m].0 == executions,
                    "the same executions every round"
                );
                let rate = executions as f64 / cpu.max(1e-9);
                if best[m].0 == 0 || rate > best[m].0 as f64 / best[m].2.max(1e-9) {
                    best[m] = (executions, wall, cpu);
                }
            }
        }
        assert!(
            best.iter().all(|b| b.0 == best[0].0),
            "every mode explores the same executions: {best:?}"
        );
        let per_cpu = |b: (usize, f64, f64)| b.0 as f64 / b.2.max(1e-9);
        for (m, &(name, _, _)) in modes.iter().enumerate() {
            let (executions, wall, cpu) = best[m];
            println!(
                "fan-in k=3 {:<12} {name:<10} x{repeat:<2} {executions:>6} executions {wall:>7.3} s wall {:>7.0}/s, {cpu:>6.2} s CPU {:>7.0}/CPU-s",
                reduction.to_string(),
                executions as f64 / wall,
                per_cpu(best[m]),
            );
        }
        println!(
            "fan-in k=3 {:<12} coroutines / os-threads: {:.2}x executions per CPU-second",
            reduction.to_string(),
            per_cpu(best[0]) / per_cpu(best[1])
        );
    }
}

/// `--profile`: one DPOR exploration of fan-in k=3 and nothing else, for
/// an instruction-counting profiler (`valgrind --tool=callgrind`); with
/// `--threads` its thread roles on OS threads of their own, with
/// `--tasks` as async roles, with `--none` no reduction (what an
/// execution costs without DPOR's race analysis).
fn profile() {
    let arg = |a: &str| std::env::args().any(|x| x == a);
    let reduction = match arg("--none") {
        true => Reduction::None,
        false => Reduction::Dpor,
    };
    let e = Explorer::new()
        .preemption_bound(None)
        .reduction(reduction)
        .role_threads(arg("--threads"));
    let ex = match arg("--tasks") {
        false => e.explore(mailbox(), fan_in(3)),
        true => e.explore(mailbox(), fan_in_async(3)),
    };
    line("fan-in k=3", reduction, &ex);
}

/// `--random`: fan-in k=3 sampled by the random walk (100,000
/// executions, three rounds), for the side-by-side run with shuttle's
/// random scheduler on the same program (see BENCHMARKS.md).
fn random() {
    // `--executions=N` (default 100,000): fewer for a profiler.
    let n = std::env::args()
        .find_map(|a| a.strip_prefix("--executions=")?.parse().ok())
        .unwrap_or(100_000);
    for _round in 0..3 {
        // In batches (`Explorer::batches`) unless `--one-at-a-time`.
        let batches = !std::env::args().any(|a| a == "--one-at-a-time");
        let e = Explorer::new().random(1, n).batches(batches);
        let (started, cpu) = (Instant::now(), cpu_time());
        let ex = e.explore(mailbox(), fan_in(3));
        let (wall, cpu) = (started.elapsed().as_secs_f64(), cpu_time() - cpu);
        let n = ex.executions();
        println!(
            "prust   random fan-in k=3 {n} executions {wall:.3} s wall {:.0}/s, {cpu:.2} s CPU {:.0}/CPU-s",
            n as f64 / wall,
            n as f64 / cpu.max(1e-9)
        );
    }
}

fn main() {
    if std::env::args().any(|a| a == "--rate") {
        return rate();
    }
    if std::env::args().any(|a| a == "--random") {
        return random();
    }
    if std::env::args().any(|a| a == "--profile") {
        return profile();
    }
    let quick = std::env::args().any(|a| a == "--quick");
    if std::env::args().any(|a| a == "--async") {
        return threads_vs_async(quick);
    }
    let explorer = Explorer::new().preemption_bound(None);
    // Warm up (thread creation, allocator).
    let _ = explorer.explore(prust::protocols::two_buyer::strict(), two_buyer);
    let repeat = if quick { 10 } else { 200 };
    let started = Instant::now();
    let mut executions = 0;
    for _ in 0..repeat {
        let ex = explorer
            .clone()
            .reduction(Reduction::None)
            .explore(prust::protocols::two_buyer::strict(), two_buyer);
        assert!(ex.is_successful());
        executions += ex.executions();
    }
    let secs = started.elapsed().as_secs_f64();
    println!(
        "two-buyer x{repeat}: {executions} executions in {secs:.3} s: {:.0} executions/s",
        executions as f64 / secs
    );
    let ks: &[usize] = if quick { &[1, 2] } else { &[1, 2, 3] };
    let reductions = [Reduction::None, Reduction::SleepSets, Reduction::Dpor];
    for &k in ks {
        for reduction in reductions {
            let object = mailbox();
            let ex = explorer
                .clone()
                .reduction(reduction)
                .explore(object, fan_in(k));
            line(&format!("fan-in k={k}"), reduction, &ex);
        }
    }
    let ks: &[usize] = if quick { &[1, 2] } else { &[1, 2, 3, 4] };
    for &k in ks {
        for reduction in reductions {
            let object = mailbox();
            let ex = explorer
                .clone()
                .reduction(reduction)
                .explore(object, in_order(k));
            line(&format!("in-order k={k}"), reduction, &ex);
        }
    }
    threads_vs_async(quick);
}
