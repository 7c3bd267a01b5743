//! The deterministic global LTS of a specification built on demand (see
//! [`Strict::on_the_fly`](crate::Strict::on_the_fly)): the same terms and
//! rules as [`crate::compile`], explored one `(state, label)` step at a
//! time instead of all at once.

use std::borrow::Cow;
use std::sync::{Mutex, MutexGuard};

use hashbrown::HashMap;

use crate::compile::{Footprints, Global, Terms};
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
    globals: Vec<Global>,
    global_ids: HashMap<Global, u32>,
    states: Vec<State>,
    /// Per global state: the state that is the set of it alone, or `NONE`
    /// (a deterministic specification has no other states).
    singleton: Vec<StateId>,
    /// The states of two or more global states.
    set_ids: HashMap<Box<[u32]>, StateId>,
    /// What each term looked at for [`OnTheFly::components`] can do.
    footprints: Footprints,
}

struct State {
    /// The (sorted) set of global states it stands for.
    set: Box<[u32]>,
    is_final: bool,
    /// The transitions asked for so far, sorted by label; `NONE` for "not
    /// enabled".
    next: Vec<(Label, StateId)>,
}

const NONE: StateId = StateId::new(u32::MAX);

/// Why a computation on demand cannot fail: every definition the
/// specification can reach was unfolded, and checked for unguarded
/// recursion, when the object was built ([`build`]); later steps only
/// combine terms that exist.
const CHECKED: &str = "specification checked when the object was built";

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
        self.lock().states.len()
    }

    fn is_final(&self, state: StateId) -> bool {
        self.lock().states[state.index()].is_final
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
        let [member] = *g.states[state.index()].set else {
            return None;
        };
        let term = g.globals[member as usize].term;
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
    fn global_id(&mut self, g: Global) -> u32 {
        if let Some(&id) = self.global_ids.get(&g) {
            return id;
        }
        let id = self.globals.len() as u32;
        self.global_ids.insert(g.clone(), id);
        self.globals.push(g);
        self.singleton.push(NONE);
        id
    }

    fn state_id(&mut self, set: Vec<u32>) -> StateId {
        let known = match set[..] {
            [g] => self.singleton[g as usize],
            _ => self.set_ids.get(&set[..]).copied().unwrap_or(NONE),
        };
        if known != NONE {
            return known;
        }
        let mut is_final = false;
        for &g in &set {
            is_final |= self
                .terms
                .is_final(&self.globals[g as usize])
                .expect(CHECKED);
        }
        let id = StateId::from_index(self.states.len());
        match set[..] {
            [g] => self.singleton[g as usize] = id,
            _ => {
                self.set_ids.insert(set.clone().into(), id);
            }
        }
        self.states.push(State {
            set: set.into(),
            is_final,
            next: Vec::new(),
        });
        id
    }

    /// Every transition of `state`, sorted by label (see
    /// [`OnTheFly::transitions`](LtsGraph::transitions)).
    fn transitions(&mut self, state: StateId) -> Vec<(Label, StateId)> {
        let mut labels = Vec::new();
        for &m in self.states[state.index()].set.iter() {
            let term = self.globals[m as usize].term;
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
        let [member] = *self.states[state.index()].set else {
            return self
                .transitions(state)
                .into_iter()
                .map(|(l, _)| l)
                .collect();
        };
        let g = &self.globals[member as usize];
        let mut labels = Vec::new();
        self.terms.labels(g.term, &mut labels).expect(CHECKED);
        labels.retain(|&l| g.allows(l));
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
        let known = &self.states[state.index()].next;
        let at = match known.binary_search_by(|(l, _)| l.cmp(&label)) {
            Ok(i) => return known[i].1,
            Err(at) => at,
        };
        let mut successors = Vec::new();
        for &m in self.states[state.index()].set.iter() {
            let g = &self.globals[m as usize];
            successors.extend(self.terms.global_step_by(g, label).expect(CHECKED));
        }
        let mut target: Vec<u32> = successors
            .into_iter()
            .map(|g2| self.global_id(g2))
            .collect();
        target.sort_unstable();
        target.dedup();
        let next = if target.is_empty() {
            NONE
        } else {
            self.state_id(target)
        };
        self.states[state.index()].next.insert(at, (label, next));
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
        globals: Vec::new(),
        global_ids: HashMap::new(),
        states: Vec::new(),
        singleton: Vec::new(),
        set_ids: HashMap::new(),
        footprints: Footprints::new(),
    };
    let initial = graph.global_id(Global {
        term: main,
        chans: Box::new([]),
    });
    graph.state_id(vec![initial]);
    Ok(OnTheFly {
        roles,
        type_paths: crate::lts::interned(&types),
        types,
        channels: per_role,
        graph: Mutex::new(graph),
    })
}
