//! Strict and liberal objects of every bundled protocol checked with the
//! engine against the same properties, with the same verdicts:
//! - deadlock freedom `G !"DEADLOCK"` (holds; except the liberal
//!   `rock-paper-scissors`, see `liberal_differs.rs`);
//! - a per-protocol property of the published case studies.

use crate::common;

use common::dummies;
use protocols::{bundled, Liberal, Strict};

fn both(name: &str) -> (Strict, Liberal) {
    let lts = bundled::by_name(name).unwrap();
    (Strict::new(lts.clone()), Liberal::new(lts))
}

#[test]
fn deadlock_freedom_agrees() {
    for p in bundled::list() {
        let name = common::small_instance(&p, 3);
        let (s, l) = both(&name);
        let d = dummies(&s);
        engine::check(r#"G !"DEADLOCK""#, s, d.clone());
        if p.name == "rock-paper-scissors" {
            continue;
        }
        engine::check(r#"G !"DEADLOCK""#, l, d);
    }
}

/// Properties that hold on both objects.
const HOLD: &[(&str, &str)] = &[
    ("chess", r#"!"black SEND <Move>" U "black RECV <Move>""#),
    (
        "chess",
        r#"G ("white SEND <Move>" -> X "black RECV <Move>")"#,
    ),
    (
        "tic-tac-toe",
        r#"G ("player_1_ SEND <Move>" -> F "player_2_ RECV <Move>")"#,
    ),
    (
        "token-directed-ring:3",
        r#"G ("worker_0_ SEND *" -> F "worker_1_ RECV *")"#,
    ),
    (
        "token-star:4",
        r#"G ("worker_1_ SEND *" -> F "worker_0_ RECV *")"#,
    ),
    (
        "two-buyer",
        r#"!"buyer2 SEND <Decision>" U "buyer2 RECV <Contribution>""#,
    ),
    ("load-balancer", r#"F "client RECV <Response>""#),
    (
        "npb-cg:2",
        r#"G ("master SEND <ExitMessage> TO worker_0_" -> F "worker_0_ CLOSE TO master")"#,
    ),
    (
        "go-fish:2",
        r#"G ("player_0_ SEND <Fish>" -> F ("player_0_ RECV <Card>" | "player_0_ RECV <OutOfCards>"))"#,
    ),
];

/// Properties violated on both.
const VIOLATED: &[(&str, &str)] = &[
    ("chess", r#"F "END""#),
    (
        "token-full-mesh:3",
        r#"G ("worker_0_ SEND *" -> F "worker_1_ RECV *")"#,
    ),
    ("load-balancer", r#"F "server1 RECV <Request>""#),
];

#[test]
fn case_study_properties_agree() {
    for (name, f) in HOLD {
        let (s, l) = both(name);
        let d = dummies(&s);
        engine::check(f, s, d.clone());
        engine::check(f, l, d);
    }
    for (name, f) in VIOLATED {
        let (s, l) = both(name);
        let d = dummies(&s);
        engine::check_violated(f, s, d.clone());
        engine::check_violated(f, l, d);
    }
}
