//! [`Runtime`]: which protocol object a check builds from a protocol. One
//! type with one parser, for the command line's `--runtime` and the `.owl`
//! suites' `runtime` line.

use std::fmt;
use std::str::FromStr;

/// Which protocol object a check runs on: the strict object (compiled, or
/// built state by state) or the liberal one.
///
/// Parses from the names users write (case-insensitive) and prints its
/// canonical [`name`](Self::name):
///
/// ```
/// use prust::Runtime;
/// let r: Runtime = "on-the-fly".parse().unwrap();
/// assert_eq!(r, Runtime::OnTheFly);
/// assert_eq!(r.to_string(), "on-the-fly");
/// assert_eq!("Liberal".parse::<Runtime>(), Ok(Runtime::Liberal));
/// assert!("lax".parse::<Runtime>().unwrap_err().to_string().contains("strict"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum Runtime {
    /// The strict object, compiled to its global LTS first: one object
    /// holds the global state, and its runs are exactly the specification's.
    #[default]
    Strict,
    /// The liberal object: each role runs its projection of the protocol.
    Liberal,
    /// The strict object, built state by state as the search reaches it
    /// (bundled protocols and `.dcj` files: it needs the specification,
    /// which an `.aut` file does not have).
    OnTheFly,
}

impl Runtime {
    /// Every runtime, in the order `--help` and suites list them.
    pub const ALL: [Runtime; 3] = [Runtime::Strict, Runtime::Liberal, Runtime::OnTheFly];

    /// The canonical name: `strict`, `liberal` or `on-the-fly` (what
    /// [`FromStr`] reads back, what test names and JSON records print).
    pub fn name(self) -> &'static str {
        match self {
            Runtime::Strict => "strict",
            Runtime::Liberal => "liberal",
            Runtime::OnTheFly => "on-the-fly",
        }
    }

    /// A one-line description, for `--help` texts.
    pub fn describe(self) -> &'static str {
        match self {
            Runtime::Strict => "the strict object, compiled to its global LTS first",
            Runtime::Liberal => "the liberal object",
            Runtime::OnTheFly => "the strict object, built state by state as the search reaches it",
        }
    }

    /// Whether this runtime needs the protocol's specification: an object
    /// built on the fly does, so an `.aut` file (an LTS) cannot give it.
    pub fn needs_spec(self) -> bool {
        self == Runtime::OnTheFly
    }
}

impl fmt::Display for Runtime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is not a [`Runtime`]; its message lists the accepted names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownRuntime {
    /// The text that did not parse.
    pub given: String,
}

impl fmt::Display for UnknownRuntime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown runtime `{}`: expected strict, liberal or on-the-fly",
            self.given
        )
    }
}

impl std::error::Error for UnknownRuntime {}

impl FromStr for Runtime {
    type Err = UnknownRuntime;

    /// Case-insensitive; `on_the_fly` (the Rust spelling) is accepted for
    /// `on-the-fly`.
    fn from_str(s: &str) -> Result<Runtime, UnknownRuntime> {
        match s.trim().to_ascii_lowercase().as_str() {
            "strict" => Ok(Runtime::Strict),
            "liberal" => Ok(Runtime::Liberal),
            "on-the-fly" | "on_the_fly" => Ok(Runtime::OnTheFly),
            _ => Err(UnknownRuntime {
                given: s.to_string(),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_parses_back_to_its_runtime() {
        for r in Runtime::ALL {
            assert_eq!(r.name().parse::<Runtime>(), Ok(r));
            assert_eq!(r.to_string().to_uppercase().parse::<Runtime>(), Ok(r));
        }
        assert_eq!("on_the_fly".parse(), Ok(Runtime::OnTheFly));
        for bad in ["", "lax", "strict liberal", "onthefly"] {
            assert!(bad.parse::<Runtime>().is_err(), "{bad:?}");
        }
    }

    #[test]
    fn the_names_are_distinct_and_only_on_the_fly_needs_a_spec() {
        let names: std::collections::BTreeSet<_> = Runtime::ALL.iter().map(|r| r.name()).collect();
        assert_eq!(names.len(), Runtime::ALL.len());
        let needs: Vec<_> = Runtime::ALL
            .into_iter()
            .filter(|r| r.needs_spec())
            .collect();
        assert_eq!(needs, [Runtime::OnTheFly]);
    }
}
