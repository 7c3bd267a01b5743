//! prust: protocol unit testing for Rust by adaptation-based LTL model
//! checking. This crate re-exports the three members.

pub use engine;
pub use owl_lite;
pub use protocols;
