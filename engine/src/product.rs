//! The automaton of the negated property over the object's alphabet: every
//! edge's guard evaluated on every letter once, before the search, so that
//! the search tests a bit instead of a formula. Also decides which strategy
//! the search may use ([`Prepared::safety`]).

use crate::alphabet::{Alphabet, LetterId};
use crate::ids::AutState;
use crate::successors::{next_slot, probe_slot};

/// The automaton with each edge's guard evaluated on every letter.
pub(crate) struct Prepared {
    pub initial: AutState,
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
    /// Per state: it accepts every continuation (see [`Search::run`](crate::search::Search::run)).
    universal: Vec<bool>,
    /// Every cycle of the automaton that could be accepting runs through
    /// universal states only (see [`Search::reachability`](crate::search::Search::reachability)).
    pub(crate) safety: bool,
    /// Bit per action letter: some atom of the formula holds on it (the
    /// letters partial-order reduction must not reorder; see [`crate::por`]).
    visible: Vec<u64>,
}

#[derive(Clone, Copy)]
pub(crate) struct PEdge {
    pub(crate) target: AutState,
    pub(crate) acc: u32,
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
                    target: AutState::new(e.target),
                    acc: e.acc,
                });
                guards.push((q, &e.guard));
            }
        }
        let mut bits = vec![0u64; edges.len() * words];
        let mut wanted = vec![0u64; aut.edges.len() * words];
        // Letter by letter, each valuation computed once and dropped: a
        // table of them (8 bytes a letter) was the peak memory of a check
        // with thousands of roles. The guards are evaluated once per
        // distinct valuation, not per letter: most letters share one (no
        // atom, or the same few, hold on them), so a class of letters costs
        // one evaluation of every guard. A letter on which some atom holds
        // is visible to the partial-order reduction.
        let mut classes: hashbrown::HashMap<u64, Vec<u32>> = hashbrown::HashMap::new();
        let mut visible = vec![0u64; words];
        for l in 0..num_letters {
            let v = valuation(l);
            if v != 0 {
                visible[l / 64] |= 1 << (l % 64);
            }
            let allowed = classes.entry(v).or_insert_with(|| {
                (0..guards.len() as u32)
                    .filter(|&e| guards[e as usize].1.eval(v))
                    .collect()
            });
            let slot = (l < a.num_actions()).then(|| probe_slot(a, l as LetterId) as usize);
            for &e in allowed.iter() {
                let e = e as usize;
                bits[e * words + l / 64] |= 1 << (l % 64);
                if let Some(slot) = slot {
                    let q = guards[e].0;
                    wanted[q * words + slot / 64] |= 1 << (slot % 64);
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
                    edge.target.index() == q
                        && edge.acc & all_acc == all_acc
                        && (0..num_letters)
                            .all(|l| bits[e as usize * words + l / 64] >> (l % 64) & 1 != 0)
                })
            })
            .collect::<Vec<bool>>();
        let safety = only_universal_cycles_accept(&state_edges, &edges, &universal, all_acc);
        Prepared {
            initial: AutState::new(aut.initial),
            state_edges,
            edges,
            bits,
            wanted,
            wants_all,
            universal,
            safety,
            visible,
            words,
            all_acc,
        }
    }

    pub fn num_states(&self) -> usize {
        self.state_edges.len()
    }

    #[inline]
    pub(crate) fn allows(&self, edge: u32, letter: LetterId) -> bool {
        let w = self.bits[edge as usize * self.words + (letter as usize >> 6)];
        w >> (letter & 63) & 1 != 0
    }

    #[inline]
    pub(crate) fn wanted(&self, q: AutState) -> &[u64] {
        &self.wanted[q.index() * self.words..(q.index() + 1) * self.words]
    }

    /// The edges of `q`: the first edge's number and how many there are.
    #[inline]
    pub(crate) fn edges_of(&self, q: AutState) -> (u32, u32) {
        self.state_edges[q.index()]
    }

    /// Edge number `e`.
    #[inline]
    pub(crate) fn edge(&self, e: u32) -> PEdge {
        self.edges[e as usize]
    }

    /// Whether `q` wants every probe slot.
    #[inline]
    pub(crate) fn wants_all(&self, q: AutState) -> bool {
        self.wants_all[q.index()]
    }

    /// Whether some atom of the formula holds on `letter`.
    #[inline]
    pub(crate) fn visible(&self, letter: LetterId) -> bool {
        self.visible[letter as usize >> 6] >> (letter & 63) & 1 != 0
    }

    /// Whether `q` accepts every continuation.
    #[inline]
    pub(crate) fn universal(&self, q: AutState) -> bool {
        self.universal[q.index()]
    }
}

/// Whether every cycle of the automaton whose edges together carry every
/// acceptance mark stays among universal states. Then every accepting run
/// of the product reaches a universal state, so (under the stutter
/// convention, see [`Search::bad_prefix`](crate::search::Search::bad_prefix)) the property is violated exactly
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
            (first..first + ne).fold(0u64, |m, e| m | 1 << edges[e as usize].target.index())
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
                .filter(|e| scc.contains(&(e.target.index())))
                .fold(m, |m, e| m | e.acc)
        });
        scc.is_empty() || marks & all_acc != all_acc
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Message;

    /// Whether the automaton of the negation of `formula` is decided by
    /// reachability ([`Search::reachability`](crate::search::Search::reachability)).
    fn safety(formula: &str) -> bool {
        #[derive(Clone, Debug)]
        struct Move;
        let a = Alphabet::new(
            vec!["white".into(), "black".into()],
            vec![Message::new(Move)],
            vec![],
        );
        let crate::property::Property {
            automaton: aut,
            atoms,
            ..
        } = crate::property::Property::prepare(formula, &a, None).expect("valid formula");
        Prepared::new(&aut, &a, |l| crate::pattern::valuation(&a, &atoms, l)).safety
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
