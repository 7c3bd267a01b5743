//! A strict JSON parser (RFC 8259) for the command-line tests
//! (`tests/cli*.rs`): it checks that what `prust` writes is JSON, and
//! lets the tests read it back. Test-only; written here once.

use std::process::Output;

/// A JSON value.
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number.
    Num(f64),
    /// A string, its escapes read.
    Str(String),
    /// An array.
    Arr(Vec<Json>),
    /// An object, its fields in the order written (duplicates kept, so
    /// that [`Json::get`] can refuse them).
    Obj(Vec<(String, Json)>),
}

impl Json {
    /// Parses `text`, one JSON value with white space around it, or says
    /// where it is not JSON.
    pub fn parse(text: &str) -> Result<Json, String> {
        let mut p = JsonParser {
            s: text.as_bytes(),
            i: 0,
        };
        let v = p.value()?;
        p.ws();
        if p.i != p.s.len() {
            return Err(format!("trailing text at byte {}", p.i));
        }
        Ok(v)
    }

    /// The value of `key` in this object; panics if it is not an object,
    /// has no such key or has it twice.
    pub fn get(&self, key: &str) -> &Json {
        match self {
            Json::Obj(fields) => {
                let mut found = fields.iter().filter(|(k, _)| k == key);
                let v = found.next().map(|(_, v)| v);
                assert!(found.next().is_none(), "duplicate key {key}");
                v.unwrap_or_else(|| panic!("no {key:?} in {self:?}"))
            }
            _ => panic!("{self:?} is not an object"),
        }
    }

    /// Whether this is an object with the key `key`.
    pub fn has(&self, key: &str) -> bool {
        matches!(self, Json::Obj(f) if f.iter().any(|(k, _)| k == key))
    }

    /// This string; panics if it is not one.
    pub fn str(&self) -> &str {
        match self {
            Json::Str(s) => s,
            _ => panic!("{self:?} is not a string"),
        }
    }

    /// This number; panics if it is not one.
    pub fn num(&self) -> f64 {
        match self {
            Json::Num(n) => *n,
            _ => panic!("{self:?} is not a number"),
        }
    }

    /// This array; panics if it is not one.
    pub fn arr(&self) -> &[Json] {
        match self {
            Json::Arr(a) => a,
            _ => panic!("{self:?} is not an array"),
        }
    }
}

struct JsonParser<'a> {
    s: &'a [u8],
    i: usize,
}

impl JsonParser<'_> {
    fn ws(&mut self) {
        while matches!(self.s.get(self.i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    fn eat(&mut self, lit: &str) -> bool {
        if self.s[self.i..].starts_with(lit.as_bytes()) {
            self.i += lit.len();
            true
        } else {
            false
        }
    }

    fn value(&mut self) -> Result<Json, String> {
        self.ws();
        let at = self.i;
        match self.s.get(self.i) {
            Some(b'{') => {
                self.i += 1;
                let mut fields = Vec::new();
                self.ws();
                if self.eat("}") {
                    return Ok(Json::Obj(fields));
                }
                loop {
                    self.ws();
                    let Json::Str(k) = self.value()? else {
                        return Err(format!("key expected at byte {at}"));
                    };
                    self.ws();
                    if !self.eat(":") {
                        return Err(format!(": expected at byte {}", self.i));
                    }
                    fields.push((k, self.value()?));
                    self.ws();
                    if self.eat("}") {
                        return Ok(Json::Obj(fields));
                    }
                    if !self.eat(",") {
                        return Err(format!(", or }} expected at byte {}", self.i));
                    }
                }
            }
            Some(b'[') => {
                self.i += 1;
                let mut items = Vec::new();
                self.ws();
                if self.eat("]") {
                    return Ok(Json::Arr(items));
                }
                loop {
                    items.push(self.value()?);
                    self.ws();
                    if self.eat("]") {
                        return Ok(Json::Arr(items));
                    }
                    if !self.eat(",") {
                        return Err(format!(", or ] expected at byte {}", self.i));
                    }
                }
            }
            Some(b'"') => {
                self.i += 1;
                let mut out = String::new();
                loop {
                    let c = *self.s.get(self.i).ok_or("unterminated string")?;
                    self.i += 1;
                    match c {
                        b'"' => return Ok(Json::Str(out)),
                        b'\\' => {
                            let e = *self.s.get(self.i).ok_or("unterminated escape")?;
                            self.i += 1;
                            match e {
                                b'"' => out.push('"'),
                                b'\\' => out.push('\\'),
                                b'/' => out.push('/'),
                                b'b' => out.push('\u{8}'),
                                b'f' => out.push('\u{c}'),
                                b'n' => out.push('\n'),
                                b'r' => out.push('\r'),
                                b't' => out.push('\t'),
                                b'u' => {
                                    let hex = std::str::from_utf8(&self.s[self.i..self.i + 4])
                                        .map_err(|e| e.to_string())?;
                                    let code =
                                        u32::from_str_radix(hex, 16).map_err(|e| e.to_string())?;
                                    self.i += 4;
                                    // prust escapes only control characters:
                                    // no surrogate pairs to join.
                                    out.push(char::from_u32(code).ok_or("surrogate")?);
                                }
                                _ => return Err(format!("bad escape at byte {}", self.i)),
                            }
                        }
                        c if c < 0x20 => {
                            return Err(format!("raw control character at byte {}", self.i))
                        }
                        _ => {
                            // Copy one whole UTF-8 character.
                            let start = self.i - 1;
                            let len = match c {
                                0..=0x7f => 1,
                                0xc0..=0xdf => 2,
                                0xe0..=0xef => 3,
                                _ => 4,
                            };
                            let ch = std::str::from_utf8(&self.s[start..start + len])
                                .map_err(|e| e.to_string())?;
                            out.push_str(ch);
                            self.i = start + len;
                        }
                    }
                }
            }
            Some(b'-' | b'0'..=b'9') => {
                let start = self.i;
                self.eat("-");
                if !self.eat("0") {
                    let d = self.i;
                    while matches!(self.s.get(self.i), Some(b'0'..=b'9')) {
                        self.i += 1;
                    }
                    if d == self.i {
                        return Err(format!("digit expected at byte {d}"));
                    }
                }
                if self.eat(".") {
                    let d = self.i;
                    while matches!(self.s.get(self.i), Some(b'0'..=b'9')) {
                        self.i += 1;
                    }
                    if d == self.i {
                        return Err(format!("digit expected at byte {d}"));
                    }
                }
                if matches!(self.s.get(self.i), Some(b'e' | b'E')) {
                    self.i += 1;
                    let _ = self.eat("+") || self.eat("-");
                    while matches!(self.s.get(self.i), Some(b'0'..=b'9')) {
                        self.i += 1;
                    }
                }
                let text = std::str::from_utf8(&self.s[start..self.i]).unwrap();
                text.parse()
                    .map(Json::Num)
                    .map_err(|e| format!("{text}: {e}"))
            }
            _ if self.eat("true") => Ok(Json::Bool(true)),
            _ if self.eat("false") => Ok(Json::Bool(false)),
            _ if self.eat("null") => Ok(Json::Null),
            _ => Err(format!("value expected at byte {at}")),
        }
    }
}

/// The JSON Lines of `prust check … --format json`: each line parsed.
pub fn json_lines(o: &Output) -> Vec<Json> {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| Json::parse(l).unwrap_or_else(|e| panic!("{e} in\n{l}")))
        .collect()
}

/// The first string field `key` in `text`, found as text (`"key":"`), its
/// escapes `\"`, `\\` and `\n` read: for a test that looks into a piece
/// of JSON which need not be a whole value (a page's API answer cut at
/// some point). Panics, as a test should, when there is none.
pub fn first_string_field(text: &str, key: &str) -> String {
    let at = text
        .find(&format!("\"{key}\":\""))
        .unwrap_or_else(|| panic!("no {key} in {text}"));
    let mut out = String::new();
    let mut chars = text[at + key.len() + 4..].chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => return out,
            '\\' => match chars.next() {
                Some('n') => out.push('\n'),
                Some(c) => out.push(c),
                None => break,
            },
            c => out.push(c),
        }
    }
    panic!("unterminated {key} in {text}")
}
