//! `prust lint`: findings with witnesses as text and JSON, the exit codes
//! of the tool's table, and check names checked before any work.

use std::path::PathBuf;
use std::process::{Command, Output};

fn prust(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_prust"))
        .args(args)
        .env_remove("PRUST_MAX_STATES")
        .output()
        .expect("the prust binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

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
    assert!(out.ends_with("5 findings (6 checks: deadlock-free, must-terminate, may-terminate, close-after-send, send-before-close, no-act-after-close)\n"), "{out}");
    // without that check, two-buyer is clean
    let o = prust(&["lint", "two-buyer", "--exclude", "close-after-send"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(
        stdout(&o).starts_with("0 findings (5 checks"),
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
         \"cycle_start\":null,\"summary\":\"the channel is closed twice on one run\"}]}\n"
    );
    let clean = aut_file(
        "clean",
        "des (0, 3, 4)\n(0,\"!(A,p,q)\",1)\n(1,\"?(A,p,q)\",2)\n(2,\"C(p,q)\",3)\n",
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
