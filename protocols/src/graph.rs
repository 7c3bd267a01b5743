//! The one interface of the two kinds of global LTS that a
//! [`Strict`](crate::Strict) object runs: compiled whole ([`Lts`], its
//! implementation is here) or computed on demand ([`OnTheFly`](crate::on_the_fly::OnTheFly),
//! implemented in `on_the_fly.rs`). The strict runtime is written once
//! against [`LtsGraph`] and asks which kind it has only where the answer
//! differs by nature (only a compiled LTS can be handed out as an [`Lts`];
//! only one computed on demand may be too large to search to the end).

use std::borrow::Cow;

use crate::ids::{RoleIndex, StateId, TypeIndex};
use crate::lts::{Label, Lts};

/// What [`Strict`](crate::Strict) needs of the deterministic global LTS it
/// runs, whichever way its states are computed.
pub(crate) trait LtsGraph {
    /// The role names, in role order.
    fn roles(&self) -> &[String];
    /// The message type names, in type order.
    fn type_names(&self) -> &[String];
    /// The number of the message type `name`.
    fn type_id(&self, name: &str) -> Option<TypeIndex>;
    /// The number of the type of `msg`, by pointer for the engine's
    /// dummies (see [`Lts::type_of`]).
    fn type_of(&self, msg: &engine::Message) -> Option<TypeIndex>;
    /// The interned type of type number `ty` (`None` for a name with a
    /// `::`, which no message's short name is).
    fn message_type(&self, ty: TypeIndex) -> Option<engine::MessageType>;
    /// The roles `role` may send to or close towards (sorted).
    fn channels_from(&self, role: RoleIndex) -> Vec<RoleIndex>;
    /// The states known so far (all of them for a compiled LTS).
    fn num_states(&self) -> usize;
    /// Whether `state` is final.
    fn is_final(&self, state: StateId) -> bool;
    /// The successor of `state` by `label`, if it has one: the one step of
    /// every operation of a search (the LTS is deterministic, so there is
    /// at most one).
    fn next(&self, state: StateId, label: Label) -> Option<StateId>;
    /// Every transition of `state`, sorted by label: borrowed from a
    /// compiled LTS, computed into a fresh vector by one built on demand.
    fn transitions(&self, state: StateId) -> Cow<'_, [(Label, StateId)]>;

    /// Calls `f` with the label of each transition of `state` as the
    /// runtimes take it: without the synchronous bit
    /// ([`Label::asynchronous`]), each once, in label order.
    ///
    /// Why: an LTS built on the fly keeps the bit (its lint needs it), so
    /// one state may have a handshake's send `‽(T,p,q)` and an ordinary
    /// `!(T,p,q)`, one action for the object. The two differ only in the
    /// bit, the last field labels sort by, so they are adjacent here and
    /// one comparison with the previous label drops the second.
    fn for_each_label(&self, state: StateId, mut f: impl FnMut(Label)) {
        let mut last = None;
        for &(l, _) in self.transitions(state).iter() {
            let l = l.asynchronous();
            if last != Some(l) {
                f(l);
                last = Some(l);
            }
        }
    }
}

impl LtsGraph for Lts {
    fn roles(&self) -> &[String] {
        Lts::roles(self)
    }

    fn type_names(&self) -> &[String] {
        Lts::type_names(self)
    }

    fn type_id(&self, name: &str) -> Option<TypeIndex> {
        Lts::type_id(self, name)
    }

    fn type_of(&self, msg: &engine::Message) -> Option<TypeIndex> {
        Lts::type_of(self, msg)
    }

    fn message_type(&self, ty: TypeIndex) -> Option<engine::MessageType> {
        Lts::message_type(self, ty)
    }

    fn channels_from(&self, role: RoleIndex) -> Vec<RoleIndex> {
        Lts::channels_from(self, role).to_vec()
    }

    fn num_states(&self) -> usize {
        Lts::num_states(self)
    }

    fn is_final(&self, state: StateId) -> bool {
        Lts::is_final(self, state)
    }

    fn next(&self, state: StateId, label: Label) -> Option<StateId> {
        // deterministic: at most one edge per label, edges sorted by label
        let edges = Lts::transitions(self, state);
        let i = edges.binary_search_by(|(l, _)| l.cmp(&label)).ok()?;
        Some(edges[i].1)
    }

    fn transitions(&self, state: StateId) -> Cow<'_, [(Label, StateId)]> {
        Cow::Borrowed(Lts::transitions(self, state))
    }
}

/// The global LTS a [`Strict`](crate::Strict) object runs, by kind.
///
#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::{msg, sync, Spec};

    #[test]
    fn labels_come_without_the_handshake_bit_each_once() {
        // One state with `‽(T,a,b)` and `!(T,a,b)`: one send for the
        // runtimes.
        let spec = Spec::new("either", sync("T", "a", "b").or(msg("T", "a", "b")));
        let g = crate::on_the_fly::build(&spec, crate::compile::MAX_TERMS).unwrap();
        let all: Vec<Label> = g
            .transitions(StateId::new(0))
            .iter()
            .map(|&(l, _)| l)
            .collect();
        assert_eq!(all.len(), 2, "{all:?}");
        assert!(all.iter().any(Label::is_sync));
        let mut seen = Vec::new();
        g.for_each_label(StateId::new(0), |l| seen.push(l));
        let (t, a, b) = (TypeIndex::new(0), RoleIndex::new(0), RoleIndex::new(1));
        assert_eq!(seen, [Label::send(t, a, b)]);
    }
}
