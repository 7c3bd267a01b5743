//! prust's engine: adaptation-based LTL model checking of protocol objects.
//!
//! (User guide to be written: background, writing tests, debugging
//! failures, limitations.)

mod alphabet;
mod checker;
mod error;
mod explore;
mod frontend;
mod names;
mod pattern;
mod protocol;
mod report;
mod search;

pub use alphabet::ActionKind;
pub use checker::{check, check_violated, try_check, CheckSession, Checker, Semantics};
pub use error::{AtomError, Error, NameKind};
pub use protocol::{Message, Payload, Protocol, Refused, RoleId};
pub use report::{Counterexample, Ending, Limit, ReplayError, Report, Stats, Step, Verdict};
