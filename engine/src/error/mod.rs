//! Errors: everything that stops a check from reaching a verdict.

use std::fmt;

mod probe;

pub(crate) use probe::{lost, ObjectOp, ProbeError};

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
    /// provides, so no send of it is ever explored. (A check no longer gets
    /// this far with such dummies: a declared type without a dummy is an
    /// [`Error::Dummies`] when the session is made. Kept so that code
    /// matching on it still compiles.)
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

/// How a check's dummies fail to match the message types that the object
/// declares: the detail of [`Error::Dummies`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct DummiesError {
    /// Declared types that no dummy stands for: their sends would never
    /// be probed.
    pub missing: Vec<String>,
    /// Type paths of dummies whose type the object does not declare
    /// (neither the short name nor the full path is declared).
    pub unknown: Vec<String>,
    /// Declared types that dummies of two or more different type paths
    /// stand for (`a::Move` and `b::Move` for `Move`), with those
    /// paths: the object tells messages apart by short name, so they
    /// would be one type explored twice under one printed name.
    pub ambiguous: Vec<(String, Vec<String>)>,
    /// For each unknown dummy that looks like a typo, the declared
    /// type it most likely means (by [`names::closest`](crate::names::closest)
    /// on the short name, a missing type preferred).
    pub suggestions: Vec<(String, String)>,
    /// The types the object declares, in its order.
    pub declared: Vec<String>,
    /// The type paths of the dummies given, in their order.
    pub given: Vec<String>,
    /// How to fix it.
    pub hint: String,
}

impl fmt::Display for DummiesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "the dummies do not match the message types the protocol object declares \
             (Protocol::type_names), so a check would explore only part of the object"
        )?;
        if !self.missing.is_empty() {
            writeln!(f, "  no dummy for: {}", self.missing.join(", "))?;
        }
        for u in &self.unknown {
            write!(f, "  not declared: {u}")?;
            match self.suggestions.iter().find(|(s, _)| s == u) {
                Some((_, close)) => writeln!(f, "; did you mean `{close}`?")?,
                None => writeln!(f)?,
            }
        }
        for (ty, paths) in &self.ambiguous {
            writeln!(
                f,
                "  ambiguous: dummies of {} all stand for the declared type {ty}",
                paths.join(" and ")
            )?;
        }
        writeln!(f, "  declared: {}", list_or_none(&self.declared))?;
        writeln!(f, "  given:    {}", list_or_none(&self.given))?;
        write!(f, "  hint: {}", self.hint)
    }
}

impl std::error::Error for DummiesError {}

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
    /// The dummies do not match the message types that the object declares
    /// ([`Protocol::type_names`](crate::Protocol::type_names)): a check with
    /// them would probe the sends of only some of the object's types (and
    /// could prove a false property), or of types the object never accepts.
    /// Only objects that declare their types are checked this way; pass an
    /// empty list (`dummies![]`) to use the object's own, one
    /// `Message::named(type, ())` per declared type. For an object that
    /// declares none, an empty list is this error too (all fields but the
    /// hint empty): the check would have no message type at all.
    ///
    /// ```
    /// # use engine::{Checker, Error, Message, Protocol, Refused, RoleId};
    /// # #[derive(Clone, Debug, PartialEq, Eq, Hash)] struct P;
    /// # impl Protocol for P {
    /// #     fn roles(&self) -> Vec<String> { vec!["a".into(), "b".into()] }
    /// #     fn type_names(&self) -> Vec<String> { vec!["Commit".into(), "Abort".into()] }
    /// #     fn try_send(&mut self, _: RoleId, _: RoleId, m: Message) -> Result<(), Refused<Message>> { Err(Refused(m)) }
    /// #     fn try_recv(&mut self, _: RoleId, _: Option<RoleId>) -> Result<(RoleId, Message), Refused> { Err(Refused(())) }
    /// # }
    /// let e = Checker::new().session(P, vec![Message::named("Comit", ())]).err().unwrap();
    /// let Error::Dummies(d) = &e else { panic!("{e}") };
    /// assert_eq!(d.missing, ["Commit", "Abort"]);
    /// assert_eq!(d.unknown, ["Comit"]);
    /// assert_eq!(d.suggestions, [("Comit".to_string(), "Commit".to_string())]);
    /// assert!(e.to_string().contains("did you mean `Commit`?"));
    /// ```
    Dummies(Box<DummiesError>),
    /// Protocol code panicked while the engine probed an action. The
    /// panic hook prints the panic once, where it happened; the engine's
    /// re-runs of the same code (to rebuild the trace) are quiet.
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
    /// Code of the protocol object that is not a try-operation panicked:
    /// its `Clone`, `Hash` or `Eq`, or its description of itself
    /// (`roles`, `type_names`, `peers`, `sends_to`). The engine clones,
    /// hashes and compares every state it stores, so such a panic would
    /// otherwise take the whole tool down; it ends the check instead. The
    /// panic hook prints the panic once, where it happened; the engine's
    /// re-runs of the same code (to tell a panicking `Clone` from a
    /// panicking probe, to rebuild the trace) are quiet.
    ObjectPanic {
        /// The object's type, as [`std::any::type_name`] gives it.
        object: String,
        /// The operation that panicked, e.g. `Hash or Eq (storing the
        /// initial state)` or `Clone`.
        operation: String,
        /// The panic message.
        message: String,
        /// The actions that led from the initial object to the state the
        /// operation was on (empty where it is not known).
        trace: Vec<String>,
    },
    /// The object's channels and message types make more action letters
    /// than the engine numbers (its letter ids are 32 bits): a check of
    /// it could not even list its actions. Fewer roles, fewer channels
    /// ([`Protocol::peers`](crate::Protocol::peers),
    /// [`Protocol::sends_to`](crate::Protocol::sends_to)) or fewer types
    /// make it fit.
    TooManyActions {
        /// Roles of the object.
        roles: usize,
        /// Channels (ordered pairs of roles) it declares.
        channels: u64,
        /// Message types.
        types: usize,
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
    /// Weak fairness ([`Checker::fairness`](crate::Checker::fairness)) was
    /// asked for a check it cannot decide exactly: a share of a split
    /// check, or an object with more roles than acceptance marks are left.
    Fairness {
        /// Why, and what to do instead.
        message: String,
    },
}

fn list_or_none(names: &[String]) -> String {
    if names.is_empty() {
        "(none)".into()
    } else {
        names.join(", ")
    }
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

/// A formula as an error quotes it: at most 200 characters (with `…`),
/// so that an error about a 100 kB formula stays a few lines.
fn shortened(formula: &str) -> String {
    const MAX: usize = 200;
    let mut shown: String = formula.chars().take(MAX).collect();
    if shown.len() < formula.len() {
        shown.push('…');
    }
    shown
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Parse { message, .. } => write!(f, "formula does not parse: {message}"),
            Error::Translate { formula, message } => {
                write!(
                    f,
                    "formula `{}` cannot be translated: {message}",
                    shortened(formula)
                )
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
                    // Around the atom only: a formula may be 100 kB long.
                    let (text, caret) =
                        owl_lite::ltl_parse::excerpt(&formula[line_start..line_end], col + 1);
                    writeln!(f, "   | {text}")?;
                    write!(f, "   | {}^", " ".repeat(caret))?;
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
                "formula `{}` has {count} distinct atoms; at most 64 are supported",
                shortened(formula)
            ),
            Error::NoRoles => write!(f, "the protocol object has no roles"),
            Error::Dummies(d) => d.fmt(f),
            Error::ObjectPanic {
                object,
                operation,
                message,
                trace,
            } => {
                writeln!(
                    f,
                    "the protocol object `{object}` panicked in {operation}: {message}\n  hint: \
                     the engine clones, hashes and compares every state it stores, so Clone, \
                     Hash and Eq of a protocol object must not panic"
                )?;
                write_trace(f, trace)
            }
            Error::TooManyActions {
                roles,
                channels,
                types,
            } => write!(
                f,
                "the protocol object has too many actions to check: {roles} roles, {channels} \
                 channels and {types} message types make more than 2^32 action letters\n  hint: \
                 declare only the channels the roles use (Protocol::peers or sends_to), or use \
                 fewer roles or message types"
            ),
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
            Error::Fairness { message } => write!(f, "weak fairness: {message}"),
        }
    }
}

impl std::error::Error for Error {}
