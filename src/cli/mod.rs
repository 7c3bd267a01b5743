//! The `prust` command line as a library: [`Cli`] runs it, with the
//! protocols a program registers besides the bundled ones, so that a
//! specification written in Rust can be checked, linted and replayed from
//! a binary of its own crate.
//!
//! Inside: the subcommands (their arguments are clap derives), the one
//! exit-code table they share ([`EXIT_CODES`]), and how failures are
//! reported. To add a subcommand, add a variant to `Command` with its own
//! `Args` struct and a line in `run`; to add a `check` option, add a field
//! to `check::CheckArgs`.

mod builder;
pub(crate) mod check;
pub(crate) mod html;
pub(crate) mod import;
pub(crate) mod json;
pub(crate) mod lint;
pub(crate) mod object;
pub(crate) mod out;
pub(crate) mod protocols;
pub(crate) mod replay;
pub(crate) mod serve;
pub(crate) mod translate;
pub(crate) mod values;

pub use builder::Cli;

use std::fmt;
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

use out::Out;

/// The exit-code table, shown at the end of every `--help`: one table for
/// the whole tool, so that scripts can rely on it whatever the subcommand.
pub const EXIT_CODES: &str = "\
Exit status:
  0    success; for check: every formula holds (with --hash-compaction
       also \"holds (probabilistic: hash compaction)\", with --bitstate
       \"holds (probabilistic: bitstate hashing)\": the output gives the
       bound on the probability that a state was missed; not a proof); with
       --share I/N: every formula holds on this share (\"holds on share
       I/N\"), and a formula holds when all N shares exit 0
  1    some formula is violated (check); the trail no longer replays (replay);
       some check found a mistake (lint)
  2    some formula is inconclusive: a limit (--max-states, --timeout, ...)
       was reached before a verdict; never reported as \"holds\" (check)
  3    error: bad arguments or options, a formula or protocol that does not
       parse or exist, an unreadable file
  141  stdout was closed before all output was written (as after SIGPIPE,
       e.g. `prust list | head -1`); the remaining output and verdicts are
       unknown
With several formulas the most severe outcome decides the exit status
(error > inconclusive > violated > holds).";

/// `prust`'s arguments: protocol unit testing by adaptation-based LTL
/// model checking.
#[derive(Debug, Parser)]
#[command(
    name = "prust",
    version,
    about = "Protocol unit testing by adaptation-based LTL model checking",
    long_about = "Protocol unit testing by adaptation-based LTL model checking.\n\n\
                  Results go to stdout; errors and diagnostics to stderr.",
    after_help = EXIT_CODES
)]
pub(crate) struct Args {
    /// The subcommand; without one, `prust` prints this help.
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The subcommands of `prust`.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Print the Büchi automaton of an LTL formula (HOA, DOT or statistics)
    #[command(after_help = EXIT_CODES)]
    Translate(translate::TranslateArgs),
    /// List the bundled protocols, with their parameters, roles and message types
    #[command(after_help = EXIT_CODES)]
    List(protocols::ListArgs),
    /// Print the global LTS of a protocol (a bundled name, a .aut or a .dcj file)
    #[command(after_help = EXIT_CODES)]
    Lts(protocols::LtsArgs),
    /// Check LTL formulas on a protocol: one verdict per formula
    #[command(long_about = check::long_about(), after_help = EXIT_CODES)]
    Check(check::CheckArgs),
    /// Import a Discourje .dcj session: prust source, its LTS, or counts
    #[command(after_help = EXIT_CODES)]
    Import(import::ImportArgs),
    /// Lint a protocol: sanity checks with witness runs (unclosed channels, runs that never end, ...)
    #[command(long_about = lint::LONG_ABOUT, after_help = EXIT_CODES)]
    Lint(lint::LintArgs),
    /// Re-execute a trail file (from `prust check --trail`) on a fresh object
    #[command(long_about = replay::LONG_ABOUT, after_help = EXIT_CODES)]
    Replay(replay::ReplayArgs),
    /// Walk a protocol's state space in the browser: a local web server over the object
    #[command(long_about = serve::LONG_ABOUT, after_help = EXIT_CODES)]
    Serve(serve::ServeArgs),
}

/// An exit status of the table in [`EXIT_CODES`]. The derived order is
/// severity, so the status of several formulas is their maximum.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Exit {
    /// Success; for `check`, every formula holds.
    Ok = 0,
    /// Some formula is violated.
    Violated = 1,
    /// Some formula is inconclusive (a limit was reached).
    Inconclusive = 2,
    /// An error, usage errors included.
    Error = 3,
    /// stdout was closed early: a quiet exit, like a process stopped by
    /// SIGPIPE (128 + 13).
    ClosedPipe = 141,
    /// The command panicked (the panic hook has printed it): Rust's own
    /// exit status for a panic.
    Panicked = 101,
}

impl From<Exit> for ExitCode {
    fn from(e: Exit) -> ExitCode {
        ExitCode::from(e as u8)
    }
}

/// Why a command stopped before it finished.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Failure {
    /// An error for the user, printed on stderr as is (it starts with
    /// `error:` and may carry a `hint:` line); exit status 3.
    Error(String),
    /// A limit stopped the work before a verdict (building the object, for
    /// instance): the message on stderr, exit status 2.
    Inconclusive(String),
    /// stdout was closed by its reader: nothing is printed; exit status 141.
    ClosedPipe,
}

impl Failure {
    /// An error with `message`, printed as `error: message`.
    pub fn error(message: impl fmt::Display) -> Failure {
        Failure::Error(format!("error: {message}"))
    }

    /// Adds a `hint:` line under an error (a closed pipe stays one).
    pub fn hint(self, hint: impl fmt::Display) -> Failure {
        match self {
            Failure::Error(m) => Failure::Error(format!("{m}\n  hint: {hint}")),
            other => other,
        }
    }

    /// Prints the failure on stderr and returns its exit status.
    pub fn report(self) -> Exit {
        match self {
            Failure::Error(m) => {
                out::diagnostic(&m);
                Exit::Error
            }
            Failure::Inconclusive(m) => {
                out::diagnostic(&m);
                Exit::Inconclusive
            }
            Failure::ClosedPipe => Exit::ClosedPipe,
        }
    }
}

/// What a subcommand returns: its exit status, or why it stopped.
pub(crate) type CmdResult = Result<Exit, Failure>;

/// The stack of the thread that runs a command. The specification compiler
/// and the objects built on the fly recurse on the terms of a
/// specification, as deep as its longest sequence: `ring-buffered:100000`
/// needed more than the main thread's 8 MiB and died of a stack overflow.
/// Only the pages used are ever committed, so reserving much costs nothing.
const STACK_BYTES: usize = 1 << 30;

/// Runs `command` on a thread with a [`STACK_BYTES`] stack (on this thread
/// if no such thread can be started).
fn on_large_stack(command: impl FnOnce() -> Exit + Send) -> Exit {
    let command = std::sync::Mutex::new(Some(command));
    let take = || command.lock().ok().and_then(|mut c| c.take());
    let spawned = std::thread::scope(|s| {
        std::thread::Builder::new()
            .name("prust".into())
            .stack_size(STACK_BYTES)
            .spawn_scoped(s, || take().map(|c| c()))
            .map(|h| h.join())
    });
    match spawned {
        Ok(Ok(Some(code))) => code,
        // A panic was reported by the hook already: exit as Rust does.
        Ok(Err(_)) => Exit::Panicked,
        Ok(Ok(None)) | Err(_) => take().map_or(Exit::Error, |c| c()),
    }
}

/// What clap could not parse, or `--help`/`--version` (which clap reports as
/// errors): printed as clap formats it (help and version on stdout, errors
/// with their usage line and suggestions on stderr). `--help` and
/// `--version` exit 0; every usage error exits 3, not clap's default 2,
/// which in our table means "inconclusive".
///
/// Help and version go through [`Out`] when stdout is not a terminal, so
/// that a failed write is reported as for any other output (`--help >
/// /dev/full` once printed nothing and exited 0) and a closed pipe exits
/// 141; on a terminal clap prints them itself, in colour.
pub(crate) fn clap_error(e: clap::Error) -> Exit {
    use std::io::IsTerminal;
    if e.use_stderr() {
        let invalid_utf8 = e.kind() == clap::error::ErrorKind::InvalidUtf8;
        // Nowhere to report a failed write to stderr.
        let _ = e.print();
        if invalid_utf8 {
            out::diagnostic(
                "  hint: prust reads its arguments as UTF-8 text; give a file whose name is \
                 not UTF-8 through a link (or a copy) with a UTF-8 name",
            );
        }
        return Exit::Error;
    }
    if std::io::stdout().is_terminal() {
        let _ = e.print();
        return Exit::Ok;
    }
    let mut out = Out::stdout();
    let text = e.render().to_string();
    match write!(out, "{text}").and_then(|()| out.flush()) {
        Ok(()) => Exit::Ok,
        Err(f) => f.report(),
    }
}

/// Runs a parsed command line, printing results on stdout and failures on
/// stderr.
fn run(cli: Args) -> Exit {
    let mut out = Out::stdout();
    let result = match &cli.command {
        None => print_help(&mut out),
        Some(Command::Translate(a)) => translate::run(a, &mut out),
        Some(Command::List(a)) => protocols::list(a, &mut out),
        Some(Command::Lts(a)) => protocols::lts(a, &mut out),
        Some(Command::Check(a)) => check::run(a, &mut out),
        Some(Command::Replay(a)) => replay::run(a, &mut out),
        Some(Command::Import(a)) => import::run(a, &mut out),
        Some(Command::Lint(a)) => lint::run(a, &mut out),
        Some(Command::Serve(a)) => serve::run(a, &mut out),
    };
    // Flush before deciding the status: a closed pipe may show only now.
    match result.and_then(|code| out.flush().map(|()| code)) {
        Ok(code) => code,
        Err(f) => f.report(),
    }
}

/// `prust` alone: the top-level help on stdout, exit 0.
fn print_help(out: &mut Out) -> CmdResult {
    let help = Args::command().render_long_help();
    write!(out, "{help}")?;
    Ok(Exit::Ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_definition_is_consistent() {
        // clap's own checks (conflicting names, bad defaults), which it
        // otherwise makes only in debug builds when parsing.
        Args::command().debug_assert();
    }

    #[test]
    fn severity_order_is_the_exit_code_order() {
        assert!(Exit::Ok < Exit::Violated);
        assert!(Exit::Violated < Exit::Inconclusive);
        assert!(Exit::Inconclusive < Exit::Error);
        let codes = [Exit::Ok, Exit::Inconclusive, Exit::Violated];
        assert_eq!(codes.iter().max(), Some(&Exit::Inconclusive));
    }

    #[test]
    fn usage_errors_exit_3_and_help_exits_0() {
        let e = Args::try_parse_from(["prust", "chek"]).unwrap_err();
        assert_eq!(e.kind(), clap::error::ErrorKind::InvalidSubcommand);
        assert!(e.use_stderr());
        let e = Args::try_parse_from(["prust", "check", "--help"]).unwrap_err();
        assert_eq!(e.kind(), clap::error::ErrorKind::DisplayHelp);
        assert!(!e.use_stderr());
    }

    #[test]
    fn hints_go_under_the_error() {
        let f = Failure::error("no such thing").hint("try another");
        assert_eq!(
            f,
            Failure::Error("error: no such thing\n  hint: try another".into())
        );
        assert_eq!(Failure::ClosedPipe.hint("x"), Failure::ClosedPipe);
    }
}
