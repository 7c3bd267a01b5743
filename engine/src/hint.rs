//! How a message names the setting its reader can change.
//!
//! A report that stops at a limit, or says why it ran on one thread, tells
//! its reader what to change. A program that uses the library changes a
//! [`Checker`](crate::Checker) method; a user of the `prust` command line
//! cannot, and needs its option. Every such hint names a [`Setting`] and
//! words it for an [`Audience`] here, so that the two never drift apart
//! and no message names a call its reader has no way to make.
//!
//! ```
//! use engine::hint::{Audience, Setting};
//! let named = |s: Setting, a| s.named(a).to_string();
//! assert_eq!(named(Setting::Timeout, Audience::Library), "Checker::timeout or PRUST_TIMEOUT");
//! assert_eq!(named(Setting::Timeout, Audience::CommandLine), "--timeout or PRUST_TIMEOUT");
//! // No option: the variable alone.
//! assert_eq!(named(Setting::MaxDepth, Audience::CommandLine), "PRUST_MAX_DEPTH");
//! ```

use std::fmt;

/// Who reads a message: decides which names of a [`Setting`] it gives.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Audience {
    /// A program using the library: settings are builder methods (and
    /// environment variables).
    #[default]
    Library,
    /// A user of the `prust` command line: settings are its options (and
    /// environment variables).
    CommandLine,
}

/// A setting of a check that a hint can tell its reader to change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Setting {
    /// The maximum number of product states.
    MaxStates,
    /// The maximum depth of a run.
    MaxDepth,
    /// The wall-clock budget.
    Timeout,
    /// The memory budget.
    MaxMemory,
    /// The number of threads.
    Threads,
    /// The breadth-first level at which other threads start.
    ParallelLevel,
    /// Partial-order reduction, switched off.
    NoPartialOrder,
    /// One share of a split check.
    Share,
    /// The shortest counterexample, asked for whatever it costs.
    Shortest,
    /// The bits of the bitstate array.
    Bitstate,
}

impl Setting {
    /// The environment variable that sets it (with its value where the
    /// setting is one value of it).
    pub fn variable(self) -> &'static str {
        match self {
            Setting::MaxStates => "PRUST_MAX_STATES",
            Setting::MaxDepth => "PRUST_MAX_DEPTH",
            Setting::Timeout => "PRUST_TIMEOUT",
            Setting::MaxMemory => "PRUST_MAX_MEMORY",
            Setting::Threads => "PRUST_THREADS",
            Setting::ParallelLevel => "PRUST_PARALLEL_LEVEL",
            Setting::NoPartialOrder => "PRUST_POR=0",
            Setting::Share => "PRUST_SHARE",
            Setting::Shortest => "PRUST_SHORTEST=1",
            Setting::Bitstate => "PRUST_BITSTATE",
        }
    }

    /// The [`Checker`](crate::Checker) method that sets it.
    pub fn method(self) -> &'static str {
        match self {
            Setting::MaxStates => "Checker::max_states",
            Setting::MaxDepth => "Checker::max_depth",
            Setting::Timeout => "Checker::timeout",
            Setting::MaxMemory => "Checker::max_memory",
            Setting::Threads => "Checker::threads",
            Setting::ParallelLevel => "Checker::parallel_level",
            Setting::NoPartialOrder => "Checker::partial_order(false)",
            Setting::Share => "Checker::share",
            Setting::Shortest => "Checker::shortest(true)",
            Setting::Bitstate => "Checker::bitstate",
        }
    }

    /// The option of `prust check` that sets it, if it has one (the
    /// others are set by their variable alone).
    pub fn option(self) -> Option<&'static str> {
        match self {
            Setting::MaxStates => Some("--max-states"),
            Setting::Timeout => Some("--timeout"),
            Setting::MaxMemory => Some("--max-memory"),
            Setting::Threads => Some("--threads"),
            Setting::NoPartialOrder => Some("--no-por"),
            Setting::Share => Some("--share"),
            Setting::Shortest => Some("--shortest"),
            Setting::Bitstate => Some("--bitstate"),
            Setting::MaxDepth | Setting::ParallelLevel => None,
        }
    }

    /// How `audience` sets it: its own name for it first, then the
    /// variable ("--timeout or PRUST_TIMEOUT", "Checker::timeout or
    /// PRUST_TIMEOUT").
    pub fn named(self, audience: Audience) -> Named {
        Named {
            setting: self,
            audience,
        }
    }
}

/// A [`Setting`] as one [`Audience`] sets it; see [`Setting::named`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Named {
    setting: Setting,
    audience: Audience,
}

impl fmt::Display for Named {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let own = match self.audience {
            Audience::Library => Some(self.setting.method()),
            Audience::CommandLine => self.setting.option(),
        };
        match own {
            Some(own) => write!(f, "{own} or {}", self.setting.variable()),
            None => f.write_str(self.setting.variable()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_line_never_names_a_method() {
        for s in [
            Setting::MaxStates,
            Setting::MaxDepth,
            Setting::Timeout,
            Setting::MaxMemory,
            Setting::Threads,
            Setting::ParallelLevel,
            Setting::NoPartialOrder,
            Setting::Share,
            Setting::Shortest,
            Setting::Bitstate,
        ] {
            let cli = s.named(Audience::CommandLine).to_string();
            let lib = s.named(Audience::Library).to_string();
            assert!(!cli.contains("Checker::"), "{cli}");
            assert!(lib.starts_with("Checker::"), "{lib}");
            assert!(cli.contains(s.variable()) && lib.contains(s.variable()));
        }
    }
}
