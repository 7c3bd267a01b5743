//! [`Cli`]: the whole `prust` command line as a library call, so that a
//! program can add its own specifications to it.

use std::ffi::OsString;
use std::process::ExitCode;
use std::sync::Arc;

use clap::Parser;

use protocols::Spec;

use super::{clap_error, on_large_stack, Args, Exit, Failure};
use crate::load::{self, SpecFn};

/// The `prust` command line with a program's own protocols: every
/// subcommand (`check`, `lint`, `replay`, `lts`, `list`, …) takes the
/// names registered here as well as the bundled protocols and files.
///
/// A specification written in Rust becomes a command-line tool with one
/// line, as a `[[bin]]` or an example of the crate that defines it:
///
/// ```no_run
/// use prust::spec::{msg, Spec};
///
/// fn ping_pong() -> Spec {
///     Spec::new("ping-pong", msg("Ping", "ping", "pong").then(msg("Pong", "pong", "ping")).star())
/// }
///
/// fn main() -> std::process::ExitCode {
///     prust::cli::Cli::new().protocol("ping-pong", ping_pong).run()
/// }
/// ```
///
/// Then `cargo run --bin NAME -- check ping-pong 'G F "ping SEND <Ping>"'`
/// checks it, with the exit codes of `prust --help`. The `prust` binary
/// itself is `Cli::new().run()`.
///
/// A registered name must not be the name of a bundled protocol (it would
/// silently change what that name checks), look like a file (contain `/`
/// or end in `.aut` or `.dcj`), contain `:` (the parameter separator) or
/// white space, or be registered twice: [`run`](Cli::run) refuses such a
/// program with an error (exit 3) before it looks at the arguments.
#[derive(Clone, Default)]
pub struct Cli {
    registered: Vec<(String, SpecFn)>,
}

impl std::fmt::Debug for Cli {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.registered.iter().map(|(n, _)| n.as_str()).collect();
        f.debug_struct("Cli").field("protocols", &names).finish()
    }
}

impl Cli {
    /// The command line with the bundled protocols only.
    ///
    /// ```
    /// use prust::cli::Cli;
    /// assert_eq!(format!("{:?}", Cli::new()), "Cli { protocols: [] }");
    /// ```
    pub fn new() -> Cli {
        Cli::default()
    }

    /// Adds the protocol `name`, whose specification `spec` makes (called
    /// each time a command loads it).
    ///
    /// ```
    /// use prust::cli::Cli;
    /// use prust::spec::{msg, Spec};
    ///
    /// let cli = Cli::new().protocol("ping", || Spec::new("ping", msg("Ping", "a", "b")));
    /// assert_eq!(format!("{cli:?}"), r#"Cli { protocols: ["ping"] }"#);
    /// ```
    pub fn protocol(
        mut self,
        name: impl Into<String>,
        spec: impl Fn() -> Spec + Send + Sync + 'static,
    ) -> Cli {
        self.registered.push((name.into(), Arc::new(spec)));
        self
    }

    /// Runs the command line of this process (`std::env::args_os`): the
    /// whole of a `main`. The exit code is the table of `prust --help`.
    pub fn run(self) -> ExitCode {
        self.run_from(std::env::args_os())
    }

    /// Runs the command line `args`, the first of which is the program's
    /// name (as in `std::env::args_os`). Results go to stdout, errors to
    /// stderr, as from [`run`](Cli::run).
    ///
    /// ```
    /// use prust::cli::Cli;
    /// use prust::spec::{msg, Spec};
    ///
    /// let cli = Cli::new().protocol("ping", || Spec::new("ping", msg("Ping", "a", "b")));
    /// // Exit 0: the property holds on the registered protocol.
    /// let code = cli.run_from(["prust", "check", "ping", r#"F "a SEND <Ping>""#]);
    /// assert_eq!(code, std::process::ExitCode::SUCCESS);
    /// ```
    pub fn run_from<I, T>(self, args: I) -> ExitCode
    where
        I: IntoIterator<Item = T>,
        T: Into<OsString> + Clone,
    {
        self.exit_from(args).into()
    }

    /// [`run_from`](Cli::run_from) with the exit status as an [`Exit`],
    /// which tests can compare.
    pub(crate) fn exit_from<I, T>(self, args: I) -> Exit
    where
        I: IntoIterator<Item = T>,
        T: Into<OsString> + Clone,
    {
        if let Err(f) = self.validate() {
            return f.report();
        }
        match Args::try_parse_from(args) {
            Ok(args) => {
                let registered = self.registered;
                on_large_stack(move || load::with_registered(&registered, || super::run(args)))
            }
            Err(e) => clap_error(e),
        }
    }

    /// The registered names' mistakes, as an error naming the first.
    fn validate(&self) -> Result<(), Failure> {
        let bundled: Vec<&str> = protocols::bundled::list().iter().map(|b| b.name).collect();
        for (i, (name, _)) in self.registered.iter().enumerate() {
            let why = if name.is_empty() {
                Some("it is empty".to_string())
            } else if load::is_file(name) {
                Some("it looks like a file (it contains `/` or ends in `.aut` or `.dcj`)".into())
            } else if name.contains(':') || name.chars().any(char::is_whitespace) {
                Some(
                    "it contains `:` or white space, which separate a name from its parameter"
                        .into(),
                )
            } else if bundled.contains(&name.as_str()) {
                Some("a bundled protocol has that name, and registering it would change what the name checks".into())
            } else if self.registered[..i].iter().any(|(n, _)| n == name) {
                Some("it is registered twice".into())
            } else {
                None
            };
            if let Some(why) = why {
                return Err(Failure::error(format!(
                    "cannot register the protocol name `{name}`: {why}"
                ))
                .hint("choose another name in the program's `Cli::protocol` call"));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use protocols::spec::msg;

    fn ping() -> Spec {
        Spec::new("ping", msg("Ping", "a", "b"))
    }

    #[test]
    fn registered_protocols_are_checked_with_the_table_exit_codes() {
        let cli = || Cli::new().protocol("ping", ping);
        let holds = cli().exit_from(["p", "check", "ping", r#"F "a SEND <Ping>""#]);
        assert_eq!(holds, Exit::Ok);
        let violated = cli().exit_from(["p", "check", "ping", r#"G !"a SEND <Ping>""#]);
        assert_eq!(violated, Exit::Violated);
        // Every runtime builds it: it has a specification.
        for rt in ["strict", "liberal", "on-the-fly"] {
            let code = cli().exit_from(["p", "check", "ping", "--runtime", rt, "F true"]);
            assert_eq!(code, Exit::Ok, "{rt}");
        }
    }

    #[test]
    fn a_name_not_registered_is_unknown_as_before() {
        let code = Cli::new().exit_from(["p", "check", "ping", "F true"]);
        assert_eq!(code, Exit::Error);
        // The registration does not outlive the command that made it.
        assert!(load::registered_names().is_empty());
    }

    #[test]
    fn bad_names_are_refused_before_any_command_runs() {
        for bad in ["", "x.aut", "dir/x", "x.dcj", "a:b", "a b", "chess"] {
            let code = Cli::new().protocol(bad, ping).exit_from(["p", "list"]);
            assert_eq!(code, Exit::Error, "{bad:?}");
        }
        let twice = Cli::new().protocol("ping", ping).protocol("ping", ping);
        assert_eq!(twice.exit_from(["p", "list"]), Exit::Error);
        let fine = Cli::new().protocol("ping", ping);
        assert_eq!(fine.exit_from(["p", "lts", "ping"]), Exit::Ok);
    }
}
