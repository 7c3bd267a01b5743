//! [`Checker::from_env`]: a checker whose options default from the
//! `PRUST_*` variables, as [`crate::env`] reads them.

use std::time::Duration;

use crate::env::{Environment, Reader};
use crate::error::Error;
use crate::limits::DefaultBudgets;

use super::Checker;

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
        Ok(Self::from_environment(
            &Environment::read(Reader::Check)?,
            budgets,
        ))
    }

    /// A checker with the defaults, overridden by the variables of `env`
    /// (read once by a front end that needs them for more than the check,
    /// as `prust check` does to bound the build of its object).
    pub fn from_environment(env: &Environment, budgets: DefaultBudgets) -> Checker {
        Checker {
            // The defaults are applied when a session starts, by the
            // budgets chosen here.
            limits: env.limits.defaults(budgets),
            progress: env.progress,
            // Hidden (for tests of the progress line): when the first
            // line may show; later lines come every second.
            progress_after: env.progress_after.unwrap_or(Duration::from_secs(1)),
            semantics: env.semantics.unwrap_or_default(),
            fairness: env.fairness.unwrap_or_default(),
            determinism: env.determinism.unwrap_or(cfg!(debug_assertions)),
            cache_limit: 1 << 20,
            por: env.por.unwrap_or(true),
            hash_compaction: env.hash_compaction.unwrap_or(false),
            // 0 is refused by the reader.
            bitstate: env.bitstate,
            shortest: env.shortest,
            // Unset: the object's own preference (`Protocol::prefers_bytes`).
            collapse: env.collapse,
            threads: match env.threads {
                None | Some(0) => crate::stack::available_threads(),
                // At most `MAX_THREADS`: the reader refuses more.
                Some(n) => n as usize,
            }
            .min(Checker::MAX_THREADS),
            threads_chosen: env.threads.is_some(),
            parallel_level: env
                .parallel_level
                .map_or(crate::search::PARALLEL_LEVEL, |n| {
                    usize::try_from(n).unwrap_or(usize::MAX).max(1)
                }),
            share: env.share,
            share_level: env.share_level,
            audience: crate::hint::Audience::Library,
            trail_dir: env.trail_dir.clone(),
        }
    }
}
