//! The LTL parser (`owl_lite::parse`) on arbitrary text, and the
//! translation of what parses. A formula that parses must print as text
//! that parses back to the same (hash-consed) formula: the checker's
//! reports show formulas by `Display`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use owl_lite::{parse, translate, TranslateOptions};

/// Translation is exponential in the formula by nature; past these sizes a
/// run would measure the translator's limits (tested elsewhere), not look
/// for crashes, and would slow the fuzzer to a crawl. (With 96 bytes and 6
/// atoms, a 60-byte formula took 14 s under the sanitizers, 1.9 s in a
/// release build: see FUZZING.md.)
const TRANSLATE_MAX_LEN: usize = 64;
const TRANSLATE_MAX_ATOMS: usize = 5;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Ok(f) = parse(&text) else { return };
    let printed = f.to_string();
    let back = parse(&printed).unwrap_or_else(|e| panic!("{printed:?} does not parse back: {e}"));
    assert_eq!(back, f, "{printed:?} parses back to another formula");
    let _ = f.simplify();
    if text.len() <= TRANSLATE_MAX_LEN && f.atoms().len() <= TRANSLATE_MAX_ATOMS {
        // Errors (too many states, atoms) are fine; panics and hangs are not.
        let _ = translate(&f.negate(), &TranslateOptions::default());
    }
});
