//! A send and a receive on one channel that commute: the reductions run
//! one order of them, judged by where the messages came from (see
//! `same_channel` in the crate), and still miss no failure on objects
//! that hand out payloads in another order than they were sent.

use prust::explore::{Exploration, Explorer, Reduction, Roles};
use prust::session::BlockingEndpoint;
use prust::spec::{msg, par, seq, Spec};
use prust::{Liberal, Message, Protocol, RoleId};
use testkit::fan_in;
use testkit::mailbox::Mailbox;

use super::support::queues::{Policy, Queues, Tagged};

/// `producers` roles `p0`, `p1`, … each send `k` messages `M` to
/// `consumer`, interleaved freely (the liberal object, as testkit's
/// `fan_in`).
fn fan_in_object(producers: usize, k: usize) -> Liberal {
    let names: Vec<String> = (0..producers).map(|p| format!("p{p}")).collect();
    let spec = Spec::new(
        "fan-in",
        par(names
            .iter()
            .map(|p| seq((0..k).map(|_| msg("M", p.as_str(), "consumer"))))),
    )
    .roles(names.iter().map(String::as_str).chain(["consumer"]))
    .types(["M"]);
    Liberal::from_spec(&spec).expect("the fan-in specification compiles")
}

/// The same shape on testkit's hand-written mailbox (unbounded FIFO
/// channels, one per ordered pair, as the `explore_rate` bench's fan-in):
/// there, unlike in the liberal object's single inbox, the sends of two
/// producers commute.
fn fan_in_mailbox(producers: usize) -> Mailbox {
    const NAMES: [&[&str]; 3] = [
        &["p0", "consumer"],
        &["p0", "p1", "consumer"],
        &["p0", "p1", "p2", "consumer"],
    ];
    Mailbox::named(NAMES[producers - 1], None)
}

/// The producers send their `k` numbered messages; the consumer receives
/// from anyone and returns the senders in the order it received.
fn fan_in_program<P: Protocol>(
    producers: usize,
    k: usize,
) -> impl Fn(&mut Roles<'_, P>) -> prust::explore::Handle<Vec<RoleId>> + Sync {
    move |r| {
        for p in 0..producers {
            r.spawn(&format!("p{p}"), move |mut ep| {
                for i in 0..k {
                    ep.send("consumer", Message::named("M", i)).unwrap();
                }
            });
        }
        r.spawn("consumer", move |mut ep| {
            let mut order = Vec::new();
            let mut next = vec![0; producers];
            for _ in 0..producers * k {
                let (from, m) = ep.recv().unwrap();
                // Each producer's messages arrive in the order it sent them.
                assert_eq!(m.downcast_ref::<usize>(), Some(&next[from]));
                next[from] += 1;
                order.push(from);
            }
            order
        })
    }
}

/// n! / (k!^producers): the receive orders of a fan-in.
fn orders(producers: usize, k: usize) -> usize {
    let fact = |n: usize| (1..=n).product::<usize>();
    fact(producers * k) / fact(k).pow(producers as u32)
}

fn explore_fan_in(producers: usize, k: usize, reduction: Reduction) -> Exploration<Vec<RoleId>> {
    Explorer::new()
        .preemption_bound(None)
        .reduction(reduction)
        .explore(fan_in_mailbox(producers), fan_in_program(producers, k))
}

fn explore_liberal_fan_in(
    producers: usize,
    k: usize,
    reduction: Reduction,
) -> Exploration<Vec<RoleId>> {
    Explorer::new()
        .preemption_bound(None)
        .reduction(reduction)
        .explore(fan_in_object(producers, k), fan_in_program(producers, k))
}

/// DPOR runs one execution per receive order, each a distinct one: a
/// producer's next send commutes with the consumer's receive of its
/// earlier message (they run 516 executions for 2 × 3, and 222,291 for
/// 3 × 3, when every pair on one channel was dependent).
#[test]
fn dpor_runs_one_execution_per_receive_order_of_a_fan_in() {
    for (producers, k, expected) in [(2, 3, 20), (3, 2, 90), (3, 3, 1_680)] {
        assert_eq!(orders(producers, k), expected);
        let ex = explore_fan_in(producers, k, Reduction::Dpor);
        assert!(ex.is_complete() && ex.is_successful(), "{ex}");
        let results = ex.results();
        assert_eq!(
            (ex.executions(), results.len()),
            (expected, expected),
            "{producers} x {k}: {ex}"
        );
        assert!(results.iter().all(|r| r.count == 1), "{producers} x {k}");
    }
}

/// On the liberal object (one inbox a receiver, in arrival order) the
/// sends of two producers do not commute, but a send and the receive of
/// its producer's earlier message do: DPOR runs far fewer executions than
/// the 5,704 (2 × 3) and 38,250 (3 × 2) it ran when every pair on one
/// channel was dependent, and still sees every receive order.
#[test]
fn dpor_on_a_liberal_fan_in_runs_a_send_and_an_earlier_receive_once() {
    for (producers, k, within) in [(2, 3, 1_000), (3, 2, 10_000)] {
        let ex = explore_liberal_fan_in(producers, k, Reduction::Dpor);
        assert!(ex.is_complete() && ex.is_successful(), "{ex}");
        assert_eq!(ex.results().len(), orders(producers, k), "{ex}");
        assert!(ex.executions() <= within, "{producers} x {k}: {ex}");
    }
}

/// Sleep sets see the same commuting pairs, and every receive order.
#[test]
fn sleep_sets_see_every_receive_order_of_a_fan_in() {
    for (producers, k) in [(2, 3), (3, 2)] {
        let plain = explore_fan_in(producers, k, Reduction::None);
        let slept = explore_fan_in(producers, k, Reduction::SleepSets);
        assert!(slept.is_complete() && slept.is_successful(), "{slept}");
        assert_eq!(plain.results().len(), orders(producers, k));
        assert_eq!(slept.results().len(), orders(producers, k));
        assert!(
            slept.executions() < plain.executions(),
            "{producers} x {k}: {} vs {}",
            slept.executions(),
            plain.executions()
        );
    }
}

/// The buggy consumer of testkit's fan-in fails on one receive order of
/// 90: every reduction finds it.
#[test]
fn every_reduction_finds_the_one_bad_receive_order_of_a_fan_in() {
    for reduction in [Reduction::None, Reduction::SleepSets, Reduction::Dpor] {
        let ex = Explorer::new()
            .preemption_bound(None)
            .reduction(reduction)
            .explore(fan_in::object(), fan_in::program(true));
        assert_eq!(ex.failures().len(), 1, "{reduction}: {ex}");
        assert_eq!(ex.results().len(), fan_in::ORDERS - 1, "{reduction}: {ex}");
    }
}

/// r0 sends three `Tagged`s that print alike (`hidden` 1, 2, 3) to r1,
/// which receives three times (from r0, or from anyone with a third role
/// that sends nothing) and fails if it gets them as `bad`.
fn tagged_program(
    bad: [u32; 3],
    from_anyone: bool,
) -> impl Fn(&mut Roles<'_, Queues>) -> prust::explore::Handle<Vec<u32>> + Sync {
    move |r| {
        r.spawn("r0", |mut ep| {
            for hidden in [1u32, 2, 3] {
                let m = Message::named("M", Tagged { shown: 0, hidden });
                ep.send("r1", m).unwrap();
            }
        });
        if from_anyone {
            r.spawn("r2", |_ep| {});
        }
        r.spawn("r1", move |mut ep| {
            let got: Vec<u32> = (0..3)
                .map(|_| {
                    let m = if from_anyone {
                        ep.recv().unwrap().1
                    } else {
                        ep.recv_from("r0").unwrap()
                    };
                    m.downcast_ref::<Tagged>().unwrap().hidden
                })
                .collect();
            assert_ne!(got, bad, "received in the bad order");
            got
        })
    }
}

/// [`tagged_program`] on channels that keep their messages as `keep`
/// says (one of the policies that keep clones or boxes again).
fn explore_tagged(
    keep: Policy,
    bad: [u32; 3],
    from_anyone: bool,
    reduction: Reduction,
) -> Exploration<Vec<u32>> {
    let roles = if from_anyone { 3 } else { 2 };
    Explorer::new()
        .preemption_bound(None)
        .reduction(reduction)
        .explore(Queues::new(roles, keep), tagged_program(bad, from_anyone))
}

/// A LIFO channel that keeps clones of the payloads it is sent, which
/// print alike: the receive gets the newest message, so a send and a
/// receive on it do not commute although the objects are equal after
/// both orders, the same act is done and the payloads' `Debug` is the
/// same. Every receive order plain search finds, each reduction finds.
#[test]
fn a_lifo_channel_of_cloned_payloads_that_print_alike_keeps_its_orders() {
    let mut missed = Vec::new();
    for from_anyone in [false, true] {
        let plain = explore_tagged(Policy::LifoClones, [0; 3], from_anyone, Reduction::None);
        let mut seen: Vec<Vec<u32>> = plain.results().iter().map(|r| r.value.clone()).collect();
        seen.sort();
        assert!(seen.len() > 1, "{plain}");
        for bad in &seen {
            let bad: [u32; 3] = bad.clone().try_into().unwrap();
            for reduction in [Reduction::SleepSets, Reduction::Dpor] {
                let ex = explore_tagged(Policy::LifoClones, bad, from_anyone, reduction);
                if ex.failures().len() != 1 {
                    missed.push(format!("{reduction}, bad {bad:?}, any {from_anyone}: {ex}"));
                }
            }
        }
    }
    assert!(missed.is_empty(), "{}", missed.join("\n"));
}

/// On a FIFO channel of cloned payloads the pairs commute (the clones
/// keep their origin): DPOR runs one execution; on one that takes each
/// payload out and boxes it again they cannot be told to commute, and
/// DPOR runs every interleaving of the sends and receives, as before.
#[test]
fn fifo_clones_commute_and_payloads_boxed_again_do_not() {
    let count = |keep, reduction| {
        let ex = explore_tagged(keep, [0; 3], false, reduction);
        assert!(ex.is_complete() && ex.is_successful(), "{ex}");
        assert_eq!(ex.results().len(), 1);
        ex.executions()
    };
    let plain = count(Policy::FifoClones, Reduction::None);
    assert_eq!(count(Policy::FifoClones, Reduction::Dpor), 1);
    assert_eq!(count(Policy::FifoRebuilt, Reduction::Dpor), plain);
    // The five interleavings of three sends and three receives in which
    // no receive comes before its message is sent (Catalan 3).
    assert_eq!(plain, 5);
}
