//! `prust list` and `prust lts`: what the bundled protocols are, and their
//! global transition systems.

use clap::ValueEnum;

use engine::env::Reader;

use super::object::load;
use super::out::Out;
use super::{CmdResult, Exit};

/// The arguments of `prust list` (none).
#[derive(Debug, clap::Args)]
pub struct ListArgs {}

/// Runs `prust list`: each protocol the program registered (see
/// [`Cli::protocol`](super::Cli::protocol)), then each bundled protocol,
/// with its parameter, roles and message types.
pub fn list(_args: &ListArgs, out: &mut Out) -> CmdResult {
    for (name, spec) in prust::load::registered() {
        let spec = spec();
        writeln!(
            out,
            "{name:<28} registered by this program ({})",
            spec.name()
        )?;
        let roles = spec.declared_roles();
        if !roles.is_empty() {
            writeln!(out, "{:<28}   roles: {}", "", roles.join(", "))?;
        }
        let types = spec.declared_types();
        if !types.is_empty() {
            writeln!(out, "{:<28}   types: {}", "", types.join(", "))?;
        }
    }
    for info in protocols::bundled::list() {
        let name = match &info.param {
            Some(_) => format!("{}:K", info.name),
            None => info.name.to_string(),
        };
        writeln!(out, "{name:<28} {}", info.description)?;
        if let Some(p) = &info.param {
            writeln!(
                out,
                "{:<28}   K = {} (default {}, {}..={})",
                "", p.description, p.default, p.min, p.max
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
    /// see `prust list`), a path to an Aldebaran .aut file, or a Discourje
    /// specification FILE.dcj[:SESSION[:ARG,ARG]]
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
    let lts = load(&args.protocol, Reader::Lts)?;
    match args.format {
        LtsFormat::Dot => write!(out, "{}", lts.to_dot())?,
        LtsFormat::Aut => write!(out, "{}", lts.to_aut())?,
        LtsFormat::Stats => writeln!(out, "{}", lts.stats())?,
    }
    Ok(Exit::Ok)
}
