//! The `prust` command as users run it: outputs and exit codes.

use std::process::{Command, Output};

fn prust(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_prust"))
        .args(args)
        .env_remove("PRUST_MAX_STATES")
        .env_remove("PRUST_SEMANTICS")
        .output()
        .expect("the prust binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

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
fn translate_bad_formula_exits_2_with_caret() {
    let o = prust(&["translate", "G (a -> F b"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("line 1, column 12"), "{err}");
    assert!(err.contains('^'), "{err}");
}

#[test]
fn bad_arguments_are_explained() {
    let o = prust(&["translate", "--formt", "dot", "a"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("did you mean --format"),
        "{}",
        stderr(&o)
    );
    let o = prust(&["chek"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("prust check"), "{}", stderr(&o));
}

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
    // A search cut short is inconclusive, never "holds".
    let o = prust(&[
        "check",
        "token-full-mesh:6",
        r#"G !"DEADLOCK""#,
        "--max-states",
        "5",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    assert!(stdout(&o).contains("inconclusive"), "{}", stdout(&o));
}

#[test]
fn check_typo_in_role_is_an_error_with_a_hint() {
    let o = prust(&["check", "chess", r#"G !"whte SEND <Move>""#]);
    assert_eq!(o.status.code(), Some(3), "{}", stdout(&o));
    assert!(
        stdout(&o).contains("did you mean `white`"),
        "{}",
        stdout(&o)
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
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    assert!(stdout(&o).contains("state limit"), "{}", stdout(&o));
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

#[test]
fn list_names_every_bundled_protocol() {
    let o = prust(&["list"]);
    assert_eq!(o.status.code(), Some(0));
    let out = stdout(&o);
    for name in [
        "token-directed-ring:K",
        "chess",
        "go-fish:K",
        "npb-mg:K",
        "two-buyer",
        "load-balancer",
    ] {
        assert!(out.contains(name), "{name} missing from\n{out}");
    }
}

#[test]
fn lts_aut_round_trips_through_a_file() {
    let o = prust(&["lts", "rock-paper-scissors:3", "--format", "aut"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let aut = stdout(&o);
    let dir = std::env::temp_dir().join(format!("prust-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("rps.aut");
    std::fs::write(&path, &aut).unwrap();
    let p = path.to_str().unwrap();
    let again = prust(&["lts", p, "--format", "aut"]);
    assert_eq!(stdout(&again), aut);
    let stats = |x: &str| stdout(&prust(&["lts", x, "--format", "stats"]));
    assert_eq!(stats(p), stats("rock-paper-scissors:3"));
    // The same verdicts from the file as from the bundled name.
    let f = r#"G ("player_0_ SEND <Rock> TO player_1_" -> F "player_1_ RECV <Rock>")"#;
    assert_eq!(
        prust(&["check", p, f]).status.code(),
        prust(&["check", "rock-paper-scissors:3", f]).status.code()
    );
    std::fs::write(&path, "des (0, 1, 2)\n(0, \"!(Move,white\", 1)\n").unwrap();
    let bad = prust(&["lts", p]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr(&bad).contains("line 2"), "{}", stderr(&bad));
    std::fs::remove_dir_all(&dir).ok();
}
