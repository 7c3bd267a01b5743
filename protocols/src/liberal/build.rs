//! How a [`Projection`] is computed: the local states of all roles
//! together, by one worklist run to the fixpoint ([`Builder`]).

use std::sync::Arc;

use hashbrown::{HashMap, HashSet};

use super::projection::{Local, Projection, Receives};
use crate::ids::{RoleIndex, StateId};
use crate::limits::{self, Bounds, Budget};
use crate::lts::{Action, Label, Lts};
use crate::Error;
use engine::Limits;

// The constructors are here rather than in `projection.rs`, so that the
// projection module does not import its builder (which builds projections).
impl Projection {
    /// Projects `lts` (determinised first if needed) on every role. Fails
    /// if the local state spaces together exceed `max_states` (the other
    /// [limits](Limits) are the defaults).
    pub fn new(lts: impl Into<Arc<Lts>>, max_states: usize) -> Result<Projection, Error> {
        Projection::new_within(lts.into(), &Bounds::states(max_states))
    }

    /// [`Projection::new`] within `limits`: the determinisation and the
    /// projection each may make `limits.max_states` states (local states
    /// of all roles together, for the projection) and tables of
    /// `limits.max_memory` bytes, and both stop at one deadline, `limits.timeout`
    /// after this call, with
    /// [`Error::StateBound`], [`Error::MemoryBound`] or [`Error::Timeout`].
    /// The projection of a heavily interleaved protocol can take time and
    /// memory far beyond its global LTS (a local state is a set of global
    /// states, and so is each tag), so these bounds matter even for an LTS
    /// of a few hundred states.
    ///
    /// ```
    /// use engine::Limits;
    /// use protocols::{token, Error, Projection};
    /// let lts = token::spec(token::Topology::FullMesh, 3).compile().unwrap();
    /// let p = Projection::new_with(lts.clone(), &Limits::default()).unwrap();
    /// assert!(p.num_local_states(0) > 1);
    /// let e = Projection::new_with(lts, &Limits::default().max_states(2)).unwrap_err();
    /// assert!(matches!(e, Error::StateBound { limit: 2, what: protocols::Built::LiberalProjection }));
    /// ```
    pub fn new_with(lts: impl Into<Arc<Lts>>, limits: &Limits) -> Result<Projection, Error> {
        Projection::new_within(lts.into(), &Bounds::new(limits))
    }

    /// [`Projection::new_with`] within the bounds of a call under way.
    pub(crate) fn new_within(lts: Arc<Lts>, limits: &Bounds) -> Result<Projection, Error> {
        let lts = crate::strict::deterministic(lts, limits)?;
        Builder::new(&lts, limits).run(lts.clone())
    }
}

/// [`Error::StateBound`]'s `what` for a [`Projection`].
const PROJECTION: crate::Built = crate::Built::LiberalProjection;

/// Computes all projections together: a role's receives depend on the tags
/// of the other roles' sends, which depend on their local states, which
/// depend on their receives — so a worklist runs to the fixpoint.
pub(super) struct Builder<'a> {
    lts: &'a Lts,
    budget: Budget,
    sets: Vec<Vec<Vec<StateId>>>,
    index: Vec<HashMap<Vec<StateId>, u32>>,
    out: Vec<Vec<Vec<(Label, u32, u32)>>>,
    inp: Vec<Vec<Receives>>,
    /// Local states whose own steps are still to be computed.
    fresh: Vec<(usize, u32)>,
    tags: Vec<Vec<StateId>>,
    tag_index: HashMap<(Vec<StateId>, Label), u32>,
    /// Per tag: the global states reachable from it (bitset).
    reach: Vec<Vec<u64>>,
    /// Per tag: the send label that made it.
    tag_label: Vec<Label>,
}

impl<'a> Builder<'a> {
    pub(super) fn new(lts: &'a Lts, limits: &Bounds) -> Self {
        let n = lts.roles().len();
        Builder {
            lts,
            budget: Budget::new(limits, PROJECTION),
            sets: vec![Vec::new(); n],
            index: vec![HashMap::new(); n],
            out: vec![Vec::new(); n],
            inp: vec![Vec::new(); n],
            fresh: Vec::new(),
            tags: Vec::new(),
            tag_index: HashMap::new(),
            reach: Vec::new(),
            tag_label: Vec::new(),
        }
    }

    fn closure(&self, role: usize, seeds: impl IntoIterator<Item = StateId>) -> Vec<StateId> {
        let role = RoleIndex::from_index(role);
        let mut seen: HashSet<StateId> = HashSet::new();
        let mut stack: Vec<StateId> = seeds.into_iter().filter(|&s| seen.insert(s)).collect();
        while let Some(s) = stack.pop() {
            for (l, t) in self.lts.transitions(s) {
                if l.actor() != role && seen.insert(*t) {
                    stack.push(*t);
                }
            }
        }
        let mut v: Vec<StateId> = seen.into_iter().collect();
        v.sort_unstable();
        v
    }

    fn local(&mut self, role: usize, set: Vec<StateId>) -> Result<u32, Error> {
        if let Some(&id) = self.index[role].get(&set) {
            return Ok(id);
        }
        self.budget.add_state(limits::indexed::<u32>(set.len()))?;
        let id = self.sets[role].len() as u32;
        self.fresh.push((role, id));
        self.index[role].insert(set.clone(), id);
        self.sets[role].push(set);
        self.out[role].push(Vec::new());
        self.inp[role].push(Vec::new());
        Ok(id)
    }

    fn tag(&mut self, set: Vec<StateId>, label: Label) -> Result<u32, Error> {
        if let Some(&id) = self.tag_index.get(&(set.clone(), label)) {
            return Ok(id);
        }
        let n = self.lts.num_states();
        // the set twice, and a bit per global state: counted before the
        // bitset is allocated
        self.budget
            .add_bytes(limits::indexed::<u32>(set.len()) + n.div_ceil(64) * 8)?;
        let mut bits = vec![0u64; n.div_ceil(64)];
        let mut stack = set.clone();
        for &s in &set {
            bits[s.index() / 64] |= 1 << (s.index() % 64);
        }
        while let Some(s) = stack.pop() {
            for &(_, t) in self.lts.transitions(s) {
                let (w, b) = (t.index() / 64, 1u64 << (t.index() % 64));
                if bits[w] & b == 0 {
                    bits[w] |= b;
                    stack.push(t);
                }
            }
        }
        let id = self.tags.len() as u32;
        self.tag_index.insert((set.clone(), label), id);
        self.tags.push(set);
        self.reach.push(bits);
        self.tag_label.push(label);
        Ok(id)
    }

    pub(super) fn run(mut self, lts: Arc<Lts>) -> Result<Projection, Error> {
        let n = self.lts.roles().len();
        let mut initial = Vec::with_capacity(n);
        for r in 0..n {
            let set = self.closure(r, [self.lts.initial()]);
            initial.push(self.local(r, set)?);
        }
        // A worklist: every new local state gets its own steps, and every
        // (local state, tag) pair of a receiver is examined exactly once —
        // when the later of the two appears.
        let mut states_by_recv: HashMap<Label, Vec<u32>> = HashMap::new();
        let mut tags_by_recv: HashMap<Label, Vec<u32>> = HashMap::new();
        let mut pairs: Vec<(u32, u32)> = Vec::new();
        // the pairs' high-water mark, as counted against the memory bound
        let mut pairs_counted = 0;
        loop {
            self.budget
                .add_bytes(pairs.len().saturating_sub(pairs_counted) * 8)?;
            pairs_counted = pairs_counted.max(pairs.len());
            if let Some((r, s)) = self.fresh.pop() {
                let actor = RoleIndex::from_index(r);
                let mut own: Vec<(Label, StateId)> = self.sets[r][s as usize]
                    .iter()
                    .flat_map(|&g| self.lts.transitions(g).iter().copied())
                    .filter(|(l, _)| l.actor() == actor)
                    .collect();
                own.sort_unstable();
                own.dedup();
                let mut j = 0;
                while j < own.len() {
                    let label = own[j].0;
                    let mut targets = Vec::new();
                    while j < own.len() && own[j].0 == label {
                        targets.push(own[j].1);
                        j += 1;
                    }
                    match label.action {
                        Action::Recv => {
                            states_by_recv.entry(label).or_default().push(s);
                            let tags = tags_by_recv.get(&label).map_or(&[][..], Vec::as_slice);
                            pairs.extend(tags.iter().map(|&t| (s, t)));
                        }
                        Action::Send | Action::Close => {
                            let tag = if label.action == Action::Send {
                                let before = self.tags.len();
                                let tag = self.tag(targets.clone(), label)?;
                                if self.tags.len() > before {
                                    let recv = label.receive();
                                    tags_by_recv.entry(recv).or_default().push(tag);
                                    let states =
                                        states_by_recv.get(&recv).map_or(&[][..], Vec::as_slice);
                                    pairs.extend(states.iter().map(|&q| (q, tag)));
                                }
                                tag
                            } else {
                                u32::MAX
                            };
                            let set = self.closure(r, targets);
                            let next = self.local(r, set)?;
                            self.out[r][s as usize].push((label, next, tag));
                        }
                    }
                }
            } else if let Some((s, tag)) = pairs.pop() {
                // a pair is examined once, but there can be as many pairs
                // as local states times tags
                self.budget.tick()?;
                let send = self.tag_label[tag as usize];
                let r = send.to.index();
                let recv = send.receive();
                let reach = &self.reach[tag as usize];
                let targets: Vec<StateId> = self.sets[r][s as usize]
                    .iter()
                    .filter(|&&h| reach[h.index() / 64] & (1 << (h.index() % 64)) != 0)
                    .flat_map(|&h| {
                        self.lts
                            .transitions(h)
                            .iter()
                            .filter(|(l, _)| *l == recv)
                            .map(|&(_, t)| t)
                    })
                    .collect();
                if !targets.is_empty() {
                    let set = self.closure(r, targets);
                    let next = self.local(r, set)?;
                    self.inp[r][s as usize].push(((recv, tag), next));
                }
            } else {
                break;
            }
        }
        let locals = (0..n)
            .map(|r| {
                let mut out = std::mem::take(&mut self.out[r]);
                out.iter_mut().for_each(|v| v.sort_unstable());
                let mut inp = std::mem::take(&mut self.inp[r]);
                inp.iter_mut().for_each(|v| v.sort_unstable());
                Local {
                    sets: std::mem::take(&mut self.sets[r]),
                    initial: initial[r],
                    out,
                    inp,
                }
            })
            .collect();
        Ok(Projection {
            lts,
            locals,
            tags: self.tags,
            senders: std::sync::OnceLock::new(),
        })
    }
}
