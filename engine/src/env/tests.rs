use super::*;

/// A value of each kind that parses.
fn good(kind: Kind, name: &str) -> &'static str {
    match kind {
        Kind::Count | Kind::CountOrNone | Kind::Threads | Kind::Bits => "3",
        Kind::Seconds => "2.5",
        Kind::Size => "512M",
        Kind::Switch => "1",
        Kind::Semantics => "omega",
        Kind::Fairness => "weak",
        Kind::Share => "1/2",
        Kind::Folder => "/tmp",
        Kind::Text(_) if name == "PRUST_REDUCTION" => "none",
        Kind::Text(_) => "white",
    }
}

#[test]
fn every_variable_of_the_table_is_read_by_its_readers_only() {
    for var in VARIABLES {
        let value = good(var.kind, var.name);
        let look = |n: &str| (n == var.name).then(|| value.into());
        for reader in Reader::ALL {
            let env = Environment::read_from(reader, look).unwrap();
            let read = env != Environment::default();
            assert_eq!(read, var.is_read_by(reader), "{} by {reader:?}", var.name);
        }
    }
}

#[test]
fn the_table_in_the_module_docs_is_the_table_of_variables() {
    let docs: String = include_str!("../env.rs")
        .lines()
        .filter_map(|l| l.strip_prefix("//! "))
        .collect::<Vec<_>>()
        .join("\n");
    for var in VARIABLES {
        let row = var.doc_row();
        assert_eq!(
            docs.contains(&row),
            !var.hidden,
            "the module docs should have (or, hidden, not have) the row\n{row}"
        );
    }
    let rows = docs.lines().filter(|l| l.starts_with("| `PRUST_")).count();
    assert_eq!(rows, VARIABLES.iter().filter(|v| !v.hidden).count());
}

#[test]
fn a_bad_value_names_the_variable_and_what_it_takes() {
    let look = |n: &str| (n == "PRUST_TIMEOUT").then(|| "0".into());
    for reader in [Reader::Check, Reader::Explore, Reader::Lint] {
        let e = Environment::read_from(reader, look).unwrap_err();
        let text = e.to_string();
        assert!(text.contains("PRUST_TIMEOUT=\"0\""), "{text}");
        assert!(text.contains("positive seconds"), "{text}");
    }
    let look = |n: &str| (n == "PRUST_THREADS").then(|| "2000".into());
    let text = Environment::read_from(Reader::Check, look)
        .unwrap_err()
        .to_string();
    assert!(text.contains("more than 1024 threads"), "{text}");
    // Bitstate hashing with no array used to be rounded up to 64 bits.
    for zero in ["0", "0_000"] {
        let look = |n: &str| (n == "PRUST_BITSTATE").then(|| zero.into());
        let text = Environment::read_from(Reader::Check, look)
            .unwrap_err()
            .to_string();
        assert!(
            text.contains("PRUST_BITSTATE=") && text.contains("0 bits"),
            "{text}"
        );
    }
    let look = |n: &str| (n == "PRUST_BITSTATE").then(|| u64::MAX.to_string().into());
    assert!(Environment::read_from(Reader::Check, look).is_err());
    let look = |n: &str| (n == "PRUST_PREEMPTION_BOUND").then(|| "None".into());
    let env = Environment::read_from(Reader::Explore, look).unwrap();
    assert_eq!(env.preemption_bound, Some(None));
}

#[test]
fn an_unknown_prust_variable_is_named_with_the_nearest_known_one() {
    // Names in two parts: a test reads every whole `PRUST_` name in the
    // library's sources as one the table must have.
    let typo = concat!("PRUST_", "MAX_DEPHT");
    let far = concat!("PRUST_", "ZZZZZZZZZZZZ");
    let names = [
        typo,
        "PRUST_TIMEOUT",
        concat!("PRUST_", "CHROMIUM"),
        concat!("PRUST_", "ENV_TEST_CHILD"),
        "HOME",
        far,
    ]
    .map(String::from);
    let w = unknown_variables(names);
    assert_eq!(w.len(), 2, "{w:?}");
    assert!(w[0].starts_with(&format!("{typo} is set")), "{w:?}");
    assert!(w[0].contains("did you mean PRUST_MAX_DEPTH?"), "{w:?}");
    assert!(w[1].starts_with(&format!("{far} is set")), "{w:?}");
    assert!(!w[1].contains("did you mean"), "{w:?}");
}
