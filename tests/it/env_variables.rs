//! Every `PRUST_*` variable through every front end that reads variables:
//! a bad value is the same error everywhere it is read (and ignored where
//! it is not), and a limit means the same everywhere. Driven by the one
//! table of variables (`engine::env::VARIABLES`) and its readers
//! (`engine::env::Reader::ALL`), so that a new variable or a new reader
//! without a case here fails.
//!
//! The `prust` commands run as processes; the library's readers (an `.owl`
//! suite entry, an exploration) run in a child process of this test binary
//! ([`library_child`]), so no variable set for them reaches another test.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use engine::env::{Reader, Variable, VARIABLES};
use prust::session::BlockingEndpoint;

/// What a run came to, in terms that every reader shares.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Class {
    /// A variable did not parse: the error names it (exit 3 for a command).
    BadEnv(String),
    /// A limit stopped it: inconclusive (exit 2) or an incomplete
    /// exploration.
    Stopped,
    /// It ran to its result (a verdict, findings, a printed LTS, a complete
    /// exploration).
    Done,
    /// Anything else, with what it printed.
    Other(String),
}

/// One variable's case: a value that is not valid, and values whose
/// meaning is the same for every reader (what every reader that reads the
/// variable must come to; readers that do not read it must be `Done`).
struct Case {
    name: &'static str,
    bad: Option<&'static str>,
    good: Vec<(&'static str, Class)>,
}

fn case(name: &'static str, bad: &'static str) -> Case {
    Case {
        name,
        bad: Some(bad),
        good: Vec::new(),
    }
}

/// The cases, one a variable of the table.
fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "PRUST_MAX_STATES",
            bad: Some("lots"),
            good: vec![("1", Class::Stopped)],
        },
        Case {
            name: "PRUST_MAX_DEPTH",
            bad: Some("-3"),
            good: vec![("0", Class::Stopped)],
        },
        Case {
            name: "PRUST_TIMEOUT",
            bad: Some("soon"),
            // Zero is no budget at all: an error wherever a timeout is
            // read (exploring accepted it once, and stopped at once).
            good: vec![
                ("0", Class::BadEnv(String::new())),
                ("1e-9", Class::Stopped),
                ("inf", Class::Done),
            ],
        },
        Case {
            name: "PRUST_MAX_MEMORY",
            bad: Some("2Q"),
            good: vec![("1", Class::Stopped)],
        },
        case("PRUST_SEMANTICS", "lazy"),
        case("PRUST_FAIRNESS", "strong"),
        case("PRUST_PROGRESS", "maybe"),
        case("PRUST_PROGRESS_AFTER_MS", "soon"),
        case("PRUST_DETERMINISM", "maybe"),
        case("PRUST_POR", "maybe"),
        case("PRUST_HASH_COMPACTION", "maybe"),
        case("PRUST_BITSTATE", "lots"),
        case("PRUST_COLLAPSE", "maybe"),
        case("PRUST_SHORTEST", "maybe"),
        case("PRUST_THREADS", "2000"),
        case("PRUST_PARALLEL_LEVEL", "many"),
        case("PRUST_SHARE", "3/2"),
        case("PRUST_SHARE_LEVEL", "deep"),
        Case {
            name: "PRUST_TRAIL_DIR",
            // Any folder name is a folder name.
            bad: None,
            good: vec![],
        },
        Case {
            name: "PRUST_HTML_DIR",
            // Any folder name is a folder name.
            bad: None,
            good: vec![],
        },
        case("PRUST_SUITE_REPORTS", "maybe"),
        case("PRUST_PREEMPTION_BOUND", "two"),
        Case {
            name: "PRUST_MAX_STEPS",
            bad: Some("x"),
            good: vec![("1", Class::Stopped)],
        },
        Case {
            name: "PRUST_MAX_EXECUTIONS",
            bad: Some("x"),
            good: vec![("1", Class::Stopped)],
        },
        // A role timeout of zero is refused as a timeout of zero is.
        case("PRUST_ROLE_TIMEOUT", "0"),
        case("PRUST_SCHEDULE", "white black#x"),
        case("PRUST_REDUCTION", "fast"),
        case("PRUST_SEED", "lucky"),
    ]
}

/// The Discourje file that `prust import` reads.
fn dcj() -> String {
    format!(
        "{}/dcj/tests/dcj/token.dcj:token-star:2,0",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// `cmd` with every variable of the table unset (a developer's shell must
/// not change the outcome) and then `env` set.
fn clean(mut cmd: Command, env: &[(&str, &str)]) -> Output {
    for v in VARIABLES {
        cmd.env_remove(v.name);
    }
    cmd.env_remove(CHILD);
    cmd.envs(env.iter().copied()).output().expect("it runs")
}

/// Runs `reader` with `env` set and classifies what it came to.
fn run(reader: Reader, env: &[(&str, &str)]) -> Class {
    let prust = |args: &[&str]| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_prust"));
        c.args(args);
        classify_command(&clean(c, env))
    };
    match reader {
        Reader::Check => prust(&["check", "chess", r#"G !"DEADLOCK""#]),
        Reader::Lint => prust(&["lint", "chess"]),
        Reader::Import => prust(&["import", &dcj(), "--format", "stats"]),
        Reader::Lts => prust(&["lts", "chess", "--format", "stats"]),
        Reader::Translate => prust(&["translate", "--format", "stats"]),
        Reader::Suite | Reader::Explore => {
            let mut c = Command::new(std::env::current_exe().unwrap());
            c.args([
                "env_variables::library_child",
                "--exact",
                "--nocapture",
                "--test-threads=1",
            ]);
            let mut env = env.to_vec();
            let which = if reader == Reader::Suite {
                "suite"
            } else {
                "explore"
            };
            env.push((CHILD, which));
            let o = clean(c, &env);
            let out = String::from_utf8_lossy(&o.stdout);
            match out
                .lines()
                .find_map(|l| l.find("CLASS ").map(|at| &l[at + "CLASS ".len()..]))
            {
                Some("stopped") => Class::Stopped,
                Some("done") => Class::Done,
                Some(l) if l.starts_with("bad ") => Class::BadEnv(l[4..].to_string()),
                _ => Class::Other(format!("{out}{}", String::from_utf8_lossy(&o.stderr))),
            }
        }
    }
}

/// The variable an error names: `environment variable NAME="…" is not
/// valid`.
fn named_variable(text: &str) -> Option<String> {
    let at = text.find("environment variable ")? + "environment variable ".len();
    let rest = &text[at..];
    Some(rest[..rest.find('=')?].to_string())
}

fn classify_command(o: &Output) -> Class {
    let err = String::from_utf8_lossy(&o.stderr);
    match o.status.code() {
        Some(3) if err.starts_with("error: bad environment") => match named_variable(&err) {
            Some(v) => Class::BadEnv(v),
            None => Class::Other(err.into_owned()),
        },
        Some(2) => Class::Stopped,
        // A verdict either way, findings or none: it ran to its result.
        Some(0 | 1) => Class::Done,
        _ => Class::Other(format!("{:?}: {err}", o.status)),
    }
}

/// The variable telling [`library_child`] which reader to run.
const CHILD: &str = "PRUST_ENV_TEST_CHILD";

/// Runs a library reader in a child process of this binary (nothing when
/// run as a test of its own) and prints `CLASS …`.
#[test]
fn library_child() {
    let Some(which) = std::env::var_os(CHILD) else {
        return;
    };
    let class = if which == "suite" {
        use prust::suite::{check_entry, Outcome, Runtime, Semantics};
        match check_entry(
            "chess",
            Runtime::Strict,
            Semantics::Stutter,
            r#"G !"DEADLOCK""#,
            None,
        ) {
            Outcome::Failure(e) => match named_variable(&e) {
                Some(v) => format!("bad {v}"),
                None => format!("other {e}"),
            },
            Outcome::Inconclusive(_) => "stopped".into(),
            Outcome::Holds(_) | Outcome::Violated(_) => "done".into(),
            other => format!("other {other:?}"),
        }
    } else {
        use prust::explore::{ExploreError, Explorer};
        match Explorer::from_env() {
            Err(ExploreError::Env { variable, .. }) => format!("bad {variable}"),
            Err(e) => format!("other {e}"),
            Ok(explorer) => {
                let ex = explorer.explore(prust::protocols::chess::strict(), |r| {
                    r.spawn("white", |mut ep| {
                        // Two openings: more than one execution.
                        let _ = prust::explore::choose(2);
                        ep.send("black", Move).unwrap();
                        ep.recv_from("black").unwrap();
                    });
                    r.spawn("black", |mut ep| {
                        ep.recv_from("white").unwrap();
                        ep.send("white", Move).unwrap();
                    });
                });
                // An execution cut short by a bound is listed as aborted:
                // the exploration is incomplete, which is what counts.
                if !ex.is_complete() {
                    "stopped".into()
                } else if ex.failures().is_empty() {
                    "done".into()
                } else {
                    format!("other {ex}")
                }
            }
        }
    };
    println!("CLASS {class}");
}

#[derive(Clone, Debug)]
struct Move;

#[test]
fn every_variable_means_the_same_to_every_reader() {
    let cases = cases();
    // A variable of the table without a case, or a case of no variable.
    for v in VARIABLES {
        assert!(
            cases.iter().any(|c| c.name == v.name),
            "{}: no case in env_variables.rs",
            v.name
        );
    }
    let var = |name: &str| -> &Variable {
        engine::env::variable(name).unwrap_or_else(|| panic!("{name} is not in the table"))
    };
    // Every run, then every check, so that the runs can go in parallel.
    let mut runs: Vec<(String, Reader, &str, Class)> = Vec::new();
    for case in &cases {
        let v = var(case.name);
        let mut values: Vec<(&str, Class)> = Vec::new();
        if let Some(bad) = case.bad {
            values.push((bad, Class::BadEnv(case.name.into())));
        }
        for (value, class) in &case.good {
            let class = match class {
                Class::BadEnv(_) => Class::BadEnv(case.name.into()),
                c => c.clone(),
            };
            values.push((value, class));
        }
        for (value, class) in values {
            for reader in Reader::ALL {
                let expected = if v.is_read_by(reader) {
                    class.clone()
                } else {
                    Class::Done
                };
                runs.push((case.name.to_string(), reader, value, expected));
            }
        }
    }
    let results: Vec<Class> = std::thread::scope(|s| {
        let handles: Vec<_> = runs
            .chunks(runs.len().div_ceil(4))
            .map(|chunk| {
                s.spawn(move || {
                    chunk
                        .iter()
                        .map(|(name, reader, value, _)| run(*reader, &[(name, value)]))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    let wrong: Vec<String> = runs
        .iter()
        .zip(&results)
        .filter(|((_, _, _, expected), got)| expected != *got)
        .map(|((name, reader, value, expected), got)| {
            format!(
                "{name}={value:?} in {}: expected {expected:?}, got {got:?}",
                reader.name()
            )
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The files whose text documents prust for its users: the README and
/// every library source file (rustdoc, messages, help).
fn documents() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("README.md")];
    let mut dirs: Vec<PathBuf> = [
        "src",
        "engine/src",
        "protocols/src",
        "owl-lite/src",
        "dcj/src",
        "explore/src",
    ]
    .iter()
    .map(|d| root.join(d))
    .collect();
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "rs" || x == "md") {
                files.push(p);
            }
        }
    }
    files
}

/// Every `PRUST_NAME` that the docs, the README, the messages and the help
/// mention is a variable of the table, so that no text describes a
/// variable that nothing reads (or misspells one); the table's own rows
/// are checked against the table by the engine's unit tests.
#[test]
fn every_variable_the_docs_name_is_in_the_table() {
    let mut unknown = Vec::new();
    let mut seen = 0;
    for file in documents() {
        let text = std::fs::read_to_string(&file).unwrap();
        for (at, _) in text.match_indices("PRUST_") {
            let name: String = text[at..]
                .chars()
                .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == '_')
                .collect();
            // `PRUST_*`: the variables as a whole.
            if name.len() == "PRUST_".len() {
                continue;
            }
            seen += 1;
            if engine::env::variable(&name).is_none() {
                unknown.push(format!("{}: {name}", file.display()));
            }
        }
    }
    assert!(seen > 50, "only {seen} mentions found: wrong folders?");
    assert!(
        unknown.is_empty(),
        "not in the table:\n{}",
        unknown.join("\n")
    );
}
