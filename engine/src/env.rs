//! The `PRUST_*` environment variables: one table of them
//! ([`VARIABLES`]) and one reader ([`Environment::read`]), for every front
//! end (the library's [`Checker::from_env`](crate::Checker::from_env), the
//! `prust` commands, `.owl` suites and `prust::explore`). A variable means
//! the same wherever it is read, takes the same values, and a value that
//! does not parse is the same [`Error::Config`] everywhere: a front end
//! reads only the variables the table says it uses, and never parses one
//! itself.
//!
//! Options set in code or on the command line override their variable; a
//! limit reached is always inconclusive (or an incomplete exploration),
//! never "holds".
//!
//! | variable | meaning | values | default | read by |
//! |---|---|---|---|---|
//! | `PRUST_MAX_STATES` | stop (inconclusive) after this many states: product states of a search, states of a table built (LTS, determinisation, projection) | a whole number such as 1000000 (`_` allowed) | 10 000 000 (a search), 1 000 000 (a table built) | check, lint, import, lts, suite |
//! | `PRUST_MAX_DEPTH` | stop (inconclusive) beyond this run length | a whole number such as 1000000 (`_` allowed) | unlimited | check, suite |
//! | `PRUST_TIMEOUT` | wall-clock budget (of a check: per formula, from its text to the verdict, building the object included; of an exploration: the whole of it); inconclusive or incomplete when it runs out | positive seconds such as 30 or 0.5, or inf for none (as is anything above 10⁹); 0 is an error | 60 s, sized for a test (`prust` commands: none) | check, lint, import, lts, translate, explore, suite |
//! | `PRUST_MAX_MEMORY` | memory budget: a search or build that needs more ends inconclusive, never "holds" nor an allocation abort | a size in bytes or with a binary unit, such as 512M or 2G | half the available memory or of the cgroup limit, at most a quarter of what `RLIMIT_AS` leaves, and at most 2 GiB in a test | check, lint, import, lts, translate, suite |
//! | `PRUST_SEMANTICS` | how runs that stop count: `stutter` (extended by stutter steps, SPIN's) or `omega` (infinite runs only, Prut4j's) | `stutter` or `omega` | `stutter` | check, suite |
//! | `PRUST_FAIRNESS` | which runs may refute a liveness property: `none` (every run) or `weak` (only runs in which no role stays enabled without ever moving; safety verdicts do not change) | `none` or `weak` | `none` | check, suite |
//! | `PRUST_PROGRESS` | a progress line on stderr during long searches and explorations: `1` forces it, `0` hides it | 1 or 0 (also true/false, yes/no, on/off) | when stderr is a terminal (explore: off) | check, suite, explore |
//! | `PRUST_DETERMINISM` | probe every action twice to check that the object is deterministic (the search then runs on one thread) | 1 or 0 (also true/false, yes/no, on/off) | on in debug builds | check, suite |
//! | `PRUST_POR` | partial-order reduction (`0`: search every interleaving; never changes a verdict) | 1 or 0 (also true/false, yes/no, on/off) | on | check, suite |
//! | `PRUST_BITSTATE` | bitstate hashing with an array of this many bits (e.g. 1073741824, 2³⁰): a property that holds is then "holds (probabilistic: bitstate hashing)", never a proof | a whole number of bits such as 1073741824 (`_` allowed), rounded up to a power of two and at least 64 (the report states the bits used); 0 is an error | off | check, suite |
//! | `PRUST_SHORTEST` | shorten a counterexample (explore: a failing schedule) to a shortest one (`1`: always, within the limits; `0`: never; unset: when it costs at most one and a half times the search's states, explore: as many executions as the exploration ran, and at least 2000; never changes a verdict) | 1 or 0 (also true/false, yes/no, on/off) | when it costs at most 1.5× the search (explore: max(executions, 2000)) | check, suite, explore |
//! | `PRUST_HASH_COMPACTION` | store 64-bit fingerprints: a property that holds is then "holds (probabilistic)", never a proof | 1 or 0 (also true/false, yes/no, on/off) | off | check, suite |
//! | `PRUST_COLLAPSE` | store states as their bytes (`Protocol::encode`) or as whole objects; never changes a verdict | 1 or 0 (also true/false, yes/no, on/off) | the object's `Protocol::prefers_bytes` | check, suite |
//! | `PRUST_THREADS` | threads of the search | a whole number, at most 1024; 0 for every core | every core | check, suite |
//! | `PRUST_PARALLEL_LEVEL` | with several threads, breadth-first levels smaller than this are expanded by one thread; never changes a verdict | a whole number such as 1000000 (`_` allowed) | 1 024 | check, suite |
//! | `PRUST_SHARE` | search share I of a check split over N machines ("holds on share I/N", never "holds") | a share I/N such as 1/4 (empty: none) | the whole check | check, suite |
//! | `PRUST_SHARE_LEVEL` | the breadth-first level at which a shared check is split | a whole number such as 1000000 (`_` allowed) | the first level of 32 states a share | check, suite |
//! | `PRUST_TRAIL_DIR` | a folder where every failing library check saves its counterexample as a trail file (`prust check` uses `--trail` instead) | a folder (empty: none) | none | check |
//! | `PRUST_HTML_DIR` | a folder where `.owl` suites write one self-contained HTML page per result (`prust check` uses `--html` instead) | a folder (empty: none) | none | suite |
//! | `PRUST_SUITE_REPORTS` | `.owl` suites print the reports of passing tests too | 1 or 0 (also true/false, yes/no, on/off) | off | suite |
//! | `PRUST_PREEMPTION_BOUND` | at most this many preemptions per execution (schedules skipped make the exploration incomplete) | a whole number, or `none` | none: every schedule | explore |
//! | `PRUST_MAX_STEPS` | stop an execution after this many steps (it is aborted, the exploration incomplete) | a whole number such as 1000000 (`_` allowed) | 10 000 | explore |
//! | `PRUST_MAX_EXECUTIONS` | stop the exploration after this many executions (incomplete) | a whole number such as 1000000 (`_` allowed) | 100 000 | explore |
//! | `PRUST_ROLE_TIMEOUT` | how long a role may run without reaching the scheduler before the execution is aborted | positive seconds such as 30 or 0.5, or inf for none (as is anything above 10⁹); 0 is an error | 10 s | explore |
//! | `PRUST_SCHEDULE` | replay this printed schedule only (one schedule is never a proof: a warning on stderr says so) | a schedule as an exploration prints it | explore every schedule | explore |
//! | `PRUST_REDUCTION` | the exploration's reduction | `none`, `sleep-sets` or `dpor` | `dpor` | explore |
//! | `PRUST_SEED` | the seed of a sampled exploration (`Explorer::random`, `Explorer::pct`) whose program gives none; the report prints the seed it ran with | a whole number such as 1000000 (`_` allowed) | a fresh seed each run | explore |
//!
//! "Read by": `check` is `prust check` and the library's
//! [`Checker::from_env`](crate::Checker::from_env); `lint`, `import` and
//! `lts` are those `prust` commands, which bound the tables they build;
//! `suite` is an `.owl` suite (`prust::suite`); `explore` is
//! `prust::explore::Explorer`. A front end that does not read a variable
//! ignores it, whatever its value.
//!
//! ```
//! use engine::env::{Environment, Reader};
//! let env = Environment::read(Reader::Lts).expect("valid PRUST_* variables");
//! // `prust lts` builds a table: it reads the state limit, not the depth.
//! assert!(env.limits.max_depth.is_none());
//! # let _ = env.limits.max_states;
//! ```

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use crate::checker::{Checker, Share};
use crate::error::Error;
use crate::fairness::Fairness;
use crate::limits::Limits;
use crate::semantics::Semantics;

mod table;

pub use table::{variable, Kind, Reader, Variable, VARIABLES};

/// The values of the `PRUST_*` variables that one [`Reader`] reads, parsed
/// ([`Environment::read`]); `None` where the variable is unset or not read
/// by that reader. What a value means is in the [table](self).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Environment {
    /// The limit variables: `PRUST_MAX_STATES`, `PRUST_MAX_DEPTH`,
    /// `PRUST_TIMEOUT` (`inf`: `Duration::MAX`, no timeout),
    /// `PRUST_MAX_MEMORY` (bytes), `PRUST_MAX_STEPS`,
    /// `PRUST_MAX_EXECUTIONS` and `PRUST_ROLE_TIMEOUT` (`inf`:
    /// `Duration::MAX`), each field `None` where its variable is unset or
    /// not read; one value for the build, the search and the exploration
    /// (see [`Limits`]).
    pub limits: Limits,
    /// `PRUST_SEMANTICS`.
    pub semantics: Option<Semantics>,
    /// `PRUST_FAIRNESS`.
    pub fairness: Option<Fairness>,
    /// `PRUST_PROGRESS`.
    pub progress: Option<bool>,
    /// `PRUST_PROGRESS_AFTER_MS`.
    pub progress_after: Option<Duration>,
    /// `PRUST_DETERMINISM`.
    pub determinism: Option<bool>,
    /// `PRUST_POR`.
    pub por: Option<bool>,
    /// `PRUST_SHORTEST`.
    pub shortest: Option<bool>,
    /// `PRUST_HASH_COMPACTION`.
    pub hash_compaction: Option<bool>,
    /// `PRUST_BITSTATE`: the bits of the array.
    pub bitstate: Option<u64>,
    /// `PRUST_COLLAPSE`.
    pub collapse: Option<bool>,
    /// `PRUST_THREADS`: 0 means every core.
    pub threads: Option<u64>,
    /// `PRUST_PARALLEL_LEVEL`.
    pub parallel_level: Option<u64>,
    /// `PRUST_SHARE` (empty: `None`).
    pub share: Option<Share>,
    /// `PRUST_SHARE_LEVEL`.
    pub share_level: Option<u64>,
    /// `PRUST_TRAIL_DIR` (empty: `None`).
    pub trail_dir: Option<PathBuf>,
    /// `PRUST_HTML_DIR` (empty: `None`).
    pub html_dir: Option<PathBuf>,
    /// `PRUST_SUITE_REPORTS`.
    pub suite_reports: Option<bool>,
    /// `PRUST_PREEMPTION_BOUND`: `Some(None)` is `none`, no bound.
    pub preemption_bound: Option<Option<u64>>,
    /// `PRUST_SCHEDULE`, for its reader to parse.
    pub schedule: Option<String>,
    /// `PRUST_REDUCTION`, for its reader to parse.
    pub reduction: Option<String>,
    /// `PRUST_SEED`.
    pub seed: Option<u64>,
}

/// One variable's value, parsed by its [`Kind`].
enum Value {
    Count(u64),
    CountOrNone(Option<u64>),
    Seconds(Option<Duration>),
    Switch(bool),
    Semantics(Semantics),
    Fairness(Fairness),
    Share(Option<Share>),
    Folder(Option<PathBuf>),
    Text(String),
}

impl Environment {
    /// Reads the variables that `reader` reads (the table's last column)
    /// from the process's environment.
    ///
    /// # Errors
    /// The first variable whose value does not parse (or is not Unicode),
    /// as an [`Error::Config`] that names it and says what it takes.
    ///
    /// A `PRUST_*` variable set that prust does not know (a misspelt
    /// `PRUST_MAX_DEPTH` would otherwise be ignored, and a limit the user
    /// believes in would not apply) gets a warning on stderr, once per
    /// process, with the nearest known name ([`unknown_variables`]).
    pub fn read(reader: Reader) -> Result<Environment, Error> {
        static WARNED: std::sync::Once = std::sync::Once::new();
        WARNED.call_once(|| {
            let names = std::env::vars_os().filter_map(|(k, _)| k.into_string().ok());
            for warning in unknown_variables(names) {
                eprintln!("warning: {warning}");
            }
        });
        Self::read_from(reader, |name| std::env::var_os(name))
    }

    /// [`read`](Self::read) from `lookup` instead of the process's
    /// environment (a test, or a front end with its own environment).
    ///
    /// ```
    /// use engine::env::{Environment, Reader};
    /// let look = |name: &str| (name == "PRUST_TIMEOUT").then(|| "0".into());
    /// // Zero is an error wherever the timeout is read.
    /// for reader in [Reader::Check, Reader::Lts, Reader::Explore] {
    ///     assert!(Environment::read_from(reader, look).is_err());
    /// }
    /// ```
    pub fn read_from(
        reader: Reader,
        lookup: impl Fn(&str) -> Option<OsString>,
    ) -> Result<Environment, Error> {
        let mut env = Environment::default();
        for var in VARIABLES.iter().filter(|v| v.is_read_by(reader)) {
            let Some(raw) = lookup(var.name) else {
                continue;
            };
            let value = parse(var, raw)?;
            env.set(var.name, value);
        }
        Ok(env)
    }

    fn set(&mut self, name: &str, value: Value) {
        use Value as V;
        match (name, value) {
            ("PRUST_MAX_STATES", V::Count(n)) => self.limits.max_states = Some(n),
            ("PRUST_MAX_DEPTH", V::Count(n)) => self.limits.max_depth = Some(n),
            // `inf`: a timeout that never runs out, whatever the default.
            ("PRUST_TIMEOUT", V::Seconds(t)) => {
                self.limits.timeout = Some(t.unwrap_or(Duration::MAX))
            }
            ("PRUST_MAX_MEMORY", V::Count(n)) => self.limits.max_memory = Some(n),
            ("PRUST_SEMANTICS", V::Semantics(s)) => self.semantics = Some(s),
            ("PRUST_FAIRNESS", V::Fairness(f)) => self.fairness = Some(f),
            ("PRUST_PROGRESS", V::Switch(b)) => self.progress = Some(b),
            ("PRUST_PROGRESS_AFTER_MS", V::Count(n)) => {
                self.progress_after = Some(Duration::from_millis(n))
            }
            ("PRUST_DETERMINISM", V::Switch(b)) => self.determinism = Some(b),
            ("PRUST_POR", V::Switch(b)) => self.por = Some(b),
            ("PRUST_SHORTEST", V::Switch(b)) => self.shortest = Some(b),
            ("PRUST_HASH_COMPACTION", V::Switch(b)) => self.hash_compaction = Some(b),
            ("PRUST_BITSTATE", V::Count(n)) => self.bitstate = Some(n),
            ("PRUST_COLLAPSE", V::Switch(b)) => self.collapse = Some(b),
            ("PRUST_THREADS", V::Count(n)) => self.threads = Some(n),
            ("PRUST_PARALLEL_LEVEL", V::Count(n)) => self.parallel_level = Some(n),
            ("PRUST_SHARE", V::Share(s)) => self.share = s,
            ("PRUST_SHARE_LEVEL", V::Count(n)) => self.share_level = Some(n),
            ("PRUST_TRAIL_DIR", V::Folder(d)) => self.trail_dir = d,
            ("PRUST_HTML_DIR", V::Folder(d)) => self.html_dir = d,
            ("PRUST_SUITE_REPORTS", V::Switch(b)) => self.suite_reports = Some(b),
            ("PRUST_PREEMPTION_BOUND", V::CountOrNone(n)) => self.preemption_bound = Some(n),
            ("PRUST_MAX_STEPS", V::Count(n)) => self.limits.max_steps = Some(n),
            ("PRUST_MAX_EXECUTIONS", V::Count(n)) => self.limits.max_executions = Some(n),
            ("PRUST_ROLE_TIMEOUT", V::Seconds(t)) => {
                self.limits.role_timeout = Some(t.unwrap_or(Duration::MAX))
            }
            ("PRUST_SCHEDULE", V::Text(t)) => self.schedule = Some(t),
            ("PRUST_REDUCTION", V::Text(t)) => self.reduction = Some(t),
            ("PRUST_SEED", V::Count(n)) => self.seed = Some(n),
            // The table and this match are one list; a unit test reads
            // every variable of the table through it.
            (name, _) => unreachable!("{name}: a variable of the table without a field"),
        }
    }
}

/// `PRUST_*` variables that prust's own tests, benches and CI read, not
/// prust: known, so that they draw no warning. Written without the prefix
/// so that the test that every `PRUST_` name in the docs is in the table
/// does not take them for variables of prust.
const TOOLS_VARIABLES: &[&str] = &[
    "BENCH_CACHE_LIMIT",
    "BROWSER_TESTS",
    "CHROMIUM",
    "ENV_TEST_CHILD",
    "OWN_CLI_ARGS",
    "TEST_PANICS_CHILD",
];

/// A warning for each name of `names` that starts with `PRUST_` and is
/// neither a variable of the [table](self) nor one of prust's own tools,
/// with the nearest variable of the table if one is near.
///
/// ```
/// // (The misspelt name is written in two parts: a test reads every
/// // whole `PRUST_` name in these docs as one the table must have.)
/// let typo = concat!("PRUST_", "MAX_DEPHT");
/// let w = engine::env::unknown_variables([typo.into(), "PATH".into()]);
/// assert_eq!(w.len(), 1);
/// assert!(w[0].contains("did you mean PRUST_MAX_DEPTH?"), "{}", w[0]);
/// assert!(engine::env::unknown_variables(["PRUST_TIMEOUT".into()]).is_empty());
/// ```
pub fn unknown_variables(names: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut unknown: Vec<String> = names
        .into_iter()
        .filter(|n| {
            n.strip_prefix("PRUST_")
                .is_some_and(|rest| variable(n).is_none() && !TOOLS_VARIABLES.contains(&rest))
        })
        .collect();
    unknown.sort();
    unknown
        .into_iter()
        .map(|n| {
            let near =
                crate::names::closest(&n, VARIABLES.iter().filter(|v| !v.hidden).map(|v| v.name))
                    .map_or(String::new(), |c| format!("; did you mean {c}?"));
            format!(
                "{n} is set but is not a variable prust reads, so it has no effect{near} \
                 (the variables are listed in the docs of engine::env)"
            )
        })
        .collect()
}

/// An [`Error::Config`] for `var=value`: `what` is wrong, and the table's
/// description of what it takes.
fn config_error(var: &Variable, value: &str, what: &str) -> Error {
    Error::Config {
        variable: var.name.to_string(),
        value: value.to_string(),
        message: format!("{what}; expected {}", var.kind.accepts()),
    }
}

fn parse(var: &Variable, raw: OsString) -> Result<Value, Error> {
    let text = raw
        .into_string()
        .map_err(|v| config_error(var, &v.to_string_lossy(), "not valid Unicode"))?;
    let count = |t: &str| -> Result<u64, Error> {
        let digits: String = t.trim().chars().filter(|&c| c != '_').collect();
        digits
            .parse()
            .map_err(|_| config_error(var, &text, "not a whole number"))
    };
    Ok(match var.kind {
        Kind::Count => Value::Count(count(&text)?),
        Kind::CountOrNone if text.trim().eq_ignore_ascii_case("none") => Value::CountOrNone(None),
        Kind::CountOrNone => Value::CountOrNone(Some(count(&text)?)),
        Kind::Threads => {
            let n = count(&text)?;
            if n > Checker::MAX_THREADS as u64 {
                return Err(config_error(
                    var,
                    &text,
                    &format!("more than {} threads", Checker::MAX_THREADS),
                ));
            }
            Value::Count(n)
        }
        Kind::Bits => {
            let n = count(&text)?;
            crate::Checker::bitstate_array_bits(n).map_err(|m| config_error(var, &text, &m))?;
            Value::Count(n)
        }
        Kind::Seconds => Value::Seconds(
            // Its message ends with how to write a timeout, which the
            // table says for every variable of the kind.
            crate::budget::parse_timeout(&text)
                .map_err(|m| config_error(var, &text, m.split("; ").next().unwrap_or_default()))?,
        ),
        Kind::Size => Value::Count(
            crate::budget::parse_memory_size(&text).map_err(|m| config_error(var, &text, &m))?,
        ),
        Kind::Switch => match text.trim().to_ascii_lowercase().as_str() {
            "1" | "true" | "yes" | "on" => Value::Switch(true),
            "0" | "false" | "no" | "off" => Value::Switch(false),
            _ => return Err(config_error(var, &text, "not a switch")),
        },
        Kind::Semantics => Value::Semantics(
            text.parse()
                .map_err(|_| config_error(var, &text, "unknown semantics"))?,
        ),
        Kind::Fairness => Value::Fairness(
            text.parse()
                .map_err(|_| config_error(var, &text, "unknown fairness"))?,
        ),
        Kind::Share if text.trim().is_empty() => Value::Share(None),
        Kind::Share => Value::Share(Some(
            text.parse::<Share>()
                .map_err(|m| config_error(var, &text, &m))?,
        )),
        Kind::Folder => Value::Folder((!text.is_empty()).then(|| PathBuf::from(&text))),
        Kind::Text(_) => Value::Text(text),
    })
}

#[cfg(test)]
mod tests;
