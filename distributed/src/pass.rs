//! The two moves of the search for accepting cycles, over the states the
//! breadth-first search stored: *spread* (the workers expand some of their
//! states again and every edge goes to the owner of its target, which
//! looks the target up) and *tally* (every worker tells every other one a
//! count, a proposed state and what stops it, so that all take the same
//! decision).
//!
//! The edges are made again rather than kept from the first search: a
//! pass costs the successors' time once more, and the memory stays what
//! the states take.

use std::collections::BTreeMap;

use engine::{ProductEdge, ProductGraph, Protocol};

use crate::codec::{decoded, encoded};
use crate::exchange::Rounds;
use crate::level::BATCH_BYTES;
use crate::message::{Counts, Edge, EdgeBatch, Msg, Problem, StateRef, Step, Tally};
use crate::search::{owner, state_hash, WorkerLimits};
use crate::store::Owned;
use crate::Error;

/// How many states a worker expands between two looks at the clock, the
/// memory and the messages that arrived.
const TICK_EVERY: usize = 64;

/// An edge that arrived at the owner of its target: the target (this
/// worker's number for it) and the edge.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Arrival {
    pub target: u32,
    pub letter: u32,
    pub q: u32,
    pub marks: u32,
    pub from: StateRef,
}

/// What every worker agreed on in a tally.
pub(crate) struct Agreed {
    /// The workers' counts, summed.
    pub sum: u64,
    /// The state proposed with the largest key (the first worker's among
    /// equal keys).
    pub pick: Option<StateRef>,
}

/// Why the search for accepting cycles stopped without a verdict: a limit
/// (the check is inconclusive), or a worker's error.
pub(crate) enum Stopped {
    Limit(crate::message::LimitHit),
    Failed(u32, String),
}

/// One worker's view of the stored product graph.
pub(crate) struct Walker<'a, 'g, P> {
    pub rounds: &'a mut Rounds,
    pub graph: &'a mut ProductGraph<'g, P>,
    pub owned: &'a Owned,
    pub limits: &'a WorkerLimits,
    pub counts: &'a mut Counts,
    pub template: P,
    edges: Vec<ProductEdge<P>>,
    buf: Vec<u8>,
}

impl<'a, 'g, P: Protocol> Walker<'a, 'g, P> {
    pub(crate) fn new(
        rounds: &'a mut Rounds,
        graph: &'a mut ProductGraph<'g, P>,
        owned: &'a Owned,
        limits: &'a WorkerLimits,
        counts: &'a mut Counts,
    ) -> Self {
        let template = graph.initial().0;
        Walker {
            rounds,
            graph,
            owned,
            limits,
            counts,
            template,
            edges: Vec::new(),
            buf: Vec::new(),
        }
    }

    /// This worker's number.
    pub(crate) fn me(&self) -> u32 {
        self.rounds.index() as u32
    }

    /// How many states this worker owns.
    pub(crate) fn len(&self) -> usize {
        self.owned.len() as usize
    }

    /// One round: expands each state of `from` (this worker's numbers),
    /// sends each edge whose marks `keep` accepts to its target's owner,
    /// and calls `arrive` with every edge that comes here (from any
    /// worker, this one included). What stopped this worker, if anything,
    /// is returned for the next tally: the round is ended in any case, as
    /// every worker must end it.
    ///
    /// # Errors
    /// A lost process.
    pub(crate) fn spread(
        &mut self,
        from: &[u32],
        keep: impl Fn(u32) -> bool,
        mut arrive: impl FnMut(Arrival),
    ) -> Result<Option<Problem>, Error> {
        let me = self.me();
        let peers = self.rounds.peers();
        let mut out: Vec<EdgeBatch> = vec![EdgeBatch::default(); peers];
        let mut problem = None;
        for (n, &i) in from.iter().enumerate() {
            if n % TICK_EVERY == 0 {
                if let Some(hit) = self.limits.reached() {
                    // An error noted already (by an edge that arrived)
                    // stays: it comes before a limit.
                    problem.get_or_insert(Problem::Limit(hit));
                    break;
                }
                for msg in self.rounds.poll() {
                    self.take(msg, &mut arrive, &mut problem);
                }
            }
            let (bytes, q) = self.owned.get(i);
            let Some(obj) = decoded(&self.template, bytes) else {
                problem = Some(Problem::Error(format!(
                    "decode gave no object for a stored state of {}",
                    std::any::type_name::<P>()
                )));
                break;
            };
            if let Err(e) = self.graph.successors(&obj, q, &mut self.edges) {
                problem = Some(Problem::Error(e.to_string()));
                break;
            }
            let mut edges = std::mem::take(&mut self.edges);
            for e in edges.drain(..) {
                if !keep(e.marks) {
                    continue;
                }
                self.buf.clear();
                if !encoded(&e.object, &mut self.buf) {
                    problem = Some(Problem::Error(format!(
                        "a state of {} cannot be written as bytes",
                        std::any::type_name::<P>()
                    )));
                    break;
                }
                let to = owner(state_hash(&self.buf, e.state), peers);
                let batch = &mut out[to];
                batch.bytes.extend_from_slice(&self.buf);
                batch.items.push(Edge {
                    end: batch.bytes.len() as u32,
                    q: e.state,
                    letter: e.letter,
                    marks: e.marks,
                    from: StateRef {
                        worker: me,
                        index: i,
                    },
                });
                if batch_size(batch) >= BATCH_BYTES {
                    let full = std::mem::take(batch);
                    self.hand_over(to, full, &mut arrive, &mut problem);
                }
            }
            self.edges = edges;
            if problem.is_some() {
                break;
            }
        }
        for (to, batch) in out.into_iter().enumerate() {
            if !batch.items.is_empty() {
                self.hand_over(to, batch, &mut arrive, &mut problem);
            }
        }
        for msg in self.rounds.finish()? {
            self.take(msg, &mut arrive, &mut problem);
        }
        Ok(problem)
    }

    /// Rounds until no worker has a state left in `frontier`: a tally of
    /// its size (with `problem`, what stopped the round before), then a
    /// spread of it along every edge, `arrive` taking each edge that comes
    /// here and pushing the next frontier. The breadth-first passes of
    /// OWCTY and of the lasso's component.
    ///
    /// # Errors
    /// A lost process.
    pub(crate) fn flood(
        &mut self,
        frontier: &mut Vec<u32>,
        mut problem: Option<Problem>,
        mut arrive: impl FnMut(Arrival, &mut Vec<u32>),
    ) -> Result<Result<(), Stopped>, Error> {
        loop {
            match self.tally(frontier.len() as u64, None, problem.take())? {
                Err(stop) => return Ok(Err(stop)),
                Ok(a) if a.sum == 0 => return Ok(Ok(())),
                Ok(_) => {}
            }
            let level = std::mem::take(frontier);
            problem = self.spread(&level, |_| true, |a| arrive(a, frontier))?;
        }
    }

    fn hand_over(
        &mut self,
        to: usize,
        batch: EdgeBatch,
        arrive: &mut impl FnMut(Arrival),
        problem: &mut Option<Problem>,
    ) {
        if to == self.me() as usize {
            self.arrived(&batch, arrive, problem);
        } else {
            self.counts.bytes_sent += batch_size(&batch);
            self.rounds.send(to, Msg::Edges(batch));
        }
    }

    fn take(&mut self, msg: Msg, arrive: &mut impl FnMut(Arrival), problem: &mut Option<Problem>) {
        if let Msg::Edges(batch) = msg {
            self.counts.bytes_received += batch_size(&batch);
            self.arrived(&batch, arrive, problem);
        }
    }

    /// Looks each edge's target up and hands it to `arrive`.
    fn arrived(
        &self,
        batch: &EdgeBatch,
        arrive: &mut impl FnMut(Arrival),
        problem: &mut Option<Problem>,
    ) {
        let mut start = 0;
        for e in &batch.items {
            let bytes = &batch.bytes[start..e.end as usize];
            start = e.end as usize;
            match self.owned.find(bytes, e.q, state_hash(bytes, e.q)) {
                Some(target) => arrive(Arrival {
                    target,
                    letter: e.letter,
                    q: e.q,
                    marks: e.marks,
                    from: e.from,
                }),
                None => {
                    // Every successor of a stored state was stored by the
                    // first search: one that is not means the object gave
                    // other successors this time.
                    problem.get_or_insert_with(|| {
                        Problem::Error(format!(
                            "a successor of a stored state was not found among the states \
                             stored: {} gives other successors than it gave before (its \
                             transitions must depend on its state alone)",
                            std::any::type_name::<P>()
                        ))
                    });
                }
            }
        }
    }

    /// One round: sends `reached` (states of other workers, and of this
    /// one, reached backwards) to their owners, and returns those of this
    /// worker that any worker reached.
    ///
    /// # Errors
    /// A lost process.
    pub(crate) fn reach_back(&mut self, reached: &[StateRef]) -> Result<Vec<u32>, Error> {
        let me = self.me();
        let mut out: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
        let mut here = Vec::new();
        for r in reached {
            if r.worker == me {
                here.push(r.index);
            } else {
                out.entry(r.worker).or_default().push(r.index);
            }
        }
        for (to, list) in out {
            self.counts.bytes_sent += 4 * list.len() as u64;
            self.rounds.send(to as usize, Msg::Reach(list));
        }
        for msg in self.rounds.finish()? {
            if let Msg::Reach(list) = msg {
                self.counts.bytes_received += 4 * list.len() as u64;
                here.extend(list);
            }
        }
        Ok(here)
    }

    /// One round: every worker tells its `count`, a proposed state with
    /// its key, and what stopped it (`problem`, or a time or memory limit
    /// reached now); all get the same sum and pick, or the same reason to
    /// stop (an error before a limit, the first worker's first).
    ///
    /// # Errors
    /// A lost process, or a tally missing.
    pub(crate) fn tally(
        &mut self,
        count: u64,
        pick: Option<(u64, StateRef)>,
        problem: Option<Problem>,
    ) -> Result<Result<Agreed, Stopped>, Error> {
        let me = self.me();
        let problem = problem.or_else(|| self.limits.reached().map(Problem::Limit));
        self.rounds.broadcast(Msg::Tally(Tally {
            worker: me,
            count,
            pick,
            problem,
        }));
        let mut all: Vec<Tally> = Vec::new();
        for msg in self.rounds.finish()? {
            if let Msg::Tally(t) = msg {
                all.push(t);
            }
        }
        all.sort_by_key(|t| t.worker);
        if all.len() != self.rounds.peers() {
            return Err(crate::lost::lost().unwrap_or(Error::Search {
                worker: me,
                message: format!(
                    "{} tallies arrived from {} workers",
                    all.len(),
                    self.rounds.peers()
                ),
            }));
        }
        let failed = all.iter().find_map(|t| match &t.problem {
            Some(Problem::Error(e)) => Some(Stopped::Failed(t.worker, e.clone())),
            _ => None,
        });
        let limit = all.iter().find_map(|t| match t.problem {
            Some(Problem::Limit(hit)) => Some(Stopped::Limit(hit)),
            _ => None,
        });
        if let Some(stop) = failed.or(limit) {
            return Ok(Err(stop));
        }
        let mut best: Option<(u64, StateRef)> = None;
        for t in &all {
            if let Some((key, r)) = t.pick {
                if best.is_none_or(|(k, _)| key > k) {
                    best = Some((key, r));
                }
            }
        }
        Ok(Ok(Agreed {
            sum: all.iter().map(|t| t.count).sum(),
            pick: best.map(|(_, r)| r),
        }))
    }

    /// [`trace`] on this worker's rounds.
    pub(crate) fn trace(
        &mut self,
        at: StateRef,
        bound: u64,
        step_of: impl Fn(u32) -> Step,
    ) -> Result<Vec<Step>, Error> {
        trace(self.rounds, at, bound, step_of)
    }

    /// [`told`] on this worker's rounds.
    pub(crate) fn told(&mut self, r: StateRef, step: impl FnOnce() -> Step) -> Result<Step, Error> {
        told(self.rounds, r, step)
    }
}

/// The steps from the root of a search to `at`, a step a round: the
/// owner of each state tells every worker how it was reached (`step_of`;
/// a step without a parent is the root's, not a step). `bound` is the
/// states of the whole product: a longer chain of parents loops, and is
/// an error.
///
/// # Errors
/// A lost process, or a step not told.
pub(crate) fn trace(
    rounds: &mut Rounds,
    at: StateRef,
    bound: u64,
    step_of: impl Fn(u32) -> Step,
) -> Result<Vec<Step>, Error> {
    let mut steps = Vec::new();
    let mut at = Some(at);
    while let Some(r) = at {
        let s = told(rounds, r, || step_of(r.index))?;
        if s.parent.is_some() {
            steps.push(s);
        }
        at = s.parent;
        if steps.len() as u64 > bound {
            // A chain of parents that loops: not a search's tree.
            return Err(Error::Search {
                worker: rounds.index() as u32,
                message: "the parents of a path form a loop".to_string(),
            });
        }
    }
    steps.reverse();
    Ok(steps)
}

/// One round: the owner of `r` tells every worker `step()`.
///
/// # Errors
/// A lost process, or the step not told.
pub(crate) fn told(
    rounds: &mut Rounds,
    r: StateRef,
    step: impl FnOnce() -> Step,
) -> Result<Step, Error> {
    if r.worker == rounds.index() as u32 {
        rounds.broadcast(Msg::Step(step()));
    }
    let told = rounds.finish()?.into_iter().find_map(|msg| match msg {
        Msg::Step(s) => Some(s),
        _ => None,
    });
    told.ok_or_else(|| {
        crate::lost::lost().unwrap_or(Error::Search {
            worker: r.worker,
            message: "the owner of a state of the counterexample did not tell its step".to_string(),
        })
    })
}

fn batch_size(b: &EdgeBatch) -> u64 {
    (b.bytes.len() + b.items.len() * std::mem::size_of::<Edge>()) as u64
}
