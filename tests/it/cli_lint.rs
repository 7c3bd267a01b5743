//! `prust lint`: findings with witnesses as text and JSON, the exit codes
//! of the tool's table, and check names checked before any work.

use std::path::PathBuf;

use crate::cli;

use cli::{prust, prust_with, stderr, stdout};

/// A fresh `.aut` file with `text`.
fn aut_file(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("prust-cli-lint-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.aut"));
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn unclosed_channels_of_two_buyer_are_findings_with_witnesses() {
    let o = prust(&["lint", "two-buyer"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains(
            "close-after-send (channel buyer1→seller): the channel is used and the run ends"
        ),
        "{out}"
    );
    assert!(
        out.contains("  1. buyer1 SEND <Title> TO seller\n"),
        "{out}"
    );
    assert!(out.ends_with("5 findings (7 checks: deadlock-free, must-terminate, may-terminate, close-after-send, send-before-close, no-act-after-close, causality)\n"), "{out}");
    // without that check, two-buyer is clean
    let o = prust(&["lint", "two-buyer", "--exclude", "close-after-send"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(
        stdout(&o).starts_with("0 findings (6 checks"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn json_lists_each_finding_with_its_channel_and_witness() {
    let aut = aut_file(
        "closed-twice",
        "des (0, 4, 5)\n(0,\"!(A,p,q)\",1)\n(1,\"?(A,p,q)\",2)\n(2,\"C(p,q)\",3)\n(3,\"C(p,q)\",4)\n",
    );
    let o = prust(&["lint", aut.to_str().unwrap(), "--format", "json"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "{\"findings\":[{\"check\":\"no-act-after-close\",\"channel\":[\"p\",\"q\"],\
         \"witness\":[\"p SEND <A> TO q\",\"q RECV <A> FROM p\",\"p CLOSE TO q\",\"p CLOSE TO q\"],\
         \"cycle_start\":null,\"summary\":\"the channel is closed twice on one run\"},\
         {\"check\":\"causality\",\"channel\":[\"p\",\"q\"],\
         \"witness\":[\"p SEND <A> TO q\",\"q RECV <A> FROM p\",\"p CLOSE TO q\"],\"cycle_start\":null,\
         \"summary\":\"p acts right after a step it took no part in (q RECV <A> FROM p), \
         and the two cannot be swapped\"}]}\n"
    );
    // (a handshake: p takes part in the step before its close)
    let clean = aut_file(
        "clean",
        "des (0, 3, 4)\n(0,\"‽(A,p,q)\",1)\n(1,\"?(A,p,q)\",2)\n(2,\"C(p,q)\",3)\n",
    );
    let o = prust(&["lint", clean.to_str().unwrap(), "--format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "{\"findings\":[]}\n");
}

#[test]
fn only_selects_checks_and_cant_terminate_is_opt_in() {
    let o = prust(&[
        "lint",
        "two-buyer",
        "--only",
        "cant-terminate,may-terminate",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(
        out.starts_with("cant-terminate: the protocol can end"),
        "{out}"
    );
    assert!(
        out.contains("1 finding (2 checks: may-terminate, cant-terminate)"),
        "{out}"
    );
}

#[test]
fn a_lasso_marks_where_its_cycle_starts() {
    let o = prust(&["lint", "chess", "--only", "must-terminate,close-after-send"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stdout(&o).contains("-- cycle starts here --"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn unknown_check_names_are_errors_with_a_suggestion() {
    let o = prust(&["lint", "two-buyer", "--only", "close-after-sned"]);
    assert_eq!(o.status.code(), Some(3));
    let err = stderr(&o);
    assert!(
        err.contains("error: unknown lint check `close-after-sned`"),
        "{err}"
    );
    assert!(err.contains("did you mean `close-after-send`?"), "{err}");
    assert!(stdout(&o).is_empty());
    let o = prust(&["lint", "two-buyer", "--exclude", "zzzzzzzzzzzz"]);
    assert_eq!(o.status.code(), Some(3));
    assert!(
        stderr(&o).contains("the checks are: deadlock-free"),
        "{}",
        stderr(&o)
    );
    let o = prust(&["lint", "no-such-protocol"]);
    assert_eq!(o.status.code(), Some(3));
}

/// A check name typed as its first word, or with a typo in it, is too far
/// from the whole name for a plain edit-distance suggestion: the hint
/// still names the check meant, and lists them all.
#[test]
fn a_misspelt_or_shortened_check_name_gets_a_did_you_mean() {
    for (typed, meant) in [
        ("deadlok", "deadlock-free"),
        ("deadlock", "deadlock-free"),
        ("causal", "causality"),
        ("clos-after", "close-after-send"),
    ] {
        let o = prust(&["lint", "two-buyer", "--only", typed]);
        assert_eq!(o.status.code(), Some(3), "{typed}");
        let err = stderr(&o);
        assert!(
            err.contains(&format!("error: unknown lint check `{typed}`")),
            "{err}"
        );
        assert!(
            err.contains(&format!(
                "did you mean `{meant}`? (the checks are: deadlock-free,"
            )),
            "{err}"
        );
        assert!(stdout(&o).is_empty(), "{typed}");
    }
    // too short to tell `cant-terminate` from `causality`: just the list
    let o = prust(&["lint", "two-buyer", "--exclude", "ca"]);
    assert_eq!(o.status.code(), Some(3));
    let err = stderr(&o);
    assert!(!err.contains("did you mean"), "{err}");
    assert!(err.contains("the checks are: deadlock-free"), "{err}");
}

/// `causality` runs by default; a handshake (`sync`, `‽` in `.aut`) counts
/// as a step of both its roles.
#[test]
fn causality_is_a_default_check_and_reads_handshakes_from_aut_files() {
    // p hands q a message, then sends to r: p took part in the handshake
    let caused = aut_file(
        "handshake-then-send",
        "des (0, 4, 5)\n(0,\"‽(A,p,q)\",1)\n(1,\"?(A,p,q)\",2)\n(2,\"!(B,p,r)\",3)\n(3,\"?(B,p,r)\",4)\n",
    );
    let o = prust(&["lint", caused.to_str().unwrap()]);
    let out = stdout(&o);
    assert!(out.contains("close-after-send (channel p→q)"), "{out}");
    assert!(!out.contains("causality ("), "{out}");
    assert!(
        out.contains("(7 checks:") && out.contains(", causality)\n"),
        "{out}"
    );
    // r and s hand over right after p and q did: neither took part
    let uncaused = aut_file(
        "two-handshakes",
        "des (0, 4, 5)\n(0,\"‽(A,p,q)\",1)\n(1,\"?(A,p,q)\",2)\n(2,\"‽(B,r,s)\",3)\n(3,\"?(B,r,s)\",4)\n",
    );
    let o = prust(&["lint", uncaused.to_str().unwrap(), "--format", "json"]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(
        out.contains(
            "{\"check\":\"causality\",\"channel\":[\"r\",\"s\"],\"witness\":[\"p SEND <A> TO q\",\
             \"q RECV <A> FROM p\",\"r SEND <B> TO s\",\"s RECV <B> FROM r\"],\"cycle_start\":null,\
             \"summary\":\"r and s hand over right after a step neither took part in (p SEND <A> TO q), \
             and the two cannot be swapped\"}"
        ),
        "{out}"
    );
}

#[test]
fn a_state_limit_is_inconclusive_never_clean() {
    // two-buyer without close-after-send is clean; cut short, it is not
    let o = prust(&[
        "lint",
        "two-buyer",
        "--exclude",
        "close-after-send",
        "--max-states",
        "5",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    assert!(stdout(&o).is_empty(), "{}", stdout(&o));
    assert!(stderr(&o).starts_with("inconclusive:"), "{}", stderr(&o));
}

#[test]
fn realizable_is_opt_in_and_flags_tic_tac_toe_with_its_run() {
    let o = prust(&["lint", "tic-tac-toe", "--only", "realizable"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.starts_with(
            "realizable: the liberal object may take step 2 (`player_2_ SEND <Move> TO player_1_`), \
             which the strict object refuses: the runs part at the choice in strict state 0"
        ),
        "{out}"
    );
    assert!(
        out.contains(
            "  1. player_1_ SEND <Move> TO player_2_\n  2. player_2_ SEND <Move> TO player_1_\n"
        ),
        "{out}"
    );
    assert!(out.ends_with("1 finding (1 check: realizable)\n"), "{out}");
    // not a default check
    let o = prust(&["lint", "tic-tac-toe"]);
    assert!(!stdout(&o).contains("realizable"), "{}", stdout(&o));
    // chess is realizable
    let o = prust(&["lint", "chess", "--only", "realizable"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
}

#[test]
fn realizable_cut_short_by_a_state_limit_is_inconclusive() {
    let o = prust(&["lint", "chess", "--only", "realizable", "--max-states", "5"]);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    assert_eq!(
        stdout(&o),
        "0 findings (1 check: realizable); incomplete: a limit stopped 1 of the checks \
         (see the inconclusive line)\n"
    );
    assert!(
        stderr(&o).starts_with(
            "inconclusive: realizable: the liberal projection has more than 5 states (the state limit); raise it with --max-states"
        ),
        "{}",
        stderr(&o)
    );
    let o = prust(&[
        "lint",
        "chess",
        "--only",
        "realizable",
        "--max-states",
        "5",
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stdout(&o).starts_with(
            "{\"findings\":[],\"inconclusive\":[{\"check\":\"realizable\",\"reason\":\"the liberal projection has more than 5 states"
        ),
        "{}",
        stdout(&o)
    );
}

#[test]
fn on_the_fly_lint_under_a_state_limit_is_inconclusive_never_clean() {
    let clean = [
        "lint",
        "two-buyer",
        "--exclude",
        "close-after-send",
        "--runtime",
        "on-the-fly",
    ];
    let o = prust(&clean);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = prust(&[&clean[..], &["--max-states", "5"]].concat());
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    assert!(
        stdout(&o).starts_with("0 findings (6 checks"),
        "{}",
        stdout(&o)
    );
    assert_eq!(
        stderr(&o).lines().collect::<Vec<_>>(),
        ["inconclusive: deadlock-free, must-terminate, may-terminate, send-before-close, \
          no-act-after-close, causality: the LTS explored on the fly for lint has more than 5 states \
          (the state limit); raise it with --max-states or PRUST_MAX_STATES, or use a smaller instance"]
    );
    // what the explored states prove is still found (exit 1), and the rest
    // is still inconclusive
    let o = prust(&[
        "lint",
        "go-fish:3",
        "--runtime",
        "on-the-fly",
        "--max-states",
        "60",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let out = stdout(&o);
    let first = out
        .split("\n\n")
        .find(|block| !block.starts_with("the "))
        .unwrap();
    assert!(
        first.starts_with("must-terminate: a run that goes on forever"),
        "{out}"
    );
    assert!(stderr(&o).starts_with("inconclusive: "), "{}", stderr(&o));
    // an .aut file has no specification; lint reads no liberal object
    let aut = aut_file("no-spec", "des (0, 1, 2)\n(0,\"!(A,p,q)\",1)\n");
    let o = prust(&["lint", aut.to_str().unwrap(), "--runtime", "on-the-fly"]);
    assert_eq!(o.status.code(), Some(3));
    assert!(stderr(&o).contains("--runtime strict"), "{}", stderr(&o));
    let o = prust(&["lint", "two-buyer", "--runtime", "liberal"]);
    assert_eq!(o.status.code(), Some(3));
    assert!(stderr(&o).contains("--only realizable"), "{}", stderr(&o));
}

/// two-buyer without close-after-send is clean (exit 0): cut short by any
/// limit, it must not say so.
const CLEAN: [&str; 4] = ["lint", "two-buyer", "--exclude", "close-after-send"];

#[test]
fn time_and_memory_budgets_are_inconclusive_never_clean() {
    for runtime in ["strict", "on-the-fly"] {
        let clean = [&CLEAN[..], &["--runtime", runtime]].concat();
        assert_eq!(prust(&clean).status.code(), Some(0), "{runtime}");
        for (limit, value, says) in [
            ("--timeout", "0.000000001", "time limit"),
            ("--max-memory", "1K", "memory limit"),
        ] {
            let o = prust(&[&clean[..], &[limit, value]].concat());
            assert_eq!(
                o.status.code(),
                Some(2),
                "{runtime} {limit}: {}",
                stdout(&o)
            );
            assert!(stderr(&o).starts_with("inconclusive:"), "{}", stderr(&o));
            assert!(stderr(&o).contains(says), "{}", stderr(&o));
        }
    }
}

#[test]
fn the_limits_default_to_the_environment_as_for_check() {
    for (var, value, says) in [
        ("PRUST_MAX_STATES", "5", "more than 5 states"),
        ("PRUST_TIMEOUT", "0.000000001", "time limit"),
        ("PRUST_MAX_MEMORY", "1K", "memory limit"),
    ] {
        let o = prust_with(&CLEAN, &[(var, value)]);
        assert_eq!(o.status.code(), Some(2), "{var}: {}", stdout(&o));
        assert!(stderr(&o).contains(says), "{var}: {}", stderr(&o));
    }
    // The option wins over the variable.
    let o = prust_with(
        &[&CLEAN[..], &["--max-states", "100000"]].concat(),
        &[("PRUST_MAX_STATES", "5")],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // A variable that does not parse is an error naming it (exit 3), as
    // for check; so is a bad option value.
    for (var, value) in [
        ("PRUST_MAX_STATES", "lots"),
        ("PRUST_TIMEOUT", "-3"),
        ("PRUST_MAX_MEMORY", "much"),
    ] {
        let o = prust_with(&CLEAN, &[(var, value)]);
        assert_eq!(o.status.code(), Some(3), "{var}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(err.starts_with("error: bad environment"), "{err}");
        assert!(err.contains(&format!("{var}={value:?}")), "{err}");
        assert!(err.contains("hint:"), "{err}");
    }
    for (option, value) in [
        ("--timeout", "-1"),
        ("--timeout", "0"),
        ("--max-memory", "lots"),
    ] {
        let o = prust(&[&CLEAN[..], &[option, value]].concat());
        assert_eq!(o.status.code(), Some(3), "{option} {value}: {}", stderr(&o));
    }
}

/// `prust lint --help` lists the runtimes lint takes (strict, on-the-fly),
/// not the liberal one it refuses; `--runtime liberal` still gets the
/// error that says where the liberal object is compared.
#[test]
fn lint_help_lists_only_the_runtimes_it_takes() {
    let help = stdout(&prust(&["lint", "--help"]));
    let values = &help[help.find("--runtime <RUNTIME>").unwrap()..];
    let values = &values[..values.find("[default").unwrap()];
    assert!(
        values.contains("- strict:") && values.contains("- on-the-fly:"),
        "{values}"
    );
    assert!(!values.contains("- liberal:"), "{values}");
    let o = prust(&["lint", "--runtime", "liberal", "chess"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("--only realizable"), "{}", stderr(&o));
}

/// The witnesses of the text output, read back: a finding that points to
/// shared steps gets them in front of its own.
fn text_witnesses(out: &str) -> Vec<Vec<String>> {
    let (mut shared, mut witnesses): (Vec<String>, Vec<Vec<String>>) = (vec![], vec![]);
    let mut in_shared = false;
    for line in out.lines() {
        let step = line.trim_start();
        if line.starts_with("the ") && line.contains(" witnesses below start with the same ") {
            (shared, in_shared) = (vec![], true);
        } else if line.is_empty() {
            in_shared = false;
        } else if line.starts_with(|c: char| c.is_ascii_digit()) {
            // The closing count line.
        } else if !line.starts_with(' ') && line.contains(": ") {
            witnesses.push(vec![]);
        } else if step.starts_with("1.–") || step.starts_with("1. (the shared step") {
            let w = witnesses.last_mut().expect("a finding before its steps");
            w.extend(shared.iter().cloned());
        } else if let Some((n, text)) = step.split_once(". ") {
            if n.parse::<usize>().is_ok() {
                match in_shared {
                    true => shared.push(text.to_string()),
                    false => witnesses.last_mut().unwrap().push(text.to_string()),
                }
            }
        }
    }
    witnesses
}

#[test]
fn shared_steps_are_printed_once_and_every_witness_stays_whole() {
    let o = prust(&["lint", "rock-paper-scissors"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.starts_with("the 7 witnesses below start with the same 12 steps:\n"),
        "{text}"
    );
    assert!(
        text.contains("  1.–12. (the 12 shared steps above; the cycle starts at step 4)\n"),
        "{text}"
    );
    // The text says what JSON says, whole, for every finding.
    let o = prust(&["lint", "rock-paper-scissors", "--format", "json"]);
    let json = testkit::json::Json::parse(stdout(&o).trim()).unwrap();
    let from_json: Vec<Vec<String>> = json
        .get("findings")
        .arr()
        .iter()
        .map(|f| {
            f.get("witness")
                .arr()
                .iter()
                .map(|s| s.str().to_string())
                .collect()
        })
        .collect();
    assert_eq!(text_witnesses(&text), from_json);
    // Before, every step of every witness had a line of its own, and
    // each finding a heading besides: now fewer lines than steps.
    let steps: usize = from_json.iter().map(Vec::len).sum();
    assert!(text.lines().count() < steps, "{text}");
}
