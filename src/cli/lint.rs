//! `prust lint`: the sanity checks of [`protocols::lint`] on a protocol's
//! global LTS — findings with their witness runs, as text or JSON.

use clap::ValueEnum;
use protocols::lint::{self, Check, Finding, Inconclusive, Options, Report};
use prust::load::LoadError;
use prust::Runtime;

use std::borrow::Borrow;
use std::path::Path;
use std::time::{Duration, Instant};

use super::json::{self, Object};
use super::object::Unbuilt;
use super::out::Out;
use engine::hint::Audience;
use engine::Limits;

use super::{CmdResult, Exit, Failure};

/// The long help of `prust lint`: the checks and what they report.
pub const LONG_ABOUT: &str = "\
Lint a protocol's global LTS: sanity checks that need no property, each
reported with a shortest witness run.

Checks (all but cant-terminate and realizable by default):
  deadlock-free       a reachable stuck state that is not a normal end
  must-terminate      a run that never reaches a final state (stuck, or a loop)
  may-terminate       a reachable state from which no final state is reachable
  cant-terminate      a run that ends (meant to fail for terminating protocols)
  close-after-send    a channel p→q sent on and, on some run, never closed after
  send-before-close   a close of p→q on a run that never sent on p→q
  no-act-after-close  a send on p→q, or a second close, after its close
  causality           a send or close by p right after a step p took no part
                      in (a handshake p-q, a step neither took part in),
                      unless the two can be swapped
  realizable          a shortest run of the liberal (projected) object that
                      the strict object refuses, and the strict state where
                      the two runs part (opt-in: searches the liberal object
                      with its inboxes, within --max-states)

--runtime on-the-fly explores a specification's LTS on demand, within
--max-states: if the limit stops it, every check is inconclusive and only
findings that the explored states prove are reported.

Limits: --max-states bounds building the LTS (and realizable's search);
--timeout and --max-memory bound that and the checks too (their search
tables and witnesses); unset, they are read from PRUST_MAX_STATES,
PRUST_TIMEOUT and PRUST_MAX_MEMORY, as `prust check` reads them. A limit
that stops a check makes it and the checks after it inconclusive, and the
last line says `incomplete`.

Only the first 20 findings of a check get a witness run; the text lists
the others in one line per check (--format json gives each, with
\"witness_omitted\": true).

Exit 0 when nothing is found, 1 when something is, 2 when nothing is found
but a limit (--max-states, --timeout, --max-memory) stopped building the
LTS or a check: never \"0 findings\" for what was not seen.";

/// The arguments of `prust lint`.
#[derive(Debug, clap::Args)]
pub struct LintArgs {
    /// A bundled protocol with an optional parameter (token-star:4, chess;
    /// see `prust list`), a path to an Aldebaran .aut file, or a Discourje
    /// specification FILE.dcj[:SESSION[:ARG,ARG]]
    #[arg(value_name = "PROTOCOL")]
    pub protocol: String,
    /// Run only these checks (comma-separated names)
    #[arg(long, value_name = "CHECK,...", value_delimiter = ',')]
    pub only: Vec<String>,
    /// Do not run these checks (comma-separated names)
    #[arg(long, value_name = "CHECK,...", value_delimiter = ',')]
    pub exclude: Vec<String>,
    /// Output format
    #[arg(long, value_enum, default_value_t = LintFormat::Text)]
    pub format: LintFormat,
    /// Stop building the LTS (and realizable's search) beyond this many
    /// states: inconclusive (exit 2), never "no findings" [default:
    /// PRUST_MAX_STATES, else the protocols crate's bound]
    // Negative numbers are taken as values, as `prust check` takes them, so
    // that `--max-states -5` is rejected as a count.
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub max_states: Option<u64>,
    /// Wall-clock budget for the whole lint, in seconds (building the LTS,
    /// determinising it, the checks): running out is inconclusive
    /// (exit 2), never "no findings" [default: PRUST_TIMEOUT, else none]
    #[arg(
        long,
        value_name = "SECS",
        value_parser = super::check::parse_timeout,
        allow_negative_numbers = true
    )]
    pub timeout: Option<Duration>,
    /// Memory budget for the tables lint builds (the LTS, the checks'
    /// search tables and witnesses): needing more is
    /// inconclusive (exit 2), never an allocation failure; bytes or a size
    /// such as 512M or 2G [default: PRUST_MAX_MEMORY, else the protocols
    /// crate's bound]
    #[arg(long, value_name = "SIZE", value_parser = engine::parse_memory_size)]
    pub max_memory: Option<u64>,
    /// How to build the global LTS: strict (compiled whole) or on-the-fly
    /// (explored on demand from the specification, within --max-states)
    #[arg(long, value_parser = super::values::lint_runtime(), default_value_t = Runtime::Strict)]
    pub runtime: Runtime,
    /// Also write the findings as a self-contained HTML page (each
    /// witness as a chart)
    #[arg(long, value_name = "FILE")]
    pub html: Option<std::path::PathBuf>,
}

/// The output formats of `prust lint`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LintFormat {
    /// Each finding with its numbered witness steps
    Text,
    /// `{"findings": [{"check", "channel", "witness", "cycle_start", "summary"}, …]}`
    /// (and `"witness_omitted": true` on a finding past the first 20 of its
    /// check, whose `witness` is empty)
    Json,
}

/// The check named `name`, or an error with the closest name.
fn check(name: &str) -> Result<Check, Failure> {
    let name = name.trim();
    Check::from_name(name).ok_or_else(|| {
        let names = Check::ALL.map(Check::name);
        let f = Failure::error(format!("unknown lint check `{name}`"));
        match closest_check(name) {
            Some(near) => f.hint(format!(
                "did you mean `{near}`? (the checks are: {})",
                names.join(", ")
            )),
            None => f.hint(format!("the checks are: {}", names.join(", "))),
        }
    })
}

/// The check whose name is closest to `name` ([`engine::names::closest`]),
/// or failing that, the check whose name begins with something close to
/// `name`: people type the first word of a long name (`deadlok` for
/// `deadlock-free`, `causal`), which is too many edits from the whole name
/// to be suggested. Names shorter than four characters get no suggestion
/// by beginning (`ca` could be `cant-terminate` or `causality`).
fn closest_check(name: &str) -> Option<&'static str> {
    let names = Check::ALL.map(Check::name);
    if let Some(near) = engine::names::closest(name, names) {
        return Some(near);
    }
    let len = name.chars().count();
    if len < 4 {
        return None;
    }
    let starts: Vec<String> = names
        .iter()
        .map(|n| n.chars().take(len).collect())
        .collect();
    let near = engine::names::closest(name, starts.iter().map(String::as_str))?;
    // the first check with that beginning (two names never share four
    // characters and a close beginning is rare, so this is the one meant)
    let i = starts.iter().position(|s| s == near)?;
    Some(names[i])
}

/// The checks that `--only` and `--exclude` select.
pub fn options(only: &[String], exclude: &[String]) -> Result<Options, Failure> {
    let mut checks: Vec<Check> = if only.is_empty() {
        Options::default().checks
    } else {
        only.iter().map(|n| check(n)).collect::<Result<_, _>>()?
    };
    let exclude: Vec<Check> = exclude.iter().map(|n| check(n)).collect::<Result<_, _>>()?;
    checks.retain(|c| !exclude.contains(c));
    // in the order findings come, each once
    checks.sort_unstable();
    checks.dedup();
    Ok(Options::only(checks))
}

/// The fewest shared steps worth printing once: below this, pointing back
/// to them costs about as many lines as repeating them.
const MIN_SHARED_STEPS: usize = 3;

/// How many first steps the witnesses of `findings` share (the same
/// transitions, not just the same text), leaving each a step of its own.
fn common_steps<F: Borrow<Finding>>(findings: &[F]) -> usize {
    let first = &findings[0].borrow().witness;
    findings
        .iter()
        .map(|f| {
            let f = f.borrow();
            let same = first.iter().zip(&f.witness).take_while(|(a, b)| a == b);
            same.count().min(f.witness.len().saturating_sub(1))
        })
        .min()
        .unwrap_or(0)
}

/// Lines saved by printing `shared` steps once for `k` findings: each
/// finding drops them for one pointer line, and the shared block costs
/// its steps, a heading and a blank line.
fn saved(k: usize, shared: usize) -> isize {
    let (k, n) = (k as isize, shared as isize);
    k * n - k - n - 2
}

/// The findings in runs of neighbours, each run with the steps its
/// witnesses share (0: printed as before). A run grows while growing it
/// saves lines (see [`saved`]); a run of one, one that shares fewer than
/// [`MIN_SHARED_STEPS`] or one that would save no line shares nothing.
fn groups<F: Borrow<Finding>>(findings: &[F]) -> Vec<(std::ops::Range<usize>, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < findings.len() {
        let mut end = start + 1;
        let mut shared = 0;
        while end < findings.len() {
            let grown = common_steps(&findings[start..=end]);
            if grown < MIN_SHARED_STEPS
                || saved(end + 1 - start, grown) < saved(end - start, shared)
            {
                break;
            }
            shared = grown;
            end += 1;
        }
        let worth = end - start > 1 && saved(end - start, shared) > 0;
        out.push((start..end, if worth { shared } else { 0 }));
        start = end;
    }
    out
}

/// The most channels the text lists for the findings of one check that
/// have no witness (`--format json` lists every finding).
const LISTED_CHANNELS: usize = 20;

/// One line per check for its findings without a witness (past
/// [`lint::MAX_WITNESSES`]): how many, and their first channels.
pub(crate) fn omitted_lines(findings: &[Finding]) -> Vec<String> {
    let mut lines = Vec::new();
    let mut rest: Vec<&Finding> = findings.iter().filter(|f| f.witness_omitted).collect();
    while let Some(first) = rest.first() {
        let n = rest.iter().take_while(|f| f.check == first.check).count();
        let channels: Vec<String> = rest[..n]
            .iter()
            .take(LISTED_CHANNELS)
            .filter_map(|f| f.channel.as_ref().map(|(p, q)| format!("{p}→{q}")))
            .collect();
        let more = if n > LISTED_CHANNELS {
            format!(
                " and {} more (--format json lists them all)",
                n - LISTED_CHANNELS
            )
        } else {
            String::new()
        };
        lines.push(format!(
            "{}: {n} more finding{} without a witness (only the first {} findings of a \
             check get one), on channel{} {}{more}",
            first.check.name(),
            if n == 1 { "" } else { "s" },
            lint::MAX_WITNESSES,
            if n == 1 { "" } else { "s" },
            channels.join(", ")
        ));
        rest.drain(..n);
    }
    lines
}

/// One inconclusive check as a JSON object.
fn inconclusive_json(i: &Inconclusive) -> String {
    let mut o = Object::new();
    o.str("check", i.check.name());
    o.str(
        "reason",
        &i.reason.for_audience(Audience::CommandLine).to_string(),
    );
    o.finish()
}

/// One finding as a JSON object.
fn finding_json(f: &Finding) -> String {
    let mut o = Object::new();
    o.str("check", f.check.name());
    match &f.channel {
        Some((p, q)) => o.strs("channel", [p.as_str(), q.as_str()]),
        None => o.raw("channel", "null"),
    };
    o.strs("witness", f.witness.iter().map(|s| s.text.as_str()));
    match f.cycle_start {
        Some(i) => o.u64("cycle_start", i as u64),
        None => o.raw("cycle_start", "null"),
    };
    o.str("summary", &f.summary);
    // only when omitted, so that a finding with a witness prints as before
    if f.witness_omitted {
        o.raw("witness_omitted", "true");
    }
    o.finish()
}

/// The limits of a lint: each option, else its `PRUST_*` variable (as
/// `prust check` reads them), else the protocols crate's default. A
/// variable that does not parse is an error (exit 3) naming it: a limit
/// silently ignored could make lint say "0 findings" for what it never saw,
/// or run without the bound the user set.
fn limits(args: &LintArgs) -> Result<Limits, Failure> {
    // One reader of the variables for every command (engine's).
    let mut limits = super::object::limits_from_env(engine::env::Reader::Lint)?;
    if let Some(n) = args.max_states {
        limits = limits.max_states(n);
    }
    if let Some(t) = args.timeout {
        limits = limits.timeout(t);
    }
    if let Some(bytes) = args.max_memory {
        limits = limits.max_memory(bytes);
    }
    Ok(limits)
}

/// Lints PROTOCOL as `args.runtime` says: the compiled LTS, or the
/// specification's explored on demand.
fn report(args: &LintArgs, options: &Options) -> Result<Report, Failure> {
    let limits = limits(args)?;
    match args.runtime {
        Runtime::Strict => {
            // A limit while building is inconclusive (exit 2): lint has not
            // seen the whole LTS, so it must not say "0 findings".
            let started = Instant::now();
            let lts = prust::load::lts(
                &args.protocol,
                Path::new(""),
                &limits,
                Audience::CommandLine,
            )
            .map_err(|e| Unbuilt::from(e).into_failure())?;
            // One budget for the whole lint: the checks get what the build
            // left (none left: inconclusive at once, never a fresh budget).
            let rest = limits.time_left_since(started);
            Ok(lint::lint_with(&lts, options, &rest))
        }
        Runtime::OnTheFly => {
            let started = Instant::now();
            let spec = prust::load::spec_within(
                &args.protocol,
                Path::new(""),
                args.runtime,
                &limits,
                Audience::CommandLine,
            )
            .map_err(|e| match e {
                LoadError::NeedsSpec { path, .. } => Failure::error(format!(
                    "{} is an LTS file; --runtime on-the-fly explores a specification",
                    path.display()
                ))
                .hint("lint an .aut file with --runtime strict (the default)"),
                e => Unbuilt::from(e).into_failure(),
            })?;
            // One budget for the whole lint, as above.
            lint::lint_spec(&spec, options, &limits.time_left_since(started))
                .map_err(|e| Failure::error(format!("`{}`: {e}", args.protocol)))
        }
        Runtime::Liberal => Err(Failure::error(
            "prust lint reads the global LTS: --runtime strict or on-the-fly",
        )
        .hint("the liberal object is compared with the strict one by `--only realizable`")),
    }
}

/// Runs `prust lint`: exit 0 when nothing is found, 1 when something is,
/// 2 when nothing is found but a limit stopped the build of the LTS or a
/// check, 3 on an error.
pub fn run(args: &LintArgs, out: &mut Out) -> CmdResult {
    // Names first: a typo is reported before any work is done.
    let options = options(&args.only, &args.exclude)?;
    let Report {
        findings,
        inconclusive,
    } = report(args, &options)?;
    match args.format {
        LintFormat::Text => {
            // Findings often share a long way in (ten witnesses once
            // repeated the same 14 steps over 150 lines): that way is
            // printed once above them, and each finding goes on from it.
            // Findings without a witness are listed after, one line a check.
            let witnessed: Vec<&Finding> = findings.iter().filter(|f| !f.witness_omitted).collect();
            for (group, shared) in groups(&witnessed) {
                let members = &witnessed[group];
                if shared > 0 {
                    writeln!(
                        out,
                        "the {} witnesses below start with the same {shared} steps:",
                        members.len()
                    )?;
                    for (i, step) in members[0].witness[..shared].iter().enumerate() {
                        writeln!(out, "  {}. {}", i + 1, step.text)?;
                    }
                    writeln!(out)?;
                }
                for f in members {
                    let mut text = String::new();
                    // Writing to a String cannot fail.
                    let _ = f.write_after(&mut text, shared);
                    writeln!(out, "{text}")?;
                }
            }
            for line in omitted_lines(&findings) {
                writeln!(out, "{line}\n")?;
            }
            let names: Vec<&str> = options.checks.iter().map(|c| c.name()).collect();
            // A check cut short found what it found *so far*: the count
            // must not read as all there is.
            let incomplete = match inconclusive.len() {
                0 => String::new(),
                n => format!(
                    "; incomplete: a limit stopped {n} of the checks (see the inconclusive line)"
                ),
            };
            writeln!(
                out,
                "{} finding{} ({} check{}: {}){incomplete}",
                findings.len(),
                if findings.len() == 1 { "" } else { "s" },
                names.len(),
                if names.len() == 1 { "" } else { "s" },
                names.join(", ")
            )?;
            // as the other commands report a limit: on stderr, one line
            // per reason (on the fly, one limit stops every check)
            let mut rest: &[Inconclusive] = &inconclusive;
            while let Some(first) = rest.first() {
                let n = rest.iter().take_while(|i| i.reason == first.reason).count();
                let names: Vec<&str> = rest[..n].iter().map(|i| i.check.name()).collect();
                eprintln!(
                    "inconclusive: {}: {}",
                    names.join(", "),
                    first.reason.for_audience(Audience::CommandLine)
                );
                rest = &rest[n..];
            }
        }
        LintFormat::Json => {
            let mut o = Object::new();
            o.raw("findings", &json::array(findings.iter().map(finding_json)));
            // only when a check did not finish, so that a complete run
            // prints what it always printed
            if !inconclusive.is_empty() {
                o.raw(
                    "inconclusive",
                    &json::array(inconclusive.iter().map(inconclusive_json)),
                );
            }
            writeln!(out, "{}", o.finish())?;
        }
    }
    if let Some(path) = &args.html {
        let names: Vec<&str> = options.checks.iter().map(|c| c.name()).collect();
        let page = super::html::lint_page(&args.protocol, &findings, &inconclusive, &names);
        super::html::write(path, &page)?;
    }
    Ok(if !findings.is_empty() {
        Exit::Violated
    } else if !inconclusive.is_empty() {
        Exit::Inconclusive
    } else {
        Exit::Ok
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use protocols::lint::Step;

    /// Two different steps of a real witness.
    fn steps() -> (Step, Step) {
        let lts = protocols::bundled::two_buyer::spec().compile().unwrap();
        let findings = lint::lint(&lts, &Options::only([Check::CloseAfterSend]));
        let w = &findings[0].witness;
        assert_ne!(w[0], w[1]);
        (w[0].clone(), w[1].clone())
    }

    fn finding(witness: Vec<Step>, cycle_start: Option<usize>) -> Finding {
        Finding {
            check: Check::DeadlockFree,
            channel: None,
            witness,
            cycle_start,
            summary: String::new(),
            witness_omitted: false,
        }
    }

    #[test]
    fn neighbours_that_share_a_way_in_are_grouped_while_it_saves_lines() {
        let (a, b) = steps();
        let f = |n: usize, tail: &Step| {
            let mut w = vec![a.clone(); n];
            w.push(tail.clone());
            finding(w, None)
        };
        // 6 shared, then each its own step.
        assert_eq!(groups(&[f(6, &a), f(6, &b)]), [(0..2, 6)]);
        // 4 shared by two: as many lines either way, so printed as before.
        assert_eq!(groups(&[f(4, &a), f(4, &b)]), [(0..2, 0)]);
        // One finding alone: nothing to share.
        assert_eq!(groups(&[f(4, &a)]), [(0..1, 0)]);
        // Fewer than the minimum: printed as before.
        assert_eq!(groups(&[f(2, &a), f(2, &b)]), [(0..1, 0), (1..2, 0)]);
        // Identical witnesses: each keeps its last step.
        assert_eq!(groups(&[f(6, &b), f(6, &b)]), [(0..2, 6)]);
        // A short witness after a long shared run starts a run of its own
        // rather than cut the shared part to its length.
        let long = [f(14, &a), f(14, &b), f(14, &b), f(1, &b)];
        assert_eq!(groups(&long), [(0..3, 14), (3..4, 0)]);
        // A lasso's cycle may start among the shared steps.
        let mut lasso = f(6, &a);
        lasso.cycle_start = Some(2);
        assert_eq!(groups(&[lasso, f(6, &b)]), [(0..2, 6)]);
    }

    #[test]
    fn a_finding_after_shared_steps_points_back_and_goes_on() {
        let (a, b) = steps();
        let mut w = vec![a.clone(); 3];
        w.push(b.clone());
        let mut text = String::new();
        finding(w.clone(), None).write_after(&mut text, 3).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[1], "  1.–3. (the 3 shared steps above)");
        assert_eq!(lines[2], format!("  4. {}", b.text));
        assert_eq!(lines.len(), 3);
        // A cycle that starts among the shared steps is said where.
        let mut text = String::new();
        finding(w.clone(), Some(1))
            .write_after(&mut text, 3)
            .unwrap();
        assert!(
            text.contains("  1.–3. (the 3 shared steps above; the cycle starts at step 2)\n"),
            "{text}"
        );
        assert!(
            text.ends_with("-- back to the start of the cycle, forever --\n"),
            "{text}"
        );
        // Nothing shared: what Display prints.
        let mut plain = String::new();
        finding(w.clone(), None).write_after(&mut plain, 0).unwrap();
        assert_eq!(plain, finding(w, None).to_string());
    }
}
