//! Aldebaran `.aut`: round trips, bad files, non-deterministic LTSs.

use crate::common;

use engine::{Message, Protocol};
use protocols::StateId;
use protocols::{bundled, Lts, Strict};

#[test]
fn round_trip_of_every_bundled_protocol() {
    for name in bundled::list().iter().map(|p| p.name) {
        let lts = bundled::by_name(name).unwrap();
        let text = lts.to_aut();
        let back = Lts::from_aut(&text).unwrap();
        assert_eq!(back.num_states(), lts.num_states(), "{name}");
        assert_eq!(back.num_transitions(), lts.num_transitions(), "{name}");
        assert_eq!(back.initial(), lts.initial());
        // roles and types are numbered by first use in the file; compare by name
        for s in lts.states() {
            let a: Vec<String> = lts
                .transitions(s)
                .iter()
                .map(|(l, t)| format!("{}{t}", lts.label_text(l)))
                .collect();
            let mut b: Vec<String> = back
                .transitions(s)
                .iter()
                .map(|(l, t)| format!("{}{t}", back.label_text(l)))
                .collect();
            let mut a = a;
            a.sort();
            b.sort();
            assert_eq!(a, b, "{name} state {s}");
            if lts.transitions(s).is_empty() {
                assert_eq!(back.is_final(s), lts.is_final(s), "{name} end state {s}");
            }
        }
        // writing it again gives the same text up to the order of labels
        let again = Lts::from_aut(&back.to_aut()).unwrap();
        assert_eq!(again, back, "{name}");
    }
}

#[test]
fn round_trip_keeps_the_object_behaviour() {
    let lts = bundled::by_name("go-fish:2").unwrap();
    let back = Lts::from_aut(&lts.to_aut()).unwrap();
    let (a, b) = (Strict::new(lts), Strict::new(back));
    assert_eq!(common::traces(&a, 9), common::traces(&b, 9));
}

#[test]
fn quoted_and_unquoted_labels_and_blank_lines() {
    let text = "des (0, 3, 4)\n\n(0, !(Move, white, black), 1)\n(1,\"?(Move,white,black)\",2)\n( 2 , \"C(white,black)\" , 3 )\n";
    let lts = Lts::from_aut(text).unwrap();
    assert_eq!(lts.roles(), ["white", "black"]);
    assert_eq!(lts.type_names(), ["Move"]);
    assert_eq!(
        lts.label_text(&lts.transitions(StateId::new(2))[0].0),
        "C(white,black)"
    );
    assert!(lts.is_final(StateId::new(3)) && !lts.is_final(StateId::new(2)));
    let mut p = Strict::new(lts);
    p.try_send(0, 1, Message::named("Move", ())).unwrap();
    p.try_recv(1, Some(0)).unwrap();
    assert!(!p.is_terminated());
    p.try_close(0, 1).unwrap();
    assert!(p.is_terminated());
}

/// Where `text` fails and why: (line, column, message, hint).
fn error(text: &str) -> (usize, usize, String, String) {
    let e = Lts::from_aut(text).unwrap_err();
    (e.line, e.column, e.message, e.hint)
}

/// Every kind of bad file names its line and column (1-based, in
/// characters) and has a hint; each case is (text, line, column, a part
/// of the message, a part of the hint).
#[test]
fn bad_files_name_the_line_and_column_with_a_hint() {
    let header = "des (initial, transitions, states)";
    let transition = "(from,\"label\",to)";
    let labels = "`C(sender,receiver)`";
    let states = "numbered from 0 to the header's state count minus 1";
    let cases: &[(&str, usize, usize, &str, &str)] = &[
        // empty file, header
        ("", 1, 1, "empty file", header),
        ("\n \n", 1, 1, "empty file", header),
        ("\n\ndse (0, 0, 1)\n", 3, 1, "expected the header", header),
        ("  des 0, 0, 1\n", 1, 7, "expected `(` after `des`", header),
        ("des (0, 0, 1\n", 1, 13, "missing `)`", header),
        (
            "des (0, 0, 1) x\n",
            1,
            15,
            "unexpected text after the header",
            header,
        ),
        ("des (0, 0)\n", 1, 5, "has 2 numbers, not 3", header),
        ("des (0, x, 1)\n", 1, 9, "`x` is not a number", header),
        ("des (0, , 1)\n", 1, 8, "a number is missing", header),
        ("des (0, 0, -1)\n", 1, 12, "`-1` is not a number", header),
        (
            "des (0, 0, 99999999999999999999)\n",
            1,
            12,
            "too large",
            header,
        ),
        (
            "des (0, 0, 0)\n",
            1,
            12,
            "at least one state",
            "third number",
        ),
        (
            "des (5, 0, 2)\n",
            1,
            6,
            "initial state 5",
            "numbered from 0",
        ),
        // the transition count
        (
            "des (0, 2, 2)\n(0,\"!(A,p,q)\",1)\n",
            1,
            9,
            "announces 2 transitions but the file has 1",
            "second number",
        ),
        (
            "des (0, 0, 2)\n\n  (0,\"!(A,p,q)\",1)\n",
            3,
            3,
            "announces 0 transitions but the file has more",
            "second number",
        ),
        // edge syntax
        (
            "des (0, 1, 2)\n0,\"!(A,p,q)\",1\n",
            2,
            1,
            "expected `(`",
            transition,
        ),
        (
            "des (0, 1, 2)\n(0,\"!(A,p,q)\",1\n",
            2,
            16,
            "missing `)`",
            transition,
        ),
        (
            "des (0, 1, 2)\n(0,\"!(A,p,q)\",1) junk\n",
            2,
            18,
            "unexpected text after the transition",
            transition,
        ),
        ("des (0, 1, 2)\n(0 1)\n", 2, 2, "three parts", transition),
        (
            "des (0, 1, 2)\n(0 \"x\", 1)\n",
            2,
            7,
            "this one has two",
            transition,
        ),
        // states
        (
            "des (0, 1, 2)\n(0,\"!(A,p,q)\",2)\n",
            2,
            15,
            "state 2 is not below the state count 2",
            states,
        ),
        (
            "des (0, 1, 2)\n( 9 ,\"!(A,p,q)\",1)\n",
            2,
            3,
            "state 9",
            states,
        ),
        (
            "des (0, 1, 2)\n(0,\"!(A,p,q)\",18446744073709551616)\n",
            2,
            15,
            "too large",
            states,
        ),
        (
            "des (0, 1, 2)\n(zero,\"!(A,p,q)\",1)\n",
            2,
            2,
            "`zero` is not a number",
            states,
        ),
        // labels
        (
            "des (0, 1, 2)\n(0,\"tau\",1)\n",
            2,
            5,
            "unknown label `tau`",
            labels,
        ),
        (
            "des (0, 1, 2)\n(0,\"!(A,p)\",1)\n",
            2,
            6,
            "needs 3 non-empty arguments",
            labels,
        ),
        (
            "des (0, 1, 2)\n(0,\"C(p,q,r)\",1)\n",
            2,
            6,
            "needs 2",
            labels,
        ),
        (
            "des (0, 1, 2)\n(0,\"!A,p,q\",1)\n",
            2,
            6,
            "malformed label",
            labels,
        ),
        (
            "des (0, 1, 2)\n(0,\"!(A,p,q),1)\n",
            2,
            4,
            "unterminated quote",
            "quoted label",
        ),
        (
            "des (0, 1, 2)\n(0,\"!(A,p,p)\",1)\n",
            2,
            11,
            "itself",
            "two different roles",
        ),
        // columns count characters, not bytes
        (
            "des (0, 1, 2)\n(0,\"é\",1)\n",
            2,
            5,
            "unknown label `é`",
            labels,
        ),
        (
            "des (0, 1, 2)\n(0,\"‽(A,p,q)\",é)\n",
            2,
            15,
            "`é` is not a number",
            states,
        ),
        // CRLF line breaks: the same lines and columns as LF
        (
            "des (0, 1, 2)\r\n(0,\"!(A,p,q)\",7)\r\n",
            2,
            15,
            "state 7",
            states,
        ),
        ("des (0, 0, 1) x\r\n", 1, 15, "unexpected text", header),
    ];
    for &(text, line, column, message, hint) in cases {
        let (l, c, m, h) = error(text);
        assert_eq!((l, c), (line, column), "{text:?}: {m}");
        assert!(m.contains(message), "{text:?}: {m}");
        assert!(h.contains(hint), "{text:?}: {h}");
    }
    // CRLF files that are fine read as LF ones do
    let crlf = Lts::from_aut("des (0, 1, 2)\r\n(0,\"!(A,p,q)\",1)\r\n").unwrap();
    assert_eq!(crlf.to_aut(), "des (0, 1, 2)\n(0,\"!(A,p,q)\",1)\n");
}

/// The text of an error: where, the line with a caret under the column, and
/// the hint; a very long line is shown only around the column.
#[test]
fn errors_show_the_line_with_a_caret() {
    let e = Lts::from_aut("des (0, 1, 2)\n(0,\"!(A,p,p)\",1)\n").unwrap_err();
    assert_eq!(
        e.to_string(),
        ".aut line 2, column 11: label `!(A,p,p)`: a role cannot talk to itself\n  \
         | (0,\"!(A,p,p)\",1)\n  \
         |           ^\n  \
         hint: the sender and the receiver of a label are two different roles"
    );
    assert!(e.in_file("x.aut").starts_with("x.aut:2:11: label"));
    // a tab before the column is kept under it, so the caret lines up
    let e = Lts::from_aut("\tdes (0, 1)\n").unwrap_err();
    assert!(
        e.to_string().contains("  | \tdes (0, 1)\n  | \t    ^\n"),
        "{e}"
    );
    // a 1 MB line shows 100 characters around the column, not 1 MB
    let long = format!("des (0, 0, 1) {}", "x".repeat(1 << 20));
    let e = Lts::from_aut(&long).unwrap_err();
    assert_eq!((e.line, e.column), (1, 15));
    assert!(e.to_string().len() < 600, "{}", e.to_string().len());
    let junk = format!("des (0, 1, 2)\n(0,\"!(A,p,q)\",{}", "9".repeat(1 << 20));
    let e = Lts::from_aut(&junk).unwrap_err();
    assert_eq!((e.line, e.column), (2, (1 << 20) + 15), "{}", e.message);
    let text = e.to_string();
    assert!(text.len() < 600, "{}", text.len());
    assert!(text.contains("| …9999"), "{text}");
    let huge = format!("des (0, 1, 2)\n(0,\"!(A,p,q)\",{})", "9".repeat(1 << 20));
    let e = Lts::from_aut(&huge).unwrap_err();
    assert_eq!((e.line, e.column), (2, 15));
    assert!(e.message.contains("too large"), "{}", e.message);
    let text = e.to_string();
    assert!(text.len() < 600, "{}", text.len());
    assert!(text.contains("9999…\n"), "{text}");
}

/// p sends an A to q in one of two ways; in the first q must then close
/// its channel to p, in the second answer with C. The object determinises:
/// after the send both continuations are possible.
#[test]
fn non_deterministic_lts_is_determinised() {
    let text = "des (0, 7, 8)
(0,\"!(A,p,q)\",1)
(0,\"!(A,p,q)\",2)
(1,\"?(A,p,q)\",3)
(2,\"?(A,p,q)\",4)
(3,\"C(q,p)\",5)
(4,\"!(C,q,p)\",6)
(6,\"?(C,q,p)\",7)
";
    let lts = Lts::from_aut(text).unwrap();
    assert!(!lts.is_deterministic());
    let dfa = lts.determinise(100).unwrap();
    assert!(dfa.is_deterministic());
    assert_eq!((dfa.num_states(), dfa.num_transitions()), (6, 5));
    let mut p = Strict::new(lts.clone());
    p.try_send(0, 1, Message::named("A", ())).unwrap();
    p.try_recv(1, None).unwrap();
    let mut b = p.clone();
    b.try_close(1, 0).unwrap();
    assert!(b.is_terminated());
    p.try_send(1, 0, Message::named("C", ())).unwrap();
    assert!(!p.is_terminated(), "C is in transit");
    p.try_recv(0, None).unwrap();
    assert!(p.is_terminated());
    // the object's traces are the LTS's traces
    let strict: Vec<Vec<String>> = common::traces(&Strict::new(lts.clone()), 5)
        .into_iter()
        .filter(|t| t.last().is_none_or(|l| l != "END" && l != "DEADLOCK"))
        .collect();
    let mut want: Vec<Vec<String>> = common::lts_traces(&lts, 5).into_keys().collect();
    want.sort();
    assert_eq!(strict, want);
    assert!(matches!(
        lts.determinise(2),
        Err(protocols::Error::StateBound { .. })
    ));
}

/// An `.aut` LTS need not track channels: the object still delivers in
/// FIFO order and only lets a receive through if the head of the channel
/// has the label's type.
#[test]
fn strict_object_enforces_fifo_on_aut() {
    let text = "des (0, 4, 5)
(0,\"!(A,p,q)\",1)
(1,\"!(B,p,q)\",2)
(2,\"?(B,p,q)\",3)
(3,\"?(A,p,q)\",4)
";
    let mut p = Strict::new(Lts::from_aut(text).unwrap());
    p.try_send(0, 1, Message::named("A", 1)).unwrap();
    p.try_send(0, 1, Message::named("B", 2)).unwrap();
    let before = p.clone();
    assert!(p.try_recv(1, Some(0)).is_err(), "B is not at the head");
    assert_eq!(p, before);
    assert!(!p.is_terminated());
}

mod random {
    use super::common;
    use proptest::prelude::*;
    use protocols::{Lts, Strict};

    const LABELS: [&str; 6] = [
        "!(A,p,q)", "?(A,p,q)", "!(B,p,q)", "?(B,p,q)", "!(A,q,p)", "C(q,p)",
    ];

    fn aut() -> impl Strategy<Value = String> {
        (1..6usize).prop_flat_map(|n| {
            prop::collection::vec((0..n, 0..LABELS.len(), 0..n, prop::bool::ANY), 0..10).prop_map(
                move |ts| {
                    let mut s = format!("des (0, {}, {n})\n", ts.len());
                    for (a, l, b, quoted) in ts {
                        let l = if quoted {
                            format!("\"{}\"", LABELS[l])
                        } else {
                            LABELS[l].to_string()
                        };
                        s.push_str(&format!("({a},{l},{b})\n"));
                    }
                    s
                },
            )
        })
    }

    /// Receives in a word match the heads of their channels.
    fn fifo(w: &[String]) -> bool {
        let mut chans: std::collections::HashMap<String, std::collections::VecDeque<String>> =
            Default::default();
        for l in w {
            let args: Vec<&str> = l[2..l.len() - 1].split(',').collect();
            if l.starts_with('C') {
                continue;
            }
            let chan = format!("{}{}", args[1], args[2]);
            if l.starts_with('!') {
                chans.entry(chan).or_default().push_back(args[0].into());
            } else if chans.entry(chan).or_default().pop_front().as_deref() != Some(args[0]) {
                return false;
            }
        }
        true
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

        /// Writing and reading back gives the same transitions.
        #[test]
        fn aut_round_trip(text in aut()) {
            let lts = Lts::from_aut(&text).unwrap();
            let back = Lts::from_aut(&lts.to_aut()).unwrap();
            prop_assert_eq!(back.num_states(), lts.num_states());
            for s in lts.states() {
                let mut a: Vec<String> = lts.transitions(s).iter().map(|(l, t)| format!("{} {t}", lts.label_text(l))).collect();
                let mut b: Vec<String> = back.transitions(s).iter().map(|(l, t)| format!("{} {t}", back.label_text(l))).collect();
                a.sort();
                b.sort();
                prop_assert_eq!(a, b);
                prop_assert_eq!(lts.is_final(s), back.is_final(s));
            }
        }

        /// The strict object of a random, possibly non-deterministic LTS
        /// (determinised) has exactly the LTS's FIFO-consistent traces, and
        /// ends exactly after words that can reach an end with empty channels.
        #[test]
        fn strict_object_runs_the_nfa(text in aut()) {
            let lts = Lts::from_aut(&text).unwrap();
            let p = Strict::new(lts.clone());
            let got: std::collections::BTreeSet<Vec<String>> = common::traces(&p, 6)
                .into_iter()
                .map(|mut w| { if w.last().is_some_and(|l| l == "END" || l == "DEADLOCK") { w.pop(); } w })
                .collect();
            let want: std::collections::BTreeSet<Vec<String>> =
                common::lts_traces(&lts, 6).into_keys().filter(|w| fifo(w)).collect();
            prop_assert_eq!(got, want);
        }
    }
}

/// A header is checked against the file, never trusted for memory: these
/// once panicked (capacity overflow) or aborted on a 24 GB allocation
/// before reading a transition.
#[test]
fn huge_headers_are_read_from_the_file() {
    let (l, _, m, _) = error("des (0, 0, 18446744073709551615)\n(0,\"!(A,p,q)\",1)\n");
    assert!(l == 2 && m.contains("announces 0 transitions"), "{m}");
    let (l, _, m, _) = error("des (0, 0, 1000000000)\n(0,\"!(A,p,q)\",1)\n");
    assert!(l == 2 && m.contains("announces 0 transitions"), "{m}");
    let (l, _, m, _) = error("des (0, 18446744073709551615, 3)\n(0,\"!(A,p,q)\",1)\n");
    assert!(
        l == 1 && m.contains("announces 18446744073709551615 transitions but the file has 1"),
        "{m}"
    );
    let (l, _, m, _) = error("des (0, 1, 18446744073709551616)\n");
    assert!(l == 1 && m.contains("too large"), "{m}");
    // The headers exactly as they were found: a state count alone costs
    // nothing, and the states no transition mentions are not stored.
    for text in [
        "des (0, 0, 18446744073709551615)\n",
        "des (0, 0, 1000000000)\n",
    ] {
        let lts = Lts::from_aut(text).unwrap();
        assert_eq!((lts.num_states(), lts.num_transitions()), (1, 0));
        assert!(lts.is_final(lts.initial()));
    }
    // A header announcing a billion states with two in use is an LTS of two.
    let lts = Lts::from_aut("des (0, 1, 1000000000)\n(0,\"!(A,p,q)\",1)\n").unwrap();
    assert_eq!((lts.num_states(), lts.num_transitions()), (2, 1));
    // State numbers past u32 are not truncated onto small ones.
    let lts =
        Lts::from_aut("des (4294967296, 1, 18446744073709551615)\n(4294967296,\"!(A,p,q)\",0)\n")
            .unwrap();
    assert_eq!(lts.num_states(), 2);
    let init = lts.initial();
    assert_eq!(lts.transitions(init).len(), 1);
    let (_, to) = lts.transitions(init)[0];
    assert_ne!(to, init, "state 0 and state 2^32 are two states");
    assert!(lts.is_final(to));
}

/// States no transition mentions are left out and the rest keep their
/// order; a file without gaps keeps its numbers.
#[test]
fn unmentioned_states_are_left_out_in_order() {
    let lts = Lts::from_aut("des (5, 2, 10)\n(5,\"!(A,p,q)\",9)\n(9,\"?(A,p,q)\",2)\n").unwrap();
    assert_eq!(lts.num_states(), 3);
    // 2, 5, 9 become 0, 1, 2.
    assert_eq!(lts.initial(), StateId::new(1));
    assert_eq!(lts.transitions(StateId::new(1))[0].1, StateId::new(2));
    assert_eq!(lts.transitions(StateId::new(2))[0].1, StateId::new(0));
    assert!(lts.is_final(StateId::new(0)));
    let text = "des (0, 2, 3)\n(0,\"!(A,p,q)\",1)\n(1,\"?(A,p,q)\",2)\n";
    assert_eq!(Lts::from_aut(text).unwrap().to_aut(), text);
}

/// More transitions than the header announces: the error is on the first
/// line too many.
#[test]
fn extra_transitions_are_refused_where_they_start() {
    let (l, _, m, _) =
        error("des (0, 1, 3)\n(0,\"!(A,p,q)\",1)\n\n(1,\"?(A,p,q)\",2)\n(1,\"?(A,p,q)\",2)\n");
    assert!(
        l == 4 && m.contains("announces 1 transitions but the file has more"),
        "{m}"
    );
}

/// A label's names are names a formula can name: a type is letters,
/// digits and `_`, a role one word without quotes, `*` or white space.
/// Anything else is an error at its line and column with a hint (a NUL
/// or a `\"` became part of a type's name, a space of a role's).
#[test]
fn names_a_formula_cannot_name_are_errors_with_a_hint() {
    let hint = "a type is letters, digits and `_`";
    let cases: &[(&str, usize, &str)] = &[
        (
            "(0,\"!(M\\\",a,b)\",1)",
            7,
            "a type name is letters, digits and `_`, not `\\`",
        ),
        ("(0,\"!(M\0x,a,b)\",1)", 7, "not `\\0`"),
        ("(0,\"!(M x,a,b)\",1)", 7, "not ` `"),
        ("(0,\"!(a::M,a,b)\",1)", 7, "a short name (`M`), not a path"),
        ("(0,\"!(M-1,a,b)\",1)", 7, "not `-`"),
        (
            "(0,\"?(M,a b,c)\",1)",
            9,
            "a role name cannot contain white space",
        ),
        ("(0,\"!(M,a,b\0)\",1)", 11, "control character \\0"),
        ("(0,\"!(M,a*,b)\",1)", 9, "cannot contain `*`"),
        ("(0,\"C(a,\"b\")\",1)", 9, "cannot contain `\"`"),
        ("(0,\"C(a\u{7f},b)\",1)", 7, "control character"),
        ("(0,‽(Ping,a\tb,c),1)", 11, "white space"),
    ];
    for &(line, column, message) in cases {
        let text = format!("des (0, 1, 2)\n{line}\n");
        let (l, c, m, h) = error(&text);
        assert_eq!((l, c), (2, column), "{line:?}: {m}");
        assert!(m.contains(message), "{line:?}: {m}");
        assert!(h.contains(hint), "{line:?}: {h}");
        // The message shows no raw control character.
        assert!(!m.chars().any(char::is_control), "{m:?}");
    }
    // Names as the bundled protocols, Discourje and the `.dcj` importer
    // write them are fine.
    let lts = Lts::from_aut(
        "des (0, 2, 3)\n(0,\"!(Move_2,worker_1_,my-role)\",1)\n(1,\"C(my-role,worker_1_)\",2)\n",
    )
    .unwrap();
    assert_eq!(lts.roles(), ["worker_1_", "my-role"]);
}
