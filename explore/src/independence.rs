//! Whether two enabled choices are independent: the relation that sleep
//! sets and DPOR rely on.

use engine::{Protocol, RoleId};

use super::enabled::perform;
use super::op::Op;
use super::same_channel::commute_on_channel;
use super::step::{Act, Alt};
use super::visible::Visibility;

/// The channel an enabled choice uses: (sender, receiver).
pub(crate) fn channel(alt: Alt, op: &Op) -> (RoleId, RoleId) {
    match op {
        Op::Send { to, .. } | Op::Close { to } => (alt.role, *to),
        Op::Recv { from } => (
            alt.from.or(*from).expect("a receive choice has a sender"),
            alt.role,
        ),
        Op::Select { .. } => (alt.from.expect("a select choice has a sender"), alt.role),
        // A choice touches no channel; (role, role) is no channel's.
        Op::Choose { .. } => (alt.role, alt.role),
    }
}

/// Whether two enabled choices of different roles are independent in the
/// object's state `obj`: they use different channels, and they commute on
/// the object (each stays enabled after the other, and both orders give
/// equal objects). Same role, or any doubt: dependent. The channel rule
/// matters because objects compare messages by type only: two messages
/// on one channel may commute on the object and still reach the receiver
/// in a different order. So on one channel only a send and a receive
/// that takes from its sender may be independent, and only if the probe
/// also sees the same messages received and left on the channel, by
/// where they came from (`same_channel`); any other pair on one channel
/// is dependent.
///
/// Under a property (`visible`), both must also be invisible to it; and
/// a caller that already performed `b` on a clone of `obj` passes that
/// object and `b`'s act as `b_first` (see [`commute`]).
pub(crate) fn independent<P: Protocol>(
    obj: &P,
    a: (Alt, &Op),
    b: (Alt, &Op),
    b_first: Option<(P, Act)>,
    visible: Option<&Visibility>,
) -> bool {
    if a.0.role == b.0.role || closes_a_select(a, b) || closes_a_select(b, a) {
        return false;
    }
    if channel(a.0, a.1) == channel(b.0, b.1) {
        // Made outside the probe's recording window: not of use to it.
        drop(b_first);
        return commute_on_channel(obj, a, b, visible);
    }
    commute(obj, a, b, b_first, visible)
}

/// Whether `a` closes a channel that `b`, a select, receives on in one of
/// its other alternatives: a task's select takes a receive whose channel
/// ended at once (see `Task::answer_each`), so the close decides which
/// alternative the select gets, whatever the object says. Judged on the
/// object alone, the two commute (they use different channels), and the
/// reductions ran one order only: a close racing a select in an async
/// role lost the result of the other order.
fn closes_a_select(a: (Alt, &Op), b: (Alt, &Op)) -> bool {
    matches!(a.1, Op::Close { to } if *to == b.0.role)
        && matches!(b.1, Op::Select { alts } if alts.iter().any(|x| x.from == a.0.role))
}

/// Whether two enabled choices commute on the object in the state `obj`:
/// each stays enabled after the other, both orders give equal objects,
/// and each performs the same act in both orders (a receive gets the same
/// sender and type). Under a property (`visible`), the actions they perform, in
/// either order, must also all be invisible to it: the formula's verdict
/// may depend on the order of a visible action and any other, but not on
/// that of two invisible ones (see `visible`). The actions are those of
/// both orders since what an action is may depend on the state (the type
/// a receive gets).
///
/// `b_first`: where the caller already performed `b` on a clone of `obj`,
/// that object and `b`'s act; the order `b` then `a` goes on from it
/// instead of cloning and performing `b` again.
pub(crate) fn commute<P: Protocol>(
    obj: &P,
    a: (Alt, &Op),
    b: (Alt, &Op),
    b_first: Option<(P, Act)>,
    visible: Option<&Visibility>,
) -> bool {
    let seen = |x: &Act, y: &Act| visible.is_some_and(|v| v.is_visible(x) || v.is_visible(y));
    // The object after both, and the acts of the first and the second.
    let then = |mut o: P, x: Act, second: (Alt, &Op)| {
        let (y, _) = perform(&mut o, second.0, second.1.clone())?;
        (!seen(&x, &y)).then_some((o, x, y))
    };
    let both = |first: (Alt, &Op), second: (Alt, &Op)| {
        let mut o = obj.clone();
        let (x, _) = perform(&mut o, first.0, first.1.clone())?;
        then(o, x, second)
    };
    // The first order that fails (refused, or seen by the property)
    // decides: the other is not tried.
    let Some((ab, a_then, b_after)) = both(a, b) else {
        return false;
    };
    let ba = match b_first {
        Some((o, x)) => then(o, x, a),
        None => both(b, a),
    };
    // Equal objects are not enough: each step must also do the same in
    // both orders. The object answers a receive (its sender and type),
    // and an object may answer by its state, which the other step changes
    // and changes back (a receive of `T0` in one order and `T1` in the
    // other, the same state after both): the role then sees different
    // messages, and its results and failures depend on the order.
    ba.is_some_and(|(ba, b_then, a_after)| ab == ba && a_then == a_after && b_after == b_then)
}
