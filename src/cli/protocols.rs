//! `prust list` and `prust lts`: what the bundled protocols are, and their
//! global transition systems.

use std::path::Path;
use std::process::ExitCode;

use protocols::Lts;

use super::args::{Args, Spec, UsageError};
use super::{CmdResult, Failure};

/// Loads PROTOCOL: a path to an Aldebaran `.aut` file, or a bundled name
/// with an optional parameter (`token-star:4`). Errors exit with `code`.
pub fn load(protocol: &str, code: u8) -> Result<Lts, Failure> {
    if looks_like_file(protocol) {
        let path = Path::new(protocol);
        let text = std::fs::read_to_string(path)
            .map_err(|e| Failure::Coded(format!("error: cannot read {protocol}: {e}"), code))?;
        return Lts::from_aut(&text)
            .map_err(|e| Failure::Coded(format!("error: {protocol}: {e}"), code));
    }
    protocols::bundled::by_name(protocol).map_err(|e| unknown(e, code))
}

/// The specification of a bundled protocol (for objects built on the fly,
/// which need one: an `.aut` file is an LTS already).
pub fn load_spec(protocol: &str, code: u8) -> Result<protocols::Spec, Failure> {
    if looks_like_file(protocol) {
        return Err(Failure::Coded(
            format!(
                "error: {protocol} is an LTS file; --runtime on-the-fly builds a bundled protocol's specification\n  hint: use --runtime strict (or liberal) for .aut files"
            ),
            code,
        ));
    }
    protocols::bundled::spec_by_name(protocol).map_err(|e| unknown(e, code))
}

fn looks_like_file(protocol: &str) -> bool {
    protocol.ends_with(".aut") || protocol.contains('/')
}

fn unknown(e: protocols::Error, code: u8) -> Failure {
    let hint = match e {
        protocols::Error::UnknownProtocol { .. } => {
            "\n  hint: `prust list` shows the bundled protocols; a path ending in .aut reads an LTS"
        }
        _ => "",
    };
    Failure::Coded(format!("error: {e}{hint}"), code)
}

pub fn list(raw: &[String]) -> CmdResult {
    let args = Args::parse(
        raw,
        &Spec {
            valued: &[],
            switches: &[],
        },
    )?;
    if !args.positionals.is_empty() {
        return Err(UsageError::new("list takes no arguments").into());
    }
    for info in protocols::bundled::list() {
        let name = match &info.param {
            Some(_) => format!("{}:K", info.name),
            None => info.name.to_string(),
        };
        println!("{name:<28} {}", info.description);
        if let Some(p) = &info.param {
            println!(
                "{:<28}   K = {} (default {}, at least {})",
                "", p.description, p.default, p.min
            );
        }
        let shown = match &info.param {
            Some(p) => format!(" (K = {})", p.default),
            None => String::new(),
        };
        println!("{:<28}   roles{shown}: {}", "", info.roles.join(", "));
        println!("{:<28}   types: {}", "", info.types.join(", "));
    }
    Ok(ExitCode::SUCCESS)
}

pub fn lts(raw: &[String]) -> CmdResult {
    let args = Args::parse(
        raw,
        &Spec {
            valued: &["--format"],
            switches: &[],
        },
    )?;
    let format = args
        .choice("--format", &["dot", "aut", "stats"])?
        .unwrap_or("stats");
    let [protocol] = args.positionals.as_slice() else {
        return Err(UsageError::new("lts takes one PROTOCOL")
            .hint("e.g. `prust lts token-star:4 --format dot`, or a path to a .aut file")
            .into());
    };
    let lts = load(protocol, 2)?;
    match format {
        "dot" => print!("{}", lts.to_dot()),
        "aut" => print!("{}", lts.to_aut()),
        _ => println!("{}", lts.stats()),
    }
    Ok(ExitCode::SUCCESS)
}
