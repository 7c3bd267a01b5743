//! A check session: one protocol object, its interned states and
//! successor cache, and any number of formulas checked on it.

use std::time::Instant;

use owl_lite::Automaton;

use crate::error::Error;
use crate::ids::ProtoId;
use crate::pattern::{Atom, Valuation};
use crate::product::Prepared;
use crate::protocol::Protocol;
use crate::report::{reexecute, steps_of, Counterexample, Report, Verdict};
use crate::search::{Outcome, Search};
use crate::successors::Explorer;

use super::Checker;

/// Several checks on one protocol object (see [`Checker::session`]).
pub struct CheckSession<P> {
    pub(super) checker: Checker,
    pub(super) explorer: Explorer<P>,
    pub(super) initial: ProtoId,
}

impl<P: Protocol> CheckSession<P> {
    /// Checks a formula.
    pub fn check(&mut self, formula: &str) -> Result<Report, Error> {
        let started = Instant::now();
        let (aut, atoms) = crate::frontend::automaton_for(formula, &self.explorer.alphabet)?;
        self.check_automaton(formula, &aut, &atoms, started)
    }

    /// Checks that no run is accepted by `aut` (the automaton of the
    /// *negated* property), whose atoms are the parsed `atoms`.
    pub(crate) fn check_automaton(
        &mut self,
        formula: &str,
        aut: &Automaton,
        atoms: &[Atom],
        started: Instant,
    ) -> Result<Report, Error> {
        let a = &self.explorer.alphabet;
        let table = Valuation::new(a, atoms);
        let prepared = Prepared::new(aut, a, |l| table.of(a, l));
        let limits = &self.checker.limits;
        let mut search = Search::new(&mut self.explorer, &prepared, limits);
        let outcome = search.run(self.initial);
        let mut stats = search.stats.clone();
        stats.protocol_states = self.explorer.store.len() as u64;
        stats.time = started.elapsed();
        let verdict = match outcome? {
            Outcome::Holds => Verdict::Holds,
            Outcome::Inconclusive(limit) => Verdict::Inconclusive {
                limit,
                explored: stats.product_states,
            },
            Outcome::Violated(raw) => {
                if self.checker.determinism {
                    reexecute(&self.explorer, self.initial, &raw)?;
                }
                let (prefix, cycle, ending) = steps_of(&self.explorer, &raw);
                let dummies = self
                    .explorer
                    .alphabet
                    .types
                    .iter()
                    .filter_map(|t| t.dummy.clone())
                    .collect();
                Verdict::Violated(Counterexample {
                    prefix,
                    cycle,
                    ending,
                    dummies,
                    roles: self.explorer.alphabet.roles.clone(),
                })
            }
        };
        Ok(Report {
            formula: formula.to_string(),
            semantics: limits.semantics,
            verdict,
            stats,
        })
    }
}
