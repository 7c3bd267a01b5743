//! Discourje `.dcj` files (`dcj::import_with`: the reader and the
//! evaluator) on arbitrary text, then the compilation of what imports.
//! Errors and warnings must point at a line of the file; the evaluation and
//! the compilation must end within their limits, never panic, hang or
//! abort on an allocation. `.dcj` files come from other tools and from
//! users, and the evaluator runs a small Clojure.
//!
//! A first line `;; args 3 2` (a comment to Discourje) passes integer
//! arguments to the imported session, so that the seeds' parameterised
//! sessions import; each is capped at 8 to keep the unfolding small.
#![no_main]

use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use engine::Limits;

/// Enough for every seed; a file that needs more is stopped by a limit,
/// which is an answer too.
const MAX_STATES: u64 = 20_000;
const MAX_MEMORY: u64 = 256 << 20;
/// Well under libFuzzer's `-timeout` in FUZZING.md's command.
const TIMEOUT: Duration = Duration::from_secs(5);

fn args(text: &str) -> Vec<i64> {
    let Some(rest) = text.lines().next().and_then(|l| l.strip_prefix(";; args")) else {
        return Vec::new();
    };
    rest.split_whitespace()
        .take(3)
        .filter_map(|w| w.parse::<i64>().ok())
        .map(|n| n.clamp(-8, 8))
        .collect()
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let lines = text.lines().count().max(1);
    let limits = Limits::default()
        .max_states(MAX_STATES)
        .max_memory(MAX_MEMORY)
        .timeout(TIMEOUT);
    match dcj::import_with(&text, None, &args(&text), &limits) {
        Err(e) => {
            // Line 0 is an error without a position (a missing session).
            assert!(e.line <= lines, "{e} is outside the file");
            assert!(e.line == 0 || e.col >= 1, "{e} has no column");
            let _ = e.to_string();
        }
        Ok(import) => {
            for w in &import.warnings {
                assert!(
                    w.span.start <= w.span.end && w.span.end <= text.len(),
                    "warning {:?} is outside the file",
                    w.message
                );
            }
            let _ = import.to_rust();
            let _ = import.spec.compile_with(&limits);
        }
    }
});
