//! The command line as a Rust CLI: help, version, usage errors (exit 3 with
//! a hint on stderr), and the environment variables that `prust check`
//! reads and documents.

use crate::cli;

use std::process::{Command, Output};

use cli::{no_panic, prust, stderr, stdout};

#[test]
fn bad_arguments_are_explained() {
    let o = prust(&["translate", "--formt", "dot", "a"]);
    assert_eq!(o.status.code(), Some(3));
    assert!(
        stderr(&o).contains("similar argument exists: '--format'"),
        "{}",
        stderr(&o)
    );
    let o = prust(&["chek"]);
    assert_eq!(o.status.code(), Some(3));
    assert!(
        stderr(&o).contains("similar subcommand exists: 'check'"),
        "{}",
        stderr(&o)
    );
    let o = prust(&["translate", "G", "(a", "U", "b)"]);
    assert_eq!(o.status.code(), Some(3));
    assert!(stderr(&o).contains("quote the formula"), "{}", stderr(&o));
}

#[test]
fn version_is_the_package_version() {
    let o = prust(&["--version"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o).trim(),
        format!("prust {}", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn every_subcommand_has_help_with_the_exit_codes() {
    let table = |o: &Output| {
        assert_eq!(o.status.code(), Some(0), "{}", stderr(o));
        let out = stdout(o);
        for line in [
            "0    success",
            "1    some formula is violated",
            "2    some formula is inconclusive",
            "3    error",
            "141  stdout was closed",
        ] {
            assert!(out.contains(line), "{line:?} missing from\n{out}");
        }
        assert!(stderr(o).is_empty(), "{}", stderr(o));
        out
    };
    for sub in ["translate", "list", "lts", "check", "replay"] {
        let long = table(&prust(&[sub, "--help"]));
        let short = table(&prust(&[sub, "-h"]));
        assert!(long.contains(&format!("Usage: prust {sub}")), "{long}");
        assert!(short.contains(&format!("Usage: prust {sub}")), "{short}");
        assert_eq!(table(&prust(&["help", sub])), long);
    }
    let top = table(&prust(&["--help"]));
    for sub in ["translate", "list", "lts", "check", "replay", "help"] {
        assert!(
            top.contains(&format!("\n  {sub} ")),
            "{sub} missing from\n{top}"
        );
    }
    // `prust` alone shows the same help, and succeeds.
    assert_eq!(table(&prust(&[])), top);
    // What each option means is in the help, --timeout being per formula.
    let check = stdout(&prust(&["check", "--help"]));
    for s in [
        "--timeout <SECS>",
        "budget per formula",
        "--format <FORMAT>",
        "on-the-fly",
        "--max-states <N>",
        "PRUST_MAX_STATES",
    ] {
        assert!(check.contains(s), "{s:?} missing from\n{check}");
    }
}

#[test]
fn usage_errors_exit_3_on_stderr() {
    for args in [
        &["check", "chess", "G true", "--runtim", "strict"][..],
        &["check", "chess", "G true", "--runtime", "lax"],
        &["check", "chess", "G true", "--max-states", "many"],
        &["check", "chess", "G true", "--max-states", "-5"],
        &["check", "chess", "G true", "--format", "xml"],
        &["lts"],
        &["lts", "chess", "--format", "svg"],
        &["list", "extra"],
        &["translate", "--negate=yes", "a"],
        &["frobnicate"],
    ] {
        let o = prust(args);
        assert_eq!(o.status.code(), Some(3), "{args:?}: {}", stderr(&o));
        assert!(stdout(&o).is_empty(), "{args:?}: {}", stdout(&o));
        let err = stderr(&o);
        assert!(err.starts_with("error: "), "{args:?}: {err}");
        assert!(err.contains("try '--help'"), "{args:?}: {err}");
        no_panic(&o);
    }
}

#[test]
fn timeouts_that_are_not_durations_are_rejected() {
    // ("inf" and "1e300" are no timeout, as in PRUST_TIMEOUT: see
    // cli_limits_and_trails.rs)
    for t in ["-1", "NaN", "0", "1e-12", "soon"] {
        for args in [
            vec!["check", "chess", "G true", "--timeout", t],
            vec!["check", "chess", "G true", &format!("--timeout={t}")],
        ] {
            let o = prust(&args);
            assert_eq!(o.status.code(), Some(3), "{args:?}");
            let err = stderr(&o);
            assert!(err.contains("invalid value"), "{args:?}: {err}");
            assert!(err.contains("--timeout <SECS>"), "{args:?}: {err}");
            no_panic(&o);
        }
    }
    let o = prust(&["check", "chess", "G true", "--timeout", "30"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn a_bad_environment_variable_is_an_error_not_a_panic() {
    for (var, value) in [
        ("PRUST_MAX_STATES", "lots"),
        ("PRUST_TIMEOUT", "-3"),
        ("PRUST_SEMANTICS", "lasso"),
        ("PRUST_THREADS", "many"),
    ] {
        let o = Command::new(env!("CARGO_BIN_EXE_prust"))
            .args(["check", "chess", "G true"])
            .env(var, value)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(3), "{var}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(err.starts_with("error: bad environment"), "{err}");
        assert!(err.contains("hint:"), "{err}");
        no_panic(&o);
    }
    // PRUST_TIMEOUT's message does not name it: the hint does.
    let o = Command::new(env!("CARGO_BIN_EXE_prust"))
        .args(["check", "chess", "G true"])
        .env("PRUST_MAX_STATES", "lots")
        .output()
        .unwrap();
    assert!(
        stderr(&o).contains("PRUST_MAX_STATES=\"lots\""),
        "{}",
        stderr(&o)
    );
}

/// `prust check --help` names every `PRUST_*` variable that the table of
/// them (`engine::env::VARIABLES`) says `prust check` reads, and what it
/// takes, so that a new variable cannot go undocumented; hidden ones (for
/// the tests of the progress line) are left out.
#[test]
fn check_help_names_every_variable_the_checker_reads() {
    use engine::env::{Reader, VARIABLES};
    let help = stdout(&prust(&["check", "--help"]));
    let read: Vec<_> = VARIABLES
        .iter()
        .filter(|v| v.is_read_by(Reader::Check))
        .collect();
    assert!(read.len() >= 15, "{read:?}");
    for var in read {
        assert_eq!(
            help.contains(var.name),
            !var.hidden,
            "`prust check --help` and {}",
            var.name
        );
    }
    assert!(
        !help.contains("PRUST_MAX_STEPS"),
        "an explore variable: {help}"
    );
    // The default thread count and when it is one.
    assert!(help.contains("prefers_bytes"), "{help}");
}

/// Arguments that are not UTF-8 (a file name, a formula) are an error
/// (exit 3) with a hint, not a panic.
#[cfg(unix)]
#[test]
fn non_utf8_arguments_are_errors_with_a_hint() {
    use std::os::unix::ffi::OsStrExt;
    for args in [
        vec![
            std::ffi::OsStr::from_bytes(b"lts"),
            std::ffi::OsStr::from_bytes(b"bad\xff.aut"),
        ],
        vec![
            std::ffi::OsStr::from_bytes(b"check"),
            std::ffi::OsStr::from_bytes(b"chess"),
            std::ffi::OsStr::from_bytes(b"G \"\xfe\""),
        ],
    ] {
        let o = Command::new(env!("CARGO_BIN_EXE_prust"))
            .args(&args)
            .output()
            .unwrap();
        no_panic(&o);
        assert_eq!(o.status.code(), Some(3), "{args:?}");
        let err = stderr(&o);
        assert!(err.contains("invalid UTF-8"), "{err}");
        assert!(
            err.contains("hint: prust reads its arguments as UTF-8"),
            "{err}"
        );
    }
}
