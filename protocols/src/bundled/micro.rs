//! Microbenchmarks, buffered (asynchronous `-->>`) and unbuffered
//! (synchronous `-->`), type `Integer`.
//!
//! - [`ring`]: roles `worker_0_ …`; repeatedly, in sequence, worker `i`
//!   sends to worker `i+1 mod k`, for `i = 0..k`.
//! - [`star`]: roles `master`, `worker_0_ …`; repeatedly the master sends
//!   to every worker in order (outwards), then every worker in order sends
//!   to the master (inwards).
//!
//! ```
//! let lts = protocols::micro::ring(3, true).compile().unwrap();
//! assert_eq!((lts.num_states(), lts.num_transitions()), (6, 6));
//! ```

use crate::spec::{cat_every, msg, seq, sync, Role, Spec};

fn comm(buffered: bool) -> fn(&str, Role, Role) -> crate::spec::Term {
    if buffered {
        |t, p, q| msg(t, p, q)
    } else {
        |t, p, q| sync(t, p, q)
    }
}

fn kind(buffered: bool) -> &'static str {
    if buffered {
        "buffered"
    } else {
        "unbuffered"
    }
}

/// The ring of `k ≥ 2` workers.
pub fn ring(k: usize, buffered: bool) -> Spec {
    let c = comm(buffered);
    let w = |i: usize| Role::indexed("worker", i);
    Spec::new(
        format!("ring-{}:{k}", kind(buffered)),
        cat_every(0..k, |i| c("Integer", w(i), w((i + 1) % k))).star(),
    )
    .roles(super::indexed("worker", k))
    .types(["Integer"])
}

/// The star of a master and `k ≥ 1` workers.
pub fn star(k: usize, buffered: bool) -> Spec {
    let c = comm(buffered);
    let w = |i: usize| Role::indexed("worker", i);
    let round = seq([
        cat_every(0..k, |i| c("Integer", Role::new("master"), w(i))),
        cat_every(0..k, |i| c("Integer", w(i), Role::new("master"))),
    ]);
    let mut roles = vec![Role::new("master")];
    roles.extend(super::indexed("worker", k));
    Spec::new(format!("star-{}:{k}", kind(buffered)), round.star())
        .roles(roles)
        .types(["Integer"])
}
