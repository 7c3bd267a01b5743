use super::*;

fn errors(text: &str) -> Vec<SuiteError> {
    parse(text).expect_err("the file should be refused")
}

fn one_error(text: &str) -> SuiteError {
    let errs = errors(text);
    assert_eq!(errs.len(), 1, "expected one error, got {errs:#?}");
    errs.into_iter().next().unwrap()
}

#[test]
fn minimal_file_defaults_to_both_runtimes_and_semantics() {
    let s = parse("protocol chess\ntest t holds\n  G \"white SEND *\"\n").unwrap();
    assert_eq!(s.protocols.len(), 1);
    assert_eq!(s.protocols[0].spec, "chess");
    assert_eq!(s.protocols[0].alias, "chess");
    assert_eq!(s.runtimes, vec![Runtime::Strict, Runtime::Liberal]);
    assert_eq!(
        s.semantics,
        vec![Semantics::Stutter, Semantics::InfiniteRunsOnly]
    );
    let e = &s.entries[0];
    assert_eq!(e.name, "t");
    assert_eq!(e.formula, "G \"white SEND *\"");
    assert_eq!(e.formula_pos, Pos { line: 3, col: 3 });
    assert_eq!(e.pos, Pos { line: 2, col: 1 });
    assert_eq!(s.plan().unwrap().len(), 4);
}

#[test]
fn prut4j_formula_pasted_unchanged_spans_lines_and_keeps_comments_out() {
    let prut4j = "(G(\"worker_1_ RECV <Boolean>\" =>\n  X(\"worker_1_ SEND <Boolean> TO worker_0_\" ||\n    \"worker_1_ SEND <Boolean> TO worker_3_\")))\n   &&\n(G(\"worker_2_ RECV <Boolean>\" =>\n  X(\"worker_2_ SEND <Boolean> TO worker_0_\")))";
    let text = format!(
        "# topologies\nprotocol token-star:4   # the star\nruntime strict\nsemantics omega\n\ntest P4 holds\n{prut4j}\n\n# next\ntest other violated\nF \"END\"\n"
    );
    let s = parse(&text).unwrap();
    assert_eq!(s.runtimes, vec![Runtime::Strict]);
    assert_eq!(s.semantics, vec![Semantics::InfiniteRunsOnly]);
    let lines: Vec<&str> = prut4j.lines().map(str::trim).collect();
    assert_eq!(s.entries[0].formula, lines.join("\n"));
    assert_eq!(s.entries[0].formula_pos, Pos { line: 7, col: 1 });
    assert_eq!(s.entries[1].formula, "F \"END\"");
}

#[test]
fn hash_inside_a_quoted_atom_is_not_a_comment() {
    let s = parse("protocol p\ntest t holds\n  \"a # b\" # comment\n").unwrap();
    assert_eq!(s.entries[0].formula, "\"a # b\"");
}

#[test]
fn abbreviations_expand_parenthesised_and_nest() {
    let text = r#"
protocol token-star:4
let R1 = "worker_1_ RECV <Boolean>"
let S10 = "worker_1_ SEND <Boolean> TO worker_0_"
let S12 = "worker_1_ SEND <Boolean> TO worker_2_"
let Either = S10 ||
    S12
test P2 holds
    G(R1 => X(Either))
"#;
    let s = parse(text).unwrap();
    assert_eq!(s.entries[0].source, "G(R1 => X(Either))");
    assert_eq!(
        s.entries[0].formula,
        r#"G(("worker_1_ RECV <Boolean>") => X((("worker_1_ SEND <Boolean> TO worker_0_") ||
("worker_1_ SEND <Boolean> TO worker_2_"))))"#
    );
}

#[test]
fn abbreviation_names_inside_atoms_are_left_alone() {
    let s =
        parse("protocol p\nlet a = \"x SEND *\"\ntest t holds\n G(\"a RECV *\" || a)\n").unwrap();
    assert_eq!(s.entries[0].formula, "G(\"a RECV *\" || (\"x SEND *\"))");
}

#[test]
fn operators_and_constants_are_not_abbreviations() {
    let s = parse(
        "protocol p\ntest t holds\n GF true && XX \"a\" U false W \"b\" R \"c\" || \"END\"\n",
    )
    .unwrap();
    assert_eq!(
        s.entries[0].formula,
        "GF true && XX \"a\" U false W \"b\" R \"c\" || \"END\""
    );
}

#[test]
fn undefined_abbreviation_is_an_error_with_position_and_hint() {
    let e = one_error("protocol p\nlet S12 = \"a SEND *\"\ntest t holds\n  G(\n    S21)\n");
    assert_eq!(e.pos, Pos { line: 5, col: 5 });
    assert!(e.message.contains("`S21` is not defined"), "{e}");
    assert_eq!(e.hint.as_deref(), Some("did you mean `S12`?"));
}

#[test]
fn bare_word_without_abbreviations_suggests_quoting() {
    let e = one_error("protocol p\ntest t holds\n  G white\n");
    assert_eq!(e.pos, Pos { line: 3, col: 5 });
    assert!(e.hint.unwrap().contains("quoted"));
}

#[test]
fn unterminated_atom() {
    let e = one_error("protocol p\ntest t holds\n  G \"white SEND *\n");
    assert_eq!(e.pos, Pos { line: 3, col: 5 });
    assert!(e.message.contains("unterminated"));
}

#[test]
fn qualified_verdicts_resolve_by_specificity() {
    let text = "protocol p\ntest t holds violated@stutter holds@liberal+stutter\n \"True\"\n";
    let s = parse(text).unwrap();
    let plans = s.plan().unwrap();
    let got: Vec<(Runtime, Semantics, Expected)> = plans
        .iter()
        .map(|p| (p.runtime, p.semantics, p.expected.clone()))
        .collect();
    assert_eq!(
        got,
        vec![
            (Runtime::Strict, Semantics::Stutter, Expected::Violated),
            (
                Runtime::Strict,
                Semantics::InfiniteRunsOnly,
                Expected::Holds
            ),
            (Runtime::Liberal, Semantics::Stutter, Expected::Holds),
            (
                Runtime::Liberal,
                Semantics::InfiniteRunsOnly,
                Expected::Holds
            ),
        ]
    );
}

#[test]
fn several_protocols_with_aliases_and_per_protocol_verdicts() {
    let text = "protocol token-star:4 as star\nprotocol token-full-mesh:4 as mesh\nruntime strict\nsemantics stutter\ntest P3 violated holds@star\n \"True\"\n";
    let s = parse(text).unwrap();
    let plans = s.plan().unwrap();
    assert_eq!(plans.len(), 2);
    assert_eq!(
        (plans[0].protocol, &plans[0].expected),
        (0, &Expected::Holds)
    );
    assert_eq!(
        (plans[1].protocol, &plans[1].expected),
        (1, &Expected::Violated)
    );
    assert_eq!(s.protocols[0].spec, "token-star:4");
}

#[test]
fn ambiguous_or_missing_verdicts_are_errors_of_the_plan() {
    let s = parse("protocol p\ntest t holds@strict violated@omega\n \"True\"\n").unwrap();
    let errs = s.plan().unwrap_err();
    assert!(errs.iter().any(|e| e.message.contains("both")), "{errs:#?}");
    assert!(
        errs.iter().any(|e| e.message.contains("says nothing")),
        "{errs:#?}"
    );
}

#[test]
fn unknown_qualifier_is_refused_with_hint() {
    let e = one_error("protocol p\ntest t holds violated@stuter\n \"True\"\n");
    assert_eq!(e.pos, Pos { line: 2, col: 14 });
    assert_eq!(e.hint.as_deref(), Some("did you mean `@stutter`?"));
}

#[test]
fn error_verdict_takes_required_message_parts() {
    let s = parse("protocol p\ntest typo error \"wrker\" \"did you mean\"\n \"wrker SEND *\"\n")
        .unwrap();
    assert_eq!(
        s.entries[0].clauses[0].expected,
        Expected::Error(vec!["wrker".into(), "did you mean".into()])
    );
    let e = one_error("protocol p\ntest t holds \"x\"\n \"True\"\n");
    assert!(e.message.contains("must follow `error`"));
}

#[test]
fn misspelt_verdict() {
    let e = one_error("protocol p\ntest t hold\n \"True\"\n");
    assert_eq!(e.pos, Pos { line: 2, col: 8 });
    assert_eq!(e.hint.as_deref(), Some("did you mean `holds`?"));
}

#[test]
fn every_error_is_reported_in_file_order() {
    let errs = errors(
        "runtime strict fast\nprotocol p\nsemantics\ntest a holds\ntest b\n \"x\"\ntest c holds\n \"x\"\n",
    );
    let got: Vec<(Pos, &str)> = errs.iter().map(|e| (e.pos, e.message.as_str())).collect();
    assert_eq!(
        got,
        vec![
            (Pos { line: 1, col: 16 }, "unknown runtime `fast`"),
            (
                Pos { line: 3, col: 10 },
                "`semantics` needs at least one name"
            ),
            (Pos { line: 4, col: 6 }, "`a` has no formula"),
            (Pos { line: 5, col: 6 }, "`b` has no expected verdict"),
        ]
    );
}

#[test]
fn text_before_any_directive() {
    let e = errors("G \"a\"\nprotocol p\ntest t holds\n\"a\"\n").remove(0);
    assert_eq!(e.pos, Pos { line: 1, col: 1 });
    assert!(e.message.contains("expected a directive"));
}

#[test]
fn missing_protocol_and_empty_suite() {
    assert!(one_error("test t holds\n \"a\"\n")
        .message
        .contains("no protocol"));
    assert!(one_error("protocol p\n").message.contains("no entries"));
}

#[test]
fn stray_text_after_a_header_directive() {
    let e = one_error("protocol p\n  G \"a\"\ntest t holds\n \"a\"\n");
    assert_eq!(e.pos, Pos { line: 2, col: 3 });
}

#[test]
fn duplicate_names() {
    let e = one_error("protocol p\ntest t holds\n \"a\"\ntest t holds\n \"a\"\n");
    assert_eq!(e.pos, Pos { line: 4, col: 6 });
    let e = one_error("protocol p\nprotocol p\ntest t holds\n \"a\"\n");
    assert!(e.message.contains("used twice"));
    let e = one_error("protocol p\nlet A = \"a\"\nlet A = \"b\"\ntest t holds\n A\n");
    assert!(e.message.contains("defined twice"));
    let e = one_error("protocol p\nruntime strict\nruntime liberal\ntest t holds\n \"a\"\n");
    assert!(e.message.contains("given twice"));
}

#[test]
fn reserved_words_cannot_be_abbreviations() {
    let e = one_error("protocol p\nlet G = \"a\"\ntest t holds\n \"a\"\n");
    assert!(e.message.contains("LTL syntax"));
}

#[test]
fn max_states() {
    let s = parse("protocol p\nmax-states 1_000\ntest t holds\n \"a\"\n").unwrap();
    assert_eq!(s.max_states, Some(1000));
    assert!(
        one_error("protocol p\nmax-states lots\ntest t holds\n \"a\"\n")
            .message
            .contains("not a state count")
    );
}

#[test]
fn fairness_is_one_name_per_file() {
    let s = parse("protocol p\nfairness WEAK\ntest t holds\n \"a\"\n").unwrap();
    assert_eq!(s.fairness, Some(engine::Fairness::Weak));
    assert_eq!(
        parse("protocol p\ntest t holds\n \"a\"\n")
            .unwrap()
            .fairness,
        None
    );
    let e = one_error("protocol p\nfairness strong\ntest t holds\n \"a\"\n");
    assert_eq!(e.pos, Pos { line: 2, col: 10 });
    assert!(e.message.contains("unknown fairness `strong`"), "{e}");
    assert!(e.hint.as_deref().unwrap().contains("none, weak"), "{e}");
    let e = one_error("protocol p\nfairness none weak\ntest t holds\n \"a\"\n");
    assert_eq!(e.pos, Pos { line: 2, col: 15 });
    assert!(e.message.contains("second fairness"), "{e}");
    let e = one_error("protocol p\nfairness weak\nfairness weak\ntest t holds\n \"a\"\n");
    assert!(e.message.contains("given twice"), "{e}");
}

#[test]
fn columns_count_characters_not_bytes() {
    let e = one_error("protocol p\ntest t holds\n \"é\" && ü\n");
    assert_eq!(e.pos, Pos { line: 3, col: 9 });
}

#[test]
fn display_has_position_and_hint() {
    let e = one_error("protocol p\ntest t hold\n \"True\"\n");
    assert_eq!(
        e.to_string(),
        "2:8: unknown verdict `hold`\n  hint: did you mean `holds`?"
    );
}

#[test]
fn escaped_quotes_inside_atoms() {
    let s = parse("protocol p\ntest t holds\n \"a \\\" # b\" # c\n").unwrap();
    assert_eq!(s.entries[0].formula, "\"a \\\" # b\"");
}

#[test]
fn formula_syntax_errors_carry_the_file_position() {
    let e = one_error("protocol p\ntest t holds\n  G(\"a\" &&\n    )\n");
    assert_eq!(e.pos, Pos { line: 4, col: 5 });
    assert!(e.message.starts_with("formula of `t`: syntax error"), "{e}");
}

#[test]
fn formula_syntax_errors_inside_abbreviations_point_at_the_formula() {
    let e = one_error("protocol p\nlet A = \"a\" U\ntest t holds\n  G A\n");
    assert_eq!(e.pos, Pos { line: 4, col: 3 });
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    /// Formulas over quoted atoms, as Prut4j's files have them.
    fn formula() -> impl Strategy<Value = String> {
        let atom = prop::sample::select(vec![
            "\"a SEND <M> TO b\"",
            "\"b RECV *\"",
            "\"* SEND * TO *\"",
            "\"END\"",
            "true",
        ])
        .prop_map(str::to_string);
        atom.prop_recursive(4, 24, 2, |inner| {
            prop_oneof![
                inner.clone().prop_map(|f| format!("!{f}")),
                inner.clone().prop_map(|f| format!("G({f})")),
                inner.clone().prop_map(|f| format!("X {f}")),
                (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a} U {b})")),
                (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a} => {b})")),
                (inner.clone(), inner).prop_map(|(a, b)| format!("({a} && {b})")),
            ]
        })
    }

    proptest! {
        /// A formula split over lines at any spaces, indented or not, with
        /// comments and blank lines around, comes back as its lines, trimmed
        /// and joined with newlines, and it is the formula the engine gets.
        #[test]
        fn formulas_survive_line_breaks_comments_and_indentation(
            f in formula(),
            breaks in prop::collection::vec(any::<bool>(), 0..64),
            indent in 0usize..6,
        ) {
            let mut text = String::new();
            let mut spaces = 0;
            for c in f.chars() {
                if c == ' ' && !text.ends_with('"') && breaks.get(spaces).copied().unwrap_or(false) {
                    text.push('\n');
                    text.push_str(&" ".repeat(indent));
                } else {
                    text.push(c);
                }
                if c == ' ' {
                    spaces += 1;
                }
            }
            // A break inside a quoted atom would change the atom: only break
            // where the text outside quotes has a space.
            let outside_quotes_only = text.split('\n').all(|l| l.matches('"').count() % 2 == 0);
            prop_assume!(outside_quotes_only);
            let file = format!("protocol p\n# c\ntest t holds # c\n\n{}{text}\n\n# c\n", " ".repeat(indent));
            let suite = parse(&file).unwrap();
            let expected: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
            prop_assert_eq!(&suite.entries[0].formula, &expected.join("\n"));
            prop_assert!(owl_lite::parse(&suite.entries[0].formula).is_ok());
        }

        /// Whatever the input, parsing returns: a suite or errors, never a
        /// panic, and every error points inside the file.
        #[test]
        fn parse_never_panics(text in "(protocol|test|let|runtime|semantics|max-states| |\n|[a-z_]{1,4}|\"|=|@|\\+|#|\\(|\\)|G|X|U|holds|violated|error|strict|omega|1){0,40}") {
            if let Err(errors) = parse(&text) {
                prop_assert!(!errors.is_empty());
                let lines = text.lines().count().max(1);
                for e in errors {
                    prop_assert!(e.pos.line >= 1 && e.pos.line <= lines, "{e} in {text:?}");
                    prop_assert!(e.pos.col >= 1);
                }
            }
        }
    }
}

/// 24 abbreviations that each use the previous one twice (553 bytes) once
/// expanded to 2^24 copies and aborted at 5 GB: now the one that crosses
/// the bound is refused at its position, with a hint.
#[test]
fn doubling_abbreviations_are_refused_at_the_bound() {
    let mut text = String::from("protocol chess\nlet a0 = \"white SEND *\"\n");
    for i in 1..=24 {
        text.push_str(&format!("let a{i} = a{} & a{}\n", i - 1, i - 1));
    }
    text.push_str("test t holds\n  G a24\n");
    let errs = errors(&text);
    // Every later definition uses a refused one, so it is undefined: the
    // first error is the one that matters.
    let first = &errs[0];
    assert!(
        first.message.contains("longer than 100000 bytes"),
        "{first}"
    );
    assert!(first
        .hint
        .as_deref()
        .unwrap()
        .contains("copied where they are used"));
    // a0 is 14 bytes and a_i = 2 (a_{i-1} + 2) + 3 = 21 * 2^i - 7, so a13
    // (172,025) is the first that cannot be made: at line 2 + 13, column 17
    // (its second `a12`, which crosses the bound).
    assert_eq!(first.pos, Pos { line: 15, col: 17 });
    assert!(errs.len() < 30, "{} errors", errs.len());
}

/// Within the bound, deep sharing still expands (a12 is 86,009 bytes).
#[test]
fn abbreviations_up_to_the_bound_expand() {
    let mut text = String::from("protocol chess\nlet a0 = \"white SEND *\"\n");
    for i in 1..=12 {
        text.push_str(&format!("let a{i} = a{} & a{}\n", i - 1, i - 1));
    }
    text.push_str("test t holds\n  G a12\n");
    let s = parse(&text).unwrap();
    assert_eq!(s.entries[0].formula.len(), 86_009 + 4);
}

/// Many formulas reusing a long abbreviation add up: the file's total is
/// bounded too.
#[test]
fn the_expanded_total_of_a_file_is_bounded() {
    let mut text = String::from("protocol chess\nlet a0 = \"white SEND *\"\n");
    for i in 1..=12 {
        text.push_str(&format!("let a{i} = a{} & a{}\n", i - 1, i - 1));
    }
    for t in 0..300 {
        text.push_str(&format!("test t{t} holds\n  G a12\n"));
    }
    let errs = errors(&text);
    assert!(
        errs.iter().any(|e| e.message.contains("in all")),
        "{:?}",
        errs.first()
    );
    assert!(text.len() < 10_000);
}

/// Each error's hint lists at most a dozen names: 3,000 definitions and
/// 3,000 undefined words once made 3,000 hints of 3,000 names each.
#[test]
fn hints_list_a_bounded_number_of_names() {
    let mut text = String::from("protocol chess\n");
    for i in 0..3_000 {
        text.push_str(&format!("let d{i} = \"white SEND *\"\n"));
    }
    for i in 0..3_000 {
        text.push_str(&format!("test t{i} holds\n  G zzzzzzzzzz{i}\n"));
    }
    let errs = errors(&text);
    assert_eq!(errs.len(), 3_000);
    let hint = errs[0].hint.as_deref().unwrap();
    assert!(hint.starts_with("defined here: d0, d1, d10, "), "{hint}");
    assert!(hint.ends_with(", … (2988 more)"), "{hint}");
    let total: usize = errs.iter().map(|e| e.to_string().len()).sum();
    assert!(total < 1_000_000, "{total} bytes of errors");
}

#[test]
fn on_the_fly_is_a_runtime_of_suites_with_its_own_qualifier() {
    let s = parse(
        "protocol chess\nruntime STRICT on_the_fly\nsemantics prut4j\n\
         test t violated holds@on-the-fly\n \"True\"\n",
    )
    .unwrap();
    assert_eq!(s.runtimes, [Runtime::Strict, Runtime::OnTheFly]);
    assert_eq!(s.semantics, [Semantics::InfiniteRunsOnly]);
    let got: Vec<(Runtime, Expected)> = s
        .plan()
        .unwrap()
        .into_iter()
        .map(|p| (p.runtime, p.expected))
        .collect();
    assert_eq!(
        got,
        [
            (Runtime::Strict, Expected::Violated),
            (Runtime::OnTheFly, Expected::Holds)
        ]
    );
    // Without a `runtime` line: the two compiled objects only.
    let s = parse("protocol chess\ntest t holds\n \"True\"\n").unwrap();
    assert_eq!(s.runtimes, DEFAULT_RUNTIMES);
    // The on-the-fly object needs a specification: not an `.aut` file,
    // whichever line comes first.
    let e = one_error("runtime on-the-fly\nprotocol x.aut\ntest t holds\n \"True\"\n");
    assert_eq!(e.pos, Pos { line: 1, col: 9 });
    assert!(e.message.contains("`x.aut` (line 2) is an LTS file"), "{e}");
}
