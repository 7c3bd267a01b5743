//! Where the output goes wrong: a closed pipe or a reader that stops early
//! is a quiet exit (141), a full disk is an error (exit 3).

use crate::cli;

use std::process::{Command, Output};

use cli::{no_panic, stderr};

/// Runs prust with a stdout pipe whose reader is gone before prust writes
/// anything: every write fails with `BrokenPipe`.
fn with_closed_stdout(args: &[&str]) -> Output {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    Command::new(env!("CARGO_BIN_EXE_prust"))
        .args(args)
        .stdout(writer)
        .stderr(std::process::Stdio::piped())
        .output()
        .unwrap()
}

#[test]
fn a_closed_pipe_is_a_quiet_exit() {
    for args in [
        &["list"][..],
        &["lts", "chess", "--format", "aut"],
        &["translate"],
        &["check", "chess", "G true"],
        &["check", "chess", "G true", "--format", "json"],
        &["--help"],
    ] {
        let o = with_closed_stdout(args);
        no_panic(&o);
        assert!(stderr(&o).is_empty(), "{args:?}: {}", stderr(&o));
        // --help too: its text goes through the same writer as results.
        assert_eq!(o.status.code(), Some(141), "{args:?}");
    }
}

#[test]
fn a_reader_that_stops_early_gets_a_quiet_exit() {
    use std::io::Read;
    // 300 KB of output, far more than a pipe holds: prust is still writing
    // when the reader leaves after one line.
    for args in [
        &["lts", "token-full-mesh:60", "--format", "aut"][..],
        &["list"],
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_prust"))
            .args(args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut pipe = child.stdout.take().unwrap();
        let mut line = Vec::new();
        let mut byte = [0u8];
        while pipe.read(&mut byte).unwrap() == 1 && byte[0] != b'\n' {
            line.push(byte[0]);
        }
        drop(pipe);
        let o = child.wait_with_output().unwrap();
        assert!(!line.is_empty(), "{args:?}");
        no_panic(&o);
        assert!(stderr(&o).is_empty(), "{args:?}: {}", stderr(&o));
        // `list` may have been written whole before the reader left.
        assert!(
            matches!(o.status.code(), Some(0 | 141)),
            "{args:?}: {:?}",
            o.status
        );
        if args[0] == "lts" {
            assert_eq!(o.status.code(), Some(141), "{args:?}");
        }
    }
}

/// Output to a full disk (`> /dev/full`) is an error (exit 3) that says
/// so, for results and for `--help`/`--version` alike (which once printed
/// nothing and exited 0).
#[test]
fn output_to_a_full_disk_is_an_error() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        return; // no /dev/full here
    };
    for args in [
        &["--help"][..],
        &["-h"],
        &["--version"],
        &["check", "--help"],
        &[],
        &["list"],
        &["check", "chess", "G true"],
    ] {
        let o = Command::new(env!("CARGO_BIN_EXE_prust"))
            .args(args)
            .stdout(full.try_clone().unwrap())
            .output()
            .unwrap();
        no_panic(&o);
        assert_eq!(o.status.code(), Some(3), "{args:?}: {}", stderr(&o));
        assert!(
            stderr(&o).starts_with("error: cannot write the output"),
            "{args:?}: {}",
            stderr(&o)
        );
    }
}
