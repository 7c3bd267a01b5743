//! Options from the environment: [`Checker::from_env`] and the parsers of
//! the `PRUST_*` variables, each bad value a [`Error::Config`].

use std::time::Duration;

use crate::budget::{DefaultBudgets, Limits};
use crate::error::Error;
use crate::semantics::Semantics;

use super::Checker;

fn config_error(variable: &str, value: &str, message: impl Into<String>) -> Error {
    Error::Config {
        variable: variable.to_string(),
        value: value.to_string(),
        message: message.into(),
    }
}

/// The variable's value, `None` if unset (or not Unicode: treated as set
/// and invalid).
fn env_text(name: &str) -> Result<Option<String>, Error> {
    match std::env::var(name) {
        Ok(v) => Ok(Some(v)),
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(std::env::VarError::NotUnicode(v)) => Err(config_error(
            name,
            &v.to_string_lossy(),
            "not valid Unicode",
        )),
    }
}

fn env_u64(name: &str) -> Result<Option<u64>, Error> {
    let Some(v) = env_text(name)? else {
        return Ok(None);
    };
    let digits: String = v.trim().chars().filter(|&c| c != '_').collect();
    digits
        .parse()
        .map(Some)
        .map_err(|_| config_error(name, &v, "expected a whole number such as 1000000"))
}

fn env_bool(name: &str) -> Result<Option<bool>, Error> {
    let Some(v) = env_text(name)? else {
        return Ok(None);
    };
    match v.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Ok(Some(true)),
        "0" | "false" | "no" | "off" => Ok(Some(false)),
        _ => Err(config_error(name, &v, "expected 1 or 0")),
    }
}

impl Checker {
    /// A checker with the defaults, overridden by the `PRUST_*`
    /// environment variables; a variable that does not parse (or is out of
    /// range, like `PRUST_TIMEOUT=-1`) is an [`Error::Config`] naming it.
    /// A `PRUST_TIMEOUT` above 10⁹ seconds, or `inf`, means no timeout;
    /// 0 is an error ([`parse_timeout`](crate::parse_timeout)).
    ///
    /// The time and memory budgets that no variable sets are sized for a
    /// test ([`DefaultBudgets::Test`]): 60 s per formula and at most
    /// 2 GiB, so that a check called from `cargo test` ends inconclusive
    /// (naming the variable and the builder method to raise) rather than
    /// take the machine. The `prust` command line uses the machine-sized
    /// ones ([`from_env_for`](Self::from_env_for)).
    ///
    /// ```
    /// use engine::Checker;
    /// let checker = Checker::from_env().expect("valid PRUST_* variables");
    /// # let _ = checker;
    /// ```
    pub fn from_env() -> Result<Checker, Error> {
        Self::from_env_for(DefaultBudgets::Test)
    }

    /// As [`from_env`](Self::from_env), with the time and memory budgets
    /// that no variable sets sized for `budgets` (the CLI asks for
    /// [`DefaultBudgets::Machine`]).
    pub fn from_env_for(budgets: DefaultBudgets) -> Result<Checker, Error> {
        let semantics = match env_text("PRUST_SEMANTICS")? {
            None => Semantics::default(),
            Some(v) => v
                .parse::<Semantics>()
                .map_err(|_| config_error("PRUST_SEMANTICS", &v, "expected stutter or omega"))?,
        };
        // The limits are read by one function, which the CLI also uses
        // to bound the build of its objects.
        let vars = limit_variables()?;
        // `PRUST_TIMEOUT=inf` is no timeout, whatever the default.
        let timeout = match env_text("PRUST_TIMEOUT")? {
            Some(_) => vars.timeout,
            None => budgets.timeout(),
        };
        let max_memory = vars.max_memory.unwrap_or_else(|| budgets.max_memory());
        // Hidden (for tests of the progress line): when the first line may
        // show, in milliseconds; later lines come every second.
        let progress_after = env_u64("PRUST_PROGRESS_AFTER_MS")?.unwrap_or(1000);
        let threads = match env_u64("PRUST_THREADS")? {
            None | Some(0) => crate::search::available_threads(),
            Some(n) if n <= Checker::MAX_THREADS as u64 => n as usize,
            Some(_) => {
                let v = env_text("PRUST_THREADS")?.unwrap_or_default();
                return Err(config_error(
                    "PRUST_THREADS",
                    &v,
                    format!(
                        "at most {} threads (0 means the machine's cores)",
                        Checker::MAX_THREADS
                    ),
                ));
            }
        };
        Ok(Checker {
            limits: Limits {
                max_states: vars.max_states.unwrap_or(10_000_000),
                max_depth: env_u64("PRUST_MAX_DEPTH")?.unwrap_or(u64::MAX),
                timeout,
                max_memory,
                progress: env_bool("PRUST_PROGRESS")?,
                progress_after: Duration::from_millis(progress_after),
                semantics,
            },
            determinism: env_bool("PRUST_DETERMINISM")?.unwrap_or(cfg!(debug_assertions)),
            cache_limit: 1 << 20,
            por: env_bool("PRUST_POR")?.unwrap_or(true),
            hash_compaction: env_bool("PRUST_HASH_COMPACTION")?.unwrap_or(false),
            // Unset: the object's own preference (`Protocol::prefers_bytes`).
            collapse: env_bool("PRUST_COLLAPSE")?,

            threads: threads.min(Checker::MAX_THREADS),
            threads_chosen: env_u64("PRUST_THREADS")?.is_some(),
            parallel_level: env_u64("PRUST_PARALLEL_LEVEL")?
                .map_or(crate::search::PARALLEL_LEVEL, |n| {
                    usize::try_from(n).unwrap_or(usize::MAX).max(1)
                }),
            share: match env_text("PRUST_SHARE")? {
                None => None,
                Some(v) if v.trim().is_empty() => None,
                Some(v) => Some(
                    v.parse::<super::Share>()
                        .map_err(|m| config_error("PRUST_SHARE", &v, m))?,
                ),
            },
            share_level: env_u64("PRUST_SHARE_LEVEL")?,
            audience: crate::hint::Audience::Library,
            trail_dir: std::env::var_os("PRUST_TRAIL_DIR")
                .filter(|d| !d.is_empty())
                .map(Into::into),
        })
    }
}

/// The limits that the `PRUST_*` variables set, each `None` when its
/// variable is unset (or, for the timeout, `inf`): what a front end that
/// builds the protocol object before any search (the `prust` CLI) must
/// bound that build with too, so that a variable limits the same work as
/// its option. From [`limit_variables`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LimitVariables {
    /// `PRUST_MAX_STATES`.
    pub max_states: Option<u64>,
    /// `PRUST_TIMEOUT` (`None` also for `inf` or more than 10⁹ s: no
    /// timeout).
    pub timeout: Option<Duration>,
    /// `PRUST_MAX_MEMORY`, in bytes.
    pub max_memory: Option<u64>,
}

/// Reads [`LimitVariables`] from the environment, parsed as
/// [`Checker::from_env`] parses them.
///
/// # Errors
/// The [`Error::Config`] of a variable that does not parse, as
/// [`Checker::from_env`] gives it.
///
/// ```
/// let vars = engine::limit_variables().expect("valid PRUST_* variables");
/// if std::env::var_os("PRUST_MAX_STATES").is_none() {
///     assert_eq!(vars.max_states, None);
/// }
/// ```
pub fn limit_variables() -> Result<LimitVariables, Error> {
    let timeout = match env_text("PRUST_TIMEOUT")? {
        None => None,
        Some(v) => {
            crate::budget::parse_timeout(&v).map_err(|m| config_error("PRUST_TIMEOUT", &v, m))?
        }
    };
    let max_memory = match env_text("PRUST_MAX_MEMORY")? {
        None => None,
        Some(v) => Some(crate::budget::parse_memory_size(&v).map_err(|m| {
            config_error(
                "PRUST_MAX_MEMORY",
                &v,
                format!("{m}; expected bytes or a size such as 512M or 2G"),
            )
        })?),
    };
    Ok(LimitVariables {
        max_states: env_u64("PRUST_MAX_STATES")?,
        timeout,
        max_memory,
    })
}
