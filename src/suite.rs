//! Data-driven property suites: folders of `.owl` files, every entry run as
//! its own test.
//!
//! # Running a folder of suites
//!
//! Add a test target without the default harness and point it at a folder:
//!
//! ```toml
//! [[test]]
//! name = "owl"
//! harness = false
//! ```
//!
//! ```text
//! // tests/owl.rs
//! fn main() {
//!     prust::suite::main("tests/owl");
//! }
//! ```
//!
//! Every `.owl` file under the folder (subfolders included) becomes a group
//! of tests named `file::entry::runtime::semantics` (with the protocol's
//! name after the entry when a file checks several protocols), so the usual
//! test arguments work: `cargo test --test owl -- topologies`,
//! `cargo test --test owl -- --list`, `--exact`, `--skip`, `--ignored`.
//! A failing test prints the checker's report, counterexample included
//! (set `PRUST_SUITE_REPORTS=1` to see the reports, with their statistics,
//! of the tests that pass as well); *inconclusive* is a failure. A file that
//! cannot be parsed is one failing test, `file::(file)`, whose message gives
//! the line and column of every problem; a folder without suites is a
//! failing test too, never zero tests.
//!
//! # The file format
//!
//! ```text
//! # Chess: white moves first, then the players alternate.
//! protocol  chess                   # a bundled protocol, with parameters: token-star:4
//! runtime   strict liberal          # optional; default: these two
//! semantics stutter omega           # optional; default: both
//!
//! # A formula exactly as Prut4j's .owl files have it, on the lines after `test`:
//! test black_waits_for_white holds
//!     !"black SEND <Move>" U "white SEND <Move>"
//!
//! test black_never_moves violated
//! G !"black SEND <Move>"
//! ```
//!
//! - `protocol SPEC [as NAME]`: the protocol to check: a bundled protocol
//!   (`protocols::bundled` names, parameters after `:`), or an Aldebaran
//!   `.aut` file (a path: it ends in `.aut` or contains a `/`, relative to
//!   the suite file; the rule of [`crate::load`], which `prust check` follows
//!   too), whose global LTS the runtimes then run. Every message type gets
//!   a dummy.
//!   Repeat the line to check every entry on several protocols; `NAME`
//!   (default: `SPEC`) appears in test names and in verdict qualifiers.
//! - `runtime` and `semantics`: which objects (`strict`, `liberal`, and
//!   `on-the-fly`, the strict object built as the search reaches its
//!   states, for bundled protocols and `.dcj` files, not `.aut` files;
//!   default: `strict liberal`) and
//!   which semantics (`stutter`: finite runs are extended by stutter steps,
//!   prust's default; `omega`: only infinite runs count, as in Prut4j;
//!   default: both) every entry is checked on. Each combination is its own
//!   test. Names are read as `prust check --runtime`/`--semantics` and
//!   `PRUST_SEMANTICS` read them ([`Runtime`]'s and [`Semantics`]'s
//!   `FromStr`: case-insensitive, with their aliases); test names and
//!   qualifiers use the canonical names.
//! - `max-states N`: a limit on the search; reaching it is a failure
//!   (*inconclusive* is never a pass).
//! - `fairness none|weak`: the fairness of every check of the file, read
//!   as `prust check --fairness` reads it ([`engine::Fairness`]); under
//!   `weak` a liveness property is refuted only by a weakly fair run (no
//!   role enabled in every state from some point on that never moves).
//!   One per file (a file that wants both verdicts is two files); without
//!   the line, `PRUST_FAIRNESS` or the default, `none`. Test names do not
//!   change.
//! - `let NAME = FORMULA`: an abbreviation, usable as a bare word in later
//!   formulas (`let R1 = "worker_1_ RECV <Boolean>"`, then `G(R1 => X S12)`).
//!   It is replaced by the parenthesised formula. Formulas written out in
//!   full work just as well. Expanded formulas are bounded
//!   ([`format::MAX_EXPANDED_LEN`] bytes each, [`format::MAX_EXPANDED_TOTAL`]
//!   for a file): abbreviations that use each other twice double at each
//!   level, and the one that crosses the bound is an error at its position.
//! - `test NAME VERDICT…`, then the formula on the following lines (it ends
//!   at the next directive). A directive is a line that *starts* (no
//!   indentation) with `protocol`, `runtime`, `semantics`, `fairness`,
//!   `max-states`, `let` or `test`; the formula may be indented or not.
//! - Verdicts: `holds`, `violated`, or `error` (the check must be refused,
//!   e.g. for a misspelt role; quoted strings after it must occur in the
//!   error message: `error "worker_1_"`). A verdict can be qualified with
//!   the protocol, runtime or semantics it is for, joined by `+`:
//!   `holds@omega violated@stutter`, `violated@liberal+stutter`. For each
//!   test the matching verdict with the most qualifiers counts; a tie
//!   between different verdicts, or no matching verdict, is an error.
//! - `#` starts a comment (outside quoted atoms).
//!
//! # Checker options
//!
//! Every check uses [`engine::Checker`]'s defaults, which the `PRUST_*`
//! environment variables override (`PRUST_MAX_STATES`, `PRUST_TIMEOUT`,
//! `PRUST_DETERMINISM`, …), except the semantics, which is the test's, and
//! the fairness of a file with a `fairness` line. The
//! determinism check is on in debug builds, so `cargo test` also checks
//! that the objects keep the protocol contract; it costs most of the time
//! of the larger searches (`PRUST_DETERMINISM=0` skips it). The entries of
//! a file that check the same object in the same semantics share one
//! [`engine::CheckSession`], so the object's
//! states are explored once, not once per formula.

pub mod format;
mod objects;
mod outcome;
mod run;

pub use format::{parse, Expected, Pos, Suite, SuiteError};
// The one runtime and semantics types of the crate, where suite users look.
pub use crate::Runtime;
pub use engine::Semantics;
pub use outcome::Outcome;
pub use run::{check_entry, trials};

/// Runs every `.owl` suite under `dir` as a libtest-mimic test binary:
/// parses the command line (filters, `--list`, …), runs the tests and exits.
///
/// A relative `dir` is taken from the current directory, which `cargo test`
/// sets to the package's root.
pub fn main(dir: impl AsRef<std::path::Path>) -> ! {
    let args = libtest_mimic::Arguments::from_args();
    libtest_mimic::run(&args, trials(dir.as_ref())).exit()
}
