//! One worker's part of the level-synchronous breadth-first search.
//!
//! Every product state is owned by the worker its hash picks. A level is
//! two rounds: in the first, each worker expands the states of the level
//! it owns (decoding each from its bytes) and sends every successor, as
//! bytes, to its owner, which stores those it did not have: they are the
//! next level. In the second, every worker tells every other one what it
//! found (new states, a bad state, a limit, an error), so that all take
//! the same decision: go on, or stop with a verdict. The levels are in the
//! order of the engine's shortest counterexample, fewest actions first
//! ([`crate::level`]). A bad state's path is
//! then rebuilt a step a round, each step told by the owner of the state
//! it reaches, and the first worker replays it on the real object.

use std::time::{Duration, Instant};

use engine::{Limit, ProductEdge, ProductGraph, Protocol, Report, Shortness, Stats};

use crate::codec::{codec_error, decoded, encoded};
use crate::digest;
use crate::exchange::Rounds;
use crate::lasso::{self, Lasso};
use crate::level::Dist;
use crate::level::{Settle, BATCH_BYTES};
use crate::message::{Batch, Counts, Item, LimitHit, Msg, StateRef, Step, Summary};
use crate::owcty;
use crate::pass::{self, Stopped, Walker};
use crate::shortest::{self, Shortened};
use crate::store::Owned;
use crate::{Error, ProcessStats};

/// The successors whose `decode(encode(x)) == x` is checked: while the
/// whole search holds fewer states than this (as the engine's parallel
/// search does: enough to catch a codec wrong everywhere).
const VERIFY_STATES: u64 = 4096;

/// The allowance of the shortest lasso's search, at least (see
/// [`crate::shortest`]): a few milliseconds of work is worth a shortest
/// counterexample, as in the engine.
const SHORTEST_FLOOR: u64 = 4096;

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
    digest::agree(rounds, graph, &buf, process)?;
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
    let mut bad = graph.is_bad(q0).then(|| StateRef {
        worker: owner(hash, peers) as u32,
        index: 0,
    });
    let mut edges: Vec<ProductEdge<P>> = Vec::new();
    let bad_states: Vec<bool> = (0..graph.automaton_states() as u32)
        .map(|q| graph.is_bad(q))
        .collect();
    let mut settle = Settle::new(
        me as u32,
        limits,
        &bad_states,
        graph.stutter_letters(),
        !graph.decided_by_reachability(),
        owner(hash, peers) == me,
    );
    // Asked for a shortest counterexample of a formula with both kinds of
    // violation, the search goes on past a bad prefix (without expanding
    // bad states: their continuations are all violations) so that a
    // shorter lasso cannot hide behind it.
    let past_bad = !graph.decided_by_reachability() && graph.shortest() == Some(true);
    let mut first_bad = None;
    let verdict = loop {
        if let Some(at) = bad {
            let shortness = if graph.decided_by_reachability() {
                Shortness::Shortest
            } else {
                Shortness::NotShown(
                    "the distributed search ends at the first bad prefix, and an accepting \
                     cycle may close a shorter lasso; ask for a shortest one with --shortest \
                     (Checker::shortest(true))"
                        .to_string(),
                )
            };
            break Verdict::Bad(at, shortness);
        }
        // Expand: the level's states this worker owns.
        let mut summary = Summary {
            worker: me as u32,
            ..Summary::default()
        };
        let mut out: Vec<Batch> = vec![Batch::default(); peers];
        // The states reached are settled as their batches arrive rather
        // than at the end, so that a level's successors are not all held
        // at once.
        for (n, &i) in level.iter().enumerate() {
            if (n as u64).is_multiple_of(TICK_EVERY) {
                // A state limit noted by the batches stored so far stays.
                summary.limit = summary.limit.or_else(|| limits.reached());
                if summary.limit.is_some() {
                    break;
                }
                for msg in rounds.poll() {
                    settle.message(msg, &mut owned, &mut summary, &mut counts);
                }
            }
            let (bytes, q) = owned.get(i);
            if past_bad && bad_states[q as usize] {
                continue;
            }
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
                    settle.hand_over(rounds, to, full, &mut owned, &mut summary, &mut counts);
                }
            }
            if summary.error.is_some() {
                break;
            }
        }
        for (to, batch) in out.into_iter().enumerate() {
            if !batch.items.is_empty() {
                settle.hand_over(rounds, to, batch, &mut owned, &mut summary, &mut counts);
            }
        }
        for msg in rounds.finish()? {
            settle.message(msg, &mut owned, &mut summary, &mut counts);
        }
        settle.sum_up(&mut summary);
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
        for (_, s) in &all {
            stats.product_states += s.new_states;
            stats.transitions += s.transitions;
        }
        if let Some((w, s)) = all.iter().find(|(_, s)| s.error.is_some()) {
            break Verdict::Failed(*w, s.error.clone().unwrap_or_default());
        }
        if let Some(at) = all.iter().find_map(|(_, s)| s.bad) {
            if !past_bad {
                bad = Some(at);
                continue;
            }
            first_bad = first_bad.or(Some(at));
        }
        if let Some(hit) = all.iter().find_map(|(_, s)| s.limit) {
            break match first_bad {
                // A violation is proven already: the limit only cut the
                // search for a shorter one.
                Some(at) => Verdict::Bad(at, past_limit(hit)),
                None => Verdict::Limit(hit),
            };
        }
        // The level goes on while stutter steps reach new states; then
        // the next one begins (see `crate::level`).
        if all.iter().any(|(_, s)| s.new_stutter > 0) {
            level = std::mem::take(&mut settle.by_stutter);
            settle.at.1 += 1;
        } else {
            if let Some(at) = all.iter().find_map(|(_, s)| s.bad_next) {
                if !past_bad {
                    bad = Some(at);
                    continue;
                }
                first_bad = first_bad.or(Some(at));
            }
            if all.iter().all(|(_, s)| s.next_level == 0) {
                break Verdict::Holds;
            }
            level = settle.next_level();
        }
        stats.max_depth = stats.max_depth.max(u64::from(settle.at.1));
    };
    let verdict = match verdict {
        Verdict::Holds if !graph.decided_by_reachability() => {
            let allowance = match graph.shortest() {
                Some(false) => None,
                Some(true) => Some(graph.limits().0),
                // About a worker's share of the states, as the engine
                // shortens by default for a share of its search's cost.
                None => Some(
                    (stats.product_states / peers as u64)
                        .max(SHORTEST_FLOOR)
                        .min(graph.limits().0),
                ),
            };
            let dist = settle.dist.take().unwrap_or_default();
            drop(settle);
            // Bad states (stored only when the search went past them)
            // are ends, not part of a cycle.
            let open: Vec<bool> = (0..owned.len() as u32)
                .map(|i| !bad_states[owned.get(i).1 as usize])
                .collect();
            let mut w = Walker::new(rounds, graph, &owned, limits, &mut counts);
            let found = Found {
                open,
                dist: &dist,
                bad: first_bad,
            };
            cycles(&mut w, stats.product_states, found, allowance)?
        }
        v => v,
    };
    let path = match &verdict {
        Verdict::Bad(at, _) => Some(path_to(rounds, &owned, *at, stats.product_states)?),
        Verdict::Cycle(lasso, _) => {
            Some(path_to(rounds, &owned, lasso.anchor, stats.product_states)?)
        }
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
        Verdict::Bad(_, shortness) => {
            let path = path.expect("a bad state's path was rebuilt");
            graph
                .violated_as(&path, stats, shortness)
                .map_err(Error::Engine)?
        }
        Verdict::Cycle(lasso, shortness) => {
            let prefix = path.expect("a cycle's prefix was rebuilt");
            let cycle: Vec<(u32, u32, u32)> = lasso
                .cycle
                .iter()
                .map(|s| (s.letter, s.q, s.marks))
                .collect();
            graph
                .violated_lasso(&prefix, &cycle, stats, shortness)
                .map_err(Error::Engine)?
        }
    };
    Ok(Some((report, processes)))
}

/// How the search ended.
enum Verdict {
    Holds,
    Bad(StateRef, Shortness),
    Cycle(Lasso, Shortness),
    Limit(LimitHit),
    Failed(u32, String),
}

/// Why a bad prefix found on the way to a shortest violation is not shown
/// to be one: the search stopped at `hit`.
fn past_limit(hit: LimitHit) -> Shortness {
    Shortness::NotShown(format!(
        "the search went on past this bad prefix for a shorter violation and stopped at {}",
        hit.limit()
    ))
}

/// What the breadth-first search leaves to the search for accepting
/// cycles: per state of this worker, whether it may be on one (not a bad
/// state) and its distance, and the first bad state if the search went
/// past it.
struct Found<'a> {
    open: Vec<bool>,
    dist: &'a [Dist],
    bad: Option<StateRef>,
}

/// After a search that stopped at no bad state, for a formula that needs
/// one: the search for an accepting cycle among the states stored, and
/// then for a shortest lasso if `allowance` (see [`crate::shortest`]).
fn cycles<P: Protocol>(
    w: &mut Walker<'_, '_, P>,
    bound: u64,
    found: Found<'_>,
    allowance: Option<u64>,
) -> Result<Verdict, Error> {
    let stopped = |stop| match (stop, found.bad) {
        (Stopped::Limit(hit), Some(at)) => Verdict::Bad(at, past_limit(hit)),
        (Stopped::Limit(hit), None) => Verdict::Limit(hit),
        (Stopped::Failed(worker, message), _) => Verdict::Failed(worker, message),
    };
    let (kept, total) = match owcty::fixpoint(w, found.open)? {
        Ok((_, 0)) => {
            return Ok(match found.bad {
                // The search went on past it for this: no cycle is
                // shorter.
                Some(at) => Verdict::Bad(at, Shortness::Shortest),
                None => Verdict::Holds,
            });
        }
        Ok(left) => left,
        Err(stop) => return Ok(stopped(stop)),
    };
    let shortness = match allowance {
        None => Shortness::Unknown,
        Some(allowance) => {
            match shortest::find(w, &kept, total, found.dist, found.bad, allowance)? {
                Ok(Shortened::Found(lasso)) if lasso.cycle.is_empty() => {
                    return Ok(Verdict::Bad(lasso.anchor, Shortness::Shortest))
                }
                Ok(Shortened::Found(lasso)) => {
                    return Ok(Verdict::Cycle(lasso, Shortness::Shortest))
                }
                Ok(Shortened::Skipped(why)) => Shortness::NotShown(why),
                Err(stop) => return Ok(stopped(stop)),
            }
        }
    };
    if let Some(at) = found.bad {
        return Ok(Verdict::Bad(at, shortness));
    }
    Ok(match lasso::find(w, &kept, bound)? {
        Ok(lasso) => Verdict::Cycle(lasso, shortness),
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
pub(crate) fn batch_size(b: &Batch) -> u64 {
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
