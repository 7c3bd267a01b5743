//! `prust check`: verdicts of LTL formulas on a protocol object.
//!
//! Results (the verdicts, the summary line) go to stdout, as text or as JSON
//! Lines; errors (a formula that does not parse, an unknown protocol) go to
//! stderr.
//!
//! With `--format json`, stdout holds JSON Lines, one record per formula
//! (their schema is in `check/record.rs`).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use engine::hint::Audience;
use engine::{Checker, Report, Verdict};
use protocols::Object;
use prust::Runtime;

use super::object::{object, read_env, BuildLimit, Unbuilt};
use super::out::{self, Out};
use super::{CmdResult, Exit, Failure};
use engine::env::Reader;

mod args;
mod distributed;
mod record;
#[cfg(test)]
use args::parse_bits;
pub use args::{parse_timeout, CheckArgs, CheckFormat};
use record::record;

/// The long help of `prust check` (what `-h` leaves out): [`ABOUT`], then
/// the variables it reads, from the one table of them (`engine::env`).
pub fn long_about() -> String {
    let mut text = format!("{ABOUT}\n\nEnvironment variables read by prust check:");
    for v in engine::env::VARIABLES
        .iter()
        .filter(|v| v.is_read_by(Reader::Check) && !v.hidden)
    {
        text += &format!(
            "\n  {}: {} ({}; default: {})",
            v.name,
            v.meaning,
            v.kind.accepts(),
            v.default
        );
    }
    text
}

/// The long help's text before the variables.
const ABOUT: &str = "Check LTL formulas on a protocol: one verdict per formula.\n\n\
    Without PROTOCOL and FORMULA: a demo on the bundled chess protocol, one \
    property that holds and one that does not (exit 0 when both verdicts are \
    the expected ones).\n\n\
    Atoms are quoted actions such as \"white SEND <Move> TO black\", \
    \"* RECV *\", \"END\" or \"DEADLOCK\".\n\n\
    Environment variables: listed below (an option overrides its variable; \
    a bad value is an error, exit 3).\n\n\
    A check too big for one machine: run `prust check --share I/N ...` for \
    I = 1..N on N machines (no communication between them). Each share \
    reports \"holds on share I/N\" (exit 0), a violation (exit 1, a whole \
    run from the initial state) or inconclusive (exit 2); the property \
    holds when every share exits 0, and the largest exit status of the N \
    runs is the combined one.";

/// What `prust check` with no arguments shows: a bundled protocol, a
/// property that holds and one that is violated.
pub const DEMO_PROTOCOL: &str = "chess";
/// The demo's formulas: the first holds, the second is violated.
pub const DEMO_FORMULAS: [&str; 2] = [
    r#"!"black SEND <Move>" U "black RECV <Move>""#,
    r#"F "END""#,
];

/// Where the counterexample of the `k`-th of `n` formulas goes: `path`
/// itself for one formula, else `path-k` before the extension
/// (`run.trail` → `run-2.trail`).
fn numbered(path: &Path, k: usize, n: usize) -> PathBuf {
    if n == 1 {
        return path.to_path_buf();
    }
    let stem = path.file_stem().unwrap_or_default().to_string_lossy();
    let name = match path.extension() {
        Some(ext) => format!("{stem}-{k}.{}", ext.to_string_lossy()),
        None => format!("{stem}-{k}"),
    };
    path.with_file_name(name)
}

/// The outcome of one formula.
#[allow(clippy::large_enum_variant)] // one per formula, never stored in bulk
enum Outcome {
    /// The check ran: its report.
    Checked(Report),
    /// The error that prevented the check.
    Error(String),
    /// A limit stopped the build of the object before any search: as
    /// inconclusive as a search that reaches it.
    Unbuilt(BuildLimit),
}

/// Where verdicts go: text or JSON Lines on stdout.
struct Sink<'a> {
    out: &'a mut Out,
    /// Prints nothing: a process of a distributed check other than 0,
    /// which prints the verdicts (every process exits with them).
    quiet: bool,
    format: CheckFormat,
    protocol: &'a str,
    runtime: Runtime,
}

impl Sink<'_> {
    /// Prints the outcome of `formula`; an error also goes to stderr as a
    /// diagnostic (in JSON it is also a record: one record per formula).
    fn emit(&mut self, formula: &str, outcome: &Outcome) -> Result<(), Failure> {
        if let Outcome::Error(e) = outcome {
            out::diagnostic(&format!("error in formula {}\n{e}\n", shortened(formula)));
        }
        if self.quiet {
            return Ok(());
        }
        match (self.format, outcome) {
            (CheckFormat::Text, Outcome::Checked(report)) => writeln!(self.out, "{report}\n"),
            (CheckFormat::Text, Outcome::Error(_)) => Ok(()),
            (CheckFormat::Text, Outcome::Unbuilt(b)) => writeln!(
                self.out,
                "inconclusive: {formula}\n  building the object stopped: {}\n",
                b.message
            ),
            (CheckFormat::Json, _) => {
                let record = record(self.protocol, self.runtime, formula, outcome);
                writeln!(self.out, "{record}")?;
                // A consumer reading line by line gets each verdict as it
                // is decided, not when the last formula is done.
                self.out.flush()
            }
        }
    }
}

/// At most this many characters of a formula head its error: the error
/// itself shows the text around the mistake.
const SHOWN_FORMULA_CHARS: usize = 200;

/// `formula`, cut after [`SHOWN_FORMULA_CHARS`] characters (with `…`), its
/// control characters escaped (a terminal would act on them).
fn shortened(formula: &str) -> String {
    let mut shown = String::new();
    for c in formula.chars().take(SHOWN_FORMULA_CHARS) {
        if c.is_control() {
            shown.extend(c.escape_default());
        } else {
            shown.push(c);
        }
    }
    if formula.chars().nth(SHOWN_FORMULA_CHARS).is_some() {
        shown.push('…');
    }
    shown
}

/// The exit status of one outcome.
fn exit_of(outcome: &Outcome) -> Exit {
    match outcome {
        Outcome::Checked(r) => match r.verdict {
            // Asked for with --hash-compaction; the output says it.
            Verdict::Holds | Verdict::HoldsProbabilistic { .. } => Exit::Ok,
            // --share: this share found no violation. The same status as
            // holds, so that N shares combine as N formulas do (the
            // property holds when every share exits 0); the text and the
            // JSON say "holds on share", never "holds".
            Verdict::HoldsOnShare { .. } => Exit::Ok,
            Verdict::Violated(_) => Exit::Violated,
            Verdict::Inconclusive { .. } => Exit::Inconclusive,
        },
        Outcome::Error(_) => Exit::Error,
        Outcome::Unbuilt(_) => Exit::Inconclusive,
    }
}

/// Runs `prust check`.
pub fn run(args: &CheckArgs, out: &mut Out) -> CmdResult {
    // Both files are written after the search: the chart would replace the
    // trail without a word (and the k-th formula's files collide alike).
    if let (Some(trail), Some(dot)) = (&args.trail, &args.dot) {
        if out::same_file(trail, dot) {
            return Err(Failure::error(format!(
                "--trail and --dot name the same file {}: the chart would overwrite the trail",
                dot.display()
            ))
            .hint("give each its own file, e.g. --trail run.trail --dot run.dot"));
        }
    }
    let cluster = distributed::cluster(args)?;
    let env = read_env(Reader::Check)?;
    // Someone asked for this check: the budgets no variable sets are the
    // machine's, not a test's. Its reports name the options of `prust
    // check`, not the library's methods.
    let mut checker = Checker::from_environment(&env, engine::DefaultBudgets::Machine)
        .audience(Audience::CommandLine);
    if args.no_por {
        checker = checker.partial_order(false);
    }
    if args.hash_compaction {
        checker = checker.hash_compaction(true);
    }
    if args.bitstate.is_some() {
        checker = checker.bitstate(args.bitstate);
    }
    if args.shortest {
        checker = checker.shortest(true);
    }
    if let Some(n) = args.threads {
        // In range: the parser allows 0..=1024.
        checker = checker.threads(n as usize);
    }
    if let Some(s) = args.semantics {
        checker = checker.semantics(s);
    }
    if let Some(f) = args.fairness {
        checker = checker.fairness(f);
    }
    if let Some(share) = args.share {
        checker = checker.share_of(Some(share));
    }
    if let Some(k) = args.share_level {
        // Accepted with PRUST_SHARE too, so not a clap `requires`.
        if checker.current_share().is_none() {
            return Err(
                Failure::error("--share-level splits a shared check: no share was given")
                    .hint("add --share I/N (or set PRUST_SHARE=I/N), e.g. --share 1/4"),
            );
        }
        checker = checker.share_level(k);
    }
    if let Some(n) = args.max_states {
        checker = checker.max_states(n);
    }
    if let Some(t) = args.timeout {
        checker = checker.timeout(t);
    }
    if let Some(bytes) = args.max_memory {
        checker = checker.max_memory(bytes);
    }
    let text = args.format == CheckFormat::Text;

    let (protocol, formulas): (&str, Vec<&str>) = match (&args.protocol, &args.formulas[..]) {
        (None, _) => (DEMO_PROTOCOL, DEMO_FORMULAS.to_vec()),
        (Some(p), []) => {
            return Err(Failure::error(format!("no formula to check on {p}"))
                .hint(format!("e.g. prust check {p} 'G !\"DEADLOCK\"'")))
        }
        (Some(p), fs) => (p.as_str(), fs.iter().map(String::as_str).collect()),
    };
    let demo = args.protocol.is_none();
    if demo && text {
        writeln!(
            out,
            "prust check {DEMO_PROTOCOL} (demo: one property that holds, one that does not)\n"
        )?;
    }
    let quiet = cluster.as_ref().is_some_and(|c| !distributed::prints(c));
    let mut sink = Sink {
        out,
        quiet,
        format: args.format,
        protocol,
        runtime: args.runtime,
    };
    let started = Instant::now();
    // The build of the object is bounded by the limits of the search: the
    // option, else its variable (PRUST_TIMEOUT=2 once let a 15 s build
    // run to "holds" where --timeout 2 was inconclusive after 2 s).
    let limits = checker.limits();
    let visit = CheckAll {
        checker: &checker,
        formulas: &formulas,
        sink: &mut sink,
        trail: args.trail.as_deref(),
        dot: args.dot.as_deref(),
        html: args.html.as_deref(),
        cluster: cluster.as_ref(),
    };
    let codes = match object(protocol, args.runtime, &limits) {
        Ok(obj) => check_all(visit, obj)?,
        Err(Unbuilt::Failure(f)) => return Err(f),
        // Every formula is inconclusive: one verdict (and record) each.
        Err(Unbuilt::Limit(b)) => {
            let outcome = Outcome::Unbuilt(b);
            for formula in &formulas {
                sink.emit(formula, &outcome)?;
            }
            vec![exit_of(&outcome); formulas.len()]
        }
    };
    let elapsed = started.elapsed();
    // The most severe outcome decides the exit code (error > inconclusive >
    // violated > holds). The demo succeeds when its verdicts are the expected
    // ones: the first property holds, the second is violated.
    let code = if demo {
        if codes == [Exit::Ok, Exit::Violated] {
            if text {
                writeln!(out, "demo: both verdicts as expected")?;
            }
            Exit::Ok
        } else {
            out::diagnostic(
                "error: the demo's verdicts are not the expected ones (holds, then violated)",
            );
            Exit::Error
        }
    } else {
        codes.iter().copied().max().unwrap_or(Exit::Ok)
    };
    // The summary is a result, so stdout, and always the last line of text
    // output (JSON Lines carry only the per-formula records).
    if text && !quiet {
        let share = checker.current_share();
        // Bitstate hashing serves only the breadth-first (safety) search;
        // the others fall back to hash compaction, and each report names
        // its own.
        let probabilistic = if checker.uses_bitstate() {
            Some("bitstate hashing or hash compaction")
        } else if checker.uses_hash_compaction() {
            Some("hash compaction")
        } else {
            None
        };
        writeln!(
            out,
            "{}",
            summary(
                protocol,
                args.runtime,
                &codes,
                elapsed,
                share,
                probabilistic
            )
        )?;
    }
    Ok(code)
}

/// The summary line of a text run: how many formulas had which outcome.
///
/// With `--share`, the formulas that found no violation "hold on share
/// I/N": one share decides no formula that it does not find violated.
/// Under hash compaction or bitstate hashing (`probabilistic` names
/// which) they hold only up to the
/// omission probability, and the summary says so as each report does: a
/// reader of the last line alone must not take them for proofs.
fn summary(
    protocol: &str,
    runtime: Runtime,
    codes: &[Exit],
    elapsed: Duration,
    share: Option<engine::Share>,
    probabilistic: Option<&str>,
) -> String {
    let count = |e: Exit| codes.iter().filter(|c| **c == e).count();
    let mut hold = match share {
        Some(s) => format!(
            "hold on share {s} (a formula holds when it holds on every share 1/{n} to {n}/{n})",
            n = s.count()
        ),
        None => "hold".to_string(),
    };
    if let Some(approximation) = probabilistic {
        hold.push_str(&format!(" (probabilistic: {approximation})"));
    }
    format!(
        "{} formula(s) on {protocol} ({}): {} {hold}, {} violated, {} inconclusive, {} error(s); {:.3} s",
        codes.len(),
        runtime.name(),
        count(Exit::Ok),
        count(Exit::Violated),
        count(Exit::Inconclusive),
        count(Exit::Error),
        elapsed.as_secs_f64()
    )
}

/// What [`check_all`] checks and where it prints.
struct CheckAll<'a, 's> {
    checker: &'a Checker,
    formulas: &'a [&'a str],
    sink: &'a mut Sink<'s>,
    trail: Option<&'a Path>,
    dot: Option<&'a Path>,
    html: Option<&'a Path>,
    /// `--distributed`: where this process runs among the others.
    cluster: Option<&'a distributed::Cluster>,
}

/// Checks every formula on one object and prints a verdict for each; gives
/// the exit code of each formula's outcome.
fn check_all(visit: CheckAll<'_, '_>, obj: Object) -> Result<Vec<Exit>, Failure> {
    let CheckAll {
        checker,
        formulas,
        sink,
        trail,
        dot,
        html,
        cluster,
    } = visit;
    // The page re-executes a counterexample on a fresh object.
    let fresh = html.map(|_| obj.clone());
    // The object's own dummies, one per declared type: the engine's, so the
    // CLI, the suites and `dummies![]` probe the same messages.
    let dummies = engine::declared_dummies(&obj);
    if let Some(cluster) = cluster {
        let mut codes = Vec::new();
        for (k, formula) in formulas.iter().enumerate() {
            let (outcome, processes) =
                match distributed::check(cluster, checker, &obj, &dummies, formula) {
                    Ok(c) => (Outcome::Checked(c.report), c.processes),
                    Err(e) => (Outcome::Error(e), Vec::new()),
                };
            codes.push(exit_of(&outcome));
            sink.emit(formula, &outcome)?;
            if sink.quiet {
                continue;
            }
            if sink.format == CheckFormat::Text && !processes.is_empty() {
                writeln!(sink.out, "  {}\n", processes.join("\n  "))?;
            }
            if let Outcome::Checked(report) = &outcome {
                save_counterexample(report, sink.protocol, trail, dot, k + 1, formulas.len())?;
                if let (Some(path), Some(obj)) = (html, &fresh) {
                    let page = report.to_html_with_object(obj.clone());
                    super::html::write(&numbered(path, k + 1, formulas.len()), &page)?;
                }
            }
        }
        return Ok(codes);
    }
    let mut session = match checker.session(obj, dummies) {
        Ok(s) => s,
        Err(e) => {
            // No formula can be checked: each gets the error (one JSON
            // record per formula, whatever happens).
            let e = e.to_string();
            for formula in formulas {
                sink.emit(formula, &Outcome::Error(e.clone()))?;
            }
            return Ok(vec![Exit::Error; formulas.len()]);
        }
    };
    let mut codes = Vec::new();
    for (k, formula) in formulas.iter().enumerate() {
        let outcome = match session.check(formula) {
            Ok(report) => Outcome::Checked(report),
            Err(e) => Outcome::Error(e.to_string()),
        };
        codes.push(exit_of(&outcome));
        sink.emit(formula, &outcome)?;
        if let Outcome::Checked(report) = &outcome {
            save_counterexample(report, sink.protocol, trail, dot, k + 1, formulas.len())?;
            if let (Some(path), Some(obj)) = (html, &fresh) {
                let page = report.to_html_with_object(obj.clone());
                super::html::write(&numbered(path, k + 1, formulas.len()), &page)?;
            }
        }
    }
    Ok(codes)
}

/// Writes the counterexample of `report` (if any) to the `--trail` and
/// `--dot` files of the `k`-th of `n` formulas, and says where on stderr.
fn save_counterexample(
    report: &Report,
    protocol: &str,
    trail: Option<&Path>,
    dot: Option<&Path>,
    k: usize,
    n: usize,
) -> Result<(), Failure> {
    let Some(c) = report.counterexample() else {
        return Ok(());
    };
    let write = |path: PathBuf, text: String, what: &str| {
        std::fs::write(&path, text)
            .map_err(|e| Failure::error(format!("cannot write {}: {e}", path.display())))?;
        out::diagnostic(&format!("{what} written to {}", path.display()));
        Ok::<(), Failure>(())
    };
    if let (Some(path), Some(mut t)) = (trail, report.trail()) {
        t.protocol = Some(protocol.to_string());
        write(
            numbered(path, k, n),
            t.to_string(),
            "trail (prust replay PROTOCOL FILE)",
        )?;
    }
    if let Some(path) = dot {
        write(numbered(path, k, n), c.to_dot(), "message sequence chart")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
