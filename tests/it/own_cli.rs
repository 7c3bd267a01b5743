//! A program's own command line (`prust::cli::Cli` with a registered
//! protocol, as `examples/own_cli.rs` writes it): every subcommand takes
//! the registered name, the bundled protocols stay, and a typo of the
//! registered name gets its hint. The example's `main` runs in a child
//! process of this test binary, so that its output and exit code are the
//! program's own.

use std::process::{ExitCode, Output};

#[allow(dead_code)]
#[path = "../../examples/own_cli.rs"]
mod example;

/// The arguments of the program run in the child, separated by U+001F.
const ARGS: &str = "PRUST_OWN_CLI_ARGS";

/// The program itself, in the child started by [`own_cli`]; nothing in
/// the test binary's own run.
#[test]
fn as_the_program() {
    let Ok(args) = std::env::var(ARGS) else {
        return;
    };
    let argv = std::iter::once("own_cli").chain(args.split('\u{1f}'));
    let code = example::cli().run_from(argv);
    // ExitCode has no accessor for its number: find it.
    let n = (0..=255u8).find(|&n| ExitCode::from(n) == code);
    std::process::exit(n.map_or(255, i32::from));
}

/// The example's program run with `args`, in a child of this binary.
fn own_cli(args: &[&str]) -> Output {
    let out = testkit::alone::child(
        module_path!(),
        "as_the_program",
        &[(ARGS, &args.join("\u{1f}"))],
    );
    assert!(
        out.status.code().is_some(),
        "the program was killed: {out:?}"
    );
    out
}

/// What the program printed: the child's stdout after libtest's own
/// `test own_cli::as_the_program ... ` (the program exits before libtest
/// prints more).
fn stdout(o: &Output) -> String {
    let all = String::from_utf8_lossy(&o.stdout);
    match all.split_once("as_the_program ... ") {
        Some((_, program)) => program.to_string(),
        None => all.into_owned(),
    }
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn the_registered_protocol_is_checked_with_a_counterexample() {
    let commit_after_no = r#"G ("coordinator RECV <No>" -> G !"coordinator SEND <Commit>")"#;
    let o = own_cli(&["check", "2pc", commit_after_no]);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("violated"), "{out}");
    assert!(out.contains("coordinator SEND <Commit>"), "{out}");
    // Every runtime builds it.
    for rt in ["liberal", "on-the-fly"] {
        let o = own_cli(&["check", "2pc", "--runtime", rt, "F true"]);
        assert_eq!(o.status.code(), Some(0), "{rt}: {}", stderr(&o));
    }
}

#[test]
fn list_lts_and_lint_take_the_registered_name_and_the_bundled_ones() {
    let o = own_cli(&["list"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.starts_with(
            "2pc                          registered by this program (two-phase-commit)\n"
        ),
        "{out}"
    );
    assert!(out.contains("\nchess "), "{out}");
    let o = own_cli(&["lts", "2pc"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("states"), "{}", stdout(&o));
    // The participants' channels are never closed: findings, exit 1.
    let o = own_cli(&["lint", "2pc"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stdout(&o).contains("close-after-send"), "{}", stdout(&o));
    let o = own_cli(&["check", "chess", "F true"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn a_typo_of_the_registered_name_gets_a_hint_naming_it() {
    let o = own_cli(&["check", "2pcc", "F true"]);
    assert_eq!(o.status.code(), Some(3));
    let err = stderr(&o);
    assert!(err.contains("unknown protocol `2pcc`"), "{err}");
    assert!(
        err.contains("did you mean `2pc`? this program registers 2pc"),
        "{err}"
    );
}
