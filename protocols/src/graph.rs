//! The one interface of the two kinds of global LTS that a
//! [`Strict`](crate::Strict) object runs: compiled whole ([`Lts`], its
//! implementation is here) or computed on demand ([`OnTheFly`],
//! implemented in `on_the_fly.rs`). The strict runtime is written once
//! against [`LtsGraph`] and asks which kind it has only where the answer
//! differs by nature (only a compiled LTS can be handed out as an [`Lts`];
//! only one computed on demand may be too large to search to the end).

use std::borrow::Cow;
use std::sync::Arc;

use crate::lts::{Label, Lts};
use crate::on_the_fly::OnTheFly;

/// What [`Strict`](crate::Strict) needs of the deterministic global LTS it
/// runs, whichever way its states are computed.
pub(crate) trait LtsGraph {
    /// The role names, in role order.
    fn roles(&self) -> &[String];
    /// The message type names, in type order.
    fn type_names(&self) -> &[String];
    /// The number of the message type `name`.
    fn type_id(&self, name: &str) -> Option<u32>;
    /// The number of the type of `msg`, by pointer for the engine's
    /// dummies (see [`Lts::type_of`]).
    fn type_of(&self, msg: &engine::Message) -> Option<u32>;
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
}

impl LtsGraph for Lts {
    fn roles(&self) -> &[String] {
        Lts::roles(self)
    }

    fn type_names(&self) -> &[String] {
        Lts::type_names(self)
    }

    fn type_id(&self, name: &str) -> Option<u32> {
        Lts::type_id(self, name)
    }

    fn type_of(&self, msg: &engine::Message) -> Option<u32> {
        Lts::type_of(self, msg)
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
}

/// The global LTS a [`Strict`](crate::Strict) object runs, by kind.
///
/// An enum of the two implementations rather than an `Arc<dyn LtsGraph>`,
/// so that the hot path (a [`LtsGraph::next`], a [`LtsGraph::type_id`] and
/// a [`LtsGraph::roles`] per operation of a search) stays monomorphic and
/// inlined: with the trait object the same checks ran 2 % more
/// instructions (`npb-cg-concurrent:6`, compiled, under cachegrind). Its
/// `LtsGraph` impl (the `dispatch!` macro) is the one place that asks
/// which kind it is.
#[derive(Clone)]
pub(crate) enum Graph {
    /// Compiled whole.
    Compiled(Arc<Lts>),
    /// Computed on demand.
    OnTheFly(Arc<OnTheFly>),
}

/// `$body` with `$g` bound to the implementation inside the [`Graph`],
/// whichever kind it is (a macro, not a method taking a closure, because
/// the closure would have to be generic over the two types).
macro_rules! dispatch {
    ($graph:expr, $g:ident => $body:expr) => {
        match $graph {
            Graph::Compiled($g) => $body,
            Graph::OnTheFly($g) => $body,
        }
    };
}

impl LtsGraph for Graph {
    fn roles(&self) -> &[String] {
        dispatch!(self, g => LtsGraph::roles(&**g))
    }

    fn type_names(&self) -> &[String] {
        dispatch!(self, g => LtsGraph::type_names(&**g))
    }

    fn type_id(&self, name: &str) -> Option<u32> {
        dispatch!(self, g => LtsGraph::type_id(&**g, name))
    }

    fn type_of(&self, msg: &engine::Message) -> Option<u32> {
        dispatch!(self, g => LtsGraph::type_of(&**g, msg))
    }

    fn channels_from(&self, role: usize) -> Vec<usize> {
        dispatch!(self, g => LtsGraph::channels_from(&**g, role))
    }

    fn num_states(&self) -> usize {
        dispatch!(self, g => LtsGraph::num_states(&**g))
    }

    fn is_final(&self, state: u32) -> bool {
        dispatch!(self, g => LtsGraph::is_final(&**g, state))
    }

    fn next(&self, state: u32, label: Label) -> Option<u32> {
        dispatch!(self, g => LtsGraph::next(&**g, state, label))
    }

    fn transitions(&self, state: u32) -> Cow<'_, [(Label, u32)]> {
        dispatch!(self, g => LtsGraph::transitions(&**g, state))
    }
}
