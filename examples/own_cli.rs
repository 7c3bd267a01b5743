//! A command line of your own: the whole `prust` command (`check`, `lint`,
//! `replay`, `lts`, `list`, …) with a specification written in Rust
//! registered beside the bundled protocols.
//!
//! ```text
//! cargo run --example own_cli -- list
//! cargo run --example own_cli -- lint 2pc
//! cargo run --example own_cli -- check 2pc \
//!     'G ("coordinator RECV <No>" -> G !"coordinator SEND <Commit>")'
//! ```
//!
//! The last one is violated: this two-phase commit lets the coordinator
//! commit after a participant voted no, and the counterexample shows the
//! run. In a crate of your own, the same `main` as a `[[bin]]` (or an
//! example) gives your team the command with your protocols by name.

use std::process::ExitCode;

use prust::cli::Cli;
use prust::spec::{alt, msg, par, seq, Spec};

/// Two-phase commit between a coordinator and two participants, with the
/// mistake that its decision does not depend on the votes.
pub fn two_phase_commit() -> Spec {
    let participants = ["p1", "p2"];
    let each = |f: &dyn Fn(&str) -> prust::spec::Term| par(participants.map(f));
    let vote = |p: &str| alt([msg("Yes", p, "coordinator"), msg("No", p, "coordinator")]);
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

/// The `prust` command line with `2pc` registered.
pub fn cli() -> Cli {
    Cli::new().protocol("2pc", two_phase_commit)
}

fn main() -> ExitCode {
    cli().run()
}
