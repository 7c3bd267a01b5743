//! The lexical layer of suite files: comments, lines grouped into
//! directives, words with their positions, formulas joined from several
//! lines with a map back to the file, and the shapes of names.

use super::types::{Pos, SuiteError};

/// The words that start a directive when they start a line.
pub(super) const KEYWORDS: [&str; 7] = [
    "protocol",
    "runtime",
    "semantics",
    "fairness",
    "let",
    "test",
    "max-states",
];

/// A line of the file without its comment, with its number.
pub(super) struct Line<'a> {
    /// The line number, from 1.
    pub number: usize,
    /// The line without its comment.
    pub text: &'a str,
}

/// A directive with the formula lines that follow it.
pub(super) struct Block<'a> {
    /// The directive's keyword (one of [`KEYWORDS`]).
    pub keyword: &'a str,
    /// Where the directive starts.
    pub pos: Pos,
    /// The rest of the directive line after the keyword, and its column.
    pub rest: &'a str,
    pub rest_col: usize,
    /// The lines up to the next directive.
    pub body: Vec<Line<'a>>,
}

/// Splits the file into directives, each with the lines that follow it
/// up to the next directive; text before the first directive is an
/// error in `errors`.
pub(super) fn blocks<'a>(text: &'a str, errors: &mut Vec<SuiteError>) -> Vec<Block<'a>> {
    let mut blocks: Vec<Block<'a>> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let number = i + 1;
        let text = strip_comment(raw);
        if text.trim().is_empty() {
            continue;
        }
        let starts_flush = !text.starts_with(char::is_whitespace);
        let word_end = text.find(char::is_whitespace).unwrap_or(text.len());
        let word = &text[..word_end];
        if starts_flush && KEYWORDS.contains(&word) {
            let rest_start =
                word_end + text[word_end..].len() - text[word_end..].trim_start().len();
            blocks.push(Block {
                keyword: word,
                pos: Pos {
                    line: number,
                    col: 1,
                },
                rest: text[rest_start..].trim_end(),
                rest_col: text[..rest_start].chars().count() + 1,
                body: Vec::new(),
            });
        } else if let Some(block) = blocks.last_mut() {
            block.body.push(Line { number, text });
        } else {
            let col = text.len() - text.trim_start().len();
            let col = text[..col].chars().count() + 1;
            errors.push(
                SuiteError::new(
                    Pos { line: number, col },
                    format!("expected a directive, found `{}`", word.trim()),
                )
                .hint("a suite starts with `protocol NAME`; formulas follow a `test` line"),
            );
        }
    }
    blocks
}

/// Where each byte of a collected formula came from in the file.
pub(super) struct PosMap {
    /// (offset in the formula, position in the file) at the start of each line.
    starts: Vec<(usize, Pos)>,
    text: String,
}

impl PosMap {
    /// The position in the file of byte `offset` of the formula.
    pub fn at(&self, offset: usize) -> Pos {
        let idx = self
            .starts
            .partition_point(|(o, _)| *o <= offset)
            .saturating_sub(1);
        let Some(&(start, pos)) = self.starts.get(idx) else {
            return Pos { line: 1, col: 1 };
        };
        let end = offset.min(self.text.len());
        let cols = self
            .text
            .get(start..end)
            .map(|s| s.chars().count())
            .unwrap_or(0);
        Pos {
            line: pos.line,
            col: pos.col + cols,
        }
    }
}

/// Joins the non-empty formula lines (the directive's own remainder first,
/// if given) with `\n`, and remembers where each came from.
pub(super) fn collect_formula(
    first: Option<(Line<'_>, usize)>,
    body: &[Line<'_>],
) -> (String, Option<Pos>, PosMap) {
    let mut text = String::new();
    let mut starts = Vec::new();
    let mut push = |line: &str, pos: Pos| {
        if !text.is_empty() {
            text.push('\n');
        }
        starts.push((text.len(), pos));
        text.push_str(line);
    };
    if let Some((line, col)) = first {
        let trimmed = line.text.trim();
        if !trimmed.is_empty() {
            let lead = line.text.len() - line.text.trim_start().len();
            let col = col + line.text[..lead].chars().count();
            push(
                trimmed,
                Pos {
                    line: line.number,
                    col,
                },
            );
        }
    }
    for line in body {
        let trimmed = line.text.trim();
        if trimmed.is_empty() {
            continue;
        }
        push(trimmed, first_char_pos(line));
    }
    let start = starts.first().map(|s| s.1);
    (text.clone(), start, PosMap { starts, text })
}

pub(super) fn first_char_pos(line: &Line<'_>) -> Pos {
    let lead = line.text.len() - line.text.trim_start().len();
    Pos {
        line: line.number,
        col: line.text[..lead].chars().count() + 1,
    }
}

/// Splits a directive's remainder into words (a quoted string is one word),
/// each with its position.
pub(super) fn words(rest: &str, start: Pos) -> Vec<(&str, Pos)> {
    let mut out = Vec::new();
    let mut iter = rest.char_indices().peekable();
    let mut col = start.col;
    while let Some(&(i, c)) = iter.peek() {
        if c.is_whitespace() {
            iter.next();
            col += 1;
            continue;
        }
        let begin_col = col;
        let mut end = rest.len();
        let mut in_quotes = false;
        while let Some(&(j, d)) = iter.peek() {
            if d.is_whitespace() && !in_quotes {
                end = j;
                break;
            }
            if d == '"' {
                in_quotes = !in_quotes;
            }
            iter.next();
            col += 1;
        }
        out.push((
            &rest[i..end],
            Pos {
                line: start.line,
                col: begin_col,
            },
        ));
    }
    out
}

/// Removes a `#` comment, unless the `#` is inside a quoted atom.
pub(super) fn strip_comment(line: &str) -> &str {
    let mut in_quotes = false;
    let mut escaped = false;
    for (i, c) in line.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if in_quotes => escaped = true,
            '"' => in_quotes = !in_quotes,
            '#' if !in_quotes => return &line[..i],
            _ => {}
        }
    }
    line
}

/// The most names a hint lists: every error of a file may carry one, so a
/// file with thousands of definitions and thousands of mistakes would
/// otherwise produce text quadratic in its length.
const HINT_NAMES: usize = 12;

/// `a, b, c`, or the first [`HINT_NAMES`] names and how many more there are.
pub(super) fn name_list<'a>(names: impl ExactSizeIterator<Item = &'a str>) -> String {
    let total = names.len();
    let shown: Vec<&str> = names.take(HINT_NAMES).collect();
    let more = total - shown.len();
    let mut text = shown.join(", ");
    if more > 0 {
        text.push_str(&format!(", … ({more} more)"));
    }
    text
}

pub(super) fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_')
}

/// Names of tests, protocols and qualifiers: letters, digits, `_`, `-`, `:`, `.`.
pub(super) fn is_name(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | ':' | '.'))
}
