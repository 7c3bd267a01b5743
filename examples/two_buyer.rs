//! The two-buyer protocol on three real threads: buyer1 asks the seller for
//! a title, both buyers get a quote, buyer1 tells buyer2 how much it will
//! contribute, and buyer2 decides.
//!
//! ```text
//! cargo run --example two_buyer              # strict object, locked session
//! cargo run --example two_buyer -- --liberal # liberal object, split session
//! ```
//!
//! The quote to buyer1 and the quote to buyer2 are interleaved in the
//! protocol (either may come first); the threads below do not care, the
//! object lets whichever is ready go on.

use std::error::Error;

use prust::protocols;
use prust::session::{BlockingEndpoint, Session, SplitSession};

// The roles' code, shared with `examples/explore.rs` and the tests.
use testkit::two_buyer;

type Result<T> = std::result::Result<T, protocols::session::Error>;

fn buyer1(ep: impl BlockingEndpoint) -> Result<String> {
    let (price, share) = two_buyer::buyer1(ep)?;
    Ok(format!("buyer1: quote {price}, contributes {share}"))
}

fn buyer2(ep: impl BlockingEndpoint) -> Result<String> {
    let (price, share, buy) = two_buyer::buyer2(ep)?;
    Ok(format!(
        "buyer2: quote {price}, pays {} -> {}",
        price - share,
        if buy { "buys" } else { "declines" }
    ))
}

fn seller(ep: impl BlockingEndpoint) -> Result<String> {
    let (title, price, buy) = two_buyer::seller(ep)?;
    Ok(format!(
        "seller: \"{title}\" for {price}: {}",
        if buy { "sold" } else { "not sold" }
    ))
}

fn run<A, B, C>(b1: A, b2: B, s: C) -> std::result::Result<Vec<String>, Box<dyn Error>>
where
    A: BlockingEndpoint,
    B: BlockingEndpoint,
    C: BlockingEndpoint,
{
    std::thread::scope(|sc| {
        let h = [
            sc.spawn(move || buyer1(b1)),
            sc.spawn(move || buyer2(b2)),
            sc.spawn(move || seller(s)),
        ];
        h.into_iter()
            .map(|h| Ok(h.join().expect("no panic")?))
            .collect()
    })
}

fn main() -> std::result::Result<(), Box<dyn Error>> {
    let lines = if std::env::args().any(|a| a == "--liberal") {
        println!("two-buyer on the liberal object (split session)");
        let [b1, b2, s] = SplitSession::new(protocols::two_buyer::spec().liberal()?)
            .into_endpoints()
            .try_into()
            .expect("three roles");
        run(b1, b2, s)?
    } else {
        println!("two-buyer on the strict object (locked session)");
        let session = Session::new(protocols::two_buyer::strict());
        let (b1, b2, s) = (
            session.endpoint("buyer1")?,
            session.endpoint("buyer2")?,
            session.endpoint("seller")?,
        );
        drop(session);
        run(b1, b2, s)?
    };
    for line in lines {
        println!("  {line}");
    }
    Ok(())
}
