//! `prust import`: a Discourje `.dcj` session printed as prust source, as
//! its LTS or as counts, with the import's warnings and errors on stderr.

use std::path::PathBuf;

use crate::cli;

use cli::{fresh_folder, prust_in};

/// A fresh folder holding `FILE` with `text`.
fn folder_with(name: &str, file: &str, text: &str) -> PathBuf {
    let dir = fresh_folder("cli-import", name);
    std::fs::write(dir.join(file), text).unwrap();
    dir
}

/// Two players, one move each, then the game ends; a stray `)` at the end
/// (which Clojure ignores, and the importer warns about).
const GAME: &str = "(s/defroles #{::white ::black})
(s/defsession ::game []
  (s/cat (s/-->> chess.Move ::white ::black)
         (s/-->> chess.Move ::black ::white)
         (s/close ::white ::black)
         (s/close ::black ::white)))
)
";

#[test]
fn every_format_prints_the_imported_session() {
    let dir = folder_with("formats", "game.dcj", GAME);
    let rust = prust_in(&dir, &["import", "game.dcj:game"]);
    assert_eq!(rust.status.code(), Some(0));
    let source = String::from_utf8_lossy(&rust.stdout);
    assert!(
        source.contains("msg(\"Move\", \"white\", \"black\")"),
        "{source}"
    );
    assert!(source.ends_with("}\n"), "{source}");
    let warnings = String::from_utf8_lossy(&rust.stderr);
    assert!(warnings.contains("game.dcj:7:1: warning"), "{warnings}");

    let stats = prust_in(&dir, &["import", "game.dcj", "--format", "stats"]);
    assert_eq!(stats.status.code(), Some(0));
    let line = String::from_utf8_lossy(&stats.stdout);
    assert!(line.starts_with("7 states"), "{line}");
    // The warning is printed once, by the loader.
    let err = String::from_utf8_lossy(&stats.stderr);
    assert_eq!(err.matches("warning").count(), 1, "{err}");

    // The Aldebaran output is an LTS that `prust check` reads back with
    // the same verdicts as the `.dcj` file itself.
    let aut = prust_in(&dir, &["import", "game.dcj", "--format", "aut"]);
    assert_eq!(aut.status.code(), Some(0));
    std::fs::write(dir.join("game.aut"), &aut.stdout).unwrap();
    for (formula, code) in [
        (r#"F "END""#, 0),
        (r#"!"black SEND *" U "black RECV *""#, 0),
        (r#"G !"white SEND <Move>""#, 1),
    ] {
        for protocol in ["game.dcj", "game.aut"] {
            let o = prust_in(&dir, &["check", protocol, formula]);
            assert_eq!(o.status.code(), Some(code), "{protocol}: {formula}");
        }
    }
    let dot = prust_in(&dir, &["import", "game.dcj:game:", "--format", "dot"]);
    assert!(String::from_utf8_lossy(&dot.stdout).starts_with("digraph"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_targets_are_errors_with_a_position_or_a_hint() {
    let dir = folder_with(
        "errors",
        "bad.dcj",
        "(s/defsession ::s []\n  (s/bogus ::a ::b))\n",
    );
    let cases: [(&[&str], &str); 4] = [
        (&["import", "chess"], "names no .dcj file"),
        (&["import", "bad.dcj:s:1,x"], "not an integer argument"),
        (&["import", "bad.dcj:t"], "unknown session `t`"),
        (&["import", "bad.dcj:s"], "bad.dcj:2:"),
    ];
    for (args, expected) in cases {
        let o = prust_in(&dir, args);
        assert_eq!(o.status.code(), Some(3), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.starts_with("error: "), "{args:?}: {err}");
        assert!(err.contains(expected), "{args:?}: {err}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

// The sources `prust import` prints for a few representative sessions,
// checked in and compiled here as modules of this test target: an import
// whose output stops compiling in a crate that depends on prust breaks
// this build. They are compared byte for byte with what `prust import`
// prints (below), so they stay as it prints them, not as rustfmt would
// (they are rustfmt's layout today, but that is the printer's business).
#[rustfmt::skip]
#[path = "../import/chess.rs"]
mod imported_chess;
#[rustfmt::skip]
#[path = "../import/features.rs"]
mod imported_features;
#[rustfmt::skip]
#[path = "../import/go_fish_2.rs"]
mod imported_go_fish_2;
#[rustfmt::skip]
#[path = "../import/npb_is_2.rs"]
mod imported_npb_is_2;
#[rustfmt::skip]
#[path = "../import/token_directed_ring_4.rs"]
mod imported_token_directed_ring_4;

/// A checked-in source: the `prust import` target it was printed from, the
/// file, and its compiled `spec()`.
type Imported = (&'static str, &'static str, fn() -> prust::Spec);

/// Every checked-in source.
fn imported_sources() -> [Imported; 5] {
    [
        (
            "dcj/tests/dcj/chess.dcj",
            "tests/import/chess.rs",
            imported_chess::spec,
        ),
        (
            "tests/import/features.dcj:features",
            "tests/import/features.rs",
            imported_features::spec,
        ),
        (
            "dcj/tests/dcj/go-fish.dcj:go-fish:2",
            "tests/import/go_fish_2.rs",
            imported_go_fish_2::spec,
        ),
        (
            "dcj/tests/dcj/npb.dcj:npb-is:2",
            "tests/import/npb_is_2.rs",
            imported_npb_is_2::spec,
        ),
        (
            "dcj/tests/dcj/token.dcj:token-directed-ring:4,0",
            "tests/import/token_directed_ring_4.rs",
            imported_token_directed_ring_4::spec,
        ),
    ]
}

#[test]
fn the_printed_source_is_the_checked_in_one() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for (target, file, _) in imported_sources() {
        let o = prust_in(root, &["import", target]);
        assert_eq!(o.status.code(), Some(0), "{target}");
        let printed = String::from_utf8(o.stdout).unwrap();
        let expected = std::fs::read_to_string(root.join(file)).unwrap();
        assert_eq!(
            printed, expected,
            "`prust import {target}` no longer prints {file}: if the change is \
             meant, write its output there (it must still compile)"
        );
        assert!(printed.contains("use prust::spec::*;"), "{printed}");
        // Read like code: one term a line where a line would be too long.
        assert!(
            printed.lines().all(|l| l.chars().count() <= 100),
            "{printed}"
        );
    }
}

#[test]
fn the_printed_source_builds_the_imported_specification() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for (target, _, spec) in imported_sources() {
        let path = root.join(target);
        let imported = prust::dcj::DcjTarget::parse(path.to_str().unwrap())
            .unwrap()
            .unwrap()
            .import()
            .unwrap();
        let (ours, theirs) = (spec(), imported.spec);
        assert_eq!(ours.name(), theirs.name(), "{target}");
        assert_eq!(ours.declared_roles(), theirs.declared_roles(), "{target}");
        let (a, b) = (ours.compile().unwrap(), theirs.compile().unwrap());
        assert!(a.num_states() > 1, "{target}");
        assert!(a.bisimilar(&b).is_ok(), "{target}");
    }
}
