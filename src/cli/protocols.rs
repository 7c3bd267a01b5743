//! `prust list` and `prust lts`: what the bundled protocols are, and their
//! global transition systems.

use std::path::Path;

use clap::ValueEnum;
use protocols::Lts;

use super::out::Out;
use super::{CmdResult, Exit, Failure};

/// Loads PROTOCOL: a path to an Aldebaran `.aut` file, or a bundled name
/// with an optional parameter (`token-star:4`).
pub fn load(protocol: &str) -> Result<Lts, Failure> {
    if looks_like_file(protocol) {
        let path = Path::new(protocol);
        let text = std::fs::read_to_string(path)
            .map_err(|e| Failure::error(format!("cannot read {protocol}: {e}")))?;
        return Lts::from_aut(&text).map_err(|e| Failure::error(format!("{protocol}: {e}")));
    }
    protocols::bundled::by_name(protocol).map_err(unknown)
}

/// The specification of a bundled protocol (for objects built on the fly,
/// which need one: an `.aut` file is an LTS already).
pub fn load_spec(protocol: &str) -> Result<protocols::Spec, Failure> {
    if looks_like_file(protocol) {
        return Err(Failure::error(format!(
            "{protocol} is an LTS file; --runtime on-the-fly builds a bundled protocol's specification"
        ))
        .hint("use --runtime strict (or liberal) for .aut files"));
    }
    protocols::bundled::spec_by_name(protocol).map_err(unknown)
}

fn looks_like_file(protocol: &str) -> bool {
    protocol.ends_with(".aut") || protocol.contains('/')
}

fn unknown(e: protocols::Error) -> Failure {
    match e {
        protocols::Error::UnknownProtocol { .. } => Failure::error(e)
            .hint("`prust list` shows the bundled protocols; a path ending in .aut reads an LTS"),
        _ => Failure::error(e),
    }
}

/// The arguments of `prust list` (none).
#[derive(Debug, clap::Args)]
pub struct ListArgs {}

/// Runs `prust list`: each bundled protocol with its parameter, roles and
/// message types.
pub fn list(_args: &ListArgs, out: &mut Out) -> CmdResult {
    for info in protocols::bundled::list() {
        let name = match &info.param {
            Some(_) => format!("{}:K", info.name),
            None => info.name.to_string(),
        };
        writeln!(out, "{name:<28} {}", info.description)?;
        if let Some(p) = &info.param {
            writeln!(
                out,
                "{:<28}   K = {} (default {}, at least {})",
                "", p.description, p.default, p.min
            )?;
        }
        let shown = match &info.param {
            Some(p) => format!(" (K = {})", p.default),
            None => String::new(),
        };
        writeln!(out, "{:<28}   roles{shown}: {}", "", info.roles.join(", "))?;
        writeln!(out, "{:<28}   types: {}", "", info.types.join(", "))?;
    }
    Ok(Exit::Ok)
}

/// The arguments of `prust lts`.
#[derive(Debug, clap::Args)]
pub struct LtsArgs {
    /// A bundled protocol with an optional parameter (token-star:4, chess;
    /// see `prust list`) or a path to an Aldebaran .aut file
    #[arg(value_name = "PROTOCOL")]
    pub protocol: String,
    /// Output format
    #[arg(long, value_enum, default_value_t = LtsFormat::Stats)]
    pub format: LtsFormat,
}

/// The output formats of `prust lts`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LtsFormat {
    /// A Graphviz digraph
    Dot,
    /// The Aldebaran format (what PROTOCOL reads back)
    Aut,
    /// One line of counts
    Stats,
}

/// Runs `prust lts`: the global LTS of a protocol.
pub fn lts(args: &LtsArgs, out: &mut Out) -> CmdResult {
    let lts = load(&args.protocol)?;
    match args.format {
        LtsFormat::Dot => write!(out, "{}", lts.to_dot())?,
        LtsFormat::Aut => write!(out, "{}", lts.to_aut())?,
        LtsFormat::Stats => writeln!(out, "{}", lts.stats())?,
    }
    Ok(Exit::Ok)
}
