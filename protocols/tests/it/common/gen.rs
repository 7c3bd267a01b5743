//! Random small specifications: roles `a`, `b`, `c`; types `T`, `U`;
//! every construct; a two-case recursive definition `X(i)`.

use proptest::prelude::*;
use protocols::spec::{alt, call, close, end, msg, par, seq, sync, Spec, Term};

const ROLES: [&str; 3] = ["a", "b", "c"];

fn leaf(calls: bool) -> impl Strategy<Value = Term> {
    let pair = (0..3usize, 1..3usize).prop_map(|(p, d)| (ROLES[p], ROLES[(p + d) % 3]));
    prop_oneof![
        4 => (pair.clone(), prop::bool::ANY).prop_map(|((p, q), t)| msg(if t { "T" } else { "U" }, p, q)),
        1 => (pair.clone(), prop::bool::ANY).prop_map(|((p, q), t)| sync(if t { "T" } else { "U" }, p, q)),
        1 => pair.prop_map(|(p, q)| close(p, q)),
        1 => Just(end()),
        if calls { 1 } else { 0 } => (0..2usize).prop_map(|i| call("X", [i])),
    ]
}

/// Terms; with calls of `X` anywhere if `calls`.
pub fn term(calls: bool) -> impl Strategy<Value = Term> {
    leaf(calls).prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 2..4).prop_map(seq),
            prop::collection::vec(inner.clone(), 0..3).prop_map(alt),
            prop::collection::vec(inner.clone(), 2..3).prop_map(par),
            inner.clone().prop_map(Term::star),
            inner.clone().prop_map(Term::plus),
            inner.prop_map(Term::opt),
        ]
    })
}

/// A guard (one communication or close) so that recursion is guarded.
fn guard() -> impl Strategy<Value = Term> {
    leaf(false).prop_filter("a guard does something", |t| {
        matches!(t, Term::Comm { .. } | Term::Close { .. })
    })
}

/// How a body ends: nothing, a tail call, or a choice of the two.
fn tail() -> impl Strategy<Value = Term> {
    prop_oneof![
        Just(end()),
        (0..2usize).prop_map(|j| call("X", [j])),
        (0..2usize).prop_map(|j| alt([call("X", [j]), end()])),
        (0..2usize, 0..2usize).prop_map(|(i, j)| alt([call("X", [i]), call("X", [j])])),
    ]
}

/// A main term that may call `X` anywhere, and the two bodies of `X(0)`,
/// `X(1)`: a guard, a term without calls, and a tail call (recursion in
/// tail position keeps the state space finite, as in every bundled
/// protocol; the main term still puts calls under `par`, `*` and so on).
pub fn spec() -> impl Strategy<Value = Spec> {
    let main = prop_oneof![
        prop::collection::vec(term(true), 2..4).prop_map(par),
        prop::collection::vec(term(true), 2..4).prop_map(seq),
        term(true),
    ];
    (
        main,
        guard(),
        term(false),
        tail(),
        guard(),
        term(false),
        tail(),
    )
        .prop_map(|(main, g0, r0, t0, g1, r1, t1)| {
            let bodies = [seq([g0, r0, t0]), seq([g1, r1, t1])];
            Spec::new("random", main).define("X", 1, move |a| bodies[a[0]].clone())
        })
}

/// The LTS of a random spec, or the case skipped if the spec has more than
/// 20,000 states: a random spec can have infinitely many (an asynchronous
/// send repeated while a parallel branch never receives fills its channel
/// without end), and compiling it must then stop at the bound. Any other
/// compile error fails the case.
pub fn compile_or_skip(spec: &Spec) -> Result<protocols::Lts, TestCaseError> {
    match spec.compile_bounded(20_000) {
        Ok(lts) => Ok(lts),
        Err(protocols::Error::StateBound { .. }) => Err(TestCaseError::reject(format!(
            "unbounded spec {:?}",
            spec.main()
        ))),
        Err(e) => Err(TestCaseError::fail(format!(
            "spec {:?} does not compile: {e}",
            spec.main()
        ))),
    }
}

/// The liberal object of `lts`, or the case skipped when its projection
/// is larger than a test should build. The bound is on states made, not
/// on time: a time limit would make which cases run depend on how loaded
/// the machine is (a recursive spec under `par` can project to thousands
/// of states, and took over the default minute on a busy machine).
pub fn liberal_or_skip(lts: protocols::Lts) -> Result<protocols::Liberal, TestCaseError> {
    let limits = engine::Limits::default()
        .max_states(2_000)
        .timeout(std::time::Duration::MAX);
    match protocols::Liberal::try_new_with(lts, &limits) {
        Ok(liberal) => Ok(liberal),
        Err(protocols::Error::StateBound { .. }) => Err(TestCaseError::reject(
            "liberal projection over 2,000 states",
        )),
        Err(e) => Err(TestCaseError::fail(format!("liberal projection: {e}"))),
    }
}
