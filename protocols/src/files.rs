//! Reading the text files a user names (`.aut`, `.dcj`, trails).

use std::path::Path;

/// The text of the file at `path`, which must be a regular file: a folder
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
    std::fs::read_to_string(path)
}
