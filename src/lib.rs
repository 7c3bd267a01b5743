//! prust: protocol unit testing for Rust by adaptation-based LTL model
//! checking. This crate re-exports the three members and holds the runner
//! of data-driven `.owl` property suites.

pub use engine;
pub use owl_lite;
pub use protocols;

pub mod suite;

// The README's Rust examples are compiled and run as doctests, so the front
// page cannot drift from the code.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
