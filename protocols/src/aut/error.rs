//! What a bad `.aut` file is told: the error, with its line shown and a
//! caret under the column (as the `.dcj` reader's errors show theirs).

use std::fmt;

/// A bad `.aut` file: what is wrong, where (line and column), and how to
/// fix it. Its text shows the line with a caret under the column, as the
/// `.dcj` reader's errors do:
///
/// ```
/// let err = protocols::Lts::from_aut("des (0, 1, 2)\n(0,\"!(A,p,q)\",7)\n").unwrap_err();
/// assert_eq!((err.line, err.column), (2, 15));
/// assert_eq!(
///     err.to_string(),
///     ".aut line 2, column 15: state 7 is not below the state count 2 of the header\n  \
///      | (0,\"!(A,p,q)\",7)\n  \
///      |               ^\n  \
///      hint: states are numbered from 0 to the header's state count minus 1 \
///      (its third number, line 1)"
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AutError {
    /// 1-based line number.
    pub line: usize,
    /// 1-based column, in characters (a tab counts as one).
    pub column: usize,
    /// What is wrong.
    pub message: String,
    /// How to fix it.
    pub hint: String,
    /// The line of the file, for the caret display (empty for an empty
    /// file).
    pub source_line: String,
}

impl AutError {
    /// The error as `file:line:column: message`, then the caret display and
    /// the hint: how the CLI shows an error of the file `file`.
    ///
    /// ```
    /// let err = protocols::Lts::from_aut("des (0, 1, 2)\n").unwrap_err();
    /// assert!(err.in_file("m.aut").starts_with("m.aut:1:"));
    /// ```
    pub fn in_file(&self, file: &str) -> String {
        format!(
            "{file}:{}:{}: {}{}",
            self.line,
            self.column,
            self.message,
            self.details()
        )
    }

    /// The caret display and the hint, each on its own line.
    fn details(&self) -> String {
        let mut out = String::new();
        if !self.source_line.is_empty() {
            let (shown, pad) = caret_lines(&self.source_line, self.column);
            out.push_str(&format!("\n  | {shown}\n  | {pad}^"));
        }
        out.push_str(&format!("\n  hint: {}", self.hint));
        out
    }
}

/// At most this many characters of a line are shown under an error: a
/// file of one 10 MB line must not print 10 MB.
const SHOWN_CHARS: usize = 100;

/// The part of `line` shown (around `column`, 1-based, with `…` where
/// cut), and how many characters of it come before the caret. (The `.dcj`
/// reader's errors show their lines so too.)
pub(crate) fn window(line: &str, column: usize) -> (String, usize) {
    let chars: Vec<char> = line.chars().collect();
    let at = column.saturating_sub(1).min(chars.len());
    if chars.len() <= SHOWN_CHARS {
        return (line.to_string(), at);
    }
    let start = at.saturating_sub(SHOWN_CHARS / 2);
    let end = (start + SHOWN_CHARS).min(chars.len());
    let mut shown: String = if start > 0 {
        "…".into()
    } else {
        String::new()
    };
    let caret = at - start + usize::from(start > 0);
    shown.extend(&chars[start..end]);
    if end < chars.len() {
        shown.push('…');
    }
    (shown, caret)
}

/// The shown part of `line` ([`window`]) and the padding that puts a
/// caret under `column`: it copies the line's tabs, so that the caret
/// lines up however wide a terminal shows a tab.
// Public but hidden: the `.dcj` reader (crate prust-dcj) shows its error
// lines the same way; it is no part of this crate's interface.
#[doc(hidden)]
pub fn caret_lines(line: &str, column: usize) -> (String, String) {
    let (shown, caret) = window(line, column);
    let pad = shown
        .chars()
        .take(caret)
        .map(|c| if c == '\t' { '\t' } else { ' ' })
        .collect();
    (shown, pad)
}

impl fmt::Display for AutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            ".aut line {}, column {}: {}{}",
            self.line,
            self.column,
            self.message,
            self.details()
        )
    }
}

impl std::error::Error for AutError {}
