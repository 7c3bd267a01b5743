//! Exploring under a property: executions and CPU time of a two-phase
//! commit with 2 and 3 participants, checked against a formula over the
//! coordinator's actions, with no reduction (what a property forced
//! before the reductions kept the steps it sees dependent on every
//! other) and with sleep sets and DPOR under the property. The plain
//! search stops at the default 100,000 executions (INCOMPLETE).
//!
//! ```text
//! cargo bench -p prust-explore --bench property
//! cargo bench -p prust-explore --bench property -- --quick   # 2 participants only
//! ```
//!
//! The program is correct (the coordinator commits only if every vote is
//! yes), each participant votes with `choose(2)`, and the coordinator
//! receives the votes from anyone, so the plain search runs every order
//! of the participants' steps. The formula sees only the coordinator's
//! `No` receives and `Commit` sends; the participants' steps are
//! invisible to it, and their orders are what the reductions prune. The
//! `buggy` coordinator decides on the first vote it receives: the
//! violation needs a `Yes` received before a `No`, which each search
//! must find.

use std::time::Instant;

use prust::explore::{choose, Explorer, Reduction, Roles};
use prust::session::BlockingEndpoint;
use prust::spec::{alt, msg, par, seq, Spec};
use prust::{Message, Strict};

use testkit::cpu::cpu_time;

const PARTICIPANTS: [&str; 3] = ["p1", "p2", "p3"];

/// Two-phase commit between a coordinator and `n` participants: prepare,
/// a vote from each, then commit or abort to each.
fn spec(n: usize) -> Spec {
    let ps = &PARTICIPANTS[..n];
    let each = |f: &dyn Fn(&'static str) -> prust::spec::Term| par(ps.iter().map(|p| f(p)));
    let vote = |p: &'static str| alt([msg("Yes", p, "coordinator"), msg("No", p, "coordinator")]);
    let decision = |ty: &'static str| each(&|p| msg(ty, "coordinator", p));
    Spec::new(
        "two-phase-commit",
        seq([
            each(&|p| msg("Prepare", "coordinator", p)),
            each(&vote),
            alt([decision("Commit"), decision("Abort")]),
        ]),
    )
}

/// The coordinator commits iff every vote is yes (`buggy`: iff the first
/// vote it receives is yes, a bug that only some orders of the votes
/// show).
fn program(n: usize, buggy: bool) -> impl Fn(&mut Roles<'_, Strict>) + Sync {
    move |r| {
        let ps = &PARTICIPANTS[..n];
        r.spawn("coordinator", move |mut ep| {
            for p in ps {
                ep.send(*p, Message::named("Prepare", ())).unwrap();
            }
            let mut all_yes = true;
            for i in 0..ps.len() {
                let (_, m) = ep.recv().unwrap();
                all_yes &= (buggy && i > 0) || m.type_name() == "Yes";
            }
            let decision = if all_yes { "Commit" } else { "Abort" };
            for p in ps {
                ep.send(*p, Message::named(decision, ())).unwrap();
            }
        });
        for p in ps {
            r.spawn(p, move |mut ep| {
                ep.recv_from("coordinator").unwrap();
                let vote = if choose(2) == 0 { "Yes" } else { "No" };
                ep.send("coordinator", Message::named(vote, ())).unwrap();
                ep.recv_from("coordinator").unwrap();
            });
        }
    }
}

const FORMULA: &str = r#"G ("coordinator RECV <No>" -> G !"coordinator SEND <Commit>")"#;

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let ns: &[usize] = if quick { &[2] } else { &[2, 3] };
    println!("property: {FORMULA}");
    for &n in ns {
        let object = Strict::from_spec(&spec(n)).expect("the spec compiles");
        for (reduction, buggy) in [
            (Reduction::None, false),
            (Reduction::SleepSets, false),
            (Reduction::Dpor, false),
            (Reduction::None, true),
            (Reduction::Dpor, true),
        ] {
            let (wall, cpu) = (Instant::now(), cpu_time());
            let ex = Explorer::new()
                .preemption_bound(None)
                .reduction(reduction)
                // The default bound, which the plain search of 3
                // participants does not finish within.
                .max_executions(100_000)
                .timeout(std::time::Duration::from_secs(300))
                .property(FORMULA)
                .explore(object.clone(), program(n, buggy));
            let (wall, cpu) = (wall.elapsed().as_secs_f64(), cpu_time() - cpu);
            // The bug violates the property, and nothing else fails.
            assert_eq!(ex.failures().len(), usize::from(buggy), "{ex}");
            println!(
                "2pc n={n}{} {:<11} {:>8} executions ({:>7} cut by sleep sets) {:>8.3} s wall {:>8.3} s CPU{}",
                if buggy { " buggy" } else { "" },
                reduction.to_string(),
                ex.executions(),
                ex.redundant(),
                wall,
                cpu,
                if ex.is_complete() { "" } else { " INCOMPLETE" },
            );
        }
    }
}
