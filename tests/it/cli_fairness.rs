//! `prust check --fairness`: a liveness property refuted only by a run
//! that starves a role holds under weak fairness, in text and JSON, on
//! the strict runtimes; the reduced search's violation starves the server,
//! so the full search decides, and the report says why.

use crate::cli::{self, no_panic, prust, stdout};

/// A request/response loop beside an independent heartbeat loop: without
/// fairness the heartbeat alone can run for ever while the server, able to
/// receive the request, never does.
const DEMO: &str = "(s/defrole ::client) (s/defrole ::server) (s/defrole ::a) (s/defrole ::b)
(s/defsession ::demo []
  (s/par (s/* (s/cat (s/-->> Req ::client ::server) (s/-->> Resp ::server ::client)))
         (s/* (s/-->> Beat ::a ::b))))
";

const RESPONSE: &str = r#"G ("client SEND <Req>" -> F "server RECV <Req>")"#;

#[test]
fn a_starved_server_refutes_the_response_only_without_fairness() {
    let dir = cli::fresh_folder("cli-fairness", "demo");
    let file = dir.join("demo.dcj");
    std::fs::write(&file, DEMO).unwrap();
    let target = format!("{}:demo", file.display());
    // Not the liberal object: its heartbeat sender runs ahead of the
    // receiver without bound (an infinite state space).
    for runtime in ["strict", "on-the-fly"] {
        let unfair = prust(&["check", &target, RESPONSE, "--runtime", runtime]);
        no_panic(&unfair);
        assert_eq!(
            unfair.status.code(),
            Some(1),
            "{runtime}: {}",
            stdout(&unfair)
        );
        let fair = prust(&[
            "check",
            &target,
            RESPONSE,
            "--runtime",
            runtime,
            "--fairness",
            "weak",
        ]);
        no_panic(&fair);
        let out = stdout(&fair);
        assert_eq!(fair.status.code(), Some(0), "{runtime}: {out}");
        assert!(out.contains("weak fairness"), "{out}");
        if runtime == "on-the-fly" {
            // Its parallel branches are independent: the reduced search
            // runs first, finds only the cycle that starves the server, and
            // the record says why the full search decided.
            let json = prust(&[
                "check",
                &target,
                RESPONSE,
                "--runtime",
                runtime,
                "--fairness",
                "weak",
                "--format",
                "json",
            ]);
            let out = stdout(&json);
            assert!(
                out.contains("not used for the verdict under weak fairness"),
                "{out}"
            );
            assert!(out.contains("starves server"), "{out}");
        }
    }
    let explicit_none = prust(&["check", &target, RESPONSE, "--fairness", "none"]);
    assert_eq!(explicit_none.status.code(), Some(1));
    let json = prust(&[
        "check",
        &target,
        RESPONSE,
        "--fairness",
        "weak",
        "--format",
        "json",
    ]);
    assert!(
        stdout(&json).contains(r#""fairness":"weak""#),
        "{}",
        stdout(&json)
    );
    let json = prust(&["check", &target, RESPONSE, "--format", "json"]);
    assert!(
        stdout(&json).contains(r#""fairness":"none""#),
        "{}",
        stdout(&json)
    );
    let bad = prust(&["check", &target, RESPONSE, "--fairness", "strong"]);
    assert_eq!(bad.status.code(), Some(3), "{}", cli::stderr(&bad));
    assert!(
        cli::stderr(&bad).contains("none, weak"),
        "{}",
        cli::stderr(&bad)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The note under a cycle that starves a role: the server, enabled in
/// every state of the heartbeat cycle, never moves. In text (below the
/// cycle) and JSON; a fair counterexample has none.
#[test]
fn an_unfair_cycle_names_the_starved_server() {
    let dir = cli::fresh_folder("cli-fairness", "starved");
    let file = dir.join("demo.dcj");
    std::fs::write(&file, DEMO).unwrap();
    let target = format!("{}:demo", file.display());
    let unfair = prust(&["check", &target, RESPONSE]);
    no_panic(&unfair);
    let out = stdout(&unfair);
    assert_eq!(unfair.status.code(), Some(1), "{out}");
    let note = "this cycle starves server (enabled at every step of the cycle, never moves); \
                with --fairness weak it is not a counterexample";
    let forever = out.find("forever)").expect("a lasso");
    assert!(out[forever..].contains(note), "{out}");
    let json = prust(&["check", &target, RESPONSE, "--format", "json"]);
    assert!(
        stdout(&json).contains(r#""starved":["server"]"#),
        "{}",
        stdout(&json)
    );
    // Violated by fair runs too: every run keeps sending requests.
    let always = r#"F G !"client SEND <Req>""#;
    for fairness in ["none", "weak"] {
        let fair = prust(&["check", &target, always, "--fairness", fairness]);
        let out = stdout(&fair);
        assert_eq!(fair.status.code(), Some(1), "{fairness}: {out}");
        if fairness == "weak" {
            assert!(!out.contains("starves"), "{out}");
            let json = prust(&[
                "check",
                &target,
                always,
                "--fairness",
                "weak",
                "--format",
                "json",
            ]);
            assert!(
                stdout(&json).contains(r#""starved":[]"#),
                "{}",
                stdout(&json)
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The same through the library, worded for it.
#[test]
fn the_library_names_the_starved_server() {
    let spec = prust::dcj::import_str(DEMO, Some("demo"), &[])
        .unwrap()
        .spec
        .compile()
        .unwrap();
    let strict = prust::Strict::try_new(spec).unwrap();
    let dummies = prust::declared_dummies(&strict);
    let check = |fairness| {
        prust::Checker::new()
            .progress(false)
            .fairness(fairness)
            .check(RESPONSE, strict.clone(), dummies.clone())
            .unwrap()
    };
    let unfair = check(prust::Fairness::None);
    let c = unfair.counterexample().expect("violated without fairness");
    assert_eq!(c.starved, ["server"], "{unfair}");
    assert!(
        unfair.to_string().contains(
            "this cycle starves server (enabled at every step of the cycle, never moves); \
             with Checker::fairness(Fairness::Weak) it is not a counterexample"
        ),
        "{unfair}"
    );
    assert!(check(prust::Fairness::Weak).holds());
}
