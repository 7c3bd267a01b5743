//! Why a translation fails: its own module, so that the interruption
//! machinery (`stop`) and the reductions report it without importing the
//! translation.

use std::fmt;

/// Why a formula could not be translated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TranslateError {
    /// Cubes are 64-bit masks: at most 64 distinct atoms.
    TooManyAtoms {
        /// How many distinct atoms the formula has.
        count: usize,
    },
    /// The automaton would need more than 32 acceptance sets (or the
    /// formula has more than 64 distinct eventualities).
    TooManyAcceptanceSets {
        /// How many were needed.
        count: usize,
    },
    /// The construction exceeded its size limits (more than
    /// 65,536 edges out of one state, or 100,000 states): the automaton
    /// would be too large to be useful.
    TooLarge,
    /// The caller's [`TranslateOptions::interrupt`](crate::TranslateOptions::interrupt) asked to stop.
    Interrupted,
}

impl fmt::Display for TranslateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TranslateError::TooManyAtoms { count } => write!(
                f,
                "the formula has {count} distinct atomic propositions; at most 64 are supported"
            ),
            TranslateError::TooManyAcceptanceSets { count } => write!(
                f,
                "the automaton would need {count} acceptance sets (eventualities); at most 32 \
                 are supported"
            ),
            TranslateError::TooLarge => write!(
                f,
                "the automaton would be too large (over 65,536 edges out of one state or \
                 100,000 states); split the formula"
            ),
            TranslateError::Interrupted => {
                write!(
                    f,
                    "the translation was interrupted (a time or memory limit)"
                )
            }
        }
    }
}

impl std::error::Error for TranslateError {}
