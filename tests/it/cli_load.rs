//! The command line and the `.owl` suites read a protocol argument by one
//! rule (`prust::load`): the same arguments name the same protocols, and
//! the same arguments are refused, whichever of the two is given them.

use std::path::{Path, PathBuf};

use libtest_mimic::Arguments;

use crate::cli;

use cli::{fresh_folder, prust_in};

/// A fresh folder with an LTS that never deadlocks, as `loop.aut`,
/// `models/loop.aut` and `models/loop` (a path without the extension), and
/// a Discourje ring that never deadlocks either, as `ring.dcj` and
/// `models/ring.dcj`.
fn models(name: &str) -> PathBuf {
    let dir = fresh_folder("cli-load", name);
    std::fs::create_dir_all(dir.join("models")).unwrap();
    let ping_pong = "des (0, 2, 2)\n(0,\"!(Ping,a,b)\",1)\n(1,\"?(Ping,a,b)\",0)\n";
    for file in ["loop.aut", "models/loop.aut", "models/loop"] {
        std::fs::write(dir.join(file), ping_pong).unwrap();
    }
    for file in ["ring.dcj", "models/ring.dcj"] {
        std::fs::write(dir.join(file), RING_DCJ).unwrap();
    }
    dir
}

/// Runs the suites under `dir` whose names start with `prefix`:
/// (passed, failed).
fn run_suites(dir: &Path, prefix: &str) -> (u64, u64) {
    let log = dir.join(format!("{prefix}.log"));
    let args = Arguments {
        quiet: true,
        test_threads: Some(1),
        filter: Some(format!("{prefix}::")),
        logfile: Some(log.to_string_lossy().into_owned()),
        ..Arguments::default()
    };
    let c = libtest_mimic::run(&args, prust::suite::trials(dir));
    (c.num_passed, c.num_failed)
}

/// A token passed round a ring of `k` workers, forever.
const RING_DCJ: &str = "(s/defrole ::worker)
(s/defsession ::ring [k i]
  (s/cat (s/-->> Token (::worker i) (::worker (mod (inc i) k)))
         (::ring k (mod (inc i) k))))
";

const NO_DEADLOCK: &str = r#"G !"DEADLOCK""#;

#[test]
fn the_command_line_and_a_suite_accept_the_same_protocol_arguments() {
    let dir = models("forms");
    // (argument, whether it names a protocol that exists)
    let forms = [
        ("chess", true),
        ("token-star:3", true),
        ("loop.aut", true),
        ("models/loop.aut", true),
        ("models/loop", true),
        ("chss", false),
        ("token-star:x", false),
        ("models/missing.aut", false),
        ("models", false),
        ("ring.dcj:ring:3,0", true),
        ("models/ring.dcj:ring:4,1", true),
        ("ring.dcj", false),
        ("ring.dcj:ring:3", false),
        ("ring.dcj:ring:x", false),
        ("ring.dcj:rng:3,0", false),
        ("missing.dcj", false),
    ];
    for (k, (form, exists)) in forms.iter().enumerate() {
        let suite = format!(
            "protocol {form}\nruntime strict\nsemantics stutter\ntest t holds\n {NO_DEADLOCK}\n"
        );
        std::fs::write(dir.join(format!("f{k}.owl")), suite).unwrap();
        let o = prust_in(&dir, &["check", form, NO_DEADLOCK]);
        let cli_holds = o.status.code() == Some(0);
        let (passed, failed) = run_suites(&dir, &format!("f{k}"));
        assert_eq!(passed + failed, 1, "{form}: one trial");
        let suite_holds = passed == 1;
        assert_eq!(
            cli_holds,
            suite_holds,
            "{form}: the command line and the suite disagree\n{}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert_eq!(cli_holds, *exists, "{form}");
        if !exists {
            assert_eq!(o.status.code(), Some(3), "{form}: an error, not a verdict");
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn on_the_fly_refuses_every_file_form_in_both() {
    let dir = models("on-the-fly");
    for form in ["loop.aut", "models/loop.aut", "models/loop"] {
        let o = prust_in(
            &dir,
            &["check", form, NO_DEADLOCK, "--runtime", "on-the-fly"],
        );
        assert_eq!(o.status.code(), Some(3), "{form}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("is an LTS file"), "{form}: {err}");
        assert!(err.contains("hint: use --runtime strict"), "{form}: {err}");

        let text = format!("protocol {form}\nruntime strict on-the-fly\ntest t holds\n \"True\"\n");
        let errors = prust::suite::parse(&text).expect_err(form);
        assert_eq!(errors.len(), 1, "{form}: {errors:?}");
        let e = &errors[0];
        assert_eq!((e.pos.line, e.pos.col), (2, 16), "{form}: at `on-the-fly`");
        assert!(e.message.contains("is an LTS file"), "{}", e.message);
        assert!(e
            .hint
            .as_deref()
            .unwrap_or("")
            .contains("runtime strict liberal"));
    }
    // A bundled protocol built on the fly gives the compiled object's
    // verdicts, on the command line and in a suite.
    let o = prust_in(
        &dir,
        &["check", "chess", NO_DEADLOCK, "--runtime", "on-the-fly"],
    );
    assert_eq!(o.status.code(), Some(0));
    let suite = format!(
        "protocol chess\nruntime on-the-fly strict\ntest t holds\n {NO_DEADLOCK}\n\
         test ends violated\n F \"END\"\n"
    );
    std::fs::write(dir.join("otf.owl"), suite).unwrap();
    let names: Vec<String> = prust::suite::trials(&dir)
        .iter()
        .map(|t| t.name().to_string())
        .collect();
    assert!(
        names.contains(&"otf::t::on-the-fly::omega".to_string()),
        "{names:?}"
    );
    assert_eq!(run_suites(&dir, "otf"), (8, 0));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_dcj_session_runs_on_every_runtime_in_both() {
    let dir = models("dcj");
    let form = "models/ring.dcj:ring:3,0";
    for runtime in ["strict", "liberal", "on-the-fly"] {
        let o = prust_in(
            &dir,
            &[
                "check",
                form,
                NO_DEADLOCK,
                r#"G !"END""#,
                "--runtime",
                runtime,
            ],
        );
        assert_eq!(
            o.status.code(),
            Some(0),
            "{runtime}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        // The imported role names are Prut4j's flattened ones.
        let o = prust_in(
            &dir,
            &[
                "check",
                form,
                r#"G !"worker_2_ SEND <Token>""#,
                "--runtime",
                runtime,
            ],
        );
        assert_eq!(o.status.code(), Some(1), "{runtime}");
    }
    let suite = format!(
        "protocol {form}\nruntime strict liberal on-the-fly\ntest t holds\n {NO_DEADLOCK}\n\
         test turns holds\n G (\"worker_0_ SEND *\" -> F \"worker_1_ SEND *\")\n"
    );
    std::fs::write(dir.join("ring.owl"), suite).unwrap();
    assert_eq!(run_suites(&dir, "ring"), (12, 0));
    std::fs::remove_dir_all(&dir).ok();
}

/// A bad `.aut` file is an error (exit 3) that names the file, line and
/// column, shows the line with a caret under the column, and has a hint;
/// a CRLF file reads as its LF twin.
#[test]
fn a_bad_aut_file_names_its_line_and_column() {
    let dir = fresh_folder("cli-load", "bad-aut");
    std::fs::write(
        dir.join("bad.aut"),
        "des (0, 1, 2)\r\n(0,\"!(A,p,q)\",7)\r\n",
    )
    .unwrap();
    let o = prust_in(&dir, &["lts", "bad.aut"]);
    assert_eq!(o.status.code(), Some(3));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("bad.aut:2:15: state 7 is not below"), "{err}");
    assert!(
        err.contains("\n  | (0,\"!(A,p,q)\",7)\n  |               ^\n"),
        "{err}"
    );
    assert!(err.contains("hint: states are numbered from 0"), "{err}");
    std::fs::write(
        dir.join("ok.aut"),
        "des (0, 2, 3)\r\n(0,\"!(A,p,q)\",1)\r\n(1,\"?(A,p,q)\",2)\r\n",
    )
    .unwrap();
    let o = prust_in(&dir, &["check", "ok.aut", "F \"END\""]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}
