//! The residual terms of a specification and their rules: the operational
//! semantics that both the compiler ([`compile`](super::compile)) and the
//! LTS built on the fly (`on_the_fly.rs`) run.
//!
//! Terms are hash-consed into an arena of [`Node`]s, so a residual term is a
//! `u32` and equal residuals are the same state. The rules (see
//! [`crate::spec`] for the meaning) are implemented by [`Terms::steps`]
//! (every step of a term at once) and [`Terms::step_by`] (the steps by one
//! label); the channel conditions of a global state are applied by the
//! compiler and the LTS built on the fly, to their interned channel
//! contents.

use std::hash::BuildHasher;
use std::sync::Arc;

use engine::NameKind;
use hashbrown::{DefaultHashBuilder, HashMap, HashSet, HashTable};

use crate::lts::{Action, Label, LtsBuilder, NO_TYPE};
use crate::spec::{Definition, Spec, Term};
use crate::Error;

mod independence;
mod rules;
pub(crate) use independence::Footprints;

/// A hash-consed residual term. Children are arena indices; a label is its
/// number in [`Terms::labels`] and a call's arguments theirs in
/// [`Terms::call_args`], so that a node is 12 bytes, not 24: an object
/// built on the fly keeps a node or two for each state it meets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Node {
    /// Terminated.
    Nil,
    /// Can do nothing and never terminates (an empty choice).
    Stop,
    /// One action, then `Nil`.
    Act(u32),
    /// The send of a synchronous communication; its residual is
    /// `Urgent(receive)`.
    SyncSend(u32),
    /// The receive of a synchronous communication whose send just
    /// happened: the only action the whole protocol may take next.
    Urgent(u32),
    Seq(u32, u32),
    Alt(u32, u32),
    Par(u32, u32),
    Star(u32),
    /// A call of definition `.0` with the arguments `call_args[.1]`.
    Call(u32, u32),
}

/// The bit of `l` in a node's label mask (the synchronous bit does not
/// count: [`Terms::step_by`] compares labels without it). 64 bits, not
/// 128: a search on the fly keeps a mask for each of the node or two a
/// state it meets, and a mask only lets a step skip a branch.
fn label_bit(l: Label) -> u64 {
    let h = (l.action as u32)
        .wrapping_mul(0x9E37_79B9)
        .wrapping_add(l.ty.raw().wrapping_mul(0x85EB_CA6B))
        .wrapping_add(l.from.raw().wrapping_mul(0xC2B2_AE35))
        .wrapping_add(l.to.raw().wrapping_mul(0x27D4_EB2F));
    1 << (h.wrapping_mul(0x9E37_79B9) >> 26)
}

/// Bound on the term nodes that unfolding a specification's calls may
/// create ([`Terms::unfold_all`]).
pub(crate) const MAX_TERMS: usize = 1_000_000;

const NIL: u32 = 0;
const STOP: u32 = 1;

type Steps = Arc<[(Label, u32)]>;

/// A node whose steps are not cached ([`Terms::steps`]).
const NOT_CACHED: u32 = u32::MAX;

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
    /// Per node: its cached steps' index in `step_lists`, or `NOT_CACHED`
    /// (a number, not an `Option<Arc>`: most nodes are the terms of one
    /// state each, whose steps are never cached, and a search on the fly
    /// keeps a node or two a state).
    steps: Vec<u32>,
    step_lists: Vec<Steps>,
    /// The `(label, residual)` entries in `steps`, for
    /// [`Terms::approx_bytes`].
    cached_steps: usize,
    /// Per node: a superset of the labels it can ever take, hashed to a
    /// bit each (so a step by one label skips the branches that cannot
    /// take it without computing what they can).
    masks: Vec<u64>,
    unfolded: HashMap<u32, u32>,
    /// Calls whose steps or nullability are being computed: meeting one
    /// again means the recursion is unguarded.
    in_progress: HashSet<u32>,
    /// `step_by` of call nodes, by label: a call can be reached along many
    /// paths of the term graph (`X(i) = X(i+1) X(i+1)`), and without this a
    /// step could take time exponential in the nesting of calls.
    call_steps: HashMap<(u32, Label), Box<[u32]>>,
    /// The labels of the nodes, numbered.
    labels: Vec<Label>,
    label_ids: HashMap<Label, u32>,
    /// The argument lists of the call nodes, numbered.
    call_args: Vec<Box<[usize]>>,
    call_arg_ids: HashMap<Box<[usize]>, u32>,
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
            step_lists: Vec::new(),
            cached_steps: 0,
            masks: Vec::new(),
            unfolded: HashMap::new(),
            in_progress: HashSet::new(),
            call_steps: HashMap::new(),
            labels: Vec::new(),
            label_ids: HashMap::new(),
            call_args: Vec::new(),
            call_arg_ids: HashMap::new(),
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

    /// The label numbered `l`.
    fn label(&self, l: u32) -> Label {
        self.labels[l as usize]
    }

    /// The node of one action labelled `l` (`Act`, `SyncSend` or `Urgent`).
    fn action(&mut self, node: fn(u32) -> Node, l: Label) -> u32 {
        let next = self.labels.len() as u32;
        let id = *self.label_ids.entry(l).or_insert(next);
        if id == next {
            self.labels.push(l);
        }
        self.mk(node(id))
    }

    /// The cached steps of `t`, if they are.
    fn cached(&self, t: u32) -> Option<&Steps> {
        match self.steps[t as usize] {
            NOT_CACHED => None,
            i => Some(&self.step_lists[i as usize]),
        }
    }

    fn mk(&mut self, node: Node) -> u32 {
        let hash = self.hasher.hash_one(node);
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
            Node::Act(l) | Node::SyncSend(l) | Node::Urgent(l) => label_bit(self.label(l)),
            Node::Seq(a, b) | Node::Alt(a, b) | Node::Par(a, b) => {
                self.masks[a as usize] | self.masks[b as usize]
            }
            Node::Star(a) => self.masks[a as usize],
            // Not unfolded yet (and maybe recursive): anything.
            Node::Call(..) => u64::MAX,
        };
        let id = self.nodes.len() as u32;
        self.nodes.push(node);
        let (nodes, hasher) = (&self.nodes, &self.hasher);
        self.ids
            .insert_unique(hash, id, |&i| hasher.hash_one(nodes[i as usize]));
        self.urgent.push(urgent);
        self.nullable.push(None);
        self.steps.push(NOT_CACHED);
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

    fn new_label(
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
                let send = self.new_label(Action::Send, Some(ty), from.name(), to.name())?;
                if *sync {
                    // the LTS marks the send of a handshake (for lint's
                    // causality); its receive is an ordinary receive
                    let hs = Label::handshake(send.ty, send.from, send.to);
                    self.action(Node::SyncSend, hs)
                } else {
                    let s = self.action(Node::Act, send);
                    let r = self.action(Node::Act, send.receive());
                    self.seq(s, r)
                }
            }
            Term::Close { from, to } => {
                let l = self.new_label(Action::Close, None, from.name(), to.name())?;
                self.action(Node::Act, l)
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
                let next = self.call_args.len() as u32;
                let id = *self
                    .call_arg_ids
                    .entry(args.clone().into_boxed_slice())
                    .or_insert(next);
                if id == next {
                    self.call_args.push(args.clone().into_boxed_slice());
                }
                self.mk(Node::Call(d as u32, id))
            }
        })
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
        terms.step_lists.iter().map(|s| s.len()).sum()
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
