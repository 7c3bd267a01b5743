//! Reading a trail file: a lexer of words (names, quoted strings) and the
//! parser of the lines, with line/column errors and hints.

use crate::protocol::ActionKind;
use crate::report::Ending;

use super::{Trail, TrailError, TrailStep, MAGIC, VERSION};

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

/// At most this many characters of a word are quoted in a message.
const SHOWN_WORD_CHARS: usize = 40;

impl Word {
    /// The word as an error message quotes it: cut after
    /// [`SHOWN_WORD_CHARS`] characters (with `…`), control characters
    /// escaped, so that a word of a megabyte (a file that lost its line
    /// breaks) does not make a megabyte of message.
    fn shown(&self) -> String {
        let mut shown: String = self
            .text
            .chars()
            .take(SHOWN_WORD_CHARS)
            .collect::<String>()
            .escape_debug()
            .to_string();
        if self.text.chars().nth(SHOWN_WORD_CHARS).is_some() {
            shown.push('…');
        }
        shown
    }
}

fn keyword(w: &Word, k: &str) -> bool {
    !w.quoted && w.text.eq_ignore_ascii_case(k)
}

fn action(w: &Word) -> Option<ActionKind> {
    [ActionKind::Send, ActionKind::Recv, ActionKind::Close]
        .into_iter()
        .find(|k| keyword(w, &k.to_string()))
}

impl Trail {
    /// Parses a trail file's text (see the [module docs](crate::trail)).
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
                    // A lone carriage return is a line break to some
                    // editors; the writer flattens it to a space, and so
                    // does the reader, so a trail reads back as written.
                    trail.protocol = Some(rest.replace('\r', " "));
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
                                    format!("unexpected `{}` after `end deadlock`", w.shown()),
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
                            format!("unexpected `{}` after `end {}`", ws[2].shown(), w.shown()),
                            END_HINT,
                        ))
                    }
                    Some(w) => {
                        return Err(err(
                            w.column,
                            format!("unknown ending `{}`", w.shown()),
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
                        w.shown()
                    ),
                ),
                None => (w0.column, format!("`{}` is not a step", w0.shown())),
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
        // Empty `formula` lines after the last line of text add nothing,
        // and the writer leaves them out: drop them, so that a trail reads
        // back as it is written.
        if let Some(f) = &mut trail.formula {
            f.truncate(f.trim_end_matches('\n').len());
        }
        Ok(trail)
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
                    w.shown()
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
                format!("expected `{dir}` before the peer, found `{}`", w.shown()),
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
            format!("unexpected `{}` after the step", extra.shown()),
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

#[cfg(test)]
mod tests {
    use crate::Trail;

    /// The line under the error and the caret line, as displayed.
    fn shown_and_caret(display: &str) -> (String, usize) {
        let lines: Vec<&str> = display
            .lines()
            .filter_map(|l| l.strip_prefix("   | "))
            .collect();
        assert_eq!(lines.len(), 2, "{display}");
        let caret = lines[1].chars().position(|c| c == '^').expect("a caret");
        (lines[0].to_string(), caret)
    }

    #[test]
    fn read_drops_a_byte_order_mark_and_refuses_devices() {
        let dir = std::env::temp_dir().join(format!("prust-trail-bom-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("bom.trail");
        std::fs::write(
            &path,
            "\u{feff}prust-trail 1\r\na SEND <M> TO b\r\nend deadlock\r\n",
        )
        .unwrap();
        assert_eq!(Trail::read(&path).unwrap().prefix.len(), 1);
        let _ = std::fs::remove_dir_all(&dir);
        // `/dev/zero` never ends: refused, not read until memory runs out.
        let e = Trail::read("/dev/zero").unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput);
    }

    #[test]
    fn a_huge_one_line_trail_gives_a_short_error() {
        // A trail whose line breaks were lost: every step on one line.
        let text = format!("prust-trail 1\n{}\n", "a SEND <M> TO b ".repeat(100_000));
        let e = Trail::parse(&text).unwrap_err().to_string();
        assert!(e.len() < 1000, "{} bytes", e.len());
        assert!(e.contains("line 2, column 17"), "{e}");
        assert!(e.contains('…'), "{e}");
        assert!(e.contains("hint:"), "{e}");
    }

    #[test]
    fn a_huge_word_is_cut_in_the_message() {
        let text = format!("prust-trail 1\n{}\n", "x".repeat(1_000_000));
        let e = Trail::parse(&text).unwrap_err();
        assert_eq!((e.line, e.column), (2, 1));
        let shown = e.to_string();
        assert!(shown.len() < 1000, "{} bytes", shown.len());
        assert!(shown.contains("is not a step"), "{shown}");
        let e = Trail::parse(&format!(
            "prust-trail 1\na SEND <M> TO b {}\n",
            "y".repeat(500_000)
        ))
        .unwrap_err()
        .to_string();
        assert!(e.len() < 1000, "{} bytes", e.len());
        assert!(e.contains("after the step"), "{e}");
    }

    #[test]
    fn the_caret_stays_under_its_word_far_right_in_a_long_line() {
        let text = format!("prust-trail 1\n{}end bogus\n", " ".repeat(5000));
        let e = Trail::parse(&text).unwrap_err();
        assert_eq!((e.line, e.column), (2, 5005));
        let (line, caret) = shown_and_caret(&e.to_string());
        assert!(line.chars().count() <= 102, "{line}");
        let word: String = line.chars().skip(caret).take(5).collect();
        assert_eq!(word, "bogus", "{e}");
    }

    #[test]
    fn control_characters_do_not_reach_the_terminal() {
        // An escape sequence or a NUL in a (binary-ish) trail is shown as
        // `�`, one column each, so the caret stays under its character.
        let e = Trail::parse("prust-trail 1\n\u{1b}[2J\u{0} SENDX <M> TO b\nend deadlock\n")
            .unwrap_err();
        let shown = e.to_string();
        assert!(
            !shown.contains('\u{1b}') && !shown.contains('\u{0}'),
            "{shown:?}"
        );
        let (line, caret) = shown_and_caret(&shown);
        let word: String = line.chars().skip(caret).take(5).collect();
        assert_eq!(word, "SENDX", "{shown}");
    }
}
