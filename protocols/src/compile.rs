//! From a [`Spec`] to its global [`Lts`]: the operational semantics.
//!
//! Terms are hash-consed into an arena of [`Node`]s, so a residual term is a
//! `u32` and equal residuals are the same state. The rules (see
//! [`crate::spec`] for the meaning) are implemented by [`Terms::steps`];
//! the explorer adds the channel contents and builds the LTS breadth-first.

use std::rc::Rc;

use hashbrown::{HashMap, HashSet};

use crate::lts::{Action, Label, Lts, LtsBuilder, NO_TYPE};
use crate::spec::{Definition, Spec, Term};
use crate::Error;

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

const NIL: u32 = 0;
const STOP: u32 = 1;

type Steps = Rc<[(Label, u32)]>;

struct Terms<'a> {
    def_names: Vec<&'a str>,
    defs: Vec<&'a Definition>,
    nodes: Vec<Node>,
    ids: HashMap<Node, u32>,
    urgent: Vec<bool>,
    nullable: Vec<Option<bool>>,
    steps: Vec<Option<Steps>>,
    unfolded: HashMap<u32, u32>,
    /// Calls whose steps or nullability are being computed: meeting one
    /// again means the recursion is unguarded.
    in_progress: HashSet<u32>,
    names: LtsBuilder,
}

impl<'a> Terms<'a> {
    fn new(spec: &'a Spec) -> Self {
        let mut t = Terms {
            def_names: spec.defs.keys().map(String::as_str).collect(),
            defs: spec.defs.values().collect(),
            nodes: Vec::new(),
            ids: HashMap::new(),
            urgent: Vec::new(),
            nullable: Vec::new(),
            steps: Vec::new(),
            unfolded: HashMap::new(),
            in_progress: HashSet::new(),
            names: LtsBuilder::new(spec.roles.clone(), spec.types.clone()),
        };
        assert_eq!(t.mk(Node::Nil), NIL);
        assert_eq!(t.mk(Node::Stop), STOP);
        t
    }

    fn mk(&mut self, node: Node) -> u32 {
        if let Some(&id) = self.ids.get(&node) {
            return id;
        }
        let urgent = match node {
            Node::Urgent(_) => true,
            Node::Seq(a, _) => self.urgent[a as usize],
            Node::Par(a, b) => self.urgent[a as usize] || self.urgent[b as usize],
            _ => false,
        };
        let id = self.nodes.len() as u32;
        self.nodes.push(node.clone());
        self.ids.insert(node, id);
        self.urgent.push(urgent);
        self.nullable.push(None);
        self.steps.push(None);
        id
    }

    /// Sequence, kept right-associated so that equal residuals are equal
    /// nodes.
    fn seq(&mut self, a: u32, b: u32) -> u32 {
        match (&self.nodes[a as usize], b) {
            (Node::Nil, _) => b,
            (_, NIL) => a,
            (Node::Stop, _) => STOP,
            (&Node::Seq(x, y), _) => {
                let rest = self.seq(y, b);
                self.seq(x, rest)
            }
            _ => self.mk(Node::Seq(a, b)),
        }
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
        let ty = ty.map_or(NO_TYPE, |t| self.names.ty(t));
        Ok(Label {
            action,
            ty,
            from: self.names.role(from),
            to: self.names.role(to),
        })
    }

    fn intern(&mut self, term: &Term) -> Result<u32, Error> {
        Ok(match term {
            Term::End => NIL,
            Term::Comm { ty, from, to, sync } => {
                let send = self.label(Action::Send, Some(ty), from.name(), to.name())?;
                if *sync {
                    self.mk(Node::SyncSend(send))
                } else {
                    let s = self.mk(Node::Act(send));
                    let r = self.mk(Node::Act(Label {
                        action: Action::Recv,
                        ..send
                    }));
                    self.seq(s, r)
                }
            }
            Term::Close { from, to } => {
                let l = self.label(Action::Close, None, from.name(), to.name())?;
                self.mk(Node::Act(l))
            }
            Term::Seq(v) => {
                let mut acc = NIL;
                for t in v.iter().rev() {
                    let t = self.intern(t)?;
                    acc = self.seq(t, acc);
                }
                acc
            }
            Term::Alt(v) => {
                let mut acc = STOP;
                for t in v {
                    let t = self.intern(t)?;
                    acc = self.alt(acc, t);
                }
                acc
            }
            Term::Par(v) => {
                let mut acc = NIL;
                for t in v {
                    let t = self.intern(t)?;
                    acc = self.par(acc, t);
                }
                acc
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

    fn nullable(&mut self, t: u32) -> Result<bool, Error> {
        if let Some(n) = self.nullable[t as usize] {
            return Ok(n);
        }
        let n = match self.nodes[t as usize].clone() {
            Node::Nil | Node::Star(_) => true,
            Node::Stop | Node::Act(_) | Node::SyncSend(_) | Node::Urgent(_) => false,
            Node::Seq(a, b) | Node::Par(a, b) => self.nullable(a)? && self.nullable(b)?,
            Node::Alt(a, b) => self.nullable(a)? || self.nullable(b)?,
            Node::Call(..) => {
                if !self.in_progress.insert(t) {
                    return Err(self.unguarded(t));
                }
                let b = self.unfold(t)?;
                let n = self.nullable(b);
                self.in_progress.remove(&t);
                n?
            }
        };
        self.nullable[t as usize] = Some(n);
        Ok(n)
    }

    /// The transitions of a residual term (without channel conditions).
    fn steps(&mut self, t: u32) -> Result<Steps, Error> {
        if let Some(s) = &self.steps[t as usize] {
            return Ok(s.clone());
        }
        let mut out: Vec<(Label, u32)> = Vec::new();
        match self.nodes[t as usize].clone() {
            Node::Nil | Node::Stop => {}
            Node::Act(l) | Node::Urgent(l) => out.push((l, NIL)),
            Node::SyncSend(l) => {
                let r = self.mk(Node::Urgent(Label {
                    action: Action::Recv,
                    ..l
                }));
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
            Node::Call(..) => {
                if !self.in_progress.insert(t) {
                    return Err(self.unguarded(t));
                }
                let b = self.unfold(t)?;
                let s = self.steps(b);
                self.in_progress.remove(&t);
                out.extend(s?.iter().copied());
            }
        }
        out.sort_unstable();
        out.dedup();
        let s: Steps = out.into();
        self.steps[t as usize] = Some(s.clone());
        Ok(s)
    }
}

/// A global state: residual term and channel contents, the latter as
/// `(from, to, type)` entries sorted by channel, in FIFO order within one.
#[derive(Clone, PartialEq, Eq, Hash)]
struct Global {
    term: u32,
    chans: Box<[(u32, u32, u32)]>,
}

pub(crate) fn compile(spec: &Spec, max_states: usize) -> Result<Lts, Error> {
    let mut terms = Terms::new(spec);
    let main = terms.intern(&spec.main)?;
    let mut states: Vec<Global> = vec![Global {
        term: main,
        chans: Box::new([]),
    }];
    let mut index: HashMap<Global, u32> = HashMap::new();
    index.insert(states[0].clone(), 0);
    let mut finals = Vec::new();
    let mut all_edges = Vec::new();
    let mut i = 0;
    while i < states.len() {
        let g = states[i].clone();
        let mut edges = Vec::new();
        for &(l, t2) in terms.steps(g.term)?.iter() {
            let key = (l.from, l.to);
            let chans: Box<[(u32, u32, u32)]> = match l.action {
                Action::Close => g.chans.clone(),
                Action::Send => {
                    let at = g.chans.partition_point(|&(f, t, _)| (f, t) <= key);
                    let mut c = g.chans.to_vec();
                    c.insert(at, (l.from, l.to, l.ty));
                    c.into()
                }
                Action::Recv => {
                    let at = g.chans.partition_point(|&(f, t, _)| (f, t) < key);
                    if at >= g.chans.len() || g.chans[at] != (l.from, l.to, l.ty) {
                        continue; // not at the head of the channel: FIFO
                    }
                    let mut c = g.chans.to_vec();
                    c.remove(at);
                    c.into()
                }
            };
            let next = Global { term: t2, chans };
            let id = match index.get(&next) {
                Some(&id) => id,
                None => {
                    let id = states.len() as u32;
                    if states.len() >= max_states {
                        return Err(Error::StateBound {
                            limit: max_states,
                            what: "global LTS",
                        });
                    }
                    index.insert(next.clone(), id);
                    states.push(next);
                    id
                }
            };
            edges.push((l, id));
        }
        finals.push(g.chans.is_empty() && terms.nullable(g.term)?);
        all_edges.push(edges);
        i += 1;
    }
    let mut b = terms.names;
    for (edges, f) in all_edges.into_iter().zip(finals) {
        b.add_state(f, edges);
    }
    Ok(b.finish(0))
}
