//! The benchmark's protocol objects, written by hand against
//! [`engine::Protocol`], and a reference explorer that counts their states.
//!
//! Each model comes in two representations with the same behaviour:
//! - [`Ring`], [`Star`]: what a straightforward hand-written object keeps,
//!   a control flag or counter per role in a `Vec` and, per 1-capacity
//!   channel, the [`Message`](engine::Message) in transit (a receive hands back exactly what
//!   was sent);
//! - [`PackedRing`], [`PackedStar`]: the same states as bitmasks. Faithful
//!   too, because the only message type is the unit struct [`Token`]: a bit
//!   says all there is to say about a channel's content.
//!
//! The Stateright models in `bench/peers/stateright` mirror both state for
//! state; SPIN's Promela models in `bench/peers/spin` have one (SPIN's own)
//! representation.

mod explore;
mod packed;
mod plain;
mod shared;
mod wrappers;

pub use explore::{explore, Explored, Pruning, Store};
pub use packed::{PackedRing, PackedStar};
pub use plain::{Ring, Star};
pub use shared::{binomial, Token};
pub use wrappers::{AllPeers, Probed};
