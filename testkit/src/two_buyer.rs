//! The two-buyer program, written once for the examples
//! (`examples/two_buyer.rs`, `examples/explore.rs`), the tests of
//! `prust::explore` (`explore/tests/it/api.rs`) and its bench
//! (`explore/benches/explore_rate.rs`): buyer1 asks the seller for a
//! title, both buyers get a quote, buyer1 tells buyer2 how much it will
//! contribute, and buyer2 decides. Each role returns what it saw; the
//! includer prints it, asserts on it or ignores it.

use protocols::session::{BlockingEndpoint, Error};

use crate::aio;

/// buyer1 → seller: the title wanted.
#[derive(Clone, Debug)]
pub struct Title(pub &'static str);
/// seller → each buyer: the price.
#[derive(Clone, Debug)]
pub struct Quote(pub u32);
/// buyer1 → buyer2: what buyer1 pays.
#[derive(Clone, Debug)]
pub struct Contribution(pub u32);
/// buyer2 → seller: whether they buy.
#[derive(Clone, Debug)]
pub struct Decision(pub bool);

/// The title buyer1 asks for.
pub const TITLE: &str = "War and Peace";

/// A role's result: what it saw, or the session's error.
pub type R<T> = Result<T, Error>;

/// buyer1: asks for [`TITLE`], gets the quote and contributes half;
/// returns (price, share).
pub fn buyer1(mut ep: impl BlockingEndpoint) -> R<(u32, u32)> {
    ep.send("seller", Title(TITLE))?;
    let Quote(price) = ep.recv_from("seller")?.downcast().expect("a quote");
    let share = price / 2;
    ep.send("buyer2", Contribution(share))?;
    Ok((price, share))
}

/// The correct buyer2: it asks each peer for what it sends; buys when it
/// pays at most 60. Returns (price, share, bought).
pub fn buyer2(mut ep: impl BlockingEndpoint) -> R<(u32, u32, bool)> {
    let Quote(price) = ep.recv_from("seller")?.downcast().expect("a quote");
    let Contribution(share) = ep.recv_from("buyer1")?.downcast().expect("a contribution");
    decide(&mut ep, price, share)
}

/// The buggy buyer2: it takes whatever arrives first and asserts that it
/// is the seller's quote (buyer1's contribution may come first).
pub fn buyer2_first_come(mut ep: impl BlockingEndpoint) -> R<(u32, u32, bool)> {
    let seller = ep.peer("seller")?;
    // BUG: whatever arrives first is taken for the seller's quote.
    let (from, first) = ep.recv()?;
    assert_eq!(from, seller, "the first message must be the seller's quote");
    let Quote(price) = first.downcast().expect("a quote");
    let Contribution(share) = ep.recv_from("buyer1")?.downcast().expect("a contribution");
    decide(&mut ep, price, share)
}

/// buyer2's decision, sent to the seller.
fn decide(ep: &mut impl BlockingEndpoint, price: u32, share: u32) -> R<(u32, u32, bool)> {
    let buy = price - share <= 60;
    ep.send("seller", Decision(buy))?;
    Ok((price, share, buy))
}

/// The seller: prices the title (20 + 3 a letter), quotes buyer2 first
/// (the protocol interleaves the two quotes), and waits for the decision.
/// Returns (title, price, sold).
pub fn seller(mut ep: impl BlockingEndpoint) -> R<(&'static str, u32, bool)> {
    let Title(title) = ep.recv_from("buyer1")?.downcast().expect("a title");
    let price = 20 + 3 * title.len() as u32;
    ep.send("buyer2", Quote(price))?;
    ep.send("buyer1", Quote(price))?;
    let Decision(buy) = ep.recv_from("buyer2")?.downcast().expect("a decision");
    Ok((title, price, buy))
}

/// [`buyer1`], async (each operation awaited: `prust::explore`'s
/// `spawn_async` runs it, and so does any runtime on a real session).
pub async fn buyer1_async(mut ep: impl BlockingEndpoint) -> R<(u32, u32)> {
    aio::send(&mut ep, "seller", Title(TITLE)).await?;
    let Quote(price) = aio::recv_from(&mut ep, "seller")
        .await?
        .downcast()
        .expect("a quote");
    let share = price / 2;
    aio::send(&mut ep, "buyer2", Contribution(share)).await?;
    Ok((price, share))
}

/// [`buyer2`], async.
pub async fn buyer2_async(mut ep: impl BlockingEndpoint) -> R<(u32, u32, bool)> {
    let Quote(price) = aio::recv_from(&mut ep, "seller")
        .await?
        .downcast()
        .expect("a quote");
    let Contribution(share) = aio::recv_from(&mut ep, "buyer1")
        .await?
        .downcast()
        .expect("a contribution");
    decide_async(&mut ep, price, share).await
}

/// [`buyer2_first_come`], async: the same bug.
pub async fn buyer2_first_come_async(mut ep: impl BlockingEndpoint) -> R<(u32, u32, bool)> {
    let seller = ep.peer("seller")?;
    // BUG: whatever arrives first is taken for the seller's quote.
    let (from, first) = aio::recv(&mut ep).await?;
    assert_eq!(from, seller, "the first message must be the seller's quote");
    let Quote(price) = first.downcast().expect("a quote");
    let Contribution(share) = aio::recv_from(&mut ep, "buyer1")
        .await?
        .downcast()
        .expect("a contribution");
    decide_async(&mut ep, price, share).await
}

async fn decide_async(
    ep: &mut impl BlockingEndpoint,
    price: u32,
    share: u32,
) -> R<(u32, u32, bool)> {
    let buy = price - share <= 60;
    aio::send(ep, "seller", Decision(buy)).await?;
    Ok((price, share, buy))
}

/// [`seller`], async.
pub async fn seller_async(mut ep: impl BlockingEndpoint) -> R<(&'static str, u32, bool)> {
    let Title(title) = aio::recv_from(&mut ep, "buyer1")
        .await?
        .downcast()
        .expect("a title");
    let price = 20 + 3 * title.len() as u32;
    aio::send(&mut ep, "buyer2", Quote(price)).await?;
    aio::send(&mut ep, "buyer1", Quote(price)).await?;
    let Decision(buy) = aio::recv_from(&mut ep, "buyer2")
        .await?
        .downcast()
        .expect("a decision");
    Ok((title, price, buy))
}
