//! Plain search against the reductions: one program explored with each,
//! and what they find differently (the failures' outcomes or the
//! distinct results). A reduction may run fewer executions; it must not
//! lose one of these.

use std::collections::BTreeSet;
use std::fmt::Debug;

use prust::explore::{Exploration, Explorer, Observe, Reduction, Roles};
use prust::Protocol;
use testkit::mailbox::{outcomes, results};

/// The reductions compared with plain search under `bound` (sleep sets
/// are off under a preemption bound).
pub fn reductions(bound: Option<usize>) -> &'static [Reduction] {
    match bound {
        None => &[Reduction::SleepSets, Reduction::Dpor],
        Some(_) => &[Reduction::Dpor],
    }
}

/// What plain search and a reduction must both find: the failures'
/// outcomes and the distinct results.
pub fn found<T: Ord + Clone>(ex: &Exploration<T>) -> (BTreeSet<String>, BTreeSet<T>) {
    (outcomes(ex), results(ex))
}

/// Explores `program` on `object` with plain search and with each
/// reduction, under each preemption bound of `bounds` (DPOR against
/// plain search under the same bound), each under `property` if given,
/// and returns what differs. Unbounded, plain search must finish and
/// find more than one outcome (or there would be nothing to lose), and
/// each reduction must run as asked, not turned off.
pub fn disagreements<P, F, O>(
    object: &P,
    program: F,
    bounds: &[Option<usize>],
    property: Option<&str>,
) -> Vec<String>
where
    P: Protocol,
    F: Fn(&mut Roles<'_, P>) -> O + Sync,
    O: Observe,
    O::Value: Ord + Clone + Debug + Send + 'static,
{
    let run = |reduction, bound| {
        let explorer = Explorer::new().preemption_bound(bound).reduction(reduction);
        let explorer = match property {
            Some(f) => explorer.property(f),
            None => explorer,
        };
        explorer.explore(object.clone(), &program)
    };
    let mut out = Vec::new();
    for &bound in bounds {
        let plain = run(Reduction::None, bound);
        let want = found(&plain);
        if bound.is_none() {
            assert!(plain.is_complete(), "{plain}");
            assert!(
                want.0.len() + want.1.len() > 1,
                "plain search finds one outcome only: {plain}"
            );
        }
        for &reduction in reductions(bound) {
            let reduced = run(reduction, bound);
            assert_eq!(reduced.reduction(), reduction, "{reduced}");
            if bound.is_none() {
                assert_eq!(reduced.reduction_off(), None, "{reduced}");
            }
            let seen = found(&reduced);
            if seen != want {
                out.push(format!(
                    "{reduction} bound {bound:?}: {seen:?}\nplain: {want:?}\n{reduced}\nplain: {plain}"
                ));
            }
        }
    }
    out
}

/// As [`disagreements`] (with no property and none of its demands on
/// plain search) for random cases, where plain search may not finish:
/// plain search stops after `max` executions, a reduction after `100 *
/// max` (and must finish, unbounded, within them). `None` if plain
/// search does not finish within `max` executions. `case` names the
/// case in what differs.
pub fn differences<P, F, O>(
    object: &P,
    case: &str,
    program: F,
    bounds: &[Option<usize>],
    max: usize,
) -> Option<Vec<String>>
where
    P: Protocol,
    F: Fn(&mut Roles<'_, P>) -> O + Sync,
    O: Observe,
    O::Value: Ord + Clone + Debug + Send + 'static,
{
    let mut out = Vec::new();
    for &bound in bounds {
        let explore = |reduction, max| {
            Explorer::new()
                .preemption_bound(bound)
                .reduction(reduction)
                .max_executions(max)
                .explore(object.clone(), &program)
        };
        let plain = explore(Reduction::None, max);
        // Under a bound no search is complete; the limit is what counts.
        if plain.executions() >= max || (bound.is_none() && !plain.is_complete()) {
            return None;
        }
        let want = found(&plain);
        for &reduction in reductions(bound) {
            let reduced = explore(reduction, 100 * max);
            let seen = found(&reduced);
            let cut = reduced.executions() >= 100 * max;
            if cut || (bound.is_none() && !reduced.is_complete()) || seen != want {
                out.push(format!(
                    "{reduction} bound {bound:?} on {case}:\n{seen:?}\nplain: {want:?}\n{reduced}"
                ));
            }
        }
    }
    Some(out)
}

/// Fails with every difference found, if any.
pub fn assert_agree(missed: Vec<String>) {
    assert!(missed.is_empty(), "{}", missed.join("\n\n"));
}
