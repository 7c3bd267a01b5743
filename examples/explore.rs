//! Exploring the schedules of a real program: the two-buyer program whose
//! buyer2 takes whatever message arrives first and asserts that it is the
//! seller's quote. Run for real, it fails only now and then (about one run
//! in ten on two cores); explored, it fails every time, with the schedule
//! that leads there and how to replay it.
//!
//! ```text
//! cargo run --example explore
//! PRUST_SCHEDULE="…" cargo run --example explore   # replay one schedule
//! ```

use prust::explore::{explore, Outcome};
use prust::protocols;
use prust::session::{BlockingEndpoint, Error};

#[derive(Clone, Debug)]
struct Title(&'static str);
#[derive(Clone, Debug)]
struct Quote(u32);
#[derive(Clone, Debug)]
struct Contribution(u32);
#[derive(Clone, Debug)]
struct Decision(bool);

fn buyer1(mut ep: impl BlockingEndpoint) -> Result<(), Error> {
    ep.send("seller", Title("War and Peace"))?;
    let Quote(price) = ep.recv_from("seller")?.downcast().expect("a quote");
    ep.send("buyer2", Contribution(price / 2))
}

fn buyer2(mut ep: impl BlockingEndpoint) -> Result<(), Error> {
    let seller = ep.peer("seller")?;
    // BUG: whatever arrives first is taken for the seller's quote.
    let (from, first) = ep.recv()?;
    assert_eq!(from, seller, "the first message must be the seller's quote");
    let Quote(price) = first.downcast().expect("a quote");
    let Contribution(share) = ep.recv_from("buyer1")?.downcast().expect("a contribution");
    ep.send("seller", Decision(price - share <= 60))
}

fn seller(mut ep: impl BlockingEndpoint) -> Result<(), Error> {
    let Title(title) = ep.recv_from("buyer1")?.downcast().expect("a title");
    let price = 20 + 3 * title.len() as u32;
    ep.send("buyer2", Quote(price))?;
    ep.send("buyer1", Quote(price))?;
    let Decision(buy) = ep.recv_from("buyer2")?.downcast().expect("a decision");
    println!("seller: {}", if buy { "sold" } else { "not sold" });
    Ok(())
}

fn main() -> std::process::ExitCode {
    let ex = explore(protocols::two_buyer::strict(), |r| {
        r.spawn("buyer1", |ep| buyer1(ep).unwrap());
        r.spawn("buyer2", |ep| buyer2(ep).unwrap());
        r.spawn("seller", |ep| seller(ep).unwrap());
    });
    println!("{ex}");
    // This example is about the bug: exit 0 when it is found.
    let found = ex
        .failures()
        .iter()
        .any(|f| matches!(f.outcome, Outcome::Panicked { .. }));
    if found {
        std::process::ExitCode::SUCCESS
    } else {
        std::process::ExitCode::FAILURE
    }
}
