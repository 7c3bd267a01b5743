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

// The roles' code, shared with `examples/two_buyer.rs` and the tests; the
// buyer2 here is its buggy `buyer2_first_come`.
use testkit::two_buyer;

use two_buyer::{buyer1, buyer2_first_come, seller};

fn main() -> std::process::ExitCode {
    let ex = explore(protocols::two_buyer::strict(), |r| {
        r.spawn("buyer1", |ep| {
            buyer1(ep).unwrap();
        });
        r.spawn("buyer2", |ep| {
            buyer2_first_come(ep).unwrap();
        });
        r.spawn("seller", |ep| {
            let (_, _, buy) = seller(ep).unwrap();
            println!("seller: {}", if buy { "sold" } else { "not sold" });
        });
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
