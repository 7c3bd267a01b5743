//! Role threads' panics: kept quiet (they are part of the report) and
//! located, by the engine's one panic hook (`engine::quiet`: a role thread
//! is quiet for its whole life, see `scheduler::role_thread`); here, only
//! how a panic's payload reads.

pub(crate) use engine::panic_message;
