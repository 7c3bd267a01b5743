//! Turning a protocol argument (`token-star:4`, `chess`, `models/x.aut`,
//! `games/go-fish.dcj:go-fish:3`) into a protocol object: the one loader of
//! the `prust` command line and the `.owl` suites, so that both read the
//! same arguments the same way.
//!
//! **One rule for files** ([`is_file`]):
//! - an argument whose file name ends in `.dcj`, optionally followed by
//!   `:SESSION` and `:ARG,ARG` (integers), is a Discourje specification
//!   ([`dcj`]): the session is imported into a specification, so
//!   every runtime, on-the-fly included, can run it;
//! - an argument that ends in `.aut` or contains a `/` is a path to an
//!   Aldebaran `.aut` file (an LTS, without a specification);
//! - anything else is a bundled protocol, with an optional parameter after
//!   `:` (`prust list` shows them).
//!
//! Paths are relative to a base folder: the current one on the command
//! line, the suite file's folder in a suite. The warnings of a `.dcj`
//! import (a stray `)`, an undeclared role) are printed on stderr.
//!
//! Every table built on the way (the evaluation of a `.dcj` file, the
//! compiled LTS, its determinisation, the liberal projection) is bounded by
//! the [`Limits`] that bound the search (see its table), with one deadline
//! for the whole build; a build that a limit stops is a
//! [`LoadError::Limit`], which a check reports as inconclusive, never as
//! "holds". Its message names the way to raise the limit that its
//! [`Audience`] has.
//!
//! ```
//! use std::path::Path;
//! use prust::engine::{hint::Audience, Limits};
//! use prust::load::{self, LoadError};
//!
//! assert!(load::is_file("models/x.aut") && !load::is_file("token-star:4"));
//! assert!(load::is_file("go-fish.dcj:go-fish:3") && load::has_spec("go-fish.dcj"));
//! let lib = Audience::Library;
//! let lts = load::lts("token-star:3", Path::new(""), &Limits::default(), lib).unwrap();
//! assert!(lts.num_states() > 1);
//! let tiny = Limits::default().max_states(2);
//! let stopped = load::lts("token-star:3", Path::new(""), &tiny, lib).unwrap_err();
//! assert!(matches!(stopped, LoadError::Limit(_)));
//! ```

use std::cell::RefCell;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use dcj::{DcjError, DcjLimit, DcjTarget};
use engine::hint::Audience;
use engine::{Limit, Limits};
use protocols::{Lts, Object, Spec, Strict};

use crate::Runtime;

/// The one rule for what a protocol argument names: a `.dcj` file (see
/// [`is_dcj`]) or a path (it ends in `.aut` or contains a `/`) is a file,
/// anything else a bundled protocol.
///
/// ```
/// use prust::load::is_file;
/// assert!(is_file("stuck.aut"));
/// assert!(is_file("models/ring"));
/// assert!(is_file("ring.dcj:ring:3"));
/// assert!(!is_file("token-star:4"));
/// ```
pub fn is_file(protocol: &str) -> bool {
    is_dcj(protocol) || protocol.ends_with(".aut") || protocol.contains('/')
}

/// Whether the argument names a Discourje `.dcj` file: `FILE.dcj`,
/// `FILE.dcj:SESSION` or `FILE.dcj:SESSION:ARG,ARG`.
///
/// ```
/// use prust::load::is_dcj;
/// assert!(is_dcj("specs/go-fish.dcj:go-fish:3"));
/// assert!(!is_dcj("specs/go-fish.aut") && !is_dcj("go-fish:3"));
/// ```
pub fn is_dcj(protocol: &str) -> bool {
    DcjTarget::parse(protocol).is_some()
}

/// Whether the argument has a specification (a bundled protocol or a
/// `.dcj` file), which [`Runtime::needs_spec`] runtimes need; an `.aut`
/// file has only an LTS.
///
/// ```
/// use prust::load::has_spec;
/// assert!(has_spec("chess") && has_spec("x.dcj") && !has_spec("x.aut"));
/// ```
pub fn has_spec(protocol: &str) -> bool {
    is_dcj(protocol) || !is_file(protocol)
}

/// One build: the limits as given (for the reports: a time limit reached
/// is reported as the timeout given), when the build started (one
/// deadline for all its steps), and who reads its messages.
#[derive(Clone, Copy)]
struct Build<'a> {
    limits: &'a Limits,
    started: Instant,
    audience: Audience,
}

impl<'a> Build<'a> {
    fn new(limits: &'a Limits, audience: Audience) -> Self {
        Build {
            limits,
            started: Instant::now(),
            audience,
        }
    }

    /// The limits of the next step: what is left of the build's time.
    fn left(&self) -> Limits {
        self.limits.time_left_since(self.started)
    }
}

/// A build of the object that a limit stopped: a check on it is
/// inconclusive, not an error; the protocol may be fine, only too big for
/// the limits given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildLimit {
    /// The limit reached (its value as given: states of the table being
    /// built, the time budget, the bytes of tables).
    pub limit: Limit,
    /// How many states the build had made when it stopped.
    pub states: u64,
    /// What stopped, and how to raise the limit.
    pub message: String,
}

/// Why no protocol object (or LTS, or specification) was built.
#[derive(Debug)]
pub enum LoadError {
    /// The `.aut` file could not be read.
    Read {
        /// The file, as looked for (base folder joined).
        path: PathBuf,
        /// Why it could not be read.
        error: std::io::Error,
    },
    /// The `.aut` file is not a valid Aldebaran file.
    Aut {
        /// The file.
        path: PathBuf,
        /// What is wrong with it, and where.
        error: protocols::AutError,
    },
    /// No bundled protocol has this name, or its parameter is wrong.
    Bundled(Box<protocols::Error>),
    /// The `.dcj` file cannot be read or imported (the error has the
    /// file, line and column, and a hint).
    Dcj(Box<DcjError>),
    /// The runtime needs a specification (see [`Runtime::needs_spec`]) and
    /// the argument is an `.aut` file, which has only an LTS.
    NeedsSpec {
        /// The file.
        path: PathBuf,
        /// The runtime that needs a specification.
        runtime: Runtime,
    },
    /// The specification is ill-formed (an undefined or unguarded call, a
    /// role talking to itself, a runaway recursion).
    Build(Box<protocols::Error>),
    /// A limit stopped the build: inconclusive, not an error.
    Limit(BuildLimit),
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::Read { path, error } => write!(f, "cannot read {}: {error}", path.display()),
            LoadError::Aut { path, error } => {
                f.write_str(&error.in_file(&path.display().to_string()))
            }
            LoadError::Bundled(e) | LoadError::Build(e) => write!(f, "{e}"),
            LoadError::Dcj(e) => write!(f, "{e}"),
            LoadError::NeedsSpec { path, runtime } => write!(
                f,
                "{} is an LTS file; the {runtime} runtime builds a bundled protocol's specification",
                path.display()
            ),
            LoadError::Limit(l) => f.write_str(&l.message),
        }
    }
}

impl std::error::Error for LoadError {}

/// Loads `protocol` as an LTS (not determinised): an `.aut` file under
/// `base` (see [`is_file`]), or a bundled protocol or `.dcj` session
/// compiled within `limits`; a limit's message is worded for `audience`.
pub fn lts(
    protocol: &str,
    base: &Path,
    limits: &Limits,
    audience: Audience,
) -> Result<Lts, LoadError> {
    lts_within(protocol, base, Build::new(limits, audience))
}

/// [`lts`] as a step of `build` (one deadline for the whole build).
fn lts_within(protocol: &str, base: &Path, build: Build) -> Result<Lts, LoadError> {
    if is_dcj(protocol) {
        return dcj_spec(protocol, base, build)?
            .compile_with(&build.left())
            .map_err(|e| build_error(e, build));
    }
    if is_file(protocol) {
        let path = base.join(protocol);
        let text = protocols::files::read_text(&path).map_err(|error| LoadError::Read {
            path: path.clone(),
            error,
        })?;
        return Lts::from_aut(&text).map_err(|error| LoadError::Aut { path, error });
    }
    named_spec(protocol)?
        .compile_with(&build.left())
        .map_err(|e| build_error(e, build))
}

/// The specification of a bundled protocol or of a `.dcj` session under
/// `base`, for the runtimes that need one (`runtime`: which one, for the
/// error when `protocol` is an `.aut` file, which has no specification).
/// A `.dcj` file is evaluated within [`Limits::default`]; see
/// [`spec_within`] to bound it.
pub fn spec(protocol: &str, base: &Path, runtime: Runtime) -> Result<Spec, LoadError> {
    spec_within(
        protocol,
        base,
        runtime,
        &Limits::default(),
        Audience::Library,
    )
}

/// [`spec`] with the evaluation of a `.dcj` file bounded by `limits` (its
/// time and memory; a limit reached is a [`LoadError::Limit`] worded for
/// `audience`).
pub fn spec_within(
    protocol: &str,
    base: &Path,
    runtime: Runtime,
    limits: &Limits,
    audience: Audience,
) -> Result<Spec, LoadError> {
    spec_bounded(protocol, base, runtime, Build::new(limits, audience))
}

fn spec_bounded(
    protocol: &str,
    base: &Path,
    runtime: Runtime,
    build: Build,
) -> Result<Spec, LoadError> {
    if is_dcj(protocol) {
        return dcj_spec(protocol, base, build);
    }
    if is_file(protocol) {
        return Err(LoadError::NeedsSpec {
            path: base.join(protocol),
            runtime,
        });
    }
    named_spec(protocol)
}

/// A specification a program registered under a name for its own command
/// line ([`crate::cli::Cli::protocol`]).
pub(crate) type SpecFn = Arc<dyn Fn() -> Spec + Send + Sync>;

thread_local! {
    /// The protocols registered for the command running on this thread
    /// (see [`with_registered`]): per thread, not per process, so that two
    /// commands run side by side (tests do) never see each other's.
    static REGISTERED: RefCell<Vec<(String, SpecFn)>> = const { RefCell::new(Vec::new()) };
}

/// Runs `f` with `registered` as the names that the loader resolves
/// before the bundled protocols, on this thread.
pub(crate) fn with_registered<R>(registered: &[(String, SpecFn)], f: impl FnOnce() -> R) -> R {
    let old = REGISTERED.with(|r| r.replace(registered.to_vec()));
    // Put back even if `f` panics, so a caught panic leaves no stale names.
    struct Restore(Option<Vec<(String, SpecFn)>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            if let Some(old) = self.0.take() {
                REGISTERED.with(|r| *r.borrow_mut() = old);
            }
        }
    }
    let _restore = Restore(Some(old));
    f()
}

/// The protocols registered on this thread (see [`with_registered`]), in
/// the order they were registered.
pub(crate) fn registered() -> Vec<(String, SpecFn)> {
    REGISTERED.with(|r| r.borrow().clone())
}

/// The names of [`registered`].
pub(crate) fn registered_names() -> Vec<String> {
    registered().into_iter().map(|(n, _)| n).collect()
}

/// The specification a name stands for: a protocol registered for this
/// command line, else a bundled one.
fn named_spec(protocol: &str) -> Result<Spec, LoadError> {
    let registered = REGISTERED.with(|r| {
        r.borrow()
            .iter()
            .find(|(n, _)| n == protocol.trim())
            .map(|(_, f)| Arc::clone(f))
    });
    if let Some(spec) = registered {
        return Ok(spec());
    }
    protocols::bundled::spec_by_name(protocol).map_err(|e| LoadError::Bundled(Box::new(e)))
}

/// Imports the session a `.dcj` argument names, its file under `base`,
/// as a step of `build`; the import's warnings go to stderr (they are
/// about the file, whoever loads it).
fn dcj_spec(protocol: &str, base: &Path, build: Build) -> Result<Spec, LoadError> {
    let mut target = DcjTarget::parse(protocol)
        .expect("a .dcj argument")
        .map_err(|e| LoadError::Dcj(Box::new(e)))?;
    target.path = base.join(&target.path);
    let import = target
        .import_with(&build.left())
        .map_err(|e| dcj_error(e, build.limits, build.audience))?;
    for warning in &import.warning_texts {
        eprintln!("{warning}");
    }
    Ok(import.spec)
}

/// Builds the `runtime` object of `protocol` (an `.aut` or `.dcj` file
/// under `base`, or a bundled protocol) within `limits`, one deadline for
/// the whole build; a limit's message is worded for `audience`.
///
/// ```
/// use std::path::Path;
/// use prust::engine::{hint::Audience, Limits};
/// use prust::load::object;
/// use prust::{Protocol, Runtime};
///
/// for runtime in Runtime::ALL {
///     let chess = object("chess", Path::new(""), runtime, &Limits::default(), Audience::Library);
///     assert_eq!(chess.unwrap().roles(), ["white", "black"]);
/// }
/// ```
pub fn object(
    protocol: &str,
    base: &Path,
    runtime: Runtime,
    limits: &Limits,
    audience: Audience,
) -> Result<Object, LoadError> {
    let build = Build::new(limits, audience);
    let unbuilt = |e| build_error(e, build);
    match runtime {
        Runtime::OnTheFly => {
            let spec = spec_bounded(protocol, base, runtime, build)?;
            Strict::on_the_fly(&spec).map(Object::from).map_err(unbuilt)
        }
        Runtime::Liberal => {
            let lts = lts_within(protocol, base, build)?;
            protocols::Liberal::try_new_with(lts, &build.left())
                .map(Object::from)
                .map_err(unbuilt)
        }
        Runtime::Strict => {
            let lts = lts_within(protocol, base, build)?;
            Strict::try_new_with(lts, &build.left())
                .map(Object::from)
                .map_err(unbuilt)
        }
    }
}

/// An import error: [`LoadError::Limit`] when a limit of `limits` stopped
/// the evaluation (its message worded for `audience`), [`LoadError::Dcj`]
/// otherwise.
pub fn dcj_error(e: DcjError, limits: &Limits, audience: Audience) -> LoadError {
    let limit = match e.limit {
        Some(DcjLimit::Time) => Limit::Time(limits.time_budget().unwrap_or_default()),
        Some(DcjLimit::Memory(bytes)) => Limit::Memory(bytes as u64),
        None => return LoadError::Dcj(Box::new(e)),
    };
    LoadError::Limit(BuildLimit {
        limit,
        states: 0,
        message: e.for_audience(audience).to_string(),
    })
}

/// A build error: [`LoadError::Limit`] when a limit stopped it,
/// [`LoadError::Build`] otherwise. A runaway recursion in a specification
/// is an error of the specification, whatever bound caught it.
fn build_error(e: protocols::Error, build: Build) -> LoadError {
    use protocols::{Error, ErrorKind};
    let limits = build.limits;
    let message = e.for_audience(build.audience).to_string();
    let (limit, states) = match (e.kind(), &e) {
        (ErrorKind::StateLimit, &Error::StateBound { limit, .. }) => {
            (Limit::States(limit as u64), limit as u64)
        }
        (ErrorKind::TimeLimit, &Error::Timeout { states, .. }) => (
            Limit::Time(limits.time_budget().unwrap_or_default()),
            states as u64,
        ),
        (ErrorKind::MemoryLimit, &Error::MemoryBound { limit, states, .. }) => {
            (Limit::Memory(limit as u64), states as u64)
        }
        _ => return LoadError::Build(Box::new(e)),
    };
    LoadError::Limit(BuildLimit {
        limit,
        states,
        message,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh folder under the system's temporary directory.
    fn folder(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("prust-load-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        dir
    }

    #[test]
    fn files_are_read_under_the_base_folder_and_names_are_bundled() {
        let dir = folder("base");
        let aut = "des (0, 1, 2)\n(0,\"!(Msg,a,b)\",1)\n";
        std::fs::write(dir.join("sub/one.aut"), aut).unwrap();
        std::fs::write(dir.join("sub/noext"), aut).unwrap();
        let lts = |p: &str, base: &Path| lts(p, base, &Limits::default(), Audience::Library);
        for file in ["sub/one.aut", "sub/noext"] {
            assert_eq!(lts(file, &dir).unwrap().num_states(), 2, "{file}");
        }
        // The same argument without the base is looked for elsewhere.
        match lts("sub/one.aut", Path::new("nowhere")) {
            Err(LoadError::Read { path, .. }) => assert_eq!(path, Path::new("nowhere/sub/one.aut")),
            other => panic!("{other:?}"),
        }
        assert!(matches!(lts("chss", &dir), Err(LoadError::Bundled(_))));
        assert!(matches!(lts("chess:2", &dir), Err(LoadError::Bundled(_))));
        std::fs::write(dir.join("bad.aut"), "des (0, 1\n").unwrap();
        let e = lts("bad.aut", &dir).unwrap_err();
        assert!(matches!(e, LoadError::Aut { .. }));
        assert!(e
            .to_string()
            .starts_with(&dir.join("bad.aut").display().to_string()));
    }

    #[test]
    fn a_runtime_that_needs_a_spec_refuses_a_file() {
        let e = spec("x.aut", Path::new(""), Runtime::OnTheFly).unwrap_err();
        assert!(matches!(e, LoadError::NeedsSpec { .. }));
        assert!(e.to_string().contains("on-the-fly"), "{e}");
        assert!(spec("chess", Path::new(""), Runtime::OnTheFly).is_ok());
    }

    #[test]
    fn a_state_limit_stops_every_runtime_without_a_verdict() {
        let tiny = Limits::default().max_states(3);
        for runtime in [Runtime::Strict, Runtime::Liberal] {
            match object(
                "token-star:4",
                Path::new(""),
                runtime,
                &tiny,
                Audience::Library,
            ) {
                Err(LoadError::Limit(l)) => assert_eq!(l.limit, Limit::States(3), "{runtime}"),
                other => panic!("{runtime}: {other:?}"),
            }
        }
    }
}
