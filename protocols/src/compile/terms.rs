//! The residual terms of a specification and their rules: the operational
//! semantics that both the compiler ([`compile`](super::compile)) and the
//! LTS built on the fly (`on_the_fly.rs`) run.
//!
//! Terms are hash-consed into an arena of [`Node`]s, so a residual term is a
//! `u32` and equal residuals are the same state. The rules (see
//! [`crate::spec`] for the meaning) are implemented by [`Terms::steps`]
//! (every step of a term at once) and [`Terms::step_by`] (the steps by one
//! label); [`Terms::global_step_by`] adds the channel conditions of a
//! [`Global`] state (the compiler applies them itself, to its interned
//! channel contents).

use std::hash::BuildHasher;
use std::sync::Arc;

use engine::NameKind;
use hashbrown::{DefaultHashBuilder, HashMap, HashSet, HashTable};

use super::Global;
use crate::limits::Budget;
use crate::lts::{Action, Label, LtsBuilder, NO_TYPE};
use crate::spec::{Definition, Spec, Term};
use crate::Error;

mod independence;
pub(crate) use independence::Footprints;

/// A hash-consed residual term. Children are arena indices.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Node {
    /// Terminated.
    Nil,
    /// Can do nothing and never terminates (an empty choice).
    Stop,
    /// One action, then `Nil`.
    Act(Label),
    /// The send of a synchronous communication; its residual is
    /// `Urgent(receive)`.
    SyncSend(Label),
    /// The receive of a synchronous communication whose send just
    /// happened: the only action the whole protocol may take next.
    Urgent(Label),
    Seq(u32, u32),
    Alt(u32, u32),
    Par(u32, u32),
    Star(u32),
    Call(u32, Box<[usize]>),
}

/// The bit of `l` in a node's label mask (the synchronous bit does not
/// count: [`Terms::step_by`] compares labels without it).
fn label_bit(l: Label) -> u128 {
    let h = (l.action as u32)
        .wrapping_mul(0x9E37_79B9)
        .wrapping_add(l.ty.wrapping_mul(0x85EB_CA6B))
        .wrapping_add(l.from.wrapping_mul(0xC2B2_AE35))
        .wrapping_add(l.to.wrapping_mul(0x27D4_EB2F));
    1 << (h.wrapping_mul(0x9E37_79B9) >> 25)
}

/// Bound on the term nodes that unfolding a specification's calls may
/// create ([`Terms::unfold_all`]).
pub(crate) const MAX_TERMS: usize = 1_000_000;

const NIL: u32 = 0;
const STOP: u32 = 1;

type Steps = Arc<[(Label, u32)]>;

pub(crate) struct Terms {
    /// The specification's name, for errors.
    spec: String,
    /// The declared sets are closed: `names` may not grow beyond them.
    closed_roles: bool,
    closed_types: bool,
    def_names: Vec<String>,
    defs: Vec<Definition>,
    nodes: Vec<Node>,
    /// The index of `nodes` for hash-consing: node numbers, hashed by the
    /// node they name (a map keyed by `Node` would hold every node twice).
    ids: HashTable<u32>,
    hasher: DefaultHashBuilder,
    urgent: Vec<bool>,
    nullable: Vec<Option<bool>>,
    steps: Vec<Option<Steps>>,
    /// The `(label, residual)` entries in `steps`, for
    /// [`Terms::approx_bytes`].
    cached_steps: usize,
    /// Per node: a superset of the labels it can ever take, hashed to a
    /// bit each (so a step by one label skips the branches that cannot
    /// take it without computing what they can).
    masks: Vec<u128>,
    unfolded: HashMap<u32, u32>,
    /// Calls whose steps or nullability are being computed: meeting one
    /// again means the recursion is unguarded.
    in_progress: HashSet<u32>,
    /// `step_by` of call nodes, by label: a call can be reached along many
    /// paths of the term graph (`X(i) = X(i+1) X(i+1)`), and without this a
    /// step could take time exponential in the nesting of calls.
    call_steps: HashMap<(u32, Label), Box<[u32]>>,
    pub(crate) names: LtsBuilder,
}

impl Terms {
    /// The terms of `spec`, with its declared roles and types numbered
    /// first (an error if one is declared twice).
    pub(crate) fn new(spec: &Spec) -> Result<Self, Error> {
        for (kind, declared) in [(NameKind::Role, &spec.roles), (NameKind::Type, &spec.types)] {
            let mut seen = HashSet::with_capacity(declared.len());
            if let Some(i) = (0..declared.len()).find(|&i| !seen.insert(&declared[i])) {
                return Err(Error::Undeclared {
                    spec: spec.name.clone(),
                    kind,
                    name: declared[i].clone(),
                    context: crate::DECLARED_TWICE.into(),
                    declared: declared.clone(),
                    suggestion: None,
                });
            }
        }
        let mut t = Terms {
            spec: spec.name.clone(),
            closed_roles: !spec.roles.is_empty(),
            closed_types: !spec.types.is_empty(),
            def_names: spec.defs.keys().cloned().collect(),
            defs: spec.defs.values().cloned().collect(),
            nodes: Vec::new(),
            ids: HashTable::new(),
            hasher: DefaultHashBuilder::default(),
            urgent: Vec::new(),
            nullable: Vec::new(),
            steps: Vec::new(),
            cached_steps: 0,
            masks: Vec::new(),
            unfolded: HashMap::new(),
            in_progress: HashSet::new(),
            call_steps: HashMap::new(),
            names: LtsBuilder::new(spec.roles.clone(), spec.types.clone()),
        };
        assert_eq!(t.mk(Node::Nil), NIL);
        assert_eq!(t.mk(Node::Stop), STOP);
        Ok(t)
    }

    /// An [`Error::Undeclared`] if `name` is outside a closed set of
    /// `known` names.
    fn check_declared(
        &self,
        kind: NameKind,
        closed: bool,
        name: &str,
        context: impl FnOnce() -> String,
    ) -> Result<(), Error> {
        let (known, has) = match kind {
            NameKind::Type => (&self.names.types, self.names.has_type(name)),
            NameKind::Role | NameKind::Peer => (&self.names.roles, self.names.has_role(name)),
        };
        if !closed || has {
            return Ok(());
        }
        Err(Error::Undeclared {
            spec: self.spec.clone(),
            kind,
            name: name.to_string(),
            context: context(),
            declared: known.to_vec(),
            suggestion: engine::names::closest(name, known.iter().map(String::as_str))
                .map(str::to_string),
        })
    }

    fn mk(&mut self, node: Node) -> u32 {
        let hash = self.hasher.hash_one(&node);
        let nodes = &self.nodes;
        if let Some(&id) = self.ids.find(hash, |&i| nodes[i as usize] == node) {
            return id;
        }
        let urgent = match node {
            Node::Urgent(_) => true,
            Node::Seq(a, _) => self.urgent[a as usize],
            Node::Par(a, b) => self.urgent[a as usize] || self.urgent[b as usize],
            _ => false,
        };
        let mask = match node {
            Node::Nil | Node::Stop => 0,
            Node::Act(l) | Node::SyncSend(l) | Node::Urgent(l) => label_bit(l),
            Node::Seq(a, b) | Node::Alt(a, b) | Node::Par(a, b) => {
                self.masks[a as usize] | self.masks[b as usize]
            }
            Node::Star(a) => self.masks[a as usize],
            // Not unfolded yet (and maybe recursive): anything.
            Node::Call(..) => u128::MAX,
        };
        let id = self.nodes.len() as u32;
        self.nodes.push(node);
        let (nodes, hasher) = (&self.nodes, &self.hasher);
        self.ids
            .insert_unique(hash, id, |&i| hasher.hash_one(&nodes[i as usize]));
        self.urgent.push(urgent);
        self.nullable.push(None);
        self.steps.push(None);
        self.masks.push(mask);
        id
    }

    /// Sequence, kept right-associated so that equal residuals are equal
    /// nodes.
    ///
    /// `Seq(x, y); b` is `x; (y; b)`: the parts are prepended to `b` from
    /// the right, on a stack of our own rather than the thread's (a
    /// specification of 100,000 roles has sequences that deep, and the
    /// recursive form overflowed the stack).
    fn seq(&mut self, a: u32, b: u32) -> u32 {
        let mut parts = vec![a];
        let mut rest = b;
        while let Some(t) = parts.pop() {
            rest = match (&self.nodes[t as usize], rest) {
                (Node::Nil, _) => rest,
                (_, NIL) => t,
                (Node::Stop, _) => STOP,
                (&Node::Seq(x, y), _) => {
                    parts.extend([x, y]);
                    rest
                }
                _ => self.mk(Node::Seq(t, rest)),
            };
        }
        rest
    }

    fn alt(&mut self, a: u32, b: u32) -> u32 {
        if a == b || b == STOP {
            return a;
        }
        if a == STOP {
            return b;
        }
        self.mk(Node::Alt(a.min(b), a.max(b)))
    }

    fn par(&mut self, a: u32, b: u32) -> u32 {
        if a == NIL {
            return b;
        }
        if b == NIL {
            return a;
        }
        self.mk(Node::Par(a.min(b), a.max(b)))
    }

    /// The interleaving of `parts` as a balanced tree, so that a step of
    /// one part rebuilds a path of logarithmic length (a state of `k`
    /// parallel workers changes one worker at a time).
    fn par_balanced(&mut self, parts: &[u32]) -> u32 {
        match parts {
            [] => NIL,
            [t] => *t,
            _ => {
                let (a, b) = parts.split_at(parts.len() / 2);
                let (a, b) = (self.par_balanced(a), self.par_balanced(b));
                self.par(a, b)
            }
        }
    }

    /// The choice among `parts` as a balanced tree. Every `Alt` node
    /// caches its steps (the union of its branches'), so a chain of `k`
    /// choices (a hub that may pass the token to any of `k` workers) would
    /// cache `k²/2` steps; a balanced tree caches `k log k`.
    fn alt_balanced(&mut self, parts: &[u32]) -> u32 {
        match parts {
            [] => STOP,
            [t] => *t,
            _ => {
                let (a, b) = parts.split_at(parts.len() / 2);
                let (a, b) = (self.alt_balanced(a), self.alt_balanced(b));
                self.alt(a, b)
            }
        }
    }

    fn label(
        &mut self,
        action: Action,
        ty: Option<&str>,
        from: &str,
        to: &str,
    ) -> Result<Label, Error> {
        if from == to {
            return Err(Error::Spec(format!(
                "role `{from}` cannot communicate with itself"
            )));
        }
        // Every role and type name of the specification passes here, in the
        // one walk that both builds share (see `unfold_all`), so a closed
        // set is enforced the same for both.
        let context = || match ty {
            Some(t) => format!("`{t}` from `{from}` to `{to}`"),
            None => format!("the close from `{from}` to `{to}`"),
        };
        for role in [from, to] {
            self.check_declared(NameKind::Role, self.closed_roles, role, context)?;
        }
        if let Some(t) = ty {
            self.check_declared(NameKind::Type, self.closed_types, t, context)?;
        }
        let ty = ty.map_or(NO_TYPE, |t| self.names.ty(t));
        let (from, to) = (self.names.role(from), self.names.role(to));
        Ok(Label::new(action, ty, from, to, false))
    }

    pub(crate) fn intern(&mut self, term: &Term) -> Result<u32, Error> {
        // The bound of `unfold_all` holds here too: a specification of
        // 400,000 roles made tens of millions of nodes (30 s, 1.4 GB)
        // before the unfolding's check could say it was too large.
        if self.nodes.len() > MAX_TERMS {
            return Err(Error::StateBound {
                limit: MAX_TERMS,
                what: crate::UNFOLDED,
            });
        }
        Ok(match term {
            Term::End => NIL,
            Term::Comm { ty, from, to, sync } => {
                let send = self.label(Action::Send, Some(ty), from.name(), to.name())?;
                if *sync {
                    // the LTS marks the send of a handshake (for lint's
                    // causality); its receive is an ordinary receive
                    let hs = Label::handshake(send.ty, send.from, send.to);
                    self.mk(Node::SyncSend(hs))
                } else {
                    let s = self.mk(Node::Act(send));
                    let r = self.mk(Node::Act(send.receive()));
                    self.seq(s, r)
                }
            }
            Term::Close { from, to } => {
                let l = self.label(Action::Close, None, from.name(), to.name())?;
                self.mk(Node::Act(l))
            }
            Term::Seq(v) => {
                // Interned front to back, so that roles and types are
                // numbered in order of first use as the docs say (back to
                // front numbered `seq([a→b, b→a])`'s roles `[b, a]`), then
                // folded from the back.
                let parts = v
                    .iter()
                    .map(|t| self.intern(t))
                    .collect::<Result<Vec<_>, _>>()?;
                parts.into_iter().rev().fold(NIL, |acc, t| self.seq(t, acc))
            }
            Term::Alt(v) => {
                let parts = v
                    .iter()
                    .map(|t| self.intern(t))
                    .collect::<Result<Vec<_>, _>>()?;
                self.alt_balanced(&parts)
            }
            Term::Par(v) => {
                let parts = v
                    .iter()
                    .map(|t| self.intern(t))
                    .collect::<Result<Vec<_>, _>>()?;
                self.par_balanced(&parts)
            }
            Term::Star(t) => {
                let t = self.intern(t)?;
                if t == NIL {
                    NIL
                } else {
                    self.mk(Node::Star(t))
                }
            }
            Term::Call(name, args) => {
                let Some(d) = self.def_names.iter().position(|n| **n == **name) else {
                    return Err(Error::Spec(format!(
                        "call of `{name}`, which is not defined; defined: {}",
                        if self.def_names.is_empty() {
                            "nothing".to_string()
                        } else {
                            self.def_names.join(", ")
                        }
                    )));
                };
                if self.defs[d].params != args.len() {
                    return Err(Error::Spec(format!(
                        "`{name}` takes {} arguments but is called with {}",
                        self.defs[d].params,
                        args.len()
                    )));
                }
                self.mk(Node::Call(d as u32, args.clone().into_boxed_slice()))
            }
        })
    }

    fn unfold(&mut self, t: u32) -> Result<u32, Error> {
        if let Some(&b) = self.unfolded.get(&t) {
            return Ok(b);
        }
        let Node::Call(d, args) = self.nodes[t as usize].clone() else {
            unreachable!("unfold of a non-call")
        };
        let body = self.defs[d as usize].body(&args);
        let b = self.intern(&body)?;
        self.unfolded.insert(t, b);
        Ok(b)
    }

    fn unguarded(&self, t: u32) -> Error {
        let Node::Call(d, args) = &self.nodes[t as usize] else {
            unreachable!()
        };
        Error::Spec(format!(
            "unguarded recursion: `{}({})` can reach a call of itself before any action",
            self.def_names[*d as usize],
            args.iter()
                .map(|a| a.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ))
    }

    /// `f` of the body of the call `t`. Meeting `t` again inside (before
    /// the computation returns) means that `t` can reach a call of itself
    /// before any action: the recursion is unguarded.
    fn through_call<R>(
        &mut self,
        t: u32,
        f: impl FnOnce(&mut Terms, u32) -> Result<R, Error>,
    ) -> Result<R, Error> {
        if !self.in_progress.insert(t) {
            return Err(self.unguarded(t));
        }
        let r = self.unfold(t).and_then(|body| f(self, body));
        self.in_progress.remove(&t);
        r
    }

    fn nullable(&mut self, t: u32) -> Result<bool, Error> {
        if let Some(n) = self.nullable[t as usize] {
            return Ok(n);
        }
        let n = match self.nodes[t as usize].clone() {
            Node::Nil | Node::Star(_) => true,
            Node::Stop | Node::Act(_) | Node::SyncSend(_) | Node::Urgent(_) => false,
            Node::Seq(a, b) | Node::Par(a, b) => self.nullable(a)? && self.nullable(b)?,
            Node::Alt(a, b) => self.nullable(a)? || self.nullable(b)?,
            Node::Call(..) => self.through_call(t, Terms::nullable)?,
        };
        self.nullable[t as usize] = Some(n);
        Ok(n)
    }

    /// The transitions of a residual term (without channel conditions),
    /// cached: the steps of a term that is part of many states' terms are
    /// computed once.
    pub(crate) fn steps(&mut self, t: u32) -> Result<Steps, Error> {
        if let Some(s) = &self.steps[t as usize] {
            return Ok(s.clone());
        }
        let s: Steps = self.compute_steps(t)?.into();
        self.cached_steps += s.len();
        self.steps[t as usize] = Some(s.clone());
        Ok(s)
    }

    /// [`Terms::steps`] without caching those of `t` itself (those of its
    /// parts are): for the compiler, which asks for the steps of each
    /// state's term once, and whose states' terms are nearly all
    /// different (so a cached list would be kept and never read again).
    pub(crate) fn steps_once(&mut self, t: u32) -> Result<Steps, Error> {
        match &self.steps[t as usize] {
            Some(s) => Ok(s.clone()),
            None => Ok(self.compute_steps(t)?.into()),
        }
    }

    /// The steps of `t` by the rules, those of its parts from the cache;
    /// sorted, without duplicates.
    fn compute_steps(&mut self, t: u32) -> Result<Vec<(Label, u32)>, Error> {
        let mut out: Vec<(Label, u32)> = Vec::new();
        match self.nodes[t as usize].clone() {
            Node::Nil | Node::Stop => {}
            Node::Act(l) | Node::Urgent(l) => out.push((l, NIL)),
            Node::SyncSend(l) => {
                let r = self.mk(Node::Urgent(l.receive()));
                out.push((l, r));
            }
            Node::Seq(a, b) => {
                for &(l, a2) in self.steps(a)?.iter() {
                    let r = self.seq(a2, b);
                    out.push((l, r));
                }
                if self.nullable(a)? {
                    out.extend(self.steps(b)?.iter().copied());
                }
            }
            Node::Alt(a, b) => {
                out.extend(self.steps(a)?.iter().copied());
                out.extend(self.steps(b)?.iter().copied());
            }
            Node::Par(a, b) => {
                let (ua, ub) = (self.urgent[a as usize], self.urgent[b as usize]);
                if !ub {
                    for &(l, a2) in self.steps(a)?.iter() {
                        let r = self.par(a2, b);
                        out.push((l, r));
                    }
                }
                if !ua {
                    for &(l, b2) in self.steps(b)?.iter() {
                        let r = self.par(a, b2);
                        out.push((l, r));
                    }
                }
            }
            Node::Star(a) => {
                for &(l, a2) in self.steps(a)?.iter() {
                    let r = self.seq(a2, t);
                    out.push((l, r));
                }
            }
            Node::Call(..) => out.extend(self.through_call(t, Terms::steps)?.iter().copied()),
        }
        out.sort_unstable();
        out.dedup();
        Ok(out)
    }

    // The same rules, one label at a time, for the LTS built on the fly: a
    // step by one label rebuilds only the residuals of the components that
    // take it, where [`Terms::steps`] builds every successor of a term (for a
    // parallel composition of `k` branches, `k` new terms per step).
    // Invariant: `step_by(t, l)` are the residuals that `steps(t)` pairs
    // with `l` or with `l`'s handshake (the runtimes' view, without the
    // synchronous bit).

    /// [`Terms::step_by`], each new residual `r` put into its context as
    /// `context(r)`.
    fn step_by_then(
        &mut self,
        t: u32,
        l: Label,
        out: &mut Vec<u32>,
        context: impl Fn(&mut Terms, u32) -> u32,
    ) -> Result<(), Error> {
        let from = out.len();
        self.step_by(t, l, out)?;
        for r in &mut out[from..] {
            *r = context(self, *r);
        }
        Ok(())
    }

    /// The residuals of `t` after a step labelled `l`, appended to `out`.
    ///
    /// Labels are compared without the synchronous bit
    /// ([`Label::asynchronous`]): this serves the runtimes, which ask for a
    /// send as a send, handshake or not (as the compiled LTS they execute
    /// has the bit erased).
    fn step_by(&mut self, t: u32, l: Label, out: &mut Vec<u32>) -> Result<(), Error> {
        let l = l.asynchronous();
        if self.masks[t as usize] & label_bit(l) == 0 {
            return Ok(());
        }
        match self.nodes[t as usize].clone() {
            Node::Nil | Node::Stop => {}
            Node::Act(a) | Node::Urgent(a) if a == l => out.push(NIL),
            Node::SyncSend(a) if a.asynchronous() == l => {
                out.push(self.mk(Node::Urgent(l.receive())))
            }
            Node::Act(_) | Node::Urgent(_) | Node::SyncSend(_) => {}
            Node::Seq(a, b) => {
                self.step_by_then(a, l, out, |terms, a2| terms.seq(a2, b))?;
                if self.nullable(a)? {
                    self.step_by(b, l, out)?;
                }
            }
            Node::Alt(a, b) => {
                self.step_by(a, l, out)?;
                self.step_by(b, l, out)?;
            }
            Node::Par(a, b) => {
                let (ua, ub) = (self.urgent[a as usize], self.urgent[b as usize]);
                if !ub {
                    self.step_by_then(a, l, out, |terms, a2| terms.par(a2, b))?;
                }
                if !ua {
                    self.step_by_then(b, l, out, |terms, b2| terms.par(a, b2))?;
                }
            }
            Node::Star(a) => self.step_by_then(a, l, out, |terms, a2| terms.seq(a2, t))?,
            Node::Call(..) => {
                if !self.call_steps.contains_key(&(t, l)) {
                    let mut residuals = Vec::new();
                    self.through_call(t, |terms, b| terms.step_by(b, l, &mut residuals))?;
                    residuals.sort_unstable();
                    residuals.dedup();
                    self.call_steps.insert((t, l), residuals.into());
                }
                out.extend_from_slice(&self.call_steps[&(t, l)]);
            }
        }
        Ok(())
    }

    /// The successors of a global state by the one label `l`.
    pub(crate) fn global_step_by(&mut self, g: &Global, l: Label) -> Result<Vec<Global>, Error> {
        let Some(chans) = g.chans_after(l) else {
            return Ok(Vec::new());
        };
        let mut terms = Vec::new();
        self.step_by(g.term, l, &mut terms)?;
        Ok(terms
            .into_iter()
            .map(|term| Global {
                term,
                chans: chans.clone(),
            })
            .collect())
    }

    pub(crate) fn is_final(&mut self, g: &Global) -> Result<bool, Error> {
        Ok(g.chans.is_empty() && self.nullable(g.term)?)
    }

    /// Whether the term `t` may terminate.
    pub(super) fn may_end(&mut self, t: u32) -> Result<bool, Error> {
        self.nullable(t)
    }

    /// The estimated bytes of the terms and their cached steps: per node,
    /// the node, its slot in the index (at the table's lowest load, with
    /// its control byte) and its entries in the per-node tables; per
    /// cached step, the entry (the `Arc`s' headers are counted with the
    /// nodes).
    pub(super) fn approx_bytes(&self) -> usize {
        const PER_NODE: usize = std::mem::size_of::<Node>()
            + 2 * (4 + 1)
            + std::mem::size_of::<bool>()
            + std::mem::size_of::<Option<bool>>()
            + std::mem::size_of::<Option<Steps>>()
            + std::mem::size_of::<u128>();
        self.nodes.len() * PER_NODE + self.cached_steps * std::mem::size_of::<(Label, u32)>()
    }

    /// The names that the terms numbered, as the builder of the LTS (the
    /// terms themselves are dropped).
    pub(super) fn into_names(self) -> LtsBuilder {
        self.names
    }

    /// Interns the body of every call that `main` can reach (at most
    /// `max_terms` term nodes, so that a recursion whose arguments grow
    /// without end is an error) and computes the steps of every call: every
    /// error of the specification (undefined or unguarded calls, wrong
    /// arities, a role talking to itself) is found here, and every role and
    /// type name is numbered, in one order that does not depend on how the
    /// state space is explored. Returns the channels `(from, to)` that some
    /// action uses.
    /// With a `budget`, the deadline applies to the unfolding too (it is
    /// part of the compilation).
    pub(crate) fn unfold_all(
        &mut self,
        main: u32,
        max_terms: usize,
        mut budget: Option<&mut Budget>,
    ) -> Result<Vec<(u32, u32)>, Error> {
        let mut seen: HashSet<u32> = HashSet::new();
        let mut stack = vec![main];
        let mut calls = Vec::new();
        let mut channels: Vec<(u32, u32)> = Vec::new();
        while let Some(t) = stack.pop() {
            if !seen.insert(t) {
                continue;
            }
            if let Some(b) = budget.as_deref_mut() {
                b.tick()?;
            }
            if self.nodes.len() > max_terms {
                return Err(Error::StateBound {
                    limit: max_terms,
                    what: crate::UNFOLDED,
                });
            }
            match self.nodes[t as usize].clone() {
                Node::Nil | Node::Stop => {}
                Node::Act(l) | Node::SyncSend(l) | Node::Urgent(l) => channels.push((l.from, l.to)),
                Node::Seq(a, b) | Node::Alt(a, b) | Node::Par(a, b) => stack.extend([b, a]),
                Node::Star(a) => stack.push(a),
                Node::Call(..) => {
                    calls.push(t);
                    stack.push(self.unfold(t)?);
                }
            }
        }
        for &c in &calls {
            self.steps(c)?;
            self.nullable(c)?;
        }
        channels.sort_unstable();
        channels.dedup();
        Ok(channels)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::token::{self, Topology};

    /// The step entries cached in `terms` after compiling `spec`.
    fn cached_steps(spec: &Spec) -> usize {
        let mut terms = Terms::new(spec).unwrap();
        let main = terms.intern(&spec.main).unwrap();
        terms.unfold_all(main, MAX_TERMS, None).unwrap();
        terms.steps.iter().flatten().map(|s| s.len()).sum()
    }

    /// The hub of a star of `k` workers chooses among `k - 1` receivers:
    /// the terms cache `O(k log k)` steps, not `k²` (which was 560 MB of a
    /// 2,000-worker star's check).
    #[test]
    fn a_wide_choice_caches_few_steps() {
        let k = 1024;
        let cached = cached_steps(&token::spec(Topology::Star, k));
        assert!(cached < 16 * k, "{cached} steps cached for {k} workers");
    }
}
