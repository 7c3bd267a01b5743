//! `PRUST_SCHEDULE` left set in the shell: every exploration only replays
//! one schedule, so it must never pass as a proof, and must say so on
//! stderr. The variable is set only in a child process of this test
//! binary (no `set_var` here: other tests' explorers read it).

use std::process::Command;

use prust::explore::{explore, Roles};
use prust::protocols;
use prust::session::BlockingEndpoint;
use prust::Strict;

#[derive(Clone, Debug)]
struct Move;

/// A correct program: one round of chess.
fn one_round(r: &mut Roles<'_, Strict>) {
    r.spawn("white", |mut ep| {
        ep.send("black", Move).unwrap();
        ep.recv_from("black").unwrap();
    });
    r.spawn("black", |mut ep| {
        ep.recv_from("white").unwrap();
        ep.send("white", Move).unwrap();
    });
}

const TEST: &str = "replay_env::an_exploration_under_prust_schedule_is_no_proof_and_says_so";

#[test]
fn an_exploration_under_prust_schedule_is_no_proof_and_says_so() {
    if std::env::var_os("PRUST_SCHEDULE").is_some() {
        // The child (or a shell that left the variable set): a test that
        // asserts success fails, as it must.
        let ex = explore(protocols::chess::strict(), one_round);
        assert!(ex.failures().is_empty(), "{ex}");
        assert!(ex.is_replay() && !ex.is_successful(), "{ex}");
        return;
    }
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", TEST, "--nocapture", "--test-threads=1"])
        .env("PRUST_SCHEDULE", "white black")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("WARNING: PRUST_SCHEDULE is set")
            && stderr.contains("proves nothing about the others"),
        "{stderr}"
    );
    // Without the variable, the same exploration is a proof, silently.
    assert!(explore(protocols::chess::strict(), one_round).is_successful());
}
