//! How a step and a later operation of one execution are related, for
//! source-set DPOR (see the module docs of `dpor`, 1 and 4).

use std::borrow::Cow;

use engine::{Protocol, RoleId};

use super::super::enabled::perform;
use super::super::independence::independent;
use super::super::op::Op;
use super::super::same_channel::send_and_receive;
use super::super::step::Alt;
use super::{op_of, History};

/// Whether `op` of `first` is a receive from anyone and `other_op` of
/// `other` a send or close to its role, save a send of the very sender
/// whose message the receive took: in the other order the receive takes
/// from that same channel, where the same-channel rule of `independent`
/// judges the pair (the receive's other senders are its role's own
/// alternatives, and `other_senders` sees a send that changes them).
pub(super) fn feeds(first: Alt, op: &Op, other: RoleId, other_op: &Op) -> bool {
    let role = first.role;
    let same_sender = first.from == Some(other) && matches!(other_op, Op::Send { .. });
    matches!(op, Op::Recv { from: None } | Op::Select { .. })
        && matches!(other_op, Op::Send { to, .. } | Op::Close { to } if *to == role)
        && other != role
        && !same_sender
}

/// How step `a` and a later operation (`op` of `alt`) of one execution
/// are related, for source-set DPOR.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Rel {
    /// They commute: no order between them.
    Independent,
    /// `a` happens before the operation, and no order puts the operation
    /// first (`a`, or a step after it, is what lets it be accepted).
    Ordered,
    /// `a` happens before the operation, and the other order is possible
    /// and may differ: a race to reverse.
    Race,
    /// A race in which the operation is refused where `v` would run it
    /// (see [`relation`]): only a step outside `v` can let it go first,
    /// so no initial of `v` need start a reversal. Every choice at `a`.
    Enabling,
}

/// The relation of step `a` with the later `op` of `alt`, judged where
/// it matters: on the object as it was before `a`, followed by the steps
/// between them that happen before the operation (`row`, known for every
/// step after `a`) and not after `a` (which is where an execution that
/// reverses the race would run `op`: the other steps in between commute
/// with it, and taking them first may change what it does). There, `op`
/// must be accepted (else they are ordered only if `a` comes before `op`
/// in every execution, `causal`: program order or a message; another
/// step may allow `op` in another order, a race) and the two must
/// commute both ways on the object, use different channels (or be a
/// send and a receive that `independent` lets commute on one), and not be
/// a receive from anyone followed by a send to its role from another
/// sender than the one it took from (in the other order the receive could
/// take that message). A send followed by a receive from anyone that took
/// another sender's message is no race: the receive's other senders are
/// its role's own alternatives, explored at its own point.
///
/// Judging it where `a` was taken instead, as the classic DPOR does, sees
/// a dependency wherever `op` was refused there only because its own
/// enabling step had not come yet; such a false order hides the real
/// races behind it once the false race is dropped. Any doubt (the steps in
/// between cannot be replayed, a pending receive from anyone whose sender
/// is unknown) is a race.
pub(super) fn relation<P: Protocol>(
    h: &History<P>,
    schedule: &[Alt],
    before: &[Vec<bool>],
    row: &[bool],
    causal: bool,
    a: usize,
    (alt, op): (Alt, &Op),
) -> Rel {
    let first = schedule[a];
    if first.role == alt.role {
        return Rel::Ordered;
    }
    let Some(first_op) = op_of(&h.pending[a], first.role) else {
        return Rel::Race;
    };
    if matches!(op, Op::Choose { .. }) || matches!(first_op, Op::Choose { .. }) {
        // A program's own choice touches neither the object nor a channel.
        return Rel::Independent;
    }
    let feeds_later = feeds(first, first_op, alt.role, op);
    let b = before.len();
    // Cloned only if a step in between has to be replayed on it.
    let mut obj = Cow::Borrowed(&h.objects[a]);
    // The same, without the steps in between that are a send and a
    // receive of `first`'s channel (see the module docs of `dpor`, 6):
    // forked at the first of them.
    let mut apart: Option<P> = None;
    for c in a + 1..b {
        if before[c][a] || !row[c] {
            continue;
        }
        let step = schedule[c];
        let Some(step_op) = op_of(&h.pending[c], step.role) else {
            return Rel::Race;
        };
        let pair = send_and_receive((first, first_op), (step, step_op)).is_some();
        if pair && apart.is_none() {
            apart = Some(P::clone(&obj));
        }
        if perform(obj.to_mut(), step, step_op.clone()).is_none() {
            return Rel::Race;
        }
        if let (false, Some(o)) = (pair, apart.as_mut()) {
            if perform(o, step, step_op.clone()).is_none() {
                return Rel::Race;
            }
        }
    }
    let judge = |obj: &P| judge(h, a, obj, (first, first_op), (alt, op), causal, feeds_later);
    match (judge(&obj), apart) {
        (Rel::Independent, Some(o)) => judge(&o),
        (Rel::Ordered, Some(o)) if !causal => match judge(&o) {
            r @ (Rel::Race | Rel::Enabling) => r,
            _ => Rel::Ordered,
        },
        (r, _) => r,
    }
}

/// The relation of `first` and the later `op` of `alt` (see [`relation`])
/// on `obj`, the object where a reversal would run `op`.
fn judge<P: Protocol>(
    h: &History<P>,
    a: usize,
    obj: &P,
    (first, first_op): (Alt, &Op),
    (alt, op): (Alt, &Op),
    causal: bool,
    feeds_later: bool,
) -> Rel {
    // A receive from anyone, or a select, still pending at the end of a
    // maximal execution: which sender it would take is not known.
    let unknown_sender =
        matches!(op, Op::Recv { from: None } | Op::Select { .. }) && alt.from.is_none();
    // The object after the operation, where it is performed to see that
    // it is accepted: the order "operation, then `first`" of the
    // independence probe goes on from it.
    let mut after_op = None;
    let accepted = if let (true, Op::Select { alts }) = (unknown_sender, op) {
        alts.iter().any(|x| {
            P::clone(obj)
                .try_recv(alt.role, Some(x.from))
                .is_ok_and(|(_, m)| x.accepts(&m))
        })
    } else if unknown_sender {
        P::clone(obj).try_recv(alt.role, None).is_ok()
    } else {
        let mut o = P::clone(obj);
        after_op = perform(&mut o, alt, op.clone()).map(|(act, _)| (o, act));
        after_op.is_some()
    };
    if !accepted {
        // Refused there. Ordered if `a` comes before the operation in
        // every execution (program order, or the message it receives),
        // or nothing can be known (a receive from anyone whose sender is
        // not known). Otherwise `a`, or a step after it, is only this
        // execution's enabler: a step that came after the operation here
        // may enable it too, and commute in front of it, and there the
        // operation and `a` can conflict (see the module docs, 4): a race.
        if unknown_sender || causal {
            Rel::Ordered
        } else {
            Rel::Enabling
        }
    } else if unknown_sender
        || feeds_later
        || after_op
            .as_ref()
            .is_some_and(|(o, _)| other_senders(obj, o, first.role, first_op))
        || takes_a_sender_away(obj, (first, first_op), alt.role, op)
        || (send_and_receive((first, first_op), (alt, op)).is_some()
            && moves_others(obj, &h.pending[a], [(first, first_op), (alt, op)]))
        || !independent(obj, (first, first_op), (alt, op), h.visible.as_deref())
    {
        Rel::Race
    } else {
        Rel::Independent
    }
}

/// Whether `first` takes away a sender that the later receive from
/// anyone (or select) `op` of `role` could take from on `obj`: then the
/// receive's other senders are not all its own alternatives where it is
/// taken (see the module docs of `dpor`, 6).
fn takes_a_sender_away<P: Protocol>(obj: &P, first: (Alt, &Op), role: RoleId, op: &Op) -> bool {
    if !matches!(op, Op::Recv { from: None } | Op::Select { .. }) {
        return false;
    }
    let mut after = P::clone(obj);
    if perform(&mut after, first.0, first.1.clone()).is_none() {
        return true;
    }
    (0..obj.roles().len())
        .any(|f| f != role && takes(obj, role, op, f) && !takes(&after, role, op, f))
}

/// Whether one of `steps` (a send and a receive of one channel), alone,
/// changes on `obj` what the other roles' operations `pending` (those
/// pending where the first of them was taken) may do: whether each is
/// accepted, and from whom a receive from anyone could take. Such a pair
/// stays dependent, whatever its own two orders show (see the module
/// docs of `dpor`, 6).
fn moves_others<P: Protocol>(obj: &P, pending: &[(RoleId, Op)], steps: [(Alt, &Op); 2]) -> bool {
    let others = || {
        pending.iter().filter(|(r, op)| {
            steps.iter().all(|s| s.0.role != *r) && !matches!(op, Op::Choose { .. })
        })
    };
    let can = |o: &P| -> Vec<bool> {
        others()
            .flat_map(|(r, op)| match op {
                Op::Recv { from: None } | Op::Select { .. } => {
                    (0..o.roles().len()).map(|f| takes(o, *r, op, f)).collect()
                }
                _ => {
                    let alt = Alt {
                        role: *r,
                        from: None,
                        pick: None,
                    };
                    vec![perform(&mut P::clone(o), alt, op.clone()).is_some()]
                }
            })
            .collect()
    };
    if others().next().is_none() {
        return false;
    }
    let here = can(obj);
    steps.iter().any(|(alt, op)| {
        let mut o = P::clone(obj);
        perform(&mut o, *alt, (*op).clone()).is_none_or(|_| can(&o) != here)
    })
}

/// Whether the receive from anyone (or select) `op` of `role` could take
/// a message from `from` on `obj`.
fn takes<P: Protocol>(obj: &P, role: RoleId, op: &Op, from: RoleId) -> bool {
    match op {
        Op::Recv { from: None } => obj.clone().try_recv(role, Some(from)).is_ok(),
        Op::Select { alts } => alts.iter().any(|x| {
            x.from == from
                && obj
                    .clone()
                    .try_recv(role, Some(from))
                    .is_ok_and(|(_, m)| x.accepts(&m))
        }),
        _ => false,
    }
}

/// Whether a receive from anyone (or a select) of `role`, `op`, could take
/// a message from another set of senders on `after` than on `before`:
/// then the step between them, run first, gives the receive other
/// alternatives, a race (as `feeds`). `feeds` sees the steps that do so on
/// an object that delivers what was sent (a send or close to `role`); an
/// object may also answer a receive from its state, which any step can
/// change.
fn other_senders<P: Protocol>(before: &P, after: &P, role: RoleId, op: &Op) -> bool {
    if !matches!(op, Op::Recv { from: None } | Op::Select { .. }) {
        return false;
    }
    (0..before.roles().len())
        .any(|f| f != role && takes(before, role, op, f) != takes(after, role, op, f))
}
