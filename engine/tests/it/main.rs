//! `engine`'s integration tests: one test binary, one module a feature (one
//! link step, where a binary a file linked the crate graph once each).
//!
//! The tests run as threads of one process: a test that changes process-wide
//! state (a `PRUST_*` variable) or measures it (resident memory) runs alone
//! in a child process ([`testkit::alone`]).

mod atoms;
mod bitstate;
mod budget;
mod buffer;
mod check_api;
mod collapse;
mod common;
mod config;
mod counterexample;
mod differential;
mod dummies;
mod fair_por;
mod fairness;
mod hash_compaction;
mod html;
mod limits;
mod many_roles;
mod nondeterminism;
mod panics;
mod parallel;
mod parallel_liveness;
mod por;
mod review;
mod ring;
mod semantics;
mod share;
mod shortest;
mod spares;
mod trail;
