//! Action-pattern atoms: the atom parser on arbitrary text, and the whole
//! front end (atom parsing, name checks with "did you mean", globs) through
//! a check of `F "<atom>"` on the bundled chess protocol.
#![no_main]

use std::sync::{Mutex, OnceLock};

use engine::{CheckSession, Checker, Message};
use libfuzzer_sys::fuzz_target;
use protocols::Strict;

fn session() -> &'static Mutex<CheckSession<Strict>> {
    static SESSION: OnceLock<Mutex<CheckSession<Strict>>> = OnceLock::new();
    SESSION.get_or_init(|| {
        let lts = protocols::bundled::by_name("chess").expect("chess is bundled");
        let dummies = lts
            .type_names()
            .iter()
            .map(|t| Message::named(t, ()))
            .collect();
        let session = Checker::new()
            .progress(false)
            .session(Strict::new(lts), dummies)
            .expect("chess has a session");
        Mutex::new(session)
    })
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let parsed = engine::fuzz_parse_atom(&text);
    let mut quoted = String::with_capacity(text.len() + 8);
    quoted.push_str("F \"");
    for c in text.chars() {
        if c == '"' || c == '\\' {
            quoted.push('\\');
        }
        quoted.push(c);
    }
    quoted.push('"');
    let mut session = session().lock().unwrap_or_else(|p| p.into_inner());
    let checked = session.check(&quoted);
    // An atom the parser refuses is never checked.
    if parsed.is_err() {
        assert!(
            checked.is_err(),
            "{quoted:?} checked, but its atom does not parse"
        );
    }
});
