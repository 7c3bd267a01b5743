//! Protocol and trail arguments that are no readable file (a folder, a
//! device, a missing or binary file): errors with a hint, at once.

use crate::cli;

use cli::{no_panic, stderr};

/// A folder, a device or a missing file given as a protocol or a trail is
/// an error with a hint, at once: `/dev/zero` was read until memory ran
/// out, a folder said only "Is a directory".
#[cfg(unix)]
#[test]
fn folders_devices_and_missing_files_are_errors_with_hints() {
    let dir = cli::fresh_folder("cli", "not-files");
    std::fs::create_dir_all(dir.join("models.aut")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", dir.join("zero.aut")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", dir.join("zero.dcj")).unwrap();
    std::fs::write(dir.join("binary.aut"), b"des (0, 0, 1)\n\xff\xfe").unwrap();
    for (args, hint) in [
        (&["lts", "models.aut"][..], "not the folder"),
        (&["lts", "zero.aut"], "regular .aut file"),
        (&["lts", "zero.dcj"], "hint:"),
        (&["lts", "missing.aut"], "check the path"),
        (&["lts", "binary.aut"], "UTF-8 text"),
        (&["replay", "chess", "zero.aut"], "trail file"),
        (&["replay", "chess", "models.aut"], "trail file"),
    ] {
        let o = cli::prust_in(&dir, args);
        no_panic(&o);
        assert_eq!(o.status.code(), Some(3), "{args:?}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(err.starts_with("error: cannot read"), "{args:?}: {err}");
        assert!(err.contains(hint), "{args:?}: {err}");
    }
}
