//! Bounds on the constructions of this crate: compiling a specification
//! ([`Spec::compile_with`]), determinising an LTS ([`Lts::determinise_with`])
//! and projecting it for the liberal runtime ([`Projection::new_with`]);
//! evaluating a `.dcj` file (`dcj::import_with` of the crate prust-dcj)
//! takes the deadline and the memory bound of the same [`Limits`].
//!
//! Each of these can take time and memory exponential in the size of its
//! input (a 16 KB nondeterministic `.aut` file can have a subset
//! construction of millions of states), so each takes a [`Limits`] value and
//! stops with an error that names the limit it reached, instead of running
//! for minutes or aborting on a failed allocation:
//!
//! | limit | error | [`ErrorKind`] |
//! |-------|-------|---------------|
//! | [`Limits::max_states`] | [`Error::StateBound`] | `StateLimit` |
//! | [`Limits::deadline`] | [`Error::Timeout`] | `TimeLimit` |
//! | [`Limits::max_memory`] | [`Error::MemoryBound`] | `MemoryLimit` |
//!
//! The message names the method that raises the limit; worded for the
//! `prust` command line ([`Error::for_audience`]) it names the option and
//! the `PRUST_*` variable instead (this crate reads no variable).
//!
//! A construction that stops yields no object at all, so a limit can never
//! turn into a verdict: a check of an object that could not be built is an
//! error, not "holds".
//!
//! ```
//! use std::time::Duration;
//! use protocols::{limits::Limits, token, Error};
//! let spec = token::spec(token::Topology::FullMesh, 6);
//! let limits = Limits::default().max_states(10).timeout(Duration::from_secs(60));
//! match spec.compile_with(&limits) {
//!     Err(e @ Error::StateBound { limit: 10, .. }) => {
//!         assert!(e.to_string().contains("Limits::max_states"))
//!     }
//!     other => panic!("{other:?}"),
//! }
//! ```
//!
//! [`Spec::compile_with`]: crate::Spec::compile_with
//! [`Lts::determinise_with`]: crate::Lts::determinise_with
//! [`Projection::new_with`]: crate::Projection::new_with
//! [`Error::StateBound`]: crate::Error::StateBound
//! [`Error::Timeout`]: crate::Error::Timeout
//! [`Error::MemoryBound`]: crate::Error::MemoryBound
//! [`ErrorKind`]: crate::ErrorKind
//! [`Error::for_audience`]: crate::Error::for_audience

use std::time::{Duration, Instant};

use crate::spec::DEFAULT_MAX_STATES;
use crate::Error;

/// What a construction may spend: states, wall-clock time, memory. See the
/// [module docs](self).
///
/// The defaults ([`Limits::default`]) are those of the simple entry points
/// ([`Spec::compile`](crate::Spec::compile), [`Strict::try_new`](crate::Strict::try_new),
/// [`Liberal::new`](crate::Liberal::new), …): [`DEFAULT_MAX_STATES`]
/// states, and the time and memory budgets that a check called from a
/// test has ([`engine::DefaultBudgets::Test`]): a deadline 60 s after
/// `default()` is called, and [`DEFAULT_MAX_MEMORY`] bytes or the checker's
/// default memory budget ([`engine::default_max_memory`]: it follows the
/// machine's memory, the cgroup's and the address-space limit), whichever
/// is smaller. So a library user never waits unbounded for a build (a
/// projection of a small random specification can take minutes), and an
/// adversarial input ends in an error, not in an allocation failure that
/// aborts the process. [`Limits::unbounded_time`] drops the deadline.
///
/// A CLI maps its options onto it one to one:
/// ```
/// use std::time::{Duration, Instant};
/// use protocols::limits::Limits;
/// let (max_states, timeout, max_memory) = (5_000, Some(Duration::from_secs(10)), Some(1 << 30));
/// let started = Instant::now();
/// let mut limits = Limits::default().max_states(max_states);
/// if let Some(t) = timeout {
///     // one deadline for the whole run: building the object counts too
///     limits = limits.deadline(started + t);
/// }
/// if let Some(bytes) = max_memory {
///     limits = limits.max_memory(bytes);
/// }
/// assert_eq!(limits.max_states, 5_000);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The most states a construction may make (global states for a
    /// compilation, sets for a determinisation, local states of all roles
    /// together for a projection).
    pub max_states: usize,
    /// When to give up; `None`: never.
    pub deadline: Option<Instant>,
    /// The most bytes the construction's own tables (states, their sets and
    /// transitions, tags) may take, by an estimate that counts the elements
    /// stored, not the allocator's overhead or the process's other memory;
    /// `None`: unbounded.
    pub max_memory: Option<usize>,
}

/// The memory bound of [`Limits::default`]: 2 GiB of tables (estimated).
/// [`DEFAULT_MAX_STATES`] states of any bundled protocol take far less
/// (tens to hundreds of bytes a state).
pub const DEFAULT_MAX_MEMORY: usize = 2 << 30;

impl Default for Limits {
    fn default() -> Self {
        // One rule for a build's budgets and a search's: a build called
        // from code gets what a check called from a test gets.
        let budgets = engine::DefaultBudgets::Test;
        Limits {
            max_states: DEFAULT_MAX_STATES,
            deadline: budgets
                .timeout()
                .and_then(|t| Instant::now().checked_add(t)),
            // Under a cgroup or address-space limit below 2 GiB of
            // tables, the build would abort on a failed allocation before
            // its bound: the machine's budget is the search's.
            max_memory: Some(
                DEFAULT_MAX_MEMORY.min(usize::try_from(budgets.max_memory()).unwrap_or(usize::MAX)),
            ),
        }
    }
}

impl Limits {
    /// The same limits with at most `n` states.
    pub fn max_states(self, n: usize) -> Limits {
        Limits {
            max_states: n,
            ..self
        }
    }

    /// The same limits with a deadline.
    pub fn deadline(self, at: Instant) -> Limits {
        Limits {
            deadline: Some(at),
            ..self
        }
    }

    /// The same limits without a deadline (for a build that someone
    /// asked for and waits on, as `prust` commands without `--timeout`).
    pub fn unbounded_time(self) -> Limits {
        Limits {
            deadline: None,
            ..self
        }
    }

    /// The same limits with a deadline `after` from now (saturating: a
    /// duration too long to add means no deadline).
    pub fn timeout(self, after: Duration) -> Limits {
        Limits {
            deadline: Instant::now().checked_add(after),
            ..self
        }
    }

    /// The same limits with at most `bytes` of tables (`None`:
    /// unbounded).
    pub fn max_memory(self, bytes: impl Into<Option<usize>>) -> Limits {
        Limits {
            max_memory: bytes.into(),
            ..self
        }
    }
}

/// How many [`Budget::tick`]s pass between two looks at the clock (a look
/// costs tens of nanoseconds; a tick is one state or one transition set,
/// microseconds at most, so the deadline is overshot by well under a
/// millisecond).
const CLOCK_EVERY: u32 = 64;

/// The running account of one construction against its [`Limits`].
#[derive(Debug)]
pub(crate) struct Budget {
    limits: Limits,
    what: crate::Built,
    states: usize,
    bytes: usize,
    ticks: u32,
}

impl Budget {
    /// An account for building the `what` (named in the errors).
    pub(crate) fn new(limits: &Limits, what: crate::Built) -> Budget {
        Budget {
            limits: *limits,
            what,
            states: 0,
            bytes: 0,
            // the first tick looks at the clock: a deadline that has
            // passed already stops the construction at once
            ticks: CLOCK_EVERY - 1,
        }
    }

    /// One more state, whose tables take about `bytes`: fails if that is
    /// one state too many or too much memory (checks the clock too).
    pub(crate) fn add_state(&mut self, bytes: usize) -> Result<(), Error> {
        if self.states >= self.limits.max_states {
            return Err(Error::StateBound {
                limit: self.limits.max_states,
                what: self.what,
            });
        }
        self.states += 1;
        self.add_bytes(bytes)
    }

    /// More memory that is not a state (transitions, tags).
    pub(crate) fn add_bytes(&mut self, bytes: usize) -> Result<(), Error> {
        self.bytes = self.bytes.saturating_add(bytes);
        if let Some(limit) = self.limits.max_memory {
            if self.bytes > limit {
                return Err(Error::MemoryBound {
                    limit,
                    what: self.what,
                    states: self.states,
                });
            }
        }
        self.tick()
    }

    /// One unit of work: looks at the clock every [`CLOCK_EVERY`] ticks.
    pub(crate) fn tick(&mut self) -> Result<(), Error> {
        self.ticks += 1;
        if self.ticks >= CLOCK_EVERY {
            self.ticks = 0;
            if let Some(deadline) = self.limits.deadline {
                if Instant::now() >= deadline {
                    return Err(Error::Timeout {
                        what: self.what,
                        states: self.states,
                    });
                }
            }
        }
        Ok(())
    }
}

/// The estimated bytes of `n` elements of `T` held twice (in a list and as
/// the key of an index), with what the allocator, the list and the hash
/// table add per entry (a header per allocation, the list's and the table's
/// slack after doubling). Calibrated on the subset construction of
/// `tests/it/limits.rs`'s adversarial `.aut` (release build): stopped by
/// bounds of 100 and 400 MiB, the whole process peaked at 94% of the bound.
pub(crate) fn indexed<T>(n: usize) -> usize {
    const MALLOC: usize = 16;
    const LIST_ENTRY: usize = 2 * std::mem::size_of::<Vec<u8>>();
    const TABLE_ENTRY: usize = 48;
    2 * (n * std::mem::size_of::<T>() + MALLOC) + LIST_ENTRY + TABLE_ENTRY
}
