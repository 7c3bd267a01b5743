//! `prust import`: a Discourje `.dcj` session as prust sees it — as prust
//! combinator source, as its global LTS (Aldebaran or Graphviz), or as one
//! line of counts.

use clap::ValueEnum;
use dcj::DcjTarget;

use super::out::Out;
use super::{CmdResult, Exit, Failure};

/// The arguments of `prust import`.
#[derive(Debug, clap::Args)]
pub struct ImportArgs {
    /// A Discourje specification: FILE.dcj, FILE.dcj:SESSION or
    /// FILE.dcj:SESSION:ARG,ARG (integer arguments of the session)
    #[arg(value_name = "FILE.dcj[:SESSION[:ARG,ARG]]")]
    pub target: String,
    /// Output format
    #[arg(long, value_enum, default_value_t = ImportFormat::Rust)]
    pub format: ImportFormat,
}

/// The output formats of `prust import`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ImportFormat {
    /// The imported specification as prust combinator source
    Rust,
    /// The global LTS in the Aldebaran format (what `prust check` reads)
    Aut,
    /// The global LTS as a Graphviz digraph
    Dot,
    /// One line of counts of the global LTS
    Stats,
}

/// Runs `prust import`: the warnings of the import go to stderr, the
/// imported specification (or its LTS) to stdout.
pub fn run(args: &ImportArgs, out: &mut Out) -> CmdResult {
    let target = DcjTarget::parse(&args.target)
        .ok_or_else(|| {
            Failure::error(format!("`{}` names no .dcj file", args.target))
                .hint("give FILE.dcj, FILE.dcj:SESSION or FILE.dcj:SESSION:ARG,ARG")
        })?
        .map_err(Failure::error)?;
    if args.format == ImportFormat::Rust {
        // The evaluation is bounded by the limit variables, as the LTS
        // formats' build is: a limit is inconclusive (exit 2).
        let limits = super::object::limits_from_env(engine::env::Reader::Import)?;
        let import = target.import_with(&limits).map_err(|e| {
            let e = prust::load::dcj_error(e, &limits, engine::hint::Audience::CommandLine);
            super::object::Unbuilt::from(e).into_failure()
        })?;
        for warning in &import.warning_texts {
            super::out::diagnostic(warning);
        }
        let source = import.to_rust();
        write!(out, "{source}")?;
        if !source.ends_with('\n') {
            writeln!(out)?;
        }
        return Ok(Exit::Ok);
    }
    // Through the one loader (which prints the warnings), within the same
    // default limits as `prust lts`: a limit is inconclusive (exit 2).
    let lts = super::object::load(&args.target, engine::env::Reader::Import)?;
    match args.format {
        ImportFormat::Aut => write!(out, "{}", lts.to_aut())?,
        ImportFormat::Dot => write!(out, "{}", lts.to_dot())?,
        ImportFormat::Stats | ImportFormat::Rust => writeln!(out, "{}", lts.stats())?,
    }
    Ok(Exit::Ok)
}
