//! The `prust` command: translate LTL formulas, inspect bundled protocols and
//! check LTL properties of them. Run `prust --help` for the subcommands and
//! the exit-code table.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
