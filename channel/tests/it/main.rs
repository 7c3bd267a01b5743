//! The one integration-test binary of `prust-channel`.

mod async_ends;
mod bad_use;
mod differential;
mod explore;
mod message_enums;
mod ops;

use channel::Ends;
use protocols::session::{Session, SplitSession};
use protocols::spec::Spec;
use protocols::{Liberal, Strict};

/// A job (message type `Job`, by its Rust name).
#[derive(Clone, Debug, PartialEq)]
pub struct Job(pub u32);
/// A stop (`Stop`).
#[derive(Clone, Debug, PartialEq)]
pub struct Stop;
/// A result (`Done`).
#[derive(Clone, Debug, PartialEq)]
pub struct Done(pub u64);

/// The typed ends of every role of `spec`'s strict object on a [`Session`].
pub fn strict_ends(spec: &Spec) -> Vec<Ends<protocols::session::Endpoint<Strict>>> {
    let object = Strict::new(spec.compile().unwrap());
    Session::new(object)
        .into_endpoints()
        .into_iter()
        .map(Ends::new)
        .collect()
}

/// The typed ends of every role of `spec`'s liberal object on a
/// [`SplitSession`].
pub fn liberal_ends(spec: &Spec) -> Vec<Ends<protocols::session::SplitEndpoint<Liberal>>> {
    let object = Liberal::new(spec.compile().unwrap());
    SplitSession::new(object)
        .into_endpoints()
        .into_iter()
        .map(Ends::new)
        .collect()
}

/// Runs the generic test function `$f` on `$spec`'s strict session and on
/// its liberal one.
#[macro_export]
macro_rules! both {
    ($spec:expr, $f:ident) => {{
        let spec = $spec;
        $f($crate::strict_ends(&spec));
        $f($crate::liberal_ends(&spec));
    }};
}
