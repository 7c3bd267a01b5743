//! `prust check --distributed`: the options that place this process among
//! the others, and the check of one formula over all of them (the
//! `prust-distributed` crate, on timely-dataflow).

use engine::{Checker, Message};
use protocols::Object;

use super::args::CheckArgs;
use crate::cli::Failure;

/// Where this process runs among the others.
#[cfg(feature = "distributed")]
pub type Cluster = prust_distributed::Cluster;
/// Where this process runs among the others (never made: this prust was
/// built without the feature).
#[cfg(not(feature = "distributed"))]
#[derive(Debug, Clone)]
pub enum Cluster {}

/// What `--distributed` gives instead of a one-machine check: the report,
/// and a line a process for the text output.
pub struct Checked {
    pub report: engine::Report,
    pub processes: Vec<String>,
}

/// The cluster of `--distributed` and its options; `None` without it.
///
/// # Errors
/// An option that the distributed search does not take (it would be
/// silently ignored), a process number out of range, a host file that
/// cannot be read.
pub fn cluster(args: &CheckArgs) -> Result<Option<Cluster>, Failure> {
    if !args.distributed {
        return Ok(None);
    }
    let unsupported = [
        (args.share.is_some(), "--share"),
        (args.threads.is_some(), "--threads"),
        (args.hash_compaction, "--hash-compaction"),
        (args.bitstate.is_some(), "--bitstate"),
    ];
    if let Some((_, option)) = unsupported.iter().find(|(given, _)| *given) {
        return Err(Failure::error(format!(
            "--distributed does not take {option}: the distributed search stores every state, \
             exactly, over its workers"
        ))
        .hint("give threads per process with -w N, processes with -n N and -p I"));
    }
    make(args).map(Some)
}

#[cfg(feature = "distributed")]
fn make(args: &CheckArgs) -> Result<Cluster, Failure> {
    let threads = args.workers.unwrap_or(1) as usize;
    let processes = args.processes.unwrap_or(1) as usize;
    let process = args.process.unwrap_or(0) as usize;
    if process >= processes {
        return Err(Failure::error(format!(
            "-p {process}: the process numbers of -n {processes} are 0 to {}",
            processes - 1
        ))
        .hint("number the processes from 0: -p 0 on the first, -p 1 on the second, ..."));
    }
    match &args.hostfile {
        Some(path) => Cluster::from_host_file(threads, processes, process, path)
            .map_err(|e| Failure::error(e.to_string())),
        None => Ok(Cluster::local(
            threads,
            processes,
            process,
            args.port.unwrap_or(2101),
        )),
    }
}

#[cfg(not(feature = "distributed"))]
fn make(_: &CheckArgs) -> Result<Cluster, Failure> {
    Err(Failure::error(
        "this prust was built without distributed checks (the `distributed` feature)",
    )
    .hint("build it with the default features"))
}

/// Whether this process prints the verdicts: process 0 does, the others
/// only exit with them.
pub fn prints(cluster: &Cluster) -> bool {
    #[cfg(feature = "distributed")]
    return cluster.process == 0;
    #[cfg(not(feature = "distributed"))]
    match *cluster {}
}

/// Checks `formula` on `obj` over the cluster: every worker builds its
/// own session of `checker` on a clone of `obj`.
///
/// # Errors
/// The check's error, as text.
#[cfg(feature = "distributed")]
pub fn check(
    cluster: &Cluster,
    checker: &Checker,
    obj: &Object,
    dummies: &[Message],
    formula: &str,
) -> Result<Checked, String> {
    let (checker, obj, dummies) = (checker.clone(), obj.clone(), dummies.to_vec());
    let outcome = prust_distributed::check(cluster, formula, move || {
        checker.session(obj.clone(), dummies.clone())
    })
    .map_err(|e| e.to_string())?;
    let processes = outcome
        .processes
        .iter()
        .map(|p| {
            let memory = if p.peak_memory > 0 {
                format!(", peak memory {} MiB", p.peak_memory >> 20)
            } else {
                String::new()
            };
            format!(
                "process {}: {} product states owned, {} bytes of states sent, {} received{memory}",
                p.process, p.states, p.bytes_sent, p.bytes_received
            )
        })
        .collect();
    Ok(Checked {
        report: outcome.report,
        processes,
    })
}

/// Never called: no cluster is made without the feature.
#[cfg(not(feature = "distributed"))]
pub fn check(
    cluster: &Cluster,
    _: &Checker,
    _: &Object,
    _: &[Message],
    _: &str,
) -> Result<Checked, String> {
    match *cluster {}
}
