//! `prust translate`: the Büchi automaton of a formula, as HOA, DOT or stats.

use std::time::Instant;

use clap::ValueEnum;

use super::out::Out;
use super::{CmdResult, Exit, Failure};

/// The formula translated when none is given: a response property in the
/// atom syntax of protocol checks.
pub const DEFAULT_FORMULA: &str = r#"G ("client SEND <Request>" -> F "client RECV <Response>")"#;

/// The arguments of `prust translate`.
#[derive(Debug, clap::Args)]
pub struct TranslateArgs {
    /// Translate the negation of FORMULA (the automaton a check searches)
    #[arg(long)]
    pub negate: bool,
    /// Output format
    #[arg(long, value_enum, default_value_t = TranslateFormat::Hoa)]
    pub format: TranslateFormat,
    /// The LTL formula, as one (quoted) argument; default: a bundled
    /// response property
    #[arg(value_name = "FORMULA")]
    // A list, not an Option, so that an unquoted formula split by the shell
    // gets a hint on quoting instead of a bare "unexpected argument".
    pub formula: Vec<String>,
}

/// The output formats of `prust translate`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TranslateFormat {
    /// The Hanoi Omega-Automata format
    Hoa,
    /// A Graphviz digraph
    Dot,
    /// One line: states=N edges=N acceptance_sets=N time_us=N
    Stats,
}

/// Runs `prust translate`.
pub fn run(args: &TranslateArgs, out: &mut Out) -> CmdResult {
    let text = match args.formula.as_slice() {
        [] => DEFAULT_FORMULA,
        [one] => one.as_str(),
        more => {
            return Err(Failure::error(format!(
                "translate takes one formula, got {} arguments",
                more.len()
            ))
            .hint("quote the formula as one argument: prust translate 'G (a -> F b)'"))
        }
    };
    let formula = owl_lite::parse(text).map_err(Failure::error)?;
    let formula = if args.negate { formula.not() } else { formula };
    let start = Instant::now();
    let automaton = owl_lite::translate(&formula, &owl_lite::TranslateOptions::default())
        .map_err(Failure::error)?;
    let time_us = start.elapsed().as_micros();
    match args.format {
        TranslateFormat::Hoa => write!(out, "{}", automaton.to_hoa())?,
        TranslateFormat::Dot => write!(out, "{}", automaton.to_dot())?,
        TranslateFormat::Stats => writeln!(
            out,
            "states={} edges={} acceptance_sets={} time_us={}",
            automaton.num_states(),
            automaton.num_edges(),
            automaton.acceptance_sets,
            time_us
        )?,
    }
    Ok(Exit::Ok)
}
