//! The specifications of the close tests, written once for the real
//! sessions (`protocols/tests/it/session_close.rs`) and `prust::explore`
//! (`explore/tests/it/close.rs`), whose answers must be the same: a receiver
//! that loops until its peer closes, and one that receives from anyone
//! until every sender has closed.

use protocols::spec::{close, msg, par, seq, Spec};

/// `boss` sends any number of `Job`s to `hand`, then closes.
pub fn jobs() -> Spec {
    Spec::new(
        "jobs",
        seq([msg("Job", "boss", "hand").star(), close("boss", "hand")]),
    )
}

/// Two workers each send any number of `Res` to `m`, then close.
pub fn results() -> Spec {
    let worker = |w: &str| seq([msg("Res", w, "m").star(), close(w, "m")]);
    Spec::new("results", par([worker("w1"), worker("w2")])).roles(["m", "w1", "w2"])
}
