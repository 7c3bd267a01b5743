//! The check at the start of a search that every worker searches the same
//! product: the same formula, object, initial state and prust.

use engine::{ProductGraph, Protocol};

use crate::exchange::Rounds;
use crate::message::Msg;
use crate::Error;

/// Checks that every worker checks the same formula on the same object:
/// processes started with other arguments (or another prust) would
/// search different products under one name.
pub(crate) fn agree<P: Protocol>(
    rounds: &mut Rounds,
    graph: &ProductGraph<'_, P>,
    initial: &[u8],
    process: u32,
) -> Result<(), Error> {
    use std::hash::BuildHasher;
    let (object, q0) = graph.initial();
    let what = (
        env!("CARGO_PKG_VERSION"),
        std::any::type_name::<P>(),
        graph.formula(),
        object.roles(),
        object.type_names(),
        initial,
        q0,
        graph.automaton_states(),
        rounds.peers(),
    );
    let digest = foldhash::fast::FixedState::with_seed(1).hash_one(&what);
    rounds.broadcast(Msg::Digest { process, digest });
    let mut others = Vec::new();
    for msg in rounds.finish()? {
        if let Msg::Digest { process, digest } = msg {
            others.push((process, digest));
        }
    }
    let mut differ: Vec<u32> = others
        .iter()
        .filter(|(_, d)| *d != digest)
        .map(|(p, _)| *p)
        .collect();
    differ.sort_unstable();
    differ.dedup();
    if others.len() != rounds.peers() {
        // A worker that failed before the search (its session, its
        // formula) said nothing: its own error is its process's.
        return Err(Error::Search {
            worker: rounds.index() as u32,
            message: format!(
                "{} of {} workers started the search; the others failed before it (their \
                 processes say why)",
                others.len(),
                rounds.peers()
            ),
        });
    }
    match differ.as_slice() {
        [] => Ok(()),
        ps => Err(Error::Cluster(format!(
            "process {process} and process{} {} do not check the same formula on the same object \
             (their formula, object, initial state or prust differ): start every process with \
             the same arguments",
            if ps.len() > 1 { "es" } else { "" },
            ps.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
        ))),
    }
}
