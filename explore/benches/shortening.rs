//! What the search for a shortest failing schedule costs: failing
//! programs explored with it (the default) and without it
//! (`Explorer::shortest(false)`: the simplified schedule only), the two
//! interleaved so that a change in the machine's load hits both alike;
//! prints the time of one exploration each way, in CPU and wall time, and
//! their ratio.
//!
//! ```text
//! cargo bench -p prust-explore --bench shortening
//! cargo bench -p prust-explore --bench shortening -- --quick   # a smoke run
//! ```
//!
//! Programs (each fails; CPU time is the process's, from `/proc`):
//! - `pipeline strict`/`liberal`: `examples/pipeline.rs` with its planted
//!   bug (a stage drops the end: a deadlock);
//! - `fan-in k`: two senders each send `k` messages to a collector that
//!   receives from anyone and asserts that `a`'s message comes first;
//! - `pairs`: three independent sender/receiver pairs, the last receiver
//!   taking one message of two (unfinished): every schedule is 11 steps,
//!   so the search spends its whole budget and cannot tell.

use std::time::Instant;

use prust::explore::{Exploration, Explorer, Roles};
use prust::session::BlockingEndpoint;
use prust::{Liberal, Message, Protocol, Strict};

use testkit::cpu::cpu_time;
use testkit::mailbox::Mailbox;
use testkit::pairs;

#[path = "../../examples/pipeline.rs"]
#[allow(dead_code)] // its `main` and what the bench does not run
mod pipeline;

fn fan_in(k: usize) -> impl Fn(&mut Roles<'_, Mailbox>) + Sync {
    move |r| {
        for s in ["a", "b"] {
            r.spawn(s, move |mut ep| {
                for i in 0..k {
                    ep.send("collector", Message::named("M", i)).unwrap();
                }
            });
        }
        r.spawn("collector", move |mut ep| {
            let (first, _) = ep.recv().unwrap();
            assert_eq!(first, ep.peer("a").unwrap(), "b's message came first");
            for _ in 1..2 * k {
                ep.recv().unwrap();
            }
        });
    }
}

/// Explores `program` with and without the search, interleaved, until
/// each way has run `seconds` of wall time (at least `min` times); prints
/// one line.
fn compare<P, F>(name: &str, object: P, program: F, seconds: f64, min: usize)
where
    P: Protocol,
    F: Fn(&mut Roles<'_, P>) + Sync,
{
    let ways = [Explorer::new(), Explorer::new().shortest(false)];
    // [way] = (wall, cpu)
    let mut spent = [(0.0f64, 0.0f64); 2];
    let mut last: [Option<Exploration>; 2] = [None, None];
    let mut runs = 0;
    while runs < min || spent.iter().any(|s| s.0 < seconds) {
        for (w, explorer) in ways.iter().enumerate() {
            let (wall, cpu) = (Instant::now(), cpu_time());
            let ex = explorer.explore(object.clone(), &program);
            spent[w].0 += wall.elapsed().as_secs_f64();
            spent[w].1 += cpu_time() - cpu;
            last[w] = Some(ex);
        }
        runs += 1;
    }
    let [on, off] = last.map(Option::unwrap);
    let ms = |s: f64| 1000.0 * s / runs as f64;
    let len = |ex: &Exploration| ex.failures().first().map_or(0, |f| f.schedule.len());
    println!(
        "{name:<16} x{runs:<4} {:>4} executions  on {:>8.2} ms CPU {:>8.2} ms wall  \
         off {:>8.2} ms CPU {:>8.2} ms wall  ratio {:>6.1}x CPU {:>6.1}x wall  \
         steps {} -> {} ({})",
        on.executions(),
        ms(spent[0].1),
        ms(spent[0].0),
        ms(spent[1].1),
        ms(spent[1].0),
        spent[0].1 / spent[1].1.max(1e-9),
        spent[0].0 / spent[1].0.max(1e-9),
        len(&off),
        len(&on),
        if on.is_shortest(0) {
            "shortest"
        } else {
            "not shown shortest"
        },
    );
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let (seconds, min) = if quick { (0.0, 1) } else { (1.0, 5) };
    let spec = pipeline::spec();
    compare(
        "pipeline strict",
        Strict::from_spec(&spec).unwrap(),
        pipeline::pipeline(true),
        seconds,
        min,
    );
    compare(
        "pipeline liberal",
        Liberal::from_spec(&spec).unwrap(),
        pipeline::pipeline(true),
        seconds,
        min,
    );
    for k in [2, 3] {
        compare(
            &format!("fan-in k={k}"),
            Mailbox::named(&["a", "b", "collector"], None),
            fan_in(k),
            seconds,
            min,
        );
    }
    compare("pairs", pairs::object(), pairs::program, seconds, min);
}
