//! Chess: roles `white`, `black`, type `Move`. White moves (white → black),
//! then black moves (black → white), and optionally again, any number of
//! times: `((-->> Move white black) (-->> Move black white))+`.
//!
//! ```
//! let lts = protocols::chess::lts();
//! assert_eq!((lts.num_states(), lts.num_transitions()), (5, 5));
//! ```

use crate::spec::{msg, seq, Spec};
use crate::{Liberal, Lts, Strict};

/// The specification.
pub fn spec() -> Spec {
    Spec::new(
        "chess",
        seq([msg("Move", "white", "black"), msg("Move", "black", "white")]).plus(),
    )
    .roles(["white", "black"])
    .types(["Move"])
}

/// The compiled global LTS.
pub fn lts() -> Lts {
    super::compiled(spec())
}

/// The strict object.
pub fn strict() -> Strict {
    super::strict_of(spec())
}

/// The liberal object.
pub fn liberal() -> Liberal {
    super::liberal_of(spec())
}
