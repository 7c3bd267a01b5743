//! Bounds on the constructions of this crate: compiling a specification
//! ([`Spec::compile_with`]), determinising an LTS ([`Lts::determinise_with`])
//! and projecting it for the liberal runtime ([`Projection::new_with`]);
//! evaluating a `.dcj` file (`dcj::import_with` of the crate prust-dcj)
//! takes the deadline and the memory bound of the same [`engine::Limits`].
//!
//! Each of these can take time and memory exponential in the size of its
//! input (a 16 KB nondeterministic `.aut` file can have a subset
//! construction of millions of states), so each takes an
//! [`engine::Limits`] and stops with an error that names the limit it
//! reached ([`Error::StateBound`], [`Error::Timeout`],
//! [`Error::MemoryBound`]), instead of running for minutes or aborting on
//! a failed allocation. What each field bounds in a build, and its
//! default, is in the table of [`engine::Limits`]. The memory bounded is
//! the construction's own tables, by an estimate: it knows what it
//! stores (a search reads the process's resident size instead).
//!
//! [`Spec::compile_with`]: crate::Spec::compile_with
//! [`Lts::determinise_with`]: crate::Lts::determinise_with
//! [`Projection::new_with`]: crate::Projection::new_with
//! [`Error::StateBound`]: crate::Error::StateBound
//! [`Error::Timeout`]: crate::Error::Timeout
//! [`Error::MemoryBound`]: crate::Error::MemoryBound

use std::time::Instant;

use engine::{Deadline, Limits};

use crate::Error;

/// The states of a table built when no limit is given.
pub(crate) const DEFAULT_MAX_STATES: usize = 1_000_000;

/// The [`Limits`] of one public call, resolved when it starts: one
/// deadline for all the constructions the call makes (a strict object
/// determinises, a lint projects and explores), and the defaults applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Bounds {
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

impl Bounds {
    /// `limits` for a call that starts now.
    pub(crate) fn new(limits: &Limits) -> Bounds {
        let size = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
        Bounds {
            max_states: limits.max_states.map_or(DEFAULT_MAX_STATES, size),
            deadline: limits.deadline(Instant::now()),
            max_memory: Some(size(limits.build_max_memory())),
        }
    }

    /// The defaults with at most `n` states (the `*_bounded` shorthands).
    pub(crate) fn states(n: usize) -> Bounds {
        Bounds {
            max_states: n,
            ..Bounds::new(&Limits::default())
        }
    }
}

/// The most [`Budget::tick`]s between two looks at the clock (a look
/// costs tens of nanoseconds; a tick is one state or one transition set,
/// microseconds at most, so the deadline is overshot by well under a
/// millisecond; slower ticks are timed more often, see [`Deadline`]).
const CLOCK_EVERY: u32 = 64;

/// The running account of one construction against its [`Bounds`].
#[derive(Debug)]
pub(crate) struct Budget {
    limits: Bounds,
    clock: Deadline,
    what: crate::Built,
    states: usize,
    bytes: usize,
}

impl Budget {
    /// An account for building the `what` (named in the errors).
    pub(crate) fn new(limits: &Bounds, what: crate::Built) -> Budget {
        Budget {
            limits: *limits,
            // The first tick looks at the clock: a deadline that has
            // passed already stops the construction at once.
            clock: Deadline::new(limits.deadline, Instant::now(), CLOCK_EVERY),
            what,
            states: 0,
            bytes: 0,
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

    /// The account of a search of a table of `n` states built already:
    /// they count in what the errors say was made, not against the state
    /// limit (the table has passed it).
    pub(crate) fn searching(mut self, n: usize) -> Budget {
        self.states = n;
        self
    }

    /// One unit of work: looks at the clock every [`CLOCK_EVERY`] ticks
    /// at most.
    pub(crate) fn tick(&mut self) -> Result<(), Error> {
        if self.clock.expired() {
            return Err(Error::Timeout {
                what: self.what,
                states: self.states,
            });
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

#[cfg(test)]
mod tests {
    use super::*;
    use engine::DefaultBudgets;

    /// The defaults of the table of `engine::Limits`, for a build.
    #[test]
    fn a_build_resolves_the_defaults_of_the_table() {
        let test = Bounds::new(&Limits::default());
        assert_eq!(test.max_states, 1_000_000);
        assert!(test.deadline.is_some());
        let memory = test.max_memory.expect("a memory bound") as u64;
        assert!(memory <= engine::TEST_MAX_MEMORY, "{memory}");
        let machine = Bounds::new(&Limits::default().defaults(DefaultBudgets::Machine));
        assert_eq!(machine.deadline, None);
        assert!(machine.max_memory.is_some_and(|m| m <= 2 << 30));
        let given = Bounds::new(&Limits::default().max_states(7).max_memory(1 << 20));
        assert_eq!((given.max_states, given.max_memory), (7, Some(1 << 20)));
    }
}
