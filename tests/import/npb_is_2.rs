// Imported from a Discourje .dcj file by prust.
use prust::spec::*;

/// The `npb-is:2` protocol.
pub fn spec() -> Spec {
    Spec::new("npb-is:2", call("npb-is(2)", []))
        .roles(["master", "worker_0_", "worker_1_"])
        .types(["RankMessage", "DoneMessage", "ExitMessage"])
        .define("npb-is(2)", 0, |_| {
            seq([
                call("batch(:user/worker, npb.RankMessage, 2)", []).star(),
                seq([
                    call("exit(:user/worker, 0)", []),
                    call("exit(:user/worker, 1)", []),
                ]),
                call("closes(:user/worker, 2)", []),
            ])
        })
        .define("batch(:user/worker, npb.RankMessage, 2)", 0, |_| {
            seq([
                seq([
                    msg("RankMessage", "master", "worker_0_"),
                    msg("RankMessage", "master", "worker_1_"),
                ]),
                seq([
                    msg("DoneMessage", "worker_0_", "master"),
                    msg("DoneMessage", "worker_1_", "master"),
                ]),
            ])
        })
        .define("exit(:user/worker, 0)", 0, |_| {
            seq([
                msg("ExitMessage", "master", "worker_0_"),
                msg("DoneMessage", "worker_0_", "master"),
            ])
        })
        .define("exit(:user/worker, 1)", 0, |_| {
            seq([
                msg("ExitMessage", "master", "worker_1_"),
                msg("DoneMessage", "worker_1_", "master"),
            ])
        })
        .define("closes(:user/worker, 2)", 0, |_| {
            seq([
                seq([close("master", "worker_0_"), close("master", "worker_1_")]),
                seq([close("worker_0_", "master"), close("worker_1_", "master")]),
            ])
        })
}
