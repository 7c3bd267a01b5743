//! Planning: which checks a parsed suite asks for (entry × protocol ×
//! runtime × semantics) and the outcome it expects of each.

use super::types::{Clause, Entry, Expected, Suite, SuiteError};
use crate::Runtime;
use engine::Semantics;

/// One check to run: an entry on one protocol, runtime and semantics, with
/// the outcome the file expects there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// Index into [`Suite::entries`].
    pub entry: usize,
    /// Index into [`Suite::protocols`].
    pub protocol: usize,
    /// The runtime.
    pub runtime: Runtime,
    /// The semantics.
    pub semantics: Semantics,
    /// What the file expects.
    pub expected: Expected,
}

impl Suite {
    /// Every check the suite asks for, entry by entry, with its expected
    /// outcome; or every entry whose expectations are ambiguous or missing
    /// for some combination.
    pub fn plan(&self) -> Result<Vec<Plan>, Vec<SuiteError>> {
        let mut plans = Vec::new();
        let mut errors = Vec::new();
        for (e, entry) in self.entries.iter().enumerate() {
            for (p, proto) in self.protocols.iter().enumerate() {
                for &runtime in &self.runtimes {
                    for &semantics in &self.semantics {
                        let values = [proto.alias.as_str(), runtime.name(), semantics.name()];
                        match resolve(entry, &values) {
                            Ok(expected) => plans.push(Plan {
                                entry: e,
                                protocol: p,
                                runtime,
                                semantics,
                                expected,
                            }),
                            Err(err) => errors.push(err),
                        }
                    }
                }
            }
        }
        if errors.is_empty() {
            Ok(plans)
        } else {
            // One error per entry is enough to fix it.
            errors.dedup_by(|a, b| a.pos == b.pos);
            Err(errors)
        }
    }
}

/// The expectation of `entry` for a trial with these protocol, runtime and
/// semantics names: the matching clause with the most qualifiers.
fn resolve(entry: &Entry, values: &[&str]) -> Result<Expected, SuiteError> {
    let matching: Vec<&Clause> = entry
        .clauses
        .iter()
        .filter(|c| c.qualifiers.iter().all(|q| values.contains(&q.as_str())))
        .collect();
    let Some(best) = matching.iter().map(|c| c.qualifiers.len()).max() else {
        return Err(SuiteError::new(
            entry.pos,
            format!("`{}` says nothing about {}", entry.name, values.join("+")),
        )
        .hint("add a verdict without qualifiers, or one for this combination"));
    };
    let winners: Vec<&&Clause> = matching
        .iter()
        .filter(|c| c.qualifiers.len() == best)
        .collect();
    let first = &winners[0].expected;
    if let Some(other) = winners.iter().find(|c| &c.expected != first) {
        return Err(SuiteError::new(
            other.pos,
            format!(
                "`{}` expects both {} and {} for {}",
                entry.name,
                first,
                other.expected,
                values.join("+")
            ),
        )
        .hint("make one of the two clauses more specific (e.g. `holds@strict+omega`)"));
    }
    Ok(first.clone())
}
