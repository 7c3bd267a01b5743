// Imported from a Discourje .dcj file by prust.
use prust::spec::*;

/// The `chess` protocol.
pub fn spec() -> Spec {
    Spec::new("chess", call("chess", []))
        .roles(["white", "black"])
        .types(["Move"])
        .define("chess", 0, |_| {
            seq([
                seq([msg("Move", "white", "black"), msg("Move", "black", "white")]),
                seq([msg("Move", "white", "black"), msg("Move", "black", "white")]).star(),
            ])
        })
}
