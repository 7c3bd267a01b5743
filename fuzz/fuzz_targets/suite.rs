//! The `.owl` suite reader (`prust::suite::format::parse`) on arbitrary
//! text: errors must carry positions inside the file, and every entry it
//! accepts must plan and hold a formula the LTL parser accepts.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    match prust::suite::format::parse(&text) {
        Err(errors) => {
            assert!(!errors.is_empty());
            let lines = text.lines().count().max(1);
            for e in &errors {
                assert!(
                    e.pos.line >= 1 && e.pos.line <= lines,
                    "{e} is outside the file"
                );
                let _ = e.to_string();
            }
        }
        Ok(suite) => {
            let _ = suite.plan();
            for entry in &suite.entries {
                owl_lite::parse(&entry.formula).expect("an accepted entry parses");
            }
        }
    }
});
