//! The product search: an on-the-fly emptiness check of
//! (protocol runs) × (automaton of the negated formula).
//!
//! The automaton is a transition-based generalised Büchi automaton, so the
//! check is Couvreur's SCC-based algorithm (Couvreur 1999, in the iterative
//! form of Gaiser and Schwoon 2009): a depth-first search that keeps a stack
//! of SCC roots, each with the union of the acceptance marks seen inside
//! its (partial) SCC. When a back edge merges SCCs and the union covers all
//! acceptance sets, an accepting cycle exists: the property is violated.
//! It finds a violation as soon as the SCC closes, works directly on
//! generalised acceptance (no degeneralisation blow-up), and needs one
//! number per visited state.
//!
//! The search is iterative: one explicit stack of small frames, each naming
//! its product state and the letter that led there (the parent link is the
//! frame below), so arbitrarily deep runs cannot overflow the thread's stack.
//!
//! Safety properties take a shortcut (as SPIN's `-DSAFETY` does): when every
//! cycle of the automaton that could accept runs through states that accept
//! any continuation (every `G !bad` is such), the stutter convention makes
//! the property violated exactly when such a state is reachable, and a
//! breadth-first reachability search decides it — no SCC bookkeeping, a
//! shortest counterexample, and much better memory locality on large state
//! spaces (see [`Search::reachability`]).

use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Duration;

use hashbrown::HashMap;

use crate::alphabet::{Alphabet, LetterId};
use crate::budget::Budget;

use crate::explore::{next_slot, probe_slot, Explorer, ProbeError, ProtoId};
use crate::protocol::Protocol;
use crate::report::{Ending, Limit, Stats, Step};
use crate::{Error, Semantics};

/// The automaton with each edge's guard evaluated on every letter.
pub(crate) struct Prepared {
    pub initial: u32,
    /// Per state: first edge and number of edges.
    state_edges: Vec<(u32, u32)>,
    edges: Vec<PEdge>,
    /// `words` bitset words per edge: bit `l` = letter `l` allowed.
    bits: Vec<u64>,
    /// Per state, `words` words: the probe slots some edge can use.
    wanted: Vec<u64>,
    /// Per state: whether it wants every probe slot (then the whole
    /// alphabet is probed at once and cached).
    wants_all: Vec<bool>,
    words: usize,
    pub all_acc: u32,
    /// Per state: it accepts every continuation (see [`Search::run`]).
    universal: Vec<bool>,
    /// Every cycle of the automaton that could be accepting runs through
    /// universal states only (see [`Search::reachability`]).
    safety: bool,
}

#[derive(Clone, Copy)]
struct PEdge {
    target: u32,
    acc: u32,
}

impl Prepared {
    /// `valuation(l)` gives the atoms (bit `i` = atom `i` of the automaton)
    /// that hold on letter `l`.
    pub fn new(
        aut: &owl_lite::Automaton,
        a: &Alphabet,
        valuation: impl Fn(usize) -> u64,
    ) -> Prepared {
        let num_letters = a.len();
        let words = num_letters.div_ceil(64);
        let mut state_edges = Vec::new();
        let mut edges = Vec::new();
        let mut guards = Vec::new();
        for (q, out) in aut.edges.iter().enumerate() {
            state_edges.push((edges.len() as u32, out.len() as u32));
            for e in out {
                edges.push(PEdge {
                    target: e.target as u32,
                    acc: e.acc,
                });
                guards.push((q, &e.guard));
            }
        }
        let mut bits = vec![0u64; edges.len() * words];
        let mut wanted = vec![0u64; aut.edges.len() * words];
        // Letter by letter, each valuation computed once and dropped: a
        // table of them (8 bytes a letter) was the peak memory of a check
        // with thousands of roles (the alphabet grows with roles²).
        for l in 0..num_letters {
            let v = valuation(l);
            let slot = (l < a.num_actions()).then(|| probe_slot(a, l as LetterId) as usize);
            for (e, &(q, guard)) in guards.iter().enumerate() {
                if guard.eval(v) {
                    bits[e * words + l / 64] |= 1 << (l % 64);
                    if let Some(slot) = slot {
                        wanted[q * words + slot / 64] |= 1 << (slot % 64);
                    }
                }
            }
        }
        let mut wants_all = Vec::new();
        for q in 0..aut.edges.len() {
            let w0 = q * words;
            let mut all = true;
            let mut l = 0;
            while (l as usize) < a.num_actions() {
                let letter = a.letter(l);
                let probed = letter.role != letter.peer
                    && (letter.kind != crate::ActionKind::Send || letter.ty < a.sendable);
                if probed && wanted[w0 + l as usize / 64] >> (l % 64) & 1 == 0 {
                    all = false;
                    break;
                }
                l = next_slot(a, l);
            }
            wants_all.push(all);
        }
        let all_acc = if aut.acceptance_sets >= 32 {
            u32::MAX
        } else {
            (1u32 << aut.acceptance_sets) - 1
        };
        // A state with a self-loop that takes every letter and every
        // acceptance mark accepts every continuation.
        let universal = (0..state_edges.len())
            .map(|q| {
                let (first, ne) = state_edges[q];
                (first..first + ne).any(|e| {
                    let edge = edges[e as usize];
                    edge.target as usize == q
                        && edge.acc & all_acc == all_acc
                        && (0..num_letters)
                            .all(|l| bits[e as usize * words + l / 64] >> (l % 64) & 1 != 0)
                })
            })
            .collect::<Vec<bool>>();
        let safety = only_universal_cycles_accept(&state_edges, &edges, &universal, all_acc);
        Prepared {
            initial: aut.initial as u32,
            state_edges,
            edges,
            bits,
            wanted,
            wants_all,
            universal,
            safety,
            words,
            all_acc,
        }
    }

    pub fn num_states(&self) -> usize {
        self.state_edges.len()
    }

    #[inline]
    fn allows(&self, edge: u32, letter: LetterId) -> bool {
        let w = self.bits[edge as usize * self.words + (letter as usize >> 6)];
        w >> (letter & 63) & 1 != 0
    }

    #[inline]
    fn wanted(&self, q: u32) -> &[u64] {
        &self.wanted[q as usize * self.words..(q as usize + 1) * self.words]
    }
}

/// Whether every cycle of the automaton whose edges together carry every
/// acceptance mark stays among universal states. Then every accepting run
/// of the product reaches a universal state, so (under the stutter
/// convention, see [`Search::bad_prefix`]) the property is violated exactly
/// when a universal state is reachable: plain reachability decides it.
/// Guards are ignored, which can only make the answer `false`. Automata of
/// more than 64 states are not analysed (`false`).
fn only_universal_cycles_accept(
    state_edges: &[(u32, u32)],
    edges: &[PEdge],
    universal: &[bool],
    all_acc: u32,
) -> bool {
    let k = state_edges.len();
    if k > 64 {
        return false;
    }
    // reach[s]: bit t = t is reachable from s in one or more steps.
    let mut reach: Vec<u64> = (0..k)
        .map(|s| {
            let (first, ne) = state_edges[s];
            (first..first + ne).fold(0u64, |m, e| m | 1 << edges[e as usize].target)
        })
        .collect();
    for via in 0..k {
        for s in 0..k {
            if reach[s] >> via & 1 != 0 {
                reach[s] |= reach[via];
            }
        }
    }
    (0..k).filter(|&s| !universal[s]).all(|s| {
        // The automaton SCC of `s`, if `s` lies on a cycle.
        let scc: Vec<usize> = (0..k)
            .filter(|&t| reach[s] >> t & 1 != 0 && reach[t] >> s & 1 != 0)
            .collect();
        let marks = scc.iter().fold(0u32, |m, &u| {
            let (first, ne) = state_edges[u];
            (first..first + ne)
                .map(|e| edges[e as usize])
                .filter(|e| scc.contains(&(e.target as usize)))
                .fold(m, |m, e| m | e.acc)
        });
        scc.is_empty() || marks & all_acc != all_acc
    })
}

/// Options of one search.
#[derive(Clone, Debug)]
pub(crate) struct Limits {
    pub max_states: u64,
    pub max_depth: u64,
    pub timeout: Option<Duration>,
    /// Resident bytes of the whole process (`u64::MAX`: no limit).
    pub max_memory: u64,
    pub progress: Option<bool>,
    /// When the first progress line may show (later ones: every second).
    pub progress_after: Duration,
    pub semantics: Semantics,
}

/// A lasso in the product, before it is turned into readable steps.
pub(crate) struct RawLasso {
    /// `(letter, proto, automaton state)` after each step, from the initial
    /// state to the cycle anchor.
    pub prefix: Vec<(LetterId, ProtoId, u32)>,
    /// The cycle, ending back at the anchor; empty for a bad prefix.
    pub cycle: Vec<(LetterId, ProtoId, u32)>,
}

pub(crate) enum Outcome {
    Holds,
    Violated(RawLasso),
    Inconclusive(Limit),
}

const DEAD: u32 = u32::MAX;

/// Visited product states → DFS number (0 = never seen, DEAD = SCC done).
enum Visited {
    /// For automata of at most two states: the numbers are kept next to
    /// the interned protocol object ([`Explorer::mark`]).
    Inline,
    /// For small automata: a flat array indexed by `proto * k + state`,
    /// cheaper than hashing and smaller when most pairs occur.
    Dense {
        k: usize,
        nums: Vec<u32>,
    },
    Sparse(HashMap<u64, u32>),
}

impl Visited {
    fn new(k: usize) -> Visited {
        if k <= 2 {
            Visited::Inline
        } else if k <= 4 {
            Visited::Dense {
                k,
                nums: Vec::new(),
            }
        } else {
            Visited::Sparse(HashMap::new())
        }
    }

    #[inline]
    fn get<P: Protocol>(&self, ex: &Explorer<P>, p: ProtoId, q: u32) -> u32 {
        match self {
            Visited::Inline => ex.mark(p, q),
            Visited::Dense { k, nums } => {
                nums.get(p as usize * k + q as usize).copied().unwrap_or(0)
            }
            Visited::Sparse(m) => m.get(&key(p, q)).copied().unwrap_or(0),
        }
    }

    #[inline]
    fn set<P: Protocol>(&mut self, ex: &mut Explorer<P>, p: ProtoId, q: u32, n: u32) {
        match self {
            Visited::Inline => ex.set_mark(p, q, n),
            Visited::Dense { k, nums } => {
                let i = p as usize * *k + q as usize;
                if i >= nums.len() {
                    let want = (i + 1).max(nums.len() * 2).max(1024);
                    nums.resize(want, 0);
                }
                nums[i] = n;
            }
            Visited::Sparse(m) => {
                m.insert(key(p, q), n);
            }
        }
    }
}

#[inline]
fn key(p: ProtoId, q: u32) -> u64 {
    (p as u64) << 32 | q as u64
}

/// One frame of the search stack. The letter that led to a frame is the
/// `letter` of the frame below it (the parent link).
#[derive(Clone, Copy)]
struct Frame {
    p: ProtoId,
    q: u32,
    /// Probe slot of the current letter, or the next slot to probe.
    cursor: LetterId,
    /// The current letter (valid with `HAS`) and its target.
    letter: LetterId,
    target: ProtoId,
    /// Next edge of `q` to try with the current letter.
    edge: u16,
    flags: u16,
}

/// The frame has a current letter whose edges are being tried.
const HAS: u16 = 1;
/// Some action is enabled in the frame's protocol state.
const ANY: u16 = 2;
/// All actions (and the stutter step, if any) are done.
const DONE: u16 = 4;
/// The protocol state was new when the frame started, so not cached.
const LAZY: u16 = 8;

impl Frame {
    fn new(p: ProtoId, q: u32) -> Frame {
        Frame {
            p,
            q,
            cursor: 0,
            letter: 0,
            target: 0,
            edge: 0,
            flags: 0,
        }
    }
}

#[derive(Clone, Copy)]
struct Root {
    num: u32,
    /// Acceptance marks seen inside the SCC.
    acc: u32,
    /// Marks of the tree edge that entered this root.
    in_acc: u32,
}

pub(crate) struct Search<'a, P> {
    ex: &'a mut Explorer<P>,
    aut: &'a Prepared,
    limits: &'a Limits,
    visited: Visited,
    pub stats: Stats,
    budget: Budget<'a>,
    /// Scratch for [`expand`](Self::expand): the enabled letters of a state.
    letters: Vec<(LetterId, ProtoId)>,
}

impl<'a, P: Protocol> Search<'a, P> {
    pub fn new(ex: &'a mut Explorer<P>, aut: &'a Prepared, limits: &'a Limits) -> Self {
        let visited = Visited::new(aut.num_states());
        if matches!(visited, Visited::Inline) {
            ex.clear_marks();
        }
        let stats = Stats {
            automaton_states: aut.num_states() as u64,
            ..Stats::default()
        };
        Search {
            ex,
            aut,
            limits,
            visited,
            stats,
            budget: Budget::new(limits),
            letters: Vec::new(),
        }
    }

    /// The next product successor of the frame, advancing it.
    #[inline]
    fn next(&mut self, f: &mut Frame) -> Result<Option<(LetterId, ProtoId, u32, u32)>, ProbeError> {
        let (first, ne) = self.aut.state_edges[f.q as usize];
        if ne == 0 {
            return Ok(None);
        }
        loop {
            if f.flags & HAS != 0 {
                while u32::from(f.edge) < ne {
                    let e = first + u32::from(f.edge);
                    f.edge += 1;
                    if self.aut.allows(e, f.letter) {
                        let edge = self.aut.edges[e as usize];
                        return Ok(Some((f.letter, f.target, edge.target, edge.acc)));
                    }
                }
                f.flags &= !HAS;
                if f.flags & DONE != 0 {
                    return Ok(None);
                }
                f.cursor = next_slot(&self.ex.alphabet, f.cursor);
            }
            if f.flags & DONE != 0 {
                return Ok(None);
            }
            if f.flags == 0 && f.cursor == 0 {
                // First visit of a protocol state: probe lazily, skipping
                // the cache (it cannot hold the state yet). On a later
                // visit, with a state that wants every letter, probe the
                // whole alphabet once and cache it.
                if !self.ex.mark_expanded(f.p) {
                    f.flags |= LAZY;
                } else if self.aut.wants_all[f.q as usize] && !self.ex.is_cached(f.p) {
                    self.ex.fill(f.p)?;
                }
            }
            let wanted = Some(self.aut.wanted(f.q));
            match self
                .ex
                .next_enabled(f.p, &mut f.cursor, wanted, f.flags & LAZY == 0)?
            {
                Some((letter, target)) => {
                    f.letter = letter;
                    f.target = target;
                    f.edge = 0;
                    f.flags |= HAS | ANY;
                }
                None => {
                    f.flags |= DONE;
                    let stutter = self.limits.semantics == Semantics::Stutter
                        && f.flags & ANY == 0
                        && !self.ex.any_enabled(f.p)?;
                    if !stutter {
                        return Ok(None);
                    }
                    let terminated = self.ex.is_terminated(f.p)?;
                    let a = &self.ex.alphabet;
                    f.letter = if terminated { a.end() } else { a.deadlock() };
                    f.target = f.p;
                    f.edge = 0;
                    f.flags |= HAS;
                }
            }
        }
    }

    /// Appends the product successors `(p', q')` of `(p, q)` to `out`, the
    /// same ones in the same order as [`next`](Self::next) gives them, but
    /// probing the protocol state's alphabet in one pass
    /// ([`Explorer::successors`]): the breadth-first search needs them all
    /// at once. Returns how many there were counting every automaton edge
    /// (the transitions).
    fn expand(
        &mut self,
        p: ProtoId,
        q: u32,
        out: &mut Vec<(ProtoId, u32)>,
    ) -> Result<u64, ProbeError> {
        let (first, ne) = self.aut.state_edges[q as usize];
        if ne == 0 {
            return Ok(0);
        }
        // As in `next`: a state seen for the first time is probed without
        // the cache; one seen again, by an automaton state that wants every
        // letter, is probed in full and cached.
        let use_cache = self.ex.mark_expanded(p);
        if use_cache && self.aut.wants_all[q as usize] && !self.ex.is_cached(p) {
            self.ex.fill(p)?;
        }
        let mut letters = std::mem::take(&mut self.letters);
        letters.clear();
        // A state that wants every letter skips the per-slot bit test.
        let wanted = (!self.aut.wants_all[q as usize]).then(|| self.aut.wanted(q));
        let probed = self.ex.successors(p, wanted, use_cache, &mut letters);
        if probed.is_ok()
            && letters.is_empty()
            && self.limits.semantics == Semantics::Stutter
            && !self.ex.any_enabled(p)?
        {
            let terminated = self.ex.is_terminated(p)?;
            let a = &self.ex.alphabet;
            let stutter = if terminated { a.end() } else { a.deadlock() };
            letters.push((stutter, p));
        }
        let mut n = 0;
        for &(letter, target) in &letters {
            for e in first..first + ne {
                if self.aut.allows(e, letter) {
                    out.push((target, self.aut.edges[e as usize].target));
                    n += 1;
                }
            }
        }
        self.letters = letters;
        probed.map(|_| n)
    }

    /// All product successors of `(p, q)`.
    fn all_successors(
        &mut self,
        p: ProtoId,
        q: u32,
    ) -> Result<Vec<(LetterId, ProtoId, u32, u32)>, ProbeError> {
        let mut f = Frame::new(p, q);
        let mut out = Vec::new();
        while let Some(s) = self.next(&mut f)? {
            out.push(s);
        }
        Ok(out)
    }

    fn probe_error(&self, e: ProbeError, stack: &[Frame]) -> Error {
        let below_top = &stack[..stack.len().saturating_sub(1)];
        let trace = below_top
            .iter()
            .map(|f| self.ex.alphabet.describe(f.letter))
            .collect();
        probe_error(&self.ex.alphabet, e, trace)
    }

    /// Whether reaching automaton state `q` already proves a violation:
    /// under the stutter convention every state has a successor, so every
    /// run goes on forever, and a universal state accepts whatever follows.
    /// This finds safety violations at the step that commits them — with a
    /// short counterexample, and even on objects whose runs never repeat a
    /// state.
    #[inline]
    fn bad_prefix(&self, q: u32) -> bool {
        self.limits.semantics == Semantics::Stutter && self.aut.universal[q as usize]
    }

    pub fn run(&mut self, initial: ProtoId) -> Result<Outcome, Error> {
        if self.aut.num_states() == 0 {
            // The negation is unsatisfiable: no run can violate the formula.
            self.finish_progress();
            return Ok(Outcome::Holds);
        }
        if self.limits.semantics == Semantics::Stutter && self.aut.safety {
            return self.reachability(initial);
        }
        let all = self.aut.all_acc;
        let mut stack: Vec<Frame> = Vec::new();
        let mut roots: Vec<Root> = Vec::new();
        let mut live: Vec<(ProtoId, u32)> = Vec::new();
        let mut count: u32 = 1;
        let mut truncated = false;
        let q0 = self.aut.initial;
        self.visited.set(self.ex, initial, q0, 1);
        roots.push(Root {
            num: 1,
            acc: 0,
            in_acc: 0,
        });
        live.push((initial, q0));
        stack.push(Frame::new(initial, q0));
        self.stats.product_states = 1;
        if self.bad_prefix(q0) {
            self.finish_progress();
            return Ok(Outcome::Violated(RawLasso {
                prefix: Vec::new(),
                cycle: Vec::new(),
            }));
        }
        let max_states = self.limits.max_states.min(u32::MAX as u64 - 2);
        while let Some(mut top) = stack.last().copied() {
            // After the emptiness test: a search that has just finished
            // gives its verdict, not a limit.
            if let Some(limit) = self.budget.tick(&self.stats, stack.len() as u64) {
                self.finish_progress();
                return Ok(Outcome::Inconclusive(limit));
            }
            let next = self.next(&mut top);
            let depth = stack.len();
            stack[depth - 1] = top;
            match next {
                Err(e) => {
                    self.finish_progress();
                    return Err(self.probe_error(e, &stack));
                }
                Ok(Some((_, p2, q2, acc))) => {
                    self.stats.transitions += 1;
                    let n = self.visited.get(self.ex, p2, q2);
                    if n == 0 {
                        if depth as u64 > self.limits.max_depth {
                            truncated = true;
                            continue;
                        }
                        if count as u64 >= max_states {
                            self.finish_progress();
                            return Ok(Outcome::Inconclusive(Limit::States(
                                self.limits.max_states,
                            )));
                        }
                        count += 1;
                        self.stats.product_states = count as u64;
                        self.visited.set(self.ex, p2, q2, count);
                        roots.push(Root {
                            num: count,
                            acc: 0,
                            in_acc: acc,
                        });
                        live.push((p2, q2));
                        stack.push(Frame::new(p2, q2));
                        if self.bad_prefix(q2) {
                            self.finish_progress();
                            let start = (stack[0].p, stack[0].q);
                            let prefix = self
                                .bfs(start, 1, false, |_, t, _| t == (p2, q2))
                                .map_err(|e| self.probe_error(e, &stack))?
                                .ok_or_else(|| lost(&self.ex.alphabet, &stack))?
                                .into_iter()
                                .map(|(l, p, q, _)| (l, p, q))
                                .collect();
                            return Ok(Outcome::Violated(RawLasso {
                                prefix,
                                cycle: Vec::new(),
                            }));
                        }
                        self.stats.max_depth = self.stats.max_depth.max(stack.len() as u64 - 1);
                    } else if n != DEAD {
                        // A cycle closes: merge every SCC above the target's.
                        let mut a = acc;
                        while roots.last().is_some_and(|r| r.num > n) {
                            let r = roots.pop().expect("checked non-empty");
                            a |= r.acc | r.in_acc;
                        }
                        let root = roots.last_mut().expect("the target's root is on the stack");
                        root.acc |= a;
                        if root.acc & all == all {
                            let scc_root = root.num;
                            self.finish_progress();
                            let lasso = self.lasso(&stack, scc_root)?;
                            return Ok(Outcome::Violated(lasso));
                        }
                    }
                }
                Ok(None) => {
                    stack.pop();
                    let n = self.visited.get(self.ex, top.p, top.q);
                    if roots.last().is_some_and(|r| r.num == n) {
                        roots.pop();
                        // The SCC is complete and has no accepting cycle.
                        while let Some((p, q)) = live.pop() {
                            self.visited.set(self.ex, p, q, DEAD);
                            if (p, q) == (top.p, top.q) {
                                break;
                            }
                        }
                    }
                }
            }
        }
        self.finish_progress();
        if truncated {
            return Ok(Outcome::Inconclusive(Limit::Depth(self.limits.max_depth)));
        }
        Ok(Outcome::Holds)
    }

    /// The search for automata whose accepting cycles all run through
    /// universal states ([`Prepared::safety`]; every `G !bad` is one):
    /// under the stutter convention the property is violated exactly when
    /// a universal state is reachable, so a breadth-first reachability
    /// search decides it, without the SCC bookkeeping. It also visits the
    /// states in an order with far better memory locality than the
    /// depth-first search (a state reached again was mostly stored shortly
    /// before), and its first violation is a shortest one. Depth is the
    /// breadth-first level: the distance from the initial state.
    fn reachability(&mut self, initial: ProtoId) -> Result<Outcome, Error> {
        let q0 = self.aut.initial;
        let start = (initial, q0);
        self.visited.set(self.ex, initial, q0, 1);
        self.stats.product_states = 1;
        if self.bad_prefix(q0) {
            self.finish_progress();
            return Ok(Outcome::Violated(RawLasso {
                prefix: Vec::new(),
                cycle: Vec::new(),
            }));
        }
        let max_states = self.limits.max_states.min(u32::MAX as u64 - 2);
        let mut count: u64 = 1;
        let mut truncated = false;
        let mut level: Vec<(ProtoId, u32)> = vec![start];
        let mut next_level: Vec<(ProtoId, u32)> = Vec::new();
        let mut succ: Vec<(ProtoId, u32)> = Vec::new();
        let mut depth: u64 = 0;
        while !level.is_empty() {
            for &(p, q) in &level {
                if let Some(limit) = self.budget.tick(&self.stats, depth) {
                    self.finish_progress();
                    return Ok(Outcome::Inconclusive(limit));
                }
                succ.clear();
                match self.expand(p, q, &mut succ) {
                    Ok(n) => self.stats.transitions += n,
                    Err(e) => {
                        self.finish_progress();
                        return Err(self.probe_error_at(e, start, (p, q)));
                    }
                }
                for &(p2, q2) in &succ {
                    if self.visited.get(self.ex, p2, q2) != 0 {
                        continue;
                    }
                    if depth + 1 > self.limits.max_depth {
                        truncated = true;
                        continue;
                    }
                    if count >= max_states {
                        self.finish_progress();
                        return Ok(Outcome::Inconclusive(Limit::States(self.limits.max_states)));
                    }
                    count += 1;
                    self.stats.product_states = count;
                    self.stats.max_depth = depth + 1;
                    self.visited.set(self.ex, p2, q2, 1);
                    if self.bad_prefix(q2) {
                        self.finish_progress();
                        let prefix = self
                            .bfs(start, 1, false, |_, t, _| t == (p2, q2))
                            .map_err(|e| probe_error(&self.ex.alphabet, e, Vec::new()))?
                            .ok_or_else(|| lost(&self.ex.alphabet, &[]))?
                            .into_iter()
                            .map(|(l, p, q, _)| (l, p, q))
                            .collect();
                        return Ok(Outcome::Violated(RawLasso {
                            prefix,
                            cycle: Vec::new(),
                        }));
                    }
                    next_level.push((p2, q2));
                }
            }
            level.clear();
            std::mem::swap(&mut level, &mut next_level);
            depth += 1;
        }
        self.finish_progress();
        if truncated {
            return Ok(Outcome::Inconclusive(Limit::Depth(self.limits.max_depth)));
        }
        Ok(Outcome::Holds)
    }

    /// A probe error in state `at`, with a shortest trace from `start`.
    fn probe_error_at(
        &mut self,
        e: ProbeError,
        start: (ProtoId, u32),
        at: (ProtoId, u32),
    ) -> Error {
        let path = if at == start {
            Some(Vec::new())
        } else {
            // Re-probes only states that were expanded without error.
            self.bfs(start, 1, false, |_, t, _| t == at).ok().flatten()
        };
        let trace = path
            .unwrap_or_default()
            .iter()
            .map(|&(l, _, _, _)| self.ex.alphabet.describe(l))
            .collect();
        probe_error(&self.ex.alphabet, e, trace)
    }

    /// Builds a short lasso once an accepting SCC (rooted at DFS number
    /// `scc_root`) is known: the prefix is a shortest path from the initial
    /// state to the SCC, and the cycle is stitched together from shortest
    /// paths inside the SCC, one per acceptance set still missing, then
    /// back to the entry. (The DFS stack would do as a prefix, but it can be
    /// long and wander far past the step that matters.)
    fn lasso(&mut self, stack: &[Frame], scc_root: u32) -> Result<RawLasso, Error> {
        let start = (stack[0].p, stack[0].q);
        let in_scc = |n: u32| n != 0 && n != DEAD && n >= scc_root;
        let prefix: Vec<_> = if in_scc(self.visited.get(self.ex, start.0, start.1)) {
            Vec::new()
        } else {
            self.bfs(start, 1, false, |_, _, n| in_scc(n))
                .map_err(|e| self.probe_error(e, stack))?
                .ok_or_else(|| lost(&self.ex.alphabet, stack))?
                .into_iter()
                .map(|(l, p, q, _)| (l, p, q))
                .collect()
        };
        let entry = prefix.last().map_or(start, |&(_, p, q)| (p, q));
        let mut cycle = Vec::new();
        let mut missing = self.aut.all_acc;
        let mut at = entry;
        loop {
            let m = missing;
            let seg = if m != 0 {
                self.bfs(at, scc_root, true, |acc, _, _| acc & m != 0)
            } else if at != entry || cycle.is_empty() {
                self.bfs(at, scc_root, true, |_, t, _| t == entry)
            } else {
                break;
            };
            let seg = seg
                .map_err(|e| self.probe_error(e, stack))?
                // An accepting SCC is strongly connected and has every
                // acceptance mark, unless the object changed its answers.
                .ok_or_else(|| lost(&self.ex.alphabet, stack))?;
            let &(_, p, q, acc) = seg.last().expect("paths are non-empty");
            missing &= !acc;
            at = (p, q);
            cycle.extend(seg.into_iter().map(|(l, p, q, _)| (l, p, q)));
        }
        Ok(RawLasso { prefix, cycle })
    }

    /// Shortest path from `from` through visited states whose last edge
    /// satisfies `goal(acc, target, target's number)`: through any visited
    /// state, or (`inside`) through the SCC rooted at DFS number `min_num`,
    /// whose states are the live ones numbered from the root on.
    #[allow(clippy::type_complexity)]
    fn bfs(
        &mut self,
        from: (ProtoId, u32),
        min_num: u32,
        inside: bool,
        goal: impl Fn(u32, (ProtoId, u32), u32) -> bool,
    ) -> Result<Option<Vec<(LetterId, ProtoId, u32, u32)>>, ProbeError> {
        let mut parent: HashMap<(ProtoId, u32), ((ProtoId, u32), LetterId, u32)> = HashMap::new();
        let mut queue = VecDeque::from([from]);
        while let Some(x) = queue.pop_front() {
            for (letter, p, q, acc) in self.all_successors(x.0, x.1)? {
                let n = self.visited.get(self.ex, p, q);
                if n == 0 || n < min_num || (inside && n == DEAD) {
                    continue;
                }
                if goal(acc, (p, q), n) {
                    let mut path = vec![(letter, p, q, acc)];
                    let mut cur = x;
                    while cur != from {
                        let (prev, l, a) = parent[&cur];
                        path.push((l, cur.0, cur.1, a));
                        cur = prev;
                    }
                    path.reverse();
                    return Ok(Some(path));
                }
                if (p, q) != from && !parent.contains_key(&(p, q)) {
                    parent.insert((p, q), (x, letter, acc));
                    queue.push_back((p, q));
                }
            }
        }
        Ok(None)
    }

    fn finish_progress(&mut self) {
        self.stats.protocol_states = self.ex.num_protos() as u64;
        self.budget.finish();
    }
}

/// The counterexample is built by re-probing stored states; when a state
/// or cycle that the search found cannot be found again, the object
/// answered the same probe differently the second time. Without the
/// determinism check nothing names the action, so say how to find it.
fn lost(alphabet: &Alphabet, stack: &[Frame]) -> Error {
    let below_top = &stack[..stack.len().saturating_sub(1)];
    Error::Nondeterminism {
        action: "re-exploring the stored states to build the counterexample".to_string(),
        detail: "gave other successors than during the search (a state or cycle the search \
                 found cannot be reached again); rerun with the determinism check \
                 (PRUST_DETERMINISM=1) to find the action"
            .to_string(),
        trace: below_top
            .iter()
            .map(|f| alphabet.describe(f.letter))
            .collect(),
    }
}

pub(crate) fn probe_error(alphabet: &Alphabet, e: ProbeError, trace: Vec<String>) -> Error {
    match e {
        ProbeError::Panic { letter, message } => Error::ProtocolPanic {
            action: describe_probe(alphabet, letter),
            message,
            trace,
        },
        ProbeError::Nondeterminism { letter, detail } => Error::Nondeterminism {
            action: describe_probe(alphabet, letter),
            detail,
            trace,
        },
        ProbeError::Contract { letter, detail } => Error::Contract {
            action: describe_probe(alphabet, letter),
            detail,
            trace,
        },
    }
}

/// A probe as people read it; receives are probed before their type is
/// known, so they are named without one.
fn describe_probe(alphabet: &Alphabet, letter: LetterId) -> String {
    if letter == alphabet.end() {
        // Asked of a state where nothing is enabled (END or DEADLOCK).
        return "is_terminated()".to_string();
    }
    let l = alphabet.letter(letter);
    if l.kind == crate::ActionKind::Recv {
        format!(
            "{} RECV FROM {}",
            alphabet.roles[l.role], alphabet.roles[l.peer]
        )
    } else {
        alphabet.describe(letter)
    }
}

/// Determinism check on a counterexample: re-executes `raw` on a fresh
/// clone of the initial object, one action after the other on that one
/// object, as a run would (the search only ever probed clones of stored
/// states). Every step must go through, receive the message of the step
/// and give an object equal to the state the search stored; the cycle
/// then closes on an equal object, and an ending (END, DEADLOCK) must hold
/// on the object reached. Otherwise the violation cannot be reproduced:
/// [`Error::Nondeterminism`] naming the step, rather than a counterexample
/// that `replay` would reject. Catches behaviour that changes after the
/// search's probes (a global counter, the number of clones).
pub(crate) fn reexecute<P: Protocol>(
    ex: &Explorer<P>,
    initial: ProtoId,
    raw: &RawLasso,
) -> Result<(), Error> {
    let a = &ex.alphabet;
    let mut trace = Vec::new();
    let mut at = "(the start)".to_string();
    let r = catch_unwind(AssertUnwindSafe(|| {
        let mut obj = ex.proto(initial).clone();
        let steps = raw.prefix.iter().chain(&raw.cycle).enumerate();
        for (i, &(letter, p, _)) in steps {
            let n = i + 1;
            if letter == a.end() || letter == a.deadlock() {
                at = a.describe(letter);
                if letter == a.end() && !obj.is_terminated() {
                    return Err(format!(
                        "step {n} did not hold: is_terminated() is false on the object reached"
                    ));
                }
                if let Some(l) = ex.first_enabled_on(&obj) {
                    return Err(format!(
                        "step {n} did not hold: `{}` is enabled on the object reached",
                        describe_probe(a, l)
                    ));
                }
                return Ok(());
            }
            at = a.describe(letter);
            ex.step_on(&mut obj, letter)
                .map_err(|why| format!("step {n} could not be replayed ({why})"))?;
            if &obj != ex.proto(p) {
                return Err(format!(
                    "step {n} gave an object unequal to the one the search stored{}",
                    if i + 1 == raw.prefix.len() + raw.cycle.len() && !raw.cycle.is_empty() {
                        " (the cycle does not close)"
                    } else {
                        ""
                    }
                ));
            }
            trace.push(at.clone());
        }
        Ok(())
    }));
    match r {
        Ok(Ok(())) => Ok(()),
        Ok(Err(detail)) => Err(Error::Nondeterminism {
            action: at,
            detail: format!(
                "behaved differently when the counterexample was re-executed on a fresh clone of \
                 the initial object: {detail}; the violation found cannot be reproduced"
            ),
            trace,
        }),
        Err(payload) => Err(Error::ProtocolPanic {
            action: at,
            message: payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "(non-string panic payload)".to_string()),
            trace,
        }),
    }
}

/// Turns a raw lasso into readable steps; a lasso that reaches a stutter
/// step is a finite run followed by its ending.
pub(crate) fn steps_of<P: Protocol>(
    ex: &Explorer<P>,
    raw: &RawLasso,
) -> (Vec<Step>, Vec<Step>, Option<Ending>) {
    let a = &ex.alphabet;
    let is_stutter = |l: LetterId| l == a.end() || l == a.deadlock();
    let step = |&(letter, _, q): &(LetterId, ProtoId, u32)| {
        let l = a.letter(letter);
        let close = l.kind == crate::ActionKind::Close;
        Step {
            role: l.role,
            role_name: a.roles[l.role].clone(),
            kind: l.kind,
            type_name: (!close).then(|| a.types[l.ty].short().to_string()),
            peer: l.peer,
            peer_name: a.roles[l.peer].clone(),
            automaton_state: q as usize,
            message: (l.kind == crate::ActionKind::Send)
                .then(|| a.types[l.ty].dummy.clone())
                .flatten(),
        }
    };
    let all = raw.prefix.iter().chain(&raw.cycle);
    if let Some(&(letter, p, _)) = all.clone().find(|s| is_stutter(s.0)) {
        let steps = all.take_while(|s| !is_stutter(s.0)).map(step).collect();
        let ending = if letter == a.end() {
            Ending::Terminated
        } else {
            let obj = ex.proto(p);
            let waiting = (0..a.roles.len())
                .filter(|&r| !obj.is_finished(r))
                .map(|r| a.roles[r].clone())
                .collect();
            Ending::Deadlock { waiting }
        };
        return (steps, Vec::new(), Some(ending));
    }
    let ending = raw.cycle.is_empty().then_some(Ending::AnyContinuation);
    (
        raw.prefix.iter().map(step).collect(),
        raw.cycle.iter().map(step).collect(),
        ending,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Message;

    /// Whether the automaton of the negation of `formula` is decided by
    /// reachability ([`Search::reachability`]).
    fn safety(formula: &str) -> bool {
        #[derive(Clone, Debug)]
        struct Move;
        let a = Alphabet::new(
            vec!["white".into(), "black".into()],
            vec![Message::new(Move)],
            vec![],
        );
        let (aut, atoms) = crate::frontend::automaton_for(formula, &a).expect("valid formula");
        Prepared::new(&aut, &a, |l| crate::checker::valuation(&a, &atoms, l)).safety
    }

    #[test]
    fn safety_properties_are_searched_by_reachability() {
        for f in [
            r#"G !"DEADLOCK""#,
            r#"G !"black RECV *""#,
            r#"G ("white SEND *" -> X "black RECV *")"#,
            r#"!"black SEND <Move>" W "black RECV <Move>""#,
            r#"G "True""#,
        ] {
            assert!(safety(f), "{f}");
        }
        for f in [
            r#"F "END""#,
            r#"G F "black RECV *""#,
            r#"G ("white SEND *" -> F "black RECV *")"#,
            r#"F G !"white SEND *""#,
            r#""white SEND *" U "black RECV *""#,
            // `U` promises that the right side happens: not a safety property.
            r#"!"black SEND <Move>" U "black RECV <Move>""#,
        ] {
            assert!(!safety(f), "{f}");
        }
    }
}
