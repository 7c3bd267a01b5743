//! `prust check`: verdicts of LTL formulas on a protocol object.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use engine::{Checker, Protocol, Semantics, Verdict};
use protocols::{Liberal, Strict};

use super::args::{Args, Spec, UsageError};
use super::{CmdResult, Failure};

/// What `prust check` with no arguments shows: a bundled protocol, a
/// property that holds and one that is violated.
pub const DEMO_PROTOCOL: &str = "chess";
pub const DEMO_FORMULAS: [&str; 2] = [
    r#"!"black SEND <Move>" U "black RECV <Move>""#,
    r#"F "END""#,
];

const SPEC: Spec<'static> = Spec {
    valued: &["--runtime", "--semantics", "--max-states", "--timeout"],
    switches: &[],
};

const EXIT_VIOLATED: u8 = 1;
const EXIT_INCONCLUSIVE: u8 = 2;
const EXIT_ERROR: u8 = 3;

pub fn run(raw: &[String]) -> CmdResult {
    let args = Args::parse(raw, &SPEC).map_err(usage)?;
    let runtime = args
        .choice("--runtime", &["strict", "liberal", "on-the-fly"])
        .map_err(usage)?;
    let semantics = match args
        .choice("--semantics", &["stutter", "omega"])
        .map_err(usage)?
    {
        Some("omega") => Some(Semantics::InfiniteRunsOnly),
        Some(_) => Some(Semantics::Stutter),
        None => None,
    };
    let mut checker = Checker::new();
    if let Some(s) = semantics {
        checker = checker.semantics(s);
    }
    if let Some(n) = args.number::<u64>("--max-states").map_err(usage)? {
        checker = checker.max_states(n);
    }
    if let Some(secs) = args.number::<f64>("--timeout").map_err(usage)? {
        if !(secs.is_finite() && secs > 0.0) {
            return Err(usage(UsageError::new(
                "--timeout expects a positive number of seconds",
            )));
        }
        checker = checker.timeout(Duration::from_secs_f64(secs));
    }

    let demo = args.positionals.is_empty();
    let (protocol, formulas): (&str, Vec<&str>) = match args.positionals.as_slice() {
        [] => {
            println!(
                "prust check {DEMO_PROTOCOL} (demo: one property that holds, one that does not)\n"
            );
            (DEMO_PROTOCOL, DEMO_FORMULAS.to_vec())
        }
        [p] => {
            return Err(usage(
                UsageError::new(format!("no formula to check on {p}"))
                    .hint(format!("e.g. prust check {p} 'G !\"DEADLOCK\"'")),
            ))
        }
        [p, fs @ ..] => (p.as_str(), fs.iter().map(String::as_str).collect()),
    };
    let runtime = runtime.unwrap_or("strict");
    let started = Instant::now();
    let codes = match runtime {
        "on-the-fly" => {
            let spec = super::protocols::load_spec(protocol, EXIT_ERROR)?;
            let obj = Strict::on_the_fly(&spec).map_err(|e| coded(format!("error: {e}")))?;
            check_all(&checker, obj, &formulas)
        }
        "liberal" => {
            let lts = super::protocols::load(protocol, EXIT_ERROR)?;
            let obj = Liberal::try_new(lts).map_err(|e| coded(format!("error: {e}")))?;
            check_all(&checker, obj, &formulas)
        }
        _ => {
            let lts = super::protocols::load(protocol, EXIT_ERROR)?;
            let obj = Strict::try_new(lts).map_err(|e| coded(format!("error: {e}")))?;
            check_all(&checker, obj, &formulas)
        }
    };
    // The most severe outcome decides the exit code (error > inconclusive >
    // violated > holds). The demo succeeds when its verdicts are the expected
    // ones: the first property holds, the second is violated.
    let code = if demo {
        if codes == [0, EXIT_VIOLATED] {
            println!("demo: both verdicts as expected");
            0
        } else {
            eprintln!(
                "error: the demo's verdicts are not the expected ones (holds, then violated)"
            );
            EXIT_ERROR
        }
    } else {
        codes.iter().copied().max().unwrap_or(0)
    };
    println!(
        "{} formula(s) on {protocol} ({runtime}) in {:.3} s",
        formulas.len(),
        started.elapsed().as_secs_f64()
    );
    Ok(ExitCode::from(code))
}

/// Checks every formula on one object and prints a verdict for each;
/// returns the exit code of each formula's outcome.
fn check_all<P: Protocol>(checker: &Checker, obj: P, formulas: &[&str]) -> Vec<u8> {
    // The object's own dummies, one per declared type: the engine's, so the
    // CLI, the suites and `dummies![]` probe the same messages.
    let dummies = engine::declared_dummies(&obj);
    let mut session = match checker.session(obj, dummies) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return vec![EXIT_ERROR];
        }
    };
    let mut codes = Vec::new();
    for formula in formulas {
        match session.check(formula) {
            Ok(report) => {
                codes.push(match report.verdict {
                    Verdict::Holds => 0,
                    Verdict::Violated(_) => EXIT_VIOLATED,
                    Verdict::Inconclusive { .. } => EXIT_INCONCLUSIVE,
                });
                println!("{report}\n");
            }
            Err(e) => {
                codes.push(EXIT_ERROR);
                println!("error in formula {formula}\n{e}\n");
            }
        }
    }
    codes
}

fn usage(e: UsageError) -> Failure {
    coded(e.to_string())
}

fn coded(msg: String) -> Failure {
    Failure::Coded(msg, EXIT_ERROR)
}
