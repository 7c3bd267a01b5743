//! One worker's part of the level-synchronous breadth-first search.
//!
//! Every product state is owned by the worker its hash picks. A level is
//! two rounds: in the first, each worker expands the states of the level
//! it owns (decoding each from its bytes) and sends every successor, as
//! bytes, to its owner, which stores those it did not have: they are the
//! next level. In the second, every worker tells every other one what it
//! found (new states, a bad state, a limit, an error), so that all take
//! the same decision: go on, or stop with a verdict. A bad state's path is
//! then rebuilt a step a round, each step told by the owner of the state
//! it reaches, and the first worker replays it on the real object.

use std::time::{Duration, Instant};

use engine::{Limit, ProductEdge, ProductGraph, Protocol, Report, Shortness, Stats};

use crate::codec::{codec_error, decoded, encoded};
use crate::exchange::Rounds;
use crate::lasso::{self, Lasso};
use crate::message::{Batch, Counts, Item, LimitHit, Msg, StateRef, Step, Summary};
use crate::owcty;
use crate::pass::{self, Stopped, Walker};
use crate::store::Owned;
use crate::{Error, ProcessStats};

/// The successors whose `decode(encode(x)) == x` is checked: while the
/// whole search holds fewer states than this (as the engine's parallel
/// search does: enough to catch a codec wrong everywhere).
const VERIFY_STATES: u64 = 4096;

/// How many states a worker expands between two looks at the clock and
/// the memory.
const TICK_EVERY: u64 = 64;

/// The hash of a product state: the same in every process (a fixed seed).
pub(crate) fn state_hash(bytes: &[u8], q: u32) -> u64 {
    use std::hash::BuildHasher;
    foldhash::fast::FixedState::with_seed(0x7072_7573_7464_6973).hash_one((bytes, q))
}

/// The worker that owns a state of hash `hash`, of `peers`. Mixed apart
/// from the table's use of the hash, so that one worker's states still
/// spread over its table.
pub(crate) fn owner(hash: u64, peers: usize) -> usize {
    ((hash.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) % peers as u64) as usize
}

/// The limits of one worker: its share of its process's state limit, the
/// deadline and the process's memory limit.
pub(crate) struct WorkerLimits {
    pub max_states: u64,
    pub deadline: Option<(Instant, Duration)>,
    pub max_memory: u64,
}

/// What a worker's search ends with: on the first worker of each process,
/// the report and the processes' counts (every process knows the verdict,
/// and replays a violation itself); `None` on the others.
pub(crate) type Ended = Result<Option<(Report, Vec<ProcessStats>)>, Error>;

/// Runs the search on one worker; `reports` on the first worker of each
/// process. Every worker must call it with the same formula and object,
/// and the same `threads` per process.
pub(crate) fn run<P: Protocol>(
    rounds: &mut Rounds,
    graph: &mut ProductGraph<'_, P>,
    limits: &WorkerLimits,
    process: u32,
    reports: bool,
) -> Ended {
    let started = Instant::now();
    let me = rounds.index();
    let peers = rounds.peers();
    let (template, q0) = graph.initial();
    let mut buf = Vec::new();
    if !encoded(&template, &mut buf) {
        return Err(Error::NotEncodable {
            object: std::any::type_name::<P>(),
        });
    }
    if decoded(&template, &buf).as_ref() != Some(&template) {
        return Err(Error::Codec {
            object: std::any::type_name::<P>(),
            detail: "decode(encode(initial)) is not the initial object".to_string(),
        });
    }
    agree(rounds, graph, &buf, process)?;
    let mut owned = Owned::default();
    let mut level: Vec<u32> = Vec::new();
    let hash = state_hash(&buf, q0);
    if owner(hash, peers) == me {
        level.extend(owned.insert(&buf, q0, hash, u32::MAX, None));
    }
    let mut counts = Counts {
        process,
        ..Counts::default()
    };
    let mut stats = Stats {
        product_states: 1,
        threads: peers as u32,
        reduction: engine::ReductionStatus::Off(
            "not used by the distributed search, which stores every state".to_string(),
        ),
        ..Stats::default()
    };
    let mut depth = 0u64;
    let mut bad = graph.is_bad(q0).then(|| StateRef {
        worker: owner(hash, peers) as u32,
        index: 0,
    });
    let mut edges: Vec<ProductEdge<P>> = Vec::new();
    let bad_states: Vec<bool> = (0..graph.automaton_states() as u32)
        .map(|q| graph.is_bad(q))
        .collect();
    let verdict = loop {
        if let Some(at) = bad {
            break Verdict::Bad(at);
        }
        // Expand: the level's states this worker owns.
        let mut summary = Summary {
            worker: me as u32,
            ..Summary::default()
        };
        let mut out: Vec<Batch> = vec![Batch::default(); peers];
        // The next level: the states stored for the first time in this
        // round, settled as their batches arrive rather than at the end,
        // so that a level's successors are not all held at once.
        let mut next: Vec<u32> = Vec::new();
        let mut settle = Settle {
            me: me as u32,
            limits,
            bad: &bad_states,
        };
        for (n, &i) in level.iter().enumerate() {
            if (n as u64).is_multiple_of(TICK_EVERY) {
                // A state limit noted by the batches stored so far stays.
                summary.limit = summary.limit.or_else(|| limits.reached());
                if summary.limit.is_some() {
                    break;
                }
                for msg in rounds.poll() {
                    settle.message(msg, &mut owned, &mut next, &mut summary, &mut counts);
                }
            }
            let (bytes, q) = owned.get(i);
            let Some(obj) = decoded(&template, bytes) else {
                summary.error = Some(codec_error::<P>("decode gave no object for a state"));
                break;
            };
            if let Err(e) = graph.successors(&obj, q, &mut edges) {
                summary.error = Some(e.to_string());
                break;
            }
            for e in edges.drain(..) {
                buf.clear();
                if !encoded(&e.object, &mut buf) {
                    summary.error = Some(format!(
                        "a state of {} cannot be written as bytes (Protocol::encode returned \
                         false for it), and a distributed check sends every state as bytes",
                        std::any::type_name::<P>()
                    ));
                    break;
                }
                if stats.product_states < VERIFY_STATES
                    && decoded(&template, &buf).as_ref() != Some(&e.object)
                {
                    summary.error = Some(codec_error::<P>(
                        "decode(encode(x)) is not x for a successor",
                    ));
                    break;
                }
                summary.transitions += 1;
                let hash = state_hash(&buf, e.state);
                let to = owner(hash, peers);
                let batch = &mut out[to];
                batch.bytes.extend_from_slice(&buf);
                batch.items.push(Item {
                    end: batch.bytes.len() as u32,
                    q: e.state,
                    letter: e.letter,
                    parent: StateRef {
                        worker: me as u32,
                        index: i,
                    },
                });
                if batch_size(batch) >= BATCH_BYTES {
                    let full = std::mem::take(batch);
                    settle.hand_over(
                        rounds,
                        to,
                        full,
                        &mut owned,
                        &mut next,
                        &mut summary,
                        &mut counts,
                    );
                }
            }
            if summary.error.is_some() {
                break;
            }
        }
        for (to, batch) in out.into_iter().enumerate() {
            if !batch.items.is_empty() {
                settle.hand_over(
                    rounds,
                    to,
                    batch,
                    &mut owned,
                    &mut next,
                    &mut summary,
                    &mut counts,
                );
            }
        }
        for msg in rounds.finish()? {
            settle.message(msg, &mut owned, &mut next, &mut summary, &mut counts);
        }
        level = next;
        if summary.limit.is_none() && summary.error.is_none() {
            summary.limit = limits.reached();
        }
        // Decide, all alike.
        rounds.broadcast(Msg::Summary(summary));
        let mut all: Vec<(u32, Summary)> = Vec::new();
        for msg in rounds.finish()? {
            if let Msg::Summary(s) = msg {
                all.push((s.worker, s));
            }
        }
        all.sort_by_key(|(w, _)| *w);
        if all.len() != peers {
            // Every worker speaks once a round: a summary missing or
            // doubled is a fault of the exchange, and no verdict may rest
            // on it.
            return Err(Error::Search {
                worker: me as u32,
                message: format!(
                    "{} summaries of a level arrived from {peers} workers",
                    all.len()
                ),
            });
        }
        depth += 1;
        for (_, s) in &all {
            stats.product_states += s.new_states;
            stats.transitions += s.transitions;
            if s.new_states > 0 {
                stats.max_depth = depth;
            }
        }
        if let Some((w, s)) = all.iter().find(|(_, s)| s.error.is_some()) {
            break Verdict::Failed(*w, s.error.clone().unwrap_or_default());
        }
        if let Some(at) = all.iter().find_map(|(_, s)| s.bad) {
            bad = Some(at);
            continue;
        }
        if let Some(hit) = all.iter().find_map(|(_, s)| s.limit) {
            break Verdict::Limit(hit);
        }
        if all.iter().all(|(_, s)| s.new_states == 0) {
            break Verdict::Holds;
        }
    };
    let verdict = match verdict {
        Verdict::Holds if !graph.decided_by_reachability() => {
            let mut w = Walker::new(rounds, graph, &owned, limits, &mut counts);
            cycles(&mut w, stats.product_states)?
        }
        v => v,
    };
    let path = match &verdict {
        Verdict::Bad(at) => Some(path_to(rounds, &owned, *at, stats.product_states)?),
        Verdict::Cycle(lasso) => Some(path_to(rounds, &owned, lasso.anchor, stats.product_states)?),
        _ => None,
    };
    counts.owned = owned.len();
    counts.peak_memory = engine::peak_resident_bytes().unwrap_or(0);
    rounds.broadcast(Msg::Counts(counts));
    let received = rounds.finish()?;
    if !reports {
        return Ok(None);
    }
    let processes = per_process(received);
    stats.protocol_states = stats.product_states;
    stats.time = started.elapsed();
    let report = match verdict {
        Verdict::Holds if graph.decided_by_reachability() => graph.holds(stats),
        Verdict::Holds => graph.holds_without_accepting_cycle(stats),
        Verdict::Limit(hit) => {
            let explored = stats.product_states;
            graph.inconclusive(hit.limit(), explored, stats)
        }
        Verdict::Failed(worker, message) => return Err(Error::Search { worker, message }),
        Verdict::Bad(_) => {
            let path = path.expect("a bad state's path was rebuilt");
            graph.violated(&path, stats).map_err(Error::Engine)?
        }
        Verdict::Cycle(lasso) => {
            let prefix = path.expect("a cycle's prefix was rebuilt");
            let cycle: Vec<(u32, u32, u32)> = lasso
                .cycle
                .iter()
                .map(|s| (s.letter, s.q, s.marks))
                .collect();
            let shortness = Shortness::NotShown(
                "the distributed search shows the accepting cycle it found, not a shortest \
                 one; check on one machine for the shortest"
                    .to_string(),
            );
            graph
                .violated_lasso(&prefix, &cycle, stats, shortness)
                .map_err(Error::Engine)?
        }
    };
    Ok(Some((report, processes)))
}

/// Checks that every worker checks the same formula on the same object:
/// processes started with other arguments (or another prust) would
/// search different products under one name.
fn agree<P: Protocol>(
    rounds: &mut Rounds,
    graph: &ProductGraph<'_, P>,
    initial: &[u8],
    process: u32,
) -> Result<(), Error> {
    use std::hash::BuildHasher;
    let (object, q0) = graph.initial();
    let what = (
        env!("CARGO_PKG_VERSION"),
        std::any::type_name::<P>(),
        graph.formula(),
        object.roles(),
        object.type_names(),
        initial,
        q0,
        graph.automaton_states(),
        rounds.peers(),
    );
    let digest = foldhash::fast::FixedState::with_seed(1).hash_one(&what);
    rounds.broadcast(Msg::Digest { process, digest });
    let mut others = Vec::new();
    for msg in rounds.finish()? {
        if let Msg::Digest { process, digest } = msg {
            others.push((process, digest));
        }
    }
    let mut differ: Vec<u32> = others
        .iter()
        .filter(|(_, d)| *d != digest)
        .map(|(p, _)| *p)
        .collect();
    differ.sort_unstable();
    differ.dedup();
    if others.len() != rounds.peers() {
        // A worker that failed before the search (its session, its
        // formula) said nothing: its own error is its process's.
        return Err(Error::Search {
            worker: rounds.index() as u32,
            message: format!(
                "{} of {} workers started the search; the others failed before it (their \
                 processes say why)",
                others.len(),
                rounds.peers()
            ),
        });
    }
    match differ.as_slice() {
        [] => Ok(()),
        ps => Err(Error::Cluster(format!(
            "process {process} and process{} {} do not check the same formula on the same object \
             (their formula, object, initial state or prust differ): start every process with \
             the same arguments",
            if ps.len() > 1 { "es" } else { "" },
            ps.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
        ))),
    }
}

/// How big a batch grows before it is sent, during the expansion: large
/// enough that a batch's costs (a message, a serialisation) are spread
/// over thousands of states, small enough that a level's successors are
/// not all held by their maker.
pub(crate) const BATCH_BYTES: u64 = 64 << 10;

/// Stores the successors of a level as they come, with what the level's
/// summary needs of them.
struct Settle<'a> {
    me: u32,
    limits: &'a WorkerLimits,
    /// Per automaton state: whether reaching it violates the formula.
    bad: &'a [bool],
}

impl Settle<'_> {
    /// A batch for worker `to`: stored here at once if `to` is this
    /// worker, else sent.
    #[allow(clippy::too_many_arguments)]
    fn hand_over(
        &mut self,
        rounds: &mut Rounds,
        to: usize,
        batch: Batch,
        owned: &mut Owned,
        next: &mut Vec<u32>,
        summary: &mut Summary,
        counts: &mut Counts,
    ) {
        if to == self.me as usize {
            self.store(&batch, owned, next, summary);
        } else {
            counts.bytes_sent += batch_size(&batch);
            rounds.send(to, Msg::States(batch));
        }
    }

    /// A message of the round: a batch is stored.
    fn message(
        &mut self,
        msg: Msg,
        owned: &mut Owned,
        next: &mut Vec<u32>,
        summary: &mut Summary,
        counts: &mut Counts,
    ) {
        if let Msg::States(batch) = msg {
            counts.bytes_received += batch_size(&batch);
            self.store(&batch, owned, next, summary);
        }
    }

    /// Stores the batch's states that are new (each the next level's),
    /// notes the first bad one, and the state limit when one would pass
    /// it.
    fn store(
        &mut self,
        batch: &Batch,
        owned: &mut Owned,
        next: &mut Vec<u32>,
        summary: &mut Summary,
    ) {
        let mut start = 0;
        for item in &batch.items {
            let bytes = &batch.bytes[start..item.end as usize];
            start = item.end as usize;
            // Hashed again rather than sent: 8 bytes less a successor in
            // flight, where a level's successors are most of a process's
            // memory beyond its own states.
            let hash = state_hash(bytes, item.q);
            if owned.len() >= self.limits.max_states {
                // Full: a state not stored yet is one too many.
                if !owned.contains(bytes, item.q, hash) {
                    summary.limit = Some(LimitHit::States(self.limits.max_states));
                }
                continue;
            }
            let parent = Some(item.parent);
            if let Some(i) = owned.insert(bytes, item.q, hash, item.letter, parent) {
                next.push(i);
                summary.new_states += 1;
                if summary.bad.is_none() && self.bad[item.q as usize] {
                    summary.bad = Some(StateRef {
                        worker: self.me,
                        index: i,
                    });
                }
            }
        }
    }
}

/// How the search ended.
enum Verdict {
    Holds,
    Bad(StateRef),
    Cycle(Lasso),
    Limit(LimitHit),
    Failed(u32, String),
}

/// After a search that met no bad state, for a formula that needs one:
/// the search for an accepting cycle among the states stored.
fn cycles<P: Protocol>(w: &mut Walker<'_, '_, P>, bound: u64) -> Result<Verdict, Error> {
    let stopped = |stop| match stop {
        Stopped::Limit(hit) => Verdict::Limit(hit),
        Stopped::Failed(worker, message) => Verdict::Failed(worker, message),
    };
    let kept = match owcty::fixpoint(w)? {
        Ok((_, 0)) => return Ok(Verdict::Holds),
        Ok((kept, _)) => kept,
        Err(stop) => return Ok(stopped(stop)),
    };
    Ok(match lasso::find(w, &kept, bound)? {
        Ok(lasso) => Verdict::Cycle(lasso),
        Err(stop) => stopped(stop),
    })
}

/// The path from the initial state to `to`, a step a round: the owner of
/// the state reached tells every worker the step and the state before it.
fn path_to(
    rounds: &mut Rounds,
    owned: &Owned,
    to: StateRef,
    bound: u64,
) -> Result<Vec<(u32, u32)>, Error> {
    let steps = pass::trace(rounds, to, bound, |i| {
        let (letter, q, parent) = owned.reached_by(i);
        Step {
            letter,
            q,
            marks: 0,
            parent,
        }
    })?;
    Ok(steps.iter().map(|s| (s.letter, s.q)).collect())
}

/// The workers' counts, summed per process.
fn per_process(received: Vec<Msg>) -> Vec<ProcessStats> {
    let mut out: Vec<ProcessStats> = Vec::new();
    for msg in received {
        let Msg::Counts(c) = msg else { continue };
        let i = c.process as usize;
        if out.len() <= i {
            out.resize_with(i + 1, ProcessStats::default);
        }
        let p = &mut out[i];
        p.process = c.process;
        p.states += c.owned;
        p.bytes_sent += c.bytes_sent;
        p.bytes_received += c.bytes_received;
        p.peak_memory = p.peak_memory.max(c.peak_memory);
    }
    out
}

/// The bytes a batch takes on the wire, about: its states' bytes and
/// their items.
fn batch_size(b: &Batch) -> u64 {
    (b.bytes.len() + b.items.len() * std::mem::size_of::<Item>()) as u64
}

impl WorkerLimits {
    /// The time or memory limit, if reached now (the state limit is
    /// counted as states are stored).
    pub(crate) fn reached(&self) -> Option<LimitHit> {
        if let Some((at, t)) = self.deadline {
            if Instant::now() >= at {
                return Some(LimitHit::TimeMillis(t.as_millis() as u64));
            }
        }
        if self.max_memory != u64::MAX
            && engine::resident_bytes().is_some_and(|r| r > self.max_memory)
        {
            return Some(LimitHit::Memory(self.max_memory));
        }
        None
    }
}

impl LimitHit {
    fn limit(self) -> Limit {
        match self {
            LimitHit::States(n) => Limit::States(n),
            LimitHit::TimeMillis(ms) => Limit::Time(Duration::from_millis(ms)),
            LimitHit::Memory(b) => Limit::Memory(b),
        }
    }
}
