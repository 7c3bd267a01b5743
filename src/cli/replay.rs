//! `prust replay`: re-execute a trail file (written by `prust check
//! --trail`, or by a failing test with `PRUST_TRAIL_DIR`) on a fresh
//! object, and print the transcript.

use std::path::PathBuf;

use engine::Trail;
use protocols::Object;

use prust::Runtime;

use super::object::object;
use super::out::Out;
use super::values;
use super::{CmdResult, Exit, Failure};

/// The long help of `prust replay`.
pub const LONG_ABOUT: &str = "Re-execute a trail file on a fresh object and print the \
    transcript: the object's state after each step, then the check of the cycle or of \
    the ending.\n\n\
    Exit 0: the object still follows the trail: every step is still possible, and the \
    cycle still closes (or the run still ends there). The formula is not evaluated \
    again, nor fairness: whether the run still violates the property is for `prust \
    check` to say. \
    Exit 1: it no longer does; the report says at which step (and line of the file) \
    and why. Exit 3: the file does not parse, or the protocol does not exist.\n\n\
    FILE may also be a permalink of `prust serve` (http://…/?path=…): the path it \
    encodes is the trail.";

/// The arguments of `prust replay`.
#[derive(Debug, clap::Args)]
pub struct ReplayArgs {
    /// A bundled protocol with an optional parameter (token-star:4, chess;
    /// see `prust list`), a path to an Aldebaran .aut file, or a Discourje
    /// specification FILE.dcj[:SESSION[:ARG,ARG]]
    #[arg(value_name = "PROTOCOL")]
    pub protocol: String,
    /// The trail file, or a permalink of `prust serve` (a URL whose
    /// `path` parameter is the trail)
    #[arg(value_name = "FILE")]
    pub trail: PathBuf,
    /// The protocol object to replay on (as for `prust check`)
    #[arg(long, value_parser = values::runtime(), default_value_t = Runtime::Strict)]
    pub runtime: Runtime,
    /// Also draw the trail as a message sequence chart (Graphviz DOT)
    #[arg(long, value_name = "FILE")]
    pub dot: Option<PathBuf>,
    /// Also write the replay as a self-contained HTML page (the trail's
    /// chart, the object's state after each step)
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
}

/// Runs `prust replay`.
pub fn run(args: &ReplayArgs, out: &mut Out) -> CmdResult {
    // The chart is written after the replay: over the trail it would
    // destroy the counterexample being replayed.
    if let Some(dot) = &args.dot {
        if super::out::same_file(dot, &args.trail) {
            return Err(Failure::error(format!(
                "--dot names the trail file being replayed ({}): the chart would overwrite it",
                dot.display()
            ))
            .hint("give the chart its own file, e.g. --dot run.dot"));
        }
    }
    let text = match args
        .trail
        .to_str()
        .filter(|a| crate::serve::is_permalink(a))
    {
        // A permalink of `prust serve` carries its trail in the URL.
        Some(url) => crate::serve::permalink_trail(url).map_err(|e| {
            Failure::error(format!("{url}: {e}"))
                .hint("copy the permalink of a path from the page of `prust serve`")
        })?,
        None => protocols::files::read_text(&args.trail).map_err(|e| {
            let (message, hint) =
                protocols::files::read_failure(&args.trail, &e, protocols::files::FileKind::Trail);
            Failure::error(message).hint(hint)
        })?,
    };
    let trail = Trail::parse(&text)
        .map_err(|e| Failure::error(format!("{}: {e}", args.trail.display())))?;
    if let Some(named) = &trail.protocol {
        if named != &args.protocol {
            super::out::diagnostic(&format!(
                "note: the trail was written for `{named}`; replaying it on `{}`",
                args.protocol
            ));
        }
    }
    let object = object(
        &args.protocol,
        args.runtime,
        // No variable read: the defaults of a command someone waits on.
        &engine::Limits::default().defaults(engine::DefaultBudgets::Machine),
    )
    .map_err(|u| u.into_failure())?;
    let page = args.html.as_ref().map(|_| object.clone());
    let replayed = replay(&trail, object, args.dot.is_some());
    if let (Some(path), Some(object)) = (&args.html, &page) {
        let page = super::html::replay_page(&args.protocol, &trail, object, &replayed.transcript);
        super::html::write(path, &page)?;
    }
    if let (Some(path), Some(dot)) = (&args.dot, &replayed.dot) {
        std::fs::write(path, dot)
            .map_err(|e| Failure::error(format!("cannot write {}: {e}", path.display())))?;
    }
    match replayed.transcript {
        Ok(transcript) => {
            write!(out, "{transcript}")?;
            if !transcript.ends_with('\n') {
                writeln!(out)?;
            }
            writeln!(out, "the trail replays: the object still follows it")?;
            Ok(Exit::Ok)
        }
        Err(e) => {
            writeln!(out, "the trail no longer replays: {e}")?;
            Ok(Exit::Violated)
        }
    }
}

/// What replaying gave: the transcript or where it diverged, and the chart.
struct Replayed {
    transcript: Result<String, engine::ReplayError>,
    dot: Option<String>,
}

/// Replays `trail` on `object`, and draws its chart if `dot`.
fn replay(trail: &Trail, object: Object, dot: bool) -> Replayed {
    // The dummies `prust check` used: one per declared type.
    let dummies = engine::declared_dummies(&object);
    let dot = if dot {
        trail
            .to_counterexample(&object, dummies.clone())
            .ok()
            .map(|c| c.to_dot())
    } else {
        None
    };
    Replayed {
        transcript: trail.replay(object, dummies),
        dot,
    }
}
