//! Chess: roles `white`, `black`, type `Move`. White moves (white → black),
//! then black moves (black → white), and optionally again, any number of
//! times: `((-->> Move white black) (-->> Move black white))+`.
//!
//! ```
//! let lts = protocols::chess::spec().compile().unwrap();
//! assert_eq!((lts.num_states(), lts.num_transitions()), (5, 5));
//! ```

use crate::spec::{msg, seq, Spec};

/// The specification.
pub fn spec() -> Spec {
    Spec::new(
        "chess",
        seq([msg("Move", "white", "black"), msg("Move", "black", "white")]).plus(),
    )
    .roles(["white", "black"])
    .types(["Move"])
}

/// The strict object of [`spec`], compiled with the default limits (the
/// shorthand of `spec().strict().unwrap()`; see [`Spec::strict`]).
pub fn strict() -> crate::Strict {
    super::strict_of(spec())
}
