//! The command line's side of [`prust::load`]: the library builds the
//! object (one rule for files, shared with the `.owl` suites), and this
//! module turns what went wrong into the command's errors and hints.
//! Paths are taken from the current directory.

use std::path::Path;

use protocols::{Lts, Object};
use prust::load::{self, LoadError};
use prust::Runtime;

use engine::env::{Environment, Reader};
use engine::hint::Audience;
use engine::{DefaultBudgets, Limits};

pub use prust::load::BuildLimit;

use super::Failure;

/// Why no object was built: an error, or a limit.
#[derive(Debug)]
pub enum Unbuilt {
    /// An error (exit 3): an unknown protocol, a bad file or specification.
    Failure(Failure),
    /// A limit stopped the build (exit 2).
    Limit(BuildLimit),
}

impl From<Failure> for Unbuilt {
    fn from(f: Failure) -> Self {
        Unbuilt::Failure(f)
    }
}

impl From<LoadError> for Unbuilt {
    fn from(e: LoadError) -> Self {
        match e {
            LoadError::Limit(l) => Unbuilt::Limit(l),
            e => Unbuilt::Failure(failure(e)),
        }
    }
}

impl Unbuilt {
    /// As a failure of a command that has no verdict to give per formula:
    /// a limit is printed as inconclusive (exit 2).
    pub fn into_failure(self) -> Failure {
        match self {
            Unbuilt::Failure(f) => f,
            Unbuilt::Limit(l) => Failure::Inconclusive(format!("inconclusive: {}", l.message)),
        }
    }
}

/// Builds PROTOCOL for `runtime` within `limits` (a limit's message
/// names the command line's options).
pub fn object(protocol: &str, runtime: Runtime, limits: &Limits) -> Result<Object, Unbuilt> {
    Ok(load::object(
        protocol,
        Path::new(""),
        runtime,
        limits,
        Audience::CommandLine,
    )?)
}

/// Loads PROTOCOL as an LTS (for `prust lts` and `prust import`, which
/// have no verdict to give: a limit is reported as inconclusive) within
/// the limits of PRUST_MAX_STATES, PRUST_TIMEOUT and PRUST_MAX_MEMORY, else
/// the defaults: the limit's message tells the user to raise
/// PRUST_MAX_STATES, which was once not read here.
pub fn load(protocol: &str, reader: Reader) -> Result<Lts, Failure> {
    let limits = limits_from_env(reader)?;
    load::lts(protocol, Path::new(""), &limits, Audience::CommandLine)
        .map_err(|e| Unbuilt::from(e).into_failure())
}

/// The limits of PRUST_MAX_STATES, PRUST_TIMEOUT and PRUST_MAX_MEMORY as
/// `reader` reads them, for the commands that have no options of their
/// own for them.
pub fn limits_from_env(reader: Reader) -> Result<Limits, Failure> {
    let env = read_env(reader)?;
    Ok(limits(&env))
}

/// The variables that `reader` reads; one that does not parse is an error
/// (exit 3) naming it.
pub fn read_env(reader: Reader) -> Result<Environment, Failure> {
    Environment::read(reader).map_err(|e| bad_environment(&e, reader))
}

/// The limits that the variables of `env` set, with the defaults of a
/// command someone waits on (no time limit unless one is given).
pub fn limits(env: &Environment) -> Limits {
    env.limits.defaults(DefaultBudgets::Machine)
}

/// The error for a `PRUST_*` variable that does not parse (its message
/// says what it takes), with the hint of which variables the command reads
/// and where each is described: both from the one table of them.
pub fn bad_environment(e: &engine::Error, reader: Reader) -> Failure {
    let names: Vec<&str> = engine::env::VARIABLES
        .iter()
        .filter(|v| v.is_read_by(reader) && !v.hidden)
        .map(|v| v.name)
        .collect();
    Failure::error(format!("bad environment: {e}")).hint(format!(
        "prust {} reads {}; the engine crate's docs (module env) say what each takes",
        reader.name(),
        names.join(", ")
    ))
}

/// The command's error for a load error that is not a limit, with a hint
/// where the command line can give one.
fn failure(e: LoadError) -> Failure {
    match &e {
        LoadError::Bundled(b) if matches!(**b, protocols::Error::UnknownProtocol { .. }) => {
            let registered = load::registered_names();
            let hint = "`prust list` shows the bundled protocols; a path ending in .aut reads an LTS, one ending in .dcj a Discourje specification";
            if registered.is_empty() {
                return Failure::error(e).hint(hint);
            }
            // A binary of the user's own: its names first, since a typo of
            // one of them is the likelier mistake.
            let name = match &**b {
                protocols::Error::UnknownProtocol { name, .. } => name.as_str(),
                _ => "",
            };
            let close = engine::names::closest(name, registered.iter().map(String::as_str))
                .map(|c| format!("did you mean `{c}`? "))
                .unwrap_or_default();
            Failure::error(e).hint(format!(
                "{close}this program registers {}; {hint}",
                registered.join(", ")
            ))
        }
        LoadError::NeedsSpec { path, .. } => Failure::error(format!(
            "{} is an LTS file; --runtime on-the-fly builds a bundled protocol's specification",
            path.display()
        ))
        .hint("use --runtime strict (or liberal) for .aut files; bundled protocols and .dcj files have a specification"),
        // One hint a cause for every file the CLI reads.
        LoadError::Read { error, .. } => {
            let hint = protocols::files::read_hint(error, protocols::files::FileKind::Aut);
            Failure::error(e).hint(hint)
        }
        _ => Failure::error(e),
    }
}
