//! prust's protocols: global specifications, the strict and liberal
//! runtimes that turn them into protocol objects, the blocking API that real
//! threads use, and the bundled protocols.

pub mod session;
