//! Where output goes: results through [`Out`] on stdout, diagnostics through
//! [`diagnostic`] on stderr.
//!
//! `println!` panics when stdout is a pipe whose reader has gone
//! (`prust list | head -1`): Rust ignores SIGPIPE, so the write fails with
//! `BrokenPipe` and the macro turns that into a panic (exit 101). [`Out`]
//! turns it into [`Failure::ClosedPipe`] instead, a quiet exit with status
//! 141, the status a shell shows for a process stopped by SIGPIPE; any other
//! write error is an ordinary error (exit 3).

use std::fmt;
use std::io::{self, Write};

use super::Failure;

/// A result writer. `write!`/`writeln!` on it return
/// `Result<(), Failure>`, so a closed pipe stops the command through `?`.
///
/// ```ignore
/// let mut out = Out::stdout();
/// writeln!(out, "{} formulas", 2)?;
/// ```
pub struct Out<W: Write = io::StdoutLock<'static>> {
    inner: W,
}

impl Out {
    /// The process's stdout, locked for the whole command (results are
    /// written by one thread only).
    pub fn stdout() -> Out {
        Out::new(io::stdout().lock())
    }
}

impl<W: Write> Out<W> {
    /// Results written to `inner`.
    pub fn new(inner: W) -> Out<W> {
        Out { inner }
    }

    /// What `write!` and `writeln!` call.
    pub fn write_fmt(&mut self, args: fmt::Arguments<'_>) -> Result<(), Failure> {
        self.inner.write_fmt(args).map_err(failure)
    }

    /// Writes out what is buffered (stdout buffers up to a newline).
    pub fn flush(&mut self) -> Result<(), Failure> {
        self.inner.flush().map_err(failure)
    }
}

fn failure(e: io::Error) -> Failure {
    if e.kind() == io::ErrorKind::BrokenPipe {
        Failure::ClosedPipe
    } else {
        Failure::error(format!("cannot write the output: {e}"))
    }
}

/// Prints a diagnostic (an error, a warning) on stderr. Unlike `eprintln!`,
/// it does not panic when stderr is closed: there is nowhere left to say it.
pub fn diagnostic(message: &str) {
    let mut err = io::stderr().lock();
    let _ = writeln!(err, "{message}");
}

/// Whether `a` and `b` name the same file (as written, or once their
/// folders are resolved: `run.dot` and `./run.dot`), so that a command
/// can refuse to write one output over another, or over its input.
///
/// ```ignore
/// assert!(same_file(Path::new("run.dot"), Path::new("./run.dot")));
/// ```
pub fn same_file(a: &std::path::Path, b: &std::path::Path) -> bool {
    use std::path::{Path, PathBuf};
    // The file need not exist yet: resolve its folder, keep its name.
    fn resolved(p: &Path) -> Option<PathBuf> {
        if let Ok(c) = p.canonicalize() {
            return Some(c);
        }
        let parent = match p.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        Some(parent.canonicalize().ok()?.join(p.file_name()?))
    }
    a == b || matches!((resolved(a), resolved(b)), (Some(x), Some(y)) if x == y)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer that accepts `room` bytes, then fails with `kind`.
    struct Failing {
        room: usize,
        kind: io::ErrorKind,
        written: Vec<u8>,
    }

    impl Write for Failing {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            if self.room == 0 {
                return Err(io::Error::from(self.kind));
            }
            let n = buf.len().min(self.room);
            self.room -= n;
            self.written.extend_from_slice(&buf[..n]);
            Ok(n)
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn out(room: usize, kind: io::ErrorKind) -> Out<Failing> {
        Out::new(Failing {
            room,
            kind,
            written: Vec::new(),
        })
    }

    #[test]
    fn a_closed_pipe_is_a_quiet_failure() {
        let mut o = out(4, io::ErrorKind::BrokenPipe);
        assert_eq!(writeln!(o, "ab"), Ok(()));
        assert_eq!(writeln!(o, "cdef"), Err(Failure::ClosedPipe));
        assert_eq!(o.inner.written, b"ab\nc");
    }

    #[test]
    fn other_write_errors_are_errors() {
        let mut o = out(0, io::ErrorKind::StorageFull);
        match writeln!(o, "x") {
            Err(Failure::Error(m)) => assert!(m.starts_with("error: cannot write"), "{m}"),
            other => panic!("{other:?}"),
        }
    }
}
