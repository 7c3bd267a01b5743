//! The arguments of `prust check` and the parsers of their values.

use std::path::PathBuf;
use std::time::Duration;

use clap::ValueEnum;
use engine::{Fairness, Semantics};
use prust::Runtime;

use crate::cli::values;

/// The arguments of `prust check`: every option of a check is a field here,
/// so that new ones (limits, output files) go in one place.
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// A bundled protocol with an optional parameter (token-star:4, chess;
    /// see `prust list`), a path to an Aldebaran .aut file, or a Discourje
    /// specification FILE.dcj[:SESSION[:ARG,ARG]]
    #[arg(value_name = "PROTOCOL")]
    pub protocol: Option<String>,
    /// The LTL formulas to check, each as one (quoted) argument; put `--`
    /// before a formula that starts with `-`
    #[arg(value_name = "FORMULA")]
    pub formulas: Vec<String>,
    /// The protocol object: strict (compiled), liberal, or strict built on
    /// the fly as the search reaches states (for state spaces too large to
    /// compile; it needs a specification: bundled protocols and .dcj
    /// files, not .aut files)
    #[arg(long, value_parser = values::runtime(), default_value_t = Runtime::Strict)]
    pub runtime: Runtime,
    /// What finite runs mean: stutter (a run that stops repeats its end
    /// forever, so "END" and "DEADLOCK" hold there) or omega (only infinite
    /// runs count, as in Prut4j) [default: PRUST_SEMANTICS, else stutter]
    #[arg(long, value_parser = values::semantics())]
    pub semantics: Option<Semantics>,
    /// Which runs may refute a liveness property: none (every run) or weak
    /// (only runs in which no role stays enabled from some point on without
    /// ever moving); safety verdicts do not change [default:
    /// PRUST_FAIRNESS, else none]
    #[arg(long, value_parser = values::fairness())]
    pub fairness: Option<Fairness>,
    /// Stop a formula's search after N product states: inconclusive
    /// (exit 2), never "holds" [default: PRUST_MAX_STATES, else 10000000]
    // Negative numbers are taken as values, so that `--max-states -5` is
    // rejected as a count rather than read as an unknown option.
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub max_states: Option<u64>,
    /// Wall-clock budget per formula, in seconds (each formula gets the whole
    /// budget); a search that runs out is inconclusive (exit 2); inf (or
    /// more than 10⁹ s) is none [default: PRUST_TIMEOUT, else none]
    #[arg(
        long,
        value_name = "SECS",
        value_parser = parse_timeout,
        allow_negative_numbers = true
    )]
    pub timeout: Option<Duration>,
    /// Memory budget: a search (or the build of the object, a .dcj file's
    /// evaluation included) that needs more ends inconclusive (exit 2),
    /// never in an allocation failure; bytes or a size such as 512M or 2G
    /// [default: PRUST_MAX_MEMORY, else half the available memory or of the
    /// cgroup's limit, at most a quarter of what an address-space limit
    /// (ulimit -v) leaves]
    #[arg(long, value_name = "SIZE", value_parser = parse_memory)]
    pub max_memory: Option<u64>,
    /// Write each counterexample as a trail file (`prust replay` re-executes
    /// it); with several formulas, the k-th formula's goes to FILE-k
    #[arg(long, value_name = "FILE")]
    pub trail: Option<PathBuf>,
    /// Draw each counterexample as a message sequence chart (Graphviz DOT:
    /// `dot -Tsvg FILE`); with several formulas, the k-th formula's goes to
    /// FILE-k
    #[arg(long, value_name = "FILE")]
    pub dot: Option<PathBuf>,
    /// Write each verdict as a self-contained HTML page (its chart, and
    /// beside each step the automaton state, atoms, subformulas' truth,
    /// messages in transit, the object's state); with several formulas,
    /// the k-th formula's goes to FILE-k
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Output: text, or json (JSON Lines: one object per formula, with its
    /// verdict, statistics, limit or counterexample, and nothing else on
    /// stdout: no demo header, no summary line)
    #[arg(long, value_enum, default_value_t = CheckFormat::Text)]
    pub format: CheckFormat,
    /// Search every interleaving: no partial-order reduction (which is on
    /// by default where it applies: the on-the-fly and liberal runtimes,
    /// formulas without X that cannot tell where unseen steps fall; it never
    /// changes a verdict, and the report says when it was used and why not)
    /// [default: PRUST_POR, else reduction on]
    #[arg(long)]
    pub no_por: bool,
    /// Store states as 64-bit fingerprints (hash compaction): far less
    /// memory a state, but a property that holds is then reported as "holds
    /// (probabilistic: hash compaction)" with the probability bound of a
    /// missed state (n²/2^65 for n states), not as a proof; exit status 0 as
    /// for holds. Violations stay certain (re-executed on the object)
    /// [default: PRUST_HASH_COMPACTION, else off]
    #[arg(long)]
    pub hash_compaction: bool,
    /// Bitstate hashing (supertrace) with an array of BITS bits, e.g.
    /// 1073741824 (2^30, 128 MiB): for state spaces that do not fit even
    /// as fingerprints. The breadth-first search of a safety property
    /// stores 3 bits a state; other searches use hash compaction. A
    /// property that holds is "holds (probabilistic: bitstate hashing)"
    /// with the hash factor (bits per state; best above 100) and the
    /// expected number of states missed; exit status 0 as for holds.
    /// BITS is rounded up to a power of two, at least 64 (the report
    /// states the bits used); 0 is an error; an array larger than the
    /// memory limit is inconclusive [default: PRUST_BITSTATE, else off]
    #[arg(long, value_name = "BITS", value_parser = parse_bits)]
    pub bitstate: Option<u64>,
    /// Shorten each counterexample to a shortest one (fewest actions,
    /// prefix and cycle together; then the shortest prefix) whatever it costs, within the
    /// limits [default: PRUST_SHORTEST, else when shortening visits at most
    /// 1.5× the search's states; a trace not shortened says so]
    #[arg(long)]
    pub shortest: bool,

    /// Search on N threads: safety properties (searched breadth-first) in
    /// parallel, liveness by expanding the object's states on N threads
    /// for the one-thread depth-first search; the same verdicts and
    /// counterexamples as on one, and the report says what ran; 0 means
    /// every core [default: PRUST_THREADS, else every core; in the library,
    /// an object that may hold heap data (Protocol::prefers_bytes) stays on
    /// one thread unless threads are asked for, which the strict and
    /// liberal objects of prust check do not]
    #[arg(
        long,
        value_name = "N",
        allow_negative_numbers = true,
        value_parser = clap::value_parser!(u64).range(0..=1024)
    )]
    pub threads: Option<u64>,
    /// Search only share I of N of each formula's state space, for one
    /// check split over N machines that never talk (run I = 1..N, one per
    /// machine): the property holds when every share exits 0 ("holds on
    /// share I/N", never "holds"); a violation any share finds is a whole
    /// run from the initial state (exit 1); the combined exit status is the
    /// largest. Every share must run the same prust, protocol, formulas and
    /// options; the reports' split digests must be equal. One thread a
    /// share, no partial-order reduction [default: PRUST_SHARE, else the
    /// whole check]
    // Values starting with `-` are taken as values, so that `--share -1/4`
    // is rejected as a share rather than read as an unknown option.
    #[arg(long, value_name = "I/N", value_parser = parse_share, allow_hyphen_values = true)]
    pub share: Option<engine::Share>,
    /// With --share: split at this breadth-first level instead of the first
    /// level with 32 states a share (a tuning knob: it never changes the
    /// combined verdict) [default: PRUST_SHARE_LEVEL]
    #[arg(long, value_name = "K")]
    pub share_level: Option<u64>,

    /// Search one state space spread over worker threads and processes
    /// (timely-dataflow): each product state is owned by one worker, which
    /// alone stores it. Any formula: safety properties breadth-first (a
    /// shortest counterexample), liveness by a distributed search for
    /// accepting cycles (OWCTY; fair ones under --fairness weak). Every
    /// process runs the same command with its own -p; process 0 prints the
    /// verdict and every process exits with it. The limits apply per process
    #[arg(long)]
    pub distributed: bool,
    /// With --distributed: worker threads in each process (timely's -w)
    #[arg(
        short = 'w',
        long = "workers",
        value_name = "THREADS",
        requires = "distributed",
        value_parser = clap::value_parser!(u64).range(1..=1024)
    )]
    pub workers: Option<u64>,
    /// With --distributed: how many processes take part (timely's -n)
    #[arg(
        short = 'n',
        long = "processes",
        value_name = "N",
        requires = "distributed",
        value_parser = clap::value_parser!(u64).range(1..=4096)
    )]
    pub processes: Option<u64>,
    /// With --distributed: this process's number, 0 to N-1 (timely's -p)
    #[arg(
        short = 'p',
        long = "process",
        value_name = "INDEX",
        requires = "distributed"
    )]
    pub process: Option<u64>,
    /// With --distributed: a file of the processes' addresses, `host:port`
    /// a line, process 0 first (timely's -h; here --hostfile, since -h is
    /// help) [default: localhost:PORT, PORT from --port]
    #[arg(long, value_name = "FILE", requires = "distributed")]
    pub hostfile: Option<PathBuf>,
    /// With --distributed and no --hostfile: process I listens on
    /// localhost:PORT+I [default: 2101, timely's]
    #[arg(long, value_name = "PORT", requires = "distributed")]
    pub port: Option<u16>,
}

/// `--share`: `I/N`, with a message that shows the expected form.
fn parse_share(s: &str) -> Result<engine::Share, String> {
    s.parse()
}

/// `--format` of `prust check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CheckFormat {
    /// Reports as people read them, then a summary line
    Text,
    /// JSON Lines: one object per formula
    Json,
}

/// `--bitstate`: a whole number of bits, by the rule of `PRUST_BITSTATE`
/// ([`engine::Checker::bitstate_array_bits`]).
pub(super) fn parse_bits(s: &str) -> Result<u64, String> {
    let digits: String = s.trim().chars().filter(|&c| c != '_').collect();
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("`{s}` is not a whole number of bits, such as 1073741824"))?;
    engine::Checker::bitstate_array_bits(n)?;
    Ok(n)
}

/// `--max-memory`: bytes or a size with a binary unit (`512M`, `2G`).
fn parse_memory(s: &str) -> Result<u64, String> {
    engine::parse_memory_size(s)
}

/// `--timeout` (and `PRUST_TIMEOUT` where the CLI reads it itself, in
/// `lint`): seconds by the checker's rule ([`engine::parse_timeout`]), so
/// the option and the variable take the same values; no timeout (`inf`,
/// or above 10⁹ s) is [`Duration::MAX`], which never runs out.
pub fn parse_timeout(s: &str) -> Result<Duration, String> {
    engine::parse_timeout(s).map(|t| t.unwrap_or(Duration::MAX))
}
