//! How a step and a later operation of one execution are related, for
//! source-set DPOR (see the module docs of `dpor`, 1 and 4).

use std::borrow::Cow;

use engine::{Protocol, RoleId};

use super::super::enabled::perform;
use super::super::independence::independent;
use super::super::op::Op;
use super::super::step::Alt;
use super::{op_of, History};

/// Whether `op` of `role` is a receive from anyone and `other_op` of
/// `other` a send or close to `role`.
pub(super) fn feeds(role: RoleId, op: &Op, other: RoleId, other_op: &Op) -> bool {
    matches!(op, Op::Recv { from: None } | Op::Select { .. })
        && matches!(other_op, Op::Send { to, .. } | Op::Close { to } if *to == role)
        && other != role
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
/// commute both ways on the object, use different channels, and not be a receive from anyone followed by a
/// send to its role (in the other order the receive could take that
/// message). A send followed by a receive from anyone that took another
/// sender's message is no race: the receive's other senders are its
/// role's own alternatives, explored at its own point.
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
    // A receive from anyone, or a select, still pending at the end of a
    // maximal execution: which sender it would take is not known.
    let unknown_sender =
        matches!(op, Op::Recv { from: None } | Op::Select { .. }) && alt.from.is_none();
    let feeds_later = feeds(first.role, first_op, alt.role, op);
    let b = before.len();
    // Cloned only if a step in between has to be replayed on it.
    let mut obj = Cow::Borrowed(&h.objects[a]);
    for c in a + 1..b {
        if before[c][a] || !row[c] {
            continue;
        }
        let step = schedule[c];
        let Some(step_op) = op_of(&h.pending[c], step.role) else {
            return Rel::Race;
        };
        if perform(obj.to_mut(), step, step_op.clone()).is_none() {
            return Rel::Race;
        }
    }
    // The object after the operation, where it is performed to see that
    // it is accepted: the order "operation, then `first`" of the
    // independence probe goes on from it.
    let mut after_op = None;
    let accepted = if let (true, Op::Select { alts }) = (unknown_sender, op) {
        alts.iter().any(|x| {
            P::clone(&obj)
                .try_recv(alt.role, Some(x.from))
                .is_ok_and(|(_, m)| x.accepts(&m))
        })
    } else if unknown_sender {
        P::clone(&obj).try_recv(alt.role, None).is_ok()
    } else {
        let mut o = P::clone(&obj);
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
            .is_some_and(|(o, _)| other_senders(&*obj, o, first.role, first_op))
        || !independent(
            &*obj,
            (first, first_op),
            (alt, op),
            after_op,
            h.visible.as_deref(),
        )
    {
        Rel::Race
    } else {
        Rel::Independent
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
    let takes = |obj: &P, from: RoleId| match op {
        Op::Recv { from: None } => obj.clone().try_recv(role, Some(from)).is_ok(),
        Op::Select { alts } => alts.iter().any(|x| {
            x.from == from
                && obj
                    .clone()
                    .try_recv(role, Some(from))
                    .is_ok_and(|(_, m)| x.accepts(&m))
        }),
        _ => false,
    };
    if !matches!(op, Op::Recv { from: None } | Op::Select { .. }) {
        return false;
    }
    (0..before.roles().len()).any(|f| f != role && takes(before, f) != takes(after, f))
}
