//! The checks about the use of one channel p→q: `close-after-send`,
//! `send-before-close` and `no-act-after-close`. Each is a breadth-first
//! search of the product of the LTS with one bit for the channel, so that
//! it is exact *per run*: the bit records what happened on the run so far.
//!
//! A *use* of p→q is a send on it (a synchronous communication is a send
//! too); receives are not uses, since receiving what was sent before the
//! close is how a closed channel is drained.

use crate::ids::{RoleIndex, StateId};
use crate::lts::{Action, Label, Lts};

use super::finding::Finding;
use super::search::{backward, bfs, cycle_from, on_cycle, path_to};
use super::Check;

/// The channels the checks look at: every `(sender, receiver)` with a send
/// or a close in the LTS, in order.
pub(crate) fn channels(lts: &Lts) -> Vec<(RoleIndex, RoleIndex)> {
    let mut cs: Vec<(RoleIndex, RoleIndex)> = lts
        .states()
        .flat_map(|s| lts.transitions(s))
        .filter(|(l, _)| l.action != Action::Recv)
        .map(|(l, _)| (l.from, l.to))
        .collect();
    cs.sort_unstable();
    cs.dedup();
    cs
}

fn is(l: &Label, action: Action, (p, q): (RoleIndex, RoleIndex)) -> bool {
    l.action == action && l.from == p && l.to == q
}

fn channel_names(lts: &Lts, (p, q): (RoleIndex, RoleIndex)) -> Option<(String, String)> {
    Some((
        lts.roles()[p.index()].clone(),
        lts.roles()[q.index()].clone(),
    ))
}

/// `close-after-send` (Discourje's `AG (send → AF close)`): a run that
/// sends on p→q and then never closes p→q — it ends (a state without
/// transitions, final or not) or goes on forever without the close. As in
/// the model checker (and Discourje's CTL), runs are maximal: a final state
/// that may also go on does not end a run, so `a→b; (close(a,b) | end)`
/// is not reported — every maximal run closes. The bit is "sent since the
/// last close".
pub(crate) fn close_after_send(lts: &Lts, c: (RoleIndex, RoleIndex)) -> Option<Finding> {
    let not_close = |l: &Label| !is(l, Action::Close, c);
    let ends = |s: StateId| lts.transitions(s).is_empty();
    let cyclic = on_cycle(lts, |_| true, not_close);
    let target: Vec<bool> = lts.states().map(|s| ends(s) || cyclic[s.index()]).collect();
    // the states from which some run avoids the close for ever
    let unclosed = backward(lts, &target, not_close);
    let step = |b: u8, l: &Label, _| {
        Some(if is(l, Action::Close, c) {
            0
        } else if is(l, Action::Send, c) {
            1
        } else {
            b
        })
    };
    let prefix = bfs(
        lts,
        (lts.initial(), 0),
        step,
        |s, b| b == 1 && unclosed[s.index()],
        |_, _| false,
    )?;
    let rest = path_to(
        lts,
        prefix.state,
        |_| true,
        not_close,
        |s| target[s.index()],
    )
    .expect("an unclosed state reaches an end or a cycle without the close");
    let mut finding = Finding {
        check: Check::CloseAfterSend,
        channel: channel_names(lts, c),
        summary: String::new(),
        witness: prefix.steps,
        cycle_start: None,
    };
    finding.witness.extend(rest.steps);
    if ends(rest.state) {
        finding.summary = format!(
            "the channel is used and the run {} in state {} without closing it",
            if lts.is_final(rest.state) {
                "ends"
            } else {
                "is stuck (a deadlock)"
            },
            rest.state
        );
    } else {
        finding.summary =
            "the channel is used and then never closed on a run that goes on forever".into();
        finding.cycle_start = Some(finding.witness.len());
        finding
            .witness
            .extend(cycle_from(lts, rest.state, |_| true, not_close));
    }
    Some(finding)
}

/// `send-before-close`: a run whose close of p→q is not preceded by a send
/// on p→q. The bit is "sent on this run"; the witness ends with the close.
///
/// Discourje writes this as `AG (close → AP send)` with a past operator
/// over all backward paths, and a backward path may turn round a loop for
/// ever: in `a→b; (c→d)*; close(a,b)` the path that goes back round the
/// `c→d` loop never reaches the send, so Discourje reports a close without
/// a send. Every *run* sends first, and this check reports nothing (see
/// `protocols/tests/it/lint.rs`, `send_before_close_has_no_false_alarm_on_loops`).
pub(crate) fn send_before_close(lts: &Lts, c: (RoleIndex, RoleIndex)) -> Option<Finding> {
    let f = bfs(
        lts,
        (lts.initial(), 0),
        |b, l, _| Some(if is(l, Action::Send, c) { 1 } else { b }),
        |_, _| false,
        |b, l| b == 0 && is(l, Action::Close, c),
    )?;
    Some(Finding {
        check: Check::SendBeforeClose,
        channel: channel_names(lts, c),
        summary: "the channel is closed on a run that never used it".into(),
        witness: f.steps,
        cycle_start: None,
    })
}

/// `no-act-after-close` (`AG (close → AX AG !(send ∨ close))`): a run that
/// sends on p→q, or closes it again, after closing it. The bit is "closed
/// on this run"; the witness ends with the offending action.
pub(crate) fn no_act_after_close(lts: &Lts, c: (RoleIndex, RoleIndex)) -> Option<Finding> {
    let f = bfs(
        lts,
        (lts.initial(), 0),
        |b, l, _| Some(if is(l, Action::Close, c) { 1 } else { b }),
        |_, _| false,
        |b, l| b == 1 && (is(l, Action::Send, c) || is(l, Action::Close, c)),
    )?;
    let again = f
        .steps
        .last()
        .is_some_and(|s| s.label.action == Action::Close);
    Some(Finding {
        check: Check::NoActAfterClose,
        channel: channel_names(lts, c),
        summary: if again {
            "the channel is closed twice on one run".into()
        } else {
            "the channel is used after its close".into()
        },
        witness: f.steps,
        cycle_start: None,
    })
}
