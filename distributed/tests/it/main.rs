//! The distributed search against the one-machine search.

mod agree;
mod liveness;
mod random;
