//! Trail files (`engine::Trail::parse`) on arbitrary text: errors must
//! point at a line of the file; a trail that parses must print (its
//! `Display` is the file format) as text that parses back to the same
//! trail; and replaying it on the bundled chess object must end in a
//! transcript or a `ReplayError` that names a step of the trail, never a
//! panic. `prust replay` reads trails that users edit by hand.
#![no_main]

use std::sync::OnceLock;

use engine::{Message, Trail};
use libfuzzer_sys::fuzz_target;
use protocols::{Lts, Strict};

fn chess() -> &'static Lts {
    static LTS: OnceLock<Lts> = OnceLock::new();
    LTS.get_or_init(|| protocols::bundled::by_name("chess").expect("chess is bundled"))
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let trail = match Trail::parse(&text) {
        Ok(trail) => trail,
        Err(e) => {
            let lines = text.lines().count().max(1);
            assert!(
                e.line >= 1 && e.line <= lines && e.column >= 1,
                "{e} is outside the file"
            );
            let _ = e.to_string();
            return;
        }
    };
    let written = trail.to_string();
    let back =
        Trail::parse(&written).unwrap_or_else(|e| panic!("{written:?} does not parse back: {e}"));
    assert_eq!(back, trail, "{written:?} parses back to another trail");

    let lts = chess();
    let dummies = lts
        .type_names()
        .iter()
        .map(|t| Message::named(t, ()))
        .collect();
    if let Err(e) = trail.replay(Strict::new(lts.clone()), dummies) {
        let steps = trail.steps().count();
        assert!(e.step <= steps, "{e} names step {} of {steps}", e.step);
        if let Some(line) = e.line {
            assert!(
                line >= 1 && line <= text.lines().count(),
                "{e} is outside the file"
            );
        }
        let _ = e.to_string();
    }
});
