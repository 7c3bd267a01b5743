//! Fuzz smoke test on the stable toolchain: a few thousand structured
//! random inputs (valid inputs, then truncated, bit-flipped, with lines
//! duplicated, huge numbers or deep nesting spliced in) through the six
//! readers the `fuzz/` targets cover: the LTL parser (and the translation
//! of short formulas), action-pattern atoms (alone and through a check on
//! the chess protocol), the `.aut` reader, the `.owl` suite reader, the
//! `.dcj` importer and the trail reader (with a replay on chess).
//! Each must return, without a panic, a result bounded by its input: errors
//! point inside the text, and what parses is no bigger than the text allows.
//! The long runs are cargo-fuzz's (see FUZZING.md); this keeps the entry
//! points honest in every `cargo test`.

use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use engine::{CheckSession, Checker, Message, Trail};
use proptest::prelude::*;
use protocols::{Lts, Strict};

/// One change to an input. Indices are taken modulo the input's length.
#[derive(Debug, Clone)]
enum Mutation {
    /// Keep only the first bytes.
    Truncate(usize),
    /// Flip one bit of one byte.
    FlipBit(usize, u8),
    /// Repeat one line right after itself.
    DuplicateLine(usize),
    /// Splice in a number too large for any counter.
    HugeNumber(usize, usize),
    /// Replace the k-th run of digits (a header's count, a state, a
    /// `max-states`) by a huge number.
    ReplaceNumber(usize, usize),
    /// Wrap the text from an index on in `depth` levels of an opener and
    /// its closer (`(`…`)`, `!`, `X `, quotes).
    Nest(usize, usize, usize),
    /// Splice in one character that means something to some parser.
    Insert(usize, char),
    /// Remove a range of bytes.
    Delete(usize, usize),
}

const HUGE: [&str; 5] = [
    "18446744073709551615",
    "18446744073709551616",
    "4294967296",
    "99999999999999999999999999999999",
    "1000000000",
];

const NESTS: [(&str, &str); 5] = [("(", ")"), ("!", ""), ("X ", ""), ("G(", ")"), ("\"", "")];

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        any::<usize>().prop_map(Mutation::Truncate),
        (any::<usize>(), 0..8u8).prop_map(|(i, b)| Mutation::FlipBit(i, b)),
        any::<usize>().prop_map(Mutation::DuplicateLine),
        (any::<usize>(), 0..HUGE.len()).prop_map(|(i, h)| Mutation::HugeNumber(i, h)),
        (0..8usize, 0..HUGE.len()).prop_map(|(k, h)| Mutation::ReplaceNumber(k, h)),
        (any::<usize>(), 0..NESTS.len(), 1..2_000usize)
            .prop_map(|(i, n, d)| Mutation::Nest(i, n, d)),
        (
            any::<usize>(),
            prop::sample::select(vec![
                '(', ')', '"', '\\', ',', '\n', '#', '=', '&', '|', '!', '*', '<', '>', '@', 'é',
                '\0', ' '
            ])
        )
            .prop_map(|(i, c)| Mutation::Insert(i, c)),
        (any::<usize>(), 0..64usize).prop_map(|(i, n)| Mutation::Delete(i, n)),
    ]
}

fn apply(text: &str, mutations: &[Mutation]) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for m in mutations {
        let at = |i: usize, bytes: &Vec<u8>| i % (bytes.len() + 1);
        match *m {
            Mutation::Truncate(i) => bytes.truncate(at(i, &bytes)),
            Mutation::FlipBit(i, b) => {
                if !bytes.is_empty() {
                    let i = i % bytes.len();
                    bytes[i] ^= 1 << b;
                }
            }
            Mutation::DuplicateLine(i) => {
                let text = String::from_utf8_lossy(&bytes).into_owned();
                let lines: Vec<&str> = text.lines().collect();
                if !lines.is_empty() {
                    let k = i % lines.len();
                    let mut out: Vec<&str> = lines[..=k].to_vec();
                    out.extend_from_slice(&lines[k..]);
                    bytes = out.join("\n").into_bytes();
                }
            }
            Mutation::HugeNumber(i, h) => {
                let i = at(i, &bytes);
                bytes.splice(i..i, HUGE[h].bytes());
            }
            Mutation::ReplaceNumber(k, h) => {
                let mut runs = Vec::new();
                let mut start = None;
                for (j, b) in bytes.iter().enumerate() {
                    match (b.is_ascii_digit(), start) {
                        (true, None) => start = Some(j),
                        (false, Some(s)) => {
                            runs.push(s..j);
                            start = None;
                        }
                        _ => {}
                    }
                }
                if let Some(s) = start {
                    runs.push(s..bytes.len());
                }
                if !runs.is_empty() {
                    let run = runs[k % runs.len()].clone();
                    bytes.splice(run, HUGE[h].bytes());
                }
            }
            Mutation::Nest(i, n, depth) => {
                let i = at(i, &bytes);
                let (open, close) = NESTS[n];
                let mut out = bytes[..i].to_vec();
                for _ in 0..depth {
                    out.extend_from_slice(open.as_bytes());
                }
                out.extend_from_slice(&bytes[i..]);
                for _ in 0..depth {
                    out.extend_from_slice(close.as_bytes());
                }
                bytes = out;
            }
            Mutation::Insert(i, c) => {
                let i = at(i, &bytes);
                let mut buf = [0u8; 4];
                bytes.splice(i..i, c.encode_utf8(&mut buf).bytes());
            }
            Mutation::Delete(i, n) => {
                let i = at(i, &bytes);
                let end = (i + n).min(bytes.len());
                bytes.drain(i..end);
            }
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// A valid input from `seeds`, then up to four mutations.
fn mutated(seeds: &'static [&'static str]) -> impl Strategy<Value = String> {
    (
        prop::sample::select(seeds),
        prop::collection::vec(mutation(), 0..4),
    )
        .prop_map(|(seed, ms)| apply(seed, &ms))
}

const FORMULAS: &[&str] = &[
    r#"G ("req" -> F "ack")"#,
    "a U b U c",
    "!a W (b R X c)",
    r#"G F "white SEND <Move>" && F G !"END""#,
    "(a <-> b) ^ (c M d)",
    "X X X (tt | ff)",
    "G(a -> (b U (c & F d)))",
    "G (a ->\n     F b)",
];

const ATOMS: &[&str] = &[
    "black SEND <Move> TO white",
    "white RECV chess::Move FROM black",
    "* * * TO *",
    "w* CLOSE TO b*",
    "END",
    "DEADLOCK",
    "blakc SEND <Mvoe>",
    "True",
];

const AUTS: &[&str] = &[
    "des (0, 3, 4)\n(0,\"!(Move,white,black)\",1)\n(1,?(Move,white,black),2)\n(2,\"C(white,black)\",3)\n",
    include_str!("../owl/beyond/load-balancer-bug.aut"),
    include_str!("../owl/beyond/stuck-at-once.aut"),
    "des (0, 2, 2)\n(0,\"!(A,p,q)\",1)\n(1,\"?(A,p,q)\",0)\n",
];

const SUITES: &[&str] = &[
    include_str!("../owl/games/chess.owl"),
    include_str!("../owl/topologies.owl"),
    "protocol chess\nlet a0 = \"white SEND *\"\nlet a1 = a0 & a0\nlet a2 = a1 & a1\ntest t holds@strict violated\n  G a2\n",
    "protocol chess as c\nruntime strict\nsemantics omega\nmax-states 1_000\ntest t error \"did you mean\"\n  F \"whte SEND *\"\n",
];

const DCJS: &[&str] = &[
    include_str!("../../dcj/tests/dcj/token.dcj"),
    include_str!("../../dcj/tests/dcj/chess.dcj"),
    "(s/defrole ::worker)\n(s/defsession ::ring [k i]\n  (s/cat (s/-->> Boolean (::worker i) (::worker (mod (inc i) k)))\n         (::ring k (mod (inc i) k))))\n",
    "(s/defrole ::a)\n(s/defrole ::b)\n(s/defsession ::ping []\n  (s/* (s/alt (s/-->> Ping ::a ::b) (s/close ::a ::b))))\n",
];

const TRAILS: &[&str] = &[
    "prust-trail 1\nprotocol chess\nformula G !\"black SEND *\"\nwhite SEND <Move> TO black\nblack RECV <Move> FROM white\nblack SEND <Move> TO white\nend violated\n",
    "prust-trail 1\nprotocol chess\nformula !\"white SEND <Move>\" U \"black SEND <Move>\"\nwhite SEND <Move> TO black\ncycle\nblack RECV <Move> FROM white\nblack SEND <Move> TO white\nwhite RECV <Move> FROM black\nwhite SEND <Move> TO black\n",
    "# saved\r\nprust-trail 1\r\n\r\n# the moves\r\n  white send <Move> to black\r\nblack Recv <Move> From white\r\nEND deadlock\r\n",
];

/// Bounds of a `.dcj` import here: mutated files may unfold far, and a
/// limit reached is an answer too.
const DCJ_MAX_STATES: u64 = 2_000;
const DCJ_TIMEOUT: Duration = Duration::from_secs(2);

/// Translation is exponential by nature: only short formulas are
/// translated here (cargo-fuzz bounds it the same way).
const TRANSLATE_MAX_LEN: usize = 40;

fn chess_session() -> &'static Mutex<CheckSession<Strict>> {
    static SESSION: OnceLock<Mutex<CheckSession<Strict>>> = OnceLock::new();
    SESSION.get_or_init(|| {
        let lts = protocols::bundled::by_name("chess").unwrap();
        let dummies = lts
            .type_names()
            .iter()
            .map(|t| Message::named(t, ()))
            .collect();
        let session = Checker::new()
            .progress(false)
            .session(Strict::new(lts), dummies)
            .unwrap();
        Mutex::new(session)
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    /// LTL: an error points inside the text; a formula prints as text
    /// that parses back to it, and short ones translate without a panic.
    #[test]
    fn ltl_parser(text in mutated(FORMULAS)) {
        match owl_lite::parse(&text) {
            Err(e) => {
                prop_assert!(e.line() >= 1 && e.column() >= 1);
                prop_assert!(e.offset() <= text.len());
                // An error at the end of input after a final newline is on the
                // line after it.
                prop_assert!(e.line() <= text.split('\n').count());
            }
            Ok(f) => {
                prop_assert!(f.height() <= owl_lite::ltl_parse::MAX_NESTING + 1);
                let printed = f.to_string();
                prop_assert_eq!(owl_lite::parse(&printed).ok(), Some(f.clone()));
                if text.len() <= TRANSLATE_MAX_LEN && f.atoms().len() <= 4 {
                    let _ = owl_lite::translate(&f.negate(), &owl_lite::TranslateOptions::default());
                }
            }
        }
    }

    /// Atoms: the parser and a whole check of `F "<atom>"` on chess; an
    /// atom that does not parse is never checked.
    #[test]
    fn atoms(text in mutated(ATOMS)) {
        let parsed = engine::fuzz_parse_atom(&text);
        let mut formula = String::from("F \"");
        for c in text.chars() {
            if c == '"' || c == '\\' {
                formula.push('\\');
            }
            formula.push(c);
        }
        formula.push('"');
        let mut session = chess_session().lock().unwrap_or_else(|p| p.into_inner());
        let checked = session.check(&formula);
        if parsed.is_err() {
            prop_assert!(checked.is_err(), "{formula:?} was checked");
        }
    }

    /// `.aut`: errors name a line of the file; an LTS has no more states
    /// than its transitions can mention (whatever the header announces).
    #[test]
    fn aut_reader(text in mutated(AUTS)) {
        let lines = text.lines().count().max(1);
        match Lts::from_aut(&text) {
            Err(e) => prop_assert!(e.line >= 1 && e.line <= lines, "{e}"),
            Ok(lts) => {
                prop_assert!(lts.num_transitions() < lines);
                prop_assert!(lts.num_states() <= 2 * lts.num_transitions() + 1);
                let back = Lts::from_aut(&lts.to_aut()).unwrap();
                prop_assert_eq!(back.num_states(), lts.num_states());
                prop_assert_eq!(back.num_transitions(), lts.num_transitions());
            }
        }
    }

    /// `.owl`: every error names a position in the file; every accepted
    /// entry holds a formula within the expansion bound that parses.
    #[test]
    fn suite_reader(text in mutated(SUITES)) {
        let lines = text.lines().count().max(1);
        match prust::suite::format::parse(&text) {
            Err(errors) => {
                prop_assert!(!errors.is_empty());
                for e in &errors {
                    prop_assert!(e.pos.line >= 1 && e.pos.line <= lines && e.pos.col >= 1, "{e}");
                }
            }
            Ok(suite) => {
                let _ = suite.plan();
                for entry in &suite.entries {
                    prop_assert!(entry.formula.len() <= prust::suite::format::MAX_EXPANDED_LEN);
                    prop_assert!(owl_lite::parse(&entry.formula).is_ok());
                }
            }
        }
    }
}

proptest! {
    // An import evaluates a small Clojure and unfolds sessions: fewer
    // cases than the parsers above, each within the limits below.
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// `.dcj`: errors and warnings point inside the file; what imports
    /// prints as Rust and compiles within the same limits. Each seed is
    /// imported with the arguments its main session takes.
    #[test]
    fn dcj_reader(text in mutated(DCJS), args in prop::sample::select(vec![vec![], vec![3, 0], vec![2]])) {
        let lines = text.lines().count().max(1);
        let limits = engine::Limits::default()
            .max_states(DCJ_MAX_STATES)
            .timeout(DCJ_TIMEOUT);
        match dcj::import_with(&text, None, &args, &limits) {
            Err(e) => {
                // Line 0 is an error without a position (a missing session).
                prop_assert!(e.line <= lines, "{e} is outside the file");
                prop_assert!(e.line == 0 || e.col >= 1, "{e} has no column");
            }
            Ok(import) => {
                for w in &import.warnings {
                    prop_assert!(w.span.start <= w.span.end && w.span.end <= text.len());
                }
                let _ = import.to_rust();
                let _ = import.spec.compile_with(&limits);
            }
        }
    }

    /// Trails: an error names a line of the file; a trail that reads
    /// writes back as text that reads back to it, and replays on chess to
    /// the end or to an error that names one of its steps.
    #[test]
    fn trail_reader(text in mutated(TRAILS)) {
        let trail = match Trail::parse(&text) {
            Ok(trail) => trail,
            Err(e) => {
                let lines = text.lines().count().max(1);
                prop_assert!(e.line >= 1 && e.line <= lines && e.column >= 1, "{e}");
                return Ok(());
            }
        };
        let written = trail.to_string();
        let back = Trail::parse(&written);
        prop_assert!(back.as_ref().ok() == Some(&trail), "{:?} reads back as {:?}", written, back);
        let lts = protocols::bundled::by_name("chess").unwrap();
        let dummies = lts.type_names().iter().map(|t| Message::named(t, ())).collect();
        if let Err(e) = trail.replay(Strict::new(lts), dummies) {
            prop_assert!(e.step <= trail.steps().count(), "{e}");
        }
    }
}

/// Inputs found to break the tools, each ending in a clear error (or a
/// small result) at once: once a panic, two allocation aborts and a 28 GB
/// matrix.
#[test]
fn tiny_files_do_not_take_the_machine() {
    let e = Lts::from_aut("des (0, 0, 18446744073709551615)\n(0,\"!(A,p,q)\",1)\n").unwrap_err();
    assert_eq!(e.line, 2);
    let lts = Lts::from_aut("des (0, 0, 1000000000)\n").unwrap();
    assert_eq!(lts.num_states(), 1);

    let mut suite = String::from("protocol chess\nlet a0 = \"white SEND *\"\n");
    for i in 1..=24 {
        suite.push_str(&format!("let a{i} = a{} & a{}\n", i - 1, i - 1));
    }
    suite.push_str("test t holds\n  G a24\n");
    let errs = prust::suite::format::parse(&suite).unwrap_err();
    assert!(errs[0]
        .to_string()
        .contains("hint: abbreviations are copied"));

    let a = "r".repeat(60_000);
    let b = format!("{}s", "r".repeat(59_999));
    assert_eq!(engine::names::closest(&a, [b.as_str()]), None);
}
