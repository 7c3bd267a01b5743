//! The distributed search against the one-machine search.

mod agree;
mod liveness;
mod owcty;
mod random;
mod shortest;
