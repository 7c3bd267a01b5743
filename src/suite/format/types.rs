//! What a suite file says, once parsed: its protocols, entries and
//! expectations, and the errors (with positions) of a file that does not
//! parse.

use std::fmt;

use crate::Runtime;
use engine::{Fairness, Semantics};

/// A position in a suite file, 1-based (columns count characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pos {
    /// Line, from 1.
    pub line: usize,
    /// Column in characters, from 1.
    pub col: usize,
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// A problem in a suite file, with where it is and, when we can tell, how to
/// fix it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SuiteError {
    /// Where the problem is.
    pub pos: Pos,
    /// What is wrong.
    pub message: String,
    /// How to fix it, if we can tell.
    pub hint: Option<String>,
}

impl SuiteError {
    pub(crate) fn new(pos: Pos, message: impl Into<String>) -> Self {
        SuiteError {
            pos,
            message: message.into(),
            hint: None,
        }
    }

    pub(crate) fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
}

impl fmt::Display for SuiteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.pos, self.message)?;
        if let Some(hint) = &self.hint {
            write!(f, "\n  hint: {hint}")?;
        }
        Ok(())
    }
}

impl std::error::Error for SuiteError {}

/// A protocol a suite checks: a bundled protocol with its parameters
/// (`token-star:4`) or an `.aut` file (the rule of [`crate::load::is_file`]),
/// and the short name used in test names and verdicts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProtocolDecl {
    /// The protocol argument, as [`crate::load`] reads it (a file is
    /// relative to the suite file's folder).
    pub spec: String,
    /// The name in test names and `@` qualifiers (the spec unless `as` is given).
    pub alias: String,
    /// Where it is declared.
    pub pos: Pos,
}

/// What an entry expects of a check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expected {
    /// The property holds on every run.
    Holds,
    /// Some run violates the property (the counterexample is shown when
    /// this fails).
    Violated,
    /// The check is refused with an error (an unknown name, a syntax
    /// error) whose message contains every one of these strings.
    Error(Vec<String>),
}

impl fmt::Display for Expected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expected::Holds => f.write_str("holds"),
            Expected::Violated => f.write_str("violated"),
            Expected::Error(parts) => {
                f.write_str("error")?;
                for p in parts {
                    write!(f, " {p:?}")?;
                }
                Ok(())
            }
        }
    }
}

/// One expectation of an entry: an outcome, for the trials whose protocol,
/// runtime and semantics match every qualifier (`violated@liberal+omega`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Clause {
    /// The outcome expected.
    pub expected: Expected,
    /// Protocol aliases, runtime or semantics names; empty for "always".
    pub qualifiers: Vec<String>,
    /// Where the clause is written.
    pub pos: Pos,
}

/// A property to check: a name, what is expected, and the formula.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The entry's name, unique in its file.
    pub name: String,
    /// Where the entry starts (its `test` line).
    pub pos: Pos,
    /// The expectations, in the order written.
    pub clauses: Vec<Clause>,
    /// The formula as written (comments removed, lines joined with `\n`).
    pub source: String,
    /// The formula with the `let` abbreviations expanded: what the engine
    /// is given.
    pub formula: String,
    /// Where the formula starts.
    pub formula_pos: Pos,
}

/// The runtimes of a suite without a `runtime` line: the two compiled
/// objects. The on-the-fly object is checked only when a file asks for it
/// (`runtime on-the-fly`): it gives the strict object's verdicts, so by
/// default it would only repeat them.
pub const DEFAULT_RUNTIMES: [Runtime; 2] = [Runtime::Strict, Runtime::Liberal];

/// A parsed suite file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Suite {
    /// The protocols, in the order declared.
    pub protocols: Vec<ProtocolDecl>,
    /// The runtimes every entry is checked on.
    pub runtimes: Vec<Runtime>,
    /// The semantics every entry is checked under.
    pub semantics: Vec<Semantics>,
    /// Optional resource limit: maximum number of product states.
    pub max_states: Option<u64>,
    /// The fairness of every check of the file (its `fairness` line);
    /// `None` without one: the checker's default, or `PRUST_FAIRNESS`.
    pub fairness: Option<Fairness>,
    /// The entries, in file order.
    pub entries: Vec<Entry>,
}
