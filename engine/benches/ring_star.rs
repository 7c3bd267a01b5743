//! Engine benchmark: product states per second and bytes per
//! stored state on hand-written protocol objects whose state counts are
//! known in closed form, checking a formula that holds (so the search is
//! exhaustive). A bench binary, not a timed test.
//!
//! ```text
//! cargo bench -p prust-engine --bench ring_star                 # all models, n = 4..=10
//! cargo bench -p prust-engine --bench ring_star -- ring 12      # one model, one size
//! cargo bench -p prust-engine --bench ring_star -- --reference ring 12
//! cargo bench -p prust-engine --bench ring_star -- --formula 'G ("r0 SEND *" -> F "r1 RECV *")' ring 8
//! cargo bench -p prust-engine --bench ring_star -- --threads 2 ring-packed 12
//! cargo bench -p prust-engine --bench ring_star -- --probed ring 12
//! cargo bench -p prust-engine --bench ring_star -- --declared-dummies ring 12
//! ```
//!
//! `--declared-dummies` checks with the objects' own dummies (`dummies![]`:
//! one `()`-payload message per declared type, which a `Message` keeps
//! unboxed) instead of `dummies![Token]` (a boxed unit struct, cloned
//! through its vtable): what the messages in transit cost the search.
//!
//! `--threads N` runs the engine's search on N threads (`Checker::threads`;
//! default 1 here, so that figures stay comparable with the one-thread
//! ones recorded before the parallel search; 0 means every core).
//!
//! Models: `ring`, `star` (objects with `Vec`s and the messages in transit)
//! and `ring-packed`, `star-packed` (the same states as bitmasks); see
//! `models`. They declare their topology (`Protocol::peers`), so the engine
//! probes only the pairs of roles that talk; `--no-peers` hides it, so the
//! engine probes every pair. The default formula is deadlock freedom,
//! `G !"DEADLOCK"`; `--formula` checks another one, which must hold.
//!
//! `ring` lists its enabled actions (`Protocol::enabled`), as
//! Stateright's model does; `--probed` hides the listing, so the engine
//! probes every channel (the cost for an object that does not list).
//!
//! `--reference` runs the engine-free reference explorer of `models` (plain
//! BFS over the try-operations, no automaton) instead of the engine: the
//! floor that any try-op based search pays for these objects. Options for
//! experiments (see `models::Pruning` and `models::Store`): `--prune
//! peers,recv-any` skips probes as the engine can, `--prune lifo` expands
//! states last-in first-out instead of breadth-first, and `--store
//! std|inline|interned` picks the layout of the visited set.
//!
//! `PRUST_HASH_COMPACTION=1` measures hash compaction and
//! `PRUST_BITSTATE=BITS` bitstate hashing (read by the checker, as
//! everywhere); under bitstate hashing fewer states than the closed form
//! are reported as `missed=N`, not as a failure.
//!
//! `PRUST_BENCH_CACHE_LIMIT=N` sets the engine's successor-cache limit (in
//! entries) for experiments; the recorded figures use the default.
//!
//! Each line gives the state count next to the closed form (the run fails
//! on a mismatch), the product states, the time, the rate (product states
//! per second), and the growth of peak RSS over the RSS before the search,
//! divided by the product states. For a clean memory figure run one model
//! and size per process, as `bench/peers/run.sh` does.

use testkit::models;

use std::process::ExitCode;
use std::time::Instant;

use engine::{dummies, Checker, Protocol};
use models::{AllPeers, PackedRing, PackedStar, Probed, Pruning, Ring, Star, Store, Token};

/// The models, by the names the command line and `bench/peers` use.
const MODELS: [&str; 4] = ["ring", "star", "ring-packed", "star-packed"];

/// The default property: deadlock freedom. It holds on every model, so the
/// search is exhaustive, and its automaton pairs every protocol state with
/// one automaton state, so product states = protocol states.
const DEADLOCK_FREE: &str = r#"G !"DEADLOCK""#;

/// The command line.
struct Options {
    reference: bool,
    /// Hide the models' topology from the engine (`--no-peers`).
    no_peers: bool,
    /// Hide `ring`'s listing of its enabled actions (`--probed`).
    probed: bool,
    /// Check with `dummies![]`, the objects' own (`--declared-dummies`).
    declared_dummies: bool,
    pruning: Pruning,
    store: Store,
    formula: String,
    threads: usize,
    jobs: Vec<(String, usize)>,
}

impl Options {
    fn parse(args: impl Iterator<Item = String>) -> Result<Options, String> {
        let mut reference = false;
        let mut no_peers = false;
        let mut probed = false;
        let mut declared_dummies = false;
        let mut pruning = Pruning::default();
        let mut store = Store::default();
        let mut formula = DEADLOCK_FREE.to_string();
        let mut threads = 1;
        let mut rest = Vec::new();
        let mut args = args;
        while let Some(a) = args.next() {
            match a.as_str() {
                // `cargo bench` passes `--bench`.
                "--bench" => {}
                "--reference" => reference = true,
                "--no-peers" => no_peers = true,
                "--probed" => probed = true,
                "--declared-dummies" => declared_dummies = true,
                "--prune" => {
                    for p in args
                        .next()
                        .ok_or("--prune needs a list of peers, recv-any, lifo")?
                        .split(',')
                    {
                        match p {
                            "peers" => pruning.peers = true,
                            "recv-any" => pruning.recv_any = true,
                            "lifo" => pruning.lifo = true,
                            _ => {
                                return Err(format!(
                                    "unknown pruning {p:?} (peers, recv-any, lifo)"
                                ))
                            }
                        }
                    }
                }
                "--store" => {
                    store = match args.next().as_deref() {
                        Some("std") => Store::Std,
                        Some("inline") => Store::Inline,
                        Some("interned") => Store::Interned,
                        _ => return Err("--store needs std, inline or interned".into()),
                    }
                }
                "--formula" => formula = args.next().ok_or("--formula needs a formula")?,
                "--threads" => {
                    threads = args
                        .next()
                        .and_then(|t| t.parse().ok())
                        .ok_or("--threads needs a number of threads")?
                }
                _ => rest.push(a),
            }
        }
        let jobs = match rest.as_slice() {
            [] => MODELS
                .iter()
                .flat_map(|m| (4..=10).map(move |n| (m.to_string(), n)))
                .collect(),
            [model, sizes @ ..] if !sizes.is_empty() => {
                if !MODELS.contains(&model.as_str()) {
                    return Err(format!("unknown model {model:?}"));
                }
                let size = |s: &String| match s.parse::<usize>() {
                    Ok(n) if (2..=16).contains(&n) => Ok((model.clone(), n)),
                    _ => Err(format!("size {s:?} is not a number in 2..=16")),
                };
                sizes.iter().map(size).collect::<Result<_, _>>()?
            }
            _ => return Err("a model needs at least one size".into()),
        };
        if (pruning.peers || pruning.recv_any || pruning.lifo || store != Store::Std) && !reference
        {
            return Err("--prune and --store apply to --reference only".into());
        }
        if declared_dummies && reference {
            return Err("--declared-dummies applies to the engine".into());
        }
        if probed && (reference || no_peers) {
            return Err("--probed applies to the engine (--no-peers probes already)".into());
        }
        if no_peers && reference {
            return Err("--no-peers applies to the engine; the reference uses --prune".into());
        }
        Ok(Options {
            reference,
            no_peers,
            probed,
            declared_dummies,
            pruning,
            store,
            formula,
            threads,
            jobs,
        })
    }
}

/// One measured search.
struct Run {
    /// Protocol states found.
    states: u64,
    /// States stored by the search (product states for the engine).
    stored: u64,
    transitions: u64,
    secs: f64,
    /// Bitstate hashing ran (`PRUST_BITSTATE`): states may be missed.
    bitstate: bool,
}

fn run_engine<P: Protocol>(init: P, opts: &Options) -> Result<Run, String> {
    let (formula, threads) = (opts.formula.as_str(), opts.threads);
    let mut checker = Checker::new()
        .threads(threads)
        .progress(false)
        .determinism_check(false)
        .max_states(u64::MAX);
    let cache_limit = std::env::var("PRUST_BENCH_CACHE_LIMIT").ok();
    if let Some(entries) = cache_limit.and_then(|v| v.parse().ok()) {
        checker = checker.cache_limit(entries);
    }
    let start = Instant::now();
    let report = checker
        .check(
            formula,
            init,
            if opts.declared_dummies {
                dummies![]
            } else {
                dummies![Token]
            },
        )
        .map_err(|e| e.to_string())?;
    let secs = start.elapsed().as_secs_f64();
    // PRUST_HASH_COMPACTION=1 measures hash compaction, PRUST_BITSTATE=BITS
    // bitstate hashing: then "holds" is probabilistic.
    if !report.holds_probabilistically() {
        return Err(format!("expected the property to hold:\n{report}"));
    }
    let s = &report.stats;
    if threads > 1 && s.threads == 1 {
        // Said, not hidden: the formula's search runs on one thread.
        eprintln!(
            "ring_star: on one thread: {}",
            s.single_thread.as_deref().unwrap_or("?")
        );
    }
    Ok(Run {
        states: s.protocol_states,
        stored: s.product_states,
        transitions: s.transitions,
        secs,
        bitstate: s.bitstate.is_some(),
    })
}

fn run_reference<P: Protocol>(init: P, opts: &Options) -> Run {
    let start = Instant::now();
    let e = models::explore(init, &dummies![Token], opts.pruning, opts.store);
    let secs = start.elapsed().as_secs_f64();
    assert_eq!(e.stuck, 0, "the bench models never get stuck");
    Run {
        states: e.states,
        stored: e.states,
        transitions: e.transitions,
        secs,
        bitstate: false,
    }
}

fn run<P: Protocol>(init: P, opts: &Options) -> Result<Run, String> {
    if opts.reference {
        Ok(run_reference(init, opts))
    } else if opts.no_peers {
        run_engine(AllPeers(init), opts)
    } else if opts.probed {
        run_engine(Probed(init), opts)
    } else {
        run_engine(init, opts)
    }
}

/// A field of /proc/self/status in kB (VmRSS, VmHWM), 0 where unavailable.
fn proc_status_kb(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

fn measure(model: &str, n: usize, opts: &Options) -> Result<(), String> {
    let rss_before = proc_status_kb("VmRSS");
    let run = match model {
        "ring" => run(Ring::new(n), opts),
        "star" => run(Star::new(n), opts),
        "ring-packed" => run(PackedRing::new(n), opts),
        "star-packed" => run(PackedStar::new(n), opts),
        _ => unreachable!("checked by Options::parse"),
    }
    .map_err(|e| format!("{model} n={n}: {e}"))?;
    let expected = if model.starts_with("ring") {
        Ring::expected_states(n)
    } else {
        Star::expected_states(n)
    };
    let grown = proc_status_kb("VmHWM").saturating_sub(rss_before) * 1024;
    // Bitstate hashing misses states by design: fewer is no failure.
    let ok = run.states == expected || (run.bitstate && run.states < expected);
    println!(
        "{} {model} n={n} states={} expected={expected} {} product={} transitions={} \
         threads={} time={:.3}s rate={:.0}/s peak_rss_growth={:.1}MB bytes_per_stored={:.0}",
        if opts.reference { "reference" } else { "prust" },
        run.states,
        match (run.states == expected, ok) {
            (true, _) => "ok".to_string(),
            (false, true) => format!("missed={}", expected - run.states),
            (false, false) => "MISMATCH".to_string(),
        },
        run.stored,
        run.transitions,
        if opts.reference { 1 } else { opts.threads },
        run.secs,
        run.stored as f64 / run.secs,
        grown as f64 / 1e6,
        grown as f64 / run.stored as f64,
    );
    if ok {
        Ok(())
    } else {
        Err(format!(
            "{model} n={n}: {} states, expected {expected}",
            run.states
        ))
    }
}

fn main() -> ExitCode {
    let opts = match Options::parse(std::env::args().skip(1)) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("ring_star: {e}");
            eprintln!(
                "usage: ring_star [--reference [--prune peers,recv-any] [--store std|inline|interned]] \
                 [--no-peers | --probed] [--formula LTL] [--threads N] [MODEL N...]   \
                 MODEL: {}",
                MODELS.join("|")
            );
            return ExitCode::from(2);
        }
    };
    if !opts.reference && opts.formula != DEADLOCK_FREE {
        println!("formula: {}", opts.formula);
    }
    let mut failed = false;
    for (model, n) in &opts.jobs {
        if let Err(e) = measure(model, *n, &opts) {
            eprintln!("ring_star: {e}");
            failed = true;
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
