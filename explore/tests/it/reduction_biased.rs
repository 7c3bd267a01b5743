//! The differential test of `reduction_programs.rs` (every reduction
//! finds the failures and final states of plain search) on shapes that
//! its random specifications rarely produce, and that a review of DPOR
//! singled out as the ones its rules are least sure of:
//!
//! - a choice between runs that start with the same communication and
//!   diverge later (in the spec, and in the programs: a `choose` between
//!   two runs with a common prefix);
//! - specifications and programs made of closes only, several roles
//!   closing their channels to each other, with choices;
//! - a receive followed by a send on the same pair of roles (either way),
//!   beside a third role that uses one of the two.
//!
//! Such shapes decide, in one order or the other, which branch of the
//! protocol a later step is in: steps that are enabled in both orders
//! but mean different things, the races that DPOR judges in states of
//! one execution only.

use proptest::prelude::*;
use prust::spec::{alt, close, msg, par, seq, sync, Term};

use super::reduction_programs::{
    agree, build_case, leaf, spec_of, term, Case, Mutation, NAMES, TYPES,
};

/// Two different roles.
fn pair(roles: usize) -> impl Strategy<Value = (&'static str, &'static str)> + Clone {
    (0..roles, 1..roles).prop_map(move |(p, d)| (NAMES[p], NAMES[(p + d) % roles]))
}

/// One communication (asynchronous or synchronous) or a close.
fn comm(roles: usize) -> BoxedStrategy<Term> {
    prop_oneof![
        3 => (pair(roles), 0..2usize).prop_map(|((p, q), t)| msg(TYPES[t], p, q)),
        1 => (pair(roles), 0..2usize).prop_map(|((p, q), t)| sync(TYPES[t], p, q)),
        1 => pair(roles).prop_map(|(p, q)| close(p, q)),
    ]
    .boxed()
}

/// A short run: one or two communications.
fn short(roles: usize) -> BoxedStrategy<Term> {
    prop_oneof![
        2 => comm(roles),
        1 => prop::collection::vec(comm(roles), 2..3).prop_map(seq),
        1 => leaf(roles),
    ]
    .boxed()
}

/// A choice between runs that share their first one or two
/// communications and go on differently.
fn shared_prefix(roles: usize) -> BoxedStrategy<Term> {
    (
        prop::collection::vec(comm(roles), 1..3),
        prop::collection::vec(short(roles), 2..4),
    )
        .prop_map(|(prefix, tails)| {
            alt(tails.into_iter().map(|tail| {
                let mut run = prefix.clone();
                run.push(tail);
                seq(run)
            }))
        })
        .boxed()
}

/// Closes only, in choices, sequences and interleavings.
fn closes(roles: usize) -> BoxedStrategy<Term> {
    pair(roles)
        .prop_map(|(p, q)| close(p, q))
        .prop_recursive(3, 12, 3, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 2..4).prop_map(seq),
                prop::collection::vec(inner.clone(), 2..4).prop_map(alt),
                prop::collection::vec(inner, 2..3).prop_map(par),
            ]
        })
        .boxed()
}

/// A message from `p` to `q`, then another step on the same pair (the
/// answer, a second message, or a close either way), beside a third
/// role's step with `p` or `q`, interleaved with both or between them.
fn ping_pong(roles: usize) -> BoxedStrategy<Term> {
    (
        pair(roles),
        0..2usize,
        0..6usize,
        0..2usize,
        0..4usize,
        0..3usize,
    )
        .prop_map(move |((p, q), t, next, u, third, place)| {
            let second = match next {
                0 | 1 => msg(TYPES[u], q, p),
                2 => sync(TYPES[u], q, p),
                3 => msg(TYPES[u], p, q),
                4 => close(q, p),
                _ => close(p, q),
            };
            let first = msg(TYPES[t], p, q);
            // The third role (if there is one) and one of the two.
            let c = NAMES
                .iter()
                .take(roles)
                .copied()
                .find(|n| *n != p && *n != q);
            let Some(c) = c else {
                return seq([first, second]);
            };
            let other = match third {
                0 => close(c, p),
                1 => close(q, c),
                2 => msg(TYPES[u], c, p),
                _ => msg(TYPES[t], q, c),
            };
            match place {
                0 => par([seq([first, second]), other]),
                1 => seq([first, other, second]),
                _ => par([first, seq([other, second])]),
            }
        })
        .boxed()
}

/// One part of a biased specification.
fn piece(roles: usize) -> BoxedStrategy<Term> {
    prop_oneof![
        3 => shared_prefix(roles),
        2 => closes(roles),
        3 => ping_pong(roles),
        1 => term(roles),
    ]
    .boxed()
}

/// The main term of a biased specification over `roles` roles.
fn main_term(roles: usize) -> BoxedStrategy<Term> {
    prop_oneof![
        3 => prop::collection::vec(piece(roles), 2..4).prop_map(par),
        2 => prop::collection::vec(piece(roles), 2..3).prop_map(alt),
        1 => prop::collection::vec(piece(roles), 2..3).prop_map(seq),
        2 => piece(roles),
        // Closes only, everywhere.
        2 => prop::collection::vec(closes(roles), 1..3).prop_map(par),
    ]
    .boxed()
}

/// Mutations that favour choices between two runs, closes and receives
/// from anyone (see `reduction_programs::mutate`).
fn mutation() -> impl Strategy<Value = Mutation> {
    (
        prop_oneof![
            4 => Just(0usize),
            1 => Just(1usize),
            1 => Just(2usize),
            2 => Just(3usize),
            1 => Just(4usize),
            2 => Just(5usize),
            1 => Just(6usize),
            5 => Just(7usize),
        ],
        0..8usize,
        0..4usize,
        0..2usize,
    )
        .prop_map(|(kind, at, peer, ty)| Mutation { kind, at, peer, ty })
}

/// A random program over a biased specification: as
/// `reduction_programs::case`, and the second run (of a `choose`) often
/// starts as the first one does.
pub(crate) fn biased_case() -> impl Strategy<Value = Case> {
    (2usize..=4)
        .prop_flat_map(|roles| {
            (
                Just(roles),
                main_term(roles),
                prop::option::weighted(0.2, (leaf(roles), leaf(roles))),
            )
        })
        .prop_map(|(roles, main, branches)| (spec_of(main, branches.clone()), roles, branches))
        .prop_flat_map(|spec| {
            (
                Just(spec),
                prop::collection::vec(0..16usize, 12),
                prop::collection::vec(0..16usize, 12),
                0..5usize,
                prop::collection::vec(mutation(), 4),
                prop::option::weighted(0.8, Just(vec![0usize, 1, 2, 3]).prop_shuffle()),
            )
        })
        .prop_filter_map(
            "the spec compiles to a small object",
            |((spec, roles, branches), picks, mut other, shared, mutations, order)| {
                other[..shared].copy_from_slice(&picks[..shared]);
                build_case(spec, roles, branches, order, [&picks, &other], &mutations)
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(150))]

    #[test]
    fn reductions_agree_with_plain_search_on_biased_programs(case in biased_case()) {
        agree(&case, 400)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    /// The same, longer: `cargo test -p prust-explore --test it
    /// reduction_biased -- --ignored`.
    #[test]
    #[ignore]
    fn soak_reductions_agree_with_plain_search_on_biased_programs(case in biased_case()) {
        agree(&case, 1_000)?;
    }
}
