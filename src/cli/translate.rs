//! `prust translate`: the Büchi automaton of a formula, as HOA, DOT or stats.

use std::time::{Duration, Instant};

use clap::ValueEnum;
use engine::env::Reader;
use engine::{Limit, Watch};
use owl_lite::TranslateError;

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
    /// Wall-clock budget of the translation, in seconds: running out is
    /// inconclusive (exit 2); inf (or more than 10⁹ s) is none [default:
    /// PRUST_TIMEOUT, else none]
    #[arg(
        long,
        value_name = "SECS",
        value_parser = super::check::parse_timeout,
        allow_negative_numbers = true
    )]
    pub timeout: Option<Duration>,
    /// Memory budget of the translation (the process's resident size):
    /// needing more is inconclusive (exit 2), never an allocation failure;
    /// bytes or a size such as 512M or 2G [default: PRUST_MAX_MEMORY, else
    /// half the available memory]
    #[arg(long, value_name = "SIZE", value_parser = engine::parse_memory_size)]
    pub max_memory: Option<u64>,
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
    let mut limits = super::object::limits_from_env(Reader::Translate)?;
    if let Some(t) = args.timeout {
        limits = limits.timeout(t);
    }
    if let Some(bytes) = args.max_memory {
        limits = limits.max_memory(bytes);
    }
    let formula = owl_lite::parse(text).map_err(Failure::error)?;
    let formula = if args.negate { formula.not() } else { formula };
    let start = Instant::now();
    // A short formula can take minutes and gigabytes (a conjunction of
    // fairness conditions grows exponentially with its conjuncts): the
    // translation is stopped at the limits, as a check's is. A budget
    // spent before it starts stops it too.
    let watch = Watch::of_limits(&limits, start);
    let stopped = |w: &Watch| w.reached().map(stopped_at);
    if watch.stop() {
        return Err(stopped(&watch).expect("a limit was reached"));
    }
    let w = watch.clone();
    let options = owl_lite::TranslateOptions::default().interrupt(move || w.stop());
    let automaton = match owl_lite::translate(&formula, &options) {
        Ok(a) => a,
        Err(TranslateError::Interrupted) => {
            return Err(stopped(&watch).expect("only a limit interrupts"))
        }
        Err(e) => return Err(Failure::error(e)),
    };
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

/// The failure of a translation stopped at `limit`: inconclusive (exit 2),
/// with the option and variable that raise it.
fn stopped_at(limit: Limit) -> Failure {
    let why = match limit {
        Limit::Time(t) => format!(
            "the time limit ({:.1} s; raise it with --timeout or PRUST_TIMEOUT)",
            t.as_secs_f64()
        ),
        Limit::Memory(b) => format!(
            "the memory limit ({:.0} MiB resident; raise it with --max-memory or PRUST_MAX_MEMORY)",
            b as f64 / (1024.0 * 1024.0)
        ),
        other => other.to_string(),
    };
    Failure::Inconclusive(format!(
        "inconclusive: the translation stopped at {why}\n  hint: or split the formula: a \
         conjunction of fairness conditions such as (F G a | G F b) & ... grows exponentially \
         with its conjuncts"
    ))
}
