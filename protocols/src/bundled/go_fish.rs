//! Go fish for `k ≥ 2` players: roles `dealer`, `player_0_ …`, types
//! `Turn`, `Ask`, `Card`, `Go`, `Fish`, `OutOfCards`.
//!
//! The dealer sends `Turn` to some player `i`; then `i`'s turn: `i` sends
//! `Ask` to some other player `j`; then one of: `j` sends `Card` to `i` and
//! `i` sends `OutOfCards` to the dealer (the session ends); or `j` sends
//! `Card` to `i` and `i`'s turn repeats; or `j` sends `Go` to `i`, `i` sends
//! `Fish` to the dealer, the dealer answers `Card` or `OutOfCards`, `i`
//! sends `Turn` to `j`, and it is `j`'s turn.
//!
//! The global LTS is not deterministic (two branches begin with the same
//! `Card`); the runtimes run its subset construction.
//!
//! ```
//! let lts = protocols::go_fish::spec(2).compile().unwrap();
//! assert!(!lts.is_deterministic());
//! ```

use crate::spec::{alt, alt_every, call, msg, seq, Role, Spec};

fn player(i: usize) -> Role {
    Role::indexed("player", i)
}

/// The specification for `k ≥ 2` players.
pub fn spec(k: usize) -> Spec {
    let mut roles = vec![Role::new("dealer")];
    roles.extend(super::indexed("player", k));
    Spec::new(
        format!("go-fish:{k}"),
        alt_every(0..k, |i| {
            msg("Turn", "dealer", player(i)).then(call("turn", [i]))
        }),
    )
    .roles(roles)
    .types(["Turn", "Ask", "Card", "Go", "Fish", "OutOfCards"])
    .define("turn", 1, move |a| {
        let i = a[0];
        alt_every((0..k).filter(|&j| j != i), |j| {
            msg("Ask", player(i), player(j)).then(alt([
                seq([
                    msg("Card", player(j), player(i)),
                    msg("OutOfCards", player(i), "dealer"),
                ]),
                seq([msg("Card", player(j), player(i)), call("turn", [i])]),
                seq([
                    msg("Go", player(j), player(i)),
                    msg("Fish", player(i), "dealer"),
                    alt([
                        msg("Card", "dealer", player(i)),
                        msg("OutOfCards", "dealer", player(i)),
                    ]),
                    msg("Turn", player(i), player(j)),
                    call("turn", [j]),
                ]),
            ]))
        })
    })
}

/// The strict object of [`spec`], compiled with the default limits (the
/// shorthand of `spec(k).strict().unwrap()`; see [`Spec::strict`]).
pub fn strict(k: usize) -> crate::Strict {
    super::strict_of(spec(k))
}
