//! The deterministic global LTS of a specification built on demand (see
//! [`Strict::on_the_fly`](crate::Strict::on_the_fly)): the same terms and
//! rules as [`crate::compile`], explored one `(state, label)` step at a
//! time instead of all at once.

use std::borrow::Cow;
use std::hash::BuildHasher;
use std::sync::{Mutex, MutexGuard};

use hashbrown::hash_table::Entry;
use hashbrown::{DefaultHashBuilder, HashTable};

use crate::compile::{
    allows, chans_after, Footprints, InTransit, Interner, Terms, CHANNEL_CONTENTS,
};
use crate::graph::LtsGraph;
use crate::ids::{RoleIndex, StateId, TypeIndex};
use crate::lts::Label;
use crate::spec::Spec;
use crate::Error;

/// The deterministic global LTS of a specification, built on demand: the
/// states a run (or a search) actually reaches, and only those, are
/// computed, the first time they are reached. See
/// [`Strict::on_the_fly`](crate::Strict::on_the_fly).
///
/// A state is a set of global states (the subset construction, done on the
/// fly, so a specification whose choices start with the same action still
/// gives a deterministic object); numbers are handed out in the order states
/// are first reached and are shared by every clone of the object.
///
/// # Memory
///
/// A search keeps every state it reaches here, beside the engine's stored
/// objects (about 100 B a state), so the graph is meant to cost about as
/// much (the goal: at most 200 B a state in all; it was 710 B of heap with
/// a `Global` per state held twice, each with its own boxed channel
/// contents, a boxed member set and a `Vec` of transitions per state; now
/// the term nodes a state's term adds, two of 34 B each in
/// `npb-is-concurrent:7`, are most of it). As in the compiler
/// ([`crate::compile`]):
/// - a global state is two numbers, its term and its channel contents, and
///   the contents are interned (a few thousand distinct ones for up to a
///   million states);
/// - the index of the global states is a table of their numbers that
///   hashes the list entries they point to, not a second copy;
/// - a state of one global state (every state of a deterministic
///   specification) is that global state, and until a set of two or more
///   is met (never, for a deterministic specification) the two are
///   numbered alike, with no table between them; sets are interned;
/// - transitions are not kept a state: a search asks for each of a
///   state's steps once, when it expands it, and a step recomputed is a
///   step of the terms and two table look-ups. A small table of the
///   latest steps ([`Recent`]) serves the questions asked again soon
///   (a probe, then the step it found).
pub(crate) struct OnTheFly {
    roles: Vec<String>,
    types: Vec<String>,
    /// `types`, interned (see [`Lts::type_of`](crate::Lts::type_of)).
    type_paths: Vec<Option<engine::MessageType>>,
    /// Per role, the roles it may send to or close towards (sorted).
    channels: Vec<Vec<RoleIndex>>,
    graph: Mutex<Explored>,
}

struct Explored {
    terms: Terms,
    /// The channel contents met so far, numbered; the empty contents are 0.
    chans: Interner<InTransit>,
    /// The global states met so far, numbered in the order met, each as
    /// `(term, channel contents)`.
    globals: Vec<(u32, u32)>,
    /// Indices into `globals`, hashed by the entry they point to.
    global_index: HashTable<u32>,
    hasher: DefaultHashBuilder,
    /// Whether state `i` is global state `i`, for every state: true until
    /// the first state that is a set of two or more global states, or a
    /// global state numbered past the states, is met (a deterministic
    /// specification never meets one), and then `states` and `singleton`
    /// are filled in ([`Explored::number_apart`]). Until then they are
    /// empty, 8 bytes a state saved.
    same_numbers: bool,
    /// Per state: the number of the global state it stands for, or
    /// `SET | i` for the `i`-th set of `sets`.
    states: Vec<u32>,
    /// Per state: whether it is final (so also the number of states).
    finals: Vec<bool>,
    /// Per global state: the state that is the set of it alone, or `NONE`.
    singleton: Vec<StateId>,
    /// The (sorted) sets of two or more global states that are states.
    sets: Interner<u32>,
    /// Per set of `sets`: its state.
    set_states: Vec<StateId>,
    recent: Recent,
    /// What each term looked at for [`OnTheFly::components`] can do.
    footprints: Footprints,
    /// Scratch buffers of [`Explored::next`], reused by every step.
    after: Vec<InTransit>,
    residuals: Vec<u32>,
}

const NONE: StateId = StateId::new(u32::MAX);

/// The bit of a [`Explored::states`] entry that marks a set; the global
/// states are numbered below it.
const SET: u32 = 1 << 31;

/// The number of the empty channel contents (interned first).
const EMPTY: u32 = 0;

/// Why a computation on demand cannot fail: every definition the
/// specification can reach was unfolded, and checked for unguarded
/// recursion, when the object was built ([`build`]); later steps only
/// combine terms that exist.
const CHECKED: &str = "specification checked when the object was built";

/// Why a new global state or channel contents gets a number: memory runs
/// out (the search's limit stops it) long before 2³¹ of either.
const NUMBERED: &str = "fewer than 2^31 global states and channel contents";

/// The latest steps asked for, `(state, label) → next` (`NONE` for "not
/// enabled"), one slot a hash: the transitions are not kept a state (see
/// [`OnTheFly`]'s memory), but a question is often asked again soon (a
/// state's transitions listed for a deadlock report, then stepped; an
/// object that probes an action before it takes it). A slot is
/// overwritten by the next step that hashes there, so the table stays a
/// fixed small size; it grows with the states found, up to `MAX_RECENT`.
struct Recent {
    slots: Vec<(StateId, Label, StateId)>,
    hasher: DefaultHashBuilder,
}

const MIN_RECENT: usize = 1 << 8;
const MAX_RECENT: usize = 1 << 14;

impl Recent {
    fn new() -> Self {
        Recent {
            slots: Vec::new(),
            hasher: DefaultHashBuilder::default(),
        }
    }

    fn slot(&self, state: StateId, label: Label) -> usize {
        self.hasher.hash_one((state, label)) as usize & (self.slots.len() - 1)
    }

    fn get(&self, state: StateId, label: Label) -> Option<StateId> {
        if self.slots.is_empty() {
            return None;
        }
        let (s, l, next) = self.slots[self.slot(state, label)];
        (s == state && l == label).then_some(next)
    }

    /// Keeps `state --label--> next`; `states`, the states found so far,
    /// sizes the table (a quarter of them, a power of two within bounds).
    fn put(&mut self, state: StateId, label: Label, next: StateId, states: usize) {
        let want = (states / 4)
            .next_power_of_two()
            .clamp(MIN_RECENT, MAX_RECENT);
        if self.slots.len() < want {
            self.slots = vec![(NONE, label, NONE); want];
        }
        let i = self.slot(state, label);
        self.slots[i] = (state, label, next);
    }
}

impl LtsGraph for OnTheFly {
    fn roles(&self) -> &[String] {
        &self.roles
    }

    fn type_names(&self) -> &[String] {
        &self.types
    }

    fn type_id(&self, name: &str) -> Option<TypeIndex> {
        self.types
            .iter()
            .position(|t| t == name)
            .map(TypeIndex::from_index)
    }

    fn type_of(&self, msg: &engine::Message) -> Option<TypeIndex> {
        crate::lts::type_of(&self.type_paths, &self.types, msg)
    }

    fn message_type(&self, ty: TypeIndex) -> Option<engine::MessageType> {
        self.type_paths.get(ty.index()).copied().flatten()
    }

    fn channels_from(&self, role: RoleIndex) -> Vec<RoleIndex> {
        self.channels.get(role.index()).cloned().unwrap_or_default()
    }

    /// The states computed so far.
    fn num_states(&self) -> usize {
        self.lock().finals.len()
    }

    fn is_final(&self, state: StateId) -> bool {
        self.lock().finals[state.index()]
    }

    /// The successor of `state` by `label`, if it has one (computed now if
    /// this is the first time anyone asks).
    fn next(&self, state: StateId, label: Label) -> Option<StateId> {
        let next = self.lock().next(state, label);
        (next != NONE).then_some(next)
    }

    /// Every transition of `state`, sorted by label. (Only the deadlock
    /// report asks, so the labels come from the members' full
    /// [`Terms::steps`], which builds every successor term.) Labels keep
    /// the synchronous bit (for a lint of the spec on the fly, whose
    /// causality check needs it); a step by a handshake's send leads where
    /// the send does, since [`OnTheFly::next`](LtsGraph::next) compares
    /// labels without the bit, as the runtimes ask.
    fn transitions(&self, state: StateId) -> Cow<'_, [(Label, StateId)]> {
        Cow::Owned(self.lock().transitions(state))
    }

    /// The labels of `state`, as [`LtsGraph::for_each_label`] gives them,
    /// but without the successor states where that can be done: the
    /// object lists its enabled actions from these labels in every state
    /// a search expands (`Protocol::enabled`), and a reduced search then
    /// takes only a few of them, so computing every successor here (as
    /// [`transitions`](LtsGraph::transitions) does) was most of its time.
    fn for_each_label(&self, state: StateId, mut f: impl FnMut(Label)) {
        let labels = self.lock().labels(state);
        let mut last = None;
        for l in labels {
            let l = l.asynchronous();
            if last != Some(l) {
                f(l);
                last = Some(l);
            }
        }
    }
}

impl OnTheFly {
    /// The independent components of `state` for partial-order reduction
    /// (see [`Terms::components`]), each as the labels it can take now;
    /// `None` for a state that stands for several global states (a choice
    /// the subset construction has not resolved yet), which is not split.
    pub(crate) fn components(&self, state: StateId) -> Option<Vec<Vec<Label>>> {
        let mut g = self.lock();
        let g = &mut *g;
        let member = g.entry(state);
        if member & SET != 0 {
            return None;
        }
        let (term, _) = g.globals[member as usize];
        let mut components = g.terms.components(term, &mut g.footprints).ok()?;
        // In label order, not in the order of the term's parallel
        // compositions: those put their branches in the order the terms
        // were first built (`Terms::par`), which depends on what was
        // computed before, and the search takes the first of the
        // smallest components, so the reduced graph would too.
        components.sort_unstable();
        Some(components)
    }

    fn lock(&self) -> MutexGuard<'_, Explored> {
        // Only a broken invariant (a bug) panics under this lock; the
        // panic then reaches whoever made the step, and later steps go on
        // from the graph as it was left (at worst they panic the same way).
        self.graph
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl Explored {
    /// The number of the global state `(term, chans)`, new or not.
    fn global_id(&mut self, g: (u32, u32)) -> u32 {
        let Explored {
            globals,
            global_index,
            hasher,
            singleton,
            same_numbers,
            ..
        } = self;
        let hash = hasher.hash_one(g);
        match global_index.entry(
            hash,
            |&i| globals[i as usize] == g,
            |&i| hasher.hash_one(globals[i as usize]),
        ) {
            Entry::Occupied(e) => *e.get(),
            Entry::Vacant(e) => {
                let id = globals.len() as u32;
                assert!(id < SET, "{NUMBERED}");
                globals.push(g);
                if !*same_numbers {
                    singleton.push(NONE);
                }
                e.insert(id);
                id
            }
        }
    }

    /// The entry of `state`: its global state, or `SET | i` for the
    /// `i`-th set of `sets`.
    fn entry(&self, state: StateId) -> u32 {
        if self.same_numbers {
            state.raw()
        } else {
            self.states[state.index()]
        }
    }

    /// Fills in `states` and `singleton`, until now the identity (see
    /// `same_numbers`).
    fn number_apart(&mut self) {
        let n = self.finals.len() as u32;
        self.states = (0..n).collect();
        self.singleton = (0..self.globals.len() as u32)
            .map(|g| if g < n { StateId::new(g) } else { NONE })
            .collect();
        self.same_numbers = false;
    }

    /// The number of members of `state`.
    fn num_members(&self, state: StateId) -> usize {
        match self.entry(state) {
            e if e & SET != 0 => self.sets.get(e & !SET).len(),
            _ => 1,
        }
    }

    /// The `i`-th member (a global state) of `state`.
    fn member(&self, state: StateId, i: usize) -> u32 {
        match self.entry(state) {
            e if e & SET != 0 => self.sets.get(e & !SET)[i],
            g => g,
        }
    }

    /// The state of the (sorted, non-empty) set of global states `set`.
    fn state_id(&mut self, set: &[u32]) -> StateId {
        if self.same_numbers {
            let n = self.finals.len();
            match *set {
                [g] if (g as usize) < n => return StateId::new(g),
                // the next state is the next global state: numbered alike
                [g] if g as usize == n => {
                    let is_final = self.may_end(set);
                    self.finals.push(is_final);
                    return StateId::new(g);
                }
                _ => self.number_apart(),
            }
        }
        let (entry, set_id) = match *set {
            [g] => match self.singleton[g as usize] {
                NONE => (g, None),
                known => return known,
            },
            _ => match self
                .sets
                .intern(set, "sets of global states")
                .expect(NUMBERED)
            {
                (i, false) => return self.set_states[i as usize],
                (i, true) => {
                    assert!(i < SET, "{NUMBERED}");
                    (SET | i, Some(i))
                }
            },
        };
        let is_final = self.may_end(set);
        let id = StateId::from_index(self.states.len());
        match set_id {
            None => self.singleton[entry as usize] = id,
            Some(_) => self.set_states.push(id),
        }
        self.states.push(entry);
        self.finals.push(is_final);
        id
    }

    /// Whether the state of the global states `set` is final: one of them
    /// has empty channels and a term that may end.
    fn may_end(&mut self, set: &[u32]) -> bool {
        let mut is_final = false;
        for &g in set {
            let (term, c) = self.globals[g as usize];
            is_final |= c == EMPTY && self.terms.may_end(term).expect(CHECKED);
        }
        is_final
    }

    /// Every transition of `state`, sorted by label (see
    /// [`OnTheFly::transitions`](LtsGraph::transitions)).
    fn transitions(&mut self, state: StateId) -> Vec<(Label, StateId)> {
        let mut labels = Vec::new();
        for i in 0..self.num_members(state) {
            let (term, _) = self.globals[self.member(state, i) as usize];
            let steps = self.terms.steps(term).expect(CHECKED);
            labels.extend(steps.iter().map(|&(l, _)| l));
        }
        labels.sort_unstable();
        labels.dedup();
        labels
            .into_iter()
            .map(|l| (l, self.next(state, l)))
            .filter(|&(_, t)| t != NONE)
            .collect()
    }

    /// The labels of the transitions of `state`, in label order (perhaps
    /// with repeats). For a state of one global state they are read off
    /// its term ([`Terms::labels`]) and channels: a label is a transition
    /// exactly when the term has a step by it (what `Terms::step_by` takes are the steps
    /// that `Terms::steps` pairs with the label) and the FIFO rule lets it
    /// happen; no successor is computed. A state of several global states
    /// (a choice the subset construction has not resolved) has a
    /// transition by a label only if some member's step by it is allowed,
    /// which [`next`](Self::next) finds out.
    fn labels(&mut self, state: StateId) -> Vec<Label> {
        let member = self.entry(state);
        if member & SET != 0 {
            return self
                .transitions(state)
                .into_iter()
                .map(|(l, _)| l)
                .collect();
        }
        let (term, c) = self.globals[member as usize];
        let mut labels = Vec::new();
        self.terms.labels(term, &mut labels).expect(CHECKED);
        let chans = self.chans.get(c);
        labels.retain(|&l| allows(chans, l));
        labels.sort_unstable();
        labels
    }

    /// The subset construction's step from `state` by `label`: the set of
    /// its members' successors, or `NONE` if that is empty.
    ///
    /// This is the same subset construction as [`Lts::determinise_with`]
    /// (a state is the set of its members, final if one is), but not the
    /// same code, on purpose: that one runs over a finished LTS, all labels
    /// of a set at once and breadth-first to the end, under a budget; this
    /// one is demand-driven, one `(state, label)` pair at a time, over
    /// global states that are themselves interned on demand from terms
    /// (and only for the label asked, via `Terms::step_by`, so a parallel
    /// composition does not build every successor term). Sharing the loop
    /// would force one of the two to give up its order of work.
    ///
    /// [`Lts::determinise_with`]: crate::Lts::determinise_with
    fn next(&mut self, state: StateId, label: Label) -> StateId {
        if let Some(next) = self.recent.get(state, label) {
            return next;
        }
        let mut target = Vec::new();
        let (mut after, mut residuals) = (
            std::mem::take(&mut self.after),
            std::mem::take(&mut self.residuals),
        );
        for i in 0..self.num_members(state) {
            let (term, c) = self.globals[self.member(state, i) as usize];
            // the FIFO rule first, then the term's steps: a receive of a
            // message not at the head of its channel builds no residual
            if !chans_after(self.chans.get(c), label, &mut after) {
                continue;
            }
            residuals.clear();
            self.terms
                .step_by(term, label, &mut residuals)
                .expect(CHECKED);
            if residuals.is_empty() {
                continue;
            }
            let (c2, _) = self.chans.intern(&after, CHANNEL_CONTENTS).expect(NUMBERED);
            for &t in &residuals {
                target.push(self.global_id((t, c2)));
            }
        }
        (self.after, self.residuals) = (after, residuals);
        target.sort_unstable();
        target.dedup();
        let next = if target.is_empty() {
            NONE
        } else {
            self.state_id(&target)
        };
        self.recent.put(state, label, next, self.finals.len());
        next
    }
}

/// Checks `spec` and makes its [`OnTheFly`] LTS (see
/// [`Terms::unfold_all`] for what is checked).
pub(crate) fn build(spec: &Spec, max_terms: usize) -> Result<OnTheFly, Error> {
    let mut terms = Terms::new(spec)?;
    let main = terms.intern(&spec.main)?;
    let channels = terms.unfold_all(main, max_terms, None)?;
    let roles = terms.names.roles.clone();
    let types = terms.names.types.clone();
    let mut per_role = vec![Vec::new(); roles.len()];
    for (from, to) in channels {
        per_role[from.index()].push(to);
    }
    let mut graph = Explored {
        terms,
        chans: Interner::new(),
        globals: Vec::new(),
        global_index: HashTable::new(),
        hasher: DefaultHashBuilder::default(),
        same_numbers: true,
        states: Vec::new(),
        finals: Vec::new(),
        singleton: Vec::new(),
        sets: Interner::new(),
        set_states: Vec::new(),
        recent: Recent::new(),
        footprints: Footprints::new(),
        after: Vec::new(),
        residuals: Vec::new(),
    };
    let (empty, _) = graph.chans.intern(&[], CHANNEL_CONTENTS)?;
    debug_assert_eq!(empty, EMPTY);
    let initial = graph.global_id((main, EMPTY));
    graph.state_id(&[initial]);
    Ok(OnTheFly {
        roles,
        type_paths: crate::lts::interned(&types),
        types,
        channels: per_role,
        graph: Mutex::new(graph),
    })
}
