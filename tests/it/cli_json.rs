//! `prust check --format json`: one JSON record a formula, carrying every
//! kind of outcome, and the strict JSON parser the tests read it with.

use crate::cli;
use testkit::json;

use cli::{prust, stderr, stdout};
use json::{json_lines, Json};

#[test]
fn the_test_json_parser_is_strict() {
    let v = Json::parse(r#" {"a": [1, -2.5e3, true, null], "b\n\"": "\u00e9\u0001é"} "#).unwrap();
    assert_eq!(v.get("a").arr()[1].num(), -2500.0);
    assert_eq!(v.get("b\n\"").str(), "\u{e9}\u{1}é");
    for bad in [
        "{",
        "[1,]",
        "{\"a\" 1}",
        "01",
        "\"a\nb\"",
        "\"\\x\"",
        "tru",
        "1 2",
        "{'a':1}",
    ] {
        assert!(Json::parse(bad).is_err(), "{bad:?} parsed");
    }
}

/// Every field of `engine::Stats`, as numbers.
fn assert_stats(record: &Json) {
    let stats = record.get("stats");
    for key in [
        "product_states",
        "transitions",
        "protocol_states",
        "automaton_states",
        "max_depth",
        "time_s",
        "threads",
    ] {
        assert!(stats.get(key).num() >= 0.0, "{key}");
    }
    let Json::Obj(fields) = stats else {
        unreachable!()
    };
    // Objects that declare their independence also say whether
    // partial-order reduction was used: "reduction" and one more field.
    let reduction = fields.iter().any(|(k, _)| k == "reduction");
    // A search kept on one thread although more were asked for says why.
    let single = fields.iter().any(|(k, _)| k == "single_thread");
    assert_eq!(
        fields.len(),
        8 + if reduction { 2 } else { 0 } + usize::from(single),
        "{stats:?}"
    );
}

#[test]
fn check_json_demo_has_one_record_per_formula() {
    let o = prust(&["check", "--format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let records = json_lines(&o);
    assert_eq!(records.len(), 2, "{}", stdout(&o));
    let [holds, violated] = &records[..] else {
        unreachable!()
    };
    assert_eq!(
        holds.get("formula").str(),
        r#"!"black SEND <Move>" U "black RECV <Move>""#
    );
    assert_eq!(holds.get("verdict").str(), "holds");
    assert_eq!(holds.get("protocol").str(), "chess");
    assert_eq!(holds.get("runtime").str(), "strict");
    assert_eq!(holds.get("semantics").str(), "stutter");
    assert!(!holds.has("counterexample") && !holds.has("limit"));
    assert_stats(holds);
    assert_eq!(holds.get("stats").get("product_states").num(), 2.0);

    assert_eq!(violated.get("formula").str(), r#"F "END""#);
    assert_eq!(violated.get("verdict").str(), "violated");
    assert_stats(violated);
    // The lasso of the text demo: one step, then four that repeat.
    let cex = violated.get("counterexample");
    assert_eq!(cex.get("ending").get("kind").str(), "none");
    let steps = cex.get("steps").arr();
    assert_eq!(steps.len(), 5);
    let first = &steps[0];
    assert_eq!(first.get("index").num(), 1.0);
    assert_eq!(first.get("role").str(), "white");
    assert_eq!(first.get("action").str(), "SEND");
    assert_eq!(first.get("type").str(), "Move");
    assert_eq!(first.get("peer").str(), "black");
    assert_eq!(first.get("text").str(), "white SEND <Move> TO black");
    let in_cycle: Vec<&Json> = steps.iter().map(|s| s.get("in_cycle")).collect();
    assert_eq!(
        in_cycle,
        [
            &Json::Bool(false),
            &Json::Bool(true),
            &Json::Bool(true),
            &Json::Bool(true),
            &Json::Bool(true)
        ]
    );
    assert_eq!(steps[1].get("text").str(), "black RECV <Move> FROM white");
    assert_eq!(steps[1].get("action").str(), "RECV");
}

#[test]
fn check_json_carries_every_kind_of_outcome() {
    // A deadlock, with the role left waiting.
    let aut = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/owl/beyond/load-balancer-bug.aut"
    );
    let o = prust(&["check", aut, r#"G !"DEADLOCK""#, "--format", "json"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let [r] = &json_lines(&o)[..] else {
        panic!("{}", stdout(&o))
    };
    let ending = r.get("counterexample").get("ending");
    assert_eq!(ending.get("kind").str(), "deadlock");
    assert_eq!(
        ending.get("blocked"),
        &Json::Arr(vec![Json::Str("client".into())])
    );
    assert!(r
        .get("counterexample")
        .get("steps")
        .arr()
        .iter()
        .all(|s| s.get("in_cycle") == &Json::Bool(false)));

    // Termination, an error (stdout record, stderr diagnostic), and the
    // omega semantics; the worst outcome decides the exit code.
    let o = prust(&[
        "check",
        "two-buyer",
        r#"G F "* SEND *""#,
        r#"G !"selr SEND *""#,
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let [terminated, error] = &json_lines(&o)[..] else {
        panic!("{}", stdout(&o))
    };
    assert_eq!(
        terminated
            .get("counterexample")
            .get("ending")
            .get("kind")
            .str(),
        "terminated"
    );
    assert!(!terminated
        .get("counterexample")
        .get("ending")
        .has("blocked"));
    assert_eq!(error.get("verdict").str(), "error");
    assert_eq!(error.get("formula").str(), r#"G !"selr SEND *""#);
    assert!(
        error.get("message").str().contains("did you mean `seller`"),
        "{error:?}"
    );
    assert!(!error.has("stats"));
    assert!(
        stderr(&o).contains("did you mean `seller`"),
        "{}",
        stderr(&o)
    );
    let o = prust(&[
        "check",
        "two-buyer",
        r#"G F "* SEND *""#,
        "--semantics",
        "omega",
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(0));
    let [r] = &json_lines(&o)[..] else { panic!() };
    assert_eq!(
        (r.get("verdict").str(), r.get("semantics").str()),
        ("holds", "omega")
    );

    // A limit of the search (the object is built on the fly, so the
    // search is what reaches it): inconclusive, with the limit's kind and
    // value.
    let o = prust(&[
        "check",
        "token-full-mesh:6",
        r#"G !"DEADLOCK""#,
        "--max-states",
        "5",
        "--runtime",
        "on-the-fly",
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let [r] = &json_lines(&o)[..] else {
        panic!("{}", stdout(&o))
    };
    assert_eq!(r.get("verdict").str(), "inconclusive");
    assert_eq!(r.get("limit").get("kind").str(), "states");
    assert_eq!(r.get("limit").get("value").num(), 5.0);
    assert!(r.get("explored").num() >= 5.0);
    assert_stats(r);

    // The same limit stops the compilation of the object first: still
    // inconclusive, one record per formula, marked as the build's.
    let o = prust(&[
        "check",
        "token-full-mesh:6",
        r#"G !"DEADLOCK""#,
        r#"G F "* SEND *""#,
        "--max-states",
        "5",
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let records = json_lines(&o);
    assert_eq!(records.len(), 2, "{}", stdout(&o));
    for r in &records {
        assert_eq!(r.get("verdict").str(), "inconclusive");
        assert_eq!(r.get("phase").str(), "build");
        assert_eq!(r.get("limit").get("kind").str(), "states");
        assert_eq!(r.get("limit").get("value").num(), 5.0);
        assert!(r.get("message").str().contains("--max-states"));
    }
}
