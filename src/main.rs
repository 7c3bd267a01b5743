//! The `prust` command: translate LTL formulas, inspect bundled protocols and
//! check LTL properties of them. Run `prust --help` for the subcommands and
//! the exit-code table. The whole command is [`prust::cli::Cli`], which a
//! program can extend with protocols of its own.

fn main() -> std::process::ExitCode {
    prust::cli::Cli::new().run()
}
