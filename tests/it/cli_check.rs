//! `prust check`: verdicts and exit codes on the bundled protocols, the
//! runtimes, semantics and threads that must not change a verdict, and
//! errors in the arguments or formulas.

use crate::cli;
use testkit::json;

use std::process::Command;

use cli::{no_panic, prust, stderr, stdout};
use json::json_lines;

#[test]
fn check_demo_shows_both_verdicts() {
    // The demo succeeds when its verdicts are the expected ones.
    let o = prust(&["check"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("property holds"), "{out}");
    assert!(out.contains("property violated"), "{out}");
    assert!(out.contains("cycle"), "{out}");
    assert!(out.contains("demo: both verdicts as expected"), "{out}");
}

#[test]
fn check_exit_codes() {
    let holds = r#"G ("worker_1_ RECV <Boolean>" => X "worker_1_ SEND <Boolean> TO worker_0_")"#;
    let violated = r#"G ("worker_1_ RECV <Boolean>" => X "worker_1_ SEND <Boolean> TO worker_2_")"#;
    for runtime in ["strict", "liberal"] {
        let o = prust(&["check", "token-star:4", holds, "--runtime", runtime]);
        assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
        let o = prust(&[
            "check",
            "token-star:4",
            holds,
            violated,
            "--runtime",
            runtime,
        ]);
        assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
        assert!(
            stdout(&o).contains("1. worker_0_ SEND <Boolean> TO worker_"),
            "{}",
            stdout(&o)
        );
    }
    // A search cut short is inconclusive, never "holds"; so is a build of
    // the object that the same limit stops.
    for runtime in ["on-the-fly", "strict", "liberal"] {
        let o = prust(&[
            "check",
            "token-full-mesh:6",
            r#"G !"DEADLOCK""#,
            "--max-states",
            "5",
            "--runtime",
            runtime,
        ]);
        assert_eq!(o.status.code(), Some(2), "{runtime}: {}", stdout(&o));
        assert!(stdout(&o).contains("inconclusive"), "{}", stdout(&o));
    }
}

#[test]
fn check_typo_in_role_is_an_error_with_a_hint() {
    // The error is a diagnostic (stderr); the other formula's verdict and
    // the summary are results (stdout).
    let o = prust(&["check", "chess", r#"G !"whte SEND <Move>""#, "G true"]);
    assert_eq!(o.status.code(), Some(3), "{}", stdout(&o));
    let (out, err) = (stdout(&o), stderr(&o));
    assert!(err.contains("did you mean `white`"), "{err}");
    assert!(err.contains("error in formula"), "{err}");
    assert!(!out.contains("whte"), "{out}");
    assert!(out.contains("property holds: G true"), "{out}");
    let last = out.lines().last().unwrap_or_default();
    assert!(
        last.starts_with(
            "2 formula(s) on chess (strict): 1 hold, 0 violated, 0 inconclusive, 1 error(s);"
        ),
        "{out}"
    );
}

#[test]
fn check_unknown_protocol_and_bad_options() {
    let o = prust(&["check", "token-stra:4", "G true"]);
    assert_eq!(o.status.code(), Some(3));
    assert!(
        stderr(&o).contains("did you mean `token-star`?"),
        "{}",
        stderr(&o)
    );
    let o = prust(&["check", "chess", "G true", "--semantics", "lasso"]);
    assert_eq!(o.status.code(), Some(3));
    assert!(stderr(&o).contains("stutter, omega"), "{}", stderr(&o));
    let o = prust(&["check", "chess"]);
    assert_eq!(o.status.code(), Some(3));
    assert!(stderr(&o).contains("no formula"), "{}", stderr(&o));
}

/// Sixteen concurrent workers: 5^16 global states a round, too many to
/// compile (the error says to build on the fly: see `on_the_fly.rs`),
/// checked on the fly up to a limit (inconclusive, exit code 2, never
/// "holds").
#[test]
fn check_on_the_fly_where_compiling_is_too_much() {
    let f = r#"G !"DEADLOCK""#;
    let o = prust(&[
        "check",
        "npb-is-concurrent:16",
        f,
        "--runtime",
        "on-the-fly",
        "--max-states",
        "20000",
        // Every interleaving: the state limit is met, and is never "holds".
        "--no-por",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    assert!(stdout(&o).contains("state limit"), "{}", stdout(&o));
    // With partial-order reduction (the default) the workers' branches are
    // searched one after the other: proven well within the limit.
    let o = prust(&[
        "check",
        "npb-is-concurrent:6",
        f,
        "--runtime",
        "on-the-fly",
        "--max-states",
        "2000",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(
        stdout(&o).contains("partial-order reduction on"),
        "{}",
        stdout(&o)
    );
    // Where both can be built, both give the same verdicts.
    let g = r#"G ("worker_1_ RECV <RankMessage>" -> F "worker_1_ SEND <DoneMessage>")"#;
    let verdicts = |runtime| {
        let o = prust(&["check", "npb-is-concurrent:3", f, g, "--runtime", runtime]);
        assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
        stdout(&o)
            .lines()
            .filter(|l| l.starts_with("property"))
            .map(String::from)
            .collect::<Vec<_>>()
    };
    assert_eq!(verdicts("on-the-fly"), verdicts("strict"));
    // An .aut file is an LTS already: nothing to build on the fly.
    let o = prust(&["check", "some/file.aut", f, "--runtime", "on-the-fly"]);
    assert_eq!(o.status.code(), Some(3));
    assert!(stderr(&o).contains("--runtime strict"), "{}", stderr(&o));
}

#[test]
fn semantics_option_changes_finite_run_verdicts() {
    // Two-buyer ends: under the stutter convention "always eventually some
    // send" is violated by the terminated run; with infinite runs only there
    // is no infinite run, so it holds vacuously.
    let f = r#"G F "* SEND *""#;
    let o = prust(&["check", "two-buyer", f]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(stdout(&o).contains("terminated"), "{}", stdout(&o));
    let o = prust(&["check", "two-buyer", f, "--semantics", "omega"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
}

/// `--threads N`: a safety property searched on N threads has the verdict
/// and the counterexample of one thread, and the record says how many ran;
/// a count out of range is a usage error.
#[test]
fn check_threads_gives_the_one_thread_counterexample() {
    let run = |threads: &str| {
        Command::new(env!("CARGO_BIN_EXE_prust"))
            .args(["check", "ring-buffered:4", r#"G !"worker_3_ RECV *""#])
            .args(["--format", "json", "--threads", threads])
            // The determinism check (on in debug builds) keeps a search on
            // one thread, and so do levels smaller than the parallel
            // threshold: share every level of this small ring.
            .env("PRUST_DETERMINISM", "0")
            .env("PRUST_PARALLEL_LEVEL", "1")
            .output()
            .unwrap()
    };
    let (one, two) = (run("1"), run("2"));
    assert_eq!(one.status.code(), Some(1), "{}", stderr(&one));
    assert_eq!(two.status.code(), Some(1), "{}", stderr(&two));
    let (one, two) = (&json_lines(&one)[0], &json_lines(&two)[0]);
    assert_eq!(one.get("stats").get("threads").num(), 1.0);
    assert_eq!(two.get("stats").get("threads").num(), 2.0);
    assert_eq!(one.get("counterexample"), two.get("counterexample"));
    let o = prust(&["check", "chess", "G true", "--threads", "5000"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("0..=1024"), "{}", stderr(&o));
    no_panic(&o);
}

/// A formula that does not parse, however long or strange, gets an error of
/// a few lines (exit 3): 60,000 nested parentheses once printed 240 kB of
/// error; a control character shows as its escape.
#[test]
fn errors_in_huge_or_strange_formulas_stay_short() {
    let deep = format!("{}\"white SEND *\"", "(".repeat(60_000));
    let wide = format!("G ({} b)", "\"white SEND *\" | ".repeat(5_000));
    for f in [deep.as_str(), wide.as_str(), "G \u{1}a", "G a\u{7}"] {
        let o = prust(&["check", "chess", f]);
        no_panic(&o);
        assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
        let err = stderr(&o);
        assert!(err.len() < 2_000, "{} bytes:\n{}", err.len(), &err[..500]);
        assert!(err.starts_with("error in formula"), "{err}");
        assert!(!err.chars().any(|c| c.is_control() && c != '\n'), "{err:?}");
    }
}

/// A protocol whose only actions are closes sends no message, so it has no
/// message type and needs no dummy: it is checked like any other (it was
/// an error, "the dummies do not match … declared: (none) given: (none)").
#[test]
fn a_protocol_of_closes_only_is_checked() {
    let dir = cli::fresh_folder("cli-check", "closes");
    std::fs::write(dir.join("c.aut"), "des (0, 1, 2)\n(0,\"C(a,b)\",1)\n").unwrap();
    std::fs::write(
        dir.join("c.dcj"),
        "(s/defroles #{::a ::b})\n(s/defsession ::c [] (s/cat (s/close ::a ::b) (s/close ::b ::a)))\n",
    )
    .unwrap();
    // Each role closes its own channel, in either order: when b closes
    // first, the liberal run of the two roles is not a run of the
    // protocol's order and ends in a deadlock.
    std::fs::write(
        dir.join("d.aut"),
        "des (0, 3, 4)\n(0,\"C(a,b)\",1)\n(0,\"C(b,c)\",2)\n(1,\"C(c,a)\",3)\n",
    )
    .unwrap();
    let cases: [(&str, &str, &str, i32); 8] = [
        ("c.aut", "strict", r#"F "END""#, 0),
        ("c.aut", "liberal", r#"F "END""#, 0),
        ("c.aut", "strict", r#"X "a CLOSE TO b""#, 1),
        ("c.dcj", "strict", r#"F "END""#, 0),
        ("c.dcj", "liberal", r#"F "END""#, 0),
        ("c.dcj", "on-the-fly", r#"F "END""#, 0),
        ("d.aut", "strict", r#"G !"DEADLOCK""#, 0),
        ("d.aut", "liberal", r#"G !"DEADLOCK""#, 1),
    ];
    for (file, runtime, formula, code) in cases {
        let path = dir.join(file);
        let o = prust(&[
            "check",
            path.to_str().unwrap(),
            formula,
            "--runtime",
            runtime,
        ]);
        no_panic(&o);
        let out = stdout(&o);
        assert_eq!(
            o.status.code(),
            Some(code),
            "{file} {runtime} {formula}: {out}{}",
            stderr(&o)
        );
        // A deadlock in which no role waits says so, not "(waiting: )".
        assert!(!out.contains("waiting: )"), "{out}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A formula past the parser's nesting limit says why and where, with a
/// hint, from `prust check`, `prust translate` and the library alike (it
/// said only "formula does not parse" and "expected a formula nested at
/// most 256 deep", at column 1 for 300 X).
#[test]
fn a_formula_nested_too_deep_says_why_and_where() {
    let xs = format!("{}\"END\"", "X ".repeat(300));
    let why = "nesting deeper than 256 at line 1, column 89: 'X' nests level 257";
    let hint = "hint: formulas are read at most 256 levels deep";
    let check = prust(&["check", "chess", &xs]);
    assert_eq!(check.status.code(), Some(3));
    let translate = prust(&["translate", &xs]);
    assert_eq!(translate.status.code(), Some(3));
    for err in [stderr(&check), stderr(&translate)] {
        assert!(err.contains(why) && err.contains(hint), "{err}");
    }
    let e = prust::engine::try_check(&xs, prust::protocols::bundled::chess::strict(), vec![])
        .unwrap_err();
    assert!(matches!(e, prust::Error::Parse { column: 89, .. }), "{e}");
    assert!(
        e.to_string().contains(why) && e.to_string().contains(hint),
        "{e}"
    );
}
