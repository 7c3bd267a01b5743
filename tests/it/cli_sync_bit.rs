//! Handshakes on the command line: `prust lts` and `prust import --format
//! aut` write the send of a handshake `‽(T,p,q)` (as Discourje does),
//! `prust lint` and `prust check` read it back from `.aut`, and Discourje's
//! own lint demonstration (its `.dcj` text, where `-->` is a handshake)
//! lints as Discourje reports it.

use std::path::PathBuf;

use crate::cli;

use cli::{fresh_folder, prust_in, stdout};

/// A fresh folder for one test.
fn folder(name: &str) -> PathBuf {
    fresh_folder("cli-sync", name)
}

/// Discourje's demonstration, first version: every channel closed at the
/// end, including buyer2→buyer1, which is never used.
const DEMO_0: &str = "(s/defroles ::buyer1 ::buyer2 ::seller)
(s/defsession ::two-buyer []
  (s/cat (s/--> String ::buyer1 ::seller)
         (s/--> Integer ::seller ::buyer1)
         (s/--> Integer ::seller ::buyer2)
         (s/--> Integer ::buyer1 ::buyer2)
         (s/--> Boolean ::buyer2 ::seller)
         (s/par (s/close ::buyer1 ::buyer2)
                (s/close ::buyer1 ::seller)
                (s/close ::buyer2 ::buyer1)
                (s/close ::buyer2 ::seller)
                (s/close ::seller ::buyer1)
                (s/close ::seller ::buyer2))))
";

/// Its last version: clean.
const DEMO_3: &str = "(s/defroles ::buyer1 ::buyer2 ::seller)
(s/defsession ::two-buyer []
  (s/cat (s/--> String ::buyer1 ::seller)
         (s/--> Integer ::seller ::buyer1)
         (s/--> Integer ::seller ::buyer2)
         (s/--> Integer ::buyer1 ::buyer2)
         (s/par (s/cat (s/--> Boolean ::buyer2 ::seller)
                       (s/par (s/close ::buyer2 ::seller)
                              (s/close ::seller ::buyer1)
                              (s/close ::seller ::buyer2)))
                (s/close ::buyer1 ::buyer2)
                (s/close ::buyer1 ::seller))))
";

#[test]
fn discourjes_demonstration_lints_as_discourje_reports_it_from_dcj_and_aut() {
    let dir = folder("demo");
    std::fs::write(dir.join("demo0.dcj"), DEMO_0).unwrap();
    std::fs::write(dir.join("demo3.dcj"), DEMO_3).unwrap();
    // version 0, from the .dcj and from its .aut alike
    let aut = prust_in(&dir, &["import", "demo0.dcj", "--format", "aut"]);
    assert_eq!(aut.status.code(), Some(0));
    let text = stdout(&aut);
    assert!(text.contains("\"‽(Boolean,buyer2,seller)\""), "{text}");
    assert!(
        !text.contains("\"!("),
        "every communication is a handshake: {text}"
    );
    std::fs::write(dir.join("demo0.aut"), &aut.stdout).unwrap();
    for protocol in ["demo0.dcj", "demo0.aut"] {
        let o = prust_in(&dir, &["lint", protocol]);
        assert_eq!(o.status.code(), Some(1), "{protocol}");
        let found: Vec<String> = stdout(&o)
            .lines()
            .filter(|l| !l.starts_with(' ') && l.contains(" (channel "))
            .map(|l| l.split(':').next().unwrap().to_string())
            .collect();
        assert_eq!(
            found,
            [
                "send-before-close (channel buyer2→buyer1)",
                "causality (channel buyer1→buyer2)",
                "causality (channel buyer1→seller)",
            ],
            "{protocol}"
        );
    }
    // version 3: clean, both ways
    let aut = prust_in(&dir, &["import", "demo3.dcj", "--format", "aut"]);
    std::fs::write(dir.join("demo3.aut"), &aut.stdout).unwrap();
    for protocol in ["demo3.dcj", "demo3.aut"] {
        let o = prust_in(&dir, &["lint", protocol]);
        assert_eq!(o.status.code(), Some(0), "{protocol}: {}", stdout(&o));
        assert!(
            stdout(&o).starts_with("0 findings (7 checks"),
            "{}",
            stdout(&o)
        );
    }
}

/// A bundled protocol with handshakes, and its `.aut` written by `prust
/// lts`: the mark is printed, and the model checker gives the same verdicts
/// on both.
#[test]
fn lts_prints_the_mark_and_check_reads_it_back_with_the_same_verdicts() {
    let dir = folder("ring");
    let o = prust_in(&dir, &["lts", "ring-unbuffered:3", "--format", "aut"]);
    assert_eq!(o.status.code(), Some(0));
    let text = stdout(&o);
    assert!(
        text.contains(
            "(0,\"‽(Integer,worker_0_,worker_1_)\",1)\n(1,\"?(Integer,worker_0_,worker_1_)\",2)\n"
        ),
        "{text}"
    );
    std::fs::write(dir.join("ring.aut"), &o.stdout).unwrap();
    for formula in [
        "G F \"worker_0_ SEND *\"",
        "G (\"worker_0_ SEND *\" -> X \"worker_1_ RECV *\")",
        "F \"worker_2_ SEND * TO worker_0_\"",
    ] {
        let bundled = prust_in(&dir, &["check", "ring-unbuffered:3", formula]);
        let aut = prust_in(&dir, &["check", "ring.aut", formula]);
        assert_eq!(
            bundled.status.code(),
            aut.status.code(),
            "{formula}: {}\n{}",
            stdout(&bundled),
            stdout(&aut)
        );
        assert!(matches!(bundled.status.code(), Some(0 | 1)), "{formula}");
    }
}
