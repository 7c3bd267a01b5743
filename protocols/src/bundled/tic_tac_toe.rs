//! Tic-tac-toe: roles `player_1_`, `player_2_`, type `Move`. Either player
//! begins, then they alternate forever: `turn(i) = (-->> Move player[i]
//! player[3-i]) turn(3-i)`, starting with `turn(1)` or `turn(2)`.
//!
//! ```
//! let lts = protocols::tic_tac_toe::spec().compile().unwrap();
//! assert_eq!((lts.num_states(), lts.num_transitions()), (5, 6));
//! ```

use crate::spec::{alt, call, msg, Role, Spec};

/// The specification.
pub fn spec() -> Spec {
    Spec::new("tic-tac-toe", alt([call("turn", [1]), call("turn", [2])]))
        .roles(["player_1_", "player_2_"])
        .types(["Move"])
        .define("turn", 1, |a| {
            let (i, j) = (a[0], 3 - a[0]);
            msg(
                "Move",
                Role::indexed("player", i),
                Role::indexed("player", j),
            )
            .then(call("turn", [j]))
        })
}

/// The strict object of [`spec`], compiled with the default limits (the
/// shorthand of `spec().strict().unwrap()`; see [`Spec::strict`]).
pub fn strict() -> crate::Strict {
    super::strict_of(spec())
}
