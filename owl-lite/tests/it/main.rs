//! `owl-lite`'s integration tests: one test binary, one module a feature (one
//! link step, where a binary a file linked the crate graph once each).
//!
//! The tests run as threads of one process: a test that changes process-wide
//! state (a `PRUST_*` variable) or measures it (resident memory) runs alone
//! in a child process ([`testkit::alone`]).

mod automaton;
mod common;
mod differential;
mod formulas;
mod parse;
