//! Origin by what the pair leaves elsewhere: a receipt or a notice on
//! another channel, the rest of the channel past the drain or behind a
//! drain the object refuses, and a type path told by another channel
//! (see the parent module).

use prust::session::BlockingEndpoint;
use prust::Message;

use super::super::support::agree::{assert_agree, disagreements};
use super::{refuse, take, takes_and, Chan, Kind, Take, BOUNDS};

/// The most likely hole: a receive of r1 also sends r0 a receipt, a copy
/// of the message r1 will get next (or of the one it got, if none is
/// left). In both orders of r0's second send and r1's first receive, r1
/// takes the same message, the objects are equal (one message on each
/// channel), and the rest of r0 → r1 is the same message: only the
/// receipt on *another* channel differs (r0's second message in one
/// order, its first in the other). Contract points relied on: the
/// receipt is a copy handed out as the state says at the receive; the
/// object moves nothing afterwards; the receipt depends only on the
/// channel r0 → r1, which no step of another channel can change.
#[test]
fn a_receipt_on_another_channel_keeps_the_pair_ordered() {
    let mut missed = Vec::new();
    for (how, bad) in takes_and([None, Some(1), Some(2)]) {
        missed.extend(disagreements(
            &Chan::new(3, Kind::EchoHead),
            move |r| {
                r.spawn("r2", |_ep| {});
                r.spawn("r1", move |mut ep| {
                    take(&mut ep, how);
                    take(&mut ep, how);
                });
                r.spawn("r0", move |mut ep| {
                    ep.send("r1", Message::named("M", 1u32)).unwrap();
                    ep.send("r1", Message::named("M", 2u32)).unwrap();
                    let receipt = *ep.recv_from("r1").unwrap().downcast_ref::<u32>().unwrap();
                    ep.recv_from("r1").unwrap();
                    refuse(&receipt, bad, "the receipt");
                    receipt
                })
            },
            &BOUNDS,
            None,
        ));
    }
    assert_agree(missed);
}

/// As above from the send's side, with a third role: a send of r0 to r1
/// also tells a monitor r2 which message r1 will get next. r0's second
/// send before r1's first receive tells r2 "1", after it "2"; r1 gets 1
/// then 2 either way and the objects are equal. The failure is r2's, a
/// role that touches neither step of the pair.
#[test]
fn a_notice_to_a_third_role_keeps_the_pair_ordered() {
    let mut missed = Vec::new();
    for (how, bad) in takes_and([None, Some([1, 1]), Some([1, 2])]) {
        missed.extend(disagreements(
            &Chan::new(3, Kind::NotifyHead),
            move |r| {
                r.spawn("r0", |mut ep| {
                    ep.send("r1", Message::named("M", 1u32)).unwrap();
                    ep.send("r1", Message::named("M", 2u32)).unwrap();
                });
                r.spawn("r1", move |mut ep| {
                    take(&mut ep, how);
                    take(&mut ep, how);
                });
                r.spawn("r2", move |mut ep| {
                    let mut heads = [0u32; 2];
                    for h in &mut heads {
                        *h = *ep.recv_from("r0").unwrap().downcast_ref::<u32>().unwrap();
                    }
                    refuse(&heads, bad, "the notices");
                    heads
                })
            },
            &BOUNDS,
            None,
        ));
    }
    assert_agree(missed);
}

/// The same receipt object under a property whose atoms see only r0's
/// receives of receipts (so they are dependent on every step), not the
/// pair: the pair must stay ordered there too, and the property (which
/// holds) must not hide it.
#[test]
fn a_receipt_on_another_channel_keeps_the_pair_ordered_under_a_property() {
    let mut missed = Vec::new();
    for bad in [None, Some(1), Some(2)] {
        missed.extend(disagreements(
            &Chan::new(3, Kind::EchoHead),
            move |r| {
                r.spawn("r2", |_ep| {});
                r.spawn("r1", |mut ep| {
                    take(&mut ep, Take::Anyone);
                    take(&mut ep, Take::Anyone);
                });
                r.spawn("r0", move |mut ep| {
                    ep.send("r1", Message::named("M", 1u32)).unwrap();
                    ep.send("r1", Message::named("M", 2u32)).unwrap();
                    let receipt = *ep.recv_from("r1").unwrap().downcast_ref::<u32>().unwrap();
                    ep.recv_from("r1").unwrap();
                    refuse(&receipt, bad, "the receipt");
                    receipt
                })
            },
            &BOUNDS,
            Some(r#"F "r0 RECV * FROM r1""#),
        ));
    }
    assert_agree(missed);
}

/// The rest of the channel deeper than the drain that compares it: 66
/// messages wait, a send into exactly 66 goes before the last. r0's
/// send and r1's first receive leave the rest of the channel equal in
/// its first 64 messages in both orders, and different in the 65th and
/// 66th (r0's message before or after the preloaded 65): the drain
/// stops at 64 with the channel not empty, which must mean "dependent".
#[test]
fn a_difference_past_the_drained_part_of_the_channel_keeps_the_pair_ordered() {
    let preload = (0..66u32).map(|v| Message::named("M", v));
    let object = Chan::new(2, Kind::InsertAt(66, 65)).preloaded(0, 1, preload);
    let mut missed = Vec::new();
    for bad in [None, Some(false), Some(true)] {
        missed.extend(disagreements(
            &object,
            move |r| {
                r.spawn("r0", |mut ep| {
                    ep.send("r1", Message::named("M", 1000u32)).unwrap();
                });
                r.spawn("r1", move |mut ep| {
                    let got: Vec<u32> = (0..67)
                        .map(|_| *ep.recv_from("r0").unwrap().downcast_ref::<u32>().unwrap())
                        .collect();
                    let at = |v| got.iter().position(|&x| x == v).unwrap();
                    let early = at(1000) < at(65);
                    refuse(&early, bad, "r0's message before the last preloaded one");
                    early
                })
            },
            &BOUNDS,
            None,
        ));
    }
    assert_agree(missed);
}

/// A channel whose receives r1 may take only in turns with r2's, and
/// where a send into exactly two messages goes between them: in both
/// orders of r0's third send and r1's first receive, r1 takes r0's first
/// message, but the rest of the channel is 3, 2 in one order and 2, 3 in
/// the other. After the pair the drain that would compare that rest is
/// refused at once (r2's turn) while messages are still there, and the
/// object says so (`is_channel_empty` is false): the pair must stay
/// dependent. r1 receives in turns, or from anyone (which may also
/// deadlock: r2's messages taken first leave r0's blocked behind the
/// turn, an outcome to find as well).
#[test]
fn a_drain_refused_by_the_object_keeps_the_pair_ordered() {
    let mut missed = Vec::new();
    let bads = [None, Some([1, 2, 3]), Some([1, 3, 2])];
    for (anyone, bad) in [false, true].into_iter().flat_map(|a| bads.map(|b| (a, b))) {
        missed.extend(disagreements(
            &Chan::new(3, Kind::InsertAt(2, 1)).gated(),
            move |r| {
                r.spawn("r0", |mut ep| {
                    for v in [1u32, 2, 3] {
                        ep.send("r1", Message::named("M", v)).unwrap();
                    }
                });
                r.spawn("r2", |mut ep| {
                    ep.send("r1", Message::named("T", ())).unwrap();
                    ep.send("r1", Message::named("T", ())).unwrap();
                });
                r.spawn("r1", move |mut ep| {
                    let mut got = Vec::new();
                    for i in 0..5 {
                        let (from, m) = if anyone {
                            ep.recv().unwrap()
                        } else {
                            let from = if i % 2 == 0 { 0 } else { 2 };
                            (from, ep.recv_from(from).unwrap())
                        };
                        if from == 0 {
                            got.push(*m.downcast_ref::<u32>().unwrap());
                        }
                    }
                    let got: [u32; 3] = got.try_into().unwrap();
                    refuse(&got, bad, "r0's messages");
                    got
                })
            },
            &BOUNDS,
            None,
        ));
    }
    assert_agree(missed);
}

/// Not a same-channel pair, and a bug this file found: r1's receive from
/// r0 hands out `a::M` or `b::M` (unit payloads, one short name) by
/// whether r2 → r1 is empty, so r2's send and that receive (different
/// channels) commute on the object, with acts that name the same short
/// type, while r1 sees another type path in each order. The reductions
/// take them for independent and lose `b::M`. Contract points relied on:
/// the object is deterministic and answers a receive by its state; a
/// type path is part of what `==` compares (no payload is involved).
/// Acts named a received message by its short type name then; they name
/// its full path now.
#[test]
fn a_type_path_told_by_another_channel_keeps_the_two_steps_ordered() {
    assert_agree(disagreements(
        &Chan::new(3, Kind::RetypeByOther),
        |r| {
            r.spawn("r0", |mut ep| {
                ep.send("r1", Message::named("M", ())).unwrap()
            });
            r.spawn("r2", |mut ep| {
                ep.send("r1", Message::named("M", ())).unwrap()
            });
            r.spawn("r1", |mut ep| {
                let p = ep.recv_from("r0").unwrap().type_path().to_string();
                ep.recv_from("r2").unwrap();
                p
            })
        },
        &BOUNDS,
        None,
    ));
}
