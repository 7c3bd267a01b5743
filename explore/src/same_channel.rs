//! Whether a send and a receive on one channel commute: the one pair on a
//! channel that may be independent (see `independence`).
//!
//! Messages compare by type only, so two orders that give equal objects
//! may still hand the receiver different payloads (a LIFO channel gives
//! the newest message, which the send changes). Payloads themselves
//! cannot be compared (a payload need not be `PartialEq`, and its `Debug`
//! may hide a field), so the probe compares where the payloads came from
//! instead ([`engine::origin`]): run in one recording window, the message
//! received in each order, and every message left in transit after both
//! steps (on every channel, drained in a fixed order), must be copies of
//! one and the same message that existed before the probe (of the real
//! object's, or the real pending send's), and the object must not have
//! looked into a payload (it may have chosen by it, or changed it in
//! place through a `Cell`).
//! Copies of one message are the same payload if its `Clone` is honest;
//! a message the object made anew (it took a payload apart and boxed it
//! again, or built one) may be anything, and keeps the pair dependent.

use engine::origin::Origins;
use engine::{Message, Protocol, RoleId};

use super::enabled::perform;
use super::op::{Op, Reply};
use super::step::{Act, Alt};
use super::visible::Visibility;

/// How many messages left on one channel are compared: a longer channel
/// keeps the pair dependent.
const DRAIN: usize = 64;

/// An enabled choice and its role's pending operation.
pub(crate) type Choice<'o> = (Alt, &'o Op);

/// `(send, receive)` if one of `a`, `b` is a send of `s` to `r` and the
/// other a receive of `r` that takes from `s`.
pub(crate) fn send_and_receive<'o>(
    a: Choice<'o>,
    b: Choice<'o>,
) -> Option<(Choice<'o>, Choice<'o>)> {
    let is_pair = |send: (Alt, &Op), recv: (Alt, &Op)| {
        matches!(send.1, Op::Send { to, .. } if *to == recv.0.role)
            && recv.0.sender(recv.1) == Some(send.0.role)
            && send.0.role != recv.0.role
    };
    if is_pair(a, b) {
        Some((a, b))
    } else if is_pair(b, a) {
        Some((b, a))
    } else {
        None
    }
}

/// The message a receive or a select got.
pub(crate) fn got(reply: Reply) -> Option<Message> {
    match reply {
        Reply::Received(_, m) | Reply::Selected(_, m) => Some(m),
        _ => None,
    }
}

/// Every message in transit on `obj`, each with its channel, received
/// in passes over the channels in a fixed order (one message a channel a
/// pass, so that an object that wants its receives in some order gets
/// them) until every channel is empty; `None` if a pass makes no
/// progress first, or a receive returns from another sender, or more
/// than [`DRAIN`] are on one channel, or the object does not say that
/// its channels are empty ([`Protocol::is_channel_empty`], whose default
/// `false` keeps the pair dependent). Every channel, not only the pair's:
/// a step may put a copy of a message on another channel (a receipt of
/// what comes next), which equal objects do not show.
fn drain<P: Protocol>(obj: &mut P, n: usize) -> Option<Vec<(RoleId, RoleId, Message)>> {
    let channels: Vec<(RoleId, RoleId)> = (0..n)
        .flat_map(|f| (0..n).filter(move |&t| t != f).map(move |t| (f, t)))
        .collect();
    let mut count = vec![0usize; channels.len()];
    let mut out = Vec::new();
    loop {
        let mut progress = false;
        let mut all_empty = true;
        for (i, &(f, t)) in channels.iter().enumerate() {
            if obj.is_channel_empty(f, t) {
                continue;
            }
            all_empty = false;
            if count[i] == DRAIN {
                return None;
            }
            match obj.try_recv(t, Some(f)) {
                Ok((g, m)) if g == f => {
                    count[i] += 1;
                    progress = true;
                    out.push((f, t, m));
                }
                Ok(_) => return None,
                Err(_) => {}
            }
        }
        if all_empty {
            return Some(out);
        }
        if !progress {
            return None;
        }
    }
}

/// Whether `a` and `b` (of different roles, on one channel) are a send
/// and a receive of its message stream that commute (see the module
/// docs): both orders accepted, with the real message; equal objects; each
/// step the same act in both orders, invisible to the property
/// (`visible`) as in `independence::commute`; the same message received,
/// and the same messages left in transit, by channel, type and origin;
/// and no payload looked into by the object.
/// Anything else on one channel (closes, two sends, two receives) is
/// dependent.
pub(crate) fn commute_on_channel<P: Protocol>(
    obj: &P,
    a: (Alt, &Op),
    b: (Alt, &Op),
    visible: Option<&Visibility>,
) -> bool {
    let Some((send, recv)) = send_and_receive(a, b) else {
        return false;
    };
    // Everything below is made inside the window (fresh clones of the
    // object, the send's message cloned from the pending one), and kept
    // alive until compared: the window is dropped last.
    let window = Origins::record();
    let seen = |x: &Act, y: &Act| visible.is_some_and(|v| v.is_visible(x) || v.is_visible(y));
    // The object after both steps, the acts of the first and the second,
    // and the message received.
    let run = |first: (Alt, &Op), second: (Alt, &Op)| {
        let mut o = obj.clone();
        let (x, rx) = perform(&mut o, first.0, first.1.clone())?;
        let (y, ry) = perform(&mut o, second.0, second.1.clone())?;
        if seen(&x, &y) {
            return None;
        }
        let m = got(rx).or_else(|| got(ry))?;
        Some((o, x, y, m))
    };
    let Some((mut sr, send_first, recv_second, got_sr)) = run(send, recv) else {
        return false;
    };
    let Some((mut rs, recv_first, send_second, got_rs)) = run(recv, send) else {
        return false;
    };
    if sr != rs || send_first != send_second || recv_first != recv_second {
        return false;
    }
    if !window.same_message(&got_sr, &got_rs) {
        return false;
    }
    let n = obj.roles().len();
    let (Some(rest_sr), Some(rest_rs)) = (drain(&mut sr, n), drain(&mut rs, n)) else {
        return false;
    };
    let commute = rest_sr.len() == rest_rs.len()
        && rest_sr
            .iter()
            .zip(&rest_rs)
            .all(|((f, t, x), (g, u, y))| (f, t) == (g, u) && window.same_message(x, y))
        // The object looked into a payload: it may have chosen by its
        // value, or changed it in place (a `Cell`), where no origin shows.
        && !window.looked_into();
    // Kept alive until here (see above).
    drop((rest_sr, rest_rs, got_sr, got_rs, sr, rs));
    drop(window);
    commute
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;

    use engine::{Message, Protocol, Refused, RoleId};

    use super::super::op::Op;
    use super::super::step::Alt;
    use super::{commute_on_channel, DRAIN};

    /// How [`Chan`] keeps the messages of its one channel, r0 → r1.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    enum Kind {
        Fifo,
        Lifo,
        /// FIFO, each payload taken out and boxed again on a send.
        Rebuilt,
        /// FIFO, but does not answer `is_channel_empty`.
        Silent,
    }

    #[derive(Clone, Debug, PartialEq, Eq, Hash)]
    struct Chan {
        kind: Kind,
        q: VecDeque<Message>,
    }

    impl Protocol for Chan {
        fn roles(&self) -> Vec<String> {
            vec!["r0".into(), "r1".into()]
        }
        fn try_send(
            &mut self,
            role: RoleId,
            to: RoleId,
            msg: Message,
        ) -> Result<(), Refused<Message>> {
            if (role, to) != (0, 1) {
                return Err(Refused(msg));
            }
            match self.kind {
                Kind::Lifo => self.q.push_front(msg),
                Kind::Rebuilt => {
                    let ty = msg.message_type();
                    match msg.downcast::<u32>() {
                        Ok(v) => self.q.push_back(Message::with_type(ty, v)),
                        Err(m) => self.q.push_back(m),
                    }
                }
                Kind::Fifo | Kind::Silent => self.q.push_back(msg),
            }
            Ok(())
        }
        fn try_recv(
            &mut self,
            role: RoleId,
            from: Option<RoleId>,
        ) -> Result<(RoleId, Message), Refused> {
            if role != 1 || from.is_some_and(|f| f != 0) {
                return Err(Refused(()));
            }
            self.q.pop_front().map(|m| (0, m)).ok_or(Refused(()))
        }
        fn is_channel_empty(&self, from: RoleId, to: RoleId) -> bool {
            self.kind != Kind::Silent && ((from, to) != (0, 1) || self.q.is_empty())
        }
    }

    fn alt(role: RoleId) -> Alt {
        Alt {
            role,
            from: None,
            pick: None,
        }
    }

    /// Whether r0's send of `next` and r1's receive commute on a channel
    /// of `kind` that holds `held` messages.
    fn commutes(kind: Kind, held: usize, payload: impl Fn(u32) -> Message) -> bool {
        let obj = Chan {
            kind,
            q: (0..held as u32).map(&payload).collect(),
        };
        let send = Op::Send {
            to: 1,
            msg: payload(99),
        };
        let recv = Op::Recv { from: Some(0) };
        let one = commute_on_channel(&obj, (alt(0), &send), (alt(1), &recv), None);
        let other = commute_on_channel(&obj, (alt(1), &recv), (alt(0), &send), None);
        assert_eq!(one, other, "either argument order");
        one
    }

    fn numbered(v: u32) -> Message {
        Message::named("M", v)
    }

    #[test]
    fn a_send_and_a_receive_of_a_fifo_channel_commute() {
        assert!(commutes(Kind::Fifo, 1, numbered));
        assert!(commutes(Kind::Fifo, 3, numbered));
        assert!(commutes(Kind::Fifo, 2, |_| Message::named("M", ())));
        // Refused in one order: no commuting.
        assert!(!commutes(Kind::Fifo, 0, numbered));
    }

    #[test]
    fn the_rest_of_the_channel_is_compared_up_to_its_limit() {
        // Left after both steps: the `held - 1` old messages and the new.
        assert!(commutes(Kind::Fifo, DRAIN, numbered));
        assert!(!commutes(Kind::Fifo, DRAIN + 1, numbered));
    }

    #[test]
    fn other_messages_or_unknown_ones_keep_the_pair_dependent() {
        // The newest is received: another message in each order.
        assert!(!commutes(Kind::Lifo, 2, numbered));
        // Unit payloads on a LIFO channel: the same message either way
        // only if the types agree, which they do; the channel's rest too.
        assert!(commutes(Kind::Lifo, 1, |_| Message::named("M", ())));
        // Boxed again: nothing is known of the payload.
        assert!(!commutes(Kind::Rebuilt, 2, numbered));
        // No answer to `is_channel_empty`.
        assert!(!commutes(Kind::Silent, 2, numbered));
    }

    #[test]
    fn only_a_send_and_a_receive_of_its_sender_are_judged() {
        let obj = Chan {
            kind: Kind::Fifo,
            q: VecDeque::from([numbered(1)]),
        };
        let send = Op::Send {
            to: 1,
            msg: numbered(2),
        };
        let close = Op::Close { to: 1 };
        let recv = Op::Recv { from: Some(0) };
        assert!(!commute_on_channel(
            &obj,
            (alt(0), &send),
            (alt(0), &send),
            None
        ));
        assert!(!commute_on_channel(
            &obj,
            (alt(0), &close),
            (alt(1), &recv),
            None
        ));
        assert!(!commute_on_channel(
            &obj,
            (alt(1), &recv),
            (alt(1), &recv),
            None
        ));
    }
}
