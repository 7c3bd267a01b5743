//! The checks about the use of one channel p→q: `close-after-send`,
//! `send-before-close` and `no-act-after-close`. Each is a breadth-first
//! search of the product of the LTS with one bit for the channel, so that
//! it is exact *per run*: the bit records what happened on the run so far.
//!
//! A *use* of p→q is a send on it (a synchronous communication is a send
//! too); receives are not uses, since receiving what was sent before the
//! close is how a closed channel is drained.
//!
//! A search per channel would make lint quadratic in a protocol with as
//! many channels as states (a chain of messages between fresh roles), so
//! [`run`] searches only where it must: a channel that is never closed
//! has no `send-before-close` or `no-act-after-close` finding, and has a
//! `close-after-send` finding exactly when one of its sends is reachable
//! (every state of a finite LTS starts a maximal run, and none closes it),
//! which one pass finds for all such channels. The per-channel searches
//! remain for the channels that are closed somewhere, and for the first
//! [`MAX_WITNESSES`] findings of a check, whose witness runs they build.

use crate::ids::{RoleIndex, StateId};
use crate::limits::Budget;
use crate::lts::{Action, Label, Lts};
use crate::Error;

use super::finding::Finding;
use super::search::{backward, bfs_with, cycle_from, on_cycle, path_to, reachable};
use super::{Check, MAX_WITNESSES};

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

/// The channels with a send (`Action::Send`) or a close (`Action::Close`)
/// on a transition from a state with `from`, in order.
fn with_action(lts: &Lts, action: Action, from: &[bool]) -> Vec<(RoleIndex, RoleIndex)> {
    let mut cs: Vec<(RoleIndex, RoleIndex)> = lts
        .states()
        .filter(|s| from[s.index()])
        .flat_map(|s| lts.transitions(s))
        .filter(|(l, _)| l.action == action)
        .map(|(l, _)| (l.from, l.to))
        .collect();
    cs.sort_unstable();
    cs.dedup();
    cs
}

/// The findings of the channel check `check` (`close-after-send`,
/// `send-before-close` or `no-act-after-close`) on `channels`, in their
/// order; the first [`MAX_WITNESSES`] with a witness, the others without
/// ([`Finding::witness_omitted`]), pushed on `out`. Each finding is
/// counted against `budget`'s memory, and each channel is a tick of its
/// clock: a limit stops the check with its error (the findings pushed
/// before stay).
pub(crate) fn run(
    lts: &Lts,
    check: Check,
    channels: &[(RoleIndex, RoleIndex)],
    budget: &mut Budget,
    out: &mut Vec<Finding>,
) -> Result<(), Error> {
    run_capped(lts, check, channels, budget, out, MAX_WITNESSES)
}

/// [`run`] with witnesses for the first `cap` findings.
fn run_capped(
    lts: &Lts,
    check: Check,
    channels: &[(RoleIndex, RoleIndex)],
    budget: &mut Budget,
    out: &mut Vec<Finding>,
    cap: usize,
) -> Result<(), Error> {
    let everywhere = vec![true; lts.num_states()];
    let closed = with_action(lts, Action::Close, &everywhere);
    drop(everywhere);
    let sent = match check {
        Check::CloseAfterSend => with_action(lts, Action::Send, &reachable(lts)),
        _ => Vec::new(),
    };
    let mut found_here = 0;
    for &c in channels {
        budget.tick()?;
        let witness = found_here < cap;
        let found = if closed.binary_search(&c).is_err() {
            // never closed: see the module's documentation
            match check {
                Check::CloseAfterSend if sent.binary_search(&c).is_err() => None,
                Check::CloseAfterSend if witness => close_after_send(lts, c, true),
                Check::CloseAfterSend => Some(unwitnessed(lts, check, c)),
                _ => None,
            }
        } else {
            match check {
                Check::CloseAfterSend => close_after_send(lts, c, witness),
                Check::SendBeforeClose => send_before_close(lts, c, witness),
                _ => no_act_after_close(lts, c, witness),
            }
        };
        if let Some(f) = found {
            budget.add_bytes(f.bytes())?;
            out.push(f);
            found_here += 1;
        }
    }
    Ok(())
}

/// A finding of `check` on `c` without a witness.
fn unwitnessed(lts: &Lts, check: Check, c: (RoleIndex, RoleIndex)) -> Finding {
    Finding {
        check,
        channel: channel_names(lts, c),
        summary: match check {
            Check::CloseAfterSend => {
                "the channel is used and, on some run, never closed afterwards".into()
            }
            Check::SendBeforeClose => "the channel is closed on a run that never used it".into(),
            _ => "the channel is used or closed again after its close".into(),
        },
        witness: Vec::new(),
        cycle_start: None,
        witness_omitted: true,
    }
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
fn close_after_send(lts: &Lts, c: (RoleIndex, RoleIndex), witness: bool) -> Option<Finding> {
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
    let prefix = bfs_with(
        lts,
        (lts.initial(), 0),
        step,
        |s, b| b == 1 && unclosed[s.index()],
        |_, _| false,
        witness,
    )?;
    if !witness {
        return Some(unwitnessed(lts, Check::CloseAfterSend, c));
    }
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
        witness_omitted: false,
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
fn send_before_close(lts: &Lts, c: (RoleIndex, RoleIndex), witness: bool) -> Option<Finding> {
    let f = bfs_with(
        lts,
        (lts.initial(), 0),
        |b, l, _| Some(if is(l, Action::Send, c) { 1 } else { b }),
        |_, _| false,
        |b, l| b == 0 && is(l, Action::Close, c),
        witness,
    )?;
    Some(Finding {
        witness: f.steps,
        witness_omitted: !witness,
        ..unwitnessed(lts, Check::SendBeforeClose, c)
    })
}

/// `no-act-after-close` (`AG (close → AX AG !(send ∨ close))`): a run that
/// sends on p→q, or closes it again, after closing it. The bit is "closed
/// on this run"; the witness ends with the offending action.
fn no_act_after_close(lts: &Lts, c: (RoleIndex, RoleIndex), witness: bool) -> Option<Finding> {
    let f = bfs_with(
        lts,
        (lts.initial(), 0),
        |b, l, _| Some(if is(l, Action::Close, c) { 1 } else { b }),
        |_, _| false,
        |b, l| b == 1 && (is(l, Action::Send, c) || is(l, Action::Close, c)),
        witness,
    )?;
    if !witness {
        return Some(unwitnessed(lts, Check::NoActAfterClose, c));
    }
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
        witness_omitted: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limits::Bounds;

    /// The findings of `check` with witnesses for the first `cap`.
    fn capped(lts: &Lts, check: Check, cap: usize) -> Vec<Finding> {
        let mut budget = Budget::new(
            &Bounds::new(&engine::Limits::default()),
            crate::Built::LintSearch,
        );
        let mut out = Vec::new();
        run_capped(lts, check, &channels(lts), &mut budget, &mut out, cap).unwrap();
        out
    }

    #[test]
    fn findings_without_a_witness_are_those_the_full_search_finds() {
        // never-closed channels take the one-pass way without a witness,
        // closed ones the search without its run: the same channels
        for lts in [
            crate::bundled::two_buyer::spec().compile().unwrap(),
            crate::bundled::go_fish::spec(3).compile().unwrap(),
            crate::bundled::chess::spec().compile().unwrap(),
            crate::Lts::from_aut(
                "des (0, 5, 5)\n(0,\"!(A,p,q)\",1)\n(1,\"C(p,q)\",2)\n(2,\"C(p,q)\",3)\n\
                 (0,\"C(r,s)\",4)\n(4,\"!(B,r,s)\",4)\n",
            )
            .unwrap(),
        ] {
            for check in [
                Check::CloseAfterSend,
                Check::SendBeforeClose,
                Check::NoActAfterClose,
            ] {
                let full = capped(&lts, check, usize::MAX);
                let none = capped(&lts, check, 0);
                let names =
                    |fs: &[Finding]| fs.iter().map(|f| f.channel.clone()).collect::<Vec<_>>();
                assert_eq!(names(&full), names(&none), "{check}");
                assert!(full
                    .iter()
                    .all(|f| !f.witness_omitted && !f.witness.is_empty()));
                assert!(none
                    .iter()
                    .all(|f| f.witness_omitted && f.witness.is_empty()));
            }
        }
    }
}
