//! The one interface of the two kinds of global LTS that a
//! [`Strict`](crate::Strict) object runs: compiled whole ([`Lts`], its
//! implementation is here) or computed on demand (`OnTheFly`, implemented
//! in `on_the_fly.rs`). The strict runtime is written once against
//! [`LtsGraph`] and never asks which kind it has, except where the answer
//! differs by nature (only a compiled LTS can be handed out as an [`Lts`];
//! only one computed on demand may be too large to search to the end).

use std::borrow::Cow;
use std::sync::Arc;

use crate::lts::{Label, Lts};

/// What [`Strict`](crate::Strict) needs of the deterministic global LTS it
/// runs, whichever way its states are computed.
///
/// Object-safe on purpose: a [`Strict`](crate::Strict) holds an
/// `Arc<dyn LtsGraph>`, so a clone of the object (which a search makes for
/// every probe) is one reference-count bump whatever the kind, and the
/// public type stays free of a type parameter that would only name an
/// implementation detail.
pub(crate) trait LtsGraph: Send + Sync {
    /// The role names, in role order.
    fn roles(&self) -> &[String];
    /// The message type names, in type order.
    fn type_names(&self) -> &[String];
    /// The number of the message type `name`.
    fn type_id(&self, name: &str) -> Option<u32>;
    /// The roles `role` may send to or close towards (sorted).
    fn channels_from(&self, role: usize) -> Vec<usize>;
    /// The states known so far (all of them for a compiled LTS).
    fn num_states(&self) -> usize;
    /// Whether `state` is final.
    fn is_final(&self, state: u32) -> bool;
    /// The successor of `state` by `label`, if it has one: the one step of
    /// every operation of a search (the LTS is deterministic, so there is
    /// at most one).
    fn next(&self, state: u32, label: Label) -> Option<u32>;
    /// Every transition of `state`, sorted by label: borrowed from a
    /// compiled LTS, computed into a fresh vector by one built on demand.
    fn transitions(&self, state: u32) -> Cow<'_, [(Label, u32)]>;
    /// The LTS itself if it was compiled whole; `None` if its states are
    /// computed on demand (so it may be unbounded, and states are numbered
    /// in the order they were first reached).
    fn compiled(&self) -> Option<&Arc<Lts>>;
}

/// The compiled LTS, implemented on the `Arc` that shares it so that
/// [`LtsGraph::compiled`] can hand out that `Arc` (what
/// [`Strict::lts`](crate::Strict::lts) returns).
impl LtsGraph for Arc<Lts> {
    fn roles(&self) -> &[String] {
        Lts::roles(self)
    }

    fn type_names(&self) -> &[String] {
        Lts::type_names(self)
    }

    fn type_id(&self, name: &str) -> Option<u32> {
        Lts::type_id(self, name)
    }

    fn channels_from(&self, role: usize) -> Vec<usize> {
        Lts::channels_from(self, role)
    }

    fn num_states(&self) -> usize {
        Lts::num_states(self)
    }

    fn is_final(&self, state: u32) -> bool {
        Lts::is_final(self, state)
    }

    fn next(&self, state: u32, label: Label) -> Option<u32> {
        // deterministic: at most one edge per label, edges sorted by label
        let edges = Lts::transitions(self, state);
        let i = edges.binary_search_by(|(l, _)| l.cmp(&label)).ok()?;
        Some(edges[i].1)
    }

    fn transitions(&self, state: u32) -> Cow<'_, [(Label, u32)]> {
        Cow::Borrowed(Lts::transitions(self, state))
    }

    fn compiled(&self) -> Option<&Arc<Lts>> {
        Some(self)
    }
}
