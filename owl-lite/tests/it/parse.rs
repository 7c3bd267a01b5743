//! The Owl-syntax parser: every operator and constant, precedence and
//! associativity, errors and their positions, round trips, robustness.

use crate::common;

use owl_lite::{parse, Kind, Ltl, ParseErrorKind};
use proptest::prelude::*;

fn p(s: &str) -> Ltl {
    parse(s).unwrap_or_else(|e| panic!("{s:?} should parse:\n{e}"))
}

fn a(s: &str) -> Ltl {
    Ltl::atom(s)
}

#[test]
fn constants_in_every_spelling() {
    for t in ["true", "tt", "1"] {
        assert_eq!(p(t), Ltl::tt(), "{t}");
    }
    for f in ["false", "ff", "0"] {
        assert_eq!(p(f), Ltl::ff(), "{f}");
    }
}

#[test]
fn atoms_bare_and_quoted() {
    assert_eq!(p("p0"), a("p0"));
    assert_eq!(p("_x_1Y"), a("_x_1Y"));
    assert_eq!(p(r#""black SEND <Move>""#), a("black SEND <Move>"));
    assert_eq!(
        p(r#""a \" b""#),
        a(r#"a " b"#),
        "a backslash escapes a quote"
    );
    assert_eq!(
        p(r#""a \\ b \n""#),
        a(r#"a \ b \n"#),
        "and a backslash; others stay"
    );
    assert_eq!(p(r#""""#), a(""));
    // Keywords are constants unless quoted.
    assert_eq!(p(r#""true""#), a("true"));
    assert_eq!(p("trueish"), a("trueish"));
}

#[test]
fn every_operator_in_both_spellings() {
    let (x, y) = (a("x"), a("y"));
    assert_eq!(p("!x"), x.not());
    assert_eq!(p("x & y"), Ltl::and([x.clone(), y.clone()]));
    assert_eq!(p("x && y"), Ltl::and([x.clone(), y.clone()]));
    assert_eq!(p("x | y"), Ltl::or([x.clone(), y.clone()]));
    assert_eq!(p("x || y"), Ltl::or([x.clone(), y.clone()]));
    assert_eq!(p("x -> y"), Ltl::implies(x.clone(), y.clone()));
    assert_eq!(p("x => y"), Ltl::implies(x.clone(), y.clone()));
    assert_eq!(p("x <-> y"), Ltl::equiv(x.clone(), y.clone()));
    assert_eq!(p("x <=> y"), Ltl::equiv(x.clone(), y.clone()));
    assert_eq!(p("x ^ y"), Ltl::xor(x.clone(), y.clone()));
    assert_eq!(p("X x"), Ltl::next(x.clone()));
    assert_eq!(p("F x"), Ltl::finally(x.clone()));
    assert_eq!(p("G x"), Ltl::globally(x.clone()));
    assert_eq!(p("x U y"), Ltl::until(x.clone(), y.clone()));
    assert_eq!(p("x W y"), Ltl::weak_until(x.clone(), y.clone()));
    assert_eq!(p("x R y"), Ltl::release(x.clone(), y.clone()));
    assert_eq!(p("x M y"), Ltl::strong_release(x.clone(), y.clone()));
    assert_eq!(p("((x))"), x);
    // Unary operators may be glued together and to their operand.
    assert_eq!(p("GFx"), Ltl::globally(Ltl::finally(x.clone())));
    assert_eq!(p("!!x"), x);
}

#[test]
fn precedence_and_associativity() {
    let same = |l: &str, r: &str| assert_eq!(p(l), p(r), "{l} should read as {r}");
    same("a | b & c", "a | (b & c)");
    same("a & b | c", "(a & b) | c");
    same("a & b U c", "a & (b U c)");
    same("a U b & c", "(a U b) & c");
    same("a | b U c", "a | (b U c)");
    same("a & b -> c", "a & (b -> c)");
    same("a -> b & c", "(a -> b) & c");
    same("a U b U c", "a U (b U c)");
    same("a -> b -> c", "a -> (b -> c)");
    same("a <-> b <-> c", "a <-> (b <-> c)");
    same("a U b -> c", "a U (b -> c)");
    same("a -> b U c", "a -> (b U c)");
    same("a W b R c M d", "a W (b R (c M d))");
    same("a ^ b U c", "a ^ (b U c)");
    same("!a U b", "(!a) U b");
    same("F a U G b", "(F a) U (G b)");
    same("X a & b", "(X a) & b");
    same("G F a -> X b", "(G (F a)) -> (X b)");
    same("!a & b", "(!a) & b");
    // n-ary conjunctions and disjunctions are flat.
    assert!(matches!(p("a & b & c").kind(), Kind::And(v) if v.len() == 3));
    assert!(matches!(p("(a | b) | c").kind(), Kind::Or(v) if v.len() == 3));
}

#[test]
fn formulas_may_span_lines() {
    let f = p("G (\"req\"\n   -> F\r\n\t\"ack\")\n");
    assert_eq!(f, p(r#"G ("req" -> F "ack")"#));
}

#[test]
fn errors_have_positions_text_and_expectations() {
    let e = parse("a &").unwrap_err();
    assert_eq!((e.line(), e.column(), e.found()), (1, 4, "end of input"));
    assert_eq!(e.kind(), &ParseErrorKind::UnexpectedToken);
    assert!(e.expected().contains("formula"));

    let e = parse("a $ b").unwrap_err();
    assert_eq!((e.line(), e.column(), e.found()), (1, 3, "$"));
    assert_eq!(e.kind(), &ParseErrorKind::UnexpectedCharacter);

    let e = parse("G (a ->\n   \"unterminated").unwrap_err();
    assert_eq!((e.line(), e.column()), (2, 4));
    assert_eq!(e.kind(), &ParseErrorKind::UnterminatedAtom);

    let e = parse("(a & b").unwrap_err();
    assert_eq!((e.line(), e.column(), e.found()), (1, 7, "end of input"));
    assert!(e.expected().contains("')'"));

    let e = parse("a & b)").unwrap_err();
    assert_eq!((e.line(), e.column(), e.found()), (1, 6, ")"));

    let e = parse("a\n&\n  Q").unwrap_err();
    assert_eq!((e.line(), e.column(), e.found()), (3, 3, "Q"));
    assert!(e.expected().contains("X F G U W R M"), "{}", e.expected());

    let e = parse("a & 12").unwrap_err();
    assert_eq!((e.column(), e.found()), (5, "12"));

    let e = parse("a U").unwrap_err();
    assert_eq!(e.column(), 4);
    let e = parse("").unwrap_err();
    assert_eq!((e.line(), e.column(), e.found()), (1, 1, "end of input"));
    let e = parse("a b").unwrap_err();
    assert_eq!((e.column(), e.found()), (3, "b"));
    // Columns count characters, not bytes.
    let e = parse("\"ü\" & $").unwrap_err();
    assert_eq!(e.column(), 7);
}

#[test]
fn error_display_shows_the_line_with_a_caret() {
    let e = parse("G (a ->\n     F )").unwrap_err();
    assert_eq!(
        e.to_string(),
        "syntax error at line 2, column 8: expected a formula (an atom, a constant, a unary \
         operator or '('), found ')'\n       F )\n         ^"
    );
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let deep = "(".repeat(100_000);
    let e = parse(&deep).unwrap_err();
    assert_eq!(e.kind(), &ParseErrorKind::TooDeep);
    assert!(e.to_string().contains("nesting deeper than 256"));

    let nots = format!("{}a", "!X".repeat(100_000));
    assert_eq!(parse(&nots).unwrap_err().kind(), &ParseErrorKind::TooDeep);

    let chain = vec!["a"; 100_000].join(" U ");
    assert_eq!(parse(&chain).unwrap_err().kind(), &ParseErrorKind::TooDeep);

    // Long flat conjunctions are fine: they do not nest.
    let flat = vec!["a"; 100_000].join(" & ");
    assert!(matches!(p(&flat).kind(), Kind::And(v) if v.len() == 100_000));
    let flat: Vec<String> = (0..10_000).map(|i| format!("p{i}")).collect();
    assert_eq!(p(&flat.join(" | ")).atoms().len(), 10_000);

    // Just below the limit parses, and translates without trouble.
    let ok = format!("{}a{}", "(".repeat(200), ")".repeat(200));
    assert_eq!(p(&ok), a("a"));
    let chain = vec!["a"; 100].join(" U ");
    let f = p(&chain);
    assert!(owl_lite::translate(&f, &Default::default()).is_ok());
}

#[test]
fn display_is_reparseable_owl_syntax() {
    for s in [
        "a & (b U c)",
        "(a | b) U c",
        "!(a U b)",
        "G (req -> F \"ack RECV *\")",
        "X X a <-> (b ^ c)",
        "(a -> b) -> c",
        "a -> (b -> c)",
        "\"true\" & \"a\\\"b\"",
    ] {
        let f = p(s);
        assert_eq!(p(&f.to_string()), f, "{s} printed as {f}");
    }
    assert_eq!(p("a & b U c").to_string(), "a & (b U c)");
    assert_eq!(p("!a U b").to_string(), "!a U b");
    assert_eq!(Ltl::atom("has space").to_string(), "\"has space\"");
    assert_eq!(Ltl::atom("tt").to_string(), "\"tt\"");
    assert_eq!(Ltl::atom("").to_string(), "\"\"");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 10_000, ..ProptestConfig::default() })]

    /// 10,000 random formulas (all operators, odd atom texts) print and
    /// re-parse to the same formula.
    #[test]
    fn printed_formulas_reparse_to_themselves(
        f in common::formula(&["a", "b1", "x_y", "a SEND *", "true", "q\"uote", "back\\"], 8)
    ) {
        let text = f.to_string();
        let g = parse(&text).map_err(|e| TestCaseError::fail(format!("{text}\n{e}")))?;
        prop_assert_eq!(g, f);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3_000, ..ProptestConfig::default() })]

    /// No input makes the parser panic; errors point into the input.
    #[test]
    fn arbitrary_text_never_panics(s in "\\PC{0,40}") {
        if let Err(e) = parse(&s) {
            prop_assert!(e.offset() <= s.len());
            prop_assert!(e.line() >= 1 && e.column() >= 1);
            let _ = e.to_string();
        }
    }

    /// Token soup: near-miss formulas from the real alphabet.
    #[test]
    fn token_soup_never_panics(toks in proptest::collection::vec(
        proptest::sample::select(vec![
            "a", "b", "\"x y\"", "\"", "true", "0", "1", "!", "&", "&&", "|", "||", "->",
            "=>", "<->", "<=>", "^", "X", "F", "G", "U", "W", "R", "M", "(", ")", "\n",
            " ", "<", "-", "=", "Z", "é",
        ]), 0..30)
    ) {
        let s: String = toks.concat();
        match parse(&s) {
            Ok(f) => prop_assert_eq!(parse(&f.to_string()).ok(), Some(f)),
            Err(e) => prop_assert!(e.offset() <= s.len()),
        }
    }
}

/// An error in a very long formula shows the text around the column, not
/// the whole line (a formula of 200,000 characters once printed an error
/// of 400,000, caret line included); a NUL or another control character
/// shows as its escape and as `�` in the line, so the caret stays under it.
#[test]
fn errors_in_long_lines_and_control_characters_stay_readable() {
    let deep = format!("{}a", "(".repeat(200_000));
    let e = parse(&deep).unwrap_err();
    let text = e.to_string();
    assert!(text.len() < 1_000, "{} bytes", text.len());
    assert!(text.contains("  …((("), "{text}");

    let long = format!("{}a b", "a & ".repeat(50_000));
    let e = parse(&long).unwrap_err();
    assert_eq!(e.column(), 200_003);
    let text = e.to_string();
    assert!(text.len() < 1_000, "{} bytes", text.len());
    // the caret is under the `b`
    let lines: Vec<&str> = text.lines().collect();
    let caret = lines[2].chars().count() - 1;
    assert_eq!(lines[1].chars().nth(caret), Some('b'), "{text}");

    for bad in ["G a\0", "G \u{1}a", "a &\u{7f}"] {
        let e = parse(bad).unwrap_err();
        let text = e.to_string();
        assert!(
            !text.chars().any(|c| c.is_control() && c != '\n'),
            "{text:?}"
        );
        assert!(text.contains("found '\\"), "{text}");
        let lines: Vec<&str> = text.lines().collect();
        let caret = lines[2].chars().count() - 1;
        assert_eq!(lines[1].chars().nth(caret), Some('\u{fffd}'), "{text}");
    }
}

/// A formula past the nesting limit says so, where the limit is crossed
/// and what to do: not only that it "does not parse".
#[test]
fn too_deep_says_why_where_and_what_to_do() {
    let cases = [
        // 1,000 parentheses: the 257th opens the level too many.
        (
            format!("{}true{}", "(".repeat(1000), ")".repeat(1000)),
            257,
            "'('",
        ),
        // 300 X: the innermost are applied first; the atom is level 1, so
        // the 256th X from the end (column 89) nests level 257.
        (format!("{}true", "X ".repeat(300)), 89, "'X'"),
        // 300 operands of a right-nested U.
        (vec!["a"; 300].join(" U "), 175, "'U'"),
        // On the second line.
        (format!("a &\n{}b", "X ".repeat(300)), 89, "'X'"),
    ];
    for (text, column, token) in cases {
        let e = parse(&text).unwrap_err();
        assert_eq!(e.kind(), &ParseErrorKind::TooDeep);
        assert_eq!(e.column(), column, "{e}");
        let shown = e.to_string();
        let first = shown.lines().next().unwrap();
        assert!(
            first.starts_with(&format!(
                "nesting deeper than 256 at line {}, column {column}: {token} nests level 257",
                e.line()
            )),
            "{shown}"
        );
        assert!(
            shown.contains("hint: formulas are read at most 256 levels deep"),
            "{shown}"
        );
        assert!(shown.contains("split the property"), "{shown}");
    }
}
