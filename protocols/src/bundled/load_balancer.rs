//! Load balancer: roles `client`, `balancer`, `server1`, `server2`; types
//! `Request`, `Response`. client → balancer `Request` (synchronous);
//! balancer → `server1` or `server2` `Request` (asynchronous); that server
//! → client `Response` (synchronous).
//!
//! ```
//! let lts = protocols::load_balancer::spec().compile().unwrap();
//! assert_eq!((lts.num_states(), lts.num_transitions()), (10, 10));
//! ```

use crate::spec::{alt, msg, seq, sync, Spec};

/// The specification.
pub fn spec() -> Spec {
    let via = |server: &str| {
        seq([
            msg("Request", "balancer", server),
            sync("Response", server, "client"),
        ])
    };
    Spec::new(
        "load-balancer",
        seq([
            sync("Request", "client", "balancer"),
            alt([via("server1"), via("server2")]),
        ]),
    )
    .roles(["client", "balancer", "server1", "server2"])
    .types(["Request", "Response"])
}

/// The strict object of [`spec`], compiled with the default limits (the
/// shorthand of `spec().strict().unwrap()`; see [`Spec::strict`]).
pub fn strict() -> crate::Strict {
    super::strict_of(spec())
}
