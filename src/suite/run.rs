//! Turning suite files into libtest-mimic trials and running the checks.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use engine::env::{Environment, Reader};
use engine::{Checker, DefaultBudgets, Fairness, Semantics, Verdict};
use libtest_mimic::{Failed, Trial};

use super::format::{self, Expected, Plan, Suite};
use super::objects::Loaded;
use super::outcome::Outcome;
use crate::Runtime;

/// Checks `formula` on `protocol` in the given runtime and semantics, with
/// one dummy message of every type the protocol uses.
// One trial's settings, each from a different line of the suite file: a
// struct of them would be built at every call only to be taken apart here.
#[allow(clippy::too_many_arguments)]
fn check_loaded(
    protocol: &Loaded,
    runtime: Runtime,
    semantics: Semantics,
    formula: &str,
    max_states: Option<u64>,
    fairness: Option<Fairness>,
    env: &Result<Environment, engine::Error>,
    html: Option<&Path>,
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
    // The file's fairness, like its semantics, over the variable's.
    if let Some(f) = fairness {
        checker = checker.fairness(f);
    }
    match protocol.check(runtime, semantics, &checker, &build, formula) {
        Err(outcome) => outcome,
        Ok(report) => {
            if let Some(path) = html {
                // A page that cannot be written fails the entry: the user
                // asked for it, and a missing page would go unnoticed.
                if let Err(e) = report.write_html(path) {
                    return Outcome::Failure(format!("cannot write {}: {e}", path.display()));
                }
            }
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
        None,
        &Environment::read(Reader::Suite),
        None,
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
    // PRUST_HTML_DIR: one page per result, named after the trial.
    let html = env
        .as_ref()
        .ok()
        .and_then(|e| e.html_dir.as_ref())
        .map(|dir| {
            let name = format!(
                "{}-{}-{}-{}-{}.html",
                Path::new(file)
                    .file_stem()
                    .unwrap_or_default()
                    .to_string_lossy(),
                entry.name,
                proto.alias,
                plan.runtime.name(),
                plan.semantics.name()
            );
            let safe: String = name
                .chars()
                .map(|c| {
                    if c.is_alphanumeric() || "-_.".contains(c) {
                        c
                    } else {
                        '_'
                    }
                })
                .collect();
            dir.join(safe)
        });
    let outcome = check_loaded(
        &loaded[plan.protocol],
        plan.runtime,
        plan.semantics,
        &entry.formula,
        suite.max_states,
        suite.fairness,
        &env,
        html.as_deref(),
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
mod tests;
