//! The liberal object as an [`engine::Protocol`]: each operation one
//! role's step in its projection, on the packed inboxes. Apart from
//! `liberal.rs` (the object and its packed state) because this is what
//! the search calls on every probe.

use engine::{Message, Protocol, Refused, RoleId};

use super::Liberal;
use crate::ids::{RoleIndex, TypeIndex};
use crate::lts::Label;
use crate::packed::{Kept, Packed};

/// The senders met so far in a walk over one inbox in arrival order: an
/// envelope is the head of its channel (the only one of its sender that
/// may be taken, channels being FIFO) iff its sender is met there first.
#[derive(Default)]
struct Heads {
    /// Senders below 64, as bits.
    seen: u64,
    /// Senders from 64 on (no allocation unless there are such roles).
    big: Vec<u32>,
}

impl Heads {
    /// Whether an envelope from `from`, met now, is its sender's first.
    #[inline]
    fn first(&mut self, from: u32) -> bool {
        if from < 64 {
            let f = self.seen & (1 << from) == 0;
            self.seen |= 1 << from;
            f
        } else if self.big.contains(&from) {
            false
        } else {
            self.big.push(from);
            true
        }
    }
}

impl Protocol for Liberal {
    fn roles(&self) -> Vec<String> {
        self.proj.lts.roles().to_vec()
    }

    fn sends_to(&self, role: RoleId) -> Option<Vec<RoleId>> {
        Some(
            self.proj
                .lts
                .channels_from(RoleIndex::from_index(role))
                .iter()
                .map(|r| r.index())
                .collect(),
        )
    }

    fn type_names(&self) -> Vec<String> {
        self.proj.lts.type_names().to_vec()
    }

    fn channel_types(&self, from: RoleId, to: RoleId) -> Option<Vec<String>> {
        let (from, to) = (RoleIndex::from_index(from), RoleIndex::from_index(to));
        Some(
            self.proj
                .lts
                .channel_types(from, to)
                .map(str::to_string)
                .collect(),
        )
    }

    fn may_close(&self, from: RoleId, to: RoleId) -> Option<bool> {
        let (from, to) = (RoleIndex::from_index(from), RoleIndex::from_index(to));
        Some(self.proj.lts.closes_channel(from, to))
    }

    /// The specification's types are all its messages: a protocol of
    /// closes alone has none.
    fn declares_types(&self) -> bool {
        true
    }

    /// As [`LocalRole::try_send`](crate::LocalRole::try_send) (the same
    /// tables: [`Projection::send`](crate::Projection::send) and this make
    /// the same step), into the packed inbox of `to`.
    fn try_send(&mut self, role: RoleId, to: RoleId, msg: Message) -> Result<(), Refused<Message>> {
        if !self.proj.is_channel(role, to) {
            return Err(Refused(msg));
        }
        let Some(ty) = self.proj.lts.type_of(&msg) else {
            return Err(Refused(msg));
        };
        let label = Label::send(ty, RoleIndex::from_index(role), RoleIndex::from_index(to));
        let Some((next, tag)) = self.proj.own(role, self.state(role), label) else {
            return Err(Refused(msg));
        };
        self.set_state(role, next);
        let at = self.bound(0, self.num_envelopes(), to as u32, true);
        let (l, w) = (self.envelopes, self.envelopes.width());
        let v = l.pack([to as u32, role as u32, tag, ty.raw()]);
        self.buf.insert_at(self.base() + at * w, w, v);
        // A message that a receive would rebuild as it is goes without
        // being kept: every message of a check with the object's dummies.
        let rebuilds = self.proj.lts.message_type(ty) == Some(msg.message_type()) && msg.is_unit();
        let len = self.num_envelopes();
        self.payloads.insert(at, len, (!rebuilds).then_some(msg));
        Ok(())
    }

    /// As [`LocalRole::try_recv`](crate::LocalRole::try_recv): the first
    /// envelope (from `from`, if given) that is the first of its sender in
    /// the inbox and that the role may take now.
    fn try_recv(
        &mut self,
        role: RoleId,
        from: Option<RoleId>,
    ) -> Result<(RoleId, Message), Refused> {
        if role >= self.n() {
            return Err(Refused(()));
        }
        let state = self.state(role);
        let mut heads = Heads::default();
        let mut taken = None;
        for j in self.inbox(role) {
            let (_, f, tag, ty) = self.envelope(j);
            if !heads.first(f) || from.is_some_and(|p| p as u32 != f) {
                continue;
            }
            if let Some(next) = self.proj.accepts(role, state, f, tag, ty) {
                taken = Some((j, f, ty, next));
                break;
            }
            if from.is_some() {
                // The head from `from` is refused: no other may be taken.
                break;
            }
        }
        let Some((j, f, ty, next)) = taken else {
            return Err(Refused(()));
        };
        self.set_state(role, next);
        let w = self.envelopes.width();
        self.buf.remove_at(self.base() + j * w, w);
        let kept = self.payloads.remove(j);
        Ok((f as RoleId, kept.unwrap_or_else(|| self.rebuilt(ty))))
    }

    fn try_close(&mut self, role: RoleId, to: RoleId) -> Result<(), Refused> {
        if role >= self.n() {
            return Err(Refused(()));
        }
        let mut state = self.state(role);
        self.proj.close(role, &mut state, to)?;
        self.set_state(role, state);
        Ok(())
    }

    /// One step looked up in the role's local tables, as the
    /// try-operation would take it (no probe, no clone): what the
    /// explorer asks at each scheduling point for the few operations its
    /// roles wait on.
    fn is_enabled(&self, action: engine::Enabled) -> Option<bool> {
        use engine::Enabled;
        let ids = RoleIndex::from_index;
        Some(match action {
            Enabled::Send { role, to, ty } => {
                self.proj.is_channel(role, to)
                    && ty < self.proj.lts.type_names().len()
                    && self
                        .proj
                        .own(
                            role,
                            self.state(role),
                            Label::send(TypeIndex::from_index(ty), ids(role), ids(to)),
                        )
                        .is_some()
            }
            // The first envelope from `from` in the inbox is the one
            // `try_recv(role, Some(from))` would take, or none.
            Enabled::Recv { role, from } => {
                role < self.n()
                    && self
                        .inbox(role)
                        .map(|j| self.envelope(j))
                        .find(|&(_, f, _, _)| f as RoleId == from)
                        .is_some_and(|(_, f, tag, ty)| {
                            self.proj
                                .accepts(role, self.state(role), f, tag, ty)
                                .is_some()
                        })
            }
            Enabled::Close { role, to } => {
                role < self.n() && {
                    let mut state = self.state(role);
                    self.proj.close(role, &mut state, to).is_ok()
                }
            }
        })
    }

    /// No envelope from `from` is in `to`'s inbox.
    fn is_channel_empty(&self, from: RoleId, to: RoleId) -> bool {
        to >= self.n() || self.inbox(to).all(|j| self.envelope(j).1 as RoleId != from)
    }

    /// Every role's own sends and closes from its local state, and the
    /// receives its inbox offers: read off the projection's tables, no
    /// probe and no type name compared.
    ///
    /// One pass over the envelopes, each read once: they are sorted by
    /// receiver, so role by role the next ones are that role's inbox (a
    /// search for each inbox read every envelope several times, a third of
    /// the time a check of a liberal object took).
    fn enabled(&self, out: &mut Vec<engine::Enabled>) -> bool {
        let (w, end) = (self.envelopes.width(), self.buf.bytes().len());
        let mut at = self.base();
        for role in 0..self.n() {
            let state = self.state(role);
            self.proj.enabled_own(role, state, out);
            let mut heads = Heads::default();
            while at < end {
                let [to, from, tag, ty] = self.envelope_at(at);
                if to as usize != role {
                    break; // a later role's inbox
                }
                at += w;
                if heads.first(from) && self.proj.accepts(role, state, from, tag, ty).is_some() {
                    out.push(engine::Enabled::Recv {
                        role,
                        from: from as RoleId,
                    });
                }
            }
        }
        true
    }

    fn is_terminated(&self) -> bool {
        self.num_envelopes() == 0 && self.proj.may_end(&self.local_states())
    }

    fn is_finished(&self, role: RoleId) -> bool {
        role < self.n() && self.inbox(role).is_empty() && self.proj.finished(role, self.state(role))
    }

    /// Each role whose next steps nothing else can interfere with (see
    /// `independence.rs`): a role is one process with its own local state
    /// and inbox, and the others touch it only by appending to its inbox.
    fn independence(&self) -> Option<engine::Independence> {
        Some(self.components())
    }

    /// The packed local states and envelopes as they are (as many bits a
    /// field as the projection's sizes need: they are the object's
    /// identity already). `false` while a message is kept beside (a
    /// payload, a type path that is not the LTS's): its rebuilding would
    /// lose it, so such a state is kept as an object.
    fn encode(&self, out: &mut Vec<u8>) -> bool {
        if !self.payloads.is_empty() {
            return false;
        }
        out.extend_from_slice(self.buf.bytes());
        true
    }

    /// `false`, as for the strict object: 56 bytes, nothing on the heap;
    /// stored whole it is about as small a state as its bytes and faster.
    fn prefers_bytes(&self) -> bool {
        false
    }

    /// The object of `self`'s projection with the local states and
    /// envelopes `bytes` hold; `None` unless they are an encoding: every
    /// role's local state one of its own, whole envelopes with every field
    /// in range, sorted by receiver.
    fn decode(&self, bytes: &[u8]) -> Option<Self> {
        let (n, base) = (self.n(), self.base());
        let (l, w) = (self.envelopes, self.envelopes.width());
        if bytes.len() < base || !(bytes.len() - base).is_multiple_of(w) {
            return None;
        }
        let buf = Packed::<30>::from_bytes(bytes);
        let sw = self.states.width();
        let states_ok = (0..n).all(|r| {
            let s = self.states.field(buf.read(r * sw, sw), 0) as usize;
            s < self.proj.locals[r].sets.len()
        });
        let counts = [n, n, self.proj.tags.len(), self.proj.lts.type_names().len()];
        let mut last = 0;
        for j in 0..(bytes.len() - base) / w {
            let v = buf.read(base + j * w, w);
            if !l.within(v, counts) || l.field(v, 0) < last {
                return None;
            }
            last = l.field(v, 0);
        }
        states_ok.then(|| Liberal {
            proj: self.proj.clone(),
            states: self.states,
            envelopes: l,
            buf,
            payloads: Kept::default(),
        })
    }
}
