//! Files the CLI cannot read or parse: every reader (`.aut`, `.dcj`,
//! trails) gives the same kind of message and hint for the same cause, and
//! a huge file gives a short error.

use crate::cli;

use cli::{fresh_folder, prust, prust_in, stderr, stdout};

#[test]
fn replaying_a_huge_one_line_trail_gives_a_short_error() {
    // A trail whose line breaks were lost: 200 000 steps on one line
    // (before, the error quoted the whole 5 MB line).
    let dir = fresh_folder("cli-file-errors", "huge-trail");
    let trail = dir.join("run.trail");
    let text = format!(
        "prust-trail 1\n{}\n",
        "white SEND <Move> TO black ".repeat(200_000)
    );
    std::fs::write(&trail, text).unwrap();
    let o = prust(&["replay", "chess", trail.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(3), "{}", stdout(&o));
    let err = stderr(&o);
    assert!(err.len() < 2000, "{} bytes of error", err.len());
    assert!(err.contains("trail line 2, column 28"), "{err}");
    assert!(err.contains('^') && err.contains("hint:"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn every_reader_gives_the_same_hint_for_the_same_cause() {
    let dir = fresh_folder("cli-file-errors", "causes");
    let path = |name: &str| dir.join(name).to_str().unwrap().to_string();
    // Not UTF-8 (a binary file given by mistake).
    for name in ["bin.aut", "bin.dcj", "bin.trail"] {
        std::fs::write(dir.join(name), b"\xff\xfe\x00binary").unwrap();
    }
    // A folder named like the file.
    for name in ["dir.aut", "dir.dcj", "dir.trail"] {
        std::fs::create_dir_all(dir.join(name)).unwrap();
    }
    let runs = |stem: &str| {
        [
            prust(&["check", &path(&format!("{stem}.aut")), "G true"]),
            prust(&["check", &path(&format!("{stem}.dcj")), "G true"]),
            prust(&["replay", "chess", &path(&format!("{stem}.trail"))]),
        ]
    };
    for (o, kind) in runs("bin")
        .iter()
        .zip(["an .aut file", "a .dcj file", "a trail file"])
    {
        let err = stderr(o);
        assert_eq!(o.status.code(), Some(3), "{err}");
        assert!(err.contains("error: cannot read"), "{err}");
        assert!(
            err.contains(&format!("hint: {kind} is UTF-8 text")),
            "{err}"
        );
    }
    for (o, kind) in runs("dir")
        .iter()
        .zip(["an .aut file", "a .dcj file", "a trail file"])
    {
        let err = stderr(o);
        assert_eq!(o.status.code(), Some(3), "{err}");
        assert!(
            err.contains(&format!("hint: give {kind} in the folder, not the folder")),
            "{err}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_byte_order_mark_changes_nothing() {
    // Windows editors start UTF-8 files with a byte order mark; every
    // loader once refused the first line ("expected the header", "this is
    // not a prust trail file") with an excerpt that looked right.
    let dir = fresh_folder("cli-file-errors", "bom");
    let bom = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, format!("\u{feff}{text}")).unwrap();
        path.to_str().unwrap().to_string()
    };
    let aut = bom(
        "ping.aut",
        "des (0, 2, 2)\r\n(0, \"!(Ping,a,b)\", 1)\r\n(1, \"?(Ping,a,b)\", 0)\r\n",
    );
    let o = prust(&["check", &aut, "G F \"b RECV *\""]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let dcj = bom(
        "ping.dcj",
        "(s/defrole ::a)\n(s/defrole ::b)\n(s/defsession ::ping [] (s/-->> Long ::a ::b))\n",
    );
    let o = prust(&["check", &format!("{dcj}:ping"), "F \"END\""]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let trail = bom(
        "run.trail",
        "prust-trail 1\nwhite SEND <Move> TO black\ncycle\nblack RECV <Move> FROM white\n\
         black SEND <Move> TO white\nwhite RECV <Move> FROM black\nwhite SEND <Move> TO black\n",
    );
    let o = prust(&["replay", "chess", &trail]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_output_file_never_overwrites_another_or_the_input() {
    // `--trail x --dot x` once wrote the trail, then the chart over it
    // (exit 1, both "written to x"); `replay T --dot T` replaced the
    // trail being replayed by its chart.
    let dir = fresh_folder("cli-file-errors", "same-file");
    let same = dir.join("run.out");
    let same = same.to_str().unwrap();
    let o = prust(&[
        "check",
        "chess",
        "F \"END\"",
        "--trail",
        same,
        "--dot",
        same,
    ]);
    assert_eq!(o.status.code(), Some(3), "{}{}", stdout(&o), stderr(&o));
    assert!(stderr(&o).contains("the same file"), "{}", stderr(&o));
    assert!(!dir.join("run.out").exists());
    // Written in two ways, the same file still.
    let o = prust_in(
        &dir,
        &[
            "check",
            "chess",
            "F \"END\"",
            "--trail",
            "run.out",
            "--dot",
            "./run.out",
        ],
    );
    assert_eq!(o.status.code(), Some(3), "{}{}", stdout(&o), stderr(&o));
    let o = prust_in(
        &dir,
        &["check", "chess", "F \"END\"", "--trail", "run.trail"],
    );
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    let trail = std::fs::read_to_string(dir.join("run.trail")).unwrap();
    let o = prust_in(
        &dir,
        &["replay", "chess", "run.trail", "--dot", "./run.trail"],
    );
    assert_eq!(o.status.code(), Some(3), "{}{}", stdout(&o), stderr(&o));
    assert!(stderr(&o).contains("overwrite"), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(dir.join("run.trail")).unwrap(),
        trail
    );
    let _ = std::fs::remove_dir_all(&dir);
}
