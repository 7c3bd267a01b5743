//! An imported specification as prust combinator source (`prust import
//! --format rust`): a starting point for a protocol maintained in Rust.
//!
//! The source compiles as it is in a crate that depends on `prust` (it
//! imports `prust::spec::*`), and it is laid out as rustfmt would lay it
//! out, near enough: a call that fits in a line of [`WIDTH`] columns stays
//! on one line, a longer `seq`, `alt` or `par` puts one term a line,
//! indented by four spaces, with a trailing comma.
//!
//! ```
//! let imp = dcj::import_str(
//!     "(s/defsession ::ping [] (s/-->> Ping ::a ::b))", None, &[]).unwrap();
//! let src = imp.to_rust();
//! assert!(src.contains("use prust::spec::*;"), "{src}");
//! assert!(src.contains(r#"        .define("ping", 0, |_| msg("Ping", "a", "b"))"#), "{src}");
//! ```

use std::fmt::Write;

use super::Import;
use protocols::spec::Term;

/// The widest line the layout aims for (rustfmt's default `max_width`).
pub const WIDTH: usize = 100;

/// One level of indentation.
const INDENT: usize = 4;

/// The widest list of arguments or array items kept on one line
/// (rustfmt's `fn_call_width` and `array_width`).
const LIST_WIDTH: usize = 60;

/// Array items of string literals at most this wide are packed several to
/// a line when the array does not fit on one (rustfmt's
/// `short_array_element_width_threshold`).
const SHORT_ITEM: usize = 10;

/// `t` on one line.
fn inline(t: &Term, out: &mut String) {
    let list = |name: &str, v: &[Term], out: &mut String| {
        out.push_str(name);
        out.push_str("([");
        for (i, x) in v.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            inline(x, out);
        }
        out.push_str("])");
    };
    match t {
        Term::End => out.push_str("end()"),
        Term::Comm { ty, from, to, sync } => {
            let f = if *sync { "sync" } else { "msg" };
            let _ = write!(out, "{f}({:?}, {:?}, {:?})", &**ty, from.name(), to.name());
        }
        Term::Close { from, to } => {
            let _ = write!(out, "close({:?}, {:?})", from.name(), to.name());
        }
        Term::Seq(v) => list("seq", v, out),
        Term::Alt(v) => list("alt", v, out),
        Term::Par(v) => list("par", v, out),
        Term::Star(b) => {
            inline(b, out);
            out.push_str(".star()");
        }
        Term::Call(name, args) => {
            let _ = write!(out, "call({:?}, {args:?})", &**name);
        }
    }
}

/// The width of the items of `seq([..])`, `alt([..])` or `par([..])` on
/// one line (what [`LIST_WIDTH`] bounds); 0 for any other term.
fn items_width(t: &Term) -> usize {
    let mut one = String::new();
    match t {
        Term::Seq(_) | Term::Alt(_) | Term::Par(_) => {
            inline(t, &mut one);
            // Less `seq([` and `])`.
            one.chars().count() - 7
        }
        _ => 0,
    }
}

/// `t` written at column `col` of a line indented by `indent`, followed on
/// its last line by `tail` more characters (a `,` or a `)`): on one line if
/// that fits in [`WIDTH`] and its items in [`LIST_WIDTH`], else a
/// `seq`/`alt`/`par` with one term a line (a list of one term keeps it in
/// place: `alt([seq([`). Leaves (a message, a close, a call) are never
/// broken.
fn term(t: &Term, col: usize, indent: usize, tail: usize, out: &mut String) {
    layout(t, col, indent, tail, false, out);
}

/// [`term`], and with `broken` a list laid out one term a line even where
/// it would fit (the only term of a list that did not fit).
fn layout(t: &Term, col: usize, indent: usize, tail: usize, broken: bool, out: &mut String) {
    let mut one = String::new();
    inline(t, &mut one);
    let list = matches!(t, Term::Seq(_) | Term::Alt(_) | Term::Par(_));
    if !(broken && list)
        && col + one.chars().count() + tail <= WIDTH
        && items_width(t) <= LIST_WIDTH
    {
        out.push_str(&one);
        return;
    }
    let (name, v) = match t {
        Term::Seq(v) => ("seq", v),
        Term::Alt(v) => ("alt", v),
        Term::Par(v) => ("par", v),
        Term::Star(b) => {
            term(b, col, indent, tail + ".star()".len(), out);
            out.push_str(".star()");
            return;
        }
        _ => {
            out.push_str(&one);
            return;
        }
    };
    if let [only] = &v[..] {
        let _ = write!(out, "{name}([");
        layout(only, col + name.len() + 2, indent, tail + 2, true, out);
        out.push_str("])");
        return;
    }
    let inner = indent + INDENT;
    let _ = writeln!(out, "{name}([");
    for x in v {
        out.push_str(&" ".repeat(inner));
        term(x, inner, inner, 1, out);
        out.push_str(",\n");
    }
    out.push_str(&" ".repeat(indent));
    out.push_str("])");
}

/// `items` as an array of string literals at column `col` of a line
/// indented by `indent`, followed by `tail` characters: on one line if it
/// fits (and its items in [`LIST_WIDTH`]), else one item a line, or as
/// many as fit when every item is short ([`SHORT_ITEM`]).
fn strings(items: &[String], col: usize, indent: usize, tail: usize) -> String {
    let one = format!("{items:?}");
    let width = one.chars().count();
    if col + width + tail <= WIDTH && width - 2 <= LIST_WIDTH {
        return one;
    }
    let literals: Vec<String> = items.iter().map(|i| format!("{i:?}")).collect();
    let short = literals.iter().all(|l| l.chars().count() <= SHORT_ITEM);
    let inner = indent + INDENT;
    let mut out = String::from("[");
    let mut line = WIDTH; // no line open yet
    for l in &literals {
        let w = l.chars().count();
        // A space, the item and its comma.
        if short && line + 1 + w < WIDTH {
            out.push(' ');
            line += 1;
        } else {
            out.push('\n');
            out.push_str(&" ".repeat(inner));
            line = inner;
        }
        out.push_str(l);
        out.push(',');
        line += w + 1;
    }
    out.push('\n');
    out.push_str(&" ".repeat(indent));
    out.push(']');
    out
}

impl Import {
    /// Rust source of a function `spec()` that builds the same [`Spec`](protocols::Spec)
    /// with prust's combinators: the main call, the declared roles and
    /// types, and one parameterless definition per unfolded instance. It
    /// compiles as it is in a crate that depends on `prust`, laid out as
    /// rustfmt would lay it out, near enough: a call that fits in a line
    /// of 100 columns stays on one line, a longer `seq`, `alt` or `par` puts
    /// one term a line.
    pub fn to_rust(&self) -> String {
        let mut out = String::new();
        out.push_str("// Imported from a Discourje .dcj file by prust.\n");
        out.push_str("use prust::spec::*;\n\n");
        let _ = writeln!(out, "/// The `{}` protocol.", self.spec.name());
        out.push_str("pub fn spec() -> Spec {\n");
        let name = format!("{:?}", self.spec.name());
        let mut main = String::new();
        inline(&self.main, &mut main);
        // The methods of the chain go on lines of their own, one level in
        // from `Spec::new` when its arguments fit on its line, else at its
        // level under the `)` that closes them.
        let args = name.chars().count() + 2 + main.chars().count();
        let chain = if args <= LIST_WIDTH {
            let head = format!("    Spec::new({name}, ");
            out.push_str(&head);
            term(&self.main, head.len(), INDENT, 1, &mut out);
            out.push_str(")\n");
            2 * INDENT
        } else {
            let _ = write!(out, "    Spec::new(\n        {name},\n        ");
            term(&self.main, 2 * INDENT, 2 * INDENT, 1, &mut out);
            out.push_str(",\n    )\n");
            INDENT
        };
        for (method, items) in [
            ("roles", self.spec.declared_roles()),
            ("types", self.spec.declared_types()),
        ] {
            let head = format!("{}.{method}(", " ".repeat(chain));
            let list = strings(items, head.len(), chain, 1);
            let _ = writeln!(out, "{head}{list})");
        }
        for (name, t) in &self.definitions {
            let head = format!("{}.define({name:?}, 0, |_| ", " ".repeat(chain));
            let mut one = String::new();
            inline(t, &mut one);
            // The arguments: less `        .define(` and `|_| `.
            let args = head.chars().count() - chain - ".define(".len() + one.chars().count();
            // The body and the `)` after it.
            if head.chars().count() + one.chars().count() < WIDTH && args <= LIST_WIDTH {
                let _ = writeln!(out, "{head}{one})");
            } else {
                // A body that does not fit goes in a block of its own, as
                // rustfmt puts it.
                let body = chain + INDENT;
                let _ = write!(out, "{head}{{\n{}", " ".repeat(body));
                term(t, body, body, 0, &mut out);
                let _ = writeln!(out, "\n{}}})", " ".repeat(chain));
            }
        }
        out.push_str("}\n");
        out
    }
}
