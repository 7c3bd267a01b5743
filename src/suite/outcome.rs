//! What one suite entry's check came to: a leaf that the running of the
//! checks and the objects they run on both speak of.

/// What a check came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The property holds; the report.
    Holds(String),
    /// The property is violated; the report with its counterexample.
    Violated(String),
    /// The search was cut short; the report saying why.
    Inconclusive(String),
    /// The formula was refused (syntax, an unknown or malformed name in an
    /// atom): what an `error` entry expects.
    Refused(String),
    /// Anything else went wrong: the protocol does not exist or cannot be
    /// built, or its code panicked or broke the protocol contract while it
    /// was explored. Always a failure.
    Failure(String),
}
