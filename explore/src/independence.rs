//! Whether two enabled choices are independent: the relation that sleep
//! sets and DPOR rely on.

use std::fmt::Write as _;
use std::hash::{DefaultHasher, Hasher};

use engine::{Message, Protocol, RoleId};

use super::enabled::perform;
use super::op::{Op, Reply};
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
/// object's state `obj`: they commute on the object (each stays enabled
/// after the other, and both orders give equal objects), and if they use
/// one channel, they are a send and a receive of an earlier message on it
/// (see [`passes`]). Same role, any other pair on one channel, or any
/// doubt: dependent. The channel matters because objects compare
/// messages by type only: two orders that give equal objects may still
/// hand the receiver different messages.
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
    if a.0.role == b.0.role {
        return false;
    }
    if channel(a.0, a.1) == channel(b.0, b.1) {
        return passes(obj, a, b, visible);
    }
    commute(obj, a, b, b_first, visible)
}

/// The payload of the probe's send in [`passes`]: no program can send
/// one, so a receive that returns it took the probe's message.
#[derive(Clone, Debug)]
struct Probe;

/// Whether a send and a receive (or select) on one channel commute: the
/// receive takes a message sent earlier in both orders, so the send only
/// queues behind it. Judged as [`commute`] does (equal objects, the same
/// acts, nothing a property sees), and besides, with the send's payload
/// replaced by a [`Probe`] of the same type (the object cannot tell: it
/// compares messages by type, and a deterministic object answers equal
/// calls alike), the receive must not return the probe after the send,
/// and must return the same message in both orders (compared by their
/// `Debug` text, hashed). On a FIFO channel that holds a message this is
/// always so; an object that hands out the newest message, or picks
/// another one once more are queued, is caught here and stays dependent.
///
/// Why it matters: with the channel rule alone, a producer's next send
/// raced with the consumer's receive of its previous message, and DPOR
/// explored every interleaving of the sends and receives of each channel
/// (a Catalan number of them per channel: 500 executions for 20 receive
/// orders of fan-in 2 × 3).
fn passes<P: Protocol>(
    obj: &P,
    a: (Alt, &Op),
    b: (Alt, &Op),
    visible: Option<&Visibility>,
) -> bool {
    let ((send, to, msg), recv) = match (a.1, b.1) {
        (Op::Send { to, msg }, Op::Recv { .. } | Op::Select { .. }) => ((a.0, *to, msg), b),
        (Op::Recv { .. } | Op::Select { .. }, Op::Send { to, msg }) => ((b.0, *to, msg), a),
        _ => return false,
    };
    let marked = Op::Send {
        to,
        msg: Message::with_type(msg.message_type(), Probe),
    };
    let seen = |x: &Act| visible.is_some_and(|v| v.is_visible(x));
    // The acts of both steps and the message received, in one order.
    let run = |send_first: bool| {
        let mut o = obj.clone();
        let mut acts = Vec::with_capacity(2);
        let mut got = None;
        for first in [send_first, !send_first] {
            let (act, reply) = if first {
                perform(&mut o, send, marked.clone())?
            } else {
                perform(&mut o, recv.0, recv.1.clone())?
            };
            if seen(&act) {
                return None;
            }
            if let Reply::Received(_, m) | Reply::Selected(_, m) = reply {
                got = Some(m);
            }
            acts.push(act);
        }
        if send_first {
            acts.reverse();
        }
        Some((o, acts, got?))
    };
    let Some((after_recv, acts, got)) = run(false) else {
        return false;
    };
    let Some((after_send, acts2, got2)) = run(true) else {
        return false;
    };
    after_recv == after_send
        && acts == acts2
        && got2.downcast_ref::<Probe>().is_none()
        && debug_hash(&got) == debug_hash(&got2)
}

/// A hash of a message's `Debug` text (type and payload), written
/// straight into the hasher.
fn debug_hash(m: &Message) -> u64 {
    struct W(DefaultHasher);
    impl std::fmt::Write for W {
        fn write_str(&mut self, s: &str) -> std::fmt::Result {
            self.0.write(s.as_bytes());
            Ok(())
        }
    }
    let mut w = W(DefaultHasher::new());
    let _ = write!(w, "{m:?}");
    w.0.finish()
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
