//! What the workers send each other.

use serde::{Deserialize, Serialize};

/// A reference to a stored state: its owner (the worker) and its number
/// in the owner's store.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub(crate) struct StateRef {
    pub worker: u32,
    pub index: u32,
}

/// The successors one worker made in a level for one owner: their bytes
/// one after the other in `bytes`, and per successor where its bytes end,
/// its automaton state, the letter it was reached by and its parent (its
/// hash is computed again by the owner).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(crate) struct Batch {
    pub bytes: Vec<u8>,
    pub items: Vec<Item>,
}

/// One successor of a [`Batch`].
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub(crate) struct Item {
    pub end: u32,
    pub q: u32,
    pub letter: u32,
    pub parent: StateRef,
}

/// What a worker tells every other one at the end of a level, so that all
/// of them take the same decision.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(crate) struct Summary {
    /// The worker that sends it.
    pub worker: u32,
    /// States stored for the first time in this round.
    pub new_states: u64,
    /// States of this level stored (or moved to it) in this round by a
    /// stutter step: the level goes on with them.
    pub new_stutter: u64,
    /// The next level's states stored so far.
    pub next_level: u64,
    /// A state of the next level whose automaton state is bad.
    pub bad_next: Option<StateRef>,
    /// Edges of the product followed in this level.
    pub transitions: u64,
    /// A state of this level whose automaton state is bad.
    pub bad: Option<StateRef>,
    /// The limit this worker reached, if any.
    pub limit: Option<LimitHit>,
    /// The error that stopped this worker, if any (a panic in the object,
    /// a broken contract): its text.
    pub error: Option<String>,
}

/// A limit a worker reached, as [`engine::Limit`] names it.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub(crate) enum LimitHit {
    States(u64),
    TimeMillis(u64),
    Memory(u64),
}

/// One step of the counterexample, told by the owner of the state it
/// reaches: the letter, the automaton state, the acceptance marks of the
/// automaton edge (0 where they do not matter) and the state before it.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub(crate) struct Step {
    pub letter: u32,
    pub q: u32,
    pub marks: u32,
    pub parent: Option<StateRef>,
}

/// Edges of the product from states one worker owns to states another
/// one owns, in the search for accepting cycles: the targets' bytes one
/// after the other, and per edge where its bytes end and what it is.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(crate) struct EdgeBatch {
    pub bytes: Vec<u8>,
    pub items: Vec<Edge>,
}

/// One edge of an [`EdgeBatch`]: the target's automaton state, the letter,
/// the automaton edge's acceptance marks, and the source.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub(crate) struct Edge {
    pub end: u32,
    pub q: u32,
    pub letter: u32,
    pub marks: u32,
    pub from: StateRef,
}

/// Why a worker cannot go on with the search for accepting cycles.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) enum Problem {
    Limit(LimitHit),
    Error(String),
}

/// What a worker tells every other one after a step of the search for
/// accepting cycles: a count (summed over the workers), a state it
/// proposes with a key (the largest key's is taken, the first worker's
/// among equals), and what stops it.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(crate) struct Tally {
    pub worker: u32,
    pub count: u64,
    pub pick: Option<(u64, StateRef)>,
    pub problem: Option<Problem>,
}

/// A worker's counts, for the report.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize)]
pub(crate) struct Counts {
    pub process: u32,
    pub owned: u64,
    pub bytes_sent: u64,
    pub bytes_received: u64,
    pub peak_memory: u64,
}

/// A message of a round.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) enum Msg {
    /// What a worker checks: a digest of the formula, the object's roles,
    /// its initial state's bytes and the automaton's size, with the
    /// worker's process. Every worker must check the same.
    Digest {
        process: u32,
        digest: u64,
    },
    States(Batch),
    Summary(Summary),
    Step(Step),
    Counts(Counts),
    Edges(EdgeBatch),
    Tally(Tally),
    /// States of the receiver (by number) reached backwards.
    Reach(Vec<u32>),
    /// A worker's part of the graph the shortest lasso is searched in.
    Gather(Gathered),
    /// The shortest lasso, as the first worker found it.
    Shortest(Shortest),
}

/// The states of one worker that can be on an accepting cycle, with their
/// distances (actions, steps), and the edges into them from such states.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(crate) struct Gathered {
    pub worker: u32,
    pub states: Vec<(u32, u32, u32)>,
    pub edges: Vec<GatheredEdge>,
    /// The first bad state of the search, with its distance, from its
    /// owner.
    pub bad: Option<(u32, u32, u32)>,
}

/// An edge of a [`Gathered`] part: its source, the number of its target
/// (a state of the part's worker), and what [`Step`] tells of it.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub(crate) struct GatheredEdge {
    pub from: StateRef,
    pub to: u32,
    pub letter: u32,
    pub q: u32,
    pub marks: u32,
}

/// What the search for the shortest lasso found.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) enum Shortest {
    /// A shortest lasso: its anchor and its cycle's steps.
    Found { anchor: StateRef, cycle: Vec<Step> },
    /// Not searched to the end: why (its cost).
    Skipped(String),
    /// A limit or an error stopped it.
    Stopped(Problem),
}
