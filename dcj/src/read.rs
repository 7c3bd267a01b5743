//! The reader: Clojure's data syntax, as far as `.dcj` files and the
//! programs around Discourje specifications use it, into [`Form`]s with
//! byte spans.
//!
//! Lexical tokens (numbers, symbols, strings, whitespace) are nom parsers;
//! the nesting is a loop with an explicit stack, so that a file of deeply
//! nested brackets cannot overflow the reader's stack.

use nom::bytes::complete::{take_while, take_while1};
use nom::character::complete::{char, digit1, one_of};
use nom::combinator::{opt, recognize};
use nom::sequence::pair;
use nom::{IResult, Parser};

mod form;
#[cfg(test)]
mod round_trip;
#[cfg(test)]
mod tests;

pub(crate) use form::write_seq;
pub use form::{Form, FormKind};

use super::{DcjError, Span, Warning};

/// What a file reads to: its forms, and the warnings (stray closing
/// brackets) met on the way.
#[derive(Clone, Debug)]
pub struct Read {
    /// The top-level forms in order.
    pub forms: Vec<Form>,
    /// Things Clojure's own loader tolerates but that are likely mistakes.
    pub warnings: Vec<Warning>,
}

/// Nesting deeper than this is an error rather than a risk to the
/// evaluator's stack (real files nest a few dozen levels).
pub const MAX_DEPTH: usize = 1_000;

type Res<'a, T> = IResult<&'a str, T>;

/// Whitespace, commas and `;` comments.
fn skip_ws(mut s: &str) -> &str {
    loop {
        let t = s.trim_start_matches(|c: char| c.is_whitespace() || c == ',');
        if let Some(rest) = t.strip_prefix(';') {
            s = rest.find('\n').map_or("", |i| &rest[i..]);
        } else {
            return t;
        }
    }
}

fn is_symbol_char(c: char) -> bool {
    c.is_alphanumeric() || "*+!-_'?<>=/.:#$%&|".contains(c)
}

fn symbol_chars(s: &str) -> Res<'_, &str> {
    take_while1(is_symbol_char).parse(s)
}

/// A number token: sign, digits, then a fraction/exponent or `N`.
fn number(s: &str) -> Res<'_, &str> {
    recognize((
        opt(one_of("+-")),
        digit1,
        opt(pair(char('.'), take_while(|c: char| c.is_ascii_digit()))),
        opt((one_of("eE"), opt(one_of("+-")), digit1)),
        take_while(is_symbol_char),
    ))
    .parse(s)
}

fn string_body(s: &str) -> Result<(&str, String), (usize, &'static str)> {
    // `s` starts after the opening quote; returns the rest after the closing one.
    let mut out = String::new();
    let mut chars = s.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Ok((&s[i + 1..], out)),
            '\\' => match chars.next() {
                Some((_, 'n')) => out.push('\n'),
                Some((_, 't')) => out.push('\t'),
                Some((_, 'r')) => out.push('\r'),
                Some((_, 'b')) => out.push('\u{8}'),
                Some((_, 'f')) => out.push('\u{c}'),
                Some((_, '"')) => out.push('"'),
                Some((_, '\\')) => out.push('\\'),
                Some((j, 'u')) => {
                    let hex = s.get(j + 1..j + 5).unwrap_or("");
                    let v = u32::from_str_radix(hex, 16)
                        .ok()
                        .and_then(char::from_u32)
                        .ok_or((i, "bad unicode escape: write \\u and four hex digits"))?;
                    out.push(v);
                    for _ in 0..4 {
                        chars.next();
                    }
                }
                Some(_) => return Err((i, "unknown escape: use \\n \\t \\r \\\" \\\\ or \\uXXXX")),
                None => break,
            },
            c => out.push(c),
        }
    }
    Err((0, "unterminated string: add the closing `\"`"))
}

enum Open {
    List,
    Vector,
    Map,
    Set,
    FnLit,
}

impl Open {
    fn closer(&self) -> char {
        match self {
            Open::List | Open::FnLit => ')',
            Open::Vector => ']',
            Open::Map | Open::Set => '}',
        }
    }
}

/// A pending prefix that wraps the next form (`'`, `@`, `#'`, `` ` ``, `~`,
/// `~@`), or drops it (`#_`, `^meta`: the first of two forms).
#[derive(Clone, Copy)]
enum Prefix {
    Wrap(&'static str),
    Discard,
    /// `^meta form`: drop the first form that completes, keep the second.
    Meta,
}

struct Frame {
    open: Option<Open>,
    start: usize,
    items: Vec<Form>,
    /// Prefixes waiting for their form, innermost last, with their start.
    prefixes: Vec<(Prefix, usize)>,
}

/// Reads every top-level form of `text`.
///
/// Errors carry the span of the offending bytes and a hint; a closing
/// bracket with nothing open is skipped with a warning (Prut4j's files
/// have stray trailing `)`s).
pub fn read(text: &str) -> Result<Read, DcjError> {
    let total = text.len();
    let off = |rest: &str| total - rest.len();
    let err = |start: usize, end: usize, msg: String, hint: &str| {
        DcjError::at(text, Span { start, end }, msg, Some(hint.to_string()))
    };
    let mut warnings = Vec::new();
    let mut stack = vec![Frame {
        open: None,
        start: 0,
        items: Vec::new(),
        prefixes: Vec::new(),
    }];
    let mut s = text;
    loop {
        s = skip_ws(s);
        let start = off(s);
        let Some(c) = s.chars().next() else {
            let top = stack.pop().expect("the top frame is never popped");
            if let Some(open) = &top.open {
                return Err(err(
                    top.start,
                    top.start + 1,
                    "unclosed bracket at end of file".into(),
                    &format!("add the matching `{}`", open.closer()),
                ));
            }
            if let Some(&(_, p)) = top.prefixes.last() {
                return Err(err(
                    p,
                    p + 1,
                    "a reader prefix with no form after it".into(),
                    "put a form after it or remove it",
                ));
            }
            return Ok(Read {
                forms: top.items,
                warnings,
            });
        };
        // Openers push a frame; closers pop one and make a form.
        let opened = match c {
            '(' => Some((Open::List, 1)),
            '[' => Some((Open::Vector, 1)),
            '{' => Some((Open::Map, 1)),
            _ if s.starts_with("#{") => Some((Open::Set, 2)),
            _ if s.starts_with("#(") => Some((Open::FnLit, 2)),
            _ => None,
        };
        if let Some((open, len)) = opened {
            if stack.len() > MAX_DEPTH {
                return Err(err(
                    start,
                    start + len,
                    format!("forms nested more than {MAX_DEPTH} deep"),
                    "is a closing bracket missing?",
                ));
            }
            stack.push(Frame {
                open: Some(open),
                start,
                items: Vec::new(),
                prefixes: Vec::new(),
            });
            s = &s[len..];
            continue;
        }
        let form = if matches!(c, ')' | ']' | '}') {
            s = &s[1..];
            let top = stack.last().expect("non-empty");
            match &top.open {
                None => {
                    warnings.push(Warning {
                        span: Span { start, end: start + 1 },
                        message: format!("stray `{c}` with nothing open: ignored (as Clojure's loader of these files does)"),
                    });
                    continue;
                }
                Some(open) if open.closer() != c => {
                    return Err(err(
                        start,
                        start + 1,
                        format!(
                            "`{c}` closes the `{}` opened at byte {}",
                            match open {
                                Open::List => "(",
                                Open::Vector => "[",
                                Open::Map => "{",
                                Open::Set => "#{",
                                Open::FnLit => "#(",
                            },
                            top.start
                        ),
                        &format!("expected `{}` here", open.closer()),
                    ));
                }
                Some(_) => {}
            }
            let frame = stack.pop().expect("non-empty");
            if let Some(&(_, p)) = frame.prefixes.last() {
                return Err(err(
                    p,
                    p + 1,
                    "a reader prefix with no form after it".into(),
                    "put a form after it or remove it",
                ));
            }
            let span = Span {
                start: frame.start,
                end: off(s),
            };
            let items = frame.items;
            let kind = match frame.open.expect("checked") {
                Open::List => FormKind::List(items),
                Open::Vector => FormKind::Vector(items),
                Open::Map => {
                    if items.len() % 2 != 0 {
                        return Err(err(
                            span.start,
                            span.end,
                            "a map literal with an odd number of forms".into(),
                            "a map is written {key value key value ...}",
                        ));
                    }
                    FormKind::Map(items)
                }
                Open::Set => FormKind::Set(items),
                Open::FnLit => {
                    let mut v = vec![Form {
                        kind: FormKind::Symbol("fn-literal".into()),
                        span,
                    }];
                    v.extend(items);
                    FormKind::List(v)
                }
            };
            Form { kind, span }
        } else {
            // Prefixes.
            let prefix = [
                ("#_", Prefix::Discard),
                ("#'", Prefix::Wrap("var")),
                ("~@", Prefix::Wrap("unquote-splicing")),
                ("'", Prefix::Wrap("quote")),
                ("@", Prefix::Wrap("deref")),
                ("`", Prefix::Wrap("syntax-quote")),
                ("~", Prefix::Wrap("unquote")),
                ("^", Prefix::Meta),
            ]
            .into_iter()
            .find(|(p, _)| s.starts_with(p));
            if let Some((p, kind)) = prefix {
                s = &s[p.len()..];
                let top = stack.last_mut().expect("non-empty");
                top.prefixes.push((kind, start));
                if let Prefix::Meta = kind {
                    // The metadata form comes first and is dropped.
                    top.prefixes.push((Prefix::Discard, start));
                }
                continue;
            }
            let (rest, form) = atom(text, s, start)?;
            s = rest;
            form
        };
        // Apply the pending prefixes of the frame the form belongs to.
        let top = stack.last_mut().expect("non-empty");
        let mut form = Some(form);
        while let Some(&(p, pstart)) = top.prefixes.last() {
            let Some(f) = form.take() else { break };
            top.prefixes.pop();
            match p {
                Prefix::Wrap(name) => {
                    let span = Span {
                        start: pstart,
                        end: f.span.end,
                    };
                    form = Some(Form {
                        kind: FormKind::List(vec![
                            Form {
                                kind: FormKind::Symbol(name.into()),
                                span: Span {
                                    start: pstart,
                                    end: pstart + 1,
                                },
                            },
                            f,
                        ]),
                        span,
                    });
                }
                Prefix::Discard => {}
                Prefix::Meta => form = Some(f),
            }
        }
        if let Some(f) = form {
            top.items.push(f);
        }
    }
}

/// One atom (number, string, character, regex, keyword, symbol) at `s`.
fn atom<'a>(text: &str, s: &'a str, start: usize) -> Result<(&'a str, Form), DcjError> {
    let err = |end: usize, msg: String, hint: &str| {
        DcjError::at(text, Span { start, end }, msg, Some(hint.to_string()))
    };
    let c = s.chars().next().expect("caller checked");
    let span_to = |rest: &str| Span {
        start,
        end: start + (s.len() - rest.len()),
    };
    if c == '"' || s.starts_with("#\"") {
        let skip = if c == '"' { 1 } else { 2 };
        let body = &s[skip..];
        return match string_body(body) {
            Ok((rest, value)) => {
                let kind = if c == '"' {
                    FormKind::Str(value)
                } else {
                    FormKind::Regex(body[..body.len() - rest.len() - 1].to_string())
                };
                Ok((
                    rest,
                    Form {
                        kind,
                        span: span_to(rest),
                    },
                ))
            }
            Err((0, msg)) => Err(err(start + 1, msg.into(), "strings are written \"...\"")),
            Err((i, msg)) => Err(DcjError::at(
                text,
                Span {
                    start: start + skip + i,
                    end: start + skip + i + 2,
                },
                msg.into(),
                Some("escape a backslash as \\\\".into()),
            )),
        };
    }
    if c == '\\' {
        let rest = &s[1..];
        let Some(first) = rest.chars().next() else {
            return Err(err(
                start + 1,
                "a `\\` at end of file".into(),
                "a character is written \\a",
            ));
        };
        // A character literal is one character, or a name such as `space`.
        let name_len = if first.is_alphanumeric() {
            rest.find(|c: char| !c.is_alphanumeric())
                .unwrap_or(rest.len())
        } else {
            first.len_utf8()
        };
        let name = &rest[..name_len];
        let ch = match name {
            "newline" => '\n',
            "space" => ' ',
            "tab" => '\t',
            "return" => '\r',
            "backspace" => '\u{8}',
            "formfeed" => '\u{c}',
            _ if name.chars().count() == 1 => first,
            _ if name.starts_with('u') && name.len() == 5 => u32::from_str_radix(&name[1..], 16)
                .ok()
                .and_then(char::from_u32)
                .ok_or_else(|| {
                    err(
                        start + 1 + name_len,
                        format!("bad character `\\{name}`"),
                        "write \\uXXXX",
                    )
                })?,
            _ => {
                return Err(err(
                    start + 1 + name_len,
                    format!("unknown character name `\\{name}`"),
                    "use \\newline, \\space, \\tab, \\uXXXX or a single character",
                ))
            }
        };
        let rest = &rest[name_len..];
        return Ok((
            rest,
            Form {
                kind: FormKind::Char(ch),
                span: span_to(rest),
            },
        ));
    }
    if c == '#' {
        return Err(err(
            start + 2.min(s.len()),
            "unsupported dispatch form `#`".into(),
            "the reader knows #{...}, #(...), #\"...\", #' and #_",
        ));
    }
    if let Ok((rest, tok)) = number(s) {
        let kind = parse_number(tok).ok_or_else(|| {
            err(start + tok.len(), format!("bad number `{tok}`"),
                "numbers are longs (42, 42N) or doubles (1.5, 1e3); ratios and radix literals are not supported")
        })?;
        return Ok((
            rest,
            Form {
                kind,
                span: span_to(rest),
            },
        ));
    }
    if c == ':' {
        let auto = s.starts_with("::");
        let body = &s[if auto { 2 } else { 1 }..];
        let (rest, name) = symbol_chars(body).map_err(|_| {
            err(
                start + 1,
                "a `:` with no keyword name".into(),
                "keywords are written :name or ::name",
            )
        })?;
        if name.ends_with('/') || name.starts_with(':') || name.starts_with('/') && name.len() > 1 {
            return Err(err(
                start + (s.len() - rest.len()),
                format!("bad keyword `{}`", &s[..s.len() - rest.len()]),
                "keywords are written :name, ::name or :ns/name",
            ));
        }
        return Ok((
            rest,
            Form {
                kind: FormKind::Keyword {
                    auto,
                    name: name.to_string(),
                },
                span: span_to(rest),
            },
        ));
    }
    if let Ok((rest, name)) = symbol_chars(s) {
        let kind = match name {
            "nil" => FormKind::Nil,
            "true" => FormKind::Bool(true),
            "false" => FormKind::Bool(false),
            _ => FormKind::Symbol(name.to_string()),
        };
        return Ok((
            rest,
            Form {
                kind,
                span: span_to(rest),
            },
        ));
    }
    Err(err(start + c.len_utf8(), format!("unexpected character `{c}`"),
        "expected a form: a list (...), vector [...], map {...}, set #{...}, symbol, keyword, number or string"))
}

fn parse_number(tok: &str) -> Option<FormKind> {
    let t = tok.strip_suffix('N').unwrap_or(tok);
    if t.len() < tok.len() || !t.contains(['.', 'e', 'E']) {
        let t = t.strip_prefix('+').unwrap_or(t);
        return t.parse::<i64>().ok().map(FormKind::Int);
    }
    let t = tok.strip_suffix('M').unwrap_or(tok);
    t.parse::<f64>()
        .ok()
        .filter(|f| f.is_finite())
        .map(FormKind::Float)
}

/// The module's example of use: a unit test, since the module is private.
#[cfg(test)]
#[test]
fn example() {
    use crate::read::{read, FormKind};
    let forms = read("(s/defrole ::worker) ; a role").unwrap();
    assert_eq!(forms.forms.len(), 1);
    assert_eq!(forms.forms[0].to_string(), "(s/defrole ::worker)");
    assert!(matches!(forms.forms[0].kind, FormKind::List(_)));
}
