//! The subcommands of the `prust` binary.

pub mod args;
pub mod check;
pub mod protocols;
pub mod translate;

use std::process::ExitCode;

/// Why a command failed, which decides its exit code.
pub enum Failure {
    /// Bad arguments or input (a formula that does not parse, an unknown
    /// protocol): exit code given by the command (2 for translate, 3 for check).
    Usage(args::UsageError),
    /// An error with its own exit code, already formatted.
    Coded(String, u8),
}

impl Failure {
    pub fn report(self) -> ExitCode {
        match self {
            Failure::Usage(e) => {
                eprintln!("{e}");
                ExitCode::from(2)
            }
            Failure::Coded(msg, code) => {
                eprintln!("{msg}");
                ExitCode::from(code)
            }
        }
    }
}

impl From<args::UsageError> for Failure {
    fn from(e: args::UsageError) -> Self {
        Failure::Usage(e)
    }
}

pub type CmdResult = Result<ExitCode, Failure>;
