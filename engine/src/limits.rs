//! [`Limits`]: the one value that bounds building an object, searching it
//! and exploring a program on it.

use std::time::{Duration, Instant};

use crate::machine::default_max_memory;

/// What a build, a search or an exploration may spend. One value, read
/// from the `PRUST_*` variables once ([`crate::env::Environment::limits`])
/// or set in code, and handed unchanged to each of them: a front end that
/// builds an object and then checks it bounds both with the same value
/// ([`Checker::limits`](crate::Checker::limits)).
///
/// Every field is optional: `None` is the default of the thing bounded,
/// as this table says. A limit reached is never "holds" nor a successful
/// exploration: a search ends inconclusive, a build with an error that
/// names the limit (a check of an object that could not be built is
/// inconclusive), an exploration incomplete.
///
/// | field | in a search | in a build (compile, determinise, project, `.dcj` evaluation) | in an exploration | `PRUST_*` |
/// |---|---|---|---|---|
/// | `max_states` | product states stored; default 10,000,000 | states of each table built; default 1,000,000 | — | `PRUST_MAX_STATES` |
/// | `max_depth` | length of a run searched; default none | — | — | `PRUST_MAX_DEPTH` |
/// | `timeout` | wall-clock time per formula, from its text to the verdict | wall-clock time of one call (one deadline for the whole call) | wall-clock time of the whole exploration | `PRUST_TIMEOUT` |
/// | `max_memory` | resident bytes of the whole process (Linux `VmRSS`), read as the search runs | estimated bytes of the tables built (their elements, not the allocator's overhead); default at most 2 GiB | — | `PRUST_MAX_MEMORY` |
/// | `max_executions` | — | — | executions run; default 100,000 | `PRUST_MAX_EXECUTIONS` |
/// | `max_steps` | — | — | steps (session operations) of one execution; default 10,000 | `PRUST_MAX_STEPS` |
/// | `role_timeout` | — | — | time a role may run outside the session; default 10 s | `PRUST_ROLE_TIMEOUT` |
///
/// The defaults of time and memory come from [`defaults`](Self::defaults())
/// ([`DefaultBudgets`]): sized for a test ([`DefaultBudgets::Test`], the
/// default: 60 s, and at most 2 GiB of memory, less if the machine has
/// less), or for a command someone waits on ([`DefaultBudgets::Machine`]:
/// no time limit, half the machine's memory). A build's memory default is
/// the smaller of 2 GiB of tables and that budget.
///
/// A timeout is any positive `Duration`; one above 10⁹ seconds
/// (`Duration::MAX`) never runs out, as `PRUST_TIMEOUT=inf` does. Zero
/// stops at once wherever it is given in code; as a variable or option it
/// is an error everywhere ([`parse_timeout`](crate::parse_timeout)).
///
/// ```
/// use std::time::Duration;
/// use engine::Limits;
/// let limits = Limits::default().max_states(10).timeout(Duration::from_secs(5));
/// assert_eq!(limits.max_states, Some(10));
/// assert_eq!(limits.max_depth, None); // the default of what it bounds
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// States: product states of a search, states of a table built.
    pub max_states: Option<u64>,
    /// The longest run a search follows.
    pub max_depth: Option<u64>,
    /// Wall-clock time (see the table for what it counts).
    pub timeout: Option<Duration>,
    /// Bytes: the process's resident size in a search, the estimated
    /// tables in a build.
    pub max_memory: Option<u64>,
    /// Executions of an exploration.
    pub max_executions: Option<u64>,
    /// Steps of one execution of an exploration.
    pub max_steps: Option<u64>,
    /// How long a role of an exploration may run between two session
    /// operations.
    pub role_timeout: Option<Duration>,
    /// Whom the time and memory defaults are sized for.
    pub defaults: DefaultBudgets,
}

/// The memory default of a build: 2 GiB of tables (estimated). A million
/// states of any bundled protocol take far less (tens to hundreds of bytes
/// a state); under a cgroup or address-space limit below it, the build
/// would abort on a failed allocation before its bound, hence the
/// smaller of this and the search's default budget.
const BUILD_MAX_MEMORY: u64 = 2 << 30;

/// Timeouts above this many seconds (about 31 years) mean "no timeout":
/// they cannot run out, and `Duration` arithmetic on them could overflow.
pub(crate) const FOREVER_SECS: f64 = 1e9;

impl Limits {
    /// At most `n` states.
    pub fn max_states(self, n: u64) -> Limits {
        Limits {
            max_states: Some(n),
            ..self
        }
    }

    /// Runs of at most `n` steps.
    pub fn max_depth(self, n: u64) -> Limits {
        Limits {
            max_depth: Some(n),
            ..self
        }
    }

    /// At most `t` of wall-clock time (`Duration::MAX`: none).
    pub fn timeout(self, t: Duration) -> Limits {
        Limits {
            timeout: Some(t),
            ..self
        }
    }

    /// At most `bytes` of memory (`u64::MAX`: none).
    pub fn max_memory(self, bytes: u64) -> Limits {
        Limits {
            max_memory: Some(bytes),
            ..self
        }
    }

    /// At most `n` executions of an exploration.
    pub fn max_executions(self, n: u64) -> Limits {
        Limits {
            max_executions: Some(n),
            ..self
        }
    }

    /// At most `n` steps in one execution of an exploration.
    pub fn max_steps(self, n: u64) -> Limits {
        Limits {
            max_steps: Some(n),
            ..self
        }
    }

    /// At most `t` for a role between two session operations.
    pub fn role_timeout(self, t: Duration) -> Limits {
        Limits {
            role_timeout: Some(t),
            ..self
        }
    }

    /// Time and memory defaults sized for `budgets`.
    pub fn defaults(self, budgets: DefaultBudgets) -> Limits {
        Limits {
            defaults: budgets,
            ..self
        }
    }

    /// The time budget: the timeout given, else the default's; `None`
    /// when there is none (or it is too long to run out).
    pub fn time_budget(&self) -> Option<Duration> {
        self.timeout
            .or_else(|| self.defaults.timeout())
            .filter(|t| t.as_secs_f64() <= FOREVER_SECS)
    }

    /// The memory bound of a build (in estimated bytes of the tables it
    /// makes): `max_memory`, else the smaller of 2 GiB and the default
    /// budget. For the crates that build (protocols, dcj).
    #[doc(hidden)]
    pub fn build_max_memory(&self) -> u64 {
        self.max_memory
            .unwrap_or_else(|| BUILD_MAX_MEMORY.min(self.defaults.max_memory()))
    }

    /// When the time budget of work that started at `started` runs out
    /// (`None`: never).
    ///
    /// ```
    /// use std::time::{Duration, Instant};
    /// use engine::{DefaultBudgets, Limits};
    /// let now = Instant::now();
    /// let limits = Limits::default().timeout(Duration::from_secs(2));
    /// assert_eq!(limits.deadline(now), Some(now + Duration::from_secs(2)));
    /// assert_eq!(limits.timeout(Duration::MAX).deadline(now), None);
    /// assert_eq!(Limits::default().defaults(DefaultBudgets::Machine).deadline(now), None);
    /// ```
    pub fn deadline(&self, started: Instant) -> Option<Instant> {
        self.time_budget().and_then(|t| started.checked_add(t))
    }

    /// The same limits with the time left of a budget that started at
    /// `started`: for one task made of several calls that share one
    /// deadline (build an object in steps, then lint it). None left is a
    /// timeout of zero, which stops the next call at once, never a fresh
    /// budget.
    ///
    /// ```
    /// use std::time::{Duration, Instant};
    /// use engine::Limits;
    /// let started = Instant::now() - Duration::from_secs(3);
    /// let left = Limits::default().timeout(Duration::from_secs(2)).time_left_since(started);
    /// assert_eq!(left.timeout, Some(Duration::ZERO));
    /// ```
    pub fn time_left_since(self, started: Instant) -> Limits {
        match self.time_budget() {
            Some(t) => self.timeout(t.saturating_sub(started.elapsed())),
            // No deadline stays none (not the default's once more).
            None => self.timeout(Duration::MAX),
        }
    }
}

/// Whom the default budgets (those that no `PRUST_*` variable and no
/// option sets) are sized for. The one place where their values are
/// chosen.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum DefaultBudgets {
    /// A check or exploration called from code, typically a test under
    /// `cargo test` on a laptop, with other tests running beside it:
    /// [`TEST_TIMEOUT`] per formula (per exploration for
    /// `prust::explore`) and at most [`TEST_MAX_MEMORY`] (less if the
    /// machine has less: see [`Machine`](Self::Machine)). What
    /// [`Checker::from_env`](crate::Checker::from_env) uses: a test must
    /// end inconclusive in a minute, not take the machine. The default.
    #[default]
    Test,
    /// A check someone asked for on the command line (`prust check`): no
    /// time limit, and half of the machine's available memory.
    Machine,
}

/// The time budget of [`DefaultBudgets::Test`]: 60 s.
pub const TEST_TIMEOUT: Duration = Duration::from_secs(60);

/// The memory budget of [`DefaultBudgets::Test`], at most: 2 GiB.
pub const TEST_MAX_MEMORY: u64 = 2 << 30;

impl DefaultBudgets {
    /// The time budget when no variable or option sets it (`None`: none).
    pub fn timeout(self) -> Option<Duration> {
        match self {
            DefaultBudgets::Test => Some(TEST_TIMEOUT),
            DefaultBudgets::Machine => None,
        }
    }

    /// The memory budget, in bytes, when no variable or option sets it.
    pub fn max_memory(self) -> u64 {
        match self {
            DefaultBudgets::Test => default_max_memory().min(TEST_MAX_MEMORY),
            DefaultBudgets::Machine => default_max_memory(),
        }
    }
}
