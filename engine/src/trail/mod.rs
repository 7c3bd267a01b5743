//! Trail files: counterexamples you can keep, edit and replay.
//!
//! A trail is a counterexample written as a small line-based text file, so
//! that a failing check can be saved (see [`Checker::trail_dir`]), looked
//! at, attached to a bug report, edited by hand to try a variation, and
//! replayed later on a fresh object — after the object's code changed, the
//! replay says at which step and why the run no longer happens.
//!
//! # Format, version 1
//!
//! ```text
//! prust-trail 1
//! # Lines starting with '#' are comments; blank lines are ignored.
//! protocol chess
//! formula G ("white SEND *" -> F "white RECV *")
//! white SEND <Move> TO black
//! black RECV <Move> FROM white
//! cycle
//! black SEND <Move> TO white
//! white RECV <Move> FROM black
//! ```
//!
//! - The first line (after comments) is `prust-trail 1`: the format and its
//!   version. A later, incompatible format gets a new number.
//! - Then optional headers: `protocol NAME` (informative: which object the
//!   trail belongs to, e.g. the name of a bundled protocol) and
//!   `formula TEXT` (the property the run violates; a formula of several
//!   lines is written as several `formula` lines, joined by line breaks).
//! - Then one step per line, exactly as a counterexample prints them:
//!   `ROLE SEND <Type> TO PEER`, `ROLE RECV <Type> FROM PEER` or
//!   `ROLE CLOSE TO PEER` (keywords are case-insensitive, names are not).
//! - A run that goes on forever (a lasso) has a `cycle` line before the
//!   steps that repeat forever; it has no `end` line.
//! - A finite run ends with one of `end deadlock` (no action is enabled and
//!   the object is not terminated; `end deadlock waiting ROLE...` also
//!   states the roles still waiting, which the replay then checks),
//!   `end terminated` (no action is enabled and the object says
//!   [`Protocol::is_terminated`](crate::Protocol::is_terminated)) or `end violated` (the steps already
//!   violate the property, whatever happens next: nothing to check at the
//!   end).
//! - A name (role, peer, type) that is empty, contains white space, or
//!   starts with `"` or `#` is written as a quoted string: `"a b"`, with
//!   `\"`, `\\`, `\n`, `\r` and `\t` escapes. A quoted type is written
//!   without the angle brackets.
//!
//! [`Checker::trail_dir`]: crate::Checker::trail_dir

use std::fmt::{self, Write as _};
use std::path::Path;

use crate::protocol::ActionKind;
use crate::report::{Counterexample, CounterexampleStep, Ending, Report};

mod parse;
mod replay;

/// The first word of every trail file.
const MAGIC: &str = "prust-trail";
/// The format version this code writes and reads.
const VERSION: u32 = 1;

/// A counterexample as a trail file holds it: by names, independent of the
/// object it was found on (see the [module docs](self) for the format).
///
/// ```
/// use engine::Trail;
/// let trail = Trail::parse(
///     "prust-trail 1\n\
///      white SEND <Move> TO black\n\
///      black RECV <Move> FROM white\n\
///      end deadlock\n",
/// )
/// .unwrap();
/// assert_eq!(trail.prefix.len(), 2);
/// assert_eq!(trail.prefix[1].to_string(), "black RECV <Move> FROM white");
/// assert_eq!(Trail::parse(&trail.to_string()).unwrap(), trail);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Trail {
    /// The `protocol` header: which object the trail belongs to.
    pub protocol: Option<String>,
    /// The `formula` header: the property the run violates.
    pub formula: Option<String>,
    /// The steps from the initial object to the cycle (or to the end).
    pub prefix: Vec<TrailStep>,
    /// The steps repeated forever; empty iff `ending` is set.
    pub cycle: Vec<TrailStep>,
    /// For a finite run, how it ends. An empty waiting list of a deadlock
    /// means "not stated".
    pub ending: Option<Ending>,
}

/// One step of a [`Trail`]: an action of a role, by names.
#[derive(Debug, Clone)]
pub struct TrailStep {
    /// The acting role.
    pub role: String,
    /// What it does.
    pub kind: ActionKind,
    /// Short name of the type sent or received (`None` for closes).
    pub type_name: Option<String>,
    /// The receiver of a send or close, the sender of a receive.
    pub peer: String,
    /// The 1-based line of the step in the file it was parsed from (0 if
    /// it was not parsed). Ignored by `==`: two trails are equal when they
    /// describe the same run, whatever comments or headers surround it.
    pub line: usize,
}

impl PartialEq for TrailStep {
    fn eq(&self, other: &Self) -> bool {
        (&self.role, self.kind, &self.type_name, &self.peer)
            == (&other.role, other.kind, &other.type_name, &other.peer)
    }
}
impl Eq for TrailStep {}

impl fmt::Display for TrailStep {
    /// The step's line in a trail file, which is also how a counterexample
    /// prints it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", name(&self.role), self.kind)?;
        if let Some(t) = &self.type_name {
            if needs_quotes(t) {
                write!(f, " {}", quote(t))?;
            } else {
                write!(f, " <{t}>")?;
            }
        }
        let dir = if self.kind == ActionKind::Recv {
            "FROM"
        } else {
            "TO"
        };
        write!(f, " {dir} {}", name(&self.peer))
    }
}

/// A trail file that does not parse: where, what, and how to fix it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrailError {
    /// 1-based line.
    pub line: usize,
    /// 1-based column (in characters).
    pub column: usize,
    /// What is wrong.
    pub message: String,
    /// How to write it instead.
    pub hint: String,
    /// The text of the line (without its line break).
    pub text: String,
}

impl fmt::Display for TrailError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "trail line {}, column {}: {}",
            self.line, self.column, self.message
        )?;
        // Only a window of the line is shown, control characters as `�`:
        // a trail of one 10 MB line (a binary file, a file that lost its
        // line breaks) must give a short error, with the caret still under
        // its character.
        let (shown, caret) = owl_lite::ltl_parse::excerpt(&self.text, self.column);
        writeln!(f, "   | {shown}")?;
        writeln!(f, "   | {}^", " ".repeat(caret))?;
        write!(f, "  hint: {}", self.hint)
    }
}

impl std::error::Error for TrailError {}

/// A name as a trail writes it: bare when that reads back unchanged.
fn name(s: &str) -> String {
    if needs_quotes(s) {
        quote(s)
    } else {
        s.to_string()
    }
}

fn needs_quotes(s: &str) -> bool {
    s.is_empty() || s.starts_with(['"', '#']) || s.chars().any(char::is_whitespace)
}

fn quote(s: &str) -> String {
    let mut q = String::from('"');
    for c in s.chars() {
        match c {
            '"' => q.push_str("\\\""),
            '\\' => q.push_str("\\\\"),
            '\n' => q.push_str("\\n"),
            '\r' => q.push_str("\\r"),
            '\t' => q.push_str("\\t"),
            c => q.push(c),
        }
    }
    q.push('"');
    q
}

impl From<&CounterexampleStep> for TrailStep {
    fn from(s: &CounterexampleStep) -> TrailStep {
        TrailStep {
            role: s.role_name.clone(),
            kind: s.kind,
            type_name: s.type_name.clone(),
            peer: s.peer_name.clone(),
            line: 0,
        }
    }
}

impl From<&Counterexample> for Trail {
    /// The counterexample's steps and ending, without headers (set
    /// [`Trail::protocol`] and [`Trail::formula`] before writing it).
    fn from(c: &Counterexample) -> Trail {
        Trail {
            protocol: None,
            formula: None,
            prefix: c.prefix.iter().map(TrailStep::from).collect(),
            cycle: c.cycle.iter().map(TrailStep::from).collect(),
            ending: c.ending.clone(),
        }
    }
}

impl fmt::Display for Trail {
    /// The trail file's text (see the [module docs](self)).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{MAGIC} {VERSION}")?;
        if let Some(p) = &self.protocol {
            // A header is one line: a name with line breaks is flattened
            // (it is informative only).
            writeln!(f, "protocol {}", p.replace(['\n', '\r'], " ").trim())?;
        }
        if let Some(formula) = &self.formula {
            for line in formula.lines() {
                writeln!(f, "formula {line}")?;
            }
        }
        for s in &self.prefix {
            writeln!(f, "{s}")?;
        }
        if !self.cycle.is_empty() {
            writeln!(f, "cycle")?;
            for s in &self.cycle {
                writeln!(f, "{s}")?;
            }
        }
        match &self.ending {
            None => Ok(()),
            Some(Ending::Terminated) => writeln!(f, "end terminated"),
            Some(Ending::AnyContinuation) => writeln!(f, "end violated"),
            Some(Ending::Deadlock { waiting }) => {
                write!(f, "end deadlock")?;
                if !waiting.is_empty() {
                    write!(f, " waiting")?;
                    for w in waiting {
                        write!(f, " {}", name(w))?;
                    }
                }
                writeln!(f)
            }
        }
    }
}

impl Trail {
    /// Reads and parses a trail file.
    ///
    /// # Errors
    /// The I/O error ([`std::io::ErrorKind::InvalidInput`] for a path that
    /// is not a regular file: a device, a pipe), or the parse error (as
    /// [`std::io::ErrorKind::InvalidData`], its text naming the file, line
    /// and column).
    pub fn read(path: impl AsRef<Path>) -> std::io::Result<Trail> {
        let path = path.as_ref();
        // A device or a pipe may never end (`/dev/zero` would be read
        // until memory ran out): only a regular file is read.
        if !std::fs::metadata(path)?.is_file() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("{}: not a regular file", path.display()),
            ));
        }
        let text = std::fs::read_to_string(path)?;
        // A byte order mark (from a Windows editor) is no part of the text.
        let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
        Trail::parse(text).map_err(|e| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("{}: {e}", path.display()),
            )
        })
    }

    /// Writes the trail's text to `path` (replacing the file).
    ///
    /// # Errors
    /// The I/O error.
    pub fn write(&self, path: impl AsRef<Path>) -> std::io::Result<()> {
        std::fs::write(path, self.to_string())
    }

    /// All steps, prefix then one turn of the cycle.
    pub fn steps(&self) -> impl Iterator<Item = &TrailStep> {
        self.prefix.iter().chain(&self.cycle)
    }
}

impl Counterexample {
    /// The counterexample as a trail file's text, without headers (see
    /// [`Trail`]; [`Report::to_trail`] adds the formula).
    ///
    /// ```
    /// # use engine::{check_violated, dummies, Message, Protocol, Refused, RoleId, Trail};
    /// # #[derive(Clone, Debug)] struct Ping;
    /// # #[derive(Clone, Debug, PartialEq, Eq, Hash)] struct Once { sent: bool }
    /// # impl Protocol for Once {
    /// #     fn roles(&self) -> Vec<String> { vec!["a".into(), "b".into()] }
    /// #     fn try_send(&mut self, r: RoleId, to: RoleId, m: Message) -> Result<(), Refused<Message>> {
    /// #         if !self.sent && r == 0 && to == 1 { self.sent = true; Ok(()) } else { Err(Refused(m)) }
    /// #     }
    /// #     fn try_recv(&mut self, _: RoleId, _: Option<RoleId>) -> Result<(RoleId, Message), Refused> {
    /// #         Err(Refused(()))
    /// #     }
    /// # }
    /// let run = check_violated(r#"G !"DEADLOCK""#, Once { sent: false }, dummies![Ping]);
    /// assert_eq!(
    ///     run.to_trail(),
    ///     "prust-trail 1\na SEND <Ping> TO b\nend deadlock waiting a b\n"
    /// );
    /// let trail = Trail::parse(&run.to_trail()).unwrap();
    /// assert_eq!(
    ///     trail.replay(Once { sent: false }, dummies![Ping]).unwrap(),
    ///     run.replay(Once { sent: false })
    /// );
    /// ```
    pub fn to_trail(&self) -> String {
        Trail::from(self).to_string()
    }

    /// Writes [`to_trail`](Self::to_trail) to `path`.
    ///
    /// # Errors
    /// The I/O error.
    pub fn write_trail(&self, path: impl AsRef<Path>) -> std::io::Result<()> {
        Trail::from(self).write(path)
    }
}

impl Report {
    /// The counterexample, if the property is violated, as a trail file's
    /// text with the `formula` header.
    pub fn to_trail(&self) -> Option<String> {
        self.trail().map(|t| t.to_string())
    }

    /// The counterexample, if the property is violated, as a [`Trail`]
    /// with the `formula` header (set [`Trail::protocol`] to name the
    /// object).
    pub fn trail(&self) -> Option<Trail> {
        self.counterexample().map(|c| Trail {
            formula: Some(self.formula.clone()),
            ..Trail::from(c)
        })
    }
}

/// Where [`check`](crate::check)'s panic path saves a counterexample:
/// `DIR/NAME-HASH-PID-N.trail`, where NAME is the current thread's name
/// (the test's name under `cargo test`) with characters other than ASCII
/// letters, digits, `-` and `_` replaced by `_`, HASH the 64-bit FNV-1a
/// hash of the formula in hex, PID the process id and N a counter of this
/// process, so parallel tests and test binaries never pick the same name.
/// The directory is created if needed; an existing file is never
/// overwritten.
pub(crate) fn save(
    dir: &Path,
    report: &Report,
    object: &str,
) -> std::io::Result<std::path::PathBuf> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let Some(trail) = report.trail() else {
        return Err(std::io::Error::other("the report has no counterexample"));
    };
    let thread = std::thread::current();
    let who: String = thread
        .name()
        .unwrap_or("check")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(80)
        .collect();
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in report.formula.bytes() {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    std::fs::create_dir_all(dir)?;
    // The comments go after the version line, which stays the first line.
    let body = trail.to_string();
    let (first, rest) = body.split_once('\n').unwrap_or((&body, ""));
    let mut text = format!("{first}\n");
    let _ = writeln!(
        text,
        "# saved by a failing check in thread `{}`\n# object: {object}",
        thread.name().unwrap_or("?")
    );
    text.push_str(rest);
    loop {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = dir.join(format!(
            "{who}-{hash:016x}-{}-{n}.trail",
            std::process::id()
        ));
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(mut f) => {
                use std::io::Write;
                f.write_all(text.as_bytes())?;
                return Ok(path);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
}
