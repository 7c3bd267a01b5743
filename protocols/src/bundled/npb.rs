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
//! These are Prut4j's protocols: every round is one global order (the
//! master sends to worker 0, worker 0 takes it, the master sends to worker
//! 1, …, worker 0 replies, the master takes it, worker 1 replies, …), and
//! the [strict](crate::Strict) object enforces exactly that order, so a
//! worker that finishes early waits for its turn to reply. [`cg_concurrent`]
//! and [`is_concurrent`] are the same computations with the workers
//! concurrent, as a master/worker program runs them: within a round each
//! worker takes its item and replies whenever it is ready. Their LTS has
//! 5^k states per round (each worker at one of five points), too many to
//! compile for many workers; run them with [`Strict::on_the_fly`](crate::Strict::on_the_fly), which
//! computes only the states a run meets.
//!
//! ```
//! use engine::Protocol;
//! let cg = protocols::npb::cg(2).strict().unwrap();
//! assert_eq!(cg.roles(), ["master", "worker_0_", "worker_1_"]);
//! ```

use crate::spec::{alt, cat_every, close, msg, par, par_every, seq, Role, Spec, Term};

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

/// A master and `k` workers with concurrent rounds: each round, every
/// worker gets one `ty` from the master and replies `DoneMessage`, the
/// workers' exchanges interleaved in any order; then an `ExitMessage` /
/// `DoneMessage` exchange with every worker, likewise concurrent; then the
/// master closes its channels (in index order) while the workers close
/// theirs.
fn concurrent_master_workers(name: &str, ty: &str, k: usize) -> Spec {
    let exchange = |ty: &str, i: usize| {
        let w = Role::indexed("worker", i);
        seq([
            msg(ty, "master", w.clone()),
            msg("DoneMessage", w, "master"),
        ])
    };
    let rounds = par_every(0..k, |i| exchange(ty, i)).star();
    let exits = par_every(0..k, |i| exchange("ExitMessage", i));
    let closes = par([
        cat_every(0..k, |i| close("master", Role::indexed("worker", i))),
        par_every(0..k, |i| close(Role::indexed("worker", i), "master")),
    ]);
    let mut roles = vec![Role::new("master")];
    roles.extend(super::indexed("worker", k));
    Spec::new(format!("{name}:{k}"), seq([rounds, exits, closes]))
        .roles(roles)
        .types([ty, "DoneMessage", "ExitMessage"])
}

/// NPB CG for `k ≥ 1` workers, the workers concurrent within a round (see
/// the [module docs](self)).
///
/// ```
/// use engine::Protocol;
/// // 5^16 states per round: far too many to compile, so on the fly.
/// let cg = protocols::Strict::on_the_fly(&protocols::npb::cg_concurrent(16)).unwrap();
/// assert_eq!(cg.roles().len(), 17);
/// ```
pub fn cg_concurrent(k: usize) -> Spec {
    concurrent_master_workers("npb-cg-concurrent", "CGMessage", k)
}

/// NPB IS for `k ≥ 1` workers, the workers concurrent within a round (see
/// the [module docs](self)).
pub fn is_concurrent(k: usize) -> Spec {
    concurrent_master_workers("npb-is-concurrent", "RankMessage", k)
}
