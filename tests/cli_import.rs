//! `prust import`: a Discourje `.dcj` session printed as prust source, as
//! its LTS or as counts, with the import's warnings and errors on stderr.

use std::path::PathBuf;

#[path = "common/cli.rs"]
mod cli;

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
