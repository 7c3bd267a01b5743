//! prust's engine: adaptation-based LTL model checking of protocol objects.
//!
//! (User guide to be written: background, writing tests, debugging
//! failures, limitations.)

mod protocol;

pub use protocol::{Message, Payload, Protocol, Refused, RoleId};
