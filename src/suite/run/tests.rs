//! The suite runner: trials from folders of files, and what each one checks.

use super::*;
use libtest_mimic::Arguments;

/// A fresh folder under the system's temporary directory.
fn folder(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("prust-suite-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for (path, text) in files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The variables `vars` as a suite reads them.
fn env_of(vars: &[(&str, &str)]) -> Result<Environment, engine::Error> {
    Environment::read_from(Reader::Suite, |name| {
        vars.iter().find(|(n, _)| *n == name).map(|(_, v)| v.into())
    })
}

/// The limit variables bound the build of a suite's object too (the
/// table says suites read them), and a limit reached there is
/// inconclusive, like one reached in the search: the protocol may be
/// fine, only too big for the limits. (Suites built with the protocols
/// crate's defaults, and reported such a limit as a failure.)
#[test]
fn the_limit_variables_bound_the_build_and_stop_it_inconclusive() {
    for (var, value, says) in [
        (
            "PRUST_MAX_STATES",
            "3",
            "the global LTS has more than 3 states",
        ),
        (
            "PRUST_TIMEOUT",
            "1e-9",
            "building the global LTS stopped at the time limit",
        ),
        (
            "PRUST_MAX_MEMORY",
            "1K",
            "building the global LTS stopped at the memory limit (1024 bytes",
        ),
    ] {
        for runtime in [Runtime::Strict, Runtime::Liberal] {
            let outcome = check_loaded(
                &Loaded::new("token-full-mesh:4", Path::new(".")),
                runtime,
                Semantics::Stutter,
                r#"G !"DEADLOCK""#,
                None,
                None,
                &env_of(&[(var, value)]),
                None,
            );
            match outcome {
                Outcome::Inconclusive(text) => {
                    assert!(text.contains(says), "{var}={value} {runtime}: {text}")
                }
                other => panic!("{var}={value} {runtime}: {other:?}"),
            }
        }
    }
    // Unset, the build and the check go through.
    let outcome = check_loaded(
        &Loaded::new("token-full-mesh:4", Path::new(".")),
        Runtime::Liberal,
        Semantics::Stutter,
        r#"G !"DEADLOCK""#,
        None,
        None,
        &env_of(&[]),
        None,
    );
    assert!(matches!(outcome, Outcome::Holds(_)), "{outcome:?}");
}

fn names(trials: &[Trial]) -> Vec<String> {
    trials.iter().map(|t| t.name().to_string()).collect()
}

/// Runs the trials on one thread, printing into a log file rather than
/// among this test's own output; (passed, failed).
fn run(trials: Vec<Trial>) -> (u64, u64) {
    static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let log = std::env::temp_dir().join(format!("prust-suite-{}-{n}.log", std::process::id()));
    let args = Arguments {
        quiet: true,
        test_threads: Some(1),
        logfile: Some(log.to_string_lossy().into_owned()),
        ..Arguments::default()
    };
    let c = libtest_mimic::run(&args, trials);
    let _ = std::fs::remove_file(log);
    (c.num_passed, c.num_failed)
}

const CHESS: &str = r#"
protocol chess
runtime strict
test white_first holds
    !"black SEND <Move>" U "white SEND <Move>"
test black_first violated
    !"white SEND <Move>" U "black SEND <Move>"
"#;

#[test]
fn one_trial_per_entry_runtime_and_semantics_named_after_the_file() {
    let dir = folder("names", &[("games/chess.owl", CHESS)]);
    let trials = trials(&dir);
    assert_eq!(
        names(&trials),
        [
            "games::chess::white_first::strict::stutter",
            "games::chess::white_first::strict::omega",
            "games::chess::black_first::strict::stutter",
            "games::chess::black_first::strict::omega",
        ]
    );
    assert_eq!(run(trials), (4, 0));
}

#[test]
fn several_protocols_put_their_names_after_the_entry() {
    let text = "protocol token-star:4 as star\nprotocol token-directed-ring:4 as ring\n\
                runtime liberal\nsemantics omega\n\
                test P3 violated holds@star\n G(\"worker_1_ RECV *\" => X \"worker_1_ SEND * TO worker_0_\")\n";
    let dir = folder("several", &[("topo.owl", text)]);
    let trials = trials(&dir);
    assert_eq!(
        names(&trials),
        [
            "topo::P3::star::liberal::omega",
            "topo::P3::ring::liberal::omega"
        ]
    );
    assert_eq!(run(trials), (2, 0));
}

#[test]
fn a_wrong_expectation_fails() {
    let text = CHESS.replace("black_first violated", "black_first holds");
    let dir = folder("wrong", &[("chess.owl", &text)]);
    assert_eq!(run(trials(&dir)), (2, 2));
}

#[test]
fn a_bad_file_is_one_failing_test_beside_the_good_ones() {
    let dir = folder(
        "bad",
        &[
            ("good.owl", CHESS),
            ("bad.owl", "protocol chess\ntest t hold\n \"True\"\n"),
        ],
    );
    let trials = trials(&dir);
    assert_eq!(names(&trials)[0], "bad::(file)");
    assert_eq!(trials.len(), 5);
    assert_eq!(run(trials), (4, 1));
}

#[test]
fn an_unreadable_suite_fails_with_the_hint_of_its_cause() {
    let dir = folder("unreadable", &[]);
    let binary = dir.join("binary.owl");
    std::fs::write(&binary, b"protocol chess\n\xff\xfe\n").unwrap();
    let msg = read_suite(&binary).unwrap_err();
    assert!(msg.contains("cannot read"), "{msg}");
    assert!(msg.contains("hint: an .owl suite is UTF-8 text"), "{msg}");
    // A folder named like a suite is not read as one (nor walked
    // into by the reader).
    let folder_path = dir.join("folder.owl");
    std::fs::create_dir_all(&folder_path).unwrap();
    let msg = read_suite(&folder_path).unwrap_err();
    assert!(msg.contains("not the folder"), "{msg}");
    let msg = read_suite(Path::new("/dev/null")).unwrap_err();
    assert!(msg.contains("a regular .owl suite"), "{msg}");
    assert_eq!(run(file_trials("binary", &binary)), (0, 1));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_empty_or_missing_folder_fails() {
    let dir = folder("empty", &[]);
    let trials = trials(&dir);
    assert_eq!(names(&trials), ["(suites)"]);
    assert_eq!(run(trials), (0, 1));
    assert_eq!(run(super::trials(&dir.join("nowhere"))), (0, 1));
}

#[test]
fn an_unknown_protocol_fails_every_test_of_the_file() {
    let dir = folder(
        "unknown",
        &[(
            "x.owl",
            "protocol chss\nruntime strict\nsemantics stutter\ntest t holds\n \"True\"\n",
        )],
    );
    assert_eq!(run(trials(&dir)), (0, 1));
    match check_entry(
        "chss",
        Runtime::Strict,
        Semantics::Stutter,
        "\"True\"",
        None,
    ) {
        Outcome::Failure(msg) => assert!(msg.contains("chess"), "{msg}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn error_entries_pass_only_on_a_refused_formula_with_the_message() {
    let text = r#"
protocol chess
runtime strict
semantics stutter
test typo error "unknown role `whte`"
    G "whte SEND <Move>"
test wrong_message error "no such text"
    G "whte SEND <Move>"
test not_an_error error
    G "white SEND <Move>"
"#;
    let dir = folder("errors", &[("e.owl", text)]);
    assert_eq!(run(trials(&dir)), (1, 2));
}

#[test]
fn check_entry_reports_each_outcome() {
    let c = |f: &str, s| check_entry("chess", Runtime::Liberal, s, f, None);
    assert!(matches!(
        c("G !\"DEADLOCK\"", Semantics::Stutter),
        Outcome::Holds(_)
    ));
    match c("G !\"black SEND *\"", Semantics::InfiniteRunsOnly) {
        Outcome::Violated(report) => assert!(report.contains("black SEND <Move>"), "{report}"),
        other => panic!("{other:?}"),
    }
    assert!(matches!(c("G (", Semantics::Stutter), Outcome::Refused(_)));
    let limited = check_entry(
        "token-full-mesh:4",
        Runtime::Strict,
        Semantics::Stutter,
        "G !\"DEADLOCK\"",
        Some(2),
    );
    assert!(matches!(limited, Outcome::Inconclusive(_)), "{limited:?}");
}

/// Every runtime × semantics has its own session: a file that expects
/// different verdicts per semantics passes on every runtime only if no
/// two combinations share one.
#[test]
fn each_runtime_and_semantics_checks_in_its_own_session() {
    let text = "protocol two-buyer\nruntime on-the-fly liberal strict\n\
                test vacuous violated@stutter holds@omega\n G F \"buyer1 SEND *\"\n\
                test terminates holds\n F \"END\"\n";
    let dir = folder("sessions", &[("two-buyer.owl", text)]);
    let trials = trials(&dir);
    assert_eq!(names(&trials)[0], "two-buyer::vacuous::on-the-fly::stutter");
    assert_eq!(run(trials), (12, 0));
}

/// The `fairness` line decides a response that only a starved server
/// refutes (an independent heartbeat loop can run for ever).
#[test]
fn the_fairness_line_applies_to_every_check_of_the_file() {
    let demo = "(s/defrole ::client) (s/defrole ::server) (s/defrole ::a) (s/defrole ::b)\n\
                (s/defsession ::demo []\n\
                (s/par (s/* (s/cat (s/-->> Req ::client ::server) (s/-->> Resp ::server ::client)))\n\
                (s/* (s/-->> Beat ::a ::b))))\n";
    let entry = "runtime strict on-the-fly\n\
                 test response holds\n G (\"client SEND <Req>\" -> F \"server RECV <Req>\")\n";
    let fair = format!("protocol demo.dcj:demo\nfairness weak\n{entry}");
    let unfair = format!("protocol demo.dcj:demo\nfairness none\n{entry}");
    let dir = folder(
        "fairness",
        &[
            ("demo.dcj", demo),
            ("fair.owl", &fair),
            ("unfair.owl", &unfair),
        ],
    );
    assert_eq!(run(trials(&dir)), (4, 4));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn aut_files_are_found_next_to_the_suite() {
    let dir = folder(
        "aut",
        &[
            ("sub/stuck.aut", "des (0, 1, 2)\n(0,\"?(Msg,a,b)\",1)\n"),
            (
                "sub/stuck.owl",
                "protocol stuck.aut\ntest no_deadlock violated@stutter holds@omega\n G !\"DEADLOCK\"\n",
            ),
        ],
    );
    assert_eq!(run(trials(&dir)), (4, 0));
}
