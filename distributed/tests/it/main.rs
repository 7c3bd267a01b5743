//! The distributed search against the one-machine search.

mod agree;
mod fairness;
mod liveness;
mod owcty;
mod random;
mod shortest;
