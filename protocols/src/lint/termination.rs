//! The checks about how runs end: `deadlock-free`, `must-terminate`,
//! `may-terminate` and `cant-terminate`.
//!
//! A run *ends* in a final state (the protocol may stop there, even if it
//! may also go on) or in a stuck state (no transition); a stuck state that
//! is not final is a deadlock.

use crate::ids::StateId;
use crate::lts::Lts;

use super::finding::Finding;
use super::search::{backward, cycle_from, on_cycle, path_to};
use super::Check;

fn stuck(lts: &Lts, s: StateId) -> bool {
    lts.transitions(s).is_empty()
}

/// `deadlock-free`: a shortest run to a stuck state that is not final.
pub(crate) fn deadlock(lts: &Lts) -> Option<Finding> {
    let f = path_to(
        lts,
        lts.initial(),
        |_| true,
        |_| true,
        |s| stuck(lts, s) && !lts.is_final(s),
    )?;
    Some(Finding {
        check: Check::DeadlockFree,
        channel: None,
        summary: format!(
            "the run is stuck in state {}, which is not a normal end",
            f.state
        ),
        witness: f.steps,
        cycle_start: None,
        witness_omitted: false,
    })
}

/// `cant-terminate` (Discourje's `AG !fin`): a shortest run to a final
/// state. Meant to fail for a protocol that terminates; a finding says that
/// it can.
pub(crate) fn cant_terminate(lts: &Lts) -> Option<Finding> {
    let f = path_to(lts, lts.initial(), |_| true, |_| true, |s| lts.is_final(s))?;
    Some(Finding {
        check: Check::CantTerminate,
        channel: None,
        summary: format!("the protocol can end (final state {})", f.state),
        witness: f.steps,
        cycle_start: None,
        witness_omitted: false,
    })
}

/// `may-terminate` (`AG EF fin`): a shortest run to a state from which no
/// final state can be reached.
pub(crate) fn may_terminate(lts: &Lts) -> Option<Finding> {
    let finals: Vec<bool> = lts.states().map(|s| lts.is_final(s)).collect();
    let can_end = backward(lts, &finals, |_| true);
    let f = path_to(
        lts,
        lts.initial(),
        |_| true,
        |_| true,
        |s| !can_end[s.index()],
    )?;
    Some(Finding {
        check: Check::MayTerminate,
        channel: None,
        summary: format!("from state {} the protocol can never end", f.state),
        witness: f.steps,
        cycle_start: None,
        witness_omitted: false,
    })
}

/// `must-terminate` (`AF fin`): a run that never reaches a final state —
/// either stuck in a non-final state, or a lasso whose states are all
/// non-final.
pub(crate) fn must_terminate(lts: &Lts) -> Option<Finding> {
    let open = |s: StateId| !lts.is_final(s);
    let cyclic = on_cycle(lts, open, |_| true);
    let f = path_to(
        lts,
        lts.initial(),
        open,
        |_| true,
        |s| stuck(lts, s) || cyclic[s.index()],
    )?;
    let mut finding = Finding {
        check: Check::MustTerminate,
        channel: None,
        summary: String::new(),
        witness: f.steps,
        cycle_start: None,
        witness_omitted: false,
    };
    if stuck(lts, f.state) {
        finding.summary = format!("the run is stuck in state {}, which is not final", f.state);
    } else {
        finding.summary = "a run that goes on forever without reaching a final state".into();
        finding.cycle_start = Some(finding.witness.len());
        finding
            .witness
            .extend(cycle_from(lts, f.state, open, |_| true));
    }
    Some(finding)
}

#[cfg(test)]
mod tests {
    use crate::ids::{RoleIndex, StateId, TypeIndex};
    use crate::lint::{lint, Check, Options};
    use crate::lts::{Label, LtsBuilder};

    #[test]
    fn a_stuck_state_that_is_not_final_is_a_deadlock_and_never_terminates() {
        // 0 -A-> 1 (final) and 0 -B-> 2 (stuck, not final)
        let mut b = LtsBuilder::new(vec!["p".into(), "q".into()], vec!["A".into(), "B".into()]);
        let send = |ty| Label::send(TypeIndex::new(ty), RoleIndex::new(0), RoleIndex::new(1));
        let s = StateId::new;
        b.add_state(false, vec![(send(0), s(1)), (send(1), s(2))]);
        b.add_state(true, vec![]);
        b.add_state(false, vec![]);
        let lts = b.finish(s(0));
        for check in [
            Check::DeadlockFree,
            Check::MustTerminate,
            Check::MayTerminate,
        ] {
            let f = lint(&lts, &Options::only([check]));
            assert_eq!(f.len(), 1, "{check}: {f:?}");
            assert_eq!(f[0].witness_texts(), ["p SEND <B> TO q"], "{check}");
            assert_eq!(f[0].cycle_start, None);
        }
        assert!(lint(&lts, &Options::only([Check::CantTerminate]))[0]
            .witness_texts()
            .eq(&["p SEND <A> TO q"]));
    }
}
