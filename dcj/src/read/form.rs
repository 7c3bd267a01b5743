//! The forms the reader produces ([`Form`], [`FormKind`]) and their
//! printing back in Clojure syntax, which reads back to an equal form.

use std::fmt;

use crate::Span;

/// A form read from the text, with the bytes it came from.
///
/// Equality compares the forms only, not their spans (so a printed and
/// re-read form equals the original).
#[derive(Clone, Debug)]
pub struct Form {
    /// What was read.
    pub kind: FormKind,
    /// Where: byte offsets into the text.
    pub span: Span,
}

impl PartialEq for Form {
    fn eq(&self, other: &Form) -> bool {
        self.kind == other.kind
    }
}

/// The kinds of form. Reader macros are expanded as Clojure's reader does:
/// `'x` is `(quote x)`, `@x` `(deref x)`, `` `x `` `(syntax-quote x)`,
/// `~x` `(unquote x)`, `~@x` `(unquote-splicing x)`, `#'x` `(var x)`,
/// `#(...)` `(fn-literal ...)`; `#_x` and `^meta` are dropped.
#[derive(Clone, Debug, PartialEq)]
pub enum FormKind {
    /// `nil`.
    Nil,
    /// `true`, `false`.
    Bool(bool),
    /// A long (`42`, `-7`, `42N`).
    Int(i64),
    /// A double (`1.5`, `1e3`).
    Float(f64),
    /// A string literal, unescaped.
    Str(String),
    /// A character literal (`\a`, `\space`).
    Char(char),
    /// A regular expression literal `#"..."`, as written.
    Regex(String),
    /// A symbol, with its namespace if any (`s/cat`, `Math/sqrt`, `x`).
    Symbol(String),
    /// A keyword: `auto` for `::name` (the file's namespace), `name`
    /// without the colons (`worker`, `ns/worker`).
    Keyword {
        /// Written with two colons (`::worker`).
        auto: bool,
        /// The name after the colons.
        name: String,
    },
    /// `( ... )`.
    List(Vec<Form>),
    /// `[ ... ]`.
    Vector(Vec<Form>),
    /// `{ ... }`: keys and values alternate.
    Map(Vec<Form>),
    /// `#{ ... }`.
    Set(Vec<Form>),
}

/// Writes `items` space-separated between `open` and `close`: Clojure's
/// printing of a sequence, for forms and for values alike.
pub(crate) fn write_seq<T: fmt::Display>(
    f: &mut fmt::Formatter<'_>,
    open: &str,
    items: &[T],
    close: &str,
) -> fmt::Result {
    f.write_str(open)?;
    for (i, x) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(" ")?;
        }
        write!(f, "{x}")?;
    }
    f.write_str(close)
}

/// Prints the form in Clojure syntax; reading the text back gives an equal
/// form.
impl fmt::Display for Form {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            FormKind::Nil => f.write_str("nil"),
            FormKind::Bool(b) => write!(f, "{b}"),
            FormKind::Int(i) => write!(f, "{i}"),
            FormKind::Float(x) => write!(f, "{x:?}"),
            FormKind::Str(s) => {
                f.write_str("\"")?;
                for c in s.chars() {
                    match c {
                        '"' => f.write_str("\\\"")?,
                        '\\' => f.write_str("\\\\")?,
                        '\n' => f.write_str("\\n")?,
                        '\t' => f.write_str("\\t")?,
                        '\r' => f.write_str("\\r")?,
                        c if c.is_control() => write!(f, "\\u{:04x}", c as u32)?,
                        c => write!(f, "{c}")?,
                    }
                }
                f.write_str("\"")
            }
            FormKind::Char(c) => match c {
                '\n' => f.write_str("\\newline"),
                ' ' => f.write_str("\\space"),
                '\t' => f.write_str("\\tab"),
                '\r' => f.write_str("\\return"),
                c if c.is_control() || c.is_whitespace() => write!(f, "\\u{:04x}", *c as u32),
                c => write!(f, "\\{c}"),
            },
            FormKind::Regex(r) => write!(f, "#\"{r}\""),
            FormKind::Symbol(s) => f.write_str(s),
            FormKind::Keyword { auto, name } => {
                write!(f, "{}{name}", if *auto { "::" } else { ":" })
            }
            FormKind::List(v) => write_seq(f, "(", v, ")"),
            FormKind::Vector(v) => write_seq(f, "[", v, "]"),
            FormKind::Map(v) => write_seq(f, "{", v, "}"),
            FormKind::Set(v) => write_seq(f, "#{", v, "}"),
        }
    }
}
