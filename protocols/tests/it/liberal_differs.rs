//! Where the liberal projection does not preserve the global protocol, shown
//! with the engine: the same property holds on the strict object and fails
//! on the liberal one.
//!
//! 1. `rock-paper-scissors(3)`: who plays in the next round is a global
//!    choice that no single role makes. Player 0 may start the round {0,1}
//!    while player 1 starts the round {1,2}; player 0 then waits forever.
//!    Deadlock freedom holds strictly and fails liberally.
//! 2. `npb-cg(2)`: the global protocol orders the master's work messages
//!    after each other's receipt; the liberal master runs ahead (it only
//!    waits for what *it* must see), which is what makes liberal objects
//!    fast. "After sending to worker 0 the next step is worker 0's receipt"
//!    holds strictly and fails liberally.
//! 3. `npb-cg(2)` again: actions of different roles that no message
//!    orders are not ordered liberally. The protocol says the master closes
//!    its channels before the workers close theirs; a liberal worker may
//!    close first.

use crate::common;

use engine::Message;
use protocols::{npb, rock_paper_scissors};

fn dummies(types: &[&str]) -> Vec<Message> {
    types.iter().map(|t| Message::named(*t, ())).collect()
}

#[test]
fn rock_paper_scissors_liberal_can_deadlock() {
    let (n, deadlock) = common::reachable(&rock_paper_scissors::strict(3), 100_000);
    assert!(n < 100_000 && deadlock.is_none());
    let (n, deadlock) =
        common::reachable(&rock_paper_scissors::spec(3).liberal().unwrap(), 100_000);
    assert!(n < 100_000);
    let d = deadlock.expect("a liberal deadlock");
    assert!(
        d.inboxes().iter().any(|i| !i.is_empty()),
        "someone waits on a message never taken: {d:?}"
    );
}

#[test]
fn rock_paper_scissors_deadlock_freedom_with_the_engine() {
    let d = dummies(&["Rock", "Paper", "Scissors"]);
    engine::check(
        r#"G !"DEADLOCK""#,
        rock_paper_scissors::strict(3),
        d.clone(),
    );
    let c = engine::check_violated(
        r#"G !"DEADLOCK""#,
        rock_paper_scissors::spec(3).liberal().unwrap(),
        d,
    );
    assert!(c.steps().count() > 0);
}

#[test]
fn npb_master_runs_ahead_in_the_liberal_object() {
    let d = dummies(&["CGMessage", "DoneMessage", "ExitMessage"]);
    let f = r#"G ("master SEND <CGMessage> TO worker_0_" -> X "worker_0_ RECV <CGMessage>")"#;
    engine::check(f, npb::cg(2).strict().unwrap(), d.clone());
    engine::check_violated(f, npb::cg(2).liberal().unwrap(), d);
}

#[test]
fn npb_closes_are_not_ordered_across_roles_in_the_liberal_object() {
    let d = dummies(&["CGMessage", "DoneMessage", "ExitMessage"]);
    let f = r#"G ("master CLOSE TO worker_0_" -> F "worker_0_ CLOSE TO master")"#;
    engine::check(f, npb::cg(2).strict().unwrap(), d.clone());
    let c = engine::check_violated(f, npb::cg(2).liberal().unwrap(), d);
    let steps: Vec<String> = c.steps().map(|s| format!("{s:?}")).collect();
    assert!(!steps.is_empty());
}
