//! Printing formulas back in Owl syntax. Its own file because printing is
//! its own concern (precedence levels, quoting of atoms) that the rest of
//! the formula type never consults.

use std::fmt;

use super::{Kind, Ltl};

// Operator precedence levels for printing: 0 `|`, 1 `&`, 2 binary
// operators, 3 unary operators and atoms.
fn level(f: &Ltl) -> u8 {
    match f.kind() {
        Kind::Or(_) => 0,
        Kind::And(_) => 1,
        Kind::Implies(..)
        | Kind::Equiv(..)
        | Kind::Xor(..)
        | Kind::Until(..)
        | Kind::WeakUntil(..)
        | Kind::Release(..)
        | Kind::StrongRelease(..) => 2,
        _ => 3,
    }
}

/// Whether `s` can be written as a bare identifier (otherwise it is quoted).
pub(crate) fn is_bare_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_lowercase() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !matches!(s, "true" | "false" | "tt" | "ff")
}

fn write_atom(out: &mut fmt::Formatter<'_>, s: &str) -> fmt::Result {
    if is_bare_identifier(s) {
        return out.write_str(s);
    }
    // Quote, escaping `"` and `\` as the parser expects.
    out.write_str("\"")?;
    for c in s.chars() {
        if c == '"' || c == '\\' {
            out.write_str("\\")?;
        }
        write!(out, "{c}")?;
    }
    out.write_str("\"")
}

/// Prints re-parseable Owl syntax, with parentheses only where the
/// precedence rules need them (and around nested binary operators, for
/// readability).
impl fmt::Display for Ltl {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sub = |out: &mut fmt::Formatter<'_>, g: &Ltl, paren: bool| -> fmt::Result {
            if paren {
                write!(out, "({g})")
            } else {
                write!(out, "{g}")
            }
        };
        let bin = |out: &mut fmt::Formatter<'_>, a: &Ltl, op: &str, b: &Ltl| -> fmt::Result {
            sub(out, a, level(a) <= 2)?;
            write!(out, " {op} ")?;
            sub(out, b, level(b) <= 2)
        };
        match self.kind() {
            Kind::True => out.write_str("true"),
            Kind::False => out.write_str("false"),
            Kind::Atom(s) => write_atom(out, s),
            Kind::Not(a) => {
                out.write_str("!")?;
                sub(out, a, level(a) <= 2)
            }
            Kind::Next(a) | Kind::Finally(a) | Kind::Globally(a) => {
                let op = match self.kind() {
                    Kind::Next(_) => "X ",
                    Kind::Finally(_) => "F ",
                    _ => "G ",
                };
                out.write_str(op)?;
                sub(out, a, level(a) <= 2)
            }
            Kind::And(v) | Kind::Or(v) => {
                let op = if matches!(self.kind(), Kind::And(_)) {
                    " & "
                } else {
                    " | "
                };
                let lv = 2;
                for (i, c) in v.iter().enumerate() {
                    if i > 0 {
                        out.write_str(op)?;
                    }
                    // Binary operators are parenthesised for readability.
                    sub(out, c, level(c) <= lv)?;
                }
                Ok(())
            }
            Kind::Implies(a, b) => bin(out, a, "->", b),
            Kind::Equiv(a, b) => bin(out, a, "<->", b),
            Kind::Xor(a, b) => bin(out, a, "^", b),
            Kind::Until(a, b) => bin(out, a, "U", b),
            Kind::WeakUntil(a, b) => bin(out, a, "W", b),
            Kind::Release(a, b) => bin(out, a, "R", b),
            Kind::StrongRelease(a, b) => bin(out, a, "M", b),
        }
    }
}

impl fmt::Debug for Ltl {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(out, "Ltl({self})")
    }
}
