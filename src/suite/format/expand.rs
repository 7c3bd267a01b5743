//! `let` abbreviations: their table, and their expansion into formulas,
//! bounded so that abbreviations that use each other cannot blow up.

use std::collections::BTreeMap;

use engine::names::closest;

use super::lex::{name_list, PosMap};
use super::types::SuiteError;

/// Names that are part of LTL syntax and so cannot be abbreviations, and
/// bare words the checker understands by itself.
pub(super) const RESERVED: [&str; 20] = [
    "G", "F", "X", "U", "W", "R", "M", "V", "true", "false", "tt", "ff", "xor", "True", "False",
    "END", "DEADLOCK", "TRUE", "FALSE", "xnor",
];

/// The longest a formula may be once its abbreviations are expanded, in
/// bytes. Abbreviations are copied where they are used, so definitions that
/// use each other twice double at each level (`let a1 = a0 & a0`, ...):
/// 24 such lines would otherwise ask for gigabytes. Real formulas are a few
/// hundred bytes; this bound is hundreds of times that.
pub const MAX_EXPANDED_LEN: usize = 100_000;

/// The most expanded text (definitions and formulas together, in bytes)
/// one file may produce: each formula within [`MAX_EXPANDED_LEN`] still
/// adds up over many lines that reuse a long abbreviation.
pub const MAX_EXPANDED_TOTAL: usize = 16 << 20;

/// The abbreviations a file has defined so far, and how much text their
/// expansions have produced (see [`MAX_EXPANDED_TOTAL`]).
#[derive(Debug, Default)]
pub(super) struct Abbreviations {
    /// Name → expanded definition (without the parentheses).
    macros: BTreeMap<String, String>,
    /// Bytes of expanded text produced so far.
    expanded_total: usize,
}

impl Abbreviations {
    /// Whether `name` is defined.
    pub fn contains(&self, name: &str) -> bool {
        self.macros.contains_key(name)
    }

    /// Defines `name` as `body` (already expanded).
    pub fn define(&mut self, name: &str, body: String) {
        self.macros.insert(name.to_string(), body);
    }

    /// Replaces every abbreviation in `source` (outside quotes) by its
    /// definition in parentheses. Bare words that are neither LTL syntax nor
    /// abbreviations are errors: the checker's atoms are quoted. So are
    /// expansions past [`MAX_EXPANDED_LEN`] (or past [`MAX_EXPANDED_TOTAL`]
    /// for the file), reported at the abbreviation that crosses the bound.
    pub fn expand(&mut self, source: &str, map: &PosMap) -> Result<String, SuiteError> {
        let out = self.expand_text(source, map)?;
        self.expanded_total += out.len();
        Ok(out)
    }

    fn expand_text(&self, source: &str, map: &PosMap) -> Result<String, SuiteError> {
        let mut out = String::with_capacity(source.len());
        let mut chars = source.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            if c == '"' {
                // A backslash escapes the next character, as in owl-lite.
                let mut escaped = false;
                let closing = chars.by_ref().find(|&(_, d)| {
                    let close = d == '"' && !escaped;
                    escaped = d == '\\' && !escaped;
                    close
                });
                let Some(end) = closing.map(|(j, _)| j + 1) else {
                    return Err(SuiteError::new(map.at(i), "unterminated quoted atom")
                        .hint("close the atom with `\"`"));
                };
                out.push_str(&source[i..end]);
            } else if c.is_alphabetic() || c == '_' {
                let mut end = source.len();
                while let Some(&(j, d)) = chars.peek() {
                    if d.is_alphanumeric() || d == '_' {
                        chars.next();
                    } else {
                        end = j;
                        break;
                    }
                }
                let word = &source[i..end];
                if let Some(body) = self.macros.get(word) {
                    let len = out.len() + body.len() + 2;
                    if len > MAX_EXPANDED_LEN {
                        return Err(SuiteError::new(
                            map.at(i),
                            format!(
                                "`{word}` ({} bytes once expanded) makes this formula longer \
                                 than {MAX_EXPANDED_LEN} bytes",
                                body.len()
                            ),
                        )
                        .hint(
                            "abbreviations are copied where they are used, so nested ones \
                             that use each other several times grow exponentially; \
                             use each abbreviation fewer times",
                        ));
                    }
                    if self.expanded_total + len > MAX_EXPANDED_TOTAL {
                        return Err(SuiteError::new(
                            map.at(i),
                            format!(
                                "the abbreviations expand this file's formulas to more than \
                                 {MAX_EXPANDED_TOTAL} bytes in all"
                            ),
                        )
                        .hint("split the file, or use long abbreviations in fewer places"));
                    }
                    out.push('(');
                    out.push_str(body);
                    out.push(')');
                } else if RESERVED.contains(&word) || is_operator_run(word) {
                    out.push_str(word);
                } else {
                    let mut err = SuiteError::new(map.at(i), format!("`{word}` is not defined"));
                    err = match closest(word, self.macros.keys().map(String::as_str)) {
                        Some(best) => err.hint(format!("did you mean `{best}`?")),
                        None if self.macros.is_empty() => err.hint(format!(
                            "atoms are quoted: `\"{word} ...\"`; or define it with `let {word} = ...`"
                        )),
                        None => err.hint(format!(
                            "defined here: {}",
                            name_list(self.macros.keys().map(String::as_str))
                        )),
                    };
                    return Err(err);
                }
            } else {
                out.push(c);
            }
        }
        Ok(out)
    }
}

/// Owl lets unary operators run together without spaces (`GF`, `XX`, `FG`):
/// such words are syntax, not names.
pub(super) fn is_operator_run(word: &str) -> bool {
    word.chars().all(|c| matches!(c, 'G' | 'F' | 'X'))
}
