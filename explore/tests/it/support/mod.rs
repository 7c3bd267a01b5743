//! What the `reduction_*` tests share: the comparison of the reductions
//! with plain search ([`agree`]).

pub mod agree;
