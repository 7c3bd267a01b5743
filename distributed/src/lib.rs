//! One state space over many processes: prust's search on
//! [timely-dataflow](https://docs.rs/timely).
//!
//! # Background
//!
//! A check that outgrows one machine's memory can be split with
//! `--share I/N` (swarm-style: N searches that never talk, each under its
//! share of one breadth-first level; their futures overlap). This crate
//! searches **one** state space instead, spread over workers in threads
//! and processes, as the distributed model checkers that handled the
//! largest industrial state spaces do (PReach, DiVinE's MPI backend,
//! distributed TLC): every product state is owned by the worker its hash
//! picks, successors are sent to their owners, and each worker stores only
//! what it owns. Timely-dataflow runs the workers (threads of a process,
//! processes on one or many machines over TCP, with a host file) and
//! exchanges the states.
//!
//! # What it decides
//!
//! Every formula, with the one-machine search's verdict, with or without
//! weak fairness:
//!
//! - Safety properties (bad prefixes, deadlocks, unfinished runs: every
//!   formula the engine decides by breadth-first reachability, see
//!   [`ProductGraph::decided_by_reachability`]), level by level, fewest
//!   actions first (a finite run's stutter steps cost none, as in the
//!   engine's shortest counterexample). A violation's counterexample is a
//!   shortest one, rebuilt from the parent references the owners hold.
//! - Any other formula (liveness) after that search, over the states it
//!   stored, by OWCTY (Černá and Pelánek; the distributed search for
//!   accepting cycles of DiVinE): repeatedly, keep only the states
//!   reachable from an edge of each acceptance set, and drop those that no
//!   kept state reaches; an accepting cycle exists exactly when states are
//!   left. The states left and their edges are then gathered on the first
//!   worker, which finds a shortest lasso among them with the engine's own
//!   search ([`engine::shortest_lasso`]), so the counterexample is as long
//!   as the one-machine check's shortest. Gathering is bounded as the
//!   engine's shortening is ([`engine::Checker::shortest`]: by default
//!   about a worker's share of the states, `shortest(true)` the state
//!   limit); past that, a lasso found inside a source component of what
//!   is left is shown, and the report says it is not a shortest one. A
//!   bad prefix met first (a formula with both kinds of violation) ends
//!   the search, and is not shown to be shortest either, unless a
//!   shortest one is asked for (`shortest(true)`): then the search goes
//!   on past bad states (without expanding them), and a shorter lasso
//!   wins over the bad prefix. Each step is a
//!   breadth-first pass that makes the stored states' successors again,
//!   so liveness costs several times the safety search's time (and a
//!   violation is found only once every state is stored, where the
//!   one-machine search may meet it at once). A liveness search keeps 8
//!   bytes a state more (its distance), OWCTY a few; finding the cycle
//!   beyond the allowance, the kept states' predecessors (12 bytes an
//!   edge), so a run that fits for safety may end inconclusive on memory
//!   there.
//! - Under weak fairness ([`engine::Fairness::Weak`]), the same, with one
//!   more acceptance set per role on the graph's edges, as in the
//!   one-machine search (see [`engine::Fairness`]): the accepting cycles
//!   OWCTY keeps, and the one shown, are weakly fair runs, and the replay
//!   checks each step's marks against the object. Safety properties are
//!   decided as without it. The roles' sets and the automaton's share the
//!   32 marks of an edge: more is the one-machine check's
//!   [`engine::Error::Fairness`].
//!
//! Every counterexample is replayed on the real object before it is
//! printed.
//!
//! States travel as bytes: the object must write itself with
//! [`Protocol::encode`] and read itself back with [`Protocol::decode`]
//! (the strict and liberal objects of `prust-protocols` do); one that does
//! not is an [`Error::NotEncodable`] naming the trait.
//!
//! # Limits
//!
//! The checker's limits apply per process: a process's workers share its
//! state limit (each stores at most its share), and the time and memory
//! limits hold in each process. Any limit reached ends the whole run
//! [inconclusive](engine::Verdict::Inconclusive), never `Holds`. A process
//! that dies ends every other one with [`Error::Lost`], naming it. One
//! that stops answering without dying (suspended) cannot be told from a
//! slow one; under a time limit the others give up
//! [`STALL_GRACE`] after it with [`Error::Stalled`].
//!
//! ```
//! use engine::{Checker, Verdict};
//! use prust_distributed::{check, Cluster};
//!
//! let outcome = check(&Cluster::threads(2), r#"G !"DEADLOCK""#, || {
//!     let spec = protocols::bundled::spec_by_name("ring-buffered:3").unwrap();
//!     Checker::new().session(spec.strict().unwrap(), Vec::new())
//! })
//! .unwrap();
//! assert!(matches!(outcome.report.verdict, Verdict::Holds));
//! ```

mod codec;
mod connect;
mod digest;
mod exchange;
mod lasso;
mod level;
mod lost;
mod message;
mod owcty;
mod pass;
mod search;
mod shortest;
mod store;

use std::fmt;
use std::time::Instant;

use engine::{CheckSession, Protocol, Report};

pub use engine::ProductGraph;
pub use exchange::STALL_GRACE;

/// Where the workers run: threads of this process, or this process as one
/// of several (timely's `-w`, `-n`, `-p` and `-h`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cluster {
    /// Worker threads in each process (`-w`).
    pub threads: usize,
    /// This process's number, from 0 (`-p`).
    pub process: usize,
    /// Every process's `host:port`, by number: the host file's lines
    /// (`-h`). One entry: this process alone.
    pub addresses: Vec<String>,
}

impl Cluster {
    /// `threads` workers in this process, and no other process.
    ///
    /// ```
    /// assert_eq!(prust_distributed::Cluster::threads(2).processes(), 1);
    /// ```
    pub fn threads(threads: usize) -> Cluster {
        Cluster {
            threads: threads.max(1),
            process: 0,
            addresses: vec!["localhost:2101".to_string()],
        }
    }

    /// Process `process` of `processes` on this machine, listening on
    /// `base_port + process` (timely's default addresses start at 2101).
    ///
    /// ```
    /// let c = prust_distributed::Cluster::local(1, 4, 1, 2101);
    /// assert_eq!(c.addresses[3], "localhost:2104");
    /// ```
    pub fn local(threads: usize, processes: usize, process: usize, base_port: u16) -> Cluster {
        Cluster {
            threads: threads.max(1),
            process,
            addresses: (0..processes.max(1))
                .map(|i| format!("localhost:{}", base_port as usize + i))
                .collect(),
        }
    }

    /// Process `process` of those named by the host file's first
    /// `processes` lines (`host:port` each).
    ///
    /// # Errors
    /// [`Error::Cluster`] for a file that cannot be read or has too few
    /// lines, naming the file.
    pub fn from_host_file(
        threads: usize,
        processes: usize,
        process: usize,
        path: &std::path::Path,
    ) -> Result<Cluster, Error> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            Error::Cluster(format!("cannot read the host file {}: {e}", path.display()))
        })?;
        let addresses: Vec<String> = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .take(processes)
            .map(String::from)
            .collect();
        if addresses.len() < processes {
            return Err(Error::Cluster(format!(
                "the host file {} names {} processes, and {processes} were asked for (one \
                 `host:port` a line)",
                path.display(),
                addresses.len()
            )));
        }
        Ok(Cluster {
            threads: threads.max(1),
            process,
            addresses,
        })
    }

    /// How many processes take part.
    pub fn processes(&self) -> usize {
        self.addresses.len()
    }

    /// Starts the workers of this process on `func`, connected to the
    /// other processes first (see `connect`).
    fn execute<T, F>(&self, func: F) -> Result<timely::communication::WorkerGuards<T>, Error>
    where
        T: Send + 'static,
        F: Fn(&mut timely::worker::Worker) -> T + Send + Sync + 'static,
    {
        if self.process >= self.processes() {
            return Err(Error::Cluster(format!(
                "process {} of {}: the number must be below the count",
                self.process,
                self.processes()
            )));
        }
        if self.processes() > 1 {
            let (builders, others) = connect::allocators(
                &self.addresses,
                self.process,
                self.threads,
                connect::CONNECT_TIMEOUT,
            )?;
            let worker = timely::WorkerConfig::default();
            return timely::execute::execute_from(builders, others, worker, func)
                .map_err(Error::Cluster);
        }
        let communication = if self.threads > 1 {
            timely::CommunicationConfig::Process(self.threads)
        } else {
            timely::CommunicationConfig::Thread
        };
        let config = timely::Config {
            communication,
            worker: timely::WorkerConfig::default(),
        };
        timely::execute(config, func).map_err(Error::Cluster)
    }
}

/// One process's part of a distributed check.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ProcessStats {
    /// The process's number.
    pub process: u32,
    /// The product states its workers own.
    pub states: u64,
    /// Bytes of states it sent to workers other than the sender (those
    /// between two of its threads included).
    pub bytes_sent: u64,
    /// Bytes of states it received from other workers.
    pub bytes_received: u64,
    /// Its peak resident memory, where the platform tells it (else 0).
    pub peak_memory: u64,
}

/// What a distributed check gives its first worker: the report, as a
/// one-machine check prints it, and each process's counts.
#[derive(Debug)]
pub struct Outcome {
    /// The verdict and statistics.
    pub report: Report,
    /// Per process, by number.
    pub processes: Vec<ProcessStats>,
}

impl fmt::Display for Outcome {
    /// The report, then a line per process.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.report)?;
        for p in &self.processes {
            write!(
                f,
                "\n  process {}: {} states owned, {} bytes of states sent, {} received",
                p.process, p.states, p.bytes_sent, p.bytes_received
            )?;
            if p.peak_memory > 0 {
                write!(f, ", peak memory {} MiB", p.peak_memory >> 20)?;
            }
        }
        Ok(())
    }
}

/// Why a distributed check gave no report.
#[derive(Debug)]
pub enum Error {
    /// The check's own error (formula, object), as a one-machine check
    /// gives it.
    Engine(engine::Error),
    /// An option this search does not take (a depth limit): why.
    Unsupported(String),
    /// The object does not write its states as bytes.
    NotEncodable {
        /// The object's type.
        object: &'static str,
    },
    /// The object's bytes name its states only in the process that wrote
    /// them ([`Protocol::bytes_are_portable`]), and the check has several.
    NotPortable {
        /// The object's type.
        object: &'static str,
    },
    /// The object's bytes do not name its states exactly.
    Codec {
        /// The object's type.
        object: &'static str,
        /// What went wrong.
        detail: String,
    },
    /// A worker's search failed (a panic in the object, a broken
    /// contract): its number and the error's text.
    Search {
        /// The worker.
        worker: u32,
        /// The error.
        message: String,
    },
    /// The processes could not be started or configured.
    Cluster(String),
    /// The check's time limit passed and a round of the search did not
    /// end: a process stopped answering without closing its connections
    /// (suspended, or far slower than the others). Which one, the
    /// exchange cannot tell; the processes still running can.
    Stalled {
        /// How long this worker waited for the round.
        waited: std::time::Duration,
    },
    /// A process stopped taking part: the one named, by number.
    Lost {
        /// The process that was lost.
        process: usize,
        /// What the connection said.
        detail: String,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Engine(e) => write!(f, "{e}"),
            Error::Unsupported(why) => write!(f, "{why}"),
            Error::NotEncodable { object } => write!(
                f,
                "{object} does not write its states as bytes: a distributed check needs \
                 Protocol::encode and Protocol::decode (the strict and liberal objects have them)"
            ),
            Error::NotPortable { object } => write!(
                f,
                "{object} writes states as bytes that only this process can read (numbers handed \
                 out as states are met; Protocol::bytes_are_portable is false): a check over \
                 several processes cannot send its states; run the processes' workers as \
                 threads of one (-w N, -n 1), or use an object whose bytes name the state (the \
                 strict runtime compiled before the search, or the liberal one)"
            ),
            Error::Codec { object, detail } => write!(
                f,
                "{object}: {detail} (Protocol::encode and Protocol::decode must name every state \
                 exactly)"
            ),
            Error::Search { worker, message } => write!(f, "worker {worker}: {message}"),
            Error::Cluster(why) => write!(f, "{why}"),
            Error::Stalled { waited } => write!(
                f,
                "the time limit passed and a round of the distributed search was still open \
                 after {:.0} s: a process stopped answering without closing its connections \
                 (suspended, or far slower than the others); the check is abandoned, with no \
                 verdict",
                waited.as_secs_f64()
            ),
            Error::Lost { process, detail } => write!(
                f,
                "process {process} stopped taking part in the distributed check ({detail}); \
                 the check is abandoned"
            ),
        }
    }
}

impl std::error::Error for Error {}

impl From<engine::Error> for Error {
    fn from(e: engine::Error) -> Self {
        Error::Engine(e)
    }
}

/// Checks `formula` on the object of the session that `session` makes,
/// with the workers of `cluster`: every worker (in every process) calls
/// `session` once and searches its share of the one state space. Every
/// process gets the outcome (the verdict is decided by all alike, and a
/// violation is replayed by each); a command line prints it in process 0.
///
/// Every process must be started with the same formula, object and
/// thread count. The sessions that `session` makes in one process must be
/// on clones of one object where its bytes are not
/// [portable](Protocol::bytes_are_portable) (an object built on the fly
/// numbers its states in the graph its clones share): objects built apart
/// would number them apart.
///
/// # Errors
/// As the one-machine check for the formula and the object; and see
/// [`Error`].
pub fn check<P, F>(cluster: &Cluster, formula: &str, session: F) -> Result<Outcome, Error>
where
    P: Protocol,
    F: Fn() -> Result<CheckSession<P>, engine::Error> + Send + 'static,
{
    lost::watch();
    lost::reset();
    let formula = formula.to_string();
    let process = cluster.process as u32;
    let threads = cluster.threads as u64;
    let processes = cluster.processes();
    // Each worker's result comes back on a channel rather than through
    // timely's guards: joining those joins the connection threads too,
    // which wait for live peers and panic when a connection broke.
    let (results, ended) = std::sync::mpsc::channel();
    // Called once by each worker thread: `Send` is all it needs to be (a
    // session's messages are not `Sync`), and the lock is taken once each.
    let session = std::sync::Mutex::new(session);
    let guards = cluster.execute(move |worker| {
        let make = || {
            (session
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner))()
        };
        // A panic outside the object's guarded calls (the session maker,
        // the object's Clone or Eq) ends this worker with an error; its
        // rounds are dropped, so the others see it gone, not wait for it.
        let index = worker.index() as u32;
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            run_worker(worker, &formula, &make, process, threads, processes)
        }))
        .unwrap_or_else(|panic| {
            // A worker's step panics once a connection broke: the loss
            // is the error.
            Err(lost::lost().unwrap_or_else(|| Error::Search {
                worker: index,
                message: format!("panicked: {}", engine::panic_message(panic.as_ref())),
            }))
        });
        // The receiver waits for every worker: a send fails only once it
        // has given up, and then nobody wants the result.
        let _ = results.send(r);
    })?;
    let mut first = None;
    for _ in 0..threads {
        let r = match ended.recv() {
            Ok(r) => r,
            // A worker thread panicked (before it could send).
            Err(_) => Err(lost::lost().unwrap_or_else(|| {
                Error::Cluster("a worker stopped without a result".to_string())
            })),
        };
        match r {
            Ok(Some(o)) => first = Some(o),
            Ok(None) => {}
            Err(e) => {
                if matches!(e, Error::Lost { .. } | Error::Stalled { .. }) {
                    // A broken connection's threads panicked, a stalled
                    // one's wait for their peer: neither can be joined
                    // (see above), so they are left to end with the
                    // process.
                    std::mem::forget(guards);
                } else {
                    // Joined: the connections shut down cleanly, after
                    // the messages this process sent (the peers must
                    // still get them, to see the same error and not a
                    // lost process).
                    drop(guards);
                }
                return Err(e);
            }
        }
    }
    drop(guards);
    first.ok_or_else(|| Error::Cluster("no worker of this process reported".to_string()))
}

/// One worker's whole part: its session, its product graph, the search.
fn run_worker<P, F>(
    worker: &mut timely::worker::Worker,
    formula: &str,
    session: &F,
    process: u32,
    threads: u64,
    processes: usize,
) -> Result<Option<Outcome>, Error>
where
    P: Protocol,
    F: Fn() -> Result<CheckSession<P>, engine::Error>,
{
    let mut rounds = exchange::Rounds::new(worker.clone());
    let first = rounds.index().is_multiple_of(threads as usize);
    let started = Instant::now();
    let mut s = session()?;
    let mut graph = s.product_graph(formula)?;
    if graph.is_trivially_true() {
        let report = graph.holds(engine::Stats::default());
        return Ok(first.then(|| Outcome {
            report,
            processes: Vec::new(),
        }));
    }
    let (max_states, timeout, max_memory) = graph.limits();
    if graph.max_depth() != u64::MAX {
        return Err(Error::Unsupported(
            "the distributed search has no depth limit (PRUST_MAX_DEPTH): check without it"
                .to_string(),
        ));
    }
    rounds.set_deadline(timeout.map(|t| started + t));
    let limits = search::WorkerLimits {
        // A worker numbers its states in 32 bits.
        max_states: (max_states / threads).clamp(1, u64::from(u32::MAX) - 1),
        deadline: timeout.map(|t| (started + t, t)),
        max_memory,
    };
    if processes > 1 && !graph.initial().0.bytes_are_portable() {
        return Err(Error::NotPortable {
            object: std::any::type_name::<P>(),
        });
    }
    let ended = search::run(&mut rounds, &mut graph, &limits, process, first)?;
    Ok(ended.map(|(report, processes)| Outcome { report, processes }))
}
