// Imported from a Discourje .dcj file by prust.
use prust::spec::*;

/// The `features` protocol.
pub fn spec() -> Spec {
    Spec::new("features", call("features", []))
        .roles(["client", "server", "log"])
        .types(["Request", "Response", "Entry", "Again", "Stop"])
        .define("features", 0, |_| {
            seq([
                call("serve(1)", []).star(),
                close("client", "server"),
                close("server", "client"),
                close("server", "log"),
            ])
        })
        .define("serve(1)", 0, |_| {
            seq([
                sync("Request", "client", "server"),
                par([
                    msg("Response", "server", "client"),
                    msg("Entry", "server", "log"),
                ]),
                alt([
                    msg("Again", "client", "server"),
                    msg("Stop", "client", "server"),
                ]),
            ])
        })
}
