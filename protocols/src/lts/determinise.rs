//! The subset construction: an LTS made deterministic, within the
//! limits of a build. Apart from the LTS's own accessors because it is
//! the one construction on an LTS that can take exponential time and
//! memory, and so the one that keeps a budget.

use hashbrown::HashMap;

use super::{Label, Lts, LtsBuilder, DETERMINISED};
use crate::ids::StateId;
use crate::limits::{self, Bounds, Budget};
use crate::Error;
use engine::Limits;

impl Lts {
    /// The equivalent deterministic LTS by the subset construction: a state
    /// of the result is a set of states of `self`, final if one of them is.
    /// Returns `self` unchanged (cloned) if it is deterministic already.
    /// Fails if the result would have more than `max_states` states; see
    /// [`Lts::determinise_with`] for a deadline and a memory bound too.
    pub fn determinise(&self, max_states: usize) -> Result<Lts, Error> {
        self.determinise_within(&Bounds::states(max_states))
    }

    /// [`Lts::determinise`] within `limits`: fails with
    /// [`Error::StateBound`], [`Error::Timeout`] or [`Error::MemoryBound`]
    /// (each names the limit and how to raise it) as soon as the subset
    /// construction goes past one. The subset construction of an
    /// `n`-state LTS can have up to `2^n` states, so even a small
    /// nondeterministic `.aut` file needs these.
    ///
    /// ```
    /// use engine::Limits;
    /// use protocols::{Error, Lts};
    /// // "the 3rd action from the end is a Ping": 2^3 subsets
    /// let mut aut = String::from("des (0, 7, 4)\n");
    /// aut += "(0,\"!(Ping,a,b)\",0)\n(0,\"!(Pong,a,b)\",0)\n(0,\"!(Ping,a,b)\",1)\n";
    /// for i in 1..3 {
    ///     aut += &format!("({i},\"!(Ping,a,b)\",{})\n({i},\"!(Pong,a,b)\",{})\n", i + 1, i + 1);
    /// }
    /// let lts = Lts::from_aut(&aut).unwrap();
    /// assert_eq!(lts.determinise_with(&Limits::default()).unwrap().num_states(), 8);
    /// let e = lts.determinise_with(&Limits::default().max_states(5)).unwrap_err();
    /// assert!(matches!(e, Error::StateBound { limit: 5, .. }));
    /// assert!(e.to_string().contains("Limits::max_states"), "{e}");
    /// ```
    pub fn determinise_with(&self, limits: &Limits) -> Result<Lts, Error> {
        self.determinise_within(&Bounds::new(limits))
    }

    /// [`Lts::determinise_with`] within the bounds of a call under way.
    pub(crate) fn determinise_within(&self, limits: &Bounds) -> Result<Lts, Error> {
        if self.is_deterministic() {
            return Ok(self.clone());
        }
        let (dfa, _) = self.subsets(limits)?;
        Ok(dfa)
    }

    /// Subset construction; also returns the set of each new state.
    /// (The LTS built on the fly does the same construction lazily, one
    /// label at a time; see `on_the_fly::Explored::next` for why it is a
    /// separate loop.)
    pub(crate) fn subsets(&self, limits: &Bounds) -> Result<(Lts, Vec<Vec<StateId>>), Error> {
        let mut budget = Budget::new(limits, DETERMINISED);
        let mut b = LtsBuilder::new(self.roles.clone(), self.types.clone());
        let mut sets: Vec<Vec<StateId>> = vec![vec![self.initial]];
        let mut index: HashMap<Vec<StateId>, StateId> = HashMap::new();
        index.insert(vec![self.initial], StateId::new(0));
        budget.add_state(limits::indexed::<u32>(1))?;
        let mut by_label: Vec<(Label, StateId)> = Vec::new();
        let mut edges = Vec::new();
        let mut i = 0;
        while i < sets.len() {
            by_label.clear();
            for &s in &sets[i] {
                by_label.extend_from_slice(self.transitions(s));
                // a set's own transitions can be many: they count as work
                budget.tick()?;
            }
            by_label.sort_unstable();
            by_label.dedup();
            let mut j = 0;
            while j < by_label.len() {
                let label = by_label[j].0;
                let mut target = Vec::new();
                while j < by_label.len() && by_label[j].0 == label {
                    target.push(by_label[j].1);
                    j += 1;
                }
                let id = match index.get(&target) {
                    Some(&id) => id,
                    None => {
                        // Counted before it is stored, so that the bound
                        // stops the construction before the memory is taken.
                        budget.add_state(limits::indexed::<u32>(target.len()))?;
                        let id = StateId::from_index(sets.len());
                        index.insert(target.clone(), id);
                        sets.push(target);
                        id
                    }
                };
                edges.push((label, id));
            }
            budget.add_bytes(edges.len() * std::mem::size_of::<(Label, StateId)>())?;
            let is_final = sets[i].iter().any(|&s| self.is_final(s));
            b.add_state(is_final, std::mem::take(&mut edges));
            i += 1;
        }
        Ok((b.finish(StateId::new(0)), sets))
    }
}
