//! `prust check` limits that end inconclusive (never an abort), and the
//! counterexample files: `--trail` written, then `prust replay`ed; `--dot`.

use std::path::PathBuf;

use crate::cli;

use cli::{fresh_folder, prust, prust_with, stderr, stdout};

/// A fresh directory for one test's files.
fn scratch(name: &str) -> PathBuf {
    fresh_folder("cli-limits", name)
}

#[test]
fn a_fifo_that_grows_forever_ends_inconclusive_at_the_memory_limit() {
    // One state with a send loop: every send adds a message to the FIFO, so
    // the object's states grow without end (before: 14 GB in 20 s, then an
    // allocation abort, exit 134).
    let dir = scratch("grow");
    let aut = dir.join("grow.aut");
    std::fs::write(&aut, "des (0, 1, 1)\n(0, \"!(Ping,ra,rc)\", 0)\n").unwrap();
    let o = prust(&[
        "check",
        aut.to_str().unwrap(),
        r#"G F "ra SEND *""#,
        "--max-memory",
        "96M",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("inconclusive"), "{out}");
    assert!(out.contains("memory"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_build_that_reaches_a_limit_is_inconclusive_not_an_error() {
    let o = prust(&[
        "check",
        "token-star:200",
        r#"G !"DEADLOCK""#,
        "--max-states",
        "10",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    assert!(out.contains(r#"inconclusive: G !"DEADLOCK""#), "{out}");
    assert!(
        out.contains("the global LTS has more than 10 states"),
        "{out}"
    );
}

#[test]
fn max_memory_takes_sizes_and_refuses_nonsense() {
    let o = prust(&["check", "chess", r#"G F "END""#, "--max-memory", "lots"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("--max-memory"), "{}", stderr(&o));
}

#[test]
fn a_trail_is_written_then_replayed_and_an_edited_one_says_where_it_diverges() {
    let dir = scratch("trail");
    let trail = dir.join("chess.trail");
    let dot = dir.join("chess.dot");
    let o = prust(&[
        "check",
        "chess",
        r#"F "END""#,
        "--trail",
        trail.to_str().unwrap(),
        "--dot",
        dot.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("chess.trail"), "{}", stderr(&o));
    let text = std::fs::read_to_string(&trail).unwrap();
    assert!(text.starts_with("prust-trail 1\n"), "{text}");
    assert!(text.contains("protocol chess"), "{text}");
    assert!(text.contains("\ncycle\n"), "{text}");
    let chart = std::fs::read_to_string(&dot).unwrap();
    assert!(chart.starts_with("digraph"), "{chart}");
    assert!(
        chart.contains("white") && chart.contains("black"),
        "{chart}"
    );

    let o = prust(&["replay", "chess", trail.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("1. white SEND <Move> TO black"), "{out}");
    assert!(out.contains("the trail replays"), "{out}");

    // The same trail on an object that moves differently: black first.
    let edited = dir.join("edited.trail");
    std::fs::write(
        &edited,
        text.replacen(
            "white SEND <Move> TO black",
            "black SEND <Move> TO white",
            1,
        ),
    )
    .unwrap();
    let o = prust(&["replay", "chess", edited.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("no longer replays"), "{out}");
    assert!(out.contains("step 1"), "{out}");
    assert!(out.contains("refused"), "{out}");

    // A file that is not a trail: an error with its line and column.
    let bad = dir.join("bad.trail");
    std::fs::write(
        &bad,
        "prust-trail 1\nwhite SNED <Move> TO black\nend deadlock\n",
    )
    .unwrap();
    let o = prust(&["replay", "chess", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("line 2"), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn with_several_formulas_each_counterexample_gets_its_own_file() {
    let dir = scratch("several");
    let trail = dir.join("run.trail");
    let o = prust(&[
        "check",
        "chess",
        r#"G !"black SEND *""#,
        r#"!"black SEND <Move>" U "black RECV <Move>""#,
        r#"F "END""#,
        "--trail",
        trail.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(dir.join("run-1.trail").exists());
    assert!(
        !dir.join("run-2.trail").exists(),
        "the second formula holds"
    );
    assert!(dir.join("run-3.trail").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--hash-compaction`: a property that holds is said to hold
/// probabilistically, with its bound, never plainly; exit status 0 (as the
/// exit-code table says); a violation is reported as without it; JSON says
/// "holds-probabilistic" with the bound.
#[test]
fn hash_compaction_says_probabilistic_and_keeps_violations() {
    let holds = r#"!"black SEND <Move>" U "black RECV <Move>""#;
    let o = prust(&["check", "chess", holds, "--hash-compaction"]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{}", stderr(&o));
    assert!(
        out.contains("property holds (probabilistic: hash compaction): "),
        "{out}"
    );
    assert!(out.contains("n²/2^65"), "{out}");
    assert!(!out.contains("property holds: "), "{out}");
    let o = prust(&["check", "chess", r#"F "END""#, "--hash-compaction"]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(stdout(&o).contains("property violated: "), "{}", stdout(&o));
    let o = prust(&[
        "check",
        "chess",
        holds,
        "--hash-compaction",
        "--format",
        "json",
    ]);
    let json = stdout(&o);
    assert!(
        json.contains(r#""verdict":"holds-probabilistic""#)
            && json.contains(r#""omission_bound":"#),
        "{json}"
    );
    assert!(json.contains(r#""hash_compaction":true"#), "{json}");
    // Off by default: the same property is proven.
    let o = prust(&["check", "chess", holds]);
    assert!(stdout(&o).contains("property holds: "), "{}", stdout(&o));
}

/// Big instances end in a verdict or a clear error, never in a crash: a
/// parameter past the bound (before: an allocation abort), and a ring so
/// long that recursing over its specification overflowed the stack
/// (before: a stack overflow at 100,000 roles in a release build; the
/// command now runs on a thread with a large stack, and the compiler's
/// sequences no longer recurse).
#[test]
fn big_bundled_instances_end_in_a_verdict_or_an_error() {
    let o = prust(&["check", "token-star:99999999999", r#"G !"DEADLOCK""#]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("at most 100000"), "{}", stderr(&o));
    let o = prust(&["lts", "ring-buffered:60000", "--format", "stats"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).starts_with("120000 states"),
        "{}",
        &stdout(&o)[..80]
    );
}

/// `--timeout` and `PRUST_TIMEOUT` take the same values, in `check` and
/// in `lint`: `inf` or more than 10⁹ s is no timeout (the option once
/// refused `1e99` that the variable took, and lint refused `inf`), and 0
/// is an error with a hint in every form (the variable once made every
/// check inconclusive at once while the option refused it).
#[test]
fn timeouts_read_alike_from_the_option_and_the_variable() {
    let f = r#"G !"DEADLOCK""#;
    for none in ["inf", "1e99", "1e10"] {
        let o = prust(&["check", "chess", f, "--timeout", none]);
        assert_eq!(o.status.code(), Some(0), "--timeout {none}: {}", stderr(&o));
        assert!(stdout(&o).starts_with("property holds"), "{}", stdout(&o));
        let o = cli::prust_with(&["check", "chess", f], &[("PRUST_TIMEOUT", none)]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "PRUST_TIMEOUT={none}: {}",
            stderr(&o)
        );
        let o = cli::prust_with(&["lint", "chess"], &[("PRUST_TIMEOUT", none)]);
        assert_ne!(
            o.status.code(),
            Some(3),
            "lint, PRUST_TIMEOUT={none}: {}",
            stderr(&o)
        );
        assert_ne!(
            o.status.code(),
            Some(2),
            "lint, PRUST_TIMEOUT={none}: {}",
            stderr(&o)
        );
    }
    for zero in ["0", "0.0", "1e-12"] {
        for o in [
            prust(&["check", "chess", f, "--timeout", zero]),
            prust(&["lint", "chess", "--timeout", zero]),
            cli::prust_with(&["check", "chess", f], &[("PRUST_TIMEOUT", zero)]),
            cli::prust_with(&["lint", "chess"], &[("PRUST_TIMEOUT", zero)]),
        ] {
            assert_eq!(o.status.code(), Some(3), "{zero}: {}", stderr(&o));
            assert!(
                stderr(&o).contains("inf for none"),
                "{zero}: {}",
                stderr(&o)
            );
        }
    }
}

/// `--threads 0` is every core, `--threads 100000` an error naming the
/// range, `--max-states 0` inconclusive (exit 2), never "holds".
#[test]
fn extreme_thread_counts_and_state_limits() {
    let f = r#"G !"DEADLOCK""#;
    let o = prust(&["check", "chess", f, "--threads", "0"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = prust(&["check", "chess", f, "--threads", "100000"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("0..=1024"), "{}", stderr(&o));
    let o = prust(&["check", "chess", f, "--max-states", "0"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stdout(&o).starts_with("inconclusive"), "{}", stdout(&o));
}

/// The summary line under hash compaction says "probabilistic" too: a
/// reader (or a script) that looks only at the last line must not take
/// a fingerprint search for a proof (before: "1 hold, 0 violated, …", the
/// wording of an exact search). Without it the summary stays as it was.
#[test]
fn the_summary_line_of_a_hash_compacted_check_says_probabilistic() {
    let holds = r#"!"black SEND <Move>" U "black RECV <Move>""#;
    let o = prust(&["check", "chess", holds, r#"F "END""#, "--hash-compaction"]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{}", stderr(&o));
    let last = out.lines().last().unwrap_or_default();
    assert!(
        last.contains(": 1 hold (probabilistic: hash compaction), 1 violated, "),
        "{last}"
    );
    // Under bitstate hashing the summary names it too (before: "hash
    // compaction" alone, which only the searches it cannot serve use).
    let o = prust(&[
        "check",
        "chess",
        holds,
        r#"F "END""#,
        "--bitstate",
        "1048576",
    ]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{}", stderr(&o));
    let last = out.lines().last().unwrap_or_default();
    assert!(
        last.contains(
            ": 1 hold (probabilistic: bitstate hashing or hash compaction), 1 violated, "
        ),
        "{last}"
    );
    let o = prust(&["check", "chess", holds]);
    let out = stdout(&o);
    let last = out.lines().last().unwrap_or_default();
    assert!(last.contains(": 1 hold, 0 violated, "), "{last}");
}

#[test]
fn a_limit_variable_bounds_the_build_as_its_option_does() {
    // PRUST_MAX_STATES, PRUST_TIMEOUT and PRUST_MAX_MEMORY act "as their
    // options", but once bounded only the search: the build of the object
    // ran unbounded (PRUST_TIMEOUT=2 let a 15 s build run to "holds" where
    // --timeout 2 was inconclusive after 2 s).
    let formula = r#"G !"DEADLOCK""#;
    let by_option = prust(&["check", "token-star:200", formula, "--max-states", "10"]);
    let by_variable = prust_with(
        &["check", "token-star:200", formula],
        &[("PRUST_MAX_STATES", "10")],
    );
    for o in [&by_option, &by_variable] {
        assert_eq!(o.status.code(), Some(2), "{}{}", stdout(o), stderr(o));
        let out = stdout(o);
        assert!(
            out.contains("the global LTS has more than 10 states"),
            "{out}"
        );
    }
    // The option still overrides its variable.
    let o = prust_with(
        &["check", "chess", formula, "--max-states", "1000"],
        &[("PRUST_MAX_STATES", "1")],
    );
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    // A bad value is the same error whoever reads it first.
    let o = prust_with(
        &["check", "chess", formula],
        &[("PRUST_MAX_MEMORY", "lots")],
    );
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("PRUST_MAX_MEMORY"), "{}", stderr(&o));
}

#[test]
fn lts_and_import_read_the_limit_variables_their_message_names() {
    // A build too big for the limit says "raise it with ... PRUST_MAX_STATES",
    // but `prust lts` and `prust import` did not read the variable: with
    // PRUST_MAX_STATES=10 they printed the whole LTS (exit 0).
    let o = prust_with(
        &["lts", "token-star:200", "--format", "stats"],
        &[("PRUST_MAX_STATES", "10")],
    );
    assert_eq!(o.status.code(), Some(2), "{}{}", stdout(&o), stderr(&o));
    assert!(
        stderr(&o).contains("the global LTS has more than 10 states"),
        "{}",
        stderr(&o)
    );
    let dcj = format!(
        "{}/dcj/tests/dcj/token.dcj:token-star:50,0",
        env!("CARGO_MANIFEST_DIR")
    );
    let o = prust_with(
        &["import", &dcj, "--format", "stats"],
        &[("PRUST_MAX_STATES", "10")],
    );
    assert_eq!(o.status.code(), Some(2), "{}{}", stdout(&o), stderr(&o));
    let o = prust_with(&["lts", "chess"], &[("PRUST_TIMEOUT", "soon")]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("PRUST_TIMEOUT"), "{}", stderr(&o));
}

/// The command line's hints name its own options and variables, never the
/// library's `Checker` methods (which a user of `prust check` cannot call).
#[test]
fn hints_name_the_options_of_the_command_line() {
    // Options, variables, and the hint they must give.
    type Case<'a> = (&'a [&'a str], &'a [(&'a str, &'a str)], &'a str);
    let cases: [Case; 4] = [
        // The search (not the build) stops at the state limit.
        (
            &["--runtime", "on-the-fly", "--max-states", "3"],
            &[],
            "raise it with --max-states or PRUST_MAX_STATES",
        ),
        (
            &[],
            &[("PRUST_MAX_DEPTH", "1")],
            "raise it with PRUST_MAX_DEPTH)",
        ),
        (
            &["--threads", "2"],
            &[("PRUST_DETERMINISM", "0")],
            "(PRUST_PARALLEL_LEVEL), so no other thread was started",
        ),
        (
            &["--no-por", "--runtime", "liberal"],
            &[],
            "switched off (by --no-por or PRUST_POR=0)",
        ),
    ];
    for (options, env, hint) in cases {
        let mut args = vec!["check", "token-star:3", r#"G !"DEADLOCK""#, r#"G F "END""#];
        args.extend_from_slice(options);
        let o = prust_with(&args, env);
        let out = stdout(&o);
        assert!(out.contains(hint), "{options:?} {env:?}: {out}");
        assert!(!out.contains("Checker::"), "{options:?} {env:?}: {out}");
    }
}

#[test]
fn the_timeout_covers_the_formulas_translation() {
    // 2^16 letters, one automaton edge each: the translation alone runs
    // for minutes. The timeout counted only the search, so the check ran
    // past it; 15 terms of `<->` took seconds in the reduction's analysis.
    let slow: Vec<String> = (0..16)
        .map(|i| format!(r#"F G "worker_{i}_ SEND *""#))
        .collect();
    let started = std::time::Instant::now();
    let o = prust(&[
        "check",
        "token-directed-ring:16",
        &slow.join(" | "),
        "--timeout",
        "1",
    ]);
    // Generous: the point is that it returns, not how fast.
    assert!(started.elapsed().as_secs() < 20, "{:?}", started.elapsed());
    assert_eq!(o.status.code(), Some(2), "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("inconclusive"), "{out}");
    assert!(out.contains("time limit (1.0 s"), "{out}");
    // It was the translation, not the search, that the limit stopped.
    assert!(out.contains("before its search began"), "{out}");
}

#[test]
fn the_default_memory_budget_fits_under_an_address_space_limit() {
    if std::process::Command::new("prlimit")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("prlimit (util-linux) not found: skipped");
        return;
    }
    let dir = scratch("rlimit");
    let aut = dir.join("stream.aut");
    std::fs::write(&aut, "des (0, 1, 1)\n(0,\"!(M,a,b)\",0)\n").unwrap();
    // The default budget was half the machine's available memory, whatever
    // the address-space limit: the stream of messages grew until an
    // allocation failed (exit 134).
    let o = std::process::Command::new("prlimit")
        .arg("--as=4000000000")
        .arg(env!("CARGO_BIN_EXE_prust"))
        .args(["check", aut.to_str().unwrap(), r#"G F "a SEND *""#])
        .env_remove("PRUST_MAX_MEMORY")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("inconclusive"), "{out}");
    assert!(out.contains("memory limit"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A `.dcj` file in a fresh folder: roles `a` and `b`, top-level `defs`,
/// and a session `s` whose sender's index is `expr`.
fn dcj_file(name: &str, defs: &str, expr: &str) -> (PathBuf, String) {
    let dir = scratch(name);
    let path = dir.join(format!("{name}.dcj"));
    let text = format!(
        "(s/defrole ::a)(s/defrole ::b)\n{defs}\n(s/defsession ::s [] (s/-->> Boolean (::a {expr}) ::b))\n"
    );
    std::fs::write(&path, text).unwrap();
    let target = format!("{}:s", path.display());
    (dir, target)
}

/// A million reductions of a million: no step bound is near before the
/// time limit.
const FOREVER: &str =
    "(reduce (fn [acc x] (+ acc (reduce + 0 (range 1000000)))) 0 (range 1000000))";

#[test]
fn evaluating_a_dcj_file_stops_at_the_time_limit_inconclusive() {
    // The evaluation ignored --timeout and PRUST_TIMEOUT: this ran for
    // ever (work inside builtins was not even counted as steps).
    let (dir, target) = dcj_file("dcj-time", "", FOREVER);
    let formula = r#"G !"DEADLOCK""#;
    for runtime in ["strict", "on-the-fly"] {
        let by_option = prust(&[
            "check",
            &target,
            formula,
            "--timeout",
            "0.3",
            "--runtime",
            runtime,
        ]);
        let by_variable = prust_with(
            &["check", &target, formula, "--runtime", runtime],
            &[("PRUST_TIMEOUT", "0.3")],
        );
        for o in [&by_option, &by_variable] {
            assert_eq!(
                o.status.code(),
                Some(2),
                "{runtime}: {}{}",
                stdout(o),
                stderr(o)
            );
            let out = stdout(o);
            assert!(out.contains(r#"inconclusive: G !"DEADLOCK""#), "{out}");
            assert!(out.contains("stopped at the time limit"), "{out}");
            // Where the evaluation was: the inner reduce.
            assert!(out.contains(".dcj:3:"), "{out}");
        }
    }
    // prust import and prust lint read the limit too.
    let o = prust_with(&["import", &target], &[("PRUST_TIMEOUT", "0.3")]);
    assert_eq!(o.status.code(), Some(2), "{}{}", stdout(&o), stderr(&o));
    assert!(stderr(&o).contains("time limit"), "{}", stderr(&o));
    let o = prust(&[
        "lint",
        &target,
        "--runtime",
        "on-the-fly",
        "--timeout",
        "0.3",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}{}", stdout(&o), stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn evaluating_a_dcj_file_stops_at_the_memory_limit_inconclusive() {
    // Ten live vectors of a million elements: 320 MB of values.
    let bindings: Vec<String> = (0..10)
        .map(|i| format!("x{i} (vec (range 1000000))"))
        .collect();
    let (dir, target) = dcj_file(
        "dcj-memory",
        "",
        &format!("(s/let [{}] 1)", bindings.join(" ")),
    );
    let o = prust(&["check", &target, r#"G !"DEADLOCK""#, "--max-memory", "100M"]);
    assert_eq!(o.status.code(), Some(2), "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("stopped at the memory limit"), "{out}");
    assert!(out.contains("--max-memory"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_dcj_value_that_doubles_is_an_error_at_its_form_not_an_abort() {
    // (str x x) 45 times aborted on a 1 GB allocation (exit 134); a
    // string doubled 25 times is past the bound already.
    let doublings = vec!["x (str x x)"; 25].join(" ");
    let (dir, target) = dcj_file(
        "dcj-double",
        "",
        &format!("(s/let [x \"ab\" {doublings}] (count x))"),
    );
    let o = prust(&["check", &target, r#"G !"DEADLOCK""#, "--timeout", "60"]);
    cli::no_panic(&o);
    assert_eq!(o.status.code(), Some(3), "{}{}", stdout(&o), stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("dcj-double.dcj:3:"), "{err}");
    assert!(err.contains("a string of"), "{err}");
    assert!(err.contains("hint:"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
