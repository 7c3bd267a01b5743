//! What every model of this folder shares: the one message type, the
//! ring and star topologies and the arithmetic on them. Its own
//! file so that each model file uses it and none uses another model's.

use engine::{Message, RoleId};

/// The one message type of both models.
#[derive(Clone, Debug)]
pub struct Token;

/// The only type name the objects accept (the short name of [`Token`]).
pub(super) const TOKEN: &str = "Token";

thread_local! {
    /// The token a packed object hands out on a receive (cloning a
    /// `Message` is a reference-count increment; `Message::new` allocates).
    static TOKEN_MSG: Message = Message::new(Token);
}

pub(super) fn token() -> Message {
    TOKEN_MSG.with(Message::clone)
}

/// `(i + 1) % n` without a division (probes run hundreds of times per state).
pub(super) fn succ(i: usize, n: usize) -> usize {
    if i + 1 == n {
        0
    } else {
        i + 1
    }
}

/// `(i + n - 1) % n` without a division.
pub(super) fn pred(i: usize, n: usize) -> usize {
    if i == 0 {
        n - 1
    } else {
        i - 1
    }
}

/// `n` choose `k`.
pub fn binomial(n: u64, k: u64) -> u64 {
    (0..k).fold(1, |acc, i| acc * (n - i) / (i + 1))
}

pub(super) fn ring_peers(role: RoleId, n: usize) -> Vec<RoleId> {
    let mut p = vec![succ(role, n), pred(role, n)];
    p.dedup();
    p
}

/// The hub sends to every leaf; the leaves only receive.
pub(super) fn star_sends_to(role: RoleId, leaves: usize) -> Vec<RoleId> {
    if role == 0 {
        (1..=leaves).collect()
    } else {
        vec![]
    }
}

pub(super) fn star_peers(role: RoleId, leaves: usize) -> Vec<RoleId> {
    if role == 0 {
        (1..=leaves).collect()
    } else {
        vec![0]
    }
}
