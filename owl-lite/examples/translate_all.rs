//! Translates every formula of a benchmark file (one per line; `#family
//! NAME` starts a family, other `#` lines are comments) and prints, per
//! formula, either its HOA automaton (`--hoa`) or a tab-separated line
//! `family formula states edges sets median_us max_us` (`--stats`, the
//! default), timing `--runs N` translations in-process (default 5).
//! `--no-wdba` turns off the WDBA minimisation (to measure what it pays).
//! `--cpu` times with the thread's CPU clock instead of the wall clock (on
//! Linux; elsewhere it is ignored): on a shared, loaded machine the wall
//! time of a translation is mostly time spent waiting for a core.
//!
//! ```text
//! cargo run -p owl-lite --release --example translate_all -- --stats FILE
//! cargo run -p owl-lite --release --example translate_all -- --hoa FILE
//! ```

use std::time::Instant;

use owl_lite::{parse, translate, TranslateOptions};

fn main() {
    let mut hoa = false;
    let mut runs = 5usize;
    let mut wdba = true;
    let mut cpu = false;
    let mut file = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--hoa" => hoa = true,
            "--stats" => hoa = false,
            "--no-wdba" => wdba = false,
            "--cpu" => cpu = true,
            "--runs" => runs = args.next().and_then(|n| n.parse().ok()).unwrap_or(5),
            _ => file = Some(a),
        }
    }
    let Some(file) = file else {
        eprintln!("usage: translate_all [--hoa|--stats] [--runs N] [--no-wdba] [--cpu] FILE");
        std::process::exit(2);
    };
    let text = std::fs::read_to_string(&file).unwrap_or_else(|e| {
        eprintln!("{file}: {e}");
        std::process::exit(2)
    });
    let opts = TranslateOptions::default().wdba(wdba);
    let mut family = String::from("-");
    let mut failed = false;
    for line in text.lines() {
        let line = line.trim();
        if let Some(name) = line.strip_prefix("#family") {
            family = name.trim().to_string();
            continue;
        }
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let f = match parse(line) {
            Ok(f) => f,
            Err(e) => {
                eprintln!("{e}");
                failed = true;
                continue;
            }
        };
        let mut times = Vec::with_capacity(runs.max(1));
        let mut result = None;
        for _ in 0..runs.max(1) {
            let (t, c) = (Instant::now(), thread_cpu_us());
            let a = translate(&f, &opts);
            times.push(match (cpu, c) {
                (true, Some(c)) => thread_cpu_us().unwrap_or(c) - c,
                _ => t.elapsed().as_secs_f64() * 1e6,
            });
            result = Some(a);
        }
        let aut = match result.expect("at least one run") {
            Ok(a) => a,
            Err(e) => {
                eprintln!("{line}: {e}");
                failed = true;
                continue;
            }
        };
        times.sort_by(f64::total_cmp);
        if hoa {
            println!("#formula {line}");
            print!("{}", aut.to_hoa());
        } else {
            println!(
                "{family}\t{line}\t{}\t{}\t{}\t{:.1}\t{:.1}",
                aut.num_states(),
                aut.num_edges(),
                aut.acceptance_sets,
                times[times.len() / 2],
                times[times.len() - 1]
            );
        }
    }
    if failed {
        std::process::exit(1);
    }
}

/// The CPU time this thread has used, in µs (`None` where there is no such
/// clock here).
fn thread_cpu_us() -> Option<f64> {
    #[cfg(target_os = "linux")]
    {
        let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
        Some(t.tv_sec as f64 * 1e6 + t.tv_nsec as f64 / 1e3)
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}
