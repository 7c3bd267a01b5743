//! From a [`Spec`] to its global [`Lts`]: the operational semantics.
//!
//! - `terms.rs`: the residual terms, hash-consed, and the rules of their
//!   steps ([`Terms`]);
//! - `global.rs`: a global state, a term and the channel contents
//!   ([`Global`]), and the FIFO rule;
//! - here: the compiler, which explores the global states breadth-first
//!   from the initial one and numbers them into an [`Lts`].
//!
//! `on_the_fly.rs` explores the same global states by the same rules, on
//! demand.

mod global;
mod terms;

pub(crate) use global::Global;
pub(crate) use terms::{Footprints, Terms, MAX_TERMS};

use hashbrown::HashMap;

use crate::limits::{Budget, Limits};
use crate::lts::Lts;
use crate::spec::Spec;
use crate::Error;

/// [`Error::StateBound`]'s `what` for a compilation.
pub(crate) const GLOBAL_LTS: &str = "global LTS";

/// The estimated bytes of a new global state: the state and its channel
/// contents, once in the list of states and once as the key of the index.
fn global_bytes(g: &Global) -> usize {
    2 * (std::mem::size_of::<Global>() + std::mem::size_of_val(&*g.chans))
        + std::mem::size_of::<(Global, u32)>()
}

pub(crate) fn compile(spec: &Spec, limits: &Limits) -> Result<Lts, Error> {
    let mut terms = Terms::new(spec)?;
    let main = terms.intern(&spec.main)?;
    let mut budget = Budget::new(limits, GLOBAL_LTS);
    terms.unfold_all(main, MAX_TERMS, Some(&mut budget))?;
    let mut states: Vec<Global> = vec![Global {
        term: main,
        chans: Box::new([]),
    }];
    budget.add_state(global_bytes(&states[0]))?;
    let mut index: HashMap<Global, u32> = HashMap::new();
    index.insert(states[0].clone(), 0);
    let mut finals = Vec::new();
    let mut all_edges = Vec::new();
    let mut i = 0;
    while i < states.len() {
        let g = states[i].clone();
        let mut edges = Vec::new();
        for (l, next) in terms.global_steps(&g)? {
            let id = match index.get(&next) {
                Some(&id) => id,
                None => {
                    let id = states.len() as u32;
                    budget.add_state(global_bytes(&next))?;
                    index.insert(next.clone(), id);
                    states.push(next);
                    id
                }
            };
            edges.push((l, id));
        }
        // the edges are held here and again in the built LTS
        budget.add_bytes(2 * std::mem::size_of_val(&edges[..]))?;
        finals.push(terms.is_final(&g)?);
        all_edges.push(edges);
        i += 1;
    }
    let mut b = terms.names;
    for (edges, f) in all_edges.into_iter().zip(finals) {
        b.add_state(f, edges);
    }
    Ok(b.finish(0))
}
