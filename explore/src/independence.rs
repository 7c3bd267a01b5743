//! Whether two enabled choices are independent: the relation that sleep
//! sets and DPOR rely on.

use engine::origin::Origins;
use engine::{Message, Protocol, RoleId};

use super::enabled::perform;
use super::op::Op;
use super::same_channel::{commute_on_channel, got};
use super::step::{Act, Alt};
use super::visible::Visibility;

/// The channel an enabled choice uses: (sender, receiver).
pub(crate) fn channel(alt: Alt, op: &Op) -> (RoleId, RoleId) {
    match op {
        Op::Send { to, .. } | Op::Close { to } => (alt.role, *to),
        Op::Recv { .. } | Op::Select { .. } => (
            alt.sender(op)
                .expect("a receive or select choice has a sender"),
            alt.role,
        ),
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
/// Under a property (`visible`), both must also be invisible to it.
pub(crate) fn independent<P: Protocol>(
    obj: &P,
    a: (Alt, &Op),
    b: (Alt, &Op),
    visible: Option<&Visibility>,
) -> bool {
    if a.0.role == b.0.role || closes_a_select(a, b) || closes_a_select(b, a) {
        return false;
    }
    if channel(a.0, a.1) == channel(b.0, b.1) {
        return commute_on_channel(obj, a, b, visible);
    }
    commute(obj, a, b, visible)
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
/// Objects compare messages by type, so equal objects and equal acts
/// may still hide different payloads. Watched by a recording window of
/// [`engine::origin`], the two steps must also, in both orders:
/// - hand out the same message (a copy of one message of `obj`): an
///   object may answer a receive by a state the other step changes and
///   changes back, and give its role another payload of the same type;
/// - make no message, fresh or as a copy: a step that copies a message
///   onto a channel it does not use (a relay's receipt) may put it in
///   another place in each order, which equal objects do not show;
/// - not look into a payload: the object may have chosen by its value,
///   or changed it in place (a `Cell`);
/// - leave objects equal when messages also compare by origin
///   ([`Origins::strictly`]): the same payloads in the same places,
///   where the object's `==` compares its messages. Two steps on two
///   channels may both put a payload in one queue of the object (a
///   broker that two senders' channels feed), in another order in each
///   order.
///
/// What stays unseen is an object whose `==` does not compare the
/// messages it holds (it keeps their types apart) and places payloads by
/// the order of steps on two channels, or moves them; the `Protocol`
/// contract rules out the moves (see `limitations`).
pub(crate) fn commute<P: Protocol>(
    obj: &P,
    a: (Alt, &Op),
    b: (Alt, &Op),
    visible: Option<&Visibility>,
) -> bool {
    let seen = |x: &Act, y: &Act| visible.is_some_and(|v| v.is_visible(x) || v.is_visible(y));
    // Opened before the object is cloned, so that a message handed out
    // in either order traces back to the message of `obj` it copies.
    // Everything compared is made in it and kept alive until compared:
    // the window is dropped last.
    let window = Origins::record();
    // One step on `o`: its act and the message it handed out, if the
    // step made no message.
    let step = |o: &mut P, x: (Alt, &Op)| {
        // A send's message is copied here, before the step is watched.
        // A select's type is looked at here too, on a clone of the object
        // (as `perform` does), and the step is its receive: the clone's
        // copies are the probe's, not the object's.
        let op = match x.1 {
            Op::Select { alts } => {
                let k = alts.get(x.0.pick?)?;
                let takes = x.0.from == Some(k.from)
                    && o.clone()
                        .try_recv(x.0.role, Some(k.from))
                        .is_ok_and(|(_, m)| k.accepts(&m));
                takes.then_some(Op::Recv { from: Some(k.from) })?
            }
            op => op.clone(),
        };
        let before = window.made();
        let (act, reply) = perform(o, x.0, op)?;
        (window.made() == before).then(|| (act, got(reply)))
    };
    // The object after both, and each step's act and message.
    let both = |first: (Alt, &Op), second: (Alt, &Op)| {
        let mut o = obj.clone();
        let x = step(&mut o, first)?;
        let y = step(&mut o, second)?;
        (!seen(&x.0, &y.0)).then_some((o, x, y))
    };
    // The first order that fails (refused, made a message, or seen by
    // the property) decides: the other is not tried.
    let Some((ab, a_then, b_after)) = both(a, b) else {
        return false;
    };
    let Some((ba, b_then, a_after)) = both(b, a) else {
        return false;
    };
    let same = |x: &(Act, Option<Message>), y: &(Act, Option<Message>)| {
        x.0 == y.0
            && match (&x.1, &y.1) {
                (None, None) => true,
                // A message made in the window, by the object's clone if
                // not by the step, may be anything.
                (Some(m), Some(n)) => window.same_message(m, n),
                _ => false,
            }
    };
    // Equal objects are not enough: each step must also do the same in
    // both orders. The object answers a receive (its sender, type and
    // message), and an object may answer by its state, which the other
    // step changes and changes back (a receive of `T0` in one order and
    // `T1` in the other, the same state after both): the role then sees
    // different messages, and its results and failures depend on the
    // order.
    // The objects are compared strictly: `==` by type does not see two
    // steps of different channels put payloads in one queue of the
    // object in another order in each order (a broker's queue that two
    // senders' channels feed), or a step place its payload by what it
    // saw of another (`Message::is_unit`, which `looked_into` misses).
    // Only objects whose `==` compares the messages they hold are seen.
    let commute = window.strictly(|| ab == ba)
        && same(&a_then, &a_after)
        && same(&b_after, &b_then)
        && !window.looked_into();
    // Kept alive until here (see above).
    drop((ab, ba, a_then, a_after, b_then, b_after));
    drop(window);
    commute
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;

    use engine::{Message, Protocol, Refused, RoleId};

    use super::super::op::Op;
    use super::super::step::Alt;
    use super::commute;

    /// How [`Two`] treats the messages of its channel r0 → r2 when r1
    /// sends to r0.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    enum Quirk {
        /// Not at all: the two channels are apart.
        None,
        /// r1's send turns r0 → r2 newest first: r2's receive then gets
        /// another message of the same type.
        Turns,
        /// r1's send puts a copy of the oldest of r0 → r2 on top of it.
        Copies,
        /// r1's send reads the payload of the oldest of r0 → r2.
        Looks,
    }

    /// Two channels, r0 → r2 (holding numbered messages) and r1 → r0.
    #[derive(Clone, Debug, PartialEq, Eq, Hash)]
    struct Two {
        quirk: Quirk,
        newest_first: bool,
        to_r2: VecDeque<Message>,
        to_r0: VecDeque<Message>,
    }

    impl Protocol for Two {
        fn roles(&self) -> Vec<String> {
            vec!["r0".into(), "r1".into(), "r2".into()]
        }
        fn try_send(
            &mut self,
            role: RoleId,
            to: RoleId,
            msg: Message,
        ) -> Result<(), Refused<Message>> {
            if (role, to) != (1, 0) {
                return Err(Refused(msg));
            }
            match self.quirk {
                Quirk::None => {}
                Quirk::Turns => self.newest_first = true,
                Quirk::Copies => {
                    let first = self.to_r2.front().cloned();
                    self.to_r2.extend(first);
                }
                Quirk::Looks => {
                    let _ = self.to_r2.front().map(|m| m.downcast_ref::<u32>());
                }
            }
            self.to_r0.push_back(msg);
            Ok(())
        }
        fn try_recv(
            &mut self,
            role: RoleId,
            from: Option<RoleId>,
        ) -> Result<(RoleId, Message), Refused> {
            if role != 2 || from.is_some_and(|f| f != 0) {
                return Err(Refused(()));
            }
            let m = if self.newest_first {
                self.to_r2.pop_back()
            } else {
                self.to_r2.pop_front()
            };
            m.map(|m| (0, m)).ok_or(Refused(()))
        }
    }

    fn alt(role: RoleId) -> Alt {
        Alt {
            role,
            from: None,
            pick: None,
        }
    }

    /// Whether r1's send to r0 and r2's receive from r0 commute, with
    /// `held` messages on r0 → r2.
    fn commutes(quirk: Quirk, held: u32) -> bool {
        let obj = Two {
            quirk,
            newest_first: quirk == Quirk::Turns && held == 0,
            to_r2: (0..held).map(|v| Message::named("M", v)).collect(),
            to_r0: VecDeque::new(),
        };
        let send = Op::Send {
            to: 0,
            msg: Message::named("M", 99u32),
        };
        let recv = Op::Recv { from: Some(0) };
        let one = commute(&obj, (alt(1), &send), (alt(2), &recv), None);
        let other = commute(&obj, (alt(2), &recv), (alt(1), &send), None);
        assert_eq!(one, other, "either argument order");
        one
    }

    #[test]
    fn steps_on_two_channels_apart_commute() {
        assert!(commutes(Quirk::None, 1));
        assert!(commutes(Quirk::None, 3));
        // Refused in both orders: nothing to commute.
        assert!(!commutes(Quirk::None, 0));
    }

    #[test]
    fn a_receive_that_gets_another_message_in_each_order_is_dependent() {
        // Objects equal by type after both orders, the same acts; only
        // the payload r2 gets tells the orders apart.
        assert!(!commutes(Quirk::Turns, 2));
        // One message: the same one either way.
        assert!(commutes(Quirk::Turns, 1));
    }

    #[test]
    fn a_step_that_makes_a_message_keeps_the_pair_dependent() {
        assert!(!commutes(Quirk::Copies, 2));
    }

    #[test]
    fn a_step_that_looks_into_a_payload_keeps_the_pair_dependent() {
        assert!(!commutes(Quirk::Looks, 2));
    }
}
