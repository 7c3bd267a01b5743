//! The letters a WDBA is explicit over: the valuations of the atoms its
//! guards mention that respect the exclusions. Its own file because the
//! construction and the language checks both enumerate letters through it,
//! and it knows nothing of automata beyond their guards.

use crate::automaton::{Automaton, Cube};
use crate::isop::isop;
use crate::raw::Exclusions;

/// Above this many atoms in the guards, no minimisation is attempted (the
/// letters are enumerated).
pub(super) const MAX_VARS: usize = 10;

/// The letters over a set of atoms: each valuation of `vars` (a mask of
/// atom bits) that respects the exclusions, as a full valuation mask.
#[derive(Debug, Clone)]
pub(super) struct Alphabet {
    pub(super) vars: Vec<u32>,
    /// `letters[i]`: the valuation (bit `v` = atom `v` holds) of letter `i`.
    pub(super) letters: Vec<u64>,
    /// For each of the `2^vars.len()` compressed valuations, its letter
    /// index (`usize::MAX` when the exclusions forbid it).
    index: Vec<usize>,
}

impl Alphabet {
    pub(super) fn new(used: u64, excl: &Exclusions) -> Option<Alphabet> {
        let vars: Vec<u32> = (0..64).filter(|v| used & (1u64 << v) != 0).collect();
        if vars.len() > MAX_VARS {
            return None;
        }
        let mut letters = Vec::new();
        let mut index = vec![usize::MAX; 1 << vars.len()];
        for (m, slot) in index.iter_mut().enumerate() {
            let val = vars
                .iter()
                .enumerate()
                .filter(|(bit, _)| m & (1 << bit) != 0)
                .fold(0u64, |acc, (_, &v)| acc | 1 << v);
            if excl.possible(Cube {
                pos: val,
                neg: used & !val,
            }) {
                *slot = letters.len();
                letters.push(val);
            }
        }
        Some(Alphabet {
            vars,
            letters,
            index,
        })
    }

    /// The letter of a full valuation, projected on this alphabet's atoms.
    pub(super) fn letter_of(&self, val: u64) -> usize {
        let m = self
            .vars
            .iter()
            .enumerate()
            .filter(|(_, &v)| val & (1u64 << v) != 0)
            .fold(0usize, |acc, (bit, _)| acc | 1 << bit);
        self.index[m]
    }

    /// A small DNF for the letters `on` selects; letters the exclusions
    /// forbid are don't-cares.
    pub(super) fn guard(&self, on: impl Fn(usize) -> bool) -> Vec<Cube> {
        let lower: Vec<bool> = self
            .index
            .iter()
            .map(|&l| l != usize::MAX && on(l))
            .collect();
        let upper: Vec<bool> = self
            .index
            .iter()
            .map(|&l| l == usize::MAX || on(l))
            .collect();
        isop(&lower, &upper, self.vars.len())
            .into_iter()
            .map(|(pos, neg)| Cube {
                pos: self.expand(pos),
                neg: self.expand(neg),
            })
            .collect()
    }

    /// A compressed valuation (bit `i` = `vars[i]`) as a full one.
    pub(super) fn expand(&self, m: usize) -> u64 {
        self.vars
            .iter()
            .enumerate()
            .filter(|(bit, _)| m & (1 << bit) != 0)
            .fold(0u64, |acc, (_, &v)| acc | 1 << v)
    }
}

/// The atoms mentioned by the guards of `a`, as a mask.
pub(super) fn used_atoms(a: &Automaton) -> u64 {
    a.edges
        .iter()
        .flatten()
        .flat_map(|e| e.guard.cubes.iter())
        .fold(0u64, |m, c| m | c.pos | c.neg)
}
