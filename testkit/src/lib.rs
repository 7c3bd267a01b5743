//! What prust's tests and benches share, written once: the bench models,
//! the programs and objects several test suites run, and small helpers.
//! Every crate's integration tests and benches take it as a
//! dev-dependency (it is never published); a crate's *unit* tests cannot,
//! because they would see a second copy of that crate's types, so
//! helpers for those stay in the crate under `#[cfg(test)]`.

pub mod aio;
pub mod alone;
pub mod close_specs;
pub mod counting;
pub mod cpu;
pub mod fair_tally;
pub mod fan_in;
pub mod json;
pub mod mailbox;
pub mod models;
pub mod pairs;
pub mod reference;
pub mod two_buyer;
