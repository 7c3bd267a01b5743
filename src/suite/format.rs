//! The `.owl` suite file format: parsing a file into a [`Suite`], and
//! planning the checks it asks for.
//!
//! See the [module documentation](super) for the format itself. Parsing
//! never panics: every problem becomes a [`SuiteError`] with the line and
//! column it was found at, and the runner turns it into a failing test.
//!
//! One file per concept: `types` (what a parsed file is), `lex` (comments,
//! directives, words, positions), `expand` (`let` abbreviations), `parse`
//! (the directives and verdicts) and `plan` (which checks, expecting what).

mod expand;
mod lex;
mod parse;
mod plan;
mod types;

pub use expand::{MAX_EXPANDED_LEN, MAX_EXPANDED_TOTAL};
pub use parse::parse;
pub use plan::Plan;
pub use types::{Clause, Entry, Expected, Pos, ProtocolDecl, Suite, SuiteError, DEFAULT_RUNTIMES};

// The runtime and semantics of a suite are the ones the whole crate uses:
// one type and one parser each, for files and the command line alike.
pub use crate::Runtime;
pub use engine::Semantics;

#[cfg(test)]
mod tests;
