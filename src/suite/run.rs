//! Turning suite files into libtest-mimic trials and running the checks.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use engine::env::{Environment, Reader};
use engine::{Checker, DefaultBudgets, Semantics, Verdict};
use libtest_mimic::{Failed, Trial};

use super::format::{self, Expected, Plan, Suite};
use super::objects::Loaded;
use super::outcome::Outcome;
use crate::Runtime;

/// Checks `formula` on `protocol` in the given runtime and semantics, with
/// one dummy message of every type the protocol uses.
fn check_loaded(
    protocol: &Loaded,
    runtime: Runtime,
    semantics: Semantics,
    formula: &str,
    max_states: Option<u64>,
    env: &Result<Environment, engine::Error>,
) -> Outcome {
    // A bad PRUST_* variable fails each test with its message, not a panic.
    let checker = match env {
        Ok(env) => Checker::from_environment(env, DefaultBudgets::Test),
        Err(e) => return Outcome::Failure(e.to_string()),
    };
    // The object is built within the variables' limits; the suite's own
    // `max-states` bounds the search only.
    let build = checker.limits();
    let mut checker = checker.progress(false).semantics(semantics);
    if let Some(n) = max_states {
        checker = checker.max_states(n);
    }
    match protocol.check(runtime, semantics, &checker, &build, formula) {
        Err(outcome) => outcome,
        Ok(report) => {
            let text = report.to_string();
            match report.verdict {
                // Only under PRUST_HASH_COMPACTION=1, which the user set:
                // passes, and the report's text says "probabilistic".
                Verdict::Holds | Verdict::HoldsProbabilistic { .. } => Outcome::Holds(text),
                Verdict::Violated(_) => Outcome::Violated(text),
                // Only under PRUST_SHARE: one share of a split check is no
                // proof, and a suite entry is one whole check.
                Verdict::HoldsOnShare { .. } | Verdict::Inconclusive { .. } => {
                    Outcome::Inconclusive(text)
                }
            }
        }
    }
}

/// Checks `formula` on the protocol `spec` (a bundled protocol such as
/// `token-star:4`, or a path to an `.aut` file) in one runtime and
/// semantics, as a suite entry would.
///
/// ```
/// use prust::suite::{check_entry, Outcome, Runtime, Semantics};
/// let outcome = check_entry("chess", Runtime::Strict, Semantics::Stutter,
///                           r#"G !"DEADLOCK""#, None);
/// assert!(matches!(outcome, Outcome::Holds(_)));
/// ```
pub fn check_entry(
    spec: &str,
    runtime: Runtime,
    semantics: Semantics,
    formula: &str,
    max_states: Option<u64>,
) -> Outcome {
    check_loaded(
        &Loaded::new(spec, Path::new(".")),
        runtime,
        semantics,
        formula,
        max_states,
        &Environment::read(Reader::Suite),
    )
}

/// One trial per entry × protocol × runtime × semantics of every `.owl` file
/// under `dir` (files in path order, entries in file order); a file that
/// cannot be read or parsed is one failing trial, and so is a folder without
/// suites.
pub fn trials(dir: &Path) -> Vec<Trial> {
    let dir = resolve_dir(dir);
    let mut files = Vec::new();
    if let Err(e) = collect_owl_files(&dir, &mut files) {
        let msg = format!("cannot read the suite folder {}: {e}", dir.display());
        return vec![Trial::test("(suites)", move || Err(msg.into()))];
    }
    if files.is_empty() {
        let msg = format!("no .owl files under {}", dir.display());
        return vec![Trial::test("(suites)", move || Err(msg.into()))];
    }
    files.sort();
    let mut out = Vec::new();
    for path in files {
        let name = suite_name(&dir, &path);
        out.extend(file_trials(&name, &path));
    }
    out
}

/// Relative folders are taken from the current directory, or failing that
/// from the package root cargo reports.
fn resolve_dir(dir: &Path) -> PathBuf {
    if dir.is_relative() && !dir.exists() {
        if let Some(root) = std::env::var_os("CARGO_MANIFEST_DIR") {
            let candidate = Path::new(&root).join(dir);
            if candidate.exists() {
                return candidate;
            }
        }
    }
    dir.to_path_buf()
}

fn collect_owl_files(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            collect_owl_files(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "owl") {
            out.push(path);
        }
    }
    Ok(())
}

/// `dir/games/chess.owl` is `games::chess`.
fn suite_name(dir: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(dir).unwrap_or(path).with_extension("");
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("::")
}

/// The text of the suite file at `path`, or why it cannot be read with the
/// hint the CLI gives for its other files: the CLI's reader, so a folder or
/// a device is refused at once, and one cause gets one hint.
fn read_suite(path: &Path) -> Result<String, String> {
    protocols::files::read_text(path).map_err(|e| {
        let (message, hint) =
            protocols::files::read_failure(path, &e, protocols::files::FileKind::Suite);
        format!("{message}\n  hint: {hint}")
    })
}

/// The trials of one file (or the one failing trial that reports why the
/// file is unusable).
pub(crate) fn file_trials(name: &str, path: &Path) -> Vec<Trial> {
    let shown = path.display().to_string();
    let text = match read_suite(path) {
        Ok(text) => text,
        Err(msg) => {
            return vec![Trial::test(format!("{name}::(file)"), move || {
                Err(msg.into())
            })];
        }
    };
    let planned = format::parse(&text).and_then(|suite| suite.plan().map(|plans| (suite, plans)));
    let (suite, plans) = match planned {
        Ok(ok) => ok,
        Err(errors) => {
            let mut msg = String::new();
            for e in errors {
                let _ = writeln!(msg, "{shown}:{e}");
            }
            return vec![Trial::test(format!("{name}::(file)"), move || {
                Err(msg.into())
            })];
        }
    };
    let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let loaded: Arc<Vec<Loaded>> = Arc::new(
        suite
            .protocols
            .iter()
            .map(|p| Loaded::new(&p.spec, &base))
            .collect(),
    );
    let suite = Arc::new(suite);
    let several = suite.protocols.len() > 1;
    plans
        .into_iter()
        .map(|plan| {
            let entry = &suite.entries[plan.entry];
            let mut trial_name = format!("{name}::{}", entry.name);
            if several {
                let _ = write!(trial_name, "::{}", suite.protocols[plan.protocol].alias);
            }
            let _ = write!(
                trial_name,
                "::{}::{}",
                plan.runtime.name(),
                plan.semantics.name()
            );
            let suite = Arc::clone(&suite);
            let loaded = Arc::clone(&loaded);
            let shown = shown.clone();
            Trial::test(trial_name, move || run_plan(&suite, &loaded, &plan, &shown))
        })
        .collect()
}

/// Runs one planned check and compares it with what the file expects.
fn run_plan(suite: &Suite, loaded: &[Loaded], plan: &Plan, file: &str) -> Result<(), Failed> {
    let entry = &suite.entries[plan.entry];
    let proto = &suite.protocols[plan.protocol];
    // Read once for the check and for the report switch.
    let env = Environment::read(Reader::Suite);
    let outcome = check_loaded(
        &loaded[plan.protocol],
        plan.runtime,
        plan.semantics,
        &entry.formula,
        suite.max_states,
        &env,
    );
    // A bad value fails the entry's check above, so here it can only be
    // unset.
    let reports = env.is_ok_and(|env| env.suite_reports == Some(true));
    if reports {
        // libtest-mimic does not capture output: this shows every report,
        // statistics included, for tests that pass as well.
        let report = match &outcome {
            Outcome::Holds(r)
            | Outcome::Violated(r)
            | Outcome::Inconclusive(r)
            | Outcome::Refused(r)
            | Outcome::Failure(r) => r,
        };
        eprintln!(
            "{}::{} [{} {}]\n{report}\n",
            proto.alias,
            entry.name,
            plan.runtime.name(),
            plan.semantics.name()
        );
    }
    let got = match &outcome {
        Outcome::Holds(_) => "holds",
        Outcome::Violated(_) => "violated",
        Outcome::Inconclusive(_) => "inconclusive",
        Outcome::Refused(_) => "the formula refused",
        Outcome::Failure(_) => "a failure",
    };
    let passed = match (&plan.expected, &outcome) {
        (Expected::Holds, Outcome::Holds(_)) | (Expected::Violated, Outcome::Violated(_)) => true,
        (Expected::Error(parts), Outcome::Refused(msg)) => parts.iter().all(|p| msg.contains(p)),
        _ => false,
    };
    if passed {
        return Ok(());
    }
    let mut msg = format!(
        "{file}:{}: `{}` on {} ({} runtime, {} semantics): expected {}, got {got}\n",
        entry.pos,
        entry.name,
        proto.spec,
        plan.runtime.name(),
        plan.semantics.name(),
        plan.expected,
    );
    let _ = writeln!(msg, "formula: {}", entry.source);
    if entry.formula != entry.source {
        let _ = writeln!(msg, "expanded: {}", entry.formula);
    }
    match &outcome {
        Outcome::Holds(report)
        | Outcome::Violated(report)
        | Outcome::Inconclusive(report)
        | Outcome::Refused(report)
        | Outcome::Failure(report) => {
            let _ = writeln!(msg, "\n{report}");
        }
    }
    if let (Expected::Error(parts), Outcome::Refused(report)) = (&plan.expected, &outcome) {
        let missing: Vec<_> = parts
            .iter()
            .filter(|p| !report.contains(p.as_str()))
            .collect();
        let _ = writeln!(msg, "the error message lacks {missing:?}");
    }
    Err(msg.into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use libtest_mimic::Arguments;

    /// A fresh folder under the system's temporary directory.
    fn folder(name: &str, files: &[(&str, &str)]) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("prust-suite-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for (path, text) in files {
            let path = dir.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// The variables `vars` as a suite reads them.
    fn env_of(vars: &[(&str, &str)]) -> Result<Environment, engine::Error> {
        Environment::read_from(Reader::Suite, |name| {
            vars.iter().find(|(n, _)| *n == name).map(|(_, v)| v.into())
        })
    }

    /// The limit variables bound the build of a suite's object too (the
    /// table says suites read them), and a limit reached there is
    /// inconclusive, like one reached in the search: the protocol may be
    /// fine, only too big for the limits. (Suites built with the protocols
    /// crate's defaults, and reported such a limit as a failure.)
    #[test]
    fn the_limit_variables_bound_the_build_and_stop_it_inconclusive() {
        for (var, value, says) in [
            (
                "PRUST_MAX_STATES",
                "3",
                "the global LTS has more than 3 states",
            ),
            (
                "PRUST_TIMEOUT",
                "1e-9",
                "building the global LTS stopped at the time limit",
            ),
            (
                "PRUST_MAX_MEMORY",
                "1K",
                "building the global LTS stopped at the memory limit (1024 bytes",
            ),
        ] {
            for runtime in [Runtime::Strict, Runtime::Liberal] {
                let outcome = check_loaded(
                    &Loaded::new("token-full-mesh:4", Path::new(".")),
                    runtime,
                    Semantics::Stutter,
                    r#"G !"DEADLOCK""#,
                    None,
                    &env_of(&[(var, value)]),
                );
                match outcome {
                    Outcome::Inconclusive(text) => {
                        assert!(text.contains(says), "{var}={value} {runtime}: {text}")
                    }
                    other => panic!("{var}={value} {runtime}: {other:?}"),
                }
            }
        }
        // Unset, the build and the check go through.
        let outcome = check_loaded(
            &Loaded::new("token-full-mesh:4", Path::new(".")),
            Runtime::Liberal,
            Semantics::Stutter,
            r#"G !"DEADLOCK""#,
            None,
            &env_of(&[]),
        );
        assert!(matches!(outcome, Outcome::Holds(_)), "{outcome:?}");
    }

    fn names(trials: &[Trial]) -> Vec<String> {
        trials.iter().map(|t| t.name().to_string()).collect()
    }

    /// Runs the trials on one thread, printing into a log file rather than
    /// among this test's own output; (passed, failed).
    fn run(trials: Vec<Trial>) -> (u64, u64) {
        static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let log = std::env::temp_dir().join(format!("prust-suite-{}-{n}.log", std::process::id()));
        let args = Arguments {
            quiet: true,
            test_threads: Some(1),
            logfile: Some(log.to_string_lossy().into_owned()),
            ..Arguments::default()
        };
        let c = libtest_mimic::run(&args, trials);
        let _ = std::fs::remove_file(log);
        (c.num_passed, c.num_failed)
    }

    const CHESS: &str = r#"
protocol chess
runtime strict
test white_first holds
    !"black SEND <Move>" U "white SEND <Move>"
test black_first violated
    !"white SEND <Move>" U "black SEND <Move>"
"#;

    #[test]
    fn one_trial_per_entry_runtime_and_semantics_named_after_the_file() {
        let dir = folder("names", &[("games/chess.owl", CHESS)]);
        let trials = trials(&dir);
        assert_eq!(
            names(&trials),
            [
                "games::chess::white_first::strict::stutter",
                "games::chess::white_first::strict::omega",
                "games::chess::black_first::strict::stutter",
                "games::chess::black_first::strict::omega",
            ]
        );
        assert_eq!(run(trials), (4, 0));
    }

    #[test]
    fn several_protocols_put_their_names_after_the_entry() {
        let text = "protocol token-star:4 as star\nprotocol token-directed-ring:4 as ring\n\
                    runtime liberal\nsemantics omega\n\
                    test P3 violated holds@star\n G(\"worker_1_ RECV *\" => X \"worker_1_ SEND * TO worker_0_\")\n";
        let dir = folder("several", &[("topo.owl", text)]);
        let trials = trials(&dir);
        assert_eq!(
            names(&trials),
            [
                "topo::P3::star::liberal::omega",
                "topo::P3::ring::liberal::omega"
            ]
        );
        assert_eq!(run(trials), (2, 0));
    }

    #[test]
    fn a_wrong_expectation_fails() {
        let text = CHESS.replace("black_first violated", "black_first holds");
        let dir = folder("wrong", &[("chess.owl", &text)]);
        assert_eq!(run(trials(&dir)), (2, 2));
    }

    #[test]
    fn a_bad_file_is_one_failing_test_beside_the_good_ones() {
        let dir = folder(
            "bad",
            &[
                ("good.owl", CHESS),
                ("bad.owl", "protocol chess\ntest t hold\n \"True\"\n"),
            ],
        );
        let trials = trials(&dir);
        assert_eq!(names(&trials)[0], "bad::(file)");
        assert_eq!(trials.len(), 5);
        assert_eq!(run(trials), (4, 1));
    }

    #[test]
    fn an_unreadable_suite_fails_with_the_hint_of_its_cause() {
        let dir = folder("unreadable", &[]);
        let binary = dir.join("binary.owl");
        std::fs::write(&binary, b"protocol chess\n\xff\xfe\n").unwrap();
        let msg = read_suite(&binary).unwrap_err();
        assert!(msg.contains("cannot read"), "{msg}");
        assert!(msg.contains("hint: an .owl suite is UTF-8 text"), "{msg}");
        // A folder named like a suite is not read as one (nor walked
        // into by the reader).
        let folder_path = dir.join("folder.owl");
        std::fs::create_dir_all(&folder_path).unwrap();
        let msg = read_suite(&folder_path).unwrap_err();
        assert!(msg.contains("not the folder"), "{msg}");
        let msg = read_suite(Path::new("/dev/null")).unwrap_err();
        assert!(msg.contains("a regular .owl suite"), "{msg}");
        assert_eq!(run(file_trials("binary", &binary)), (0, 1));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn an_empty_or_missing_folder_fails() {
        let dir = folder("empty", &[]);
        let trials = trials(&dir);
        assert_eq!(names(&trials), ["(suites)"]);
        assert_eq!(run(trials), (0, 1));
        assert_eq!(run(super::trials(&dir.join("nowhere"))), (0, 1));
    }

    #[test]
    fn an_unknown_protocol_fails_every_test_of_the_file() {
        let dir = folder(
            "unknown",
            &[(
                "x.owl",
                "protocol chss\nruntime strict\nsemantics stutter\ntest t holds\n \"True\"\n",
            )],
        );
        assert_eq!(run(trials(&dir)), (0, 1));
        match check_entry(
            "chss",
            Runtime::Strict,
            Semantics::Stutter,
            "\"True\"",
            None,
        ) {
            Outcome::Failure(msg) => assert!(msg.contains("chess"), "{msg}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn error_entries_pass_only_on_a_refused_formula_with_the_message() {
        let text = r#"
protocol chess
runtime strict
semantics stutter
test typo error "unknown role `whte`"
    G "whte SEND <Move>"
test wrong_message error "no such text"
    G "whte SEND <Move>"
test not_an_error error
    G "white SEND <Move>"
"#;
        let dir = folder("errors", &[("e.owl", text)]);
        assert_eq!(run(trials(&dir)), (1, 2));
    }

    #[test]
    fn check_entry_reports_each_outcome() {
        let c = |f: &str, s| check_entry("chess", Runtime::Liberal, s, f, None);
        assert!(matches!(
            c("G !\"DEADLOCK\"", Semantics::Stutter),
            Outcome::Holds(_)
        ));
        match c("G !\"black SEND *\"", Semantics::InfiniteRunsOnly) {
            Outcome::Violated(report) => assert!(report.contains("black SEND <Move>"), "{report}"),
            other => panic!("{other:?}"),
        }
        assert!(matches!(c("G (", Semantics::Stutter), Outcome::Refused(_)));
        let limited = check_entry(
            "token-full-mesh:4",
            Runtime::Strict,
            Semantics::Stutter,
            "G !\"DEADLOCK\"",
            Some(2),
        );
        assert!(matches!(limited, Outcome::Inconclusive(_)), "{limited:?}");
    }

    /// Every runtime × semantics has its own session: a file that expects
    /// different verdicts per semantics passes on every runtime only if no
    /// two combinations share one.
    #[test]
    fn each_runtime_and_semantics_checks_in_its_own_session() {
        let text = "protocol two-buyer\nruntime on-the-fly liberal strict\n\
                    test vacuous violated@stutter holds@omega\n G F \"buyer1 SEND *\"\n\
                    test terminates holds\n F \"END\"\n";
        let dir = folder("sessions", &[("two-buyer.owl", text)]);
        let trials = trials(&dir);
        assert_eq!(names(&trials)[0], "two-buyer::vacuous::on-the-fly::stutter");
        assert_eq!(run(trials), (12, 0));
    }

    #[test]
    fn aut_files_are_found_next_to_the_suite() {
        let dir = folder(
            "aut",
            &[
                ("sub/stuck.aut", "des (0, 1, 2)\n(0,\"?(Msg,a,b)\",1)\n"),
                (
                    "sub/stuck.owl",
                    "protocol stuck.aut\ntest no_deadlock violated@stutter holds@omega\n G !\"DEADLOCK\"\n",
                ),
            ],
        );
        assert_eq!(run(trials(&dir)), (4, 0));
    }
}
