//! The rules of the residual terms: unfolding calls, whether a term may
//! end, its steps (all at once, or by one label), and the global step that
//! adds the channel conditions. Apart from `terms.rs` (the arena and how a
//! specification is interned into it) because this is what every state of
//! a compilation, and every step of an object built on the fly, runs.

use hashbrown::HashSet;

use super::{label_bit, Node, Steps, Terms, NIL};
use crate::ids::RoleIndex;
use crate::limits::Budget;
use crate::lts::{Label, LtsBuilder};
use crate::Error;

impl Terms {
    pub(super) fn unfold(&mut self, t: u32) -> Result<u32, Error> {
        if let Some(&b) = self.unfolded.get(&t) {
            return Ok(b);
        }
        let Node::Call(d, args) = self.nodes[t as usize] else {
            unreachable!("unfold of a non-call")
        };
        let body = self.defs[d as usize].body(&self.call_args[args as usize]);
        let b = self.intern(&body)?;
        self.unfolded.insert(t, b);
        Ok(b)
    }

    pub(super) fn unguarded(&self, t: u32) -> Error {
        let Node::Call(d, args) = self.nodes[t as usize] else {
            unreachable!()
        };
        let args = &self.call_args[args as usize];
        Error::Spec(format!(
            "unguarded recursion: `{}({})` can reach a call of itself before any action",
            self.def_names[d as usize],
            args.iter()
                .map(|a| a.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ))
    }

    /// `f` of the body of the call `t`. Meeting `t` again inside (before
    /// the computation returns) means that `t` can reach a call of itself
    /// before any action: the recursion is unguarded.
    pub(super) fn through_call<R>(
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

    pub(super) fn nullable(&mut self, t: u32) -> Result<bool, Error> {
        if let Some(n) = self.nullable[t as usize] {
            return Ok(n);
        }
        let n = match self.nodes[t as usize] {
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
        if let Some(s) = self.cached(t) {
            return Ok(s.clone());
        }
        let s: Steps = self.compute_steps(t)?.into();
        self.cached_steps += s.len();
        self.steps[t as usize] = self.step_lists.len() as u32;
        self.step_lists.push(s.clone());
        Ok(s)
    }

    /// The labels of the steps of `t`: those of [`Terms::steps`], perhaps
    /// with repeats and in another order, appended to `out` without
    /// building a residual term where that costs anything. An object built
    /// on the fly lists its enabled actions from these in every state a
    /// search expands, and that state's term is new: its steps would build
    /// a residual for each step of each branch of each new parallel
    /// composition and sequence on the way down (quadratic in the number
    /// of branches), most of which a reduced search never takes. So
    /// parallel compositions and sequences are walked by the rules of
    /// [`compute_steps`](Self::compute_steps), and every other term (a
    /// part shared by many states) gives its cached steps.
    pub(crate) fn labels(&mut self, t: u32, out: &mut Vec<Label>) -> Result<(), Error> {
        if let Some(s) = self.cached(t) {
            out.extend(s.iter().map(|&(l, _)| l));
            return Ok(());
        }
        match self.nodes[t as usize] {
            Node::Seq(a, b) => {
                self.labels(a, out)?;
                if self.nullable(a)? {
                    self.labels(b, out)?;
                }
            }
            Node::Par(a, b) => {
                let (ua, ub) = (self.urgent[a as usize], self.urgent[b as usize]);
                if !ub {
                    self.labels(a, out)?;
                }
                if !ua {
                    self.labels(b, out)?;
                }
            }
            _ => out.extend(self.steps(t)?.iter().map(|&(l, _)| l)),
        }
        Ok(())
    }

    /// [`Terms::steps`] without caching those of `t` itself (those of its
    /// parts are): for the compiler, which asks for the steps of each
    /// state's term once, and whose states' terms are nearly all
    /// different (so a cached list would be kept and never read again).
    pub(crate) fn steps_once(&mut self, t: u32) -> Result<Steps, Error> {
        match self.cached(t) {
            Some(s) => Ok(s.clone()),
            None => Ok(self.compute_steps(t)?.into()),
        }
    }

    /// The steps of `t` by the rules, those of its parts from the cache;
    /// sorted, without duplicates.
    pub(super) fn compute_steps(&mut self, t: u32) -> Result<Vec<(Label, u32)>, Error> {
        let mut out: Vec<(Label, u32)> = Vec::new();
        match self.nodes[t as usize] {
            Node::Nil | Node::Stop => {}
            Node::Act(l) | Node::Urgent(l) => out.push((self.label(l), NIL)),
            Node::SyncSend(l) => {
                let l = self.label(l);
                let r = self.action(Node::Urgent, l.receive());
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
    pub(super) fn step_by_then(
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
    pub(crate) fn step_by(&mut self, t: u32, l: Label, out: &mut Vec<u32>) -> Result<(), Error> {
        let l = l.asynchronous();
        if self.masks[t as usize] & label_bit(l) == 0 {
            return Ok(());
        }
        match self.nodes[t as usize] {
            Node::Nil | Node::Stop => {}
            Node::Act(a) | Node::Urgent(a) if self.label(a) == l => out.push(NIL),
            Node::SyncSend(a) if self.label(a).asynchronous() == l => {
                out.push(self.action(Node::Urgent, l.receive()))
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

    /// Whether the term `t` may terminate.
    pub(crate) fn may_end(&mut self, t: u32) -> Result<bool, Error> {
        self.nullable(t)
    }

    /// The estimated bytes of the terms and their cached steps: per node,
    /// the node, its slot in the index (at the table's lowest load, with
    /// its control byte) and its entries in the per-node tables; per
    /// cached step, the entry (the `Arc`s' headers, and their entries in
    /// the list of cached steps, are counted with the nodes).
    pub(in crate::compile) fn approx_bytes(&self) -> usize {
        const PER_NODE: usize = std::mem::size_of::<Node>()
            + 2 * (4 + 1)
            + std::mem::size_of::<bool>()
            + std::mem::size_of::<Option<bool>>()
            + std::mem::size_of::<u32>()
            + std::mem::size_of::<u64>();
        self.nodes.len() * PER_NODE + self.cached_steps * std::mem::size_of::<(Label, u32)>()
    }

    /// The names that the terms numbered, as the builder of the LTS (the
    /// terms themselves are dropped).
    pub(in crate::compile) fn into_names(self) -> LtsBuilder {
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
    ) -> Result<Vec<(RoleIndex, RoleIndex)>, Error> {
        let mut seen: HashSet<u32> = HashSet::new();
        let mut stack = vec![main];
        let mut calls = Vec::new();
        let mut channels: Vec<(RoleIndex, RoleIndex)> = Vec::new();
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
            match self.nodes[t as usize] {
                Node::Nil | Node::Stop => {}
                Node::Act(l) | Node::SyncSend(l) | Node::Urgent(l) => {
                    let l = self.label(l);
                    channels.push((l.from, l.to))
                }
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
