//! Role threads' panics: kept quiet (they are part of the report) and
//! located, by the engine's one panic hook (`engine::quiet`: a role thread
//! is quiet for its whole life, see `scheduler::role_thread`); here, only
//! how a panic's payload reads.

/// The message of a panic payload (a `&str` or a `String`).
pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "(a panic payload that is not a string)".to_string()
    }
}
