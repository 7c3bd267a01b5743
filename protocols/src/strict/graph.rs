//! The global LTS a [`Strict`](crate::Strict) object runs, whichever way
//! its states are computed: the one place that asks which kind it is.

use std::borrow::Cow;
use std::sync::Arc;

use crate::graph::LtsGraph;
use crate::ids::{RoleIndex, StateId, TypeIndex};
use crate::lts::{Label, Lts};
use crate::on_the_fly::OnTheFly;

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

    fn type_id(&self, name: &str) -> Option<TypeIndex> {
        dispatch!(self, g => LtsGraph::type_id(&**g, name))
    }

    fn type_of(&self, msg: &engine::Message) -> Option<TypeIndex> {
        dispatch!(self, g => LtsGraph::type_of(&**g, msg))
    }

    fn message_type(&self, ty: TypeIndex) -> Option<engine::MessageType> {
        dispatch!(self, g => LtsGraph::message_type(&**g, ty))
    }

    fn channels_from(&self, role: RoleIndex) -> Vec<RoleIndex> {
        dispatch!(self, g => LtsGraph::channels_from(&**g, role))
    }

    fn num_states(&self) -> usize {
        dispatch!(self, g => LtsGraph::num_states(&**g))
    }

    fn is_final(&self, state: StateId) -> bool {
        dispatch!(self, g => LtsGraph::is_final(&**g, state))
    }

    fn next(&self, state: StateId, label: Label) -> Option<StateId> {
        dispatch!(self, g => LtsGraph::next(&**g, state, label))
    }

    fn transitions(&self, state: StateId) -> Cow<'_, [(Label, StateId)]> {
        dispatch!(self, g => LtsGraph::transitions(&**g, state))
    }

    fn for_each_label(&self, state: StateId, f: impl FnMut(Label)) {
        dispatch!(self, g => LtsGraph::for_each_label(&**g, state, f))
    }
}
