//! What the `reduction_*` tests share: the comparison of the reductions
//! with plain search ([`agree`]), the channels of their hand-written
//! objects ([`queues`]) and programs given as operations ([`programs`]).

pub mod agree;
pub mod programs;
pub mod queues;
