//! Origin by what the receiver is handed: a payload stamped, boxed
//! again or rebuilt on receive, payloads with no data of different Rust
//! types, a type path chosen by the channel's state, and a FIFO channel
//! where the finer rule is right (see the parent module).

use std::cell::Cell;

use prust::session::{Alternative, AsyncOp, BlockingEndpoint, Done};
use prust::{Message, RoleId};
use testkit::aio;

use super::super::support::agree::{assert_agree, disagreements};
use super::{refuse, take, takes_and, Chan, Kind, Take, BOUNDS};

/// Attacks origin by payload address: the object writes the number of
/// messages left into the very box it hands out (a `Cell<u32>` payload,
/// reached through `downcast_ref`). The message taken is r0's first in
/// both orders of r0's second send and r1's first receive, by address
/// and by type, the objects are equal and the rest of the channel is
/// the same message: but r1 reads a number one larger in one order.
/// r0 sends three; each way of taking them (from r0, from anyone, a
/// select), and on a channel bounded to two messages (the third send
/// waits for a receive). Contract points relied on: the
/// object is deterministic (a clone of the object clones the cell) and
/// hands out a payload as its state says at the receive.
#[test]
fn a_stamp_written_into_the_payload_on_receive_keeps_the_pair_ordered() {
    let mut missed = Vec::new();
    for object in [
        Chan::new(3, Kind::Stamp),
        Chan::new(3, Kind::Stamp).bounded(2),
    ] {
        for (how, bad) in takes_and([None, Some(0), Some(1)]) {
            missed.extend(disagreements(
                &object,
                move |r| {
                    r.spawn("r0", |mut ep| {
                        for _ in 0..3 {
                            ep.send("r1", Cell::new(7u32)).unwrap();
                        }
                    });
                    r.spawn("r2", |_ep| {});
                    r.spawn("r1", move |mut ep| {
                        let stamps: Vec<u32> = (0..3)
                            .map(|_| {
                                take(&mut ep, how)
                                    .downcast_ref::<Cell<u32>>()
                                    .unwrap()
                                    .get()
                            })
                            .collect();
                        refuse(&stamps[0], bad, "the first stamp");
                        stamps
                    })
                },
                &BOUNDS,
                None,
            ));
        }
    }
    assert_agree(missed);
}

/// A payload taken out of its box and boxed again at the same address
/// (`downcast_box`, changed, `with_boxed`), and one taken by value and
/// rebuilt (`downcast`, `Message::with_type`, which the allocator
/// likely places at the freed address): neither may count as the
/// message that was sent. r1 reads 1 or 101 depending on the order of
/// r0's second send and its first receive.
#[test]
fn a_payload_reboxed_or_rebuilt_in_place_is_not_the_message_sent() {
    let mut missed = Vec::new();
    for kind in [Kind::Rebox, Kind::Rebuild] {
        for (how, bad) in takes_and([None, Some(1), Some(101)]) {
            missed.extend(disagreements(
                &Chan::new(3, kind),
                move |r| {
                    r.spawn("r0", |mut ep| {
                        ep.send("r1", Message::named("M", 1u32)).unwrap();
                        ep.send("r1", Message::named("M", 2u32)).unwrap();
                    });
                    r.spawn("r2", |_ep| {});
                    r.spawn("r1", move |mut ep| {
                        let first = *take(&mut ep, how).downcast_ref::<u32>().unwrap();
                        let second = *take(&mut ep, how).downcast_ref::<u32>().unwrap();
                        refuse(&first, bad, "the first value");
                        (first, second)
                    })
                },
                &BOUNDS,
                None,
            ));
        }
    }
    assert_agree(missed);
}

/// What a payload is, as a receiver tells it apart.
fn what(m: &Message) -> &'static str {
    if m.is_unit() {
        "()"
    } else if m.downcast_ref::<Blue>().is_some() {
        "Blue"
    } else if m.downcast_ref::<Green>().is_some() {
        "Green"
    } else if m.downcast_ref::<[u8; 0]>().is_some() {
        "[u8; 0]"
    } else if m.downcast_ref::<u32>().is_some() {
        "u32"
    } else {
        "other"
    }
}

/// Zero-sized payload types: no address tells two of them apart.
#[derive(Clone, Debug)]
struct Blue;
#[derive(Clone, Debug)]
struct Green;

fn payload(which: &str) -> Message {
    match which {
        "()" => Message::named("M", ()),
        "Blue" => Message::named("M", Blue),
        "Green" => Message::named("M", Green),
        "[u8; 0]" => Message::named("M", [0u8; 0]),
        "u32" => Message::named("M", 5u32),
        _ => unreachable!(),
    }
}

/// Payloads with no data under one message type: two zero-sized Rust
/// types, a zero-sized one and `()`, a zero-sized array and a unit
/// struct, a zero-sized one and data. On a LIFO channel the first
/// receive takes the first or the second message by the order of the
/// second send and the receive; judged by type path alone the two
/// orders hand out "the same" message.
#[test]
fn payloads_without_data_of_different_rust_types_are_different_messages() {
    let mut missed = Vec::new();
    let pairs = [
        ("Blue", "Green"),
        ("()", "Blue"),
        ("Green", "()"),
        ("[u8; 0]", "Blue"),
        ("Blue", "u32"),
        ("()", "u32"),
    ];
    for ((a, b), bad) in pairs
        .into_iter()
        .flat_map(|(a, b)| [None, Some(a), Some(b)].map(|bad| ((a, b), bad)))
    {
        missed.extend(disagreements(
            &Chan::new(3, Kind::Lifo),
            move |r| {
                r.spawn("r0", move |mut ep| {
                    ep.send("r1", payload(a)).unwrap();
                    ep.send("r1", payload(b)).unwrap();
                });
                r.spawn("r2", |_ep| {});
                r.spawn("r1", move |mut ep| {
                    let first = what(&take(&mut ep, Take::From));
                    let second = what(&take(&mut ep, Take::Anyone));
                    refuse(&first, bad, "the first payload");
                    (first, second)
                })
            },
            &BOUNDS,
            None,
        ));
    }
    assert_agree(missed);
}

/// A receive that hands out `a::M` or `b::M` (unit payloads, one short
/// name: the acts of the two orders are equal) by whether the channel is
/// empty after it. Only the received message's full type path tells the
/// two orders of r0's second send and r1's first receive apart.
#[test]
fn a_receive_that_changes_the_type_path_by_state_keeps_the_pair_ordered() {
    let mut missed = Vec::new();
    for (how, bad) in takes_and([None, Some("a::M"), Some("b::M")]) {
        missed.extend(disagreements(
            &Chan::new(3, Kind::Retype),
            move |r| {
                r.spawn("r0", |mut ep| {
                    for _ in 0..2 {
                        ep.send("r1", Message::named("M", ())).unwrap();
                    }
                });
                r.spawn("r2", |_ep| {});
                r.spawn("r1", move |mut ep| {
                    let first = take(&mut ep, how).type_path().to_string();
                    take(&mut ep, how);
                    refuse(&first.as_str(), bad, "the first type path");
                    first
                })
            },
            &BOUNDS,
            None,
        ));
    }
    assert_agree(missed);
}

/// r0 sends two stamped messages and closes; r1 takes messages until the
/// channel is closed and empty, which the object tells honestly: the
/// close, the end of the channel and the stamps (1 or 0 on the first)
/// must all be found in every order plain search finds them.
#[test]
fn a_close_after_the_pair_keeps_every_stamp_and_the_end_of_the_channel() {
    let missed = disagreements(
        &Chan::new(2, Kind::Stamp),
        |r| {
            r.spawn("r0", |mut ep| {
                ep.send("r1", Cell::new(9u32)).unwrap();
                ep.send("r1", Cell::new(9u32)).unwrap();
                ep.close("r1").unwrap();
            });
            r.spawn("r1", |mut ep| {
                let mut stamps = Vec::new();
                while let Ok(m) = ep.recv_from("r0") {
                    stamps.push(m.downcast_ref::<Cell<u32>>().unwrap().get());
                }
                stamps
            })
        },
        &BOUNDS,
        None,
    );
    assert_agree(missed);
}

/// Async roles: r1's task awaits a select over r0 and r2 (the explored
/// select of a task), r0's task sends two stamped messages and r2's one
/// plain message; which alternative wins and the stamp r1 reads must
/// be found as plain search finds them.
#[test]
fn an_async_select_keeps_the_stamp_of_the_pair() {
    let missed = disagreements(
        &Chan::new(3, Kind::Stamp),
        |r| {
            r.spawn_async("r0", |mut ep| async move {
                aio::send(&mut ep, "r1", Cell::new(3u32)).await.unwrap();
                aio::send(&mut ep, "r1", Cell::new(3u32)).await.unwrap();
            });
            r.spawn_async("r2", |mut ep| async move {
                aio::send(&mut ep, "r1", Message::named("M", 8u32))
                    .await
                    .unwrap();
            });
            r.spawn_async("r1", |mut ep| async move {
                let alts = [Alternative::sender(0), Alternative::sender(2)];
                let mut seen = Vec::new();
                for _ in 0..3 {
                    let done = aio::Op::new(&mut ep, AsyncOp::select(&alts)).await;
                    let Ok(Done::Selected(i, m)) = done else {
                        panic!("{done:?}")
                    };
                    let stamp = m.downcast_ref::<Cell<u32>>().map(Cell::get);
                    seen.push((i, stamp));
                }
                seen
            })
        },
        &BOUNDS,
        None,
    );
    assert_agree(missed);
}

/// The finer rule where it is right: a FIFO channel with payloads of
/// every kind, received from anyone by r1 while r2 also sends. The
/// reductions must find every order in which r1 sees the two senders'
/// messages (the send-receive pairs of one channel commute here, those
/// of a receive from anyone and another sender's send do not).
#[test]
fn a_fifo_channel_with_a_receive_from_anyone_loses_no_interleaving() {
    let missed = disagreements(
        &Chan::new(3, Kind::Fifo),
        |r| {
            r.spawn("r0", |mut ep| {
                ep.send("r1", payload("Blue")).unwrap();
                ep.send("r1", payload("u32")).unwrap();
                ep.send("r1", payload("()")).unwrap();
            });
            r.spawn("r2", |mut ep| {
                ep.send("r1", payload("Green")).unwrap();
            });
            r.spawn("r1", |mut ep| {
                let got: Vec<(RoleId, &str)> = (0..4)
                    .map(|_| {
                        let (from, m) = ep.recv().unwrap();
                        (from, what(&m))
                    })
                    .collect();
                got
            })
        },
        &BOUNDS,
        None,
    );
    assert_agree(missed);
}
