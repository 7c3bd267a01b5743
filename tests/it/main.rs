//! The `prust` package's integration tests (the command line, the loader, the
//! `.dcj` and POR suites): one test binary, one module a feature (one link
//! step, where a binary a file linked the crate graph once each).
//!
//! The tests run as threads of one process: a test that changes process-wide
//! state (a `PRUST_*` variable) or measures it (resident memory) runs alone
//! in a child process ([`testkit::alone`]). The `.owl` suites
//! (`tests/owl.rs`, libtest-mimic) are a binary of their own: their harness
//! is not libtest's.

mod cli;
mod cli_check;
mod cli_distributed;
mod cli_fairness;
mod cli_file_errors;
mod cli_files;
mod cli_help;
mod cli_import;
mod cli_json;
mod cli_limits_and_trails;
mod cli_lint;
mod cli_lint_limits;
mod cli_list_and_lts;
mod cli_load;
mod cli_output;
mod cli_share;
mod cli_sync_bit;
mod cli_translate;
mod dcj_suites;
#[cfg(feature = "distributed")]
mod distributed_suites;
mod env_variables;
mod example_pipeline;
mod example_server;
mod example_worker_pool;
mod fuzz_smoke;
mod html_reports;
mod own_cli;
mod por_suites;
mod serve;
mod worked_examples;

/// The `.owl` suite files under `tests/owl`, in sorted order (directories
/// walked in order too).
pub(crate) fn owl_files() -> Vec<std::path::PathBuf> {
    fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|e| e == "owl") {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/owl"),
        &mut out,
    );
    out
}
