//! What the `reduction_*` tests share: the comparison of the reductions
//! with plain search ([`agree`]) and the channels of their hand-written
//! objects ([`queues`]).

pub mod agree;
pub mod queues;
