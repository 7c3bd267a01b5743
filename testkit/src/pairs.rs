//! Three independent pairs, each `x` sending two messages to its `y`; the
//! last `y` takes one only, so every schedule ends unfinished after eleven
//! steps. A few executions explore it (the pairs commute), while the
//! schedules of up to eleven steps are more than 2000: the program on
//! which the search for a shortest failing schedule spends its whole
//! budget and cannot tell (the explore tests and the `shortening` bench).

use engine::Message;
use protocols::session::BlockingEndpoint;
use protocols::spec::{msg, par, seq, Spec};
use protocols::Liberal;
use prust_explore::Roles;

/// The pairs' numbers: pair `p` is roles `x{p}` and `y{p}`.
const PAIRS: [&str; 3] = ["1", "2", "3"];

/// Each `x{p}` sends two `M`s to its `y{p}`, the pairs in parallel.
pub fn object() -> Liberal {
    let spec = Spec::new(
        "pairs",
        par(PAIRS
            .iter()
            .map(|p| {
                let (x, y) = (format!("x{p}"), format!("y{p}"));
                seq([
                    msg("M", x.as_str(), y.as_str()),
                    msg("M", x.as_str(), y.as_str()),
                ])
            })
            .collect::<Vec<_>>()),
    )
    .roles(
        PAIRS
            .iter()
            .flat_map(|p| [format!("x{p}"), format!("y{p}")]),
    )
    .types(["M"]);
    Liberal::from_spec(&spec).expect("the pairs specification compiles")
}

/// The program: every `x` sends its two messages, every `y` but the last
/// receives both, the last one only.
pub fn program(r: &mut Roles<'_, Liberal>) {
    for p in PAIRS {
        let (x, y) = (format!("x{p}"), format!("y{p}"));
        let (to, from) = (y.clone(), x.clone());
        r.spawn(&x, move |mut ep| {
            ep.send(&to, Message::named("M", 1)).unwrap();
            ep.send(&to, Message::named("M", 2)).unwrap();
        });
        r.spawn(&y, move |mut ep| {
            ep.recv_from(&from).unwrap();
            if p != "3" {
                ep.recv_from(&from).unwrap();
            }
        });
    }
}
