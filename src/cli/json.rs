//! Hand-written JSON for `prust check --format json`: a string escaper and
//! an object builder. The output is a few flat records, so a serializer
//! dependency would bring more code than it saves; the escaper is the one
//! part that can be wrong, and it is tested here (and the records are
//! parsed back by `tests/it/cli_json.rs`).

use std::fmt::Write as _;

/// Appends `s` as a JSON string literal (RFC 8259 §7): quotes, backslashes
/// and the control characters U+0000–U+001F are escaped; everything else,
/// non-ASCII included, is written as is (JSON text is UTF-8).
///
/// ```ignore
/// let mut out = String::new();
/// push_string(&mut out, "say \"hi\"\n");
/// assert_eq!(out, r#""say \"hi\"\n""#);
/// ```
pub fn push_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{08}' => out.push_str("\\b"),
            '\u{0c}' => out.push_str("\\f"),
            c if c < ' ' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// `s` as a JSON string literal (see [`push_string`]).
pub fn string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    push_string(&mut out, s);
    out
}

/// A JSON object written field by field, in order.
///
/// ```ignore
/// let mut o = Object::new();
/// o.str("verdict", "holds").u64("states", 3);
/// assert_eq!(o.finish(), r#"{"verdict":"holds","states":3}"#);
/// ```
pub struct Object {
    buf: String,
}

impl Default for Object {
    fn default() -> Self {
        Object::new()
    }
}

impl Object {
    /// An empty object.
    pub fn new() -> Object {
        Object {
            buf: String::from("{"),
        }
    }

    /// A field whose value is already JSON text (a nested object or array).
    pub fn raw(&mut self, key: &str, json: &str) -> &mut Object {
        if self.buf.len() > 1 {
            self.buf.push(',');
        }
        push_string(&mut self.buf, key);
        self.buf.push(':');
        self.buf.push_str(json);
        self
    }

    /// A string field.
    pub fn str(&mut self, key: &str, value: &str) -> &mut Object {
        self.raw(key, &string(value))
    }

    /// A string field, or `null`.
    pub fn opt_str(&mut self, key: &str, value: Option<&str>) -> &mut Object {
        match value {
            Some(v) => self.str(key, v),
            None => self.raw(key, "null"),
        }
    }

    /// An integer field.
    pub fn u64(&mut self, key: &str, value: u64) -> &mut Object {
        self.raw(key, &value.to_string())
    }

    /// A number field. Non-finite numbers have no JSON form: `null`.
    pub fn f64(&mut self, key: &str, value: f64) -> &mut Object {
        if value.is_finite() {
            // `Display` of an f64 never uses an exponent and always has
            // digits on both sides of a point it writes: valid JSON.
            self.raw(key, &value.to_string())
        } else {
            self.raw(key, "null")
        }
    }

    /// A boolean field.
    pub fn bool(&mut self, key: &str, value: bool) -> &mut Object {
        self.raw(key, if value { "true" } else { "false" })
    }

    /// An array of strings.
    pub fn strs<'a>(
        &mut self,
        key: &str,
        values: impl IntoIterator<Item = &'a str>,
    ) -> &mut Object {
        let items: Vec<String> = values.into_iter().map(string).collect();
        self.raw(key, &array(items))
    }

    /// The object's JSON text.
    pub fn finish(&mut self) -> String {
        let mut s = std::mem::take(&mut self.buf);
        s.push('}');
        s
    }
}

/// A JSON array of items that are already JSON text.
pub fn array(items: impl IntoIterator<Item = String>) -> String {
    let mut s = String::from("[");
    for (i, item) in items.into_iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        s.push_str(&item);
    }
    s.push(']');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_what_json_requires() {
        assert_eq!(string(""), r#""""#);
        assert_eq!(string(r#"G !"a SEND *""#), r#""G !\"a SEND *\"""#);
        assert_eq!(string(r"a\b"), r#""a\\b""#);
        assert_eq!(string("l1\nl2\r\t"), r#""l1\nl2\r\t""#);
        assert_eq!(string("\u{0}\u{1f}\u{8}\u{c}"), r#""\u0000\u001f\b\f""#);
    }

    #[test]
    fn leaves_the_rest_alone() {
        // Non-ASCII, DEL and the characters JSON allows unescaped.
        assert_eq!(string("Büchi → ω \u{7f} /'"), "\"Büchi → ω \u{7f} /'\"");
    }

    #[test]
    fn objects_and_arrays() {
        let mut o = Object::new();
        o.str("k\"", "v")
            .u64("n", 3)
            .f64("t", 0.25)
            .f64("nan", f64::NAN)
            .bool("b", false)
            .opt_str("none", None)
            .strs("roles", ["a", "b\n"])
            .raw("empty", &array([]));
        assert_eq!(
            o.finish(),
            r#"{"k\"":"v","n":3,"t":0.25,"nan":null,"b":false,"none":null,"roles":["a","b\n"],"empty":[]}"#
        );
        assert_eq!(Object::new().finish(), "{}");
        // Tiny and whole numbers print without an exponent.
        let mut o = Object::new();
        o.f64("t", 1e-7).f64("w", 2.0);
        assert_eq!(o.finish(), r#"{"t":0.0000001,"w":2}"#);
    }
}
