//! Rock-paper-scissors for `k ≥ 2` players: roles `player_0_ …`, types
//! `Rock`, `Paper`, `Scissors`.
//!
//! A round with the set `ids` of players still in (while `|ids| > 1`): for
//! each `i` in `ids` in order, player `i` chooses one item and sends that
//! same item type to every other `j` in `ids` in order (each send followed
//! by its receive); then a choice over every subset `w` of `ids` (all and
//! none included) of the winners, and the next round with `ids = w`.
//! Sub-protocol `round(ids)` takes `ids` as a bit set.
//!
//! The choice of winners is made by nobody in particular, so the liberal
//! object can deadlock where the strict one cannot: see
//! [`crate::liberal`].
//!
//! ```
//! let lts = protocols::rock_paper_scissors::spec(2).compile().unwrap();
//! assert_eq!(lts.roles(), ["player_0_", "player_1_"]);
//! ```

use crate::spec::{alt_every, call, cat_every, end, msg, seq, Role, Spec};

/// The three items.
const ITEMS: [&str; 3] = ["Rock", "Paper", "Scissors"];

fn members(ids: usize) -> Vec<usize> {
    (0..usize::BITS as usize)
        .filter(|i| ids & (1 << i) != 0)
        .collect()
}

fn subsets(ids: usize) -> Vec<usize> {
    let mut v = Vec::new();
    let mut s = ids;
    loop {
        v.push(s);
        if s == 0 {
            break;
        }
        s = (s - 1) & ids;
    }
    v.reverse();
    v
}

/// The most players [`spec`] takes. With `k` players the first round
/// alone chooses among `2^k` sets of winners, and from `k = 20` on that is
/// more than the 1 000 000 terms the compiler unfolds: every larger `k`
/// was an error, reached only after the `2^k` choices were built (2 GB for
/// `k = 24`), or never (`rock-paper-scissors:63` took 22 GB in a minute,
/// then memory ran out). So a larger `k` is refused at once.
pub(crate) const MAX_PLAYERS: usize = 19;

// The bound follows the compiler's: one more player and the first round's
// choices of winners alone would be more terms than it unfolds.
const _: () = assert!(
    1usize << MAX_PLAYERS <= crate::compile::MAX_TERMS
        && 1usize << (MAX_PLAYERS + 1) > crate::compile::MAX_TERMS
);

/// The specification for `2 ≤ k ≤ 19` players (by name,
/// `rock-paper-scissors:K`, a larger `K` is an error, not a panic).
///
/// # Panics
///
/// If `k > 19`.
pub fn spec(k: usize) -> Spec {
    assert!(
        k <= MAX_PLAYERS,
        "rock-paper-scissors: at most {MAX_PLAYERS} players"
    );
    Spec::new(
        format!("rock-paper-scissors:{k}"),
        call("round", [(1 << k) - 1]),
    )
    .roles(super::indexed("player", k))
    .types(ITEMS)
    .define("round", 1, |a| {
        let ids = a[0];
        let m = members(ids);
        if m.len() <= 1 {
            return end();
        }
        let throws = cat_every(m.clone(), |i| {
            alt_every(0..ITEMS.len(), |item| {
                cat_every(m.iter().copied().filter(|&j| j != i), |j| {
                    msg(
                        ITEMS[item],
                        Role::indexed("player", i),
                        Role::indexed("player", j),
                    )
                })
            })
        });
        seq([throws, alt_every(subsets(ids), |w| call("round", [w]))])
    })
}

/// The strict object of [`spec`], compiled with the default limits (the
/// shorthand of `spec(k).strict().unwrap()`; see [`Spec::strict`]).
pub fn strict(k: usize) -> crate::Strict {
    super::strict_of(spec(k))
}
