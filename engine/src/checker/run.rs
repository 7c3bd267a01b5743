//! Running checks: a session on one object (its alphabet and store made
//! once), one formula checked on it, and the free functions that check
//! with the default options.

use crate::alphabet::{resolve_dummies, Alphabet};
use crate::error::Error;
use crate::protocol::{Message, Protocol};
use crate::report::{Counterexample, Report, Verdict};
use crate::successors::{Store, Successors};

use super::{CheckSession, Checker};

impl Checker {
    /// Checks that every run of `proto` satisfies `formula`, as [`check`]
    /// does with this checker's options, and returns the report.
    ///
    /// Under [`hash_compaction`](Self::hash_compaction), which the caller
    /// asked for, a property that holds probabilistically passes too (the
    /// returned report says so).
    ///
    /// # Panics
    /// With the full report unless the property is proven (or, under hash
    /// compaction, holds probabilistically). With
    /// [`trail_dir`](Self::trail_dir) set, a counterexample is first saved
    /// as a trail file, whose path the message names.
    #[track_caller]
    pub fn assert_holds<P: Protocol>(
        &self,
        formula: &str,
        proto: P,
        dummies: Vec<Message>,
    ) -> Report {
        match self.check(formula, proto, dummies) {
            Ok(r) if r.holds_probabilistically() => r,
            Ok(r) => match (&self.trail_dir, r.counterexample()) {
                (Some(dir), Some(_)) => {
                    match crate::trail::save(dir, &r, std::any::type_name::<P>()) {
                        Ok(path) => panic!(
                            "{r}\n  counterexample saved to {} (Trail::read, then Trail::replay)",
                            path.display()
                        ),
                        Err(e) => panic!(
                            "{r}\n  could not save the counterexample in {}: {e}",
                            dir.display()
                        ),
                    }
                }
                _ => panic!("{r}"),
            },
            Err(e) => panic!("prust: {e}"),
        }
    }

    /// Checks one formula on `proto`, probing every send with each of
    /// `dummies` (see [`session`](Self::session) for what they must be).
    pub fn check<P: Protocol>(
        &self,
        formula: &str,
        proto: P,
        dummies: Vec<Message>,
    ) -> Result<Report, Error> {
        self.session(proto, dummies)?.check(formula)
    }

    /// A session for checking several formulas on one object, sharing the
    /// stored protocol states and their successors.
    ///
    /// If the object declares its message types
    /// ([`Protocol::type_names`]), `dummies` must stand for exactly those,
    /// one dummy per type, or this is [`Error::Dummies`]; an empty list
    /// means the object's own ([`declared_dummies`](crate::declared_dummies)).
    /// An object that declares nothing is checked with `dummies` as given,
    /// and the sends of a type without a dummy are never probed.
    pub fn session<P: Protocol>(
        &self,
        proto: P,
        dummies: Vec<Message>,
    ) -> Result<CheckSession<P>, Error> {
        // The object's own code runs here outside any try-operation: a
        // panic in it is an error that names it, not the tool's end.
        let roles = object_op::<P, _>("roles()", || proto.roles())?;
        if roles.is_empty() {
            return Err(Error::NoRoles);
        }
        let declared = object_op::<P, _>("type_names()", || proto.type_names())?;
        let declares_none = declared.is_empty()
            && object_op::<P, _>("declares_types()", || proto.declares_types())?;
        let dummies = resolve_dummies(&declared, declares_none, dummies)?;
        let alphabet = object_op::<P, _>("peers() or sends_to()", || {
            Alphabet::with_topology(
                roles,
                dummies,
                declared,
                |r| proto.peers(r),
                |r| proto.sends_to(r),
            )
        })??;
        // Whether states are best kept as bytes: the collapse store, or
        // under hash compaction the breadth-first frontier.
        let as_bytes = self.collapse.unwrap_or_else(|| prefers_bytes(&proto)) && encodes(&proto);
        let store = if self.uses_hash_compaction() {
            Store::fingerprinted(as_bytes)
        } else if as_bytes {
            let verify_with = self.determinism.then(|| proto.clone());
            Store::collapsed(verify_with)
        } else {
            Store::whole()
        };
        let mut successors = Successors::new(alphabet, store, self.cache_limit, self.determinism);
        let initial = object_op::<P, _>("Hash or Eq (storing the initial state)", || {
            successors.store.intern(proto)
        })?;
        // Every search of the session starts from it.
        successors.store.keep_forever(initial);
        Ok(CheckSession {
            bounds: self.bounds(),
            checker: self.clone(),
            successors,
            initial,
            broken: None,
        })
    }
}

/// Runs `op`, code of the protocol object `P` that is not a try-operation
/// (its description of itself, its Clone, Hash or Eq), and turns a panic
/// in it into [`Error::ObjectPanic`] naming the object and `operation`.
pub(crate) fn object_op<P, T>(operation: &str, op: impl FnOnce() -> T) -> Result<T, Error> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(op)).map_err(|payload| {
        Error::ObjectPanic {
            object: std::any::type_name::<P>().to_string(),
            operation: operation.to_string(),
            message: crate::panic_message(payload.as_ref()),
            trace: Vec::new(),
        }
    })
}

/// Whether `proto` prefers its states stored as bytes by default
/// ([`Protocol::prefers_bytes`]); a panic in it counts as no.
fn prefers_bytes<P: Protocol>(proto: &P) -> bool {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| proto.prefers_bytes()))
        .unwrap_or(false)
}

/// Whether `proto` writes itself as bytes ([`Protocol::encode`]); a panic
/// in it counts as no (the search then never asks again).
fn encodes<P: Protocol>(proto: &P) -> bool {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        proto.encode(&mut Vec::new())
    }))
    .unwrap_or(false)
}

/// Checks `formula` on `proto` with the default [`Checker`] and returns the
/// report, or why no verdict could be reached.
pub fn try_check<P: Protocol>(
    formula: &str,
    proto: P,
    dummies: Vec<Message>,
) -> Result<Report, Error> {
    Checker::new().check(formula, proto, dummies)
}

/// Checks that every run of `proto` satisfies `formula`: returns normally if
/// it does.
///
/// # Panics
/// With the full report — the counterexample, or why the search was
/// inconclusive, or the error — if the property is not proven. With
/// `PRUST_TRAIL_DIR=dir` set, a counterexample is also saved as a trail
/// file in `dir` and the message names it (see [`Checker::trail_dir`]).
#[track_caller]
pub fn check<P: Protocol>(formula: &str, proto: P, dummies: Vec<Message>) -> Report {
    Checker::new().assert_holds(formula, proto, dummies)
}

/// Checks that some run of `proto` violates `formula`, and returns that
/// run: for properties that must fail.
///
/// # Panics
/// With the full report if the property holds, the search was
/// inconclusive, or there was an error.
#[track_caller]
pub fn check_violated<P: Protocol>(
    formula: &str,
    proto: P,
    dummies: Vec<Message>,
) -> Counterexample {
    match try_check(formula, proto, dummies) {
        Ok(Report {
            verdict: Verdict::Violated(c),
            ..
        }) => c,
        Ok(r) => panic!("expected a violation, but: {r}"),
        Err(e) => panic!("prust: {e}"),
    }
}
