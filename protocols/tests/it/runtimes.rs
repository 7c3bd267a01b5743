//! The strict and liberal objects of every bundled protocol, explored by
//! probing their try-operations the way the engine does:
//! - the strict object's traces are exactly the compiled LTS's;
//! - the liberal object agrees with the strict one on the properties
//!   listed at [`strict_and_liberal_agree`];
//! - refusals leave no trace, operations are deterministic (checked in
//!   `common::successors`).

use crate::common;

use std::collections::BTreeSet;

use engine::{Message, Protocol};
use protocols::StateId;
use protocols::{bundled, Liberal, Strict};

/// Instances small enough to explore to length `LEN` quickly.
fn instances() -> Vec<String> {
    bundled::list()
        .iter()
        .map(|p| common::small_instance(p, 3))
        .collect()
}

const LEN: usize = 10;

fn without_markers(t: BTreeSet<Vec<String>>) -> BTreeSet<Vec<String>> {
    t.into_iter()
        .map(|mut w| {
            if w.last().is_some_and(|l| l == "END" || l == "DEADLOCK") {
                w.pop();
            }
            w
        })
        .collect()
}

#[test]
fn strict_traces_are_the_lts_traces() {
    for name in instances() {
        let lts = bundled::by_name(&name).unwrap();
        let want: BTreeSet<Vec<String>> = common::lts_traces(&lts, LEN).into_keys().collect();
        let got = without_markers(common::traces(&Strict::new(lts), LEN));
        assert_eq!(got, want, "{name}");
    }
}

/// The role that performs a labelled action, and the channel.
fn actor(label: &str) -> (String, (String, String)) {
    let args: Vec<&str> = label[2..label.len() - 1].split(',').collect();
    let (actor, chan) = match &label[..1] {
        "C" => (args[0], (args[0], args[1])),
        "!" => (args[1], (args[1], args[2])),
        _ => (args[2], (args[1], args[2])),
    };
    (actor.to_string(), (chan.0.to_string(), chan.1.to_string()))
}

/// Whether `word` (the actions of `role` only) is a local behaviour of the
/// global LTS: a path exists when the other roles' actions are silent.
/// (An independent, naive subset simulation of the raw compiled LTS.)
fn local_behaviour(lts: &protocols::Lts, role: &str, word: &[&String]) -> bool {
    let r = lts.role_id(role).unwrap();
    let closure = |mut set: BTreeSet<StateId>| {
        let mut stack: Vec<StateId> = set.iter().copied().collect();
        while let Some(s) = stack.pop() {
            for (l, t) in lts.transitions(s) {
                if l.actor() != r && set.insert(*t) {
                    stack.push(*t);
                }
            }
        }
        set
    };
    let mut set = closure(BTreeSet::from([lts.initial()]));
    for label in word {
        let next: BTreeSet<StateId> = set
            .iter()
            .flat_map(|&s| {
                lts.transitions(s)
                    .iter()
                    .filter(|(l, _)| lts.label_text(&l.asynchronous()) == **label)
                    .map(|&(_, t)| t)
            })
            .collect();
        if next.is_empty() {
            return false;
        }
        set = closure(next);
    }
    true
}

/// Messages are received in the order sent on each channel, each once.
fn fifo(trace: &[String]) -> bool {
    let mut chans: std::collections::HashMap<(String, String), std::collections::VecDeque<String>> =
        Default::default();
    for l in trace.iter().filter(|l| *l != "END" && *l != "DEADLOCK") {
        let (_, chan) = actor(l);
        let ty = l[2..].split(',').next().unwrap().to_string();
        match &l[..1] {
            "!" => chans.entry(chan).or_default().push_back(ty),
            "?" if chans.entry(chan).or_default().pop_front() != Some(ty) => return false,
            _ => {}
        }
    }
    true
}

/// The properties on which the strict and liberal objects of every bundled
/// protocol agree. The liberal object is *more* permissive by design: a
/// role acts on its own knowledge, so a master may send its next work item
/// before the previous one has been received (the buffering that makes
/// liberal objects fast). So the trace sets are not equal; what holds is:
///
/// 1. every strict trace is a liberal trace (up to `LEN`);
/// 2. in every liberal trace, each role's own actions form a local
///    behaviour of the global protocol (a role never does anything the
///    protocol does not allow it);
/// 3. messages arrive in FIFO order per channel, each once;
/// 4. both objects are deadlock-free, and can terminate iff the other can.
///
/// Deliberate exceptions, where the global choice is not made by one role:
/// `rock-paper-scissors` (the liberal object can deadlock, see
/// `liberal_differs.rs`; 1–3 still hold) and `tic-tac-toe` (both players
/// may begin at once; 1–4 hold).
#[test]
fn strict_and_liberal_agree() {
    for name in instances() {
        let lts = bundled::by_name(&name).unwrap();
        let (strict, liberal) = (Strict::new(lts.clone()), Liberal::new(lts.clone()));
        let st = common::traces(&strict, LEN);
        let lt = common::traces(&liberal, LEN);
        let missing: Vec<_> = without_markers(st.clone())
            .difference(&without_markers(lt.clone()))
            .take(3)
            .cloned()
            .collect();
        assert!(
            missing.is_empty(),
            "{name}: strict traces the liberal object lacks: {missing:?}"
        );
        for t in &lt {
            assert!(fifo(t), "{name}: {t:?}");
            for role in lts.roles() {
                let own: Vec<&String> = t
                    .iter()
                    .filter(|l| *l != "END" && *l != "DEADLOCK" && actor(l).0 == *role)
                    .collect();
                assert!(
                    local_behaviour(&lts, role, &own),
                    "{name}: {role} does {own:?} in {t:?}"
                );
            }
        }
        let (sn, sd) = common::reachable(&strict, 200_000);
        let (ln, ld) = common::reachable(&liberal, 200_000);
        assert!(
            sn < 200_000 && ln < 200_000,
            "{name}: explored only part of the state space"
        );
        assert!(sd.is_none(), "{name}");
        if name.starts_with("rock-paper-scissors") {
            assert!(
                ld.is_some(),
                "{name}: the liberal object was expected to deadlock"
            );
        } else {
            assert!(ld.is_none(), "{name}: liberal deadlock {ld:?}");
        }
        assert_eq!(
            common::can_end(&strict, 200_000),
            common::can_end(&liberal, 200_000),
            "{name}"
        );
    }
}

#[test]
fn no_deadlock_in_any_strict_object() {
    for name in instances() {
        let (n, deadlock) =
            common::reachable(&Strict::new(bundled::by_name(&name).unwrap()), 200_000);
        assert!(n < 200_000, "{name}");
        assert!(deadlock.is_none(), "{name}: {deadlock:?}");
    }
}

#[test]
fn terminating_protocols_terminate() {
    for name in [
        "two-buyer",
        "load-balancer",
        "npb-cg:2",
        "npb-ft:1",
        "npb-mg:1",
        "go-fish:2",
    ] {
        let lts = bundled::by_name(name).unwrap();
        assert!(
            common::can_end(&Strict::new(lts.clone()), 100_000),
            "{name}"
        );
        assert!(common::can_end(&Liberal::new(lts), 100_000), "{name}");
    }
    for name in ["chess", "tic-tac-toe", "token-star:3", "ring-buffered:3"] {
        let lts = bundled::by_name(name).unwrap();
        assert!(
            !common::can_end(&Strict::new(lts.clone()), 100_000),
            "{name}"
        );
    }
}

#[test]
fn messages_go_by_type_and_payloads_arrive() {
    let mut p = protocols::two_buyer::spec().liberal().unwrap();
    let (b1, b2, seller) = (0, 1, 2);
    assert!(
        p.try_send(b1, seller, Message::named("Quote", 1)).is_err(),
        "wrong type"
    );
    p.try_send(b1, seller, Message::named("Title", "Dune"))
        .unwrap();
    let (from, m) = p.try_recv(seller, None).unwrap();
    assert_eq!((from, m.downcast_ref::<&str>()), (b1, Some(&"Dune")));
    p.try_send(seller, b2, Message::named("Quote", 20)).unwrap();
    p.try_send(seller, b1, Message::named("Quote", 30)).unwrap();
    // buyer2 may not decide before the contribution
    assert!(p
        .try_send(b2, seller, Message::named("Decision", true))
        .is_err());
    assert!(p.try_recv(b2, Some(b1)).is_err());
    let (_, q) = p.try_recv(b2, None).unwrap();
    assert_eq!(q.downcast_ref::<i32>(), Some(&20));
    assert!(!p.is_terminated());
}

#[test]
fn out_of_range_roles_are_refused_not_panics() {
    let mut s = protocols::chess::strict();
    let mut l = protocols::chess::spec().liberal().unwrap();
    let m = || Message::named("Move", ());
    assert!(s.try_send(0, 9, m()).is_err() && l.try_send(0, 9, m()).is_err());
    assert!(s.try_send(9, 0, m()).is_err() && l.try_send(9, 0, m()).is_err());
    assert!(s.try_send(0, 0, m()).is_err() && l.try_send(0, 0, m()).is_err());
    assert!(s.try_recv(9, None).is_err() && l.try_recv(9, None).is_err());
    assert!(s.try_close(9, 0).is_err() && l.try_close(9, 0).is_err());
}

#[test]
fn liberal_roles_run_without_the_object() {
    // the per-role step functions the blocking API uses, on their own
    let (mut roles, mut inboxes) = protocols::chess::spec().liberal().unwrap().split();
    let (white, black) = roles.split_at_mut(1);
    let (white, black) = (&mut white[0], &mut black[0]);
    white
        .try_send(1, Message::named("Move", "e4"), &mut inboxes[1])
        .unwrap();
    assert!(white
        .try_send(1, Message::named("Move", "d4"), &mut inboxes[1])
        .is_err());
    let (from, m) = black.try_recv(None, &mut inboxes[1]).unwrap();
    assert_eq!((from, m.downcast::<&str>().unwrap()), (0, "e4"));
    black
        .try_send(0, Message::named("Move", "e5"), &mut inboxes[0])
        .unwrap();
    assert_eq!(inboxes[0].len(), 1);
    assert!(white.try_recv(Some(1), &mut inboxes[0]).is_ok());
}

mod random {
    use super::common;
    use proptest::prelude::*;
    use protocols::{Liberal, Strict};

    proptest! {
        #![proptest_config(ProptestConfig { cases: 100, ..ProptestConfig::default() })]

        /// On random specifications: the liberal object can follow every
        /// run of the strict one, and in every liberal run each role does
        /// only what the global protocol allows it, with FIFO delivery
        /// (explored up to 400 product states: liberal objects of
        /// one-sided loops have unbounded inboxes).
        #[test]
        fn liberal_is_a_faithful_relaxation(spec in common::gen::spec()) {
            let lts = common::gen::compile_or_skip(&spec)?;
            prop_assume!(lts.num_states() <= 200, "kept small: liberal state spaces grow fast");
            let (s, l) = (Strict::new(lts.clone()), Liberal::new(lts.clone()));
            let r = common::followed_by(&s, &l, 400);
            prop_assert!(r.is_ok(), "{:?}: the liberal object cannot follow {:?}", spec.main(), r);
            let r = common::locally_faithful(&l, &lts, 400);
            prop_assert!(r.is_ok(), "{:?}: unfaithful liberal run {:?}", spec.main(), r);
        }
    }
}
