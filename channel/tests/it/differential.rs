//! The typed layer adds no behaviour of its own: random small programs
//! written over typed ends, and the same programs written over the raw
//! endpoint operations that the typed ends document (a receive of a type
//! that is all its channel carries is `recv_from`, otherwise a one-way
//! typed `select`; an end of a type the channel never carries ends the
//! role; the last sender's drop closes where the protocol closes),
//! explore to the same outcome: the same failures, the same number of
//! executions, on the strict and the liberal object.

use std::collections::btree_map::Entry;
use std::collections::{BTreeMap, BTreeSet};

use channel::{Ends, Sender};
use engine::{Message, Protocol};
use proptest::prelude::*;
use protocols::session::{Alternative, BlockingEndpoint};
use protocols::spec::{alt, close, msg, par, seq, Spec, Term};
use protocols::{Liberal, Object, Strict};
use prust_explore::{Exploration, Explorer};

const NAMES: [&str; 3] = ["a", "b", "c"];
const TYPES: [&str; 2] = ["T", "U"];

#[derive(Clone, Debug)]
struct T(#[allow(dead_code)] usize);
#[derive(Clone, Debug)]
struct U(#[allow(dead_code)] usize);

/// One operation of a role program (peers and types by number).
#[derive(Clone, Debug)]
enum Op {
    Send(usize, usize),
    Recv(usize, usize),
    Close(usize),
}

fn leaf(roles: usize) -> impl Strategy<Value = Term> {
    let pair = (0..roles, 1..roles).prop_map(move |(p, d)| (NAMES[p], NAMES[(p + d) % roles]));
    prop_oneof![
        4 => (pair.clone(), 0..2usize).prop_map(|((p, q), t)| msg(TYPES[t], p, q)),
        1 => pair.prop_map(|(p, q)| close(p, q)),
    ]
}

fn term(roles: usize) -> impl Strategy<Value = Term> {
    leaf(roles).prop_recursive(2, 8, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 2..4).prop_map(seq),
            prop::collection::vec(inner.clone(), 2..3).prop_map(alt),
            prop::collection::vec(inner, 2..3).prop_map(par),
        ]
    })
}

/// A run of `object`: at most 8 actions, each picked by the next pick.
fn walk(object: &Strict, roles: usize, picks: &[usize]) -> Vec<(usize, Op)> {
    let mut obj = object.clone();
    let mut run = Vec::new();
    for &pick in picks {
        let mut next = Vec::new();
        for role in 0..roles {
            for peer in (0..roles).filter(|&p| p != role) {
                for (ty, name) in TYPES.iter().enumerate() {
                    let mut o = obj.clone();
                    if o.try_send(role, peer, Message::named(name, 0)).is_ok() {
                        next.push(((role, Op::Send(peer, ty)), o));
                    }
                }
                let mut o = obj.clone();
                if let Ok((_, m)) = o.try_recv(role, Some(peer)) {
                    let ty = TYPES.iter().position(|t| *t == m.type_name()).unwrap();
                    next.push(((role, Op::Recv(peer, ty)), o));
                }
                let mut o = obj.clone();
                if o.try_close(role, peer).is_ok() {
                    next.push(((role, Op::Close(peer)), o));
                }
            }
        }
        if next.is_empty() {
            break;
        }
        let (act, o) = next.swap_remove(pick % next.len());
        run.push(act);
        obj = o;
    }
    run
}

#[derive(Clone, Debug)]
struct Case {
    spec: Spec,
    programs: Vec<Vec<Op>>,
}

fn case() -> impl Strategy<Value = Case> {
    (2usize..=3)
        .prop_flat_map(|roles| {
            (
                Just(roles),
                prop::collection::vec(term(roles), 1..3).prop_map(par),
                prop::collection::vec(0..16usize, 8),
                // Per role: 0 keeps its part of the run, 1 drops an
                // operation, 2 swaps a receive's type, 3 adds a close.
                prop::collection::vec((0..4usize, 0..8usize), 3),
            )
        })
        .prop_filter_map(
            "the spec compiles to a small object",
            |(roles, main, picks, mutations)| {
                let spec = Spec::new("random", main).roles(NAMES[..roles].iter().copied());
                spec.compile_bounded(500).ok()?;
                let object = Strict::from_spec(&spec).ok()?;
                let run = walk(&object, roles, &picks);
                let programs = (0..roles)
                    .map(|r| {
                        let mut ops: Vec<Op> = run
                            .iter()
                            .filter(|(who, _)| *who == r)
                            .map(|(_, op)| op.clone())
                            .collect();
                        let (kind, at) = mutations[r];
                        let at = at % (ops.len() + 1);
                        match kind {
                            1 if at < ops.len() => {
                                ops.remove(at);
                            }
                            2 => {
                                if let Some(Op::Recv(_, ty)) = ops.get_mut(at) {
                                    *ty = 1 - *ty;
                                }
                            }
                            3 => ops.insert(at, Op::Close((r + 1 + at % 2) % roles)),
                            _ => {}
                        }
                        ops
                    })
                    .collect();
                Some(Case { spec, programs })
            },
        )
}

/// The program over typed ends; stops at the first error.
fn typed<E: BlockingEndpoint + 'static>(ends: Ends<E>, ops: &[Op]) {
    let mut tx_t: BTreeMap<usize, Sender<T>> = BTreeMap::new();
    let mut tx_u: BTreeMap<usize, Sender<U>> = BTreeMap::new();
    let _ = typed_ops(&ends, ops, &mut tx_t, &mut tx_u);
    // The senders go in peer order (the raw version closes in that order).
    let peers: BTreeSet<usize> = tx_t.keys().chain(tx_u.keys()).copied().collect();
    for p in peers {
        drop(tx_t.remove(&p));
        drop(tx_u.remove(&p));
    }
}

fn typed_ops<E>(
    ends: &Ends<E>,
    ops: &[Op],
    tx_t: &mut BTreeMap<usize, Sender<T>>,
    tx_u: &mut BTreeMap<usize, Sender<U>>,
) -> Option<()> {
    for (k, op) in ops.iter().enumerate() {
        match *op {
            Op::Send(to, 0) => {
                let tx = match tx_t.entry(to) {
                    Entry::Occupied(e) => e.into_mut(),
                    Entry::Vacant(e) => e.insert(ends.sender::<T>(to).ok()?),
                };
                tx.send(T(k)).ok()?;
            }
            Op::Send(to, _) => {
                let tx = match tx_u.entry(to) {
                    Entry::Occupied(e) => e.into_mut(),
                    Entry::Vacant(e) => e.insert(ends.sender::<U>(to).ok()?),
                };
                tx.send(U(k)).ok()?;
            }
            Op::Recv(from, 0) => {
                ends.receiver::<T>(from).ok()?.recv().ok()?;
            }
            Op::Recv(from, _) => {
                ends.receiver::<U>(from).ok()?.recv().ok()?;
            }
            Op::Close(to) => ends.sender::<Message>(to).ok()?.close().ok()?,
        }
    }
    Some(())
}

/// The same program over the raw endpoint, as the typed ends document it.
fn raw<E: BlockingEndpoint>(mut ep: E, ops: &[Op]) {
    let me = ep.role();
    let mut senders = BTreeSet::new();
    let mut done = BTreeSet::new();
    let _ = raw_ops(&mut ep, ops, &mut senders, &mut done);
    for p in senders {
        if !done.contains(&p) && ep.may_close(me, p) == Some(true) {
            let _ = ep.close(p);
        }
    }
}

fn raw_ops<E: BlockingEndpoint>(
    ep: &mut E,
    ops: &[Op],
    senders: &mut BTreeSet<usize>,
    done: &mut BTreeSet<usize>,
) -> Option<()> {
    let me = ep.role();
    for (k, op) in ops.iter().enumerate() {
        match *op {
            Op::Send(to, ty) => {
                if to == me || !ep.channel_types(me, to)?.iter().any(|t| t == TYPES[ty]) {
                    return None;
                }
                senders.insert(to);
                let sent = match ty {
                    0 => ep.send(to, T(k)),
                    _ => ep.send(to, U(k)),
                };
                sent.ok()?;
            }
            Op::Recv(from, ty) => {
                if from == me {
                    return None;
                }
                let carried = ep.channel_types(from, me)?;
                if !carried.iter().any(|t| t == TYPES[ty]) {
                    return None;
                }
                if carried.len() == 1 {
                    ep.recv_from(from).ok()?;
                } else {
                    ep.select(&[Alternative::sender(from).of_type(TYPES[ty])])
                        .ok()?;
                }
            }
            Op::Close(to) => {
                let usable =
                    !ep.channel_types(me, to)?.is_empty() || ep.may_close(me, to) == Some(true);
                if to == me || !usable {
                    return None;
                }
                done.insert(to);
                ep.close(to).ok()?;
            }
        }
    }
    Some(())
}

/// What an exploration found, as text: comparable across the two versions.
fn outcome(ex: &Exploration) -> (bool, Option<String>, usize, Vec<String>) {
    (
        ex.is_successful(),
        ex.incomplete_reason().map(str::to_string),
        ex.executions(),
        ex.failures()
            .iter()
            .map(|f| f.outcome.to_string())
            .collect(),
    )
}

fn agree(case: &Case) -> Result<(), TestCaseError> {
    let lts = case.spec.compile().unwrap();
    let explorer = Explorer::new().max_executions(300);
    for object in [
        Object::from(Strict::new(lts.clone())),
        Object::from(Liberal::new(lts.clone())),
    ] {
        let typed_ex = explorer.explore(object.clone(), |r| {
            for (role, ops) in case.programs.iter().enumerate() {
                let ops = ops.clone();
                r.spawn(NAMES[role], move |ep| typed(Ends::new(ep), &ops));
            }
        });
        let raw_ex = explorer.explore(object.clone(), |r| {
            for (role, ops) in case.programs.iter().enumerate() {
                let ops = ops.clone();
                r.spawn(NAMES[role], move |ep| raw(ep, &ops));
            }
        });
        prop_assert_eq!(outcome(&typed_ex), outcome(&raw_ex));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]
    #[test]
    fn typed_and_raw_programs_explore_alike(case in case()) {
        agree(&case)?;
    }
}
