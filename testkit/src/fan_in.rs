//! The fan-in program of the sampled-search tests and the `sampling`
//! bench: three producers each send two messages to one consumer, on a
//! specification that lets the consumer receive them in any order, and
//! the consumer fails on one receive order of the 90 there are.
//!
//! The arithmetic: each producer's two messages arrive in the order it
//! sent them (one FIFO channel each), so a receive order is a word of two
//! `a`s, two `b`s and two `c`s: 6!/(2!·2!·2!) = 90 of them. The buggy
//! consumer panics on exactly one, `c c b b a a`.

use engine::Message;
use protocols::session::BlockingEndpoint;
use protocols::spec::{msg, par, seq, Spec};
use protocols::Liberal;
use prust_explore::{Handle, Roles};

/// The producers, in the order of the roles.
pub const PRODUCERS: [&str; 3] = ["a", "b", "c"];

/// The receive order the buggy consumer fails on.
pub const BAD_ORDER: [&str; 6] = ["c", "c", "b", "b", "a", "a"];

/// How many receive orders there are: 6!/(2!·2!·2!).
pub const ORDERS: usize = 90;

/// `a`, `b` and `c` each send two `M`s to `consumer`, interleaved
/// freely (the liberal object: a send may run ahead of the receives).
pub fn object() -> Liberal {
    let spec = Spec::new(
        "fan-in",
        par(PRODUCERS
            .iter()
            .map(|p| seq([msg("M", *p, "consumer"), msg("M", *p, "consumer")]))),
    )
    .roles(["a", "b", "c", "consumer"])
    .types(["M"]);
    Liberal::from_spec(&spec).expect("the fan-in specification compiles")
}

/// The program: with `buggy`, the consumer panics on [`BAD_ORDER`];
/// either way it returns the order in which it received.
pub fn program(buggy: bool) -> impl Fn(&mut Roles<'_, Liberal>) -> Handle<Vec<String>> + Sync {
    move |r| {
        for p in PRODUCERS {
            r.spawn(p, move |mut ep| {
                for i in 0..2 {
                    ep.send("consumer", Message::named("M", i)).unwrap();
                }
            });
        }
        r.spawn("consumer", move |mut ep| {
            let mut order = Vec::new();
            for _ in 0..6 {
                let (from, _) = ep.recv().unwrap();
                order.push(ep.roles()[from].clone());
            }
            assert!(
                !buggy || order != BAD_ORDER,
                "the consumer cannot handle the order {order:?}"
            );
            order
        })
    }
}
