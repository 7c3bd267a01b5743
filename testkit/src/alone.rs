//! Running one test alone in a child process of its test binary.
//!
//! Each crate's integration tests are one binary whose tests run as
//! threads of one process, so a test that changes process-wide state (it
//! sets a `PRUST_*` variable that every other test's checker or explorer
//! reads) would leak into tests running beside it. Such a test starts with
//! `if !testkit::alone::in_child(module_path!(), "its_name") { return; }`:
//! in the test binary's own run it starts the binary again with only that
//! test selected and asserts that it passed there; in that child, where no
//! other test runs, it returns `true` and the test body runs.

use std::process::{Command, Output};

/// The variable that marks the child run and names the test it runs.
const CHILD: &str = "TESTKIT_ALONE";

/// `true` in the child process, where the calling test's body runs alone;
/// `false` in the parent, after the child passed (a failed child fails the
/// calling test with the child's output). `module` is the caller's
/// `module_path!()`, `test` its function name.
pub fn in_child(module: &str, test: &str) -> bool {
    let path = test_path(module, test);
    if std::env::var(CHILD).is_ok_and(|v| v == path) {
        return true;
    }
    let out = child(module, test, &[]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "{path} failed alone:\n{stdout}\n{stderr}"
    );
    // A filter that matches nothing passes too: make sure the test ran.
    assert!(
        stdout.contains("1 passed"),
        "{path} did not run in the child:\n{stdout}\n{stderr}"
    );
    false
}

/// The test's path from the crate root (`module` is the caller's
/// `module_path!()`, which starts with the crate's name).
fn test_path(module: &str, test: &str) -> String {
    match module.split_once("::") {
        Some((_, rest)) => format!("{rest}::{test}"),
        None => test.to_string(),
    }
}

/// Runs the test `test` of `module` alone in a child process of this test
/// binary, with `env` set, and returns what it printed and how it exited:
/// for a test that, in the child, *is* a program (it reads its input from
/// `env` and exits the process with the program's status).
pub fn child(module: &str, test: &str, env: &[(&str, &str)]) -> Output {
    let path = test_path(module, test);
    let exe = std::env::current_exe().expect("the test binary's path");
    Command::new(exe)
        .args(["--exact", &path, "--nocapture", "--test-threads=1"])
        .env(CHILD, &path)
        .envs(env.iter().copied())
        .output()
        .expect("the test binary runs again")
}
