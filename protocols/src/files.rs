//! Reading the text files a user names (`.aut`, `.dcj`, trails, `.owl`
//! suites), and what to tell the user when one cannot be read.

use std::fmt;
use std::io::ErrorKind;
use std::path::Path;

/// The text of the file at `path` (without a leading byte order mark,
/// which Windows editors write), which must be a regular file: a folder
/// is refused at once ([`std::io::ErrorKind::IsADirectory`]), and so is a
/// device, a pipe or a socket ([`std::io::ErrorKind::InvalidInput`]),
/// whose reading may never end (`/dev/zero` given as a protocol was once
/// read until memory ran out).
///
/// ```
/// let e = protocols::files::read_text(std::path::Path::new("/dev/null")).unwrap_err();
/// assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput);
/// ```
pub fn read_text(path: &Path) -> std::io::Result<String> {
    let meta = std::fs::metadata(path)?;
    if meta.is_dir() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::IsADirectory,
            "it is a folder",
        ));
    }
    if !meta.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file (a device, a pipe or a socket)",
        ));
    }
    let mut text = std::fs::read_to_string(path)?;
    // A byte order mark (which Windows editors put at the start of UTF-8
    // files) is no part of the text: kept, it made the first line of every
    // file kind an error whose excerpt looked right (the mark is invisible).
    if text.starts_with(BOM) {
        text.drain(..BOM.len_utf8());
    }
    Ok(text)
}

/// The byte order mark, U+FEFF: dropped at the start of a file.
const BOM: char = '\u{feff}';

/// The kinds of file the tool reads, for the hint of [`read_hint`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// An Aldebaran `.aut` LTS (a protocol argument).
    Aut,
    /// A Discourje `.dcj` specification (a protocol argument).
    Dcj,
    /// A trail file (`prust replay`, [`engine::Trail`]).
    Trail,
    /// An `.owl` suite of checks.
    Suite,
}

impl FileKind {
    /// The kind without its article: ".aut file".
    fn noun(self) -> &'static str {
        match self {
            FileKind::Aut => ".aut file",
            FileKind::Dcj => ".dcj file",
            FileKind::Trail => "trail file",
            FileKind::Suite => ".owl suite",
        }
    }
}

impl fmt::Display for FileKind {
    /// The kind with its article, as a hint names it: "an .aut file".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let article = match self {
            FileKind::Aut | FileKind::Suite => "an",
            FileKind::Dcj | FileKind::Trail => "a",
        };
        write!(f, "{article} {}", self.noun())
    }
}

/// How to fix a file of `kind` that could not be read, by the cause in
/// `error`: one hint for one cause, whichever file it is, so that every
/// reader of the CLI (and of the `.owl` suites) says the same thing. A
/// function of the error alone so that each cause can be tested without
/// making it happen (a permission error cannot be made as root).
///
/// ```
/// use std::io::{Error, ErrorKind};
/// use protocols::files::{read_hint, FileKind};
/// let hint = read_hint(&Error::from(ErrorKind::PermissionDenied), FileKind::Trail);
/// assert!(hint.contains("permissions"), "{hint}");
/// ```
pub fn read_hint(error: &std::io::Error, kind: FileKind) -> String {
    match error.kind() {
        ErrorKind::NotFound => {
            let mut hint = "check the path (relative to the current folder)".to_string();
            if matches!(kind, FileKind::Aut | FileKind::Dcj) {
                hint.push_str(
                    "; a protocol name without a path is a bundled protocol (`prust list`)",
                );
            }
            hint
        }
        ErrorKind::PermissionDenied => format!(
            "this user may not read {kind}: check its permissions (and those of its folders) \
             with `ls -l`"
        ),
        ErrorKind::IsADirectory => format!("give {kind} in the folder, not the folder"),
        ErrorKind::InvalidData => {
            format!("{kind} is UTF-8 text; this file is not (a binary file, or another encoding?)")
        }
        ErrorKind::InvalidInput => format!(
            "give a regular {} (save what the device or pipe gives to a file first)",
            kind.noun()
        ),
        _ => format!("check the path and that {kind} there is readable"),
    }
}

/// The error and its hint for a file of `kind` at `path` that could not be
/// read: `cannot read PATH: CAUSE` and [`read_hint`].
///
/// ```
/// use std::io::{Error, ErrorKind};
/// use protocols::files::{read_failure, FileKind};
/// let (message, hint) = read_failure(
///     std::path::Path::new("run.trail"),
///     &Error::from(ErrorKind::PermissionDenied),
///     FileKind::Trail,
/// );
/// assert!(message.starts_with("cannot read run.trail: "), "{message}");
/// assert!(hint.contains("permissions"), "{hint}");
/// ```
pub fn read_failure(path: &Path, error: &std::io::Error, kind: FileKind) -> (String, String) {
    (
        format!("cannot read {}: {error}", path.display()),
        read_hint(error, kind),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Error;

    const KINDS: [FileKind; 4] = [
        FileKind::Aut,
        FileKind::Dcj,
        FileKind::Trail,
        FileKind::Suite,
    ];

    #[test]
    fn permission_denied_says_permissions_for_every_kind() {
        for kind in KINDS {
            let hint = read_hint(&Error::from(ErrorKind::PermissionDenied), kind);
            assert!(hint.contains("may not read"), "{kind}: {hint}");
            assert!(hint.contains("permissions"), "{kind}: {hint}");
            assert!(hint.contains(&kind.to_string()), "{kind}: {hint}");
        }
    }

    #[test]
    fn each_cause_has_its_own_hint() {
        let causes = [
            ErrorKind::NotFound,
            ErrorKind::PermissionDenied,
            ErrorKind::IsADirectory,
            ErrorKind::InvalidData,
            ErrorKind::InvalidInput,
            ErrorKind::Other,
        ];
        for kind in KINDS {
            let hints: Vec<String> = causes
                .iter()
                .map(|&c| read_hint(&Error::from(c), kind))
                .collect();
            for (i, a) in hints.iter().enumerate() {
                for b in &hints[i + 1..] {
                    assert_ne!(a, b, "{kind}");
                }
            }
            assert!(hints[2].contains("folder"), "{}", hints[2]);
            assert!(hints[3].contains("UTF-8"), "{}", hints[3]);
        }
    }

    #[test]
    fn a_byte_order_mark_is_dropped_and_nothing_else() {
        let dir = std::env::temp_dir().join(format!("prust-files-bom-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("bom.aut");
        std::fs::write(&path, "\u{feff}des (0, 0, 1)\r\n").unwrap();
        assert_eq!(read_text(&path).unwrap(), "des (0, 0, 1)\r\n");
        // Only a leading mark is one; one inside the text stays.
        std::fs::write(&path, "a\u{feff}b").unwrap();
        assert_eq!(read_text(&path).unwrap(), "a\u{feff}b");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_real_read_error_maps_to_its_hint() {
        // The errors read_text itself makes go through the same table.
        let dir = std::env::temp_dir();
        let e = read_text(&dir).unwrap_err();
        assert!(read_hint(&e, FileKind::Trail).contains("not the folder"));
        let e = read_text(Path::new("/dev/null")).unwrap_err();
        assert!(read_hint(&e, FileKind::Dcj).contains("a regular .dcj file"));
        let (message, hint) = read_failure(
            Path::new("no/such/file.owl"),
            &read_text(Path::new("no/such/file.owl")).unwrap_err(),
            FileKind::Suite,
        );
        assert!(
            message.starts_with("cannot read no/such/file.owl: "),
            "{message}"
        );
        assert!(hint.starts_with("check the path"), "{hint}");
    }
}
