//! `prust translate`: the Büchi automaton of a formula, as HOA, DOT or stats.

use std::process::ExitCode;
use std::time::Instant;

use super::args::{Args, Spec, UsageError};
use super::{CmdResult, Failure};

/// The formula translated when none is given: a response property in the
/// atom syntax of protocol checks.
pub const DEFAULT_FORMULA: &str = r#"G ("client SEND <Request>" -> F "client RECV <Response>")"#;

const SPEC: Spec<'static> = Spec {
    valued: &["--format"],
    switches: &["--negate"],
};

pub fn run(raw: &[String]) -> CmdResult {
    let args = Args::parse(raw, &SPEC)?;
    let format = args
        .choice("--format", &["hoa", "dot", "stats"])?
        .unwrap_or("hoa");
    let text = match args.positionals.as_slice() {
        [] => DEFAULT_FORMULA.to_string(),
        [one] => one.clone(),
        more => {
            return Err(
                UsageError::new(format!("translate takes one formula, got {}", more.len()))
                    .hint("quote the formula as one argument: prust translate 'G (a -> F b)'")
                    .into(),
            )
        }
    };
    let formula = owl_lite::parse(&text).map_err(|e| Failure::Coded(format!("error: {e}"), 2))?;
    let formula = if args.switch("--negate") {
        formula.not()
    } else {
        formula
    };
    let start = Instant::now();
    let automaton = owl_lite::translate(&formula, &owl_lite::TranslateOptions::default())
        .map_err(|e| Failure::Coded(format!("error: {e}"), 2))?;
    let time_us = start.elapsed().as_micros();
    match format {
        "hoa" => print!("{}", automaton.to_hoa()),
        "dot" => print!("{}", automaton.to_dot()),
        _ => println!(
            "states={} edges={} acceptance_sets={} time_us={}",
            automaton.num_states(),
            automaton.num_edges(),
            automaton.acceptance_sets,
            time_us
        ),
    }
    Ok(ExitCode::SUCCESS)
}
