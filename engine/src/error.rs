//! Errors: everything that stops a check from reaching a verdict.

use std::fmt;

/// Which kind of name an atom got wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameKind {
    /// The acting role (first word of the atom).
    Role,
    /// The message type.
    Type,
    /// The role after `TO` or `FROM`.
    Peer,
}

impl fmt::Display for NameKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            NameKind::Role => "role",
            NameKind::Type => "message type",
            NameKind::Peer => "peer role",
        })
    }
}

/// What is wrong with one atomic proposition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AtomError {
    /// The atom is not of the form `ROLE ACTION TYPE [TO|FROM PEER]`.
    Syntax {
        /// The atom's text.
        atom: String,
        /// What is wrong.
        message: String,
        /// How to write it instead.
        hint: String,
    },
    /// The atom names a role, type or peer that does not exist.
    UnknownName {
        /// The atom's text.
        atom: String,
        /// Which position.
        kind: NameKind,
        /// The name as written.
        name: String,
        /// The names that exist.
        known: Vec<String>,
        /// The closest existing name, if one is close.
        suggestion: Option<String>,
    },
    /// The atom names a type that the protocol declares but no dummy
    /// provides, so no send of it is ever explored.
    MissingDummy {
        /// The atom's text.
        atom: String,
        /// The type without a dummy.
        type_name: String,
    },
}

impl AtomError {
    /// The atom's text.
    pub fn atom(&self) -> &str {
        match self {
            AtomError::Syntax { atom, .. }
            | AtomError::UnknownName { atom, .. }
            | AtomError::MissingDummy { atom, .. } => atom,
        }
    }
}

impl fmt::Display for AtomError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AtomError::Syntax { atom, message, hint } => {
                write!(f, "malformed atom \"{atom}\": {message}\n  hint: {hint}")
            }
            AtomError::UnknownName { atom, kind, name, known, suggestion } => {
                write!(f, "unknown {kind} `{name}` in atom \"{atom}\"")?;
                if let Some(s) = suggestion {
                    write!(f, "; did you mean `{s}`?")?;
                }
                let plural = match kind {
                    NameKind::Type => "message types",
                    _ => "roles",
                };
                write!(f, "\n  the {plural} that exist are: {}", known.join(", "))
            }
            AtomError::MissingDummy { atom, type_name } => write!(
                f,
                "atom \"{atom}\" names the message type <{type_name}>, but no dummy of that type \
                 was given, so no such message is ever sent\n  hint: add a {type_name} to dummies![..]"
            ),
        }
    }
}

/// Why a check could not reach a verdict.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Error {
    /// The formula does not parse.
    Parse {
        /// The formula.
        formula: String,
        /// The parser's message, with the caret under the column.
        message: String,
        /// 1-based line of the error.
        line: usize,
        /// 1-based column of the error.
        column: usize,
    },
    /// The formula could not be translated to an automaton.
    Translate {
        /// The formula.
        formula: String,
        /// The translator's message.
        message: String,
    },
    /// An atomic proposition is malformed or names something unknown.
    Atom {
        /// The formula.
        formula: String,
        /// What is wrong with the atom.
        error: Box<AtomError>,
    },
    /// The formula has more distinct atoms than the automaton supports (64).
    TooManyAtoms {
        /// The formula.
        formula: String,
        /// How many it has.
        count: usize,
    },
    /// The protocol object has no roles.
    NoRoles,
    /// Protocol code panicked while the engine probed an action.
    ProtocolPanic {
        /// The action being probed.
        action: String,
        /// The panic message.
        message: String,
        /// The actions that led from the initial object to the state probed.
        trace: Vec<String>,
    },
    /// The same operation on two equal objects gave different results.
    Nondeterminism {
        /// The action being probed.
        action: String,
        /// How the two results differed.
        detail: String,
        /// The actions that led from the initial object to the state probed.
        trace: Vec<String>,
    },
    /// The object broke another rule of the [`Protocol`](crate::Protocol)
    /// contract (a refusal that changed the object, a receive from a sender
    /// other than the one asked for, a message of an unknown type).
    Contract {
        /// The action being probed.
        action: String,
        /// Which rule and how.
        detail: String,
        /// The actions that led from the initial object to the state probed.
        trace: Vec<String>,
    },
    /// A setting is invalid: an environment variable that does not parse
    /// or is out of range (see [`Checker::from_env`](crate::Checker::from_env)).
    Config {
        /// The variable, e.g. `PRUST_TIMEOUT`.
        variable: String,
        /// Its value as set.
        value: String,
        /// What is wrong and what is accepted.
        message: String,
    },
}

fn write_trace(f: &mut fmt::Formatter<'_>, trace: &[String]) -> fmt::Result {
    if trace.is_empty() {
        return writeln!(f, "  in the initial state");
    }
    writeln!(f, "  trace from the initial state:")?;
    for (i, step) in trace.iter().enumerate() {
        writeln!(f, "  {:>4}. {step}", i + 1)?;
    }
    Ok(())
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Parse { message, .. } => write!(f, "formula does not parse: {message}"),
            Error::Translate { formula, message } => {
                write!(f, "formula `{formula}` cannot be translated: {message}")
            }
            Error::Atom { formula, error } => {
                writeln!(f, "{error}")?;
                // Point at the atom in the formula, so a long formula with a
                // typo in one of many atoms is easy to fix.
                let quoted = format!("\"{}\"", error.atom());
                if let Some(at) = formula.find(&quoted).or_else(|| formula.find(error.atom())) {
                    let line_start = formula[..at].rfind('\n').map_or(0, |i| i + 1);
                    let line_end = formula[at..].find('\n').map_or(formula.len(), |i| at + i);
                    let line_no = formula[..at].matches('\n').count() + 1;
                    let col = formula[line_start..at].chars().count();
                    writeln!(f, "  --> formula line {line_no}, column {}", col + 1)?;
                    writeln!(f, "   | {}", &formula[line_start..line_end])?;
                    write!(f, "   | {}^", " ".repeat(col))?;
                    write!(
                        f,
                        "{}",
                        "~".repeat(quoted.chars().count().saturating_sub(1))
                    )?;
                } else {
                    write!(f, "  in formula: {formula}")?;
                }
                Ok(())
            }
            Error::TooManyAtoms { formula, count } => write!(
                f,
                "formula `{formula}` has {count} distinct atoms; at most 64 are supported"
            ),
            Error::NoRoles => write!(f, "the protocol object has no roles"),
            Error::ProtocolPanic {
                action,
                message,
                trace,
            } => {
                writeln!(
                    f,
                    "protocol code panicked while probing `{action}`: {message}"
                )?;
                write_trace(f, trace)
            }
            Error::Nondeterminism {
                action,
                detail,
                trace,
            } => {
                writeln!(
                    f,
                    "the protocol object is not deterministic: `{action}` on two equal objects \
                     {detail}"
                )?;
                write_trace(f, trace)
            }
            Error::Contract {
                action,
                detail,
                trace,
            } => {
                writeln!(
                    f,
                    "the protocol object breaks the Protocol contract on `{action}`: {detail}"
                )?;
                write_trace(f, trace)
            }
            Error::Config {
                variable,
                value,
                message,
            } => write!(
                f,
                "environment variable {variable}={value:?} is not valid: {message}\n  hint: \
                 fix or unset {variable}"
            ),
        }
    }
}

impl std::error::Error for Error {}
