//! An imported specification as prust combinator source (`prust import
//! --format rust`): a starting point for a protocol maintained in Rust.
//!
//! ```
//! let imp = protocols::dcj::import_str(
//!     "(s/defsession ::ping [] (s/-->> Ping ::a ::b))", None, &[]).unwrap();
//! let src = imp.to_rust();
//! assert!(src.contains(r#".define("ping", 0, |_| msg("Ping", "a", "b"))"#), "{src}");
//! ```

use std::fmt::Write;

use super::Import;
use crate::spec::Term;

fn term(t: &Term, out: &mut String) {
    let list = |name: &str, v: &[Term], out: &mut String| {
        out.push_str(name);
        out.push_str("([");
        for (i, x) in v.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            term(x, out);
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
            term(b, out);
            out.push_str(".star()");
        }
        Term::Call(name, args) => {
            let _ = write!(out, "call({:?}, {args:?})", &**name);
        }
    }
}

impl Import {
    /// Rust source of a function `spec()` that builds the same [`Spec`](crate::Spec)
    /// with prust's combinators: the main call, the declared roles and
    /// types, and one parameterless definition per unfolded instance.
    pub fn to_rust(&self) -> String {
        let mut out = String::new();
        out.push_str("// Imported from a Discourje .dcj file by prust.\n");
        out.push_str("use protocols::spec::*;\n\n");
        let _ = writeln!(out, "/// The `{}` protocol.", self.spec.name());
        out.push_str("pub fn spec() -> Spec {\n");
        let mut main = String::new();
        term(&self.main, &mut main);
        let _ = writeln!(out, "    Spec::new({:?}, {main})", self.spec.name());
        let _ = writeln!(out, "        .roles({:?})", self.spec.declared_roles());
        let _ = writeln!(out, "        .types({:?})", self.spec.declared_types());
        for (name, t) in &self.definitions {
            let mut body = String::new();
            term(t, &mut body);
            let _ = writeln!(out, "        .define({name:?}, 0, |_| {body})");
        }
        out.push_str("}\n");
        out
    }
}
