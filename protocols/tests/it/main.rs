//! `protocols`' integration tests: one test binary, one module a feature (one
//! link step, where a binary a file linked the crate graph once each).
//!
//! The tests run as threads of one process: a test that changes process-wide
//! state (a `PRUST_*` variable) or measures it (resident memory) runs alone
//! in a child process ([`testkit::alone`]). `tests/compile_memory.rs` is a
//! binary of its own: it installs a counting global allocator, which would
//! count every other test's allocations too.

mod aut;
mod collapse;
mod common;
mod compact_objects;
mod dummies;
mod engine_agreement;
mod fairness_specs;
mod hash_compaction;
mod liberal_differs;
mod limits;
mod lint;
mod lint_causality;
mod lint_differential;
mod lint_discourje;
mod lint_realizable;
mod listing;
mod lts;
mod on_the_fly;
mod por;
mod runtimes;
mod semantics;
mod session_api;
mod session_async;
mod session_chess;
mod session_close;
mod session_concurrency;
mod session_deadlock_stress;
mod session_panics;
mod session_select;
mod session_support;
mod spec_names;
mod sync_bit;
