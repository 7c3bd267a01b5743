//! [`ExploreError`]: why an exploration could not start.

use std::fmt;

/// Why an exploration could not start: bad options or a bad program.
#[derive(Debug)]
pub enum ExploreError {
    /// A `PRUST_*` variable does not parse.
    Env {
        /// The variable.
        variable: String,
        /// Its value.
        value: String,
        /// What is wrong and what is accepted.
        message: String,
    },
    /// The property does not parse, or names a role or type the object
    /// does not have (as `engine::check` reports it).
    Property(engine::Error),
    /// The program spawned a role the object does not have, or one twice.
    Program(String),
}

impl fmt::Display for ExploreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExploreError::Env {
                variable,
                value,
                message,
            } => write!(
                f,
                "environment variable {variable}={value:?} is not valid: {message}"
            ),
            ExploreError::Property(e) => write!(f, "the property: {e}"),
            ExploreError::Program(e) => write!(f, "the program: {e}"),
        }
    }
}

impl std::error::Error for ExploreError {}

impl ExploreError {
    /// An [`ExploreError::Env`] for `variable=value`.
    pub(crate) fn env(variable: &str, value: &str, message: &str) -> ExploreError {
        ExploreError::Env {
            variable: variable.into(),
            value: value.into(),
            message: message.into(),
        }
    }

    /// The [`ExploreError::Env`] of a variable that [`engine::env`]
    /// could not read: the same variable, value and message as a check's.
    pub(crate) fn from_env(e: engine::Error) -> ExploreError {
        match e {
            engine::Error::Config {
                variable,
                value,
                message,
            } => ExploreError::Env {
                variable,
                value,
                message,
            },
            // The reader gives no other error.
            other => ExploreError::Program(other.to_string()),
        }
    }
}
