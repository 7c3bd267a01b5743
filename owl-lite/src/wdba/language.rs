//! Language checks of a built WDBA against the automata it replaces:
//! products and emptiness, only needed when the language is not known to
//! be an obligation. Its own file because it is a verification step after
//! the construction, not part of it.

use hashbrown::HashMap;

use super::alphabet::{used_atoms, Alphabet};
use super::{Wdba, MAX_WORK};
use crate::automaton::{has_accepting_cycle, AccSet, Automaton};
use crate::raw::Exclusions;

impl Wdba {
    /// Whether this WDBA recognises exactly the language of `pos`, given
    /// (on demand: it is only built if the first inclusion holds) an
    /// automaton `neg` for the complement of that language: no word of
    /// `pos` is rejected here (a run of `pos` that is accepting while this
    /// automaton stays outside final states), and no word of `neg` is
    /// accepted here. `false` when over budget or without `neg` (no claim
    /// is made then).
    pub(crate) fn same_language(
        &self,
        pos: &Automaton,
        neg: impl FnOnce() -> Option<Automaton>,
        excl: &Exclusions,
    ) -> bool {
        self.contains(pos, excl) == Some(true)
            && neg().is_some_and(|neg| self.disjoint_from(&neg, excl) == Some(true))
    }

    /// The alphabet of a product with `b`: every atom either mentions,
    /// and how `b`'s atom indices map to this automaton's.
    fn product_alphabet(
        &self,
        b: &Automaton,
        mine: &[String],
        excl: &Exclusions,
    ) -> Option<(Alphabet, Vec<u32>)> {
        let map: Vec<u32> = b
            .atoms
            .iter()
            .map(|x| mine.iter().position(|y| y == x).map(|i| i as u32))
            .collect::<Option<Vec<u32>>>()?;
        let b_used = used_atoms(b);
        let used = self.alphabet.vars.iter().fold(0u64, |m, &v| m | 1 << v)
            | map
                .iter()
                .enumerate()
                .filter(|(i, _)| b_used & (1u64 << i) != 0)
                .fold(0u64, |m, (_, &j)| m | 1 << j);
        // Both automata need only be right on letters that respect the
        // exclusions (the atom indices are this automaton's).
        let alphabet = Alphabet::new(used, excl)?;
        Some((alphabet, map))
    }

    /// The explicit product of this automaton (with its sink, numbered
    /// `num_states()`, when `with_sink`) and `b`: nodes `(state, b state)`
    /// and edges marked with `b`'s acceptance sets.
    #[allow(clippy::type_complexity)]
    fn product(
        &self,
        b: &Automaton,
        with_sink: bool,
        excl: &Exclusions,
    ) -> Option<(Vec<(usize, usize)>, Vec<Vec<(usize, AccSet)>>)> {
        let (alphabet, map) = self.product_alphabet(b, &self.atoms, excl)?;
        let to_b = |val: u64| {
            map.iter()
                .enumerate()
                .filter(|(_, &j)| val & (1u64 << j) != 0)
                .fold(0u64, |m, (i, _)| m | 1 << i)
        };
        let sink = self.num_states();
        let mut id: HashMap<(usize, usize), usize> = HashMap::new();
        let mut nodes = vec![(self.initial, b.initial)];
        id.insert(nodes[0], 0);
        let mut succ: Vec<Vec<(usize, AccSet)>> = Vec::new();
        let mut i = 0;
        while i < nodes.len() {
            if nodes.len() * alphabet.letters.len() > MAX_WORK {
                return None;
            }
            let (s, q) = nodes[i];
            let mut out = Vec::new();
            for &val in &alphabet.letters {
                let t = if s == sink {
                    Some(sink)
                } else {
                    self.delta[s][self.classes.of[self.alphabet.letter_of(val)]]
                };
                let t = match t {
                    Some(t) => t,
                    None if with_sink => sink,
                    None => continue,
                };
                let bval = to_b(val);
                for e in &b.edges[q] {
                    if e.guard.eval(bval) {
                        let key = (t, e.target);
                        let n = *id.entry(key).or_insert_with(|| {
                            nodes.push(key);
                            nodes.len() - 1
                        });
                        out.push((n, e.acc));
                    }
                }
            }
            succ.push(out);
            i += 1;
        }
        Some((nodes, succ))
    }

    /// `L(pos) ⊆ L(self)`, or `None` over budget.
    fn contains(&self, pos: &Automaton, excl: &Exclusions) -> Option<bool> {
        let (nodes, succ) = self.product(pos, true, excl)?;
        let sink = self.num_states();
        let outside = |n: usize| nodes[n].0 == sink || !self.final_[nodes[n].0];
        Some(!has_accepting_cycle(&succ, pos.all_sets(), outside, |_| {
            true
        }))
    }

    /// `L(self) ∩ L(neg) = ∅`, or `None` over budget.
    fn disjoint_from(&self, neg: &Automaton, excl: &Exclusions) -> Option<bool> {
        let (nodes, succ) = self.product(neg, false, excl)?;
        let is_final = |n: usize| self.final_[nodes[n].0];
        Some(!has_accepting_cycle(
            &succ,
            neg.all_sets(),
            |_| true,
            is_final,
        ))
    }
}
