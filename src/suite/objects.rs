//! The protocol objects of a suite file: each protocol is loaded once (by
//! [`crate::load`], the command line's loader, within the limits of the
//! `PRUST_*` variables that bound the checks), and each runtime and
//! semantics gets one check session that the file's entries share. A limit
//! that stops a build makes the entries on it inconclusive, not failures:
//! the protocol may be fine, only too big for the limits.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use engine::hint::Audience;
use engine::{CheckSession, Checker, Error as EngineError, Limits, Report, Semantics};
use protocols::{Liberal, Lts, Object, Projection, Strict};

use super::outcome::Outcome;
use crate::load::{self, LoadError};
use crate::Runtime;

/// A protocol of a suite file, built at most once and shared by the file's
/// trials.
pub(crate) struct Loaded {
    spec: String,
    base: PathBuf,
    lts: OnceLock<Result<Arc<Lts>, Outcome>>,
    liberal: OnceLock<Result<Arc<Projection>, Outcome>>,
    /// One check session per runtime and semantics: the entries of a file
    /// share the explored protocol states and their successors, so each
    /// object is probed once, not once per formula. One lock each, so that
    /// trials of different objects run in parallel.
    sessions: BTreeMap<(Runtime, Semantics), Mutex<Option<CheckSession<Object>>>>,
}

impl Loaded {
    /// `spec` is a bundled protocol (`token-star:4`) or an Aldebaran file
    /// relative to `base` (the rule of [`load::is_file`]).
    pub(crate) fn new(spec: &str, base: &Path) -> Self {
        let sessions = Runtime::ALL
            .into_iter()
            .flat_map(|r| Semantics::ALL.map(|s| ((r, s), Mutex::new(None))))
            .collect();
        Loaded {
            spec: spec.to_string(),
            base: base.to_path_buf(),
            lts: OnceLock::new(),
            liberal: OnceLock::new(),
            sessions,
        }
    }

    /// The determinised LTS, built once within the `limits` of the first
    /// trial that needs it (every trial of a run reads the same variables).
    fn lts(&self, limits: &Limits) -> Result<Arc<Lts>, Outcome> {
        self.lts
            .get_or_init(|| {
                let lts = self.build(limits)?;
                // Determinise once here rather than in every trial.
                if lts.is_deterministic() {
                    Ok(Arc::new(lts))
                } else {
                    lts.determinise_with(limits)
                        .map(Arc::new)
                        .map_err(|e| self.unbuilt(e))
                }
            })
            .clone()
    }

    /// The LTS, through the loader `prust check` uses, within the limits
    /// of the variables (a suite's `max-states` bounds the search, not the
    /// build).
    fn build(&self, limits: &Limits) -> Result<Lts, Outcome> {
        load::lts(&self.spec, &self.base, limits, Audience::Library).map_err(|e| self.describe(e))
    }

    /// A load error as a suite reports it: a limit reached is
    /// inconclusive; a file's errors name the file; the others name the
    /// protocol, and an unknown one lists the bundled protocols.
    fn describe(&self, e: LoadError) -> Outcome {
        Outcome::Failure(match e {
            LoadError::Limit(l) => {
                return Outcome::Inconclusive(format!("protocol `{}`: {}", self.spec, l.message))
            }
            LoadError::Read { .. } | LoadError::Aut { .. } | LoadError::Dcj(_) => e.to_string(),
            LoadError::Bundled(e) => format!(
                "protocol `{}`: {e}\n  hint: bundled protocols: {}",
                self.spec,
                protocols::bundled::list()
                    .iter()
                    .map(|p| p.name)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            e => format!("protocol `{}`: {e}", self.spec),
        })
    }

    /// A build error of the protocols crate as a suite reports it.
    fn unbuilt(&self, e: protocols::Error) -> Outcome {
        let text = format!("protocol `{}`: {e}", self.spec);
        if e.is_limit() {
            Outcome::Inconclusive(text)
        } else {
            Outcome::Failure(text)
        }
    }

    fn new_session(
        &self,
        runtime: Runtime,
        checker: &Checker,
        limits: &Limits,
    ) -> Result<CheckSession<Object>, Outcome> {
        let object: Object = match runtime {
            Runtime::OnTheFly => {
                // Built from the specification, not the LTS: nothing to
                // share between sessions but the spec's text.
                let spec =
                    load::spec_within(&self.spec, &self.base, runtime, limits, Audience::Library)
                        .map_err(|e| self.describe(e))?;
                Strict::on_the_fly(&spec)
                    .map_err(|e| self.unbuilt(e))?
                    .into()
            }
            Runtime::Strict => {
                let lts = self.lts(limits)?;
                // Determinised already, but with handshakes, whose
                // runtime form may need determinising again.
                Strict::try_new_with(lts, limits)
                    .map_err(|e| match e.is_limit() {
                        true => self.unbuilt(e),
                        false => Outcome::Failure(e.to_string()),
                    })?
                    .into()
            }
            Runtime::Liberal => {
                let lts = self.lts(limits)?;
                let projection = self
                    .liberal
                    .get_or_init(|| {
                        Projection::new_with(Arc::clone(&lts), limits)
                            .map(Arc::new)
                            .map_err(|e| self.unbuilt(e))
                    })
                    .clone()?;
                Liberal::from_projection(projection).into()
            }
        };
        // The object's own dummies, as the CLI and `dummies![]` use.
        let dummies = engine::declared_dummies(&object);
        checker
            .session(object, dummies)
            .map_err(|e| Outcome::Failure(e.to_string()))
    }

    /// Checks `formula` with `checker`, the object built within `limits`
    /// (those of the variables, without the suite's own `max-states`).
    pub(crate) fn check(
        &self,
        runtime: Runtime,
        semantics: Semantics,
        checker: &Checker,
        limits: &Limits,
        formula: &str,
    ) -> Result<Report, Outcome> {
        let slot = &self.sessions[&(runtime, semantics)];
        // A check that panicked (an engine bug) poisons the lock and may
        // have left the session half-updated: start a fresh one.
        let mut guard = slot.lock().unwrap_or_else(|poisoned| {
            let mut guard = poisoned.into_inner();
            *guard = None;
            guard
        });
        if guard.is_none() {
            *guard = Some(self.new_session(runtime, checker, limits)?);
        }
        let session = guard.as_mut().expect("just filled");
        session.check(formula).map_err(|e| match e {
            EngineError::Parse { .. }
            | EngineError::Translate { .. }
            | EngineError::Atom { .. }
            | EngineError::TooManyAtoms { .. } => Outcome::Refused(e.to_string()),
            other => Outcome::Failure(other.to_string()),
        })
    }
}
