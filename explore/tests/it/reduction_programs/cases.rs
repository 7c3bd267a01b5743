//! The random cases of [`super`]: a specification, a run of its strict
//! object projected on each role, and the projections mutated.

use proptest::prelude::*;
use prust::spec::{alt, call, close, end, msg, par, seq, sync, Spec, Term};
use prust::{Message, Protocol, Strict};

pub(crate) const NAMES: [&str; 4] = ["a", "b", "c", "d"];
pub(crate) const TYPES: [&str; 2] = ["T", "U"];

/// One communication, a close, or nothing.
pub(crate) fn leaf(roles: usize) -> impl Strategy<Value = Term> {
    let pair = (0..roles, 1..roles).prop_map(move |(p, d)| (NAMES[p], NAMES[(p + d) % roles]));
    prop_oneof![
        4 => (pair.clone(), 0..2usize).prop_map(|((p, q), t)| msg(TYPES[t], p, q)),
        2 => (pair.clone(), 0..2usize).prop_map(|((p, q), t)| sync(TYPES[t], p, q)),
        1 => pair.prop_map(|(p, q)| close(p, q)),
        1 => Just(end()),
    ]
}

/// Small terms: every construct but repetition, which would give the
/// plain search more executions than it can run to compare against.
pub(crate) fn term(roles: usize) -> impl Strategy<Value = Term> {
    leaf(roles).prop_recursive(3, 14, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 2..4).prop_map(seq),
            prop::collection::vec(inner.clone(), 2..3).prop_map(alt),
            prop::collection::vec(inner, 2..3).prop_map(par),
        ]
    })
}

/// A specification over `a`, `b` (and `c`): mostly parallel parts (the
/// races a reduction must not lose are between them), possibly after a
/// recursive definition with two parameters that picks, until both are
/// used, which of two guarded branches comes next (the shape of a
/// producers/consumer protocol whose order is not fixed).
fn spec() -> impl Strategy<Value = (Spec, usize, Option<(Term, Term)>)> {
    (2usize..=4)
        .prop_flat_map(|roles| {
            let main = prop_oneof![
                3 => prop::collection::vec(term(roles), 2..4).prop_map(par),
                1 => prop::collection::vec(term(roles), 2..3).prop_map(seq),
                1 => term(roles),
            ];
            (
                Just(roles),
                main,
                prop::option::weighted(0.3, (leaf(roles), leaf(roles))),
            )
        })
        .prop_map(|(roles, main, branches)| (spec_of(main, branches.clone()), roles, branches))
}

/// The specification `main`, after the two guarded `branches` (if any)
/// of a recursive definition (see [`spec`]).
pub(crate) fn spec_of(main: Term, branches: Option<(Term, Term)>) -> Spec {
    match branches {
        None => Spec::new("random", main),
        Some((x, y)) => {
            let body = move |v: &[usize]| {
                let mut b = vec![];
                if v[0] == 0 {
                    b.push(x.clone().then(call("s", [1, v[1]])));
                }
                if v[1] == 0 {
                    b.push(y.clone().then(call("s", [v[0], 1])));
                }
                if b.is_empty() {
                    end()
                } else {
                    alt(b)
                }
            };
            Spec::new("random", seq([call("s", [0, 0]), main])).define("s", 2, body)
        }
    }
}

/// One operation of a role program.
#[derive(Clone, Debug)]
pub(crate) enum Op {
    Send(usize, usize),
    RecvFrom(usize),
    /// A receive from anyone.
    Recv,
    /// A receive from anyone that asserts who sent.
    RecvAssert(usize),
    Close(usize),
    Panic,
    /// `choose(2)`, then one of the two programs.
    Choose(Vec<Op>, Vec<Op>),
}

/// A role's part of a run, as operations.
fn project(run: &[Act], role: usize) -> Vec<Op> {
    run.iter()
        .filter(|a| a.role == role)
        .map(|a| match a.kind {
            Kind::Send(to, ty) => Op::Send(to, ty),
            Kind::Recv(from) => Op::RecvFrom(from),
            Kind::Close(to) => Op::Close(to),
        })
        .collect()
}

#[derive(Clone, Copy, Debug)]
enum Kind {
    Send(usize, usize),
    Recv(usize),
    Close(usize),
}

#[derive(Clone, Copy, Debug)]
struct Act {
    role: usize,
    kind: Kind,
}

/// Every action the object accepts now (by the role names `names`, in
/// the object's numbering), each with the object after it.
fn accepted<P: Protocol>(obj: &P, roles: usize) -> Vec<(Act, P)> {
    let mut out = Vec::new();
    for role in 0..roles {
        for peer in (0..roles).filter(|&p| p != role) {
            for (ty, name) in TYPES.iter().enumerate() {
                let mut o = obj.clone();
                if o.try_send(role, peer, Message::named(name, 0)).is_ok() {
                    out.push((
                        Act {
                            role,
                            kind: Kind::Send(peer, ty),
                        },
                        o,
                    ));
                }
            }
            let mut o = obj.clone();
            if o.try_recv(role, Some(peer)).is_ok() {
                out.push((
                    Act {
                        role,
                        kind: Kind::Recv(peer),
                    },
                    o,
                ));
            }
            let mut o = obj.clone();
            if o.try_close(role, peer).is_ok() {
                out.push((
                    Act {
                        role,
                        kind: Kind::Close(peer),
                    },
                    o,
                ));
            }
        }
    }
    out
}

/// A run of the object, at most 12 actions, each picked by the next of
/// `picks`.
fn walk<P: Protocol>(obj: &P, roles: usize, picks: &[usize]) -> Vec<Act> {
    let mut obj = obj.clone();
    let mut run = Vec::new();
    for &p in picks {
        let mut next = accepted(&obj, roles);
        if next.is_empty() {
            break;
        }
        let (act, o) = next.swap_remove(p % next.len());
        run.push(act);
        obj = o;
    }
    run
}

/// How one role's projection is changed.
#[derive(Clone, Debug)]
pub(crate) struct Mutation {
    /// 0: none; 1: drop an operation; 2: add one; 3: receives from
    /// anyone; 4: a receive asserts its sender; 5: a close; 6: a panic;
    /// 7: choose between this run's projection and another's.
    pub(crate) kind: usize,
    pub(crate) at: usize,
    pub(crate) peer: usize,
    pub(crate) ty: usize,
}

fn mutation() -> impl Strategy<Value = Mutation> {
    (
        prop_oneof![6 => Just(0usize), 7 => 1usize..8],
        0..8usize,
        0..4usize,
        0..2usize,
    )
        .prop_map(|(kind, at, peer, ty)| Mutation { kind, at, peer, ty })
}

/// `ops` changed by `m`; `other` is the role's part of another run.
fn mutate(mut ops: Vec<Op>, other: Vec<Op>, m: &Mutation, role: usize, roles: usize) -> Vec<Op> {
    let peer = if m.peer % roles == role {
        (role + 1) % roles
    } else {
        m.peer % roles
    };
    let at = if ops.is_empty() { 0 } else { m.at % ops.len() };
    match m.kind {
        1 if !ops.is_empty() => {
            ops.remove(at);
        }
        2 => {
            let extra = match m.ty {
                0 => Op::Send(peer, m.at % 2),
                _ => Op::RecvFrom(peer),
            };
            ops.insert(at.min(ops.len()), extra);
        }
        3 => {
            for op in &mut ops {
                if matches!(op, Op::RecvFrom(_)) {
                    *op = Op::Recv;
                }
            }
        }
        4 => {
            if let Some(op) = ops.iter_mut().find(|o| matches!(o, Op::RecvFrom(_))) {
                if let Op::RecvFrom(from) = *op {
                    *op = Op::RecvAssert(from);
                }
            }
        }
        5 => ops.insert(at.min(ops.len()), Op::Close(peer)),
        6 => ops.insert(at.min(ops.len()), Op::Panic),
        7 => ops = vec![Op::Choose(ops, other)],
        _ => {}
    }
    ops
}

/// A random program over a random specification: the spec, its role
/// declaration (`None`: roles numbered in order of first use), and each
/// role's operations (by name).
#[derive(Clone, Debug)]
// `branches` and `declared` are read by `Debug` only: they make a failing
// case's report complete.
#[allow(dead_code)]
pub(crate) struct Case {
    pub(crate) spec: Spec,
    /// The two guarded branches of the definition `s`, if the spec has it
    /// (its body is a closure, which `Spec`'s `Debug` cannot show).
    branches: Option<(Term, Term)>,
    declared: Option<Vec<&'static str>>,
    pub(crate) programs: Vec<(&'static str, Vec<Op>)>,
}

pub(crate) fn case() -> impl Strategy<Value = Case> {
    (
        spec(),
        prop::collection::vec(0..16usize, 12),
        prop::collection::vec(0..16usize, 12),
        prop::collection::vec(mutation(), 4),
        prop::option::weighted(0.8, Just(vec![0usize, 1, 2, 3]).prop_shuffle()),
    )
        .prop_filter_map(
            "the spec compiles to a small object",
            |((spec, roles, branches), picks, other_picks, mutations, order)| {
                build_case(
                    spec,
                    roles,
                    branches,
                    order,
                    [&picks, &other_picks],
                    &mutations,
                )
            },
        )
}

/// The case of `spec` over `roles` roles (declared in the order `order`
/// of all four, those used, or not declared): each role's part of the
/// run that `picks[0]` walks, changed by its mutation, which may bring
/// in its part of the run that `picks[1]` walks. `None` if the spec does
/// not compile to a small object over exactly `roles` roles.
pub(crate) fn build_case(
    spec: Spec,
    roles: usize,
    branches: Option<(Term, Term)>,
    order: Option<Vec<usize>>,
    picks: [&[usize]; 2],
    mutations: &[Mutation],
) -> Option<Case> {
    // A random order of the roles (of all four, those used).
    let declared: Option<Vec<&'static str>> = order.map(|order| {
        order
            .into_iter()
            .filter(|&r| r < roles)
            .map(|r| NAMES[r])
            .collect()
    });
    let spec = match &declared {
        Some(names) => spec.roles(names.iter().copied()),
        None => spec,
    };
    spec.compile_bounded(2_000).ok()?;
    let object = Strict::from_spec(&spec).ok()?;
    let names = object.roles();
    if names.len() != roles {
        return None;
    }
    let run = walk(&object, roles, picks[0]);
    let other = walk(&object, roles, picks[1]);
    let programs = (0..roles)
        .map(|r| {
            let name = NAMES[NAMES.iter().position(|n| *n == names[r]).unwrap()];
            let ops = mutate(
                project(&run, r),
                project(&other, r),
                &mutations[r],
                r,
                roles,
            );
            (name, ops)
        })
        .collect();
    Some(Case {
        spec,
        branches,
        declared,
        programs,
    })
}

/// A case written out by hand: `spec` (roles declared in it or not) and
/// each role's operations.
pub(crate) fn fixed_case(spec: Spec, programs: Vec<(&'static str, Vec<Op>)>) -> Case {
    Case {
        spec,
        branches: None,
        declared: None,
        programs,
    }
}
