// Imported from a Discourje .dcj file by prust.
use prust::spec::*;

/// The `go-fish:2` protocol.
pub fn spec() -> Spec {
    Spec::new("go-fish:2", call("go-fish(2)", []))
        .roles(["dealer", "player_0_", "player_1_"])
        .types(["Turn", "Ask", "Card", "OutOfCards", "Go", "Fish"])
        .define("go-fish(2)", 0, |_| {
            alt([
                seq([msg("Turn", "dealer", "player_0_"), call("play(0, 2)", [])]),
                seq([msg("Turn", "dealer", "player_1_"), call("play(1, 2)", [])]),
            ])
        })
        .define("play(0, 2)", 0, |_| {
            alt([seq([
                msg("Ask", "player_0_", "player_1_"),
                alt([
                    seq([
                        msg("Card", "player_1_", "player_0_"),
                        msg("OutOfCards", "player_0_", "dealer"),
                    ]),
                    seq([
                        msg("Card", "player_1_", "player_0_"),
                        call("play(0, 2)", []),
                    ]),
                    seq([
                        msg("Go", "player_1_", "player_0_"),
                        msg("Fish", "player_0_", "dealer"),
                        alt([
                            msg("Card", "dealer", "player_0_"),
                            msg("OutOfCards", "dealer", "player_0_"),
                        ]),
                        msg("Turn", "player_0_", "player_1_"),
                        call("play(1, 2)", []),
                    ]),
                ]),
            ])])
        })
        .define("play(1, 2)", 0, |_| {
            alt([seq([
                msg("Ask", "player_1_", "player_0_"),
                alt([
                    seq([
                        msg("Card", "player_0_", "player_1_"),
                        msg("OutOfCards", "player_1_", "dealer"),
                    ]),
                    seq([
                        msg("Card", "player_0_", "player_1_"),
                        call("play(1, 2)", []),
                    ]),
                    seq([
                        msg("Go", "player_0_", "player_1_"),
                        msg("Fish", "player_1_", "dealer"),
                        alt([
                            msg("Card", "dealer", "player_1_"),
                            msg("OutOfCards", "dealer", "player_1_"),
                        ]),
                        msg("Turn", "player_1_", "player_0_"),
                        call("play(0, 2)", []),
                    ]),
                ]),
            ])])
        })
}
