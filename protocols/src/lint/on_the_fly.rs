//! Lint of a specification whose LTS is computed on demand
//! ([`lint_spec`]), within a state limit: the states are explored breadth
//! first, as the strict object on the fly computes them; if the limit
//! stops the exploration, a finding is reported only if the explored part
//! proves it, and every check is inconclusive (none can say "clean" about
//! states it has not seen).

use std::collections::VecDeque;

use crate::compile::MAX_TERMS;
use crate::graph::LtsGraph;
use crate::ids::StateId;
use crate::limits::{Bounds, Budget};
use crate::lts::{Lts, LtsBuilder};
use crate::{Error, Spec};
use engine::Limits;

use super::{lint_within, Check, Finding, Inconclusive, Options, Report};

/// [`Error::StateBound`]'s `what` when [`lint_spec`] stops exploring.
pub(crate) const EXPLORED: crate::Built = crate::Built::LintExploration;

/// Lints `spec`'s global LTS, explored on demand within `limits`.
///
/// If the whole reachable LTS fits, this is [`lint_with`](super::lint_with) of it (its
/// states numbered in breadth-first order). Otherwise the limit that
/// stopped the exploration ([`Error::StateBound`] with `what`
/// [`Built::LintExploration`](crate::Built::LintExploration),
/// or a timeout or memory bound) makes every check of `options`
/// [inconclusive](Report::inconclusive), and the findings are those that
/// the explored states prove on their own:
///
/// - a lasso (every state on it was explored, so it is a real infinite run);
/// - a `send-before-close` or `no-act-after-close` witness (it ends with the
///   offending step, a real transition);
/// - any other finite witness (a stuck state, a state from which no final
///   state is reachable, a run that ends without a close) if every state
///   reachable from its last state was explored.
///
/// `causality` and `realizable` need the whole LTS, so they report
/// nothing on a partial one. Errors in the specification (an undefined
/// call, unguarded recursion) are `Err`, as from [`Spec::compile`].
///
/// ```
/// use protocols::lint::{lint_spec, Check, Options};
/// use protocols::spec::{msg, par, par_every, Role, Spec};
/// use engine::Limits;
/// use protocols::{Built, Error};
/// // a loop that never ends, beside 16 workers that each get a job: 2·3^16 states
/// let jobs = par_every(0..16, |i| msg("Job", "boss", Role::indexed("worker", i)));
/// let spec = Spec::new("jobs", par([msg("Ping", "a", "b").star(), jobs]));
/// let report = lint_spec(&spec, &Options::default(), &Limits::default().max_states(1000)).unwrap();
/// // never "clean": every check is inconclusive …
/// assert!(matches!(report.inconclusive[0].reason, Error::StateBound { limit: 1000, what: Built::LintExploration }));
/// // … but the Ping loop is a run that never ends, among the explored states
/// assert_eq!(report.findings[0].check, Check::MustTerminate);
/// assert_eq!(report.findings[0].witness_texts(), ["a SEND <Ping> TO b", "b RECV <Ping> FROM a"]);
/// ```
pub fn lint_spec(spec: &Spec, options: &Options, limits: &Limits) -> Result<Report, Error> {
    // One deadline for the exploration and the checks after it.
    let limits = &Bounds::new(limits);
    let graph = crate::on_the_fly::build(spec, MAX_TERMS)?;
    let mut budget = Budget::new(limits, EXPLORED);
    let mut builder = LtsBuilder::new(
        LtsGraph::roles(&graph).to_vec(),
        LtsGraph::type_names(&graph).to_vec(),
    );
    // States are numbered in the order they are first reached, and a
    // state's transitions number its new successors, so exploring the
    // states in number order is a breadth-first search.
    let mut stopped = None;
    let mut explored = 0usize;
    while explored < graph.num_states() {
        let edges = graph
            .transitions(StateId::from_index(explored))
            .into_owned();
        // the state's transitions and the sets behind its successors
        if let Err(e) = budget.add_state(64 + 24 * edges.len()) {
            stopped = Some(e);
            break;
        }
        builder.add_state(graph.is_final(StateId::from_index(explored)), edges);
        explored += 1;
    }
    let Some(reason) = stopped else {
        return Ok(lint_within(
            &builder.finish(StateId::new(0)),
            options,
            limits,
        ));
    };
    // the states reached but not explored, without transitions
    let reached = graph.num_states();
    for s in explored..reached {
        builder.add_state(graph.is_final(StateId::from_index(s)), Vec::new());
    }
    let lts = builder.finish(StateId::new(0));
    let partial = Options::only(
        options
            .checks
            .iter()
            .copied()
            .filter(|c| !matches!(c, Check::Causality | Check::Realizable)),
    );
    let open = |s: StateId| s.index() >= explored;
    let findings = lint_within(&lts, &partial, limits)
        .findings
        .into_iter()
        .filter(|f| proven(&lts, f, open))
        .collect();
    let inconclusive = options
        .checks
        .iter()
        .map(|&check| Inconclusive {
            check,
            reason: reason.clone(),
        })
        .collect();
    Ok(Report {
        findings,
        inconclusive,
    })
}

/// Whether `f`, found on an LTS whose `open` states were reached but not
/// explored (they have no transitions there), holds of the whole LTS; see
/// [`lint_spec`].
fn proven(lts: &Lts, f: &Finding, open: impl Fn(StateId) -> bool) -> bool {
    if f.cycle_start.is_some() || matches!(f.check, Check::SendBeforeClose | Check::NoActAfterClose)
    {
        return true;
    }
    let end = f.witness.last().map_or(lts.initial(), |s| s.to);
    // nothing reachable from the end may have been left unexplored
    let mut seen = vec![false; lts.num_states()];
    seen[end.index()] = true;
    let mut queue = VecDeque::from([end]);
    while let Some(s) = queue.pop_front() {
        if open(s) {
            return false;
        }
        for &(_, t) in lts.transitions(s) {
            if !seen[t.index()] {
                seen[t.index()] = true;
                queue.push_back(t);
            }
        }
    }
    true
}
