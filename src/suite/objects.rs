//! The protocol objects of a suite file: each protocol is loaded once (by
//! [`crate::load`], the command line's loader), and each runtime and
//! semantics gets one check session that the file's entries share.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use engine::{CheckSession, Checker, Error as EngineError, Report, Semantics};
use protocols::{Liberal, Lts, Object, Projection, Strict};

use super::outcome::Outcome;
use crate::load::{self, BuildLimits, LoadError};
use crate::Runtime;

/// A protocol of a suite file, built at most once and shared by the file's
/// trials.
pub(crate) struct Loaded {
    spec: String,
    base: PathBuf,
    lts: OnceLock<Result<Arc<Lts>, String>>,
    liberal: OnceLock<Result<Arc<Projection>, String>>,
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

    fn lts(&self) -> Result<Arc<Lts>, String> {
        self.lts
            .get_or_init(|| {
                let lts = self.build()?;
                // Determinise once here rather than in every trial.
                if lts.is_deterministic() {
                    Ok(Arc::new(lts))
                } else {
                    lts.determinise(protocols::spec::DEFAULT_MAX_STATES)
                        .map(Arc::new)
                        .map_err(|e| format!("protocol `{}`: {e}", self.spec))
                }
            })
            .clone()
    }

    /// The LTS, through the loader `prust check` uses, within the default
    /// limits (a suite's `max-states` bounds the search, not the build).
    fn build(&self) -> Result<Lts, String> {
        load::lts(&self.spec, &self.base, &BuildLimits::default()).map_err(|e| self.describe(e))
    }

    /// A load error as a suite reports it: a file's errors name the file;
    /// the others name the protocol, and an unknown one lists the bundled
    /// protocols.
    fn describe(&self, e: LoadError) -> String {
        match e {
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
        }
    }

    fn new_session(
        &self,
        runtime: Runtime,
        checker: &Checker,
    ) -> Result<CheckSession<Object>, Outcome> {
        let object: Object = match runtime {
            Runtime::OnTheFly => {
                // Built from the specification, not the LTS: nothing to
                // share between sessions but the spec's text.
                let spec = load::spec(&self.spec, &self.base, runtime)
                    .map_err(|e| Outcome::Failure(self.describe(e)))?;
                Strict::on_the_fly(&spec)
                    .map_err(|e| Outcome::Failure(format!("protocol `{}`: {e}", self.spec)))?
                    .into()
            }
            Runtime::Strict => {
                let lts = self.lts().map_err(Outcome::Failure)?;
                Strict::try_new(lts)
                    .map_err(|e| Outcome::Failure(e.to_string()))?
                    .into()
            }
            Runtime::Liberal => {
                let lts = self.lts().map_err(Outcome::Failure)?;
                let projection = self
                    .liberal
                    .get_or_init(|| {
                        Projection::new(Arc::clone(&lts), protocols::spec::DEFAULT_MAX_STATES)
                            .map(Arc::new)
                            .map_err(|e| e.to_string())
                    })
                    .clone()
                    .map_err(Outcome::Failure)?;
                Liberal::from_projection(projection).into()
            }
        };
        // The object's own dummies, as the CLI and `dummies![]` use.
        let dummies = engine::declared_dummies(&object);
        checker
            .session(object, dummies)
            .map_err(|e| Outcome::Failure(e.to_string()))
    }

    pub(crate) fn check(
        &self,
        runtime: Runtime,
        semantics: Semantics,
        checker: &Checker,
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
            *guard = Some(self.new_session(runtime, checker)?);
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
