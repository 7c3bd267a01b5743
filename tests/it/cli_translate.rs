//! `prust translate`: a formula's automaton as HOA, DOT or counts, a
//! formula that does not parse, and one that the limits stop.

use crate::cli;

use cli::{prust, prust_with, stderr, stdout};

#[test]
fn translate_prints_hoa_with_atom_names() {
    let o = prust(&["translate", r#"G ("a SEND *" -> F "b RECV *")"#]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.starts_with("HOA: v1"), "{out}");
    assert!(out.contains(r#"AP: 2 "a SEND *" "b RECV *""#), "{out}");
    assert!(out.trim_end().ends_with("--END--"), "{out}");
}

#[test]
fn translate_stats_is_one_line_of_key_values() {
    let o = prust(&["translate", "--format", "stats", "GF a & GF b"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let line = stdout(&o);
    let keys: Vec<&str> = line
        .split_whitespace()
        .map(|kv| kv.split('=').next().unwrap())
        .collect();
    assert_eq!(
        keys,
        ["states", "edges", "acceptance_sets", "time_us"],
        "{line}"
    );
    for kv in line.split_whitespace() {
        let v = kv.split('=').nth(1).unwrap();
        assert!(v.parse::<u64>().is_ok(), "{kv} is not a number");
    }
}

#[test]
fn translate_negate_gives_the_automaton_of_the_negation() {
    // F a needs an acceptance condition; its negation G !a is a safety
    // property: one state, a self-loop on !a, every infinite run accepting.
    let plain = stdout(&prust(&["translate", "--format", "stats", "F a"]));
    let negated = stdout(&prust(&[
        "translate",
        "--negate",
        "--format",
        "stats",
        "F a",
    ]));
    assert!(plain.contains("acceptance_sets=1"), "{plain}");
    assert!(
        negated.starts_with("states=1 edges=1 acceptance_sets=0"),
        "{negated}"
    );
    let dot = stdout(&prust(&["translate", "--negate", "--format", "dot", "F a"]));
    assert!(dot.starts_with("digraph") && dot.contains("!a"), "{dot}");
}

#[test]
fn translate_bad_formula_exits_3_with_caret() {
    let o = prust(&["translate", "G (a -> F b"]);
    assert_eq!(o.status.code(), Some(3));
    let err = stderr(&o);
    assert!(err.contains("line 1, column 12"), "{err}");
    assert!(err.contains('^'), "{err}");
}

/// Eight fairness conditions: a formula of 330 characters whose automaton
/// (6,561 states, 396,930 edges) took 90 s and 1.5 GB to translate, past
/// any limit the user set.
fn fairness_conjunction() -> String {
    (0..8)
        .map(|i| format!(r#"(F G "r{i} SEND *" | G F "r{i} RECV *")"#))
        .collect::<Vec<_>>()
        .join(" & ")
}

#[test]
fn a_translation_stops_at_the_time_limit_inconclusive() {
    let f = fairness_conjunction();
    let o = prust(&["translate", "--format", "stats", "--timeout", "0.5", &f]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.starts_with("inconclusive: the translation stopped at the time limit (0.5 s; raise it with --timeout or PRUST_TIMEOUT)"),
        "{err}"
    );
    assert!(err.contains("hint: or split the formula"), "{err}");
    assert_eq!(stdout(&o), "", "no automaton for a stopped translation");
    // The variable sets the same limit.
    let o = prust_with(
        &["translate", "--format", "stats", &f],
        &[("PRUST_TIMEOUT", "0.5")],
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

#[test]
fn a_translation_stops_at_the_memory_limit_inconclusive() {
    let f = fairness_conjunction();
    let o = prust(&["translate", "--format", "stats", "--max-memory", "64M", &f]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.starts_with("inconclusive: the translation stopped at the memory limit (64 MiB resident; raise it with --max-memory or PRUST_MAX_MEMORY)"),
        "{err}"
    );
}
