//! The Aldebaran `.aut` reader on arbitrary text. What it reads must write
//! back (`to_aut`) as text that reads to the same LTS, and determinise
//! within a bound without panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;
use protocols::Lts;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Ok(lts) = Lts::from_aut(&text) else {
        return;
    };
    let written = lts.to_aut();
    let back =
        Lts::from_aut(&written).unwrap_or_else(|e| panic!("{written:?} does not read back: {e}"));
    // Role and type numbers follow first appearance, which writing in
    // state order may change: compare the transitions as text.
    assert_eq!(back.num_states(), lts.num_states());
    assert_eq!(back.initial(), lts.initial());
    for s in lts.states() {
        let edges = |l: &Lts| {
            let mut v: Vec<String> = l
                .transitions(s)
                .iter()
                .map(|(label, t)| format!("{} {t}", l.label_text(label)))
                .collect();
            v.sort();
            v
        };
        assert_eq!(edges(&back), edges(&lts), "state {s} of {written:?}");
        assert_eq!(back.is_final(s), lts.is_final(s));
    }
    let _ = lts.is_deterministic();
    let _ = lts.determinise(1_000);
});
