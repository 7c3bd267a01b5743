//! The projection of a global LTS on every role ([`Projection`]), and the
//! three steps a role takes in it (send, receive, close) with the tagged
//! messages ([`Envelope`]s in an inbox) that they exchange. What they
//! mean is in the [`liberal`](crate::liberal) module's docs; how the
//! projection is computed is in `build.rs`.

use std::collections::VecDeque;
use std::fmt;
use std::sync::Arc;

use engine::{Message, Refused, RoleId};

use crate::ids::{RoleIndex, StateId, TypeIndex};
use crate::lts::{Action, Label, Lts};

/// A message in an inbox: who sent it, the tag of its send (see the
/// [module docs](crate::liberal)) and the message.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Envelope {
    /// The sender.
    pub from: RoleId,
    /// The set of global states the send led to, as a tag number of the
    /// [`Projection`].
    pub tag: u32,
    /// The number of the message's type in the global LTS (found once,
    /// when it is sent), so that a receive never looks the type up by
    /// name.
    pub ty: TypeIndex,
    /// The message.
    pub msg: Message,
}

/// A role's inbox: envelopes in arrival order.
pub(crate) type Inbox = VecDeque<Envelope>;

/// Receive transitions of one local state: `((label, tag), next)`, sorted.
pub(super) type Receives = Vec<((Label, u32), u32)>;

/// The projection of one role.
#[derive(Debug)]
pub(super) struct Local {
    /// Local state → set of global states (sorted).
    pub(super) sets: Vec<Vec<StateId>>,
    pub(super) initial: u32,
    /// Per local state: own sends and closes `(label, next, tag)`, sorted.
    pub(super) out: Vec<Vec<(Label, u32, u32)>>,
    /// Per local state: receives `((label, tag), next)`, sorted.
    pub(super) inp: Vec<Receives>,
}

/// The projections of all roles of a global LTS, shared (read-only) by
/// every liberal object and every [`LocalRole`](crate::LocalRole) made from it.
pub struct Projection {
    pub(super) lts: Arc<Lts>,
    /// Per role, in role order.
    pub(super) locals: Vec<Local>,
    /// Per tag: the global states it stands for.
    pub(super) tags: Vec<Vec<StateId>>,
    /// Per role, the roles that may ever send to it (for partial-order
    /// reduction; computed when first asked).
    pub(super) senders: std::sync::OnceLock<Vec<Vec<RoleId>>>,
}

impl fmt::Debug for Projection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Projection")
            .field("roles", &self.lts.roles())
            .field(
                "local_states",
                &self.locals.iter().map(|l| l.sets.len()).collect::<Vec<_>>(),
            )
            .field("tags", &self.tags.len())
            .finish()
    }
}

impl Projection {
    /// The deterministic global LTS, without the synchronous bit
    /// ([`Lts::asynchronous`]).
    pub fn lts(&self) -> &Arc<Lts> {
        &self.lts
    }

    /// Number of local states of `role`.
    pub fn num_local_states(&self, role: RoleId) -> usize {
        self.locals[role].sets.len()
    }

    /// The global states that local state `state` of `role` stands for.
    pub fn global_states(&self, role: RoleId, state: u32) -> &[StateId] {
        &self.locals[role].sets[state as usize]
    }

    /// The global states a tag stands for.
    pub fn tag_states(&self, tag: u32) -> &[StateId] {
        &self.tags[tag as usize]
    }

    /// The initial local state of `role`.
    pub fn initial(&self, role: RoleId) -> u32 {
        self.locals[role].initial
    }

    /// The own sends and closes of `role` in local state `state`:
    /// `(label, next local state, tag)` (the tag of a close is `u32::MAX`),
    /// sorted by label. For `lint`'s `realizable`, which walks the liberal
    /// object by labels, without messages.
    pub(crate) fn own_steps(&self, role: RoleId, state: u32) -> &[(Label, u32, u32)] {
        &self.locals[role].out[state as usize]
    }

    /// The local state of `role` after it takes, in local state `state`,
    /// the receive `label` of a message sent with `tag`, if it may.
    pub(crate) fn receive_step(
        &self,
        role: RoleId,
        state: u32,
        label: Label,
        tag: u32,
    ) -> Option<u32> {
        let inp = &self.locals[role].inp[state as usize];
        find(inp, &(label, tag), |(k, _)| k).map(|i| inp[i].1)
    }

    #[inline(always)]
    fn valid(&self, a: RoleId, b: RoleId) -> bool {
        a < self.locals.len() && b < self.locals.len() && a != b
    }

    /// The next local state and the tag of `role`'s own step `label` (a
    /// send or close) in local state `state`, if it may take it.
    #[inline(always)]
    pub(super) fn own(&self, role: RoleId, state: u32, label: Label) -> Option<(u32, u32)> {
        let out = &self.locals[role].out[state as usize];
        find(out, &label, |(l, _, _)| l).map(|i| (out[i].1, out[i].2))
    }

    #[inline(always)]
    pub(super) fn accept(&self, role: RoleId, state: u32, env: &Envelope) -> Option<u32> {
        self.accepts(role, state, env.from as u32, env.tag, env.ty.raw())
    }

    /// The local state of `role` after it takes, in local state `state`, a
    /// message of type `ty` from `from` sent with `tag`, if it may.
    #[inline(always)]
    pub(super) fn accepts(
        &self,
        role: RoleId,
        state: u32,
        from: u32,
        tag: u32,
        ty: u32,
    ) -> Option<u32> {
        let label = Label::recv(
            TypeIndex::new(ty),
            RoleIndex::new(from),
            RoleIndex::from_index(role),
        );
        let inp = &self.locals[role].inp[state as usize];
        find(inp, &(label, tag), |(k, _)| k).map(|i| inp[i].1)
    }

    /// Whether `a` and `b` are two different roles of the projection.
    pub(super) fn is_channel(&self, a: RoleId, b: RoleId) -> bool {
        self.valid(a, b)
    }

    /// The send step of `role` in local state `*state`; see [`LocalRole::try_send`](crate::LocalRole::try_send).
    #[inline]
    pub fn send(
        &self,
        role: RoleId,
        state: &mut u32,
        to: RoleId,
        msg: Message,
        inbox_of_to: &mut Inbox,
    ) -> Result<(), Refused<Message>> {
        if !self.valid(role, to) {
            return Err(Refused(msg));
        }
        let Some(ty) = self.lts.type_of(&msg) else {
            return Err(Refused(msg));
        };
        let label = Label::send(ty, RoleIndex::from_index(role), RoleIndex::from_index(to));
        match self.own(role, *state, label) {
            Some((next, tag)) => {
                *state = next;
                inbox_of_to.push_back(Envelope {
                    from: role,
                    tag,
                    ty,
                    msg,
                });
                Ok(())
            }
            None => Err(Refused(msg)),
        }
    }

    /// The receive step of `role`; see [`LocalRole::try_recv`](crate::LocalRole::try_recv).
    /// (Inlined: a receive from one peer, what a running role mostly
    /// does, is a few compares, less than a call's moves of its result.)
    #[inline]
    pub fn recv(
        &self,
        role: RoleId,
        state: &mut u32,
        from: Option<RoleId>,
        inbox: &mut Inbox,
    ) -> Result<(RoleId, Message), Refused> {
        if role >= self.locals.len() {
            return Err(Refused(()));
        }
        if let Some(p) = from {
            // Only the first envelope from `p` is a candidate (what the
            // loop below finds, without its bookkeeping of senders).
            let Some(i) = inbox.iter().position(|e| e.from == p) else {
                return Err(Refused(()));
            };
            let next = self.accept(role, *state, &inbox[i]).ok_or(Refused(()))?;
            *state = next;
            return Ok(take(inbox, i));
        }
        self.recv_any(role, state, inbox)
    }

    /// [`recv`](Self::recv) from any sender: the first envelope of each
    /// sender is a candidate.
    fn recv_any(
        &self,
        role: RoleId,
        state: &mut u32,
        inbox: &mut Inbox,
    ) -> Result<(RoleId, Message), Refused> {
        let mut seen: u64 = 0; // senders already met (their later messages are not heads)
        let mut seen_big: Vec<RoleId> = Vec::new();
        for i in 0..inbox.len() {
            let env = &inbox[i];
            let first = if env.from < 64 {
                let bit = 1u64 << env.from;
                let f = seen & bit == 0;
                seen |= bit;
                f
            } else if seen_big.contains(&env.from) {
                false
            } else {
                seen_big.push(env.from);
                true
            };
            if !first {
                continue;
            }
            if let Some(next) = self.accept(role, *state, env) {
                *state = next;
                return Ok(take(inbox, i));
            }
        }
        Err(Refused(()))
    }

    /// Appends to `out` the sends and closes `role` in local state `state`
    /// can take now: what [`send`](Self::send) and [`close`](Self::close)
    /// accept, read off the tables. (The receives depend on the inbox;
    /// the liberal object lists them.)
    pub(super) fn enabled_own(&self, role: RoleId, state: u32, out: &mut Vec<engine::Enabled>) {
        use engine::Enabled;
        let n = self.locals.len() as u32;
        for &(l, _, _) in &self.locals[role].out[state as usize] {
            if l.to.raw() >= n || l.to.index() == role {
                continue;
            }
            let to = l.to.index();
            match l.action {
                Action::Send => out.push(Enabled::Send {
                    role,
                    to,
                    ty: l.ty.index(),
                }),
                Action::Close => out.push(Enabled::Close { role, to }),
                Action::Recv => {}
            }
        }
    }

    /// The close step of `role`; see [`LocalRole::try_close`](crate::LocalRole::try_close).
    pub fn close(&self, role: RoleId, state: &mut u32, to: RoleId) -> Result<(), Refused> {
        if !self.valid(role, to) {
            return Err(Refused(()));
        }
        let label = Label::close(RoleIndex::from_index(role), RoleIndex::from_index(to));
        match self.own(role, *state, label) {
            Some((next, _)) => {
                *state = next;
                Ok(())
            }
            None => Err(Refused(())),
        }
    }

    /// Whether `role` in local state `state` can never act again: no global
    /// state it considers possible has an action of `role` (local states
    /// are closed under the other roles' actions, so this covers the
    /// future).
    pub fn finished(&self, role: RoleId, state: u32) -> bool {
        self.locals[role].sets[state as usize].iter().all(|&g| {
            self.lts
                .transitions(g)
                .iter()
                .all(|(l, _)| l.actor().index() != role)
        })
    }

    /// Whether the local states `states` (one per role) share a final
    /// global state.
    pub fn may_end(&self, states: &[u32]) -> bool {
        let Some((first, rest)) = states.split_first() else {
            return true;
        };
        self.locals[0].sets[*first as usize].iter().any(|&g| {
            self.lts.is_final(g)
                && rest.iter().enumerate().all(|(r, &s)| {
                    self.locals[r + 1].sets[s as usize]
                        .binary_search(&g)
                        .is_ok()
                })
        })
    }
}

/// Envelope `i` out of `inbox`, as `(sender, message)`; mostly the first
/// (`pop_front` moves nothing else, where `remove` may).
#[inline(always)]
fn take(inbox: &mut Inbox, i: usize) -> (RoleId, Message) {
    let env = if i == 0 {
        inbox.pop_front()
    } else {
        inbox.remove(i)
    };
    let env = env.expect("index in range");
    (env.from, env.msg)
}

/// The index of the entry whose key is `key` in `sorted` (sorted by
/// `key_of`, keys distinct). Every send and receive of a running role
/// looks its local state's edges up here, and a local state mostly has a
/// handful: comparing each for equality is cheaper there than a binary
/// search's three-way compares of whole labels.
#[inline(always)]
fn find<'a, E, K: Ord + 'a>(
    sorted: &'a [E],
    key: &K,
    key_of: impl Fn(&'a E) -> &'a K,
) -> Option<usize> {
    const SCAN: usize = 8;
    if sorted.len() > SCAN {
        return sorted.binary_search_by(|e| key_of(e).cmp(key)).ok();
    }
    sorted.iter().position(|e| key_of(e) == key)
}

#[cfg(test)]
mod tests {
    use super::find;

    /// The scan of a short list and the binary search of a long one find
    /// the same entries as a plain binary search, at every length around
    /// the switch, present keys and absent ones (between, before, after).
    #[test]
    fn find_agrees_with_a_binary_search() {
        for len in 0..20u32 {
            let sorted: Vec<(u32, char)> = (0..len).map(|k| (2 * k + 1, 'x')).collect();
            for key in 0..=2 * len + 2 {
                let expected = sorted.binary_search_by(|(k, _)| k.cmp(&key)).ok();
                assert_eq!(
                    find(&sorted, &key, |(k, _)| k),
                    expected,
                    "len {len}, key {key}"
                );
            }
        }
    }
}
