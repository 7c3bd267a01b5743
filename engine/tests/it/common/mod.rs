//! Shared test material: an explicit labelled transition system wrapped as
//! a `Protocol` (the engine's own test support, `engine::testing`, shared
//! with its unit tests), and the brute-force reference checker and direct
//! evaluator of LTL formulas on lassos (`testkit::reference`, shared with
//! the protocols crate's tests), with the random LTSs and atoms the tests
//! draw.

#![allow(dead_code)]

use engine::ActionKind;

// The explicit LTS and its protocol object are the engine's own test
// support, shared with its unit tests.
pub use engine::testing::{Label, Lts, LtsProtocol};
pub use testkit::reference::*;

pub mod ring;
pub mod small;
pub mod wrapped;

/// Random atoms over the roles `r0`, `r1`, … and types `T0`, `T1`, … of
/// an LTS of [`lts_strategy`]: mostly actions, some `END` and `DEADLOCK`.
pub fn atom_strategy(
    roles: usize,
    types: usize,
) -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let action = (0..roles, 0..3u8, 0..types).prop_map(|(r, k, t)| match k {
        0 => format!("r{r} SEND <T{t}>"),
        1 => format!("r{r} RECV *"),
        _ => format!("* SEND <T{t}>"),
    });
    prop_oneof![
        6 => action,
        1 => Just("END".to_string()),
        1 => Just("DEADLOCK".to_string()),
    ]
}

/// Random explicit LTSs of 2–4 roles, 1–3 message types and 1 to
/// `max_states` states, each with up to 4 transitions, some terminal.
pub fn lts_strategy(max_states: usize) -> impl proptest::strategy::Strategy<Value = Lts> {
    use proptest::prelude::*;
    (2..=4usize, 1..=3usize, 1..=max_states).prop_flat_map(|(roles, types, n)| {
        let label = (0..roles, 0..5u8, 0..types, 0..roles).prop_map(|(role, k, ty, peer)| Label {
            role,
            kind: match k {
                0 | 1 => ActionKind::Send,
                2 | 3 => ActionKind::Recv,
                _ => ActionKind::Close,
            },
            ty: if k == 4 { 0 } else { ty },
            peer,
        });
        let state = (
            prop::collection::vec((label, 0..n), 0..=4),
            prop::bool::weighted(0.3),
        );
        prop::collection::vec(state, n).prop_map(move |states| {
            let (trans, terminal) = states.into_iter().unzip();
            Lts {
                roles,
                types,
                trans,
                terminal,
            }
            .normalise()
        })
    })
}
