//! One place that turns "PROTOCOL + runtime + limits" into a protocol
//! object, for every subcommand that needs one (`check`, `replay`).
//!
//! The object's type depends on the runtime, so the caller hands in a
//! [`WithObject`] visitor that is run on whichever object was built.

use std::fmt;
use std::time::{Duration, Instant};

use engine::{Limit, Protocol};
use protocols::{Lts, Spec, Strict};

use super::check::Runtime;
use super::Failure;

/// What to do with the object once it is built (generic over its type).
pub trait WithObject {
    /// What the visit returns.
    type Output;
    /// Runs on the built object.
    fn run<P: Protocol + fmt::Debug>(self, object: P) -> Self::Output;
}

/// The limits of building an object: the same `--max-states`, `--timeout`
/// and `--max-memory` that bound the search, so that no phase (compiling,
/// determinising an `.aut`, projecting) can take the machine.
#[derive(Debug, Clone, Copy, Default)]
pub struct BuildLimits {
    /// At most this many states in any table built (LTS, determinised LTS,
    /// projection); `None`: the protocols crate's default.
    pub max_states: Option<u64>,
    /// The time the whole build may take.
    pub timeout: Option<Duration>,
    /// At most this many bytes of tables; `None`: the protocols crate's
    /// default.
    pub max_memory: Option<u64>,
}

impl BuildLimits {
    /// The protocols crate's limits, with the deadline counted from now.
    fn protocols(&self) -> protocols::Limits {
        let mut limits = protocols::Limits::default();
        if let Some(n) = self.max_states {
            limits = limits.max_states(usize::try_from(n).unwrap_or(usize::MAX));
        }
        if let Some(t) = self.timeout {
            if let Some(at) = Instant::now().checked_add(t) {
                limits = limits.deadline(at);
            }
        }
        if let Some(bytes) = self.max_memory {
            limits = limits.max_memory(usize::try_from(bytes).unwrap_or(usize::MAX));
        }
        limits
    }
}

/// A build of the object that a limit stopped: the check is inconclusive
/// (exit 2), not an error; the protocol may be fine, only too big for the
/// limits given.
#[derive(Debug, Clone)]
pub struct BuildLimit {
    /// The limit reached (its value as given: states of the table being
    /// built, the time budget, the bytes of tables).
    pub limit: Limit,
    /// How many states the build had made when it stopped.
    pub states: u64,
    /// What stopped, and how to raise the limit.
    pub message: String,
}

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

/// Builds PROTOCOL for `runtime` within `limits` and runs `visit` on it.
pub fn with_object<W: WithObject>(
    protocol: &str,
    runtime: Runtime,
    limits: &BuildLimits,
    visit: W,
) -> Result<W::Output, Unbuilt> {
    let bounds = limits.protocols();
    let unbuilt = |e| build_failure(e, limits);
    match runtime {
        Runtime::OnTheFly => {
            let spec = load_spec(protocol)?;
            Strict::on_the_fly(&spec)
                .map(|o| visit.run(o))
                .map_err(unbuilt)
        }
        Runtime::Liberal => {
            let lts = load_within(protocol, &bounds, limits)?;
            protocols::Liberal::try_new_with(lts, &bounds)
                .map(|o| visit.run(o))
                .map_err(unbuilt)
        }
        Runtime::Strict => {
            let lts = load_within(protocol, &bounds, limits)?;
            Strict::try_new_with(lts, &bounds)
                .map(|o| visit.run(o))
                .map_err(unbuilt)
        }
    }
}

/// Loads PROTOCOL as an LTS: a path to an Aldebaran `.aut` file, or a
/// bundled name with an optional parameter (`token-star:4`), compiled
/// within `bounds` (the protocols crate's form of `limits`, which names
/// the limit a stopped build reached).
fn load_within(
    protocol: &str,
    bounds: &protocols::Limits,
    limits: &BuildLimits,
) -> Result<Lts, Unbuilt> {
    if looks_like_file(protocol) {
        let text = std::fs::read_to_string(protocol)
            .map_err(|e| Failure::error(format!("cannot read {protocol}: {e}")))?;
        return Ok(Lts::from_aut(&text).map_err(|e| Failure::error(format!("{protocol}: {e}")))?);
    }
    let spec = protocols::bundled::spec_by_name(protocol).map_err(unknown)?;
    spec.compile_with(bounds)
        .map_err(|e| build_failure(e, limits))
}

/// Loads PROTOCOL as an LTS within the default limits (for `prust lts`,
/// which has no verdict to give: a limit is reported as inconclusive).
pub fn load(protocol: &str) -> Result<Lts, Failure> {
    let limits = BuildLimits::default();
    load_within(protocol, &limits.protocols(), &limits).map_err(Unbuilt::into_failure)
}

/// The specification of a bundled protocol (for objects built on the fly,
/// which need one: an `.aut` file is an LTS already).
pub fn load_spec(protocol: &str) -> Result<Spec, Failure> {
    if looks_like_file(protocol) {
        return Err(Failure::error(format!(
            "{protocol} is an LTS file; --runtime on-the-fly builds a bundled protocol's specification"
        ))
        .hint("use --runtime strict (or liberal) for .aut files"));
    }
    protocols::bundled::spec_by_name(protocol).map_err(unknown)
}

/// One rule for every subcommand: a path (it has a `/` or ends in `.aut`)
/// is a file, anything else a bundled name.
pub fn looks_like_file(protocol: &str) -> bool {
    protocol.ends_with(".aut") || protocol.contains('/')
}

fn unknown(e: protocols::Error) -> Failure {
    match e {
        protocols::Error::UnknownProtocol { .. } => Failure::error(e)
            .hint("`prust list` shows the bundled protocols; a path ending in .aut reads an LTS"),
        _ => Failure::error(e),
    }
}

/// A build error: a [`BuildLimit`] when a limit stopped it, an error
/// (exit 3) otherwise. A runaway recursion in a specification is an error
/// of the specification, whatever bound caught it.
fn build_failure(e: protocols::Error, limits: &BuildLimits) -> Unbuilt {
    let message = e.to_string();
    let (limit, states) = match e {
        protocols::Error::StateBound { limit, what } if what != "unfolded specification" => {
            (Limit::States(limit as u64), limit as u64)
        }
        protocols::Error::Timeout { states, .. } => (
            Limit::Time(limits.timeout.unwrap_or_default()),
            states as u64,
        ),
        protocols::Error::MemoryBound { limit, states, .. } => {
            (Limit::Memory(limit as u64), states as u64)
        }
        e => return Unbuilt::Failure(Failure::error(e)),
    };
    Unbuilt::Limit(BuildLimit {
        limit,
        states,
        message,
    })
}
