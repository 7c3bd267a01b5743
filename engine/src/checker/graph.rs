//! The product of an object and a property's negated automaton as a graph
//! of states, for a search outside the engine (`prust-distributed`): the
//! successors the engine's own searches see, in their order, and the same
//! report of a violation, replayed on the real object before it is shown.

use std::time::{Duration, Instant};

use crate::error::Error;
use crate::fairness::{enabled_roles, role_marks, Fairness};
use crate::ids::{AutState, Successor};
use crate::pattern::Valuation;
use crate::product::Prepared;
use crate::property::Property;
use crate::protocol::Protocol;
use crate::report::{reexecute, Limit, RawLasso, Report, Shortness, Stats, Verdict};
use crate::successors::{Store, Successors};
use crate::Semantics;

use super::session::CheckSession;

/// One edge of a [`ProductGraph`]: the action taken (a letter of the
/// object's alphabet, see [`ProductGraph::describe`]), the object it gives
/// and the automaton state reached.
#[derive(Debug, Clone)]
pub struct ProductEdge<P> {
    /// The letter: an action, or the END or DEADLOCK step of a state in
    /// which no action is enabled (under the stutter semantics).
    pub letter: u32,
    /// The object after the action.
    pub object: P,
    /// The automaton state after reading the letter.
    pub state: u32,
    /// The acceptance marks of the automaton edge taken (a bit per
    /// acceptance set) and, under weak fairness, the roles' fairness marks
    /// of the step (see [`ProductGraph::successors`]): a cycle is accepting
    /// when its edges' marks together are [`ProductGraph::all_marks`].
    pub marks: u32,
}

/// The product of one object with the automaton of a negated formula, a
/// state at a time: a state is an object and an automaton state. Made by
/// [`CheckSession::product_graph`].
///
/// A search over it decides the formula the way the engine's
/// breadth-first search does for a safety property
/// ([`decided_by_reachability`](Self::decided_by_reachability)): the formula
/// is violated exactly when a state whose automaton state
/// [`is_bad`](Self::is_bad) is reachable, and the path to the first one met
/// breadth first is a shortest counterexample. [`violated`](Self::violated)
/// turns that path into the engine's report. Any other formula is violated
/// exactly when, besides, a cycle whose edges carry every acceptance mark
/// ([`all_marks`](Self::all_marks)) is reachable;
/// [`violated_lasso`](Self::violated_lasso) reports one. Under
/// [`Fairness::Weak`] the marks include one per role, as in the engine's
/// own search (see [`Fairness`]): such a cycle is then a weakly fair one.
///
/// The determinism check ([`Checker::determinism_check`](crate::Checker::determinism_check))
/// does not run on the states of such a search, which the engine does not
/// store; as in every check, a violation's run is re-executed on a fresh
/// object before it is reported.
///
/// ```
/// use engine::{Checker, Protocol, Message, Refused, RoleId, dummies};
/// #[derive(Clone, Debug, PartialEq, Eq, Hash)]
/// struct Counter(u8);
/// impl Protocol for Counter {
///     fn roles(&self) -> Vec<String> { vec!["a".into(), "b".into()] }
///     fn try_send(&mut self, _: RoleId, _: RoleId, m: Message) -> Result<(), Refused<Message>> {
///         if self.0 < 3 { self.0 += 1; Ok(()) } else { Err(Refused(m)) }
///     }
///     fn try_recv(&mut self, _: RoleId, _: Option<RoleId>) -> Result<(RoleId, Message), Refused> {
///         Err(Refused(()))
///     }
/// }
/// #[derive(Clone, Debug)]
/// struct Tick;
/// let mut session = Checker::new().session(Counter(0), dummies![Tick]).unwrap();
/// let mut graph = session.product_graph(r#"G !"DEADLOCK""#).unwrap();
/// assert!(graph.decided_by_reachability());
/// // Breadth first, keeping the path to each state.
/// let (obj, q) = graph.initial();
/// let mut level = vec![(obj, q, Vec::new())];
/// let mut bad = None;
/// let mut edges = Vec::new();
/// while bad.is_none() && !level.is_empty() {
///     let mut next = Vec::new();
///     for (obj, q, path) in level {
///         graph.successors(&obj, q, &mut edges).unwrap();
///         for e in edges.drain(..) {
///             let mut p: Vec<(u32, u32)> = path.clone();
///             p.push((e.letter, e.state));
///             if graph.is_bad(e.state) { bad.get_or_insert(p.clone()); }
///             next.push((e.object, e.state, p));
///         }
///     }
///     level = next;
/// }
/// let report = graph.violated(&bad.unwrap(), engine::Stats::default()).unwrap();
/// assert!(report.to_string().contains("DEADLOCK"));
/// ```
pub struct ProductGraph<'s, P> {
    session: &'s mut CheckSession<P>,
    formula: String,
    aut: Prepared,
    started: Instant,
    /// The successors of objects, with a successor generator of its own:
    /// the session's runs the determinism check when asked, which needs
    /// the states stored by id, and this graph's states are the caller's.
    expander: Successors<P>,
    edges_scratch: Vec<(u32, P)>,
    /// Under weak fairness, for a formula that needs the search for
    /// cycles: a bit per role and where the roles' marks start, past the
    /// automaton's (the engine's layout); `(0, 0)` otherwise.
    fair: (u32, u32),
}

impl<P: Protocol> CheckSession<P> {
    /// The product of this session's object with the automaton of the
    /// negation of `formula` (see [`ProductGraph`]), for a search of one's
    /// own. The formula is parsed and translated as [`check`](Self::check)
    /// does, with the same errors; under [`Fairness::Weak`], a formula
    /// that needs the search for cycles on an object with more roles than
    /// the marks of a transition can hold beside the automaton's is the
    /// check's [`Error::Fairness`] (the graph has no reduced search that
    /// could decide without them).
    pub fn product_graph(&mut self, formula: &str) -> Result<ProductGraph<'_, P>, Error> {
        if let Some(e) = &self.broken {
            return Err(e.clone());
        }
        let started = Instant::now();
        let property = Property::prepare(formula, &self.successors.alphabet, None)?;
        let a = &self.successors.alphabet;
        let table = Valuation::new(a, &property.atoms);
        let aut = Prepared::new(&property.automaton, a, |l| table.of(a, l));
        let expander = Successors::new(self.successors.alphabet.clone(), Store::whole(), 1, false);
        let cycles =
            aut.num_states() > 0 && !(self.bounds.semantics == Semantics::Stutter && aut.safety);
        let fair = if self.checker.fairness == Fairness::Weak && cycles {
            self.role_marks_fit(&aut)?
        } else {
            (0, 0)
        };
        Ok(ProductGraph {
            fair,
            expander,
            session: self,
            formula: formula.to_string(),
            aut,
            started,
            edges_scratch: Vec::new(),
        })
    }
}

impl<P: Protocol> ProductGraph<'_, P> {
    /// The initial state: a clone of the session's object and the
    /// automaton's initial state.
    pub fn initial(&self) -> (P, u32) {
        let s = &self.session;
        (
            s.successors.store.get(s.initial).clone(),
            self.aut.initial.index() as u32,
        )
    }

    /// Whether no run can violate the formula at all (its negation's
    /// automaton has no state): the formula holds without a search.
    pub fn is_trivially_true(&self) -> bool {
        self.aut.num_states() == 0
    }

    /// Whether a reachability search decides the formula: the semantics is
    /// the stutter one and every accepting cycle of the automaton runs
    /// through states that accept every continuation (a safety property,
    /// such as every `G !bad`). Otherwise the formula needs a search for
    /// accepting cycles too (over the edges' [marks](ProductEdge::marks),
    /// reported by [`violated_lasso`](Self::violated_lasso)): a search
    /// that found no bad state has not proven it yet.
    pub fn decided_by_reachability(&self) -> bool {
        self.session.bounds.semantics == Semantics::Stutter && self.aut.safety
    }

    /// Whether reaching automaton state `state` violates the formula (it
    /// accepts whatever follows: a bad prefix).
    pub fn is_bad(&self, state: u32) -> bool {
        self.session.bounds.semantics == Semantics::Stutter
            && self.aut.universal(AutState::new(state as usize))
    }

    /// The product state's successors, in the order the engine's own
    /// breadth-first search makes them, into `out` (cleared first): every
    /// enabled action of `object` times every automaton edge from `state`
    /// that allows it; under the stutter semantics, a state in which no
    /// action is enabled steps on END or DEADLOCK.
    ///
    /// Under [`Fairness::Weak`], for a formula that needs the search for
    /// cycles, an edge's marks also carry the roles' fairness marks, as
    /// the engine's own search gives them: role `r`'s when the step is
    /// `r`'s or `r` has no action enabled in `object` (whatever the
    /// automaton allows), so every role's on an END or DEADLOCK step.
    ///
    /// # Errors
    /// A panic in the object's code, or a broken contract, as a check
    /// reports it (without the trace, which the caller knows).
    pub fn successors(
        &mut self,
        object: &P,
        state: u32,
        out: &mut Vec<ProductEdge<P>>,
    ) -> Result<(), Error> {
        out.clear();
        let q = AutState::new(state as usize);
        let (first, ne) = self.aut.edges_of(q);
        if ne == 0 {
            return Ok(());
        }
        let stutter = self.session.bounds.semantics == Semantics::Stutter;
        let ex = &mut self.expander;
        let succs = &mut self.edges_scratch;
        succs.clear();
        crate::search::object_successors(ex, stutter, object, succs)
            .map_err(|e| e.into_error(|l| ex.alphabet.describe_probe(l), Vec::new()))?;
        let enabled = enabled_roles(&ex.alphabet, self.fair, succs.iter().map(|&(l, _)| l));
        for (letter, obj) in succs.drain(..) {
            let fair = role_marks(&ex.alphabet, self.fair, enabled, letter);
            let allowing = (first..first + ne).filter(|&e| self.aut.allows(e, letter));
            let targets: Vec<(u32, u32)> = allowing
                .map(|e| {
                    let edge = self.aut.edge(e);
                    (edge.target.index() as u32, edge.acc | fair)
                })
                .collect();
            if let Some((&(last, marks), rest)) = targets.split_last() {
                for &(t, m) in rest {
                    out.push(ProductEdge {
                        letter,
                        object: obj.clone(),
                        state: t,
                        marks: m,
                    });
                }
                out.push(ProductEdge {
                    letter,
                    object: obj,
                    state: last,
                    marks,
                });
            }
        }
        Ok(())
    }

    /// The formula whose negation this graph's automaton is.
    pub fn formula(&self) -> &str {
        &self.formula
    }

    /// How many states the automaton has.
    pub fn automaton_states(&self) -> usize {
        self.aut.num_states()
    }

    /// The step `letter` as a counterexample prints it
    /// (`white SEND <Move> TO black`, `DEADLOCK`).
    pub fn describe(&self, letter: u32) -> String {
        self.session.successors.alphabet.describe(letter)
    }

    /// The formula's check stopped at `limit` after `explored` product
    /// states: the report of an inconclusive check.
    pub fn inconclusive(&self, limit: Limit, explored: u64, stats: Stats) -> Report {
        self.report(Verdict::Inconclusive { limit, explored }, stats)
    }

    /// The report of a search that visited every reachable state and met
    /// no bad one, for a formula that
    /// [`decided_by_reachability`](Self::decided_by_reachability) (or
    /// [`is_trivially_true`](Self::is_trivially_true)).
    ///
    /// # Panics
    /// For any other formula: such a search has proven nothing.
    pub fn holds(&self, stats: Stats) -> Report {
        assert!(
            self.decided_by_reachability() || self.is_trivially_true(),
            "a reachability search does not decide this formula"
        );
        self.report(Verdict::Holds, stats)
    }

    /// The report of a search that visited every reachable state, met no
    /// bad one, and showed that no cycle of the product is accepting: what
    /// proves a formula that needs a search for accepting cycles (and any
    /// other).
    pub fn holds_without_accepting_cycle(&self, stats: Stats) -> Report {
        self.report(Verdict::Holds, stats)
    }

    /// The report of the violation reached by `path` (each step: the
    /// letter and the automaton state after it) from the initial state: the
    /// run is re-executed on a fresh clone of the object first, and a run
    /// that does not go through, or that does not end in a bad state, is
    /// an error, never a counterexample. `shortest` says whether `path` is
    /// a shortest one (a breadth-first search's first).
    ///
    /// # Errors
    /// [`Error::Nondeterminism`] (or [`Error::ProtocolPanic`]) where the
    /// re-execution does not follow the path.
    pub fn violated(&mut self, path: &[(u32, u32)], stats: Stats) -> Result<Report, Error> {
        self.violated_as(path, stats, Shortness::Shortest)
    }

    /// [`violated`](Self::violated), saying how short the path is.
    pub fn violated_as(
        &mut self,
        path: &[(u32, u32)],
        stats: Stats,
        shortness: Shortness,
    ) -> Result<Report, Error> {
        let bad = match path.last() {
            Some(&(_, q)) => self.is_bad(q),
            None => self.is_bad(self.aut.initial.index() as u32),
        };
        let (prefix, trace) = self.walk(path.iter().map(|&(l, q)| (l, q, None)))?;
        if !bad {
            return Err(Error::Nondeterminism {
                action: trace
                    .last()
                    .cloned()
                    .unwrap_or_else(|| "(the start)".into()),
                detail: "the path found does not end in a state that violates the formula"
                    .to_string(),
                trace,
            });
        }
        let raw = RawLasso {
            prefix,
            cycle: Vec::new(),
        };
        let a = &self.session.successors.alphabet;
        let (end, deadlock) = (a.end(), a.deadlock());
        let length = (shortness == Shortness::Shortest)
            .then(|| raw.product_length(|l| l == end || l == deadlock));
        self.lasso_report(raw, stats, shortness, length)
    }

    /// The report of the accepting cycle `cycle` reached by `prefix` from
    /// the initial state: a violation of a formula that needs a search for
    /// accepting cycles. Each step of `prefix` is a letter and the
    /// automaton state after it; each step of `cycle` also the marks of
    /// the edge taken (see [`ProductEdge::marks`]). The run is
    /// re-executed on a fresh clone of the object first: the cycle must
    /// have a step, close on an object equal to the one it starts from,
    /// in the same automaton state, each step's marks must be those of an
    /// automaton edge it may take and, under weak fairness, of the roles
    /// enabled in the object replayed there (the caller's marks are not
    /// trusted), and together they must be [`all_marks`](Self::all_marks)
    /// (under weak fairness: the cycle is a fair one), or the result is an
    /// error, never a counterexample. A fair cycle is shown as the
    /// engine's own search shows one: it starves no role
    /// ([`Counterexample::starved`](crate::Counterexample::starved) is
    /// empty).
    ///
    /// # Errors
    /// [`Error::Nondeterminism`] (or [`Error::ProtocolPanic`]) where the
    /// re-execution does not follow the lasso, or the lasso is not an
    /// accepting one.
    pub fn violated_lasso(
        &mut self,
        prefix: &[(u32, u32)],
        cycle: &[(u32, u32, u32)],
        stats: Stats,
        shortness: Shortness,
    ) -> Result<Report, Error> {
        let steps = prefix
            .iter()
            .map(|&(l, q)| (l, q, None))
            .chain(cycle.iter().map(|&(l, q, m)| (l, q, Some(m))));
        let (mut all, trace) = self.walk(steps)?;
        let anchor = prefix
            .last()
            .map_or(self.aut.initial.index() as u32, |&(_, q)| q);
        // Each step's marks are the replay's (checked by `walk`).
        let marks = cycle.iter().fold(0, |m, &(_, _, a)| m | a);
        let (roles, shift) = self.fair;
        let starved = roles << shift & !marks;
        let not_accepting = if cycle.is_empty() {
            Some("the cycle found has no step".to_string())
        } else if cycle.last().map(|&(_, q, _)| q) != Some(anchor) {
            Some("the cycle found does not end in the automaton state it starts from".to_string())
        } else if marks & self.aut.all_acc != self.aut.all_acc {
            Some("the cycle found does not visit every acceptance set of the automaton".to_string())
        } else if starved != 0 {
            let names = &self.session.successors.alphabet.roles;
            let who: Vec<&str> = (0..names.len())
                .filter(|&r| starved >> shift >> r & 1 == 1)
                .map(|r| names[r].as_str())
                .collect();
            Some(format!(
                "the cycle found is not weakly fair: it starves {} (enabled at every step of \
                 the cycle, never moving)",
                who.join(", ")
            ))
        } else {
            None
        };
        if let Some(why) = not_accepting {
            return Err(Error::Nondeterminism {
                action: trace
                    .last()
                    .cloned()
                    .unwrap_or_else(|| "(the start)".into()),
                detail: why,
                trace,
            });
        }
        let cycle = all.split_off(prefix.len());
        // Shown as the engine shows its own: a run that repeats itself
        // with its repetition once.
        let a = &self.session.successors.alphabet;
        let (end, deadlock) = (a.end(), a.deadlock());
        let raw = RawLasso { prefix: all, cycle };
        let length = (shortness == Shortness::Shortest)
            .then(|| raw.product_length(|l| l == end || l == deadlock));
        let raw = raw.folded(self.session.initial, |l| l == end || l == deadlock);
        self.lasso_report(raw, stats, shortness, length)
    }

    /// The marks an accepting cycle's edges must have together (a bit per
    /// acceptance set of the automaton and, under weak fairness for a
    /// formula that needs the search for cycles, a bit per role; 0: every
    /// cycle accepts).
    pub fn all_marks(&self) -> u32 {
        let (roles, shift) = self.fair;
        self.aut.all_acc | roles << shift
    }

    /// The fairness the session's checker asks for. A search over this
    /// graph decides under either: under [`Fairness::Weak`] the roles'
    /// marks on the edges (see [`successors`](Self::successors)) make
    /// every accepting cycle a weakly fair one.
    pub fn fairness(&self) -> Fairness {
        self.session.checker.fairness
    }

    /// Walks `steps` (letter, automaton state reached, the edge's marks
    /// if known) on a clone of the initial object: the steps as the report
    /// takes them, and what each step printed as. Marks given must be
    /// those of an automaton edge the step may take, with (under weak
    /// fairness) the roles' marks of the object replayed there.
    fn walk(
        &mut self,
        steps: impl Iterator<Item = (u32, u32, Option<u32>)>,
    ) -> Result<(Vec<Successor>, Vec<String>), Error> {
        let s = &mut *self.session;
        let mut obj = s.successors.store.get(s.initial).clone();
        let mut out = Vec::new();
        let mut trace = Vec::new();
        let mut q = self.aut.initial;
        let stutter = s.bounds.semantics == Semantics::Stutter;
        for (i, (letter, next, marks)) in steps.enumerate() {
            let a = &s.successors.alphabet;
            let at = a.describe(letter);
            // The roles' marks of the step, from the roles enabled in the
            // object replayed, as `successors` gives them.
            let fair = match marks {
                Some(_) if self.fair.0 != 0 => {
                    let ex = &mut self.expander;
                    let succs = &mut self.edges_scratch;
                    succs.clear();
                    crate::search::object_successors(ex, stutter, &obj, succs).map_err(|e| {
                        e.into_error(|l| ex.alphabet.describe_probe(l), trace.clone())
                    })?;
                    let letters = succs.drain(..).map(|(l, _)| l);
                    let enabled = enabled_roles(&ex.alphabet, self.fair, letters);
                    role_marks(&ex.alphabet, self.fair, enabled, letter)
                }
                _ => 0,
            };
            let wrong = |detail: String, trace: &Vec<String>| Error::Nondeterminism {
                action: at.clone(),
                detail: format!(
                    "step {} of the path found could not be replayed on a fresh clone of the \
                     initial object: {detail}; the violation cannot be reproduced",
                    i + 1
                ),
                trace: trace.clone(),
            };
            let (first, ne) = self.aut.edges_of(q);
            let mut to_next = (first..first + ne).filter(|&e| {
                self.aut.allows(e, letter) && self.aut.edge(e).target.index() as u32 == next
            });
            let Some(any) = to_next.next() else {
                let detail = format!("the automaton has no edge to state {next} on it");
                return Err(wrong(detail, &trace));
            };
            let edge = match marks {
                None => any,
                Some(m) => {
                    let Some(e) = std::iter::once(any)
                        .chain(to_next)
                        .find(|&e| self.aut.edge(e).acc | fair == m)
                    else {
                        let detail = format!(
                            "its marks ({m:#x}) are not those of an automaton edge to state \
                             {next} and of the roles enabled there"
                        );
                        return Err(wrong(detail, &trace));
                    };
                    e
                }
            };
            if letter != a.end() && letter != a.deadlock() {
                if let Err(why) = s.successors.step_on(&mut obj, letter) {
                    return Err(wrong(why, &trace));
                }
            }
            q = AutState::new(next as usize);
            let proto = s.successors.store.intern(obj.clone());
            out.push(Successor {
                letter,
                proto,
                state: q,
                acc: self.aut.edge(edge).acc | fair,
            });
            trace.push(at);
        }
        Ok((out, trace))
    }

    /// The report of `raw`, once a fresh clone of the object has replayed
    /// it; `length`: the product's shortest (see
    /// [`Counterexample::product_length`](crate::Counterexample::product_length)).
    fn lasso_report(
        &mut self,
        raw: RawLasso,
        stats: Stats,
        shortness: Shortness,
        length: Option<(u64, u64)>,
    ) -> Result<Report, Error> {
        let s = &mut *self.session;
        // The steps above went through on one object; this runs them
        // again on a fresh clone and checks the ending (END, DEADLOCK),
        // that every step gives the object stored for it, and that a
        // cycle closes on an equal object.
        reexecute(&s.successors, s.initial, &raw)?;
        let c = super::shorten::counterexample(
            &s.successors,
            &s.checker,
            s.initial,
            &raw,
            shortness,
            length,
        );
        Ok(self.report(Verdict::Violated(c), stats))
    }

    fn report(&self, verdict: Verdict, mut stats: Stats) -> Report {
        stats.automaton_states = self.aut.num_states() as u64;
        if stats.time == Duration::ZERO {
            stats.time = self.started.elapsed();
        }
        Report {
            formula: self.formula.clone(),
            semantics: self.session.bounds.semantics,
            fairness: self.session.checker.fairness,
            verdict,
            stats,
            audience: self.session.checker.audience,
        }
    }

    /// The letters of the stutter steps, END and DEADLOCK (a finite run
    /// going on for ever), which a counterexample's length does not count
    /// as actions (see [`Checker::shortest`](crate::Checker::shortest)).
    pub fn stutter_letters(&self) -> [u32; 2] {
        let a = &self.session.successors.alphabet;
        [a.end(), a.deadlock()]
    }

    /// What the session's checker asks of the counterexample's length (see
    /// [`Checker::shortest`](crate::Checker::shortest)): `Some(true)`
    /// always a shortest one, `Some(false)` never, `None` when it is
    /// cheap.
    pub fn shortest(&self) -> Option<bool> {
        self.session.checker.shortest
    }

    /// The depth limit the session's checker resolved (`u64::MAX`: none).
    pub fn max_depth(&self) -> u64 {
        self.session.bounds.max_depth
    }

    /// The limits the session's checker resolved: the product states a
    /// search may store, and its time and memory budgets (`u64::MAX`
    /// bytes: none).
    pub fn limits(&self) -> (u64, Option<Duration>, u64) {
        let b = &self.session.bounds;
        (b.max_states, b.timeout, b.max_memory)
    }
}
