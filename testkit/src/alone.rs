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

use std::process::Command;

/// The variable that marks the child run and names the test it runs.
const CHILD: &str = "TESTKIT_ALONE";

/// `true` in the child process, where the calling test's body runs alone;
/// `false` in the parent, after the child passed (a failed child fails the
/// calling test with the child's output). `module` is the caller's
/// `module_path!()`, `test` its function name.
pub fn in_child(module: &str, test: &str) -> bool {
    // Test names are paths from the crate root: drop the crate's name.
    let path = match module.split_once("::") {
        Some((_, rest)) => format!("{rest}::{test}"),
        None => test.to_string(),
    };
    if std::env::var(CHILD).is_ok_and(|v| v == path) {
        return true;
    }
    let exe = std::env::current_exe().expect("the test binary's path");
    let out = Command::new(exe)
        .args(["--exact", &path, "--nocapture", "--test-threads=1"])
        .env(CHILD, &path)
        .output()
        .expect("the test binary runs again");
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
