//! Minimisation of weak deterministic Büchi automata (WDBA) for obligation
//! languages, after Dax, Eisinger and Klaedtke, "Mechanizing the powerset
//! construction for restricted classes of ω-automata" (ATVA'07), as in
//! Spot's `minimize_obligation`.
//!
//! 1. **Powerset**: the translated automaton is determinised letter by
//!    letter (letters are the valuations of the atoms its guards mention);
//!    a missing successor is the implicit rejecting sink.
//! 2. **Accepting SCCs**: a non-trivial SCC of the deterministic automaton
//!    is accepting iff the word of *one* of its cycles, read from the
//!    states of the powerset state where the cycle starts, is accepted by
//!    the original automaton. For an obligation language every cycle of an
//!    SCC agrees (Dax et al.), so the automaton is a WDBA for the same
//!    language; for other languages it may not be, which is why the result
//!    is only trusted for syntactic obligation formulas and otherwise
//!    checked (see [`Wdba::same_language`]).
//! 3. **Colouring** (Löding): transient states take the colour of their
//!    smallest successor so that as many of them as possible can merge with
//!    either side; states of accepting SCCs are even, of rejecting SCCs
//!    odd; states that cannot reach an accepting SCC go to the sink.
//! 4. **Minimisation** as a DFA (Moore's partition refinement) with the even
//!    states final. Sound for the Büchi language: a run of the quotient
//!    visits final classes infinitely often iff the run of the WDBA it
//!    mirrors does, and in a weak automaton that happens iff the run ends in
//!    an accepting SCC.
//!
//! Everything is explicit over letters, so the construction gives up
//! (returns `None`) above [`MAX_VARS`](alphabet::MAX_VARS) atoms or [`MAX_WORK`] state×letter
//! pairs: a minimisation is an optimisation, never a reason to fail.

mod alphabet;
mod language;
#[cfg(test)]
mod tests;

use hashbrown::HashMap;

use crate::automaton::{has_accepting_cycle, Automaton};
use crate::raw::{Exclusions, RawAutomaton, RawEdge};
use crate::scc::sccs;
use alphabet::{used_atoms, Alphabet};

/// Budget on states × letters of the powerset construction and of the
/// products of the language check: bounds time (far below a millisecond
/// per thousand pairs) and memory.
pub(crate) const MAX_WORK: usize = 1 << 13;

/// How many self-loops [`Wdba::build`] tests against its SCC's verdict,
/// at most, when the language is not known to be an obligation (each test
/// is a product of the automaton with a one-letter word).
const MAX_LOOP_CHECKS: usize = 64;

/// Whether `a` accepts `cycle^ω` from some state of `starts`.
fn accepts_cycle_from(a: &Automaton, starts: &[usize], cycle: &[u64]) -> bool {
    let succ = a.lasso_product(starts, &[], cycle);
    has_accepting_cycle(&succ, a.all_sets(), |_| true, |_| true)
}

/// A minimal weak deterministic Büchi automaton, explicit over letters.
#[derive(Debug, Clone)]
pub(crate) struct Wdba {
    alphabet: Alphabet,
    /// The letter classes `delta` is indexed by.
    classes: Classes,
    /// `delta[s][c]`: the successor of state `s` on the letters of class
    /// `c` (`None`: the rejecting sink).
    delta: Vec<Vec<Option<usize>>>,
    /// Whether a state is final (its runs accept iff they stay among final
    /// states, which in this automaton means: visit them infinitely often).
    final_: Vec<bool>,
    initial: usize,
    /// The atom texts of the automaton it was built from (bit `i` of a
    /// valuation is `atoms[i]`).
    atoms: Vec<String>,
}

/// A deterministic transition table: `delta[s][c]` is the successor of
/// state `s` on letter class `c`, `None` for the rejecting sink.
type Table = Vec<Vec<Option<usize>>>;

/// The letters of an alphabet grouped by what they do in the automaton
/// being determinised: two letters are in one class when they enable the
/// same edges (so the same successors, with the same marks, from every
/// state). Everything built from that automaton (the powerset, its
/// minimisation, the cycles that decide acceptance) then treats them
/// alike, so the construction
/// runs over classes, often far fewer than the `2^atoms` letters (a guard
/// over one atom of seven splits the letters in two, not 128).
#[derive(Debug, Clone)]
struct Classes {
    /// `of[l]`: the class of letter `l` of the alphabet.
    of: Vec<usize>,
    /// `letter[c]`: the valuation of one letter of class `c`.
    letter: Vec<u64>,
}

/// Determinises `a` by the powerset construction over letter classes;
/// `None` above the budget. Returns the sets (sorted state lists), the
/// transition table and the classes.
fn powerset(a: &Automaton, alphabet: &Alphabet) -> Option<(Vec<Vec<usize>>, Table, Classes)> {
    let n_letters = alphabet.letters.len();
    let n_q = a.edges.len();
    if n_q * n_letters > MAX_WORK {
        return None;
    }
    // Letters are grouped by the edges they enable (so by targets *and*
    // marks: the self-loop test of `Wdba::build` must tell `a` from `!a`
    // in `G F !a`'s single state, whose edges both loop).
    let n_edges: usize = a.edges.iter().map(Vec::len).sum();
    let ew = n_edges.div_ceil(64).max(1);
    let mut enabled = vec![0u64; n_letters * ew];
    for (l, &val) in alphabet.letters.iter().enumerate() {
        if crate::stop::poll() {
            return None;
        }
        let row = &mut enabled[l * ew..(l + 1) * ew];
        for (g, e) in a.edges.iter().flatten().enumerate() {
            if e.guard.eval(val) {
                row[g / 64] |= 1 << (g % 64);
            }
        }
    }
    let mut class_ids: HashMap<&[u64], usize> = HashMap::new();
    let mut classes = Classes {
        of: Vec::with_capacity(n_letters),
        letter: Vec::new(),
    };
    let mut rep_letter = Vec::new();
    for (l, &val) in alphabet.letters.iter().enumerate() {
        let fresh = class_ids.len();
        let c = *class_ids
            .entry(&enabled[l * ew..(l + 1) * ew])
            .or_insert(fresh);
        if c == fresh {
            classes.letter.push(val);
            rep_letter.push(l);
        }
        classes.of.push(c);
    }
    let n_classes = rep_letter.len();
    // Sets of states are bitsets of `words` words; the successors of each
    // state on each class are computed once (class-major, `col` words per
    // class), so a powerset step is a union of words.
    let words = n_q.div_ceil(64);
    let col = n_q * words;
    let mut step = vec![0u64; n_classes * col];
    let mut g = 0;
    for (q, es) in a.edges.iter().enumerate() {
        for e in es {
            for (c, &l) in rep_letter.iter().enumerate() {
                if enabled[l * ew + g / 64] & (1 << (g % 64)) != 0 {
                    step[c * col + q * words + e.target / 64] |= 1 << (e.target % 64);
                }
            }
            g += 1;
        }
    }
    let rep_col: Vec<usize> = (0..n_classes).map(|c| c * col).collect();
    let mut init = vec![0u64; words];
    init[a.initial / 64] |= 1 << (a.initial % 64);
    let mut ids: HashMap<Vec<u64>, usize> = HashMap::new();
    let mut sets: Vec<Vec<u64>> = vec![init.clone()];
    ids.insert(init, 0);
    let mut delta: Table = Vec::new();
    let mut t = vec![0u64; words];
    let mut i = 0;
    while i < sets.len() {
        if sets.len() * n_classes > MAX_WORK || crate::stop::poll() {
            return None;
        }
        let members: Vec<usize> = (0..n_q)
            .filter(|&q| sets[i][q / 64] & (1 << (q % 64)) != 0)
            .collect();
        let mut row = Vec::with_capacity(n_classes);
        for &base in &rep_col {
            t.iter_mut().for_each(|w| *w = 0);
            for &q in &members {
                let succ = &step[base + q * words..base + (q + 1) * words];
                for (w, x) in t.iter_mut().zip(succ) {
                    *w |= x;
                }
            }
            if t.iter().all(|&w| w == 0) {
                row.push(None);
                continue;
            }
            let id = match ids.get(t.as_slice()) {
                Some(&id) => id,
                None => {
                    sets.push(t.clone());
                    ids.insert(t.clone(), sets.len() - 1);
                    sets.len() - 1
                }
            };
            row.push(Some(id));
        }
        delta.push(row);
        i += 1;
    }
    let sets = sets
        .iter()
        .map(|b| {
            (0..n_q)
                .filter(|&q| b[q / 64] & (1 << (q % 64)) != 0)
                .collect()
        })
        .collect();
    Some((sets, delta, classes))
}

/// The letters of a cycle from `start` back to itself inside its SCC
/// (breadth-first, so a shortest one); `letters[c]` is a letter of column
/// `c` of `delta`.
fn cycle_through(
    delta: &[Vec<Option<usize>>],
    comp: &[usize],
    start: usize,
    letters: &[u64],
) -> Vec<u64> {
    let mut parent: HashMap<usize, (usize, usize)> = HashMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(s) = queue.pop_front() {
        for (l, t) in delta[s].iter().enumerate() {
            let Some(t) = *t else { continue };
            if comp[t] != comp[start] {
                continue;
            }
            if t == start {
                // Walk back to `start`.
                let mut word = vec![letters[l]];
                let mut cur = s;
                while cur != start {
                    let (p, pl) = parent[&cur];
                    word.push(letters[pl]);
                    cur = p;
                }
                word.reverse();
                return word;
            }
            if let hashbrown::hash_map::Entry::Vacant(v) = parent.entry(t) {
                v.insert((s, l));
                queue.push_back(t);
            }
        }
    }
    unreachable!("a non-trivial SCC has a cycle through each of its states")
}

impl Wdba {
    /// Determinises and minimises `a`. The result has the same language as
    /// `a` when that language is an obligation (always the case for a
    /// syntactic obligation formula); `None` when over budget or when
    /// nothing is accepted.
    ///
    /// With `trusted` (the caller knows the language is an obligation), the
    /// self-loops of each SCC are not tested against its verdict: that test
    /// only serves to give up early on languages that are not.
    pub(crate) fn build(a: &Automaton, excl: &Exclusions, trusted: bool) -> Option<Wdba> {
        let alphabet = Alphabet::new(used_atoms(a), excl)?;
        let (sets, delta, classes) = powerset(a, &alphabet)?;
        let n = sets.len();
        let succ: Vec<Vec<usize>> = delta
            .iter()
            .map(|r| r.iter().flatten().copied().collect())
            .collect();
        let comp = sccs(&succ);
        let n_comp = comp.iter().copied().max().map_or(0, |m| m + 1);
        let mut rep = vec![usize::MAX; n_comp];
        let mut cyclic = vec![false; n_comp];
        for s in 0..n {
            if rep[comp[s]] == usize::MAX {
                rep[comp[s]] = s;
            }
            if succ[s].iter().any(|&t| comp[t] == comp[s]) {
                cyclic[comp[s]] = true;
            }
        }
        // Successor SCCs, for the colouring (components are numbered
        // successors first, so one ascending pass sees them before).
        let mut comp_succ: Vec<Vec<usize>> = vec![Vec::new(); n_comp];
        for s in 0..n {
            for &t in &succ[s] {
                if comp[t] != comp[s] {
                    comp_succ[comp[s]].push(comp[t]);
                }
            }
        }
        let top = 2 * n_comp + 2;
        let mut loop_checks = MAX_LOOP_CHECKS;
        let mut useful = vec![false; n_comp];
        let mut colour = vec![top; n_comp];
        for c in 0..n_comp {
            let mut k = top;
            for &d in &comp_succ[c] {
                if useful[d] {
                    useful[c] = true;
                    k = k.min(colour[d]);
                }
            }
            if !cyclic[c] {
                colour[c] = k;
                continue;
            }
            let cycle = cycle_through(&delta, &comp, rep[c], &classes.letter);
            let accepting = accepts_cycle_from(a, &sets[rep[c]], &cycle);
            // For an obligation language all cycles of an SCC agree (that
            // is what makes one cycle enough); a self-loop that disagrees
            // proves the language is not one, and saves the costly check
            // (translating the negation and two products). Every state's
            // self-loops are tried, not only the representative's: in
            // `G F p0 -> G F p1` the representative `{0,1,2}` loops on `!p0`
            // only (accepted), its SCC-mate `{0,1}` on `p0 & !p1`
            // (rejected). Bounded by `loop_checks`: past it, the language
            // check decides.
            if !trusted {
                let members = (0..n).filter(|&s| comp[s] == c);
                for s in members {
                    for (l, _) in delta[s].iter().enumerate().filter(|(_, t)| **t == Some(s)) {
                        if loop_checks == 0 {
                            break;
                        }
                        loop_checks -= 1;
                        if accepts_cycle_from(a, &sets[s], &classes.letter[l..=l]) != accepting {
                            return None;
                        }
                    }
                }
            }
            if accepting {
                useful[c] = true;
                colour[c] = k & !1;
            } else {
                // No underflow: colours start at `top` and each SCC on a
                // chain lowers them by at most one, so they stay above
                // `top - n_comp > 0`.
                colour[c] = if k % 2 == 1 { k } else { k - 1 };
            }
        }
        if !useful[comp[0]] {
            return None;
        }
        // Moore's partition refinement; useless states are the sink (-1).
        let n_letters = classes.letter.len();
        let mut class: Vec<usize> = (0..n)
            .map(|s| {
                if !useful[comp[s]] {
                    usize::MAX
                } else {
                    usize::from(colour[comp[s]] % 2 == 0)
                }
            })
            .collect();
        let target_class = |class: &[usize], t: Option<usize>| t.map_or(usize::MAX, |t| class[t]);
        let mut n_classes = 0;
        loop {
            let mut ids: HashMap<Vec<usize>, usize> = HashMap::new();
            let mut next = vec![usize::MAX; n];
            for s in 0..n {
                if class[s] == usize::MAX {
                    continue;
                }
                let mut sig = Vec::with_capacity(n_letters + 1);
                sig.push(class[s]);
                sig.extend(delta[s].iter().map(|&t| target_class(&class, t)));
                let fresh = ids.len();
                next[s] = *ids.entry(sig).or_insert(fresh);
            }
            let stable = ids.len() == n_classes;
            n_classes = ids.len();
            class = next;
            if stable {
                break;
            }
        }
        let mut rep_of = vec![usize::MAX; n_classes];
        for s in 0..n {
            if class[s] != usize::MAX && rep_of[class[s]] == usize::MAX {
                rep_of[class[s]] = s;
            }
        }
        let delta = rep_of
            .iter()
            .map(|&s| {
                delta[s]
                    .iter()
                    .map(|&t| t.and_then(|t| (class[t] != usize::MAX).then_some(class[t])))
                    .collect()
            })
            .collect();
        let final_ = rep_of.iter().map(|&s| colour[comp[s]] % 2 == 0).collect();
        Some(Wdba {
            alphabet,
            classes,
            delta,
            final_,
            initial: class[0],
            atoms: a.atoms.clone(),
        })
    }

    /// Number of states.
    pub(crate) fn num_states(&self) -> usize {
        self.delta.len()
    }

    /// The automaton as a raw TGBA with one acceptance set (the edges
    /// leaving final states), one minterm cube per letter: the reductions
    /// of [`crate::reduce::finish`] merge the guards.
    pub(crate) fn to_raw(&self) -> RawAutomaton {
        let edges = self
            .delta
            .iter()
            .enumerate()
            .map(|(s, row)| {
                let mut targets: Vec<usize> = row.iter().flatten().copied().collect();
                targets.sort_unstable();
                targets.dedup();
                targets
                    .into_iter()
                    .map(|t| RawEdge {
                        target: t,
                        cubes: self.alphabet.guard(|l| row[self.classes.of[l]] == Some(t)),
                        acc: u64::from(self.final_[s]),
                    })
                    .collect()
            })
            .collect();
        RawAutomaton {
            edges,
            initial: self.initial,
            acceptance_sets: 1,
        }
    }
}
