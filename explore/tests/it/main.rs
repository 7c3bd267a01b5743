//! `prust::explore`'s integration tests: one test binary, one module a
//! feature (one binary links once; a binary per file linked the whole
//! crate graph some dozen times).
//!
//! Tests here run as threads of one process: a test that sets a `PRUST_*`
//! variable runs alone in a child process ([`testkit::alone`]).

mod api;
mod async_differential;
mod async_roles;
mod async_select;
mod batch;
mod choose;
mod close;
mod enabled_list;
mod env;
mod load_balancer;
mod reduction;
mod reduction_adversary;
mod reduction_awaiting;
mod reduction_biased;
mod reduction_bounded;
mod reduction_capacity;
mod reduction_close_select;
mod reduction_oracle;
mod reduction_origin;
mod reduction_preloaded;
mod reduction_probe;
mod reduction_programs;
mod reduction_property;
mod reduction_review;
mod reduction_review2;
mod reduction_same_channel;
mod reduction_small_scope;
mod reduction_zoo;
mod replay_env;
mod results;
mod sampled;
mod search_party;
mod shortest;
mod shortest_random;
mod simplify;
mod stuck;
mod support;
mod trace_count;
mod violation;
