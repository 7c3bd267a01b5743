//! The `prust` command: translate LTL formulas, inspect bundled protocols and
//! check LTL properties of them.

mod cli;

use std::process::ExitCode;

const USAGE: &str = "\
prust — protocol unit testing by adaptation-based LTL model checking

USAGE:
    prust translate [--negate] [--format hoa|dot|stats] [FORMULA]
        Print the Büchi automaton of FORMULA (default: a bundled formula).
    prust list
        The bundled protocols, with their parameters, roles and message types.
    prust lts PROTOCOL [--format dot|aut|stats]
        The global LTS of PROTOCOL (a bundled name like token-star:4, or a .aut file).
    prust check PROTOCOL [FORMULA...] [--runtime strict|liberal|on-the-fly]
                [--semantics stutter|omega] [--max-states N] [--timeout SECS]
        Check each FORMULA on PROTOCOL; one verdict per formula.
        Exit code: 0 all hold, 1 some violated, 2 some inconclusive, 3 error
        (the most severe wins). Without arguments: a demo on the bundled chess
        protocol, one property that holds and one that does not (exit 0 when
        both verdicts are as expected).
    prust help
        This text.
";

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let (cmd, rest) = match argv.split_first() {
        Some((c, r)) => (c.as_str(), r),
        None => ("help", &[][..]),
    };
    let result = match cmd {
        "translate" => cli::translate::run(rest),
        "list" => cli::protocols::list(rest),
        "lts" => cli::protocols::lts(rest),
        "check" => cli::check::run(rest),
        "help" | "--help" | "-h" => {
            print!("{USAGE}");
            Ok(ExitCode::SUCCESS)
        }
        other => {
            let known = ["translate", "list", "lts", "check", "help"];
            let mut e = cli::args::UsageError::new(format!("unknown command {other:?}"));
            e = e.hint(match engine::names::closest(other, known) {
                Some(c) => format!("did you mean `prust {c}`? Run `prust help` for usage."),
                None => "run `prust help` for usage".to_string(),
            });
            Err(cli::Failure::Usage(e))
        }
    };
    match result {
        Ok(code) => code,
        Err(f) => f.report(),
    }
}
