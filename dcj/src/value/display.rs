//! Printing values as Clojure's `pr-str` does, whole or within a byte
//! budget. Its own file because printing only reads values: nothing in the
//! value type depends on it but `to_string`.

use std::fmt;

use super::Value;
use crate::read::write_seq;

/// A writer that takes at most `left` more bytes, then fails.
struct Bounded {
    out: String,
    left: usize,
}

impl fmt::Write for Bounded {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        if s.len() > self.left {
            return Err(fmt::Error);
        }
        self.left -= s.len();
        self.out.push_str(s);
        Ok(())
    }
}

impl Value {
    /// The value printed, if that takes at most `max` bytes: the printing
    /// stops there, whatever the value's size.
    pub fn printed_within(&self, max: usize) -> Option<String> {
        use fmt::Write;
        let mut w = Bounded {
            out: String::new(),
            left: max,
        };
        write!(w, "{self}").ok().map(|()| w.out)
    }

    /// The value printed for a message: cut after about 60 characters.
    pub fn brief(&self) -> String {
        const SHOWN: usize = 60;
        match self.printed_within(SHOWN) {
            Some(s) => s,
            None => {
                use fmt::Write;
                let mut w = Bounded {
                    out: String::new(),
                    left: SHOWN,
                };
                let _ = write!(w, "{self}");
                let mut cut = w.out;
                while cut.len() > SHOWN - 3 {
                    cut.pop();
                }
                cut.push_str("...");
                cut
            }
        }
    }
}

/// Prints as Clojure's `pr-str` would (strings quoted).
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Nil => f.write_str("nil"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(n) => write!(f, "{n}"),
            Value::Ratio(n, d) => write!(f, "{n}/{d}"),
            Value::Float(x) => write!(f, "{x:?}"),
            Value::Str(s) => write!(f, "{s:?}"),
            Value::Keyword(k) => write!(f, ":{k}"),
            Value::Symbol(s) => f.write_str(s),
            Value::List(v) => write_seq(f, "(", v, ")"),
            Value::Set(v) => write_seq(f, "#{", v, "}"),
            Value::Map(m) => {
                f.write_str("{")?;
                for (i, (k, v)) in m.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{k} {v}")?;
                }
                f.write_str("}")
            }
            Value::Fn(c) => write!(f, "#fn[{}]", c.name),
            Value::Role(k, idx) => {
                write!(f, "(:{k}")?;
                for i in idx.iter() {
                    write!(f, " {i}")?;
                }
                f.write_str(")")
            }
        }
    }
}
