//! Running the `prust` binary from the command-line tests (`tests/cli*.rs`):
//! one way to start it, with the environment a user's shell may set
//! cleared, and to read what it printed.
//!
//! A module of the test binary: `use crate::cli;`.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Every `PRUST_*` variable prust reads (the one table of them) is unset
/// for every run, so that a developer's shell cannot change a test's
/// outcome; a test that needs one sets it with [`prust_with`].
fn cleared() -> impl Iterator<Item = &'static str> {
    engine::env::VARIABLES.iter().map(|v| v.name)
}

/// `prust ARGS` in `dir` (the current folder if `None`), with [`cleared`]
/// unset and then `env` set.
pub fn run(dir: Option<&Path>, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = command(args);
    if let Some(dir) = dir {
        c.current_dir(dir);
    }
    c.envs(env.iter().copied())
        .output()
        .expect("the prust binary runs")
}

/// The command `prust ARGS` with [`cleared`] unset, not started: for a
/// test that runs several at once.
pub fn command(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_prust"));
    c.args(args);
    for var in cleared() {
        c.env_remove(var);
    }
    c
}

/// `prust ARGS`.
pub fn prust(args: &[&str]) -> Output {
    run(None, args, &[])
}

/// `prust ARGS` with these environment variables set.
pub fn prust_with(args: &[&str], env: &[(&str, &str)]) -> Output {
    run(None, args, env)
}

/// `prust ARGS` run in `dir`.
pub fn prust_in(dir: &Path, args: &[&str]) -> Output {
    run(Some(dir), args, &[])
}

/// What it printed on stdout.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// What it printed on stderr.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A fresh, empty folder `prust-TEST-PID-NAME` under the temporary folder:
/// one per test and process, so that tests running at once never share.
pub fn fresh_folder(test: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("prust-{test}-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    dir
}

/// Asserts that `prust` did not panic: no exit code 101 (Rust's panic
/// status), no "panicked" on stderr.
pub fn no_panic(o: &Output) {
    assert_ne!(o.status.code(), Some(101), "{}", stderr(o));
    assert!(!stderr(o).contains("panicked"), "{}", stderr(o));
}
