//! `prust check --share I/N`: one check split over N runs (N machines).
//! Each run's verdict is its share's; the runs' exit statuses combine as
//! the user guide says (the property holds when every share exits 0, the
//! largest status is the combined one); a share's counterexample replays;
//! bad shares are errors with the expected form, never a panic.

use crate::cli;

use cli::{fresh_folder, prust, prust_with, stderr, stdout};

const PROTOCOL: &str = "npb-cg-concurrent:3";

/// One run of share `i` of `n` (split at level 6, where this protocol has
/// states enough for three shares): its exit status and stdout.
fn share(i: u32, n: u32, formulas: &[&str], extra: &[&str]) -> (i32, String) {
    let s = format!("{i}/{n}");
    let mut args = vec!["check", "--share", &s, "--share-level", "6", PROTOCOL];
    args.extend_from_slice(extra);
    args.extend_from_slice(formulas);
    let o = prust(&args);
    (o.status.code().expect("exited"), stdout(&o))
}

#[test]
fn shares_combine_to_the_whole_checks_verdict() {
    let holds = r#"G !"DEADLOCK""#;
    let whole = prust(&["check", PROTOCOL, holds]);
    assert_eq!(whole.status.code(), Some(0), "{}", stdout(&whole));
    for n in [1, 3] {
        for i in 1..=n {
            let (code, out) = share(i, n, &[holds], &[]);
            assert_eq!(code, 0, "{out}");
            assert!(
                out.contains(&format!(
                    "holds on share {i}/{n} (the property holds when every share holds)"
                )),
                "{out}"
            );
            // Never the property's own verdict.
            assert!(
                !out.lines().any(|l| l.starts_with("property holds")),
                "{out}"
            );
            assert!(out.contains(&format!("hold on share {i}/{n}")), "{out}");
        }
    }
    // A liveness violation (searched depth-first from each share's states)
    // and a safety one (breadth-first): some share finds each, so the
    // combined status is 1, as the whole check's.
    for violated in [r#"G F "END""#, r#"G !"worker_2_ SEND <DoneMessage>""#] {
        let whole = prust(&["check", PROTOCOL, violated]);
        assert_eq!(whole.status.code(), Some(1), "{}", stdout(&whole));
        let codes: Vec<i32> = (1..=3).map(|i| share(i, 3, &[violated], &[]).0).collect();
        assert_eq!(codes.iter().max(), Some(&1), "{violated}: {codes:?}");
    }
}

#[test]
fn a_shares_counterexample_replays_from_the_initial_state() {
    let dir = fresh_folder("cli_share", "trail");
    let violated = r#"G !"worker_2_ SEND <DoneMessage>""#;
    let mut replayed = 0;
    for i in 1..=3 {
        let trail = dir.join(format!("share-{i}.trail"));
        let t = trail.to_str().unwrap();
        let (code, out) = share(i, 3, &[violated], &["--trail", t]);
        if code == 1 {
            let r = prust(&["replay", PROTOCOL, t]);
            assert_eq!(
                r.status.code(),
                Some(0),
                "{}{}\n{out}",
                stdout(&r),
                stderr(&r)
            );
            replayed += 1;
        }
    }
    assert!(replayed > 0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn json_says_holds_on_share_with_the_split() {
    let (code, out) = share(2, 3, &[r#"G !"DEADLOCK""#], &["--format", "json"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains(r#""verdict":"holds-on-share""#), "{out}");
    assert!(out.contains(r#""share":2,"shares":3"#), "{out}");
    assert!(
        out.contains(r#""share":{"index":2,"count":3,"level":6,"#),
        "{out}"
    );
}

#[test]
fn bad_shares_are_errors_with_a_hint() {
    for bad in [
        "0/4", "5/4", "1/0", "junk", "", "1/", "x/4", "-1/4", "1/4/2",
    ] {
        let o = prust(&["check", "--share", bad, PROTOCOL, r#"G !"END""#]);
        assert_eq!(o.status.code(), Some(3), "{bad:?}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(
            err.contains("expected I/N with 1 <= I <= N"),
            "{bad:?}: {err}"
        );
        assert!(!err.contains("panicked"), "{err}");
    }
    let o = prust_with(
        &["check", PROTOCOL, r#"G !"END""#],
        &[("PRUST_SHARE", "3/2")],
    );
    assert_eq!(o.status.code(), Some(3));
    assert!(
        stderr(&o).contains("PRUST_SHARE=\"3/2\" is not valid"),
        "{}",
        stderr(&o)
    );
    // The split level alone is a mistake, not a silent whole check.
    let o = prust(&["check", "--share-level", "3", PROTOCOL, r#"G !"END""#]);
    assert_eq!(o.status.code(), Some(3));
    assert!(stderr(&o).contains("add --share I/N"), "{}", stderr(&o));
    // PRUST_SHARE is a share as --share is.
    let o = prust_with(
        &["check", PROTOCOL, r#"G !"DEADLOCK""#],
        &[("PRUST_SHARE", "1/2")],
    );
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains("holds on share 1/2"), "{}", stdout(&o));
}

#[test]
fn the_help_says_how_shares_combine() {
    let o = prust(&["check", "--help"]);
    let help = stdout(&o);
    assert!(help.contains("--share <I/N>"), "{help}");
    assert!(
        help.contains("the property holds when every share exits 0"),
        "{help}"
    );
    assert!(help.contains("with\n       --share I/N"), "{help}");
}
