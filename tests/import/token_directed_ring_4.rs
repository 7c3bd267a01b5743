// Imported from a Discourje .dcj file by prust.
use prust::spec::*;

/// The `token-directed-ring:4,0` protocol.
pub fn spec() -> Spec {
    Spec::new(
        "token-directed-ring:4,0",
        call("token-directed-ring(4, 0)", []),
    )
    .roles(["worker_0_", "worker_1_", "worker_2_", "worker_3_"])
    .types(["Boolean"])
    .define("token-directed-ring(4, 0)", 0, |_| {
        seq([
            call("pass(0, 1)", []),
            call("token-directed-ring(4, 1)", []),
        ])
    })
    .define("pass(0, 1)", 0, |_| {
        msg("Boolean", "worker_0_", "worker_1_")
    })
    .define("token-directed-ring(4, 1)", 0, |_| {
        seq([
            call("pass(1, 2)", []),
            call("token-directed-ring(4, 2)", []),
        ])
    })
    .define("pass(1, 2)", 0, |_| {
        msg("Boolean", "worker_1_", "worker_2_")
    })
    .define("token-directed-ring(4, 2)", 0, |_| {
        seq([
            call("pass(2, 3)", []),
            call("token-directed-ring(4, 3)", []),
        ])
    })
    .define("pass(2, 3)", 0, |_| {
        msg("Boolean", "worker_2_", "worker_3_")
    })
    .define("token-directed-ring(4, 3)", 0, |_| {
        seq([
            call("pass(3, 0)", []),
            call("token-directed-ring(4, 0)", []),
        ])
    })
    .define("pass(3, 0)", 0, |_| {
        msg("Boolean", "worker_3_", "worker_0_")
    })
}
