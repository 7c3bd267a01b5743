//! Shared test helpers: a random formula strategy and an obviously-correct
//! evaluator of LTL on ultimately periodic words.
#![allow(dead_code)]

use std::collections::HashMap;

use owl_lite::{Kind, Ltl};
use proptest::prelude::*;

fn leaf(atoms: &'static [&'static str]) -> BoxedStrategy<Ltl> {
    prop_oneof![
        1 => Just(Ltl::tt()),
        1 => Just(Ltl::ff()),
        12 => proptest::sample::select(atoms).prop_map(Ltl::atom),
    ]
    .boxed()
}

/// One operator (any of the 13) applied to `deep` and, for binary
/// operators, `side` (on a random side).
fn layer(deep: BoxedStrategy<Ltl>, side: BoxedStrategy<Ltl>) -> BoxedStrategy<Ltl> {
    let pair = (deep.clone(), side, any::<bool>())
        .prop_map(|(d, s, swap)| if swap { (s, d) } else { (d, s) });
    prop_oneof![
        deep.clone().prop_map(|f| f.not()),
        deep.clone().prop_map(Ltl::next),
        deep.clone().prop_map(Ltl::finally),
        deep.prop_map(Ltl::globally),
        pair.clone().prop_map(|(a, b)| Ltl::and([a, b])),
        pair.clone().prop_map(|(a, b)| Ltl::or([a, b])),
        pair.clone().prop_map(|(a, b)| Ltl::implies(a, b)),
        pair.clone().prop_map(|(a, b)| Ltl::equiv(a, b)),
        pair.clone().prop_map(|(a, b)| Ltl::xor(a, b)),
        pair.clone().prop_map(|(a, b)| Ltl::until(a, b)),
        pair.clone().prop_map(|(a, b)| Ltl::weak_until(a, b)),
        pair.clone().prop_map(|(a, b)| Ltl::release(a, b)),
        pair.prop_map(|(a, b)| Ltl::strong_release(a, b)),
    ]
    .boxed()
}

/// Random formulas over `atoms` with every operator and constant, of
/// height `depth + 1` (a chain of `depth` operators from the root to a
/// leaf; side operands of binary operators have height at most 3, to keep
/// formulas small enough to translate quickly).
pub fn formula(atoms: &'static [&'static str], depth: u32) -> BoxedStrategy<Ltl> {
    let small = prop_oneof![leaf(atoms), layer(leaf(atoms), leaf(atoms))].boxed();
    let side = prop_oneof![small.clone(), layer(small.clone(), leaf(atoms))].boxed();
    let mut s = leaf(atoms);
    for _ in 0..depth {
        s = layer(s, side.clone());
    }
    s
}

fn literal(atoms: &'static [&'static str]) -> BoxedStrategy<Ltl> {
    (proptest::sample::select(atoms), any::<bool>())
        .prop_map(|(a, neg)| {
            if neg {
                Ltl::atom(a).not()
            } else {
                Ltl::atom(a)
            }
        })
        .boxed()
}

/// Syntactic safety (`guarantee == false`) or guarantee formulas of height
/// up to `depth + 1`: literals under `X`, `&`, `|` and `G`, `W`, `R`
/// (safety) or `F`, `U`, `M` (guarantee).
fn one_sided(atoms: &'static [&'static str], depth: u32, guarantee: bool) -> BoxedStrategy<Ltl> {
    let mut s = literal(atoms);
    for _ in 0..depth {
        let pair = (s.clone(), prop_oneof![s.clone(), literal(atoms)]);
        s = if guarantee {
            prop_oneof![
                s.clone().prop_map(Ltl::next),
                s.clone().prop_map(Ltl::finally),
                pair.clone().prop_map(|(a, b)| Ltl::and([a, b])),
                pair.clone().prop_map(|(a, b)| Ltl::or([a, b])),
                pair.clone().prop_map(|(a, b)| Ltl::until(a, b)),
                pair.clone().prop_map(|(a, b)| Ltl::until(b, a)),
                pair.prop_map(|(a, b)| Ltl::strong_release(a, b)),
            ]
            .boxed()
        } else {
            prop_oneof![
                s.clone().prop_map(Ltl::next),
                s.clone().prop_map(Ltl::globally),
                pair.clone().prop_map(|(a, b)| Ltl::and([a, b])),
                pair.clone().prop_map(|(a, b)| Ltl::or([a, b])),
                pair.clone().prop_map(|(a, b)| Ltl::weak_until(a, b)),
                pair.clone().prop_map(|(a, b)| Ltl::weak_until(b, a)),
                pair.prop_map(|(a, b)| Ltl::release(a, b)),
            ]
            .boxed()
        };
    }
    s
}

/// Obligation formulas: Boolean combinations (and `X`) of safety and
/// guarantee formulas, the class whose automata the WDBA minimisation
/// replaces; one in four is a safety formula `U` a guarantee (`(G a) U b`),
/// an obligation outside the syntactic fragment, which only the language
/// check lets through.
pub fn obligation(atoms: &'static [&'static str], depth: u32) -> BoxedStrategy<Ltl> {
    let part = prop_oneof![
        one_sided(atoms, depth, false),
        one_sided(atoms, depth, true)
    ]
    .boxed();
    let pair = (part.clone(), part.clone());
    prop_oneof![
        pair.clone().prop_map(|(a, b)| Ltl::and([a, b])),
        pair.clone().prop_map(|(a, b)| Ltl::or([a, b])),
        pair.clone().prop_map(|(a, b)| Ltl::implies(a, b)),
        pair.clone().prop_map(|(a, b)| Ltl::equiv(a, b)),
        pair.clone().prop_map(|(a, b)| Ltl::xor(a, b)),
        part.clone().prop_map(|a| Ltl::next(a.not())),
        (
            one_sided(atoms, depth, false),
            one_sided(atoms, depth, true)
        )
            .prop_map(|(a, b)| Ltl::until(a, b)),
        (
            one_sided(atoms, depth, false),
            one_sided(atoms, depth, true)
        )
            .prop_map(|(a, b)| Ltl::until(a, b)),
    ]
    .boxed()
}

/// The truth value of `f` at every position `0..word.len()` of the lasso
/// whose positions are `word` and whose last position is followed by
/// position `loop_start`. Letters are valuations: bit `i` = `atoms[i]`.
///
/// Each temporal operator is its fixpoint characterisation, iterated until
/// stable: least fixpoints (`U`, `M`, `F`) from all-false, greatest
/// fixpoints (`W`, `R`, `G`) from all-true.
pub fn eval(f: &Ltl, atoms: &[String], word: &[u64], loop_start: usize) -> Vec<bool> {
    let mut memo = HashMap::new();
    eval_rec(f, atoms, word, loop_start, &mut memo)
}

fn eval_rec(
    f: &Ltl,
    atoms: &[String],
    word: &[u64],
    loop_start: usize,
    memo: &mut HashMap<Ltl, Vec<bool>>,
) -> Vec<bool> {
    if let Some(v) = memo.get(f) {
        return v.clone();
    }
    let n = word.len();
    let succ = |i: usize| if i + 1 < n { i + 1 } else { loop_start };
    let mut ev = |g: &Ltl| eval_rec(g, atoms, word, loop_start, memo);
    let fix = |init: bool, step: &dyn Fn(usize, &[bool]) -> bool| {
        let mut v = vec![init; n];
        loop {
            let next: Vec<bool> = (0..n).map(|i| step(i, &v)).collect();
            if next == v {
                return v;
            }
            v = next;
        }
    };
    let r: Vec<bool> = match f.kind() {
        Kind::True => vec![true; n],
        Kind::False => vec![false; n],
        Kind::Atom(s) => {
            let i = atoms.iter().position(|a| a == s).expect("known atom");
            word.iter().map(|l| l & (1 << i) != 0).collect()
        }
        Kind::Not(a) => ev(a).iter().map(|x| !x).collect(),
        Kind::And(v) => {
            let vs: Vec<Vec<bool>> = v.iter().map(&mut ev).collect();
            (0..n).map(|i| vs.iter().all(|x| x[i])).collect()
        }
        Kind::Or(v) => {
            let vs: Vec<Vec<bool>> = v.iter().map(&mut ev).collect();
            (0..n).map(|i| vs.iter().any(|x| x[i])).collect()
        }
        Kind::Implies(a, b) => {
            let (a, b) = (ev(a), ev(b));
            (0..n).map(|i| !a[i] || b[i]).collect()
        }
        Kind::Equiv(a, b) => {
            let (a, b) = (ev(a), ev(b));
            (0..n).map(|i| a[i] == b[i]).collect()
        }
        Kind::Xor(a, b) => {
            let (a, b) = (ev(a), ev(b));
            (0..n).map(|i| a[i] != b[i]).collect()
        }
        Kind::Next(a) => {
            let a = ev(a);
            (0..n).map(|i| a[succ(i)]).collect()
        }
        Kind::Finally(a) => {
            let a = ev(a);
            fix(false, &|i, v| a[i] || v[succ(i)])
        }
        Kind::Globally(a) => {
            let a = ev(a);
            fix(true, &|i, v| a[i] && v[succ(i)])
        }
        Kind::Until(a, b) => {
            let (a, b) = (ev(a), ev(b));
            fix(false, &|i, v| b[i] || (a[i] && v[succ(i)]))
        }
        Kind::WeakUntil(a, b) => {
            let (a, b) = (ev(a), ev(b));
            fix(true, &|i, v| b[i] || (a[i] && v[succ(i)]))
        }
        Kind::Release(a, b) => {
            let (a, b) = (ev(a), ev(b));
            fix(true, &|i, v| b[i] && (a[i] || v[succ(i)]))
        }
        Kind::StrongRelease(a, b) => {
            let (a, b) = (ev(a), ev(b));
            fix(false, &|i, v| b[i] && (a[i] || v[succ(i)]))
        }
    };
    memo.insert(f.clone(), r.clone());
    r
}

/// Whether `f` holds on `prefix · cycle^ω`.
pub fn holds(f: &Ltl, atoms: &[String], prefix: &[u64], cycle: &[u64]) -> bool {
    let word: Vec<u64> = prefix.iter().chain(cycle).copied().collect();
    eval(f, atoms, &word, prefix.len())[0]
}

/// Random lassos over `n_atoms` atoms: (prefix, non-empty cycle).
pub fn lasso(n_atoms: u32, max_len: usize) -> impl Strategy<Value = (Vec<u64>, Vec<u64>)> {
    let letter = 0u64..(1u64 << n_atoms);
    (
        proptest::collection::vec(letter.clone(), 0..max_len),
        proptest::collection::vec(letter, 1..max_len),
    )
}
