//! [`Semantics`]: what a finite run of the protocol means. One type with one
//! parser, used by the checker's `PRUST_SEMANTICS`, the CLI's `--semantics`
//! and the `.owl` suites' `semantics:` line.

use std::fmt;
use std::str::FromStr;

/// What a finite run means: under [`Stutter`](Self::Stutter) a run that stops repeats its end forever.
///
/// Parses from the names users write (`stutter`, `omega`, and aliases) and
/// prints its canonical [`name`](Self::name):
///
/// ```
/// use engine::Semantics;
/// let s: Semantics = "omega".parse().unwrap();
/// assert_eq!(s, Semantics::InfiniteRunsOnly);
/// assert_eq!(s.name(), "omega");
/// assert_eq!(s.to_string(), "omega");
/// assert!("stuter".parse::<Semantics>().unwrap_err().to_string().contains("stutter"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum Semantics {
    /// SPIN's convention (the default): a run that stops — because the
    /// protocol terminated or because it deadlocked — is extended with
    /// stutter steps forever, on which no action atom holds and `"END"` or
    /// `"DEADLOCK"` does. Finite runs can violate properties.
    #[default]
    Stutter,
    /// Only infinite runs count, as in Prut4j: a run that stops is never a
    /// counterexample, and `"END"`/`"DEADLOCK"` never hold.
    InfiniteRunsOnly,
}

impl Semantics {
    /// Every semantics, in the order suites list their trials.
    pub const ALL: [Semantics; 2] = [Semantics::Stutter, Semantics::InfiniteRunsOnly];

    /// The canonical name: `stutter` or `omega` (what [`FromStr`] reads
    /// back, what suites and test names print).
    pub fn name(self) -> &'static str {
        match self {
            Semantics::Stutter => "stutter",
            Semantics::InfiniteRunsOnly => "omega",
        }
    }

    /// A one-line description, for `--help` texts.
    pub fn describe(self) -> &'static str {
        match self {
            Semantics::Stutter => "a run that stops is extended by stutter steps forever (SPIN)",
            Semantics::InfiniteRunsOnly => "only infinite runs count (Prut4j)",
        }
    }
}

impl fmt::Display for Semantics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is not a [`Semantics`]; its message lists the accepted names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownSemantics {
    /// The text that did not parse.
    pub given: String,
}

impl fmt::Display for UnknownSemantics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown semantics `{}`: expected stutter or omega",
            self.given
        )
    }
}

impl std::error::Error for UnknownSemantics {}

impl FromStr for Semantics {
    type Err = UnknownSemantics;

    /// Case-insensitive; besides the canonical names it accepts `spin` for
    /// `stutter` and `infinite`, `infinite-runs-only`, `prut4j` for `omega`.
    fn from_str(s: &str) -> Result<Semantics, UnknownSemantics> {
        match s.trim().to_ascii_lowercase().as_str() {
            "stutter" | "spin" => Ok(Semantics::Stutter),
            "omega" | "infinite" | "infinite-runs-only" | "prut4j" => {
                Ok(Semantics::InfiniteRunsOnly)
            }
            _ => Err(UnknownSemantics {
                given: s.to_string(),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_reads_back() {
        for s in Semantics::ALL {
            assert_eq!(s.name().parse::<Semantics>(), Ok(s));
            assert_eq!(s.to_string().to_uppercase().parse::<Semantics>(), Ok(s));
        }
        assert_eq!("spin".parse(), Ok(Semantics::Stutter));
        assert_eq!("prut4j".parse(), Ok(Semantics::InfiniteRunsOnly));
        assert!("".parse::<Semantics>().is_err());
    }
}
