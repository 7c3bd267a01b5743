//! Trail files: a counterexample written, parsed and replayed; trails
//! edited by hand that no longer replay; parse errors with line and
//! column; the trail saved by a failing check.

use crate::common;

use common::ring::{Token, TokenRing};
use common::small::{Chess, Move, OneShot, Req};
use engine::{
    check_violated, dummies, Checker, Ending, Message, Protocol, Refused, RoleId, Trail, TrailError,
};

fn one_shot(deadlock: bool) -> OneShot {
    OneShot { step: 0, deadlock }
}

/// Writes the counterexample as a trail, parses it and replays it on a
/// fresh object: the same transcript as replaying the counterexample, and
/// the text reads back unchanged.
fn round_trip<P: Protocol + std::fmt::Debug>(
    formula: &str,
    proto: P,
    dummies: Vec<Message>,
) -> String {
    let c = check_violated(formula, proto.clone(), dummies.clone());
    let text = c.to_trail();
    let trail = Trail::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(trail.to_string(), text);
    assert_eq!(trail.prefix.len(), c.prefix.len(), "{text}");
    assert_eq!(trail.cycle.len(), c.cycle.len(), "{text}");
    assert_eq!(trail.ending, c.ending, "{text}");
    let replayed = trail
        .replay(proto.clone(), dummies)
        .unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(replayed, c.replay(proto), "{text}");
    text
}

#[test]
fn a_lasso_written_parsed_and_replayed_gives_the_same_transcript() {
    let text = round_trip(r#"F G "white SEND *""#, Chess::new(), dummies![Move]);
    assert!(text.starts_with("prust-trail 1\n"), "{text}");
    assert!(
        text.contains("white SEND <Move> TO black\nblack RECV <Move> FROM white\n"),
        "{text}"
    );
    assert!(text.contains("\ncycle\n"), "{text}");
    assert!(!text.contains("end"), "a lasso has no end: {text}");
}

#[test]
fn finite_runs_round_trip_with_their_ending() {
    let deadlock = round_trip(r#"G !"DEADLOCK""#, one_shot(true), dummies![Req]);
    assert!(
        deadlock.ends_with("\nend deadlock waiting client server\n"),
        "{deadlock}"
    );
    let end = round_trip(r#"G !"END""#, one_shot(false), dummies![Req]);
    assert!(end.ends_with("\nend terminated\n"), "{end}");
    let bad = round_trip(r#"G !"p2 RECV *""#, TokenRing::new(3), dummies![Token]);
    assert!(
        bad.ends_with("p2 RECV <Token> FROM p1\nend violated\n"),
        "{bad}"
    );
}

#[test]
fn the_report_trail_keeps_the_formula_even_over_several_lines() {
    let formula = "G (\"white SEND *\" ->\n   F \"black SEND *\") && G !\"black SEND *\"";
    let report = Checker::new()
        .check(formula, Chess::new(), dummies![Move])
        .unwrap();
    let text = report.to_trail().expect("violated");
    assert!(
        text.starts_with(
            "prust-trail 1\nformula G (\"white SEND *\" ->\nformula    F \"black SEND *\") && G"
        ),
        "{text}"
    );
    let trail = Trail::parse(&text).unwrap();
    assert_eq!(trail.formula.as_deref(), Some(formula));
    assert_eq!(trail, report.trail().unwrap());
    let with_protocol = Trail {
        protocol: Some("chess".into()),
        ..trail
    };
    let text = with_protocol.to_string();
    assert!(
        text.starts_with("prust-trail 1\nprotocol chess\nformula "),
        "{text}"
    );
    assert_eq!(Trail::parse(&text).unwrap(), with_protocol);
}

/// Roles and a type whose names need quotes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Odd {
    sent: bool,
}

impl Protocol for Odd {
    fn roles(&self) -> Vec<String> {
        vec!["left hand".into(), "#2".into(), "say \"hi\"\\".into()]
    }
    fn try_send(&mut self, role: RoleId, to: RoleId, msg: Message) -> Result<(), Refused<Message>> {
        if !self.sent && role == 0 && to == 2 && msg.type_name() == "a b" {
            self.sent = true;
            Ok(())
        } else {
            Err(Refused(msg))
        }
    }
    fn try_recv(&mut self, _: RoleId, _: Option<RoleId>) -> Result<(RoleId, Message), Refused> {
        Err(Refused(()))
    }
}

/// A lone carriage return inside a header is a line break to some
/// editors: the writer flattens it to a space (a header is one line), so
/// the reader must too, or a trail read and written again would name
/// another protocol (found by the `trail` fuzz target).
#[test]
fn a_carriage_return_inside_the_protocol_header_reads_as_the_writer_writes() {
    let text = "prust-trail 1\nprotocol chess\r\rgame\nwhite SEND <Move> TO black\nend deadlock\n";
    let trail = Trail::parse(text).unwrap();
    assert_eq!(trail.protocol.as_deref(), Some("chess  game"));
    let written = trail.to_string();
    assert_eq!(Trail::parse(&written).unwrap(), trail, "{written:?}");
}

/// Empty `formula` lines at the end of the formula add nothing to it: the
/// writer writes the formula's lines, which leave a final empty one out,
/// so the reader must drop it too (found by the `trail` fuzz target).
#[test]
fn empty_formula_lines_at_the_end_are_no_part_of_the_formula() {
    let text = "prust-trail 1\nformula G (\"a SEND *\" ->\nformula   F \"b RECV *\")\nformula \nformula\nwhite SEND <Move> TO black\nend violated\n";
    let trail = Trail::parse(text).unwrap();
    assert_eq!(
        trail.formula.as_deref(),
        Some("G (\"a SEND *\" ->\n  F \"b RECV *\")")
    );
    let written = trail.to_string();
    assert_eq!(Trail::parse(&written).unwrap(), trail, "{written:?}");
}

#[test]
fn names_with_spaces_quotes_and_hashes_are_quoted() {
    let text = round_trip(
        r#"G !"DEADLOCK""#,
        Odd { sent: false },
        vec![Message::named("a b", ())],
    );
    assert!(
        text.contains("\"left hand\" SEND \"a b\" TO \"say \\\"hi\\\"\\\\\"\n"),
        "{text}"
    );
    assert!(
        text.contains("waiting \"left hand\" \"#2\" \"say"),
        "{text}"
    );
}

fn chess_trail() -> String {
    check_violated(r#"F G "white SEND *""#, Chess::new(), dummies![Move]).to_trail()
}

/// Replaces line `n` (1-based) of `text`.
fn edit(text: &str, n: usize, line: &str) -> String {
    let mut lines: Vec<&str> = text.lines().collect();
    lines[n - 1] = line;
    lines.join("\n") + "\n"
}

#[test]
fn a_trail_edited_to_a_refused_step_reports_that_step() {
    let text = chess_trail();
    // The whole run is the cycle; line 5 is step 3, black's first move:
    // give it to white instead.
    assert_eq!(text.lines().nth(1), Some("cycle"), "{text}");
    assert_eq!(
        text.lines().nth(4),
        Some("black SEND <Move> TO white"),
        "{text}"
    );
    let edited = edit(&text, 5, "white SEND <Move> TO black");
    let e = Trail::parse(&edited)
        .unwrap()
        .replay(Chess::new(), dummies![Move])
        .unwrap_err();
    assert_eq!((e.step, e.line), (3, Some(5)), "{e}");
    assert!(
        e.message.contains(
            "step 3 `white SEND <Move> TO black`: the send was refused; \
             enabled here: black SEND <Move> TO white"
        ),
        "{e}"
    );
    // The transcript stops after the last step that replayed.
    assert!(
        e.transcript.contains("   2. black RECV <Move> FROM white"),
        "{e}"
    );
    assert!(!e.transcript.contains("   3."), "{e}");
    assert!(e.to_string().contains("(trail line 5)"), "{e}");
}

#[test]
fn a_trail_naming_what_the_object_does_not_have_says_so() {
    let text = chess_trail();
    let e = Trail::parse(&edit(&text, 4, "black RECV <Move> FROM whit"))
        .unwrap()
        .replay(Chess::new(), dummies![Move])
        .unwrap_err();
    assert_eq!((e.step, e.line), (2, Some(4)), "{e}");
    assert!(
        e.message.contains(
            "the object has no role `whit`; did you mean `white`? (its roles: white, black)"
        ),
        "{e}"
    );
    let e = Trail::parse(&edit(&text, 3, "white SEND <Mvoe> TO black"))
        .unwrap()
        .replay(Chess::new(), dummies![Move])
        .unwrap_err();
    assert_eq!(e.step, 1, "{e}");
    assert!(
        e.message
            .contains("no message type <Mvoe>; did you mean <Move>? (its types: Move)"),
        "{e}"
    );
    // A declared type without a dummy is known: sent as a `()` stand-in,
    // which this object (it looks only at the type name) accepts.
    let transcript = Trail::parse(&text)
        .unwrap()
        .replay(Chess::new(), vec![])
        .unwrap();
    assert!(
        transcript.contains("1. white SEND <Move> TO black"),
        "{transcript}"
    );
}

#[test]
fn a_receive_of_another_type_is_reported() {
    let text = chess_trail();
    // `Resign` is known through its dummy (the object declares only `Move`).
    let e = Trail::parse(&edit(&text, 4, "black RECV <Resign> FROM white"))
        .unwrap()
        .replay(
            Chess::new(),
            vec![Message::named("Resign", ()), Message::new(Move)],
        )
        .unwrap_err();
    assert_eq!(e.step, 2, "{e}");
    assert!(
        e.message
            .contains("received <Move> from white instead of <Resign> from white"),
        "{e}"
    );
}

#[test]
fn an_ending_that_differs_is_reported() {
    let text =
        "prust-trail 1\nwhite SEND <Move> TO black\nblack RECV <Move> FROM white\nend deadlock\n";
    let e = Trail::parse(text)
        .unwrap()
        .replay(Chess::new(), dummies![Move])
        .unwrap_err();
    assert_eq!((e.step, e.line), (2, Some(3)), "{e}");
    assert!(
        e.message.contains(
            "the run should end here (it deadlocks), but `black SEND <Move> TO white` is enabled"
        ),
        "{e}"
    );
    // Without dummies, the replay still probes the types the trail sends.
    let e = Trail::parse(text)
        .unwrap()
        .replay(Chess::new(), vec![])
        .unwrap_err();
    assert!(e.message.contains("is enabled"), "{e}");

    let deadlock = check_violated(r#"G !"DEADLOCK""#, one_shot(true), dummies![Req]).to_trail();
    let terminated = deadlock.replace("end deadlock waiting client server", "end terminated");
    let e = Trail::parse(&terminated)
        .unwrap()
        .replay(one_shot(true), dummies![Req])
        .unwrap_err();
    assert!(
        e.message
            .contains("the run should end here and it terminates, but the object has deadlocked"),
        "{e}"
    );
    let waiting = deadlock.replace("waiting client server", "waiting server");
    let e = Trail::parse(&waiting)
        .unwrap()
        .replay(one_shot(true), dummies![Req])
        .unwrap_err();
    assert!(
        e.message
            .contains("the roles still waiting are [client, server], not [server]"),
        "{e}"
    );
    // A plain `end deadlock` does not state the waiting roles; the
    // transcript gives the object's.
    let plain = deadlock.replace(" waiting client server", "");
    let t = Trail::parse(&plain)
        .unwrap()
        .replay(one_shot(true), dummies![Req])
        .unwrap();
    assert!(
        t.ends_with("then nothing can happen: deadlock (waiting: client, server)\n"),
        "{t}"
    );
}

#[test]
fn a_cycle_that_does_not_close_is_reported() {
    let text = "prust-trail 1\ncycle\nwhite SEND <Move> TO black\nblack RECV <Move> FROM white\n";
    let e = Trail::parse(text)
        .unwrap()
        .replay(Chess::new(), dummies![Move])
        .unwrap_err();
    assert_eq!((e.step, e.line), (2, Some(4)), "{e}");
    assert!(
        e.message
            .contains("not in the state where the cycle started"),
        "{e}"
    );
}

fn parse_err(text: &str) -> TrailError {
    match Trail::parse(text) {
        Ok(t) => panic!("parsed: {t:?}\n{text}"),
        Err(e) => e,
    }
}

#[test]
fn parse_errors_have_line_column_and_hint() {
    let ok = "prust-trail 1\nwhite SEND <Move> TO black\n";
    let cases: &[(&str, usize, usize, &str)] = &[
        ("", 1, 1, "the trail is empty"),
        (
            "white SEND <Move> TO black\n",
            1,
            1,
            "not a prust trail file",
        ),
        ("prust-trail 2\n", 1, 13, "version 2 is not supported"),
        ("prust-trail\n", 1, 13, "expected the format version"),
        (
            "# c\n\n  prust-trail one\n",
            3,
            15,
            "expected the format version",
        ),
        (
            "prust-trail 1\nwhite SEND Move TO black\nend deadlock\n",
            2,
            12,
            "angle brackets",
        ),
        (
            "prust-trail 1\nwhite SNED <Move> TO black\n",
            2,
            7,
            "expected SEND, RECV or CLOSE",
        ),
        (
            "prust-trail 1\nblack RECV <Move> TO white\n",
            2,
            19,
            "expected `FROM`",
        ),
        (
            "prust-trail 1\nwhite SEND <Move> TO\n",
            2,
            21,
            "expected the peer role",
        ),
        (
            "prust-trail 1\nwhite SEND <Move>\n",
            2,
            18,
            "expected `TO PEER`",
        ),
        (
            "prust-trail 1\nwhite CLOSE TO black now\n",
            2,
            22,
            "unexpected `now`",
        ),
        ("prust-trail 1\nwhite SEND \"Mo\n", 2, 12, "not closed"),
        (
            "prust-trail 1\nwhite SEND \"M\"x TO b\n",
            2,
            15,
            "followed by a space",
        ),
        (
            "prust-trail 1\nwhite SEND \"M\\q\" TO b\n",
            2,
            14,
            "unknown escape",
        ),
        ("prust-trail 1\nwhite\n", 2, 1, "`white` is not a step"),
        (
            "prust-trail 1\nend sideways\n",
            2,
            5,
            "unknown ending `sideways`",
        ),
        (
            "prust-trail 1\nend\n",
            2,
            5,
            "`end` needs the kind of ending",
        ),
        (
            "prust-trail 1\nend terminated now\n",
            2,
            16,
            "unexpected `now`",
        ),
        (
            "prust-trail 1\nend deadlock for a b\n",
            2,
            14,
            "unexpected `for`",
        ),
        (
            "prust-trail 1\nend deadlock\nwhite SEND <Move> TO black\n",
            3,
            1,
            "nothing may follow the `end` line (line 2)",
        ),
        (
            "prust-trail 1\nwhite SEND <Move> TO black\nformula G F x\nend deadlock\n",
            3,
            1,
            "header comes after the steps",
        ),
        (
            "prust-trail 1\nprotocol\n",
            2,
            9,
            "`protocol` needs a value",
        ),
        (
            "prust-trail 1\nprotocol a\nprotocol b\n",
            3,
            1,
            "a second `protocol`",
        ),
        (
            "prust-trail 1\nwhite SEND <Move> TO black\ncycle\n",
            3,
            1,
            "not followed by any step",
        ),
        (
            "prust-trail 1\ncycle\ncycle\n",
            3,
            1,
            "a second `cycle` line (the first is line 2)",
        ),
        ("prust-trail 1\ncycle now\n", 2, 7, "nothing after `cycle`"),
        (
            "prust-trail 1\ncycle\nwhite SEND <Move> TO black\nend deadlock\n",
            4,
            1,
            "has no `end`",
        ),
        (ok, 2, 27, "does not say how the run goes on"),
    ];
    for &(text, line, column, what) in cases {
        let e = parse_err(text);
        assert_eq!((e.line, e.column), (line, column), "{text:?}: {e}");
        assert!(e.message.contains(what), "{text:?}: {e}");
        assert!(!e.hint.is_empty(), "{text:?}: {e}");
        let shown = e.to_string();
        assert!(
            shown.starts_with(&format!("trail line {line}, column {column}: ")),
            "{shown}"
        );
        assert!(shown.contains("\n  hint: "), "{shown}");
    }
}

#[test]
fn the_parse_error_points_at_the_column() {
    let e = parse_err("prust-trail 1\n  white SEND <Move> TO black extra\n");
    assert_eq!(
        e.to_string(),
        "trail line 2, column 30: unexpected `extra` after the step\n   \
         |   white SEND <Move> TO black extra\n   \
         |                              ^\n  hint: one step per line"
    );
}

#[test]
fn comments_blank_lines_crlf_and_keyword_case_are_accepted() {
    let text = "# saved\r\nprust-trail 1\r\n\r\n# the moves\r\n  white send <Move> to black\r\nblack Recv <Move> From white\r\nEND deadlock\r\n";
    let t = Trail::parse(text).unwrap();
    assert_eq!(t.prefix.len(), 2);
    assert_eq!(t.prefix[0].line, 5);
    assert_eq!(t.prefix[1].to_string(), "black RECV <Move> FROM white");
    assert_eq!(t.ending, Some(Ending::Deadlock { waiting: vec![] }));
}

/// A failing check with a trail directory: the panic names the file, and
/// the file replays to the run in the report.
#[test]
fn a_failing_check_saves_its_trail_and_names_it() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("trail-from-checker");
    let _ = std::fs::remove_dir_all(&dir);
    let formula = r#"G !"black SEND *""#;
    let panic = std::panic::catch_unwind(|| {
        Checker::new()
            .trail_dir(&dir)
            .assert_holds(formula, Chess::new(), dummies![Move])
    })
    .expect_err("the property is violated");
    let msg = panic
        .downcast_ref::<String>()
        .expect("a formatted panic message");
    assert!(msg.starts_with("property violated: "), "{msg}");
    let path = msg
        .split("counterexample saved to ")
        .nth(1)
        .and_then(|rest| rest.split(" (").next())
        .unwrap_or_else(|| panic!("no path in: {msg}"));
    let path = std::path::Path::new(path);
    assert_eq!(path.parent(), Some(dir.as_path()), "{msg}");
    let name = path.file_name().unwrap().to_str().unwrap();
    assert!(
        // The file is named after the test thread: the test's path in
        // the test binary, `::` made `__`.
        name.starts_with("trail__a_failing_check_saves_its_trail_and_names_it-")
            && name.ends_with(".trail"),
        "{name}"
    );
    let trail = Trail::read(path).unwrap();
    assert_eq!(trail.formula.as_deref(), Some(formula));
    let text = std::fs::read_to_string(path).unwrap();
    assert!(
        text.starts_with("prust-trail 1\n# saved by a failing check"),
        "{text}"
    );
    let c = check_violated(formula, Chess::new(), dummies![Move]);
    assert_eq!(
        trail.replay(Chess::new(), dummies![Move]).unwrap(),
        c.replay(Chess::new())
    );
    // A second failure gets a file of its own.
    let again = std::panic::catch_unwind(|| {
        Checker::new()
            .trail_dir(&dir)
            .assert_holds(formula, Chess::new(), dummies![Move])
    })
    .expect_err("violated");
    let again = again.downcast_ref::<String>().unwrap();
    assert!(!again.contains(path.to_str().unwrap()), "{again}");
    // A property that holds writes nothing and does not panic.
    Checker::new().trail_dir(&dir).assert_holds(
        r#"G F "black RECV *""#,
        Chess::new(),
        dummies![Move],
    );
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 2);
    // An inconclusive check panics without a trail (there is no run).
    let inconclusive = std::panic::catch_unwind(|| {
        Checker::new().trail_dir(&dir).max_states(2).assert_holds(
            r#"G F "black RECV *""#,
            Chess::new(),
            dummies![Move],
        )
    })
    .expect_err("cut short");
    let inconclusive = inconclusive.downcast_ref::<String>().unwrap();
    assert!(inconclusive.starts_with("inconclusive: "), "{inconclusive}");
    assert!(!inconclusive.contains("saved"), "{inconclusive}");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 2);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Run by [`prust_trail_dir_makes_check_save_the_trail`] in a child process
/// with `PRUST_TRAIL_DIR` set (environment variables are process-wide, and
/// tests run in parallel).
#[test]
#[ignore = "run as a child process by prust_trail_dir_makes_check_save_the_trail"]
#[should_panic(expected = "property violated")]
fn failing_check_for_the_child_process() {
    engine::check(r#"G !"black SEND *""#, Chess::new(), dummies![Move]);
}

#[test]
fn prust_trail_dir_makes_check_save_the_trail() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("trail-from-env-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--ignored",
            "--exact",
            "trail::failing_check_for_the_child_process",
            "--nocapture",
        ])
        .env("PRUST_TRAIL_DIR", &dir)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{e}: {stderr}"))
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    assert!(
        stderr.contains(&format!("counterexample saved to {}", files[0].display())),
        "{stderr}"
    );
    let trail = Trail::read(&files[0]).unwrap();
    trail.replay(Chess::new(), dummies![Move]).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}

mod round_trip_of_any_names {
    use engine::{ActionKind, Ending, Trail, TrailStep};
    use proptest::prelude::*;

    /// Names made of the characters that need care: spaces, quotes,
    /// backslashes, comment and bracket signs, line breaks, keywords.
    fn name() -> impl Strategy<Value = String> {
        prop_oneof![
            "[a-z]{1,3}",
            "[ a\"\\\\#<>\t\n\r]{0,4}",
            Just("cycle".to_string()),
            Just("end".to_string()),
            Just("formula".to_string()),
            Just("SEND".to_string()),
        ]
    }

    fn step() -> impl Strategy<Value = TrailStep> {
        (name(), 0..3u8, name(), name()).prop_map(|(role, k, ty, peer)| {
            let kind = [ActionKind::Send, ActionKind::Recv, ActionKind::Close][k as usize];
            TrailStep {
                role,
                kind,
                type_name: (kind != ActionKind::Close).then_some(ty),
                peer,
                line: 0,
            }
        })
    }

    fn trail() -> impl Strategy<Value = Trail> {
        (
            proptest::collection::vec(step(), 0..4),
            proptest::collection::vec(step(), 0..3),
            0..4u8,
            proptest::collection::vec(name(), 0..3),
            proptest::option::of("[a-z]{1,5}"),
        )
            .prop_map(|(prefix, cycle, e, waiting, protocol)| {
                let ending = if !cycle.is_empty() {
                    None
                } else {
                    Some(match e {
                        0 => Ending::Terminated,
                        1 => Ending::AnyContinuation,
                        _ => Ending::Deadlock { waiting },
                    })
                };
                Trail {
                    protocol,
                    formula: None,
                    prefix,
                    cycle,
                    ending,
                }
            })
    }

    proptest! {
        #[test]
        fn a_written_trail_parses_back_to_itself(t in trail()) {
            let text = t.to_string();
            let back = Trail::parse(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
            prop_assert_eq!(back, t, "{}", text);
        }
    }
}
