//! The NAS parallel benchmark protocols of Prut4j: a master and workers.
//!
//! - [`cg`] and [`is`]: roles `master`, `worker_0_ …`; types `CGMessage`
//!   (resp. `RankMessage`), `DoneMessage`, `ExitMessage`. Zero or more
//!   rounds of: the work message master → worker `0..k` in order, then each
//!   worker in order → master `DoneMessage`; then for each worker in order
//!   `ExitMessage` master → worker and `DoneMessage` worker → master; then
//!   the master closes its channel to each worker, then each worker its
//!   channel to the master.
//! - [`ft`]: roles `master`, `evolve_i_`, `fft_i_`; rounds choose one of an
//!   `EvolveMessage` batch to the evolve workers, an `FFTMessage` batch or
//!   an `FFTSetVariablesMessage` batch to the fft workers (a batch: the sends
//!   in index order, then the `DoneMessage` replies in index order); then for
//!   each `i` Exit/Done with `evolve_i_` then with `fft_i_`; then the closes
//!   (master → evolve all, evolve → master all, master → fft all, fft →
//!   master all).
//! - [`mg`]: roles `master`, `interp_i_`, `psinv_i_`, `rprj_i_`,
//!   `resid_i_`, four kinds of batches, Exit/Done per `i` in the order
//!   interp, psinv, rprj, resid, then the closes per kind.
//!
//! ```
//! use engine::Protocol;
//! let cg = protocols::npb::cg_strict(2);
//! assert_eq!(cg.roles(), ["master", "worker_0_", "worker_1_"]);
//! ```

use crate::spec::{alt, cat_every, close, msg, seq, Role, Spec, Term};
use crate::{Liberal, Strict};

fn batch(kind: &str, ty: &str, k: usize) -> Term {
    seq([
        cat_every(0..k, |i| msg(ty, "master", Role::indexed(kind, i))),
        cat_every(0..k, |i| {
            msg("DoneMessage", Role::indexed(kind, i), "master")
        }),
    ])
}

fn master_workers(name: &str, kinds: &[&str], batches: Vec<(&str, &str)>, k: usize) -> Spec {
    let rounds = alt(batches.iter().map(|(kind, ty)| batch(kind, ty, k))).star();
    let exits = cat_every(0..k, |i| {
        seq(kinds.iter().map(|kind| {
            seq([
                msg("ExitMessage", "master", Role::indexed(kind, i)),
                msg("DoneMessage", Role::indexed(kind, i), "master"),
            ])
        }))
    });
    let closes = seq(kinds.iter().map(|kind| {
        seq([
            cat_every(0..k, |i| close("master", Role::indexed(kind, i))),
            cat_every(0..k, |i| close(Role::indexed(kind, i), "master")),
        ])
    }));
    let mut roles = vec![Role::new("master")];
    for kind in kinds {
        roles.extend(super::indexed(kind, k));
    }
    let mut types: Vec<&str> = batches.iter().map(|b| b.1).collect();
    types.dedup();
    types.extend(["DoneMessage", "ExitMessage"]);
    Spec::new(format!("{name}:{k}"), seq([rounds, exits, closes]))
        .roles(roles)
        .types(types)
}

/// NPB CG for `k ≥ 1` workers.
pub fn cg(k: usize) -> Spec {
    master_workers("npb-cg", &["worker"], vec![("worker", "CGMessage")], k)
}

/// NPB IS for `k ≥ 1` workers.
pub fn is(k: usize) -> Spec {
    master_workers("npb-is", &["worker"], vec![("worker", "RankMessage")], k)
}

/// NPB FT for `k ≥ 1` workers of each kind.
pub fn ft(k: usize) -> Spec {
    master_workers(
        "npb-ft",
        &["evolve", "fft"],
        vec![
            ("evolve", "EvolveMessage"),
            ("fft", "FFTMessage"),
            ("fft", "FFTSetVariablesMessage"),
        ],
        k,
    )
}

/// NPB MG for `k ≥ 1` workers of each kind.
pub fn mg(k: usize) -> Spec {
    master_workers(
        "npb-mg",
        &["interp", "psinv", "rprj", "resid"],
        vec![
            ("interp", "InterpMessage"),
            ("psinv", "PsinvMessage"),
            ("rprj", "RprjMessage"),
            ("resid", "ResidMessage"),
        ],
        k,
    )
}

/// Strict object of [`cg`].
pub fn cg_strict(k: usize) -> Strict {
    super::strict_of(cg(k))
}
/// Liberal object of [`cg`].
pub fn cg_liberal(k: usize) -> Liberal {
    super::liberal_of(cg(k))
}
/// Strict object of [`is`].
pub fn is_strict(k: usize) -> Strict {
    super::strict_of(is(k))
}
/// Liberal object of [`is`].
pub fn is_liberal(k: usize) -> Liberal {
    super::liberal_of(is(k))
}
/// Strict object of [`ft`].
pub fn ft_strict(k: usize) -> Strict {
    super::strict_of(ft(k))
}
/// Liberal object of [`ft`].
pub fn ft_liberal(k: usize) -> Liberal {
    super::liberal_of(ft(k))
}
/// Strict object of [`mg`].
pub fn mg_strict(k: usize) -> Strict {
    super::strict_of(mg(k))
}
/// Liberal object of [`mg`].
pub fn mg_liberal(k: usize) -> Liberal {
    super::liberal_of(mg(k))
}
