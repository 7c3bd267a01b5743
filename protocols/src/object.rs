//! One type for every protocol object this crate builds, so that a caller
//! that picks the kind at run time (`prust check --runtime ...`, a suite's
//! runtimes) holds a value rather than passing a generic visitor around.
//!
//! The model is crossbeam-channel's `SenderFlavor`: an enum whose variants
//! are the kinds, each method one `match` that forwards. Every state of one
//! search is of the same variant, so the match is predicted and costs
//! little per probe; the hash and the encoding forward too, so a state is
//! hashed and stored exactly as the inner object's. Every forwarder is
//! `#[inline]`: the search is generic code instantiated in the caller's
//! crate, and a call layer per probe across the crate boundary is what
//! the match would otherwise cost.

use std::hash::{Hash, Hasher};

use engine::{Enabled, Independence, Message, Protocol, Refused, RoleId};

use crate::{Liberal, Strict};

/// A protocol object of any kind: a [`Strict`] object (compiled whole, or
/// [built on the fly](Strict::on_the_fly): the same type) or a [`Liberal`]
/// one. It is an [`engine::Protocol`] that behaves exactly as the object
/// inside.
///
/// ```
/// use engine::Protocol;
/// use protocols::Object;
///
/// let lts = protocols::bundled::spec_by_name("chess").unwrap().compile().unwrap();
/// let objects = [
///     Object::from(protocols::Strict::new(lts.clone())),
///     Object::from(protocols::Liberal::new(lts)),
/// ];
/// for object in objects {
///     assert_eq!(object.roles(), ["white", "black"]);
/// }
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Object {
    /// The strict object: one global state, compiled or on the fly.
    Strict(Strict),
    /// The liberal object: every role runs its projection.
    Liberal(Liberal),
}

impl From<Strict> for Object {
    fn from(o: Strict) -> Self {
        Object::Strict(o)
    }
}

impl From<Liberal> for Object {
    fn from(o: Liberal) -> Self {
        Object::Liberal(o)
    }
}

/// Runs `$body` on the object inside `$self`, bound to `$o`.
macro_rules! forward {
    ($self:expr, $o:ident => $body:expr) => {
        match $self {
            Object::Strict($o) => $body,
            Object::Liberal($o) => $body,
        }
    };
}

/// The inner object's hash alone: objects of different kinds never meet
/// in one search, and a variant tag hashed into every state would be work
/// per state for nothing (equal objects still hash equal).
impl Hash for Object {
    #[inline]
    fn hash<H: Hasher>(&self, state: &mut H) {
        forward!(self, o => o.hash(state))
    }
}

impl Protocol for Object {
    #[inline]
    fn roles(&self) -> Vec<String> {
        forward!(self, o => o.roles())
    }
    #[inline]
    fn type_names(&self) -> Vec<String> {
        forward!(self, o => o.type_names())
    }
    #[inline]
    fn declares_types(&self) -> bool {
        forward!(self, o => o.declares_types())
    }
    #[inline]
    fn try_send(&mut self, role: RoleId, to: RoleId, msg: Message) -> Result<(), Refused<Message>> {
        forward!(self, o => o.try_send(role, to, msg))
    }
    #[inline]
    fn try_recv(
        &mut self,
        role: RoleId,
        from: Option<RoleId>,
    ) -> Result<(RoleId, Message), Refused> {
        forward!(self, o => o.try_recv(role, from))
    }
    #[inline]
    fn try_close(&mut self, role: RoleId, to: RoleId) -> Result<(), Refused> {
        forward!(self, o => o.try_close(role, to))
    }
    #[inline]
    fn may_recv(&self, role: RoleId, from: Option<RoleId>) -> bool {
        forward!(self, o => o.may_recv(role, from))
    }
    #[inline]
    fn is_channel_empty(&self, from: RoleId, to: RoleId) -> bool {
        forward!(self, o => o.is_channel_empty(from, to))
    }
    #[inline]
    fn channel_capacity(&self, from: RoleId, to: RoleId) -> Option<usize> {
        forward!(self, o => o.channel_capacity(from, to))
    }
    #[inline]
    fn is_terminated(&self) -> bool {
        forward!(self, o => o.is_terminated())
    }
    #[inline]
    fn is_finished(&self, role: RoleId) -> bool {
        forward!(self, o => o.is_finished(role))
    }
    #[inline]
    fn peers(&self, role: RoleId) -> Option<Vec<RoleId>> {
        forward!(self, o => o.peers(role))
    }
    #[inline]
    fn sends_to(&self, role: RoleId) -> Option<Vec<RoleId>> {
        forward!(self, o => o.sends_to(role))
    }
    #[inline]
    fn channel_types(&self, from: RoleId, to: RoleId) -> Option<Vec<String>> {
        forward!(self, o => o.channel_types(from, to))
    }
    #[inline]
    fn may_close(&self, from: RoleId, to: RoleId) -> Option<bool> {
        forward!(self, o => o.may_close(from, to))
    }
    #[inline]
    fn enabled(&self, out: &mut Vec<Enabled>) -> bool {
        forward!(self, o => o.enabled(out))
    }
    #[inline]
    fn is_enabled(&self, action: Enabled) -> Option<bool> {
        forward!(self, o => o.is_enabled(action))
    }
    #[inline]
    fn independence(&self) -> Option<Independence> {
        forward!(self, o => o.independence())
    }
    #[inline]
    fn encode(&self, out: &mut Vec<u8>) -> bool {
        forward!(self, o => o.encode(out))
    }
    #[inline]
    fn prefers_bytes(&self) -> bool {
        forward!(self, o => o.prefers_bytes())
    }
    #[inline]
    fn bytes_are_portable(&self) -> bool {
        forward!(self, o => o.bytes_are_portable())
    }
    /// Decodes as the kind of `self`: the bytes carry no tag, since every
    /// state of one search is of one kind.
    #[inline]
    fn decode(&self, bytes: &[u8]) -> Option<Self> {
        match self {
            Object::Strict(o) => o.decode(bytes).map(Object::Strict),
            Object::Liberal(o) => o.decode(bytes).map(Object::Liberal),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::BuildHasher;

    /// The object inside and the enum agree on every answer a search asks
    /// for, including the hash and the bytes a state is stored as.
    #[test]
    fn an_object_answers_as_the_object_inside() {
        let lts = crate::bundled::spec_by_name("token-star:3")
            .unwrap()
            .compile()
            .unwrap();
        let hasher = std::collections::hash_map::RandomState::new();
        let strict = Strict::new(lts.clone());
        let liberal = Liberal::new(lts);
        let mut dummies = Vec::new();
        for (inner_enabled, object) in [
            (
                {
                    let mut v = Vec::new();
                    strict.enabled(&mut v);
                    v
                },
                Object::from(strict.clone()),
            ),
            (
                {
                    let mut v = Vec::new();
                    liberal.enabled(&mut v);
                    v
                },
                Object::from(liberal.clone()),
            ),
        ] {
            let mut v = Vec::new();
            assert!(object.enabled(&mut v));
            assert_eq!(format!("{v:?}"), format!("{inner_enabled:?}"));
            let (mut a, mut b) = (Vec::new(), Vec::new());
            let encoded = object.encode(&mut a);
            let inner_hash = match &object {
                Object::Strict(o) => {
                    assert_eq!(encoded, o.encode(&mut b));
                    hasher.hash_one(o)
                }
                Object::Liberal(o) => {
                    assert_eq!(encoded, o.encode(&mut b));
                    hasher.hash_one(o)
                }
            };
            assert_eq!(a, b);
            assert_eq!(hasher.hash_one(&object), inner_hash);
            if encoded {
                assert_eq!(object.decode(&a).as_ref(), Some(&object));
            }
            dummies.push(engine::declared_dummies(&object).len());
        }
        assert_eq!(dummies[0], dummies[1]);
        assert_ne!(Object::from(strict), Object::from(liberal));
    }
}
