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
//!   [`Protocol::is_terminated`]) or `end violated` (the steps already
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

use crate::alphabet::ActionKind;
use crate::protocol::{Message, Protocol};
use crate::report::{Counterexample, Ending, ReplayError, Report, Step};

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
        writeln!(f, "   | {}", self.text)?;
        writeln!(f, "   | {}^", " ".repeat(self.column.saturating_sub(1)))?;
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

impl From<&Step> for TrailStep {
    fn from(s: &Step) -> TrailStep {
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

/// One word of a line: its 1-based column, its text, and whether it was
/// quoted (a quoted word is always a name, never a keyword).
struct Word {
    column: usize,
    text: String,
    quoted: bool,
}

/// Splits a line into words; `Err((column, message))` for a bad quote.
fn words(line: &str) -> Result<Vec<Word>, (usize, String)> {
    let mut out = Vec::new();
    let mut chars = line.chars().enumerate().peekable();
    while let Some(&(i, c)) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
            continue;
        }
        let column = i + 1;
        if c == '"' {
            chars.next();
            let mut text = String::new();
            loop {
                match chars.next() {
                    None => return Err((column, "this quoted name is not closed".into())),
                    Some((_, '"')) => break,
                    Some((j, '\\')) => match chars.next() {
                        Some((_, '"')) => text.push('"'),
                        Some((_, '\\')) => text.push('\\'),
                        Some((_, 'n')) => text.push('\n'),
                        Some((_, 'r')) => text.push('\r'),
                        Some((_, 't')) => text.push('\t'),
                        _ => return Err((j + 1, "unknown escape in a quoted name".into())),
                    },
                    Some((_, c)) => text.push(c),
                }
            }
            if chars.peek().is_some_and(|&(_, c)| !c.is_whitespace()) {
                let (j, _) = *chars.peek().expect("peeked just before");
                return Err((j + 1, "a quoted name must be followed by a space".into()));
            }
            out.push(Word {
                column,
                text,
                quoted: true,
            });
        } else {
            let mut text = String::new();
            while let Some(&(_, c)) = chars.peek() {
                if c.is_whitespace() {
                    break;
                }
                text.push(c);
                chars.next();
            }
            out.push(Word {
                column,
                text,
                quoted: false,
            });
        }
    }
    Ok(out)
}

const STEP_HINT: &str =
    "a step is `ROLE SEND <Type> TO PEER`, `ROLE RECV <Type> FROM PEER` or `ROLE CLOSE TO PEER`";
const END_HINT: &str = "end a finite run with `end deadlock`, `end terminated` or `end violated`; \
     put a `cycle` line before the steps of a run that repeat forever";

fn keyword(w: &Word, k: &str) -> bool {
    !w.quoted && w.text.eq_ignore_ascii_case(k)
}

fn action(w: &Word) -> Option<ActionKind> {
    [ActionKind::Send, ActionKind::Recv, ActionKind::Close]
        .into_iter()
        .find(|k| keyword(w, &k.to_string()))
}

impl Trail {
    /// Parses a trail file's text (see the [module docs](self)).
    ///
    /// # Errors
    /// A [`TrailError`] with the line and column of the first problem and a
    /// hint: a missing or unknown version line, a malformed step, a header
    /// after the steps, a missing ending, a `cycle` without steps….
    ///
    /// ```
    /// let e = engine::Trail::parse("prust-trail 1\nwhite SEND Move TO black\nend deadlock\n")
    ///     .unwrap_err();
    /// assert_eq!((e.line, e.column), (2, 12));
    /// assert!(e.to_string().contains("angle brackets"), "{e}");
    /// ```
    pub fn parse(text: &str) -> Result<Trail, TrailError> {
        let mut trail = Trail::default();
        let mut version_seen = false;
        let mut in_cycle = false;
        let mut cycle_line = None;
        let mut end_line = None;
        let mut any_step = false;
        let mut last = (0, "");
        for (i, raw) in text.split('\n').enumerate() {
            let line_no = i + 1;
            let line = raw.strip_suffix('\r').unwrap_or(raw);
            let err = |column: usize, message: String, hint: &str| TrailError {
                line: line_no,
                column,
                message,
                hint: hint.to_string(),
                text: line.to_string(),
            };
            let trimmed = line.trim_start();
            if trimmed.is_empty() || trimmed.starts_with('#') {
                continue;
            }
            last = (line_no, line);
            let indent = line.chars().count() - trimmed.chars().count();
            if !version_seen {
                let ws: Vec<&str> = trimmed.split_whitespace().collect();
                let version_hint = "a trail file starts with the line `prust-trail 1`";
                if ws.first() != Some(&MAGIC) {
                    return Err(err(
                        indent + 1,
                        "this is not a prust trail file".into(),
                        version_hint,
                    ));
                }
                let col = line
                    .find(MAGIC)
                    .map_or(1, |b| line[..b].chars().count() + 1)
                    + MAGIC.len()
                    + 1;
                match ws.get(1).map(|v| v.parse::<u32>()) {
                    Some(Ok(VERSION)) if ws.len() == 2 => {}
                    Some(Ok(v)) if ws.len() == 2 => {
                        return Err(err(
                            col,
                            format!("trail format version {v} is not supported (this prust reads version {VERSION})"),
                            "write the trail again with this version of prust",
                        ))
                    }
                    _ => {
                        return Err(err(
                            col,
                            "expected the format version after `prust-trail`".into(),
                            version_hint,
                        ))
                    }
                }
                version_seen = true;
                continue;
            }
            // Headers take the rest of the line verbatim (a formula has
            // quotes and spaces of its own), so they are recognised by
            // their first word before the line is split.
            let first = trimmed.split_whitespace().next().unwrap_or("");
            let rest = trimmed[first.len()..].trim();
            // A role may be called `formula`: a line shaped like a step is
            // one.
            let step_shaped = {
                let mut it = trimmed.split_whitespace().skip(1);
                let second = it.next().unwrap_or("");
                it.next().is_some()
                    && ["SEND", "RECV", "CLOSE"]
                        .iter()
                        .any(|k| second.eq_ignore_ascii_case(k))
            };
            if !step_shaped && (first == "protocol" || first == "formula") {
                if any_step || in_cycle || end_line.is_some() {
                    return Err(err(
                        indent + 1,
                        format!("the `{first}` header comes after the steps"),
                        "put the headers (`protocol`, `formula`) before the first step",
                    ));
                }
                // (An empty line inside a formula of several lines is
                // kept.)
                if rest.is_empty() && !(first == "formula" && trail.formula.is_some()) {
                    return Err(err(
                        indent + first.len() + 1,
                        format!("`{first}` needs a value"),
                        "write `protocol NAME` or `formula LTL-FORMULA`",
                    ));
                }
                if first == "protocol" {
                    if trail.protocol.is_some() {
                        return Err(err(
                            indent + 1,
                            "a second `protocol` header".into(),
                            "a trail belongs to one protocol: keep one `protocol` line",
                        ));
                    }
                    trail.protocol = Some(rest.to_string());
                } else {
                    // Several `formula` lines are one formula of several
                    // lines; the text after `formula ` is kept as it is,
                    // indentation included.
                    let after = &trimmed[first.len()..];
                    let value = after.strip_prefix([' ', '\t']).unwrap_or(after).trim_end();
                    match &mut trail.formula {
                        Some(f) => {
                            f.push('\n');
                            f.push_str(value);
                        }
                        None => trail.formula = Some(value.to_string()),
                    }
                }
                continue;
            }
            let ws = words(line).map_err(|(c, m)| {
                err(
                    c,
                    m,
                    "close the name with `\"`; write `\\\"` for a quote inside it",
                )
            })?;
            let is_step = ws.len() >= 3 && action(&ws[1]).is_some();
            if let Some(end) = end_line {
                return Err(err(
                    indent + 1,
                    format!("nothing may follow the `end` line (line {end})"),
                    "a run ends once: delete the lines after `end`, or the `end` line",
                ));
            }
            if is_step {
                let step = parse_step(&ws, line_no).map_err(|(c, m, h)| err(c, m, h))?;
                any_step = true;
                if in_cycle {
                    trail.cycle.push(step);
                } else {
                    trail.prefix.push(step);
                }
                continue;
            }
            let w0 = &ws[0];
            if keyword(w0, "cycle") {
                if ws.len() > 1 {
                    return Err(err(
                        ws[1].column,
                        "the `cycle` line has nothing after `cycle`".into(),
                        "write the repeated steps on the lines after `cycle`",
                    ));
                }
                if let Some(c) = cycle_line {
                    return Err(err(
                        w0.column,
                        format!("a second `cycle` line (the first is line {c})"),
                        "a lasso has one cycle: keep one `cycle` line",
                    ));
                }
                in_cycle = true;
                cycle_line = Some(line_no);
                continue;
            }
            if keyword(w0, "end") {
                if in_cycle {
                    return Err(err(
                        w0.column,
                        "a run with a `cycle` repeats forever: it has no `end`".into(),
                        "delete the `end` line, or the `cycle` line to make the run finite",
                    ));
                }
                let ending = match ws.get(1) {
                    Some(w) if keyword(w, "deadlock") => {
                        let waiting = match ws.get(2) {
                            None => Vec::new(),
                            Some(w) if keyword(w, "waiting") => {
                                ws[3..].iter().map(|w| w.text.clone()).collect()
                            }
                            Some(w) => {
                                return Err(err(
                                    w.column,
                                    format!("unexpected `{}` after `end deadlock`", w.text),
                                    "write `end deadlock` or `end deadlock waiting ROLE...`",
                                ))
                            }
                        };
                        Ending::Deadlock { waiting }
                    }
                    Some(w) if keyword(w, "terminated") && ws.len() == 2 => Ending::Terminated,
                    Some(w) if keyword(w, "violated") && ws.len() == 2 => Ending::AnyContinuation,
                    Some(w)
                        if ws.len() > 2 && (keyword(w, "terminated") || keyword(w, "violated")) =>
                    {
                        return Err(err(
                            ws[2].column,
                            format!("unexpected `{}` after `end {}`", ws[2].text, w.text),
                            END_HINT,
                        ))
                    }
                    Some(w) => {
                        return Err(err(
                            w.column,
                            format!("unknown ending `{}`", w.text),
                            END_HINT,
                        ))
                    }
                    None => {
                        return Err(err(
                            w0.column + w0.text.chars().count() + 1,
                            "`end` needs the kind of ending".into(),
                            END_HINT,
                        ))
                    }
                };
                trail.ending = Some(ending);
                end_line = Some(line_no);
                continue;
            }
            // Not a step, keyword or header: most likely a step with a
            // misspelt or missing action.
            let (column, message) = match ws.get(1) {
                Some(w) => (
                    w.column,
                    format!(
                        "expected SEND, RECV or CLOSE after the role, found `{}`",
                        w.text
                    ),
                ),
                None => (w0.column, format!("`{}` is not a step", w0.text)),
            };
            return Err(err(column, message, STEP_HINT));
        }
        let (line_no, line) = last;
        let at_end = |message: String, hint: &str| TrailError {
            line: line_no.max(1),
            column: line.chars().count() + 1,
            message,
            hint: hint.to_string(),
            text: line.to_string(),
        };
        if !version_seen {
            return Err(at_end(
                "the trail is empty".into(),
                "a trail file starts with the line `prust-trail 1`",
            ));
        }
        if let Some(c) = cycle_line {
            if trail.cycle.is_empty() {
                return Err(TrailError {
                    line: c,
                    column: 1,
                    message: "the `cycle` line is not followed by any step".into(),
                    hint: "write the steps that repeat forever after `cycle`, or delete it".into(),
                    text: text.split('\n').nth(c - 1).unwrap_or("").trim_end().into(),
                });
            }
        } else if trail.ending.is_none() {
            return Err(at_end(
                "the trail does not say how the run goes on".into(),
                END_HINT,
            ));
        }
        Ok(trail)
    }

    /// Reads and parses a trail file.
    ///
    /// # Errors
    /// The I/O error, or the parse error (as [`std::io::ErrorKind::InvalidData`],
    /// its text naming the file, line and column).
    pub fn read(path: impl AsRef<Path>) -> std::io::Result<Trail> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path)?;
        Trail::parse(&text).map_err(|e| {
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

    /// Re-executes the trail on a fresh object and returns the transcript,
    /// exactly as [`Counterexample::replay`] prints it: the object's state
    /// (`Debug`) after each step, then the check of the cycle (the object
    /// is back where the cycle started) or of the ending.
    ///
    /// Roles are found by name in [`Protocol::roles`]. A send sends the
    /// dummy of its type from `dummies` (by short name or full path) or,
    /// without one, `Message::named(type, ())` — enough for objects that
    /// look only at the type name. The dummies are also what the replay
    /// probes to confirm that nothing is enabled at an `end` (plus a
    /// `()`-payload stand-in for every type the trail sends without a
    /// dummy), so pass the ones the check used.
    ///
    /// # Errors
    /// A [`ReplayError`] naming the step (and its line in the file) where
    /// the object does not follow the trail: a role or type the object does
    /// not have, an action the object refuses (with what it would do
    /// instead), a receive that gets another message, a cycle that does not
    /// lead back to its start, an ending that is not one.
    pub fn replay<P: Protocol + fmt::Debug>(
        &self,
        fresh: P,
        dummies: Vec<Message>,
    ) -> Result<String, ReplayError> {
        let c = self.to_counterexample(&fresh, dummies)?;
        c.try_replay(fresh).map_err(|mut e| {
            let lines: Vec<usize> = self.steps().map(|s| s.line).collect();
            e.line = e
                .step
                .checked_sub(1)
                .and_then(|i| lines.get(i))
                .copied()
                .filter(|&l| l > 0);
            e
        })
    }

    /// The trail as a [`Counterexample`] of `proto` (whose roles and
    /// declared types name the steps) with these dummies, without running
    /// it: to draw it ([`Counterexample::to_dot`]) or print it. Names are
    /// resolved as [`replay`](Self::replay) does; the steps' automaton
    /// states, which a trail does not keep, are 0.
    ///
    /// # Errors
    /// A [`ReplayError`] for the first step that names a role or type the
    /// object does not have.
    pub fn to_counterexample<P: Protocol>(
        &self,
        proto: &P,
        mut dummies: Vec<Message>,
    ) -> Result<Counterexample, ReplayError> {
        let roles = proto.roles();
        let declared = proto.type_names();
        let has_dummy = |t: &str, dummies: &[Message]| {
            dummies
                .iter()
                .any(|d| d.type_name() == t || d.type_path() == t)
        };
        // The types the object has: its declared ones and the dummies'.
        // With neither, it says nothing about types, and every type is
        // taken at its word (the object itself accepts or refuses it).
        let known_types = {
            let mut v: Vec<String> = dummies.iter().map(|d| d.type_name().to_string()).collect();
            v.extend(declared.iter().cloned());
            v.sort();
            v.dedup();
            v
        };
        let paths: Vec<String> = dummies.iter().map(|d| d.type_path().to_string()).collect();
        let known = |t: &str| {
            known_types.is_empty()
                || known_types.iter().any(|k| k == t)
                || paths.iter().any(|p| p == t)
        };
        // Stand-ins for the types the trail sends without a dummy: the
        // engine only ever sent types it had a dummy for, so these are
        // what the original check probed.
        for s in self.steps() {
            if let (ActionKind::Send, Some(t)) = (s.kind, &s.type_name) {
                if known(t) && !has_dummy(t, &dummies) {
                    dummies.push(Message::named(t, ()));
                }
            }
        }
        let n_prefix = self.prefix.len();
        let mut steps = Vec::new();
        for (i, s) in self.steps().enumerate() {
            let fail = |what: String| ReplayError {
                step: i + 1,
                line: Some(s.line).filter(|&l| l > 0),
                message: format!("step {} `{s}`: {what}", i + 1),
                transcript: String::new(),
            };
            let role_id = |r: &str| {
                roles.iter().position(|x| x == r).ok_or_else(|| {
                    let hint = crate::names::closest(r, roles.iter().map(String::as_str))
                        .map(|c| format!("; did you mean `{c}`?"))
                        .unwrap_or_default();
                    fail(format!(
                        "the object has no role `{r}`{hint} (its roles: {})",
                        roles.join(", ")
                    ))
                })
            };
            let role = role_id(&s.role)?;
            let peer = role_id(&s.peer)?;
            if let Some(t) = &s.type_name {
                if !known(t) {
                    let hint = crate::names::closest(t, known_types.iter().map(String::as_str))
                        .map(|c| format!("; did you mean <{c}>?"))
                        .unwrap_or_default();
                    return Err(fail(format!(
                        "the object has no message type <{t}>{hint} (its types: {})",
                        known_types.join(", ")
                    )));
                }
            }
            let message = match (s.kind, &s.type_name) {
                (ActionKind::Send, Some(t)) => dummies
                    .iter()
                    .find(|d| d.type_name() == t || d.type_path() == t)
                    .cloned(),
                _ => None,
            };
            steps.push(Step {
                role,
                role_name: roles[role].clone(),
                kind: s.kind,
                type_name: s.type_name.clone(),
                peer,
                peer_name: roles[peer].clone(),
                automaton_state: 0,
                message,
            });
        }
        let cycle = steps.split_off(n_prefix);
        Ok(Counterexample {
            prefix: steps,
            cycle,
            ending: self.ending.clone(),
            dummies,
            roles,
        })
    }
}

/// Parses the words of a step line (the second word is known to be an
/// action); `Err((column, message, hint))`.
fn parse_step(ws: &[Word], line: usize) -> Result<TrailStep, (usize, String, &'static str)> {
    let kind = action(&ws[1]).expect("checked by the caller");
    let mut at = 2;
    let type_name = if kind == ActionKind::Close {
        None
    } else {
        let w = &ws[at];
        at += 1;
        let t = if w.quoted {
            w.text.clone()
        } else if w.text.len() > 2 && w.text.starts_with('<') && w.text.ends_with('>') {
            w.text[1..w.text.len() - 1].to_string()
        } else {
            return Err((
                w.column,
                format!(
                    "expected a message type in angle brackets, like <Move>, found `{}`",
                    w.text
                ),
                STEP_HINT,
            ));
        };
        Some(t)
    };
    let dir = if kind == ActionKind::Recv {
        "FROM"
    } else {
        "TO"
    };
    let end_col = |w: &Word| w.column + w.text.chars().count();
    match ws.get(at) {
        Some(w) if keyword(w, dir) => {}
        Some(w) => {
            return Err((
                w.column,
                format!("expected `{dir}` before the peer, found `{}`", w.text),
                if kind == ActionKind::Recv {
                    "a receive names its sender: `ROLE RECV <Type> FROM PEER`"
                } else {
                    "a send or close names its receiver: `ROLE SEND <Type> TO PEER`"
                },
            ))
        }
        None => {
            return Err((
                end_col(&ws[at - 1]),
                format!("expected `{dir} PEER` after this"),
                STEP_HINT,
            ))
        }
    }
    let Some(peer) = ws.get(at + 1) else {
        return Err((end_col(&ws[at]), "expected the peer role".into(), STEP_HINT));
    };
    if let Some(extra) = ws.get(at + 2) {
        return Err((
            extra.column,
            format!("unexpected `{}` after the step", extra.text),
            "one step per line",
        ));
    }
    Ok(TrailStep {
        role: ws[0].text.clone(),
        kind,
        type_name,
        peer: peer.text.clone(),
        line,
    })
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
