//! A state to bytes and back through the object's own codec
//! ([`Protocol::encode`], [`Protocol::decode`]), a panic in either taken
//! as a failure rather than let through.

use std::panic::{catch_unwind, AssertUnwindSafe};

use engine::Protocol;

/// `obj.encode(buf)`; a panic in it writes nothing.
pub(crate) fn encoded<P: Protocol>(obj: &P, buf: &mut Vec<u8>) -> bool {
    engine::quiet::quietly(|| catch_unwind(AssertUnwindSafe(|| obj.encode(buf)))).unwrap_or(false)
}

/// `template.decode(bytes)`; a panic in it gives nothing.
pub(crate) fn decoded<P: Protocol>(template: &P, bytes: &[u8]) -> Option<P> {
    engine::quiet::quietly(|| catch_unwind(AssertUnwindSafe(|| template.decode(bytes))))
        .ok()
        .flatten()
}

pub(crate) fn codec_error<P>(what: &str) -> String {
    format!(
        "{what} ({}: Protocol::encode and Protocol::decode must name every state exactly)",
        std::any::type_name::<P>()
    )
}
