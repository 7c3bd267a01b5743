//! Panic attribution: which protocol code was running when a panic
//! unwound out of it, so that the error names the object's operation (a
//! try-operation, `enabled()`, its Hash or Eq) rather than the engine.

use std::borrow::Cow;

use crate::alphabet::LetterId;
use crate::error::{ObjectOp, ProbeError};

/// What protocol code is running now, for the error if it panics.
pub(super) struct Blame {
    /// The letter being probed.
    pub letter: LetterId,
    /// Set while protocol code runs that is not the probe of a letter
    /// (`enabled()`, a probe off the channels): what to name. A `Cow`, so
    /// that asking an object that does not list (every state of a
    /// hand-written object) allocates nothing.
    pub other: Option<Cow<'static, str>>,
    /// Set while a successor is interned (hashed and compared with the
    /// stored states): a panic then is the object's Hash or Eq, not the
    /// try-operation of `letter`.
    pub interning: bool,
}

impl Blame {
    pub fn new() -> Self {
        Blame {
            letter: 0,
            other: None,
            interning: false,
        }
    }

    /// The error for a panic with `payload` in code of object type `P`,
    /// blamed on what was running; forgets what was running.
    pub fn error<P>(&mut self, payload: &(dyn std::any::Any + Send)) -> ProbeError {
        let other = self.other.take();
        let message = crate::panic_message(payload);
        if std::mem::take(&mut self.interning) {
            return ProbeError::Object {
                op: ObjectOp::HashEq,
                letter: self.letter,
                object: std::any::type_name::<P>(),
                message,
            };
        }
        match other {
            Some(action) => ProbeError::Other {
                action: action.into_owned(),
                panic: true,
                detail: message,
            },
            None => ProbeError::Panic {
                letter: self.letter,
                message,
            },
        }
    }
}
