//! Parsing LTL in Owl syntax.
//!
//! Two small stages: a [nom] lexer turns the text into tokens with byte
//! spans, and a precedence-climbing parser turns the tokens into an
//! [`Ltl`]. The parser recurses only on parentheses and bounds that depth
//! (and the height of the resulting formula) by [`MAX_NESTING`], so no
//! input can overflow the stack; every failure is a [`ParseError`] with a
//! position, the offending text and what was expected.
//!
//! See the crate documentation for the grammar and the precedence table.

use std::fmt;

use nom::branch::alt;
use nom::bytes::complete::{tag, take_while, take_while1};
use nom::character::complete::{multispace0, one_of, satisfy};
use nom::combinator::{map, recognize, value};
use nom::sequence::pair;
use nom::{IResult, Parser};

use crate::ltl::Ltl;

/// The deepest nesting (of parentheses, and height of the formula tree)
/// that the parser accepts; deeper input is a [`ParseErrorKind::TooDeep`]
/// error rather than a stack overflow later on.
pub const MAX_NESTING: usize = 256;

/// What went wrong, as a value a caller can match on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseErrorKind {
    /// A character that starts no token (e.g. `$`, or an upper-case letter
    /// that is not an operator).
    UnexpectedCharacter,
    /// A quoted atom without its closing `"`.
    UnterminatedAtom,
    /// A token (or the end of input) where something else was expected.
    UnexpectedToken,
    /// Parentheses nested, or operators chained, more than
    /// [`MAX_NESTING`] deep.
    TooDeep,
}

/// A syntax error in a formula, with its position (1-based line and
/// column, in characters) and the offending text.
///
/// ```
/// let err = owl_lite::parse("a &\n(b U )").unwrap_err();
/// assert_eq!((err.line(), err.column()), (2, 6));
/// assert_eq!(err.found(), ")");
/// assert_eq!(err.to_string(),
///     "syntax error at line 2, column 6: expected a formula (an atom, a constant, \
///      a unary operator or '('), found ')'\n  (b U )\n       ^");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    kind: ParseErrorKind,
    line: usize,
    column: usize,
    offset: usize,
    found: String,
    expected: String,
    line_text: String,
}

impl ParseError {
    fn new(
        src: &str,
        offset: usize,
        kind: ParseErrorKind,
        found: impl Into<String>,
        expected: impl Into<String>,
    ) -> Self {
        let before = &src[..offset];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let column = src[line_start..offset].chars().count() + 1;
        let line_end = src[offset..].find('\n').map_or(src.len(), |i| offset + i);
        ParseError {
            kind,
            line,
            column,
            offset,
            found: found.into(),
            expected: expected.into(),
            line_text: src[line_start..line_end].trim_end_matches('\r').to_string(),
        }
    }

    /// The kind of error.
    pub fn kind(&self) -> &ParseErrorKind {
        &self.kind
    }
    /// 1-based line of the error.
    pub fn line(&self) -> usize {
        self.line
    }
    /// 1-based column (in characters) of the error.
    pub fn column(&self) -> usize {
        self.column
    }
    /// Byte offset of the error in the input.
    pub fn offset(&self) -> usize {
        self.offset
    }
    /// The offending text (`end of input` at the end).
    pub fn found(&self) -> &str {
        &self.found
    }
    /// What the parser expected at that point.
    pub fn expected(&self) -> &str {
        &self.expected
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let found = if self.found == END {
            END.to_string()
        } else {
            // A control character (a NUL, say) shows as its escape, not as
            // nothing; a long token is cut.
            let mut shown: String = self.found.chars().take(FOUND_CHARS).collect();
            if shown.len() < self.found.len() {
                shown.push('…');
            }
            format!("'{}'", shown.escape_debug())
        };
        if self.kind == ParseErrorKind::TooDeep {
            // Not a mistake of syntax: a limit of the parser, which the
            // reader must be told, with where it was crossed.
            writeln!(
                f,
                "nesting deeper than {MAX_NESTING} at line {}, column {}: {found} nests \
                 level {} (each parenthesis, unary operator and binary operator nests one \
                 level)",
                self.line,
                self.column,
                MAX_NESTING + 1
            )?;
        } else {
            writeln!(
                f,
                "syntax error at line {}, column {}: expected {}, found {}",
                self.line, self.column, self.expected, found
            )?;
        }
        let (text, caret) = excerpt(&self.line_text, self.column);
        writeln!(f, "  {text}")?;
        write!(f, "  {}^", " ".repeat(caret))?;
        if self.kind == ParseErrorKind::TooDeep {
            write!(
                f,
                "\n  hint: formulas are read at most {MAX_NESTING} levels deep, so that none \
                 can overflow the stack: split the property into several formulas, or nest \
                 fewer operators"
            )?;
        }
        Ok(())
    }
}

/// At most this many characters of the offending token are shown.
const FOUND_CHARS: usize = 40;
/// At most this many characters of the line are shown under an error: a
/// formula of a hundred thousand characters must not print them all (and
/// a caret as far).
const SHOWN_CHARS: usize = 100;

/// The part of `line` to show under an error at `column` (1-based, in
/// characters): at most 100 characters around the column, with `…` where
/// cut, and control characters as `�` (one column each, so that a caret
/// stays under its character); and how many characters of it come before
/// the caret. For every error display that quotes a line of a formula.
///
/// ```
/// let (text, caret) = owl_lite::ltl_parse::excerpt("a & \u{0}b", 5);
/// assert_eq!((text.as_str(), caret), ("a & \u{fffd}b", 4));
/// let long = "x".repeat(1000);
/// let (text, caret) = owl_lite::ltl_parse::excerpt(&long, 500);
/// assert!(text.chars().count() <= 102 && text.starts_with('…') && caret == 51);
/// ```
pub fn excerpt(line: &str, column: usize) -> (String, usize) {
    let chars: Vec<char> = line
        .chars()
        .map(|c| if c.is_control() { '\u{fffd}' } else { c })
        .collect();
    let at = column.saturating_sub(1).min(chars.len());
    if chars.len() <= SHOWN_CHARS {
        return (chars.into_iter().collect(), at);
    }
    let start = at.saturating_sub(SHOWN_CHARS / 2);
    let end = (start + SHOWN_CHARS).min(chars.len());
    let mut text = String::new();
    if start > 0 {
        text.push('…');
    }
    text.extend(&chars[start..end]);
    if end < chars.len() {
        text.push('…');
    }
    (text, at - start + usize::from(start > 0))
}

impl std::error::Error for ParseError {}

const END: &str = "end of input";
const EXPECT_OPERAND: &str = "a formula (an atom, a constant, a unary operator or '(')";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Bin {
    Implies,
    Equiv,
    Xor,
    Until,
    WeakUntil,
    Release,
    StrongRelease,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    True,
    False,
    Atom(String),
    Not,
    Next,
    Finally,
    Globally,
    And,
    Or,
    Bin(Bin),
    LParen,
    RParen,
}

// ---- lexer (nom) ----

fn identifier(i: &str) -> IResult<&str, &str> {
    recognize(pair(
        satisfy(|c| c.is_ascii_lowercase() || c == '_'),
        take_while(|c: char| c.is_ascii_alphanumeric() || c == '_'),
    ))
    .parse(i)
}

/// The text between double quotes; a backslash escapes the next character.
fn quoted(i: &str) -> IResult<&str, &str> {
    let (rest, _) = tag("\"").parse(i)?;
    let mut escaped = false;
    for (k, c) in rest.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '"' => return Ok((&rest[k + 1..], &rest[..k])),
            _ => {}
        }
    }
    Err(nom::Err::Failure(nom::error::Error::new(
        i,
        nom::error::ErrorKind::Char,
    )))
}

/// `\"` stands for `"` and `\\` for `\`; any other backslash is kept.
fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(&n @ ('"' | '\\')) = chars.peek() {
                out.push(n);
                chars.next();
                continue;
            }
        }
        out.push(c);
    }
    out
}

fn token(i: &str) -> IResult<&str, Tok> {
    alt((
        value(Tok::And, alt((tag("&&"), tag("&")))),
        value(Tok::Or, alt((tag("||"), tag("|")))),
        value(Tok::Bin(Bin::Implies), alt((tag("->"), tag("=>")))),
        value(Tok::Bin(Bin::Equiv), alt((tag("<->"), tag("<=>")))),
        value(Tok::Bin(Bin::Xor), tag("^")),
        value(Tok::Not, tag("!")),
        value(Tok::LParen, tag("(")),
        value(Tok::RParen, tag(")")),
        map(quoted, |s: &str| Tok::Atom(unescape(s))),
        map(identifier, |s: &str| match s {
            "true" | "tt" => Tok::True,
            "false" | "ff" => Tok::False,
            _ => Tok::Atom(s.to_string()),
        }),
        map(one_of("XFGUWRM"), |c| match c {
            'X' => Tok::Next,
            'F' => Tok::Finally,
            'G' => Tok::Globally,
            'U' => Tok::Bin(Bin::Until),
            'W' => Tok::Bin(Bin::WeakUntil),
            'R' => Tok::Bin(Bin::Release),
            _ => Tok::Bin(Bin::StrongRelease),
        }),
        // `1` and `0` are constants; other numbers are rejected below.
        map(
            take_while1(|c: char| c.is_ascii_digit()),
            |s: &str| match s {
                "1" => Tok::True,
                "0" => Tok::False,
                _ => Tok::Atom(String::new()), // placeholder, rejected by `lex`
            },
        ),
    ))
    .parse(i)
}

struct Spanned {
    tok: Tok,
    start: usize,
    end: usize,
}

fn lex(src: &str) -> Result<Vec<Spanned>, ParseError> {
    let mut out = Vec::new();
    let mut rest = src;
    loop {
        let (r, _) = multispace0::<&str, nom::error::Error<&str>>
            .parse(rest)
            .expect("multispace0 never fails");
        rest = r;
        if rest.is_empty() {
            return Ok(out);
        }
        let start = src.len() - rest.len();
        match token(rest) {
            Ok((r, tok)) => {
                let end = src.len() - r.len();
                if tok == Tok::Atom(String::new()) && !src[start..end].starts_with('"') {
                    return Err(ParseError::new(
                        src,
                        start,
                        ParseErrorKind::UnexpectedCharacter,
                        &src[start..end],
                        "an atom, a constant (the numbers 0 and 1 only) or an operator",
                    ));
                }
                out.push(Spanned { tok, start, end });
                rest = r;
            }
            Err(_) if rest.starts_with('"') => {
                let snippet: String = rest.chars().take(20).collect();
                return Err(ParseError::new(
                    src,
                    start,
                    ParseErrorKind::UnterminatedAtom,
                    snippet,
                    "a closing '\"' for this quoted atom",
                ));
            }
            Err(_) => {
                let c = rest.chars().next().expect("not empty");
                let hint = if c.is_uppercase() {
                    "an operator (upper-case letters: X F G U W R M only; atoms are \
                     lower-case or quoted)"
                } else {
                    "an atom, a constant, an operator or a parenthesis"
                };
                return Err(ParseError::new(
                    src,
                    start,
                    ParseErrorKind::UnexpectedCharacter,
                    c.to_string(),
                    hint,
                ));
            }
        }
    }
}

// ---- parser ----

/// Recursive-descent parser over the token list of one formula: `pos` is the
/// next token, `src` the text that spans and error messages point into.
struct TokenParser<'s> {
    src: &'s str,
    toks: Vec<Spanned>,
    pos: usize,
}

impl TokenParser<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|t| &t.tok)
    }

    fn error(&self, kind: ParseErrorKind, expected: &str) -> ParseError {
        match self.toks.get(self.pos) {
            Some(t) => {
                ParseError::new(self.src, t.start, kind, &self.src[t.start..t.end], expected)
            }
            None => ParseError::new(self.src, self.src.len(), kind, END, expected),
        }
    }

    fn check_height(&self, f: Ltl, at: usize) -> Result<Ltl, ParseError> {
        if f.height() > MAX_NESTING {
            let t = &self.toks[at.min(self.toks.len() - 1)];
            return Err(ParseError::new(
                self.src,
                t.start,
                ParseErrorKind::TooDeep,
                &self.src[t.start..t.end],
                format!("a formula nested at most {MAX_NESTING} deep (nesting too deep)"),
            ));
        }
        Ok(f)
    }

    /// `or := and (('|' | '||') and)*`
    fn or(&mut self, depth: usize) -> Result<Ltl, ParseError> {
        let start = self.pos;
        let mut v = vec![self.and(depth)?];
        while self.peek() == Some(&Tok::Or) {
            self.pos += 1;
            v.push(self.and(depth)?);
        }
        self.check_height(Ltl::or(v), start)
    }

    /// `and := binary (('&' | '&&') binary)*`
    fn and(&mut self, depth: usize) -> Result<Ltl, ParseError> {
        let start = self.pos;
        let mut v = vec![self.binary(depth)?];
        while self.peek() == Some(&Tok::And) {
            self.pos += 1;
            v.push(self.binary(depth)?);
        }
        self.check_height(Ltl::and(v), start)
    }

    /// `binary := unary (binop unary)*`, folded to the right.
    fn binary(&mut self, depth: usize) -> Result<Ltl, ParseError> {
        let mut operands = vec![self.unary(depth)?];
        let mut ops = Vec::new();
        while let Some(Tok::Bin(op)) = self.peek() {
            ops.push((*op, self.pos));
            self.pos += 1;
            operands.push(self.unary(depth)?);
        }
        let mut acc = operands.pop().expect("at least one operand");
        while let Some((op, at)) = ops.pop() {
            let left = operands.pop().expect("one operand per operator");
            acc = match op {
                Bin::Implies => Ltl::implies(left, acc),
                Bin::Equiv => Ltl::equiv(left, acc),
                Bin::Xor => Ltl::xor(left, acc),
                Bin::Until => Ltl::until(left, acc),
                Bin::WeakUntil => Ltl::weak_until(left, acc),
                Bin::Release => Ltl::release(left, acc),
                Bin::StrongRelease => Ltl::strong_release(left, acc),
            };
            acc = self.check_height(acc, at)?;
        }
        Ok(acc)
    }

    /// `unary := ('!' | 'X' | 'F' | 'G')* primary`
    fn unary(&mut self, depth: usize) -> Result<Ltl, ParseError> {
        let start = self.pos;
        let mut ops = Vec::new();
        while let Some(t @ (Tok::Not | Tok::Next | Tok::Finally | Tok::Globally)) = self.peek() {
            ops.push(t.clone());
            self.pos += 1;
        }
        let mut f = self.primary(depth)?;
        while let Some(op) = ops.pop() {
            f = match op {
                Tok::Not => Ltl::not(&f),
                Tok::Next => Ltl::next(f),
                Tok::Finally => Ltl::finally(f),
                _ => Ltl::globally(f),
            };
            if f.height() > MAX_NESTING {
                // The operator that added the level too many: the
                // innermost ones are applied first.
                return self.check_height(f, start + ops.len());
            }
        }
        Ok(f)
    }

    /// `primary := constant | atom | '(' or ')'`
    fn primary(&mut self, depth: usize) -> Result<Ltl, ParseError> {
        let f = match self.peek() {
            Some(Tok::True) => Ltl::tt(),
            Some(Tok::False) => Ltl::ff(),
            Some(Tok::Atom(s)) => Ltl::atom(s.clone()),
            Some(Tok::LParen) => {
                if depth >= MAX_NESTING {
                    return Err(self.error(
                        ParseErrorKind::TooDeep,
                        &format!("at most {MAX_NESTING} nested parentheses (nesting too deep)"),
                    ));
                }
                self.pos += 1;
                let f = self.or(depth + 1)?;
                if self.peek() != Some(&Tok::RParen) {
                    return Err(
                        self.error(ParseErrorKind::UnexpectedToken, "')' or a binary operator")
                    );
                }
                self.pos += 1;
                return Ok(f);
            }
            _ => return Err(self.error(ParseErrorKind::UnexpectedToken, EXPECT_OPERAND)),
        };
        self.pos += 1;
        Ok(f)
    }
}

/// Parses a formula in Owl syntax (see the crate documentation for the
/// grammar). Never panics; the whole input must be one formula.
///
/// ```
/// use owl_lite::ltl_parse::parse;
/// let f = parse("G (req -> F \"ack RECV *\")").unwrap();
/// assert_eq!(f.to_string(), "G (req -> F \"ack RECV *\")");
/// assert!(parse("a U").is_err());
/// ```
pub fn parse(text: &str) -> Result<Ltl, ParseError> {
    let toks = lex(text)?;
    let mut p = TokenParser {
        src: text,
        toks,
        pos: 0,
    };
    let f = p.or(0)?;
    if p.pos < p.toks.len() {
        let expected = if p.peek() == Some(&Tok::RParen) {
            "a binary operator or end of input (unbalanced ')')"
        } else {
            "a binary operator or end of input"
        };
        return Err(p.error(ParseErrorKind::UnexpectedToken, expected));
    }
    Ok(f)
}
