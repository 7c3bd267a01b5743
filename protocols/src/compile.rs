//! From a [`Spec`] to its global [`Lts`]: the operational semantics.
//!
//! - `terms.rs`: the residual terms, hash-consed, and the rules of their
//!   steps ([`Terms`]);
//! - `global.rs`: a global state, a term and the channel contents
//!   ([`InTransit`]) and the FIFO rule;
//! - here: the compiler, which explores the global states breadth-first
//!   from the initial one and numbers them into an [`Lts`].
//!
//! `on_the_fly.rs` explores the same global states by the same rules, on
//! demand, and keeps them the same way (interned channel contents, a
//! global state as two numbers).
//!
//! # Memory
//!
//! The compiler is meant to cost a few hundred bytes a global state
//! (the goal: ≤ 500 B; it was 540–970 B of heap with a `Global` per
//! state held twice, a `Vec` of edges per state and a cached step list
//! per state's term). So:
//! - a global state is two numbers, its term and its channel contents,
//!   and the contents are interned ([`Interner`]): the protocols seen so
//!   far have a few thousand distinct contents for up to a million states;
//! - the index of the states is a table of state numbers that hashes and
//!   compares the list entries they point to, not a second copy of them;
//! - the transitions go straight into one packed array in state order
//!   (breadth-first numbering is state order), never a `Vec` a state, as
//!   (label number, target) pairs ([`PackedEdges`]), made the LTS's
//!   `(Label, u32)` edges once the rest is freed;
//! - the steps of a state's own term are not cached ([`Terms::steps_once`]):
//!   almost every term is the term of one state, whose steps are asked once.

mod global;
mod terms;

pub(crate) use global::{allows, chans_after, InTransit};
pub(crate) use terms::{Footprints, Terms, MAX_TERMS};

use std::hash::{BuildHasher, Hash};

use hashbrown::hash_table::Entry;
use hashbrown::{DefaultHashBuilder, HashMap, HashTable};

use crate::ids::StateId;
use crate::limits::{Bounds, Budget};
use crate::lts::{Label, Lts, LtsBuilder};
use crate::spec::Spec;
use crate::Error;
use engine::Limits;

/// [`Error::StateBound`]'s `what` for a compilation.
pub(crate) const GLOBAL_LTS: crate::Built = crate::Built::GlobalLts;

/// [`Error::TooLarge`]'s `items` for the interned channel contents.
pub(crate) const CHANNEL_CONTENTS: &str = "distinct channel contents";

/// The estimated bytes of one global state in the compiler's tables: its
/// entry in the list, its slot in the index (at the table's lowest load,
/// with its control byte), its offset and final bit in the LTS.
const STATE_BYTES: usize = 8 + 2 * (4 + 1) + 4 + 1;

/// The most states, transitions or channel contents the compiled LTS
/// numbers: it stores them as 32-bit numbers and offsets.
const MAX_NUMBERED: usize = u32::MAX as usize;

impl crate::Spec {
    /// Compiles to the global LTS within `limits`: fails with
    /// [`Error::StateBound`], [`Error::Timeout`] or [`Error::MemoryBound`]
    /// as soon as the construction goes past one (see the table of
    /// [`Limits`]; the time counts from this call).
    /// [`Spec::compile`](crate::Spec::compile) is this with
    /// [`Limits::default`].
    pub fn compile_with(&self, limits: &Limits) -> Result<crate::Lts, Error> {
        compile(self, &Bounds::new(limits))
    }
}

/// `n`, a count or an index of `items` ("transitions", "channel
/// contents"), as the 32-bit number the LTS stores, if it is at most `max`
/// ([`MAX_NUMBERED`] but in tests); otherwise [`Error::TooLarge`]. The
/// memory limit stops today's protocols long before 2³² transitions, but a
/// larger limit or a denser protocol must meet an error that says so, not
/// offsets that wrap and an LTS whose edges belong to the wrong states.
fn numbered(n: usize, max: usize, items: &'static str) -> Result<u32, Error> {
    match u32::try_from(n) {
        Ok(v) if n <= max => Ok(v),
        _ => Err(Error::TooLarge {
            what: GLOBAL_LTS,
            items,
            max: max.min(MAX_NUMBERED),
        }),
    }
}

/// Sequences of `T` numbered once each and stored back to back: one
/// offsets array and one packed array (a `Box` a sequence would cost an
/// allocation and its header each, and a hash map keyed by them a second
/// copy).
pub(crate) struct Interner<T> {
    items: Vec<T>,
    /// Sequence `i` is `items[starts[i]..starts[i + 1]]`.
    starts: Vec<usize>,
    table: HashTable<u32>,
    hasher: DefaultHashBuilder,
}

impl<T: Copy + Eq + Hash> Interner<T> {
    pub(crate) fn new() -> Self {
        Interner {
            items: Vec::new(),
            starts: vec![0],
            table: HashTable::new(),
            hasher: DefaultHashBuilder::default(),
        }
    }

    pub(crate) fn get(&self, id: u32) -> &[T] {
        let i = id as usize;
        &self.items[self.starts[i]..self.starts[i + 1]]
    }

    /// The number of `seq`, and whether it is new; [`Error::TooLarge`]
    /// (naming `what`) if a new one would not fit in 32 bits.
    pub(crate) fn intern(&mut self, seq: &[T], what: &'static str) -> Result<(u32, bool), Error> {
        let Interner {
            items,
            starts,
            table,
            hasher,
        } = self;
        let slice = |i: u32| &items[starts[i as usize]..starts[i as usize + 1]];
        let hash = hasher.hash_one(seq);
        if let Some(&id) = table.find(hash, |&i| slice(i) == seq) {
            return Ok((id, false));
        }
        let id = numbered(starts.len() - 1, MAX_NUMBERED, what)?;
        items.extend_from_slice(seq);
        starts.push(items.len());
        let rehash = |&i: &u32| hasher.hash_one(&items[starts[i as usize]..starts[i as usize + 1]]);
        table.insert_unique(hash, id, rehash);
        Ok((id, true))
    }
}

/// The global states found so far, numbered in the order found: a state
/// is `(term, channel contents)`, the latter an [`Interner`] number.
struct States {
    list: Vec<(u32, u32)>,
    /// Indices into `list`, hashed by the entry they point to.
    table: HashTable<u32>,
    hasher: DefaultHashBuilder,
}

impl States {
    fn new() -> Self {
        States {
            list: Vec::new(),
            table: HashTable::new(),
            hasher: DefaultHashBuilder::default(),
        }
    }

    /// The number of state `g`; a new state is counted against `budget`
    /// before it is stored, so that a bound stops the compilation before
    /// the memory is taken.
    fn id(&mut self, g: (u32, u32), budget: &mut Budget) -> Result<u32, Error> {
        let States {
            list,
            table,
            hasher,
        } = self;
        let hash = hasher.hash_one(g);
        match table.entry(
            hash,
            |&i| list[i as usize] == g,
            |&i| hasher.hash_one(list[i as usize]),
        ) {
            Entry::Occupied(e) => Ok(*e.get()),
            Entry::Vacant(e) => {
                budget.add_state(STATE_BYTES)?;
                let id = u32::try_from(list.len()).map_err(|_| Error::StateBound {
                    limit: u32::MAX as usize,
                    what: GLOBAL_LTS,
                })?;
                list.push(g);
                e.insert(id);
                Ok(id)
            }
        }
    }
}

/// The bytes of an edge while the compiler searches ([`PackedEdges`]).
const PACKED_EDGE: usize = std::mem::size_of::<(u32, u32)>();

/// The transitions found so far, in state order, each as (label number,
/// target): 8 bytes an edge where the LTS's `(Label, u32)` takes 20, and a
/// spec has few distinct labels. The array grows by doubling while the
/// search runs, so packing it saves more than the 12 bytes: the slack
/// is 8 bytes an edge at most, not 20 (`npb-is-concurrent:8`: 5 M edges,
/// 168 MB of `(Label, u32)` capacity at the peak, now 67 MB).
struct PackedEdges {
    /// The most edges in all ([`MAX_NUMBERED`]; smaller in tests, to
    /// reach the check without 2³² edges).
    max_edges: usize,
    labels: Vec<Label>,
    label_ids: HashMap<Label, u32>,
    edges: Vec<(u32, u32)>,
    offsets: Vec<u32>,
    finals: Vec<bool>,
}

impl PackedEdges {
    fn new(max_edges: usize) -> Self {
        PackedEdges {
            max_edges,
            labels: Vec::new(),
            label_ids: HashMap::new(),
            edges: Vec::new(),
            offsets: Vec::new(),
            finals: Vec::new(),
        }
    }

    /// Adds the next state with its transitions (any order, duplicates
    /// removed); `edges` is left empty for the next state.
    /// [`Error::TooLarge`] if the edges would be more than the offsets can
    /// number: checked before any is stored, so nothing wraps.
    fn add_state(&mut self, is_final: bool, edges: &mut Vec<(Label, u32)>) -> Result<(), Error> {
        if self.offsets.is_empty() {
            self.offsets.push(0);
        }
        // sorted by label then target, as the LTS keeps them: packing
        // keeps the order
        edges.sort_unstable();
        edges.dedup();
        let end = numbered(
            self.edges.len().saturating_add(edges.len()),
            self.max_edges,
            "transitions",
        )?;
        for &(l, t) in edges.iter() {
            // Fits: there are no more distinct labels than edges.
            let next = self.labels.len() as u32;
            let id = *self.label_ids.entry(l).or_insert_with(|| {
                self.labels.push(l);
                next
            });
            self.edges.push((id, t));
        }
        edges.clear();
        self.offsets.push(end);
        self.finals.push(is_final);
        Ok(())
    }

    /// The LTS, its initial state 0, its names from `names`.
    fn finish(mut self, names: LtsBuilder) -> Lts {
        if self.offsets.is_empty() {
            self.offsets.push(0);
        }
        // give back the doubling's slack before the full edges are made
        // (a large block shrinks in place)
        self.edges.shrink_to_fit();
        let mut edges = Vec::with_capacity(self.edges.len());
        edges.extend(
            self.edges
                .iter()
                .map(|&(l, t)| (self.labels[l as usize], StateId::new(t))),
        );
        drop(std::mem::take(&mut self.edges));
        names.finish_parts(StateId::new(0), self.offsets, edges, self.finals)
    }
}

pub(crate) fn compile(spec: &Spec, limits: &Bounds) -> Result<Lts, Error> {
    let mut terms = Terms::new(spec)?;
    let main = terms.intern(&spec.main)?;
    let mut budget = Budget::new(limits, GLOBAL_LTS);
    terms.unfold_all(main, MAX_TERMS, Some(&mut budget))?;
    let mut chans = Interner::<InTransit>::new();
    let (empty, _) = chans.intern(&[], CHANNEL_CONTENTS)?;
    let mut states = States::new();
    let mut packed = PackedEdges::new(MAX_NUMBERED);
    states.id((main, empty), &mut budget)?;
    let mut terms_bytes = terms.approx_bytes();
    budget.add_bytes(terms_bytes)?;
    // scratch buffers, reused by every state
    let (mut here, mut after, mut edges) = (Vec::new(), Vec::new(), Vec::<(Label, u32)>::new());
    let mut i = 0;
    while i < states.list.len() {
        let (term, c) = states.list[i];
        here.clear();
        here.extend_from_slice(chans.get(c));
        for &(l, next) in terms.steps_once(term)?.iter() {
            if !chans_after(&here, l, &mut after) {
                continue;
            }
            let (c2, new) = chans.intern(&after, CHANNEL_CONTENTS)?;
            if new {
                budget.add_bytes(std::mem::size_of_val(&after[..]) + 2 * 8 + 2 * (4 + 1))?;
            }
            edges.push((l, states.id((next, c2), &mut budget)?));
        }
        // each edge packed now and as the LTS's edge at the end
        budget.add_bytes(edges.len() * (PACKED_EDGE + std::mem::size_of::<(Label, u32)>()))?;
        // the terms that the steps made (the successors' terms, their
        // cached steps): the other half of the compiler's memory
        let now = terms.approx_bytes();
        budget.add_bytes(now.saturating_sub(terms_bytes))?;
        terms_bytes = now;
        let is_final = here.is_empty() && terms.may_end(term)?;
        packed.add_state(is_final, &mut edges)?;
        i += 1;
    }
    // Everything but the packed edges goes before the LTS's edges are
    // made, so that the peak is the larger of the search's and this.
    let names = terms.into_names();
    drop((states, chans));
    Ok(packed.finish(names))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{RoleIndex, TypeIndex};

    fn label(n: u32) -> Label {
        Label::send(TypeIndex::new(n), RoleIndex::new(0), RoleIndex::new(1))
    }

    #[test]
    fn a_number_past_32_bits_is_an_error_not_a_wrap() {
        assert_eq!(numbered(7, MAX_NUMBERED, "transitions"), Ok(7));
        assert_eq!(
            numbered(MAX_NUMBERED, MAX_NUMBERED, "transitions"),
            Ok(u32::MAX)
        );
        let e = numbered(MAX_NUMBERED + 1, MAX_NUMBERED, "transitions").unwrap_err();
        assert_eq!(
            e,
            Error::TooLarge {
                what: GLOBAL_LTS,
                items: "transitions",
                max: MAX_NUMBERED
            }
        );
        let text = e.to_string();
        assert!(text.contains("more than 4294967295 transitions"), "{text}");
        assert!(text.contains("--runtime on-the-fly"), "{text}");
    }

    /// The packed edges stop at their bound before storing an edge past
    /// it: the offsets stay the edges' true positions.
    #[test]
    fn edges_past_the_bound_are_an_error_before_they_are_stored() {
        let mut packed = PackedEdges::new(3);
        let mut edges = vec![(label(0), 1), (label(1), 2)];
        packed.add_state(false, &mut edges).unwrap();
        assert!(edges.is_empty());
        let mut edges = vec![(label(0), 0), (label(2), 1)];
        let e = packed.add_state(true, &mut edges).unwrap_err();
        assert!(
            matches!(
                e,
                Error::TooLarge {
                    items: "transitions",
                    max: 3,
                    ..
                }
            ),
            "{e:?}"
        );
        assert_eq!(packed.edges.len(), 2);
        assert_eq!(packed.offsets, vec![0, 2]);
        // Exactly at the bound still fits.
        let mut edges = vec![(label(0), 0)];
        packed.add_state(true, &mut edges).unwrap();
        assert_eq!(packed.offsets, vec![0, 2, 3]);
    }
}
