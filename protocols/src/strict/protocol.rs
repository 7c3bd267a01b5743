//! The strict object as an [`engine::Protocol`]: every operation one step
//! of the global LTS plus the FIFO of its messages in transit. Apart from
//! `strict.rs` (the object, its construction and its state) because this
//! is what the search calls on every probe.

use engine::{Enabled, Message, Protocol, Refused, RoleId};

use super::graph::Graph;
use super::{Strict, FINISHED_SEARCH_LIMIT};
use crate::graph::LtsGraph;
use crate::ids::{RoleIndex, StateId, TypeIndex};
use crate::lts::{Action, Label};
use crate::packed::{Kept, Packed};

impl Protocol for Strict {
    fn roles(&self) -> Vec<String> {
        self.lts.roles().to_vec()
    }

    fn sends_to(&self, role: RoleId) -> Option<Vec<RoleId>> {
        Some(
            self.lts
                .channels_from(RoleIndex::from_index(role))
                .iter()
                .map(|r| r.index())
                .collect(),
        )
    }

    fn type_names(&self) -> Vec<String> {
        self.lts.type_names().to_vec()
    }

    /// Known for a compiled object (read off its LTS); `None` for one
    /// built on the fly, whose transitions are not all known up front.
    fn channel_types(&self, from: RoleId, to: RoleId) -> Option<Vec<String>> {
        let (from, to) = (RoleIndex::from_index(from), RoleIndex::from_index(to));
        let lts = self.lts()?;
        Some(lts.channel_types(from, to).map(str::to_string).collect())
    }

    fn may_close(&self, from: RoleId, to: RoleId) -> Option<bool> {
        let (from, to) = (RoleIndex::from_index(from), RoleIndex::from_index(to));
        Some(self.lts()?.closes_channel(from, to))
    }

    /// The specification's types are all its messages: a protocol of
    /// closes alone has none.
    fn declares_types(&self) -> bool {
        true
    }

    fn try_send(&mut self, role: RoleId, to: RoleId, msg: Message) -> Result<(), Refused<Message>> {
        if !self.valid(role, to) {
            return Err(Refused(msg));
        }
        let Some(ty) = self.lts.type_of(&msg) else {
            return Err(Refused(msg));
        };
        let (from, to) = (RoleIndex::from_index(role), RoleIndex::from_index(to));
        if !self.step(Label::send(ty, from, to)) {
            return Err(Refused(msg));
        }
        let (l, c) = (self.layout, self.channel(from, to));
        let at = self.in_transit.partition_point(l, |v| l.prefix(v, 1) <= c);
        self.in_transit
            .insert(l, at, l.pack([from.raw(), to.raw(), ty.raw(), 0]));
        // A message that a receive would rebuild as it is goes without
        // being kept: the common case, and every message of a check with
        // the object's own dummies.
        let rebuilds = self.lts.message_type(ty) == Some(msg.message_type()) && msg.is_unit();
        let len = self.in_transit.len(l);
        self.payloads.insert(at, len, (!rebuilds).then_some(msg));
        Ok(())
    }

    fn try_recv(
        &mut self,
        role: RoleId,
        from: Option<RoleId>,
    ) -> Result<(RoleId, Message), Refused> {
        let me = RoleIndex::from_index(role);
        let l = self.layout;
        let taken = match from {
            Some(p) => self
                .head(RoleIndex::from_index(p), me)
                .filter(|&i| self.step_recv(i)),
            // The head of each channel to `me`, in sender order.
            None => (0..self.in_transit.len(l)).find(|&i| {
                let v = self.in_transit.get(l, i);
                l.field(v, 1) == me.raw()
                    && (i == 0 || l.prefix(self.in_transit.get(l, i - 1), 1) != l.prefix(v, 1))
                    && self.step_recv(i)
            }),
        };
        match taken {
            Some(i) => {
                let (f, m) = self.take(i);
                Ok((f.index(), m))
            }
            None => Err(Refused(())),
        }
    }

    fn try_close(&mut self, role: RoleId, to: RoleId) -> Result<(), Refused> {
        let (from, to_) = (RoleIndex::from_index(role), RoleIndex::from_index(to));
        if self.valid(role, to) && self.step(Label::close(from, to_)) {
            Ok(())
        } else {
            Err(Refused(()))
        }
    }

    /// The LTS's transitions from the current state, read as actions:
    /// every send and close it has, and the receive from each channel
    /// whose first message has the type the LTS expects there (by type id,
    /// no name compared). Exactly what probing finds, without a probe.
    fn enabled(&self, out: &mut Vec<Enabled>) -> bool {
        let n = self.lts.roles().len() as u32;
        // Labels without the handshake bit, each once (an LTS explored on
        // the fly keeps the bit, so a state may have `‽(T,p,q)` and
        // `!(T,p,q)`: one action for the object).
        self.lts.for_each_label(self.state, |l| {
            if l.from.raw() >= n || l.to.raw() >= n || l.from == l.to {
                // Never taken: the try-operations refuse such a pair.
                return;
            }
            let (from, to) = (l.from.index(), l.to.index());
            match l.action {
                Action::Send => out.push(Enabled::Send {
                    role: from,
                    to,
                    ty: l.ty.index(),
                }),
                Action::Close => out.push(Enabled::Close { role: from, to }),
                Action::Recv => {
                    if self
                        .head(l.from, l.to)
                        .is_some_and(|i| self.entry(i).2 == l.ty)
                    {
                        out.push(Enabled::Recv { role: to, from });
                    }
                }
            }
        });
        true
    }

    /// One transition looked up in the compiled LTS, as the try-operation
    /// would take it (no probe, no clone): what the explorer asks at each
    /// scheduling point for the few operations its roles wait on. `None`
    /// for an LTS built on the fly: looking a transition up there builds
    /// and keeps its successor state, which its list of labels avoids.
    fn is_enabled(&self, action: Enabled) -> Option<bool> {
        self.lts()?;
        let roles = RoleIndex::from_index;
        Some(match action {
            Enabled::Send { role, to, ty } => {
                self.valid(role, to)
                    && ty < self.lts.type_names().len()
                    && self.enabled(Label::send(
                        TypeIndex::from_index(ty),
                        roles(role),
                        roles(to),
                    ))
            }
            Enabled::Recv { role, from } => {
                let (from, to) = (roles(from), roles(role));
                self.valid(role, from.index())
                    && self.head(from, to).is_some_and(|i| {
                        let (f, t, ty) = self.entry(i);
                        self.enabled(Label::recv(ty, f, t))
                    })
            }
            Enabled::Close { role, to } => {
                self.valid(role, to) && self.enabled(Label::close(roles(role), roles(to)))
            }
        })
    }

    /// `false` when no message to `role` (from `from`, if named) is in
    /// transit.
    fn may_recv(&self, role: RoleId, from: Option<RoleId>) -> bool {
        match from {
            Some(p) => self
                .head(RoleIndex::from_index(p), RoleIndex::from_index(role))
                .is_some(),
            None => self
                .in_transit
                .iter(self.layout)
                .any(|v| self.layout.field(v, 1) as usize == role),
        }
    }

    /// No message from `from` to `to` is in transit.
    fn is_channel_empty(&self, from: RoleId, to: RoleId) -> bool {
        self.head(RoleIndex::from_index(from), RoleIndex::from_index(to))
            .is_none()
    }

    fn is_terminated(&self) -> bool {
        self.in_transit.is_empty() && self.lts.is_final(self.state)
    }

    /// The LTS state as a LEB128 number (1 byte up to 127 states, 3 up to
    /// 2 million; canonical whatever the number of states, which grows for
    /// an object built [on the fly](Strict::on_the_fly)), then the packed
    /// messages in transit as they are. `false` while a message is kept
    /// beside (a payload, a type path that is not the LTS's): its
    /// rebuilding would lose it, so such a state is kept as an object.
    fn encode(&self, out: &mut Vec<u8>) -> bool {
        if !self.payloads.is_empty() {
            return false;
        }
        crate::packed::write_varint(out, self.state.raw());
        out.extend_from_slice(self.in_transit.bytes());
        true
    }

    /// `false`: the object is 56 bytes with nothing on the heap, and stored
    /// whole it costs about as much a state as its bytes do (80–86 B
    /// against 65–86 B in `runtime_objects`), at 17–40 % less CPU and with
    /// the parallel search (BENCHMARKS.md).
    /// `Checker::collapse(true)` or `PRUST_COLLAPSE=1` store bytes.
    fn prefers_bytes(&self) -> bool {
        false
    }

    /// `false` for an object built [on the fly](Strict::on_the_fly): its
    /// state numbers are handed out in the order this process meets the
    /// states, so another process's number names another state.
    fn bytes_are_portable(&self) -> bool {
        !matches!(self.lts, Graph::OnTheFly(_))
    }

    /// The object of `self`'s LTS (the same graph: state numbers of an
    /// object built on the fly are its own) in the state `bytes` name;
    /// `None` unless they are an encoding: a state the graph has, whole
    /// records, every field in range, sorted by channel.
    fn decode(&self, bytes: &[u8]) -> Option<Self> {
        let (state, rest) = crate::packed::read_varint(bytes)?;
        let (l, w) = (self.layout, self.layout.width());
        let state = StateId::new(state);
        if state.index() >= self.lts.num_states() || !rest.len().is_multiple_of(w) {
            return None;
        }
        let (roles, types) = (self.lts.roles().len(), self.lts.type_names().len());
        let in_transit = Packed::from_bytes(rest);
        let mut last = None;
        for v in in_transit.iter(l) {
            let c = l.prefix(v, 1);
            if !l.within(v, [roles, roles, types, 0]) || last.is_some_and(|p| p > c) {
                return None;
            }
            last = Some(c);
        }
        Some(Strict {
            lts: self.lts.clone(),
            state,
            layout: l,
            in_transit,
            payloads: Kept::default(),
        })
    }

    /// For an object built [on the fly](Strict::on_the_fly): the branches
    /// of the specification's parallel compositions that share no channel
    /// with the rest (see `Terms::components`), each the actions it can
    /// take now. A compiled LTS has lost that structure: `None`.
    fn independence(&self) -> Option<engine::Independence> {
        let Graph::OnTheFly(g) = &self.lts else {
            return None;
        };
        let comps = g.components(self.state)?;
        Some(
            comps
                .into_iter()
                .fold(engine::Independence::new(), |ind, labels| {
                    ind.component(labels.into_iter().map(action_ref))
                }),
        )
    }

    /// No message is in transit to `role` and no action of `role` is
    /// reachable in the LTS (computed on demand: the engine asks only when
    /// it reports a deadlock). On an object built
    /// [on the fly](Strict::on_the_fly), a search that would visit more
    /// than 100,000 states answers `false`.
    fn is_finished(&self, role: RoleId) -> bool {
        let r = RoleIndex::from_index(role);
        if self
            .in_transit
            .iter(self.layout)
            .any(|v| self.layout.field(v, 1) == r.raw())
        {
            return false;
        }
        let mut seen: hashbrown::HashSet<StateId> = [self.state].into_iter().collect();
        let mut stack = vec![self.state];
        while let Some(s) = stack.pop() {
            let edges = self.lts.transitions(s);
            if edges.iter().any(|(l, _)| l.actor() == r) {
                return false;
            }
            stack.extend(
                edges
                    .iter()
                    .filter(|(_, t)| seen.insert(*t))
                    .map(|&(_, t)| t),
            );
            // A compiled LTS is finite and this search ends; one built on
            // demand may be unbounded, so it gives up (safely) at a bound.
            if matches!(self.lts, Graph::OnTheFly(_)) && seen.len() > FINISHED_SEARCH_LIMIT {
                return false;
            }
        }
        true
    }
}

/// The engine's name for the action of a label.
fn action_ref(l: Label) -> engine::ActionRef {
    use engine::{ActionKind, ActionRef};
    let (from, to) = (l.from.index(), l.to.index());
    match l.action {
        Action::Send => ActionRef::new(from, ActionKind::Send, to),
        Action::Recv => ActionRef::new(to, ActionKind::Recv, from),
        Action::Close => ActionRef::new(from, ActionKind::Close, to),
    }
}
