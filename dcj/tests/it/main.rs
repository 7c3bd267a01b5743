//! The `.dcj` importer's integration tests: one test binary, one
//! module a feature.

mod import;
mod limits;
mod positions;
