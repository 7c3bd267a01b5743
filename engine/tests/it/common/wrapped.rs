//! One forwarding protocol object for the tests that need an existing
//! object with one twist: count its clones, panic in one of its methods,
//! recurse deeply in `clone`, say it is heap-free, hash badly, give a wrong
//! hint, carry a buffer beside its state, ...
//!
//! [`Wrapped`] holds the inner object and a [`Twist`]. Every method of
//! `Protocol`, `Clone`, `PartialEq` and `Hash` of the wrapper calls the
//! twist's method of the same purpose with the inner object; the twist's
//! default methods forward to the inner object unchanged, so a twist
//! writes only the one method its test is about, and a test reads as "this
//! object, but ...". Written once here so that a new method of `Protocol`
//! is forwarded in one place, not in each test's hand-written copy.
//!
//! ```ignore
//! /// A ring that says it is heap-free.
//! #[derive(Clone, Debug)]
//! struct Small;
//! impl Twist<SlotRing> for Small {
//!     fn prefers_bytes(&self, _: &SlotRing) -> bool {
//!         false
//!     }
//! }
//! let small = Wrapped::new(SlotRing::new(5), Small);
//! ```

use std::fmt::Debug;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use engine::{Enabled, Independence, Message, Protocol, Refused, RoleId};

/// `inner` with the twist `twist`: a protocol object whose every method is
/// the twist's (see [`Twist`]), which by default is the inner object's.
#[derive(Debug)]
pub struct Wrapped<P, T> {
    /// The object forwarded to.
    pub inner: P,
    /// What the wrapper adds; part of the state only where its
    /// [`Twist::same`] and [`Twist::hash_state`] say so.
    pub twist: T,
}

impl<P, T> Wrapped<P, T> {
    /// `inner` with the twist `twist`.
    pub fn new(inner: P, twist: T) -> Self {
        Wrapped { inner, twist }
    }
}

/// What a [`Wrapped`] object adds to its inner object `P`. Each method
/// stands for the wrapper's method of the same purpose and gets the inner
/// object besides the twist; the defaults forward to the inner object, so
/// that a twist overrides only what its test is about.
///
/// The twist is not part of the state unless it overrides [`Twist::same`]
/// and [`Twist::hash_state`]: counters shared by every clone, or a fault
/// fixed for the whole run, must not tell states apart.
pub trait Twist<P: Protocol>: Clone + Debug + Send + 'static {
    /// The twist of a clone of `inner`, made before `inner` is cloned (a
    /// twist that panics here panics before any of the clone is made).
    /// Default: a plain copy of the twist.
    fn clone_twist(&self, inner: &P) -> Self {
        let _ = inner;
        self.clone()
    }

    /// Makes `self` the twist of a copy of `source_inner` by
    /// `Clone::clone_from`, before the inner object is copied by its own
    /// `clone_from`. Default: the twist of a clone
    /// ([`Twist::clone_twist`]), as `Clone::clone_from` is a clone unless
    /// an object says otherwise.
    fn clone_twist_from(&mut self, source: &Self, source_inner: &P) {
        *self = source.clone_twist(source_inner);
    }

    /// Whether the twist's part of two states is equal (the inner objects
    /// are compared besides). Default: the twist is not part of the state.
    fn same(&self, other: &Self) -> bool {
        let _ = other;
        true
    }

    /// Hashes the state: by default the inner object alone.
    fn hash_state(&self, inner: &P, state: &mut dyn Hasher) {
        let mut state = state;
        inner.hash(&mut state);
    }

    /// `Protocol::roles`.
    fn roles(&self, inner: &P) -> Vec<String> {
        inner.roles()
    }

    /// `Protocol::type_names`.
    fn type_names(&self, inner: &P) -> Vec<String> {
        inner.type_names()
    }

    /// `Protocol::try_send`.
    fn try_send(
        &mut self,
        inner: &mut P,
        role: RoleId,
        to: RoleId,
        msg: Message,
    ) -> Result<(), Refused<Message>> {
        inner.try_send(role, to, msg)
    }

    /// `Protocol::try_recv`.
    fn try_recv(
        &mut self,
        inner: &mut P,
        role: RoleId,
        from: Option<RoleId>,
    ) -> Result<(RoleId, Message), Refused> {
        inner.try_recv(role, from)
    }

    /// `Protocol::try_close`.
    fn try_close(&mut self, inner: &mut P, role: RoleId, to: RoleId) -> Result<(), Refused> {
        inner.try_close(role, to)
    }

    /// `Protocol::may_recv`.
    fn may_recv(&self, inner: &P, role: RoleId, from: Option<RoleId>) -> bool {
        inner.may_recv(role, from)
    }

    /// `Protocol::is_channel_empty`.
    fn is_channel_empty(&self, inner: &P, from: RoleId, to: RoleId) -> bool {
        inner.is_channel_empty(from, to)
    }

    /// `Protocol::is_terminated`.
    fn is_terminated(&self, inner: &P) -> bool {
        inner.is_terminated()
    }

    /// `Protocol::is_finished`.
    fn is_finished(&self, inner: &P, role: RoleId) -> bool {
        inner.is_finished(role)
    }

    /// `Protocol::peers`.
    fn peers(&self, inner: &P, role: RoleId) -> Option<Vec<RoleId>> {
        inner.peers(role)
    }

    /// `Protocol::sends_to`.
    fn sends_to(&self, inner: &P, role: RoleId) -> Option<Vec<RoleId>> {
        inner.sends_to(role)
    }

    /// `Protocol::enabled`.
    fn enabled(&self, inner: &P, out: &mut Vec<Enabled>) -> bool {
        inner.enabled(out)
    }

    /// `Protocol::independence`.
    fn independence(&self, inner: &P) -> Option<Independence> {
        inner.independence()
    }

    /// `Protocol::encode`.
    fn encode(&self, inner: &P, out: &mut Vec<u8>) -> bool {
        inner.encode(out)
    }

    /// `Protocol::prefers_bytes`.
    fn prefers_bytes(&self, inner: &P) -> bool {
        inner.prefers_bytes()
    }

    /// `Protocol::decode`: the inner object and the twist `bytes` stand
    /// for. Default: the inner object's decoding, with a copy of this
    /// twist (not a clone of the object: nothing is counted).
    fn decode(&self, inner: &P, bytes: &[u8]) -> Option<(P, Self)> {
        Some((inner.decode(bytes)?, self.clone()))
    }
}

impl<P: Protocol, T: Twist<P>> Clone for Wrapped<P, T> {
    fn clone(&self) -> Self {
        // The twist first: a twist that panics in `clone` does so before
        // the inner object is cloned, as a hand-written `Clone` would.
        let twist = self.twist.clone_twist(&self.inner);
        Wrapped {
            inner: self.inner.clone(),
            twist,
        }
    }

    fn clone_from(&mut self, source: &Self) {
        self.twist.clone_twist_from(&source.twist, &source.inner);
        // The inner object's own `clone_from`, which may reuse its buffers:
        // what the search's spare objects are for.
        self.inner.clone_from(&source.inner);
    }
}

impl<P: Protocol, T: Twist<P>> PartialEq for Wrapped<P, T> {
    fn eq(&self, other: &Self) -> bool {
        self.inner == other.inner && self.twist.same(&other.twist)
    }
}

impl<P: Protocol, T: Twist<P>> Eq for Wrapped<P, T> {}

impl<P: Protocol, T: Twist<P>> Hash for Wrapped<P, T> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.twist.hash_state(&self.inner, state);
    }
}

impl<P: Protocol, T: Twist<P>> Protocol for Wrapped<P, T> {
    fn roles(&self) -> Vec<String> {
        self.twist.roles(&self.inner)
    }
    fn type_names(&self) -> Vec<String> {
        self.twist.type_names(&self.inner)
    }
    fn try_send(&mut self, role: RoleId, to: RoleId, msg: Message) -> Result<(), Refused<Message>> {
        self.twist.try_send(&mut self.inner, role, to, msg)
    }
    fn try_recv(
        &mut self,
        role: RoleId,
        from: Option<RoleId>,
    ) -> Result<(RoleId, Message), Refused> {
        self.twist.try_recv(&mut self.inner, role, from)
    }
    fn try_close(&mut self, role: RoleId, to: RoleId) -> Result<(), Refused> {
        self.twist.try_close(&mut self.inner, role, to)
    }
    fn may_recv(&self, role: RoleId, from: Option<RoleId>) -> bool {
        self.twist.may_recv(&self.inner, role, from)
    }
    fn is_channel_empty(&self, from: RoleId, to: RoleId) -> bool {
        self.twist.is_channel_empty(&self.inner, from, to)
    }
    fn is_terminated(&self) -> bool {
        self.twist.is_terminated(&self.inner)
    }
    fn is_finished(&self, role: RoleId) -> bool {
        self.twist.is_finished(&self.inner, role)
    }
    fn peers(&self, role: RoleId) -> Option<Vec<RoleId>> {
        self.twist.peers(&self.inner, role)
    }
    fn sends_to(&self, role: RoleId) -> Option<Vec<RoleId>> {
        self.twist.sends_to(&self.inner, role)
    }
    fn enabled(&self, out: &mut Vec<Enabled>) -> bool {
        self.twist.enabled(&self.inner, out)
    }
    fn independence(&self) -> Option<Independence> {
        self.twist.independence(&self.inner)
    }
    fn encode(&self, out: &mut Vec<u8>) -> bool {
        self.twist.encode(&self.inner, out)
    }
    fn prefers_bytes(&self) -> bool {
        self.twist.prefers_bytes(&self.inner)
    }
    fn decode(&self, bytes: &[u8]) -> Option<Self> {
        let (inner, twist) = self.twist.decode(&self.inner, bytes)?;
        Some(Wrapped { inner, twist })
    }
}

/// Counts of the clones of a [`Wrapped`] object, shared by all its copies
/// (not part of the state): the twist of the tests that measure how many
/// objects a search makes.
#[derive(Clone, Debug, Default)]
pub struct Counts {
    /// `Clone::clone` calls (and `clone_from` calls when they are not
    /// counted apart).
    clones: Arc<AtomicU64>,
    /// `Clone::clone_from` calls, when counted apart.
    clone_froms: Option<Arc<AtomicU64>>,
}

impl Counts {
    /// Counts every copy as a clone, `clone_from` too: an object that does
    /// not override `Clone::clone_from`, whose `clone_from` is a clone.
    pub fn clones() -> Self {
        Counts::default()
    }

    /// Counts `clone_from` calls apart from clones; the inner object's own
    /// `clone_from` makes the copy (a `Ring` reuses its vectors).
    pub fn clone_from_apart() -> Self {
        Counts {
            clone_froms: Some(Arc::default()),
            ..Counts::default()
        }
    }

    /// The clones counted so far.
    pub fn made(&self) -> u64 {
        self.clones.load(Ordering::Relaxed)
    }

    /// The `clone_from` calls counted apart so far (0 unless counted
    /// apart).
    pub fn reused(&self) -> u64 {
        self.clone_froms
            .as_ref()
            .map_or(0, |n| n.load(Ordering::Relaxed))
    }
}

impl<P: Protocol> Twist<P> for Counts {
    fn clone_twist(&self, _: &P) -> Self {
        self.clones.fetch_add(1, Ordering::Relaxed);
        self.clone()
    }

    fn clone_twist_from(&mut self, source: &Self, source_inner: &P) {
        match &source.clone_froms {
            Some(n) => {
                n.fetch_add(1, Ordering::Relaxed);
            }
            None => *self = source.clone_twist(source_inner),
        }
    }
}
