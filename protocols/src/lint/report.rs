//! What [`lint_with`](super::lint_with) returns: the findings, and the
//! checks that a limit stopped before they could say "clean".

use std::fmt;

use crate::Error;

use super::{Check, Finding};

/// The outcome of [`lint_with`](super::lint_with) or
/// [`lint_spec`](super::lint_spec): the findings, and the checks that did
/// not finish. A report is *clean* only if both are empty: a check that a
/// limit stopped found nothing *so far*, which is not "nothing".
///
/// ```
/// use engine::Limits;
/// use protocols::lint::{lint_with, Check, Options};
/// use protocols::rock_paper_scissors;
/// let lts = rock_paper_scissors::spec(3).compile().unwrap();
/// let report = lint_with(&lts, &Options::only([Check::Realizable]), &Limits::default().max_states(10));
/// assert!(report.findings.is_empty());
/// assert_eq!(report.inconclusive[0].check, Check::Realizable);
/// assert!(!report.is_clean());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// The findings, in the order of [`Check::ALL`].
    pub findings: Vec<Finding>,
    /// The checks that a limit stopped, in the order of [`Check::ALL`].
    pub inconclusive: Vec<Inconclusive>,
}

impl Report {
    /// Nothing found and every check finished.
    pub fn is_clean(&self) -> bool {
        self.findings.is_empty() && self.inconclusive.is_empty()
    }
}

/// A check that a limit stopped: it may have found nothing only because it
/// did not look everywhere.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inconclusive {
    /// The check.
    pub check: Check,
    /// The limit it reached ([`Error::StateBound`], [`Error::Timeout`] or
    /// [`Error::MemoryBound`]), which names the option that raises it.
    pub reason: Error,
}

impl fmt::Display for Inconclusive {
    /// `realizable: the … has more than 10 states (the state limit); raise
    /// it with --max-states …` (the CLI puts `inconclusive: ` before it).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.check.name(), self.reason)
    }
}
