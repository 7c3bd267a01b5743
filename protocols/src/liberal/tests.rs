//! The packed [`Liberal`] object against a plain reference: its listing
//! (one pass over the packed envelopes) against the listing read off the
//! built inboxes, and its receives and sends against the projection's own
//! steps over built inboxes ([`Projection::recv`], [`Projection::send`],
//! the ones [`LocalRole`](crate::LocalRole)s take in threads), state by
//! state along random walks.

use std::collections::HashSet;

use engine::{Enabled, Message, Protocol};
use proptest::prelude::*;

use super::{Inbox, Liberal};
use crate::spec::{msg, par, seq, Spec};

/// The listing as the inboxes show it: every role's own steps, then the
/// head of each sender's channel in its inbox (first arrival first) if
/// the role accepts it.
fn enabled_reference(p: &Liberal) -> Vec<Enabled> {
    let proj = p.projection();
    let inboxes = p.inboxes();
    let mut out = Vec::new();
    for (role, &state) in p.local_states().iter().enumerate() {
        proj.enabled_own(role, state, &mut out);
        let mut seen = HashSet::new();
        for env in &inboxes[role] {
            if seen.insert(env.from) && proj.accept(role, state, env).is_some() {
                out.push(Enabled::Recv {
                    role,
                    from: env.from,
                });
            }
        }
    }
    out
}

/// The object as plain values: local states, and every envelope as
/// `(sender, tag, type id, type path)`.
type Plain = (Vec<u32>, Vec<Vec<(usize, u32, u32, String)>>);

fn plain_inboxes(inboxes: &[Inbox]) -> Vec<Vec<(usize, u32, u32, String)>> {
    inboxes
        .iter()
        .map(|i| {
            i.iter()
                .map(|e| (e.from, e.tag, e.ty.raw(), e.msg.type_path().to_string()))
                .collect()
        })
        .collect()
}

fn plain(p: &Liberal) -> Plain {
    (p.local_states(), plain_inboxes(&p.inboxes()))
}

/// `try_recv(role, from)` on a copy of `p`, packed and plain: the same
/// answer (sender and type path, or a refusal) and the same object after.
fn receives_agree(p: &Liberal, role: usize, from: Option<usize>) -> Result<(), TestCaseError> {
    let mut packed = p.clone();
    let got = packed
        .try_recv(role, from)
        .map(|(f, m)| (f, m.type_path().to_string()));
    let (mut states, mut inboxes) = (p.local_states(), p.inboxes());
    let want = p
        .projection()
        .recv(role, &mut states[role], from, &mut inboxes[role])
        .map(|(f, m)| (f, m.type_path().to_string()));
    prop_assert_eq!(&got, &want, "try_recv({}, {:?}) on {:?}", role, from, p);
    prop_assert_eq!(plain(&packed), (states, plain_inboxes(&inboxes)));
    Ok(())
}

/// Sends `msg` from `role` to `to` on `p`, and the same step on the
/// plain object: the same answer and the same object after.
fn send_agrees(p: &mut Liberal, role: usize, to: usize, m: Message) -> Result<(), TestCaseError> {
    let (mut states, mut inboxes) = (p.local_states(), p.inboxes());
    let want = p
        .projection()
        .send(role, &mut states[role], to, m.clone(), &mut inboxes[to])
        .is_ok();
    let got = p.try_send(role, to, m).is_ok();
    prop_assert_eq!(got, want, "try_send({}, {}) on {:?}", role, to, p);
    prop_assert_eq!(plain(p), (states, plain_inboxes(&inboxes)));
    Ok(())
}

/// `a` sends `k` `T`s to `c` in a row, while `b` sends `k` `U`s to `c`;
/// then `c` answers both. `a` and `b` run ahead of `c`, so `c`'s inbox
/// grows to `2k` envelopes from two senders, interleaved: past the
/// object's inline bytes for `k = 8`, and with heads of two channels.
fn bursts(k: usize) -> Spec {
    let burst = |ty: &str, from: &str| seq((0..k).map(|_| msg(ty, from, "c")));
    Spec::new(
        "bursts",
        seq([
            par([burst("T", "a"), burst("U", "b")]),
            msg("R", "c", "a"),
            msg("R", "c", "b"),
        ]),
    )
    .roles(["a", "b", "c"])
}

/// `a` sends `T` then `U` to `c`, then `b` sends `V` to `c`, over and
/// over. `a` may run ahead of `c` without bound, and every `T` it sends
/// carries the same tag: `c` would accept a later `T` as well as the head
/// of `a`'s channel, so only the head rule keeps the channel FIFO (and
/// the listing free of repeats).
fn ahead() -> Spec {
    Spec::new(
        "ahead",
        seq([msg("T", "a", "c"), msg("U", "a", "c"), msg("V", "b", "c")]).star(),
    )
    .roles(["a", "b", "c"])
}

/// The objects the walks run on: bundled ones with many roles, many
/// types, choices; the bursts (inline and on the heap); one whose later
/// envelopes are acceptable behind the head.
fn objects() -> Vec<Liberal> {
    let mut v: Vec<Liberal> = [
        "star-buffered:3",
        "go-fish:3",
        "two-buyer",
        "rock-paper-scissors:3",
        "npb-cg-concurrent:2",
        "token-full-mesh:3",
    ]
    .iter()
    .map(|name| {
        let spec = crate::bundled::spec_by_name(name).expect("bundled");
        Liberal::from_spec(&spec).expect("liberal")
    })
    .collect();
    v.push(Liberal::from_spec(&bursts(2)).expect("liberal"));
    v.push(Liberal::from_spec(&bursts(8)).expect("liberal"));
    v.push(Liberal::from_spec(&ahead()).expect("liberal"));
    v
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Along a random walk (each step a listed action, picked by
    /// `choices`), in every state: the listing is the reference's, and
    /// every receive (from anyone and from each role) and every send of
    /// each type answers and leaves the object as the plain steps do.
    #[test]
    fn the_packed_object_steps_as_the_plain_one(
        which in 0usize..9,
        choices in proptest::collection::vec(any::<u16>(), 0..48),
    ) {
        let mut p = objects().swap_remove(which);
        let dummies = engine::declared_dummies(&p);
        let n = p.local_states().len();
        for c in choices {
            let mut listed = Vec::new();
            prop_assert!(p.enabled(&mut listed));
            prop_assert_eq!(&listed, &enabled_reference(&p), "{:?}", p);
            for role in 0..n {
                receives_agree(&p, role, None)?;
                for from in 0..n {
                    receives_agree(&p, role, Some(from))?;
                    for m in &dummies {
                        send_agrees(&mut p.clone(), role, from, m.clone())?;
                    }
                }
            }
            if listed.is_empty() {
                break;
            }
            match listed[c as usize % listed.len()] {
                Enabled::Send { role, to, ty } => {
                    send_agrees(&mut p, role, to, dummies[ty].clone())?;
                }
                Enabled::Recv { role, from } => {
                    p.try_recv(role, Some(from)).expect("listed");
                }
                Enabled::Close { role, to } => p.try_close(role, to).expect("listed"),
            }
        }
    }
}

/// The bursts fill `c`'s inbox past the inline bytes (so the reads of the
/// heap variant are walked above too), and both channels' heads are
/// listed.
#[test]
fn the_bursts_reach_the_heap_with_two_heads() {
    let mut p = Liberal::from_spec(&bursts(8)).unwrap();
    let dummies = engine::declared_dummies(&p);
    let ty = |name: &str| dummies.iter().position(|m| m.type_name() == name).unwrap();
    for _ in 0..8 {
        p.try_send(0, 2, dummies[ty("T")].clone()).unwrap();
        p.try_send(1, 2, dummies[ty("U")].clone()).unwrap();
    }
    assert!(matches!(p.buf, crate::packed::Packed::Heap(_)));
    let mut listed = Vec::new();
    p.enabled(&mut listed);
    assert_eq!(
        listed,
        [
            Enabled::Recv { role: 2, from: 0 },
            Enabled::Recv { role: 2, from: 1 }
        ]
    );
    assert_eq!(listed, enabled_reference(&p));
}
