//! The string builtins (`str`, `subs`, `name`, `keyword`,
//! `.replaceFirst`) and the small regular expressions `.replaceFirst`
//! supports.

use std::rc::Rc;

use super::super::{Ctx, MAX_WEIGHT, R};
use crate::names::local_name;
use crate::value::Value;
use crate::Span;

impl Ctx<'_> {
    /// The string builtins: `str`, `subs`, `name`, `keyword` and
    /// `.replaceFirst` (with the regular expressions it supports).
    pub(super) fn string_builtin(&mut self, name: &str, args: Vec<Value>, span: Span) -> R<Value> {
        let n = args.len();
        let need = |ok: bool| self.need_args(ok, name, n, span);
        Ok(match name {
            "str" => {
                // The pieces first (each printed within the bound), then
                // their total length, then the string.
                let mut pieces: Vec<Rc<str>> = Vec::with_capacity(n);
                let mut total = 0u64;
                for a in &args {
                    let piece: Rc<str> = match a {
                        Value::Nil => continue,
                        Value::Str(x) => x.clone(),
                        other => Rc::from(self.printed(other, span)?),
                    };
                    total = total.saturating_add(piece.len() as u64);
                    pieces.push(piece);
                }
                self.string_room(total, span)?;
                let mut s = String::with_capacity(total as usize);
                for p in &pieces {
                    s.push_str(p);
                }
                Value::Str(Rc::from(s))
            }
            "subs" => {
                need(n == 2 || n == 3)?;
                let Value::Str(s) = &args[0] else {
                    return Err(self.thrown(span, "subs takes a string".into()));
                };
                self.string_room(s.len() as u64, span)?;
                let chars: Vec<char> = s.chars().collect();
                let a = self.int(&args[1], span)?;
                let b = if n == 3 {
                    self.int(&args[2], span)?
                } else {
                    chars.len() as i64
                };
                if a < 0 || b < a || b as usize > chars.len() {
                    return Err(self.thrown(span, "string index out of range".into()));
                }
                Value::Str(Rc::from(
                    chars[a as usize..b as usize].iter().collect::<String>(),
                ))
            }
            "name" => {
                need(n == 1)?;
                match &args[0] {
                    Value::Keyword(k) | Value::Symbol(k) => Value::Str(Rc::from(local_name(k))),
                    Value::Str(s) => Value::Str(s.clone()),
                    other => return Err(self.thrown(span, format!("name of {}", other.kind()))),
                }
            }
            "keyword" => {
                need(n == 1)?;
                match &args[0] {
                    Value::Str(s) | Value::Symbol(s) => Value::Keyword(s.clone()),
                    Value::Keyword(k) => Value::Keyword(k.clone()),
                    _ => Value::Nil,
                }
            }
            ".replaceFirst" => {
                need(n == 3)?;
                let (Value::Str(s), Value::Str(pat), Value::Str(rep)) =
                    (&args[0], &args[1], &args[2])
                else {
                    return Err(self.thrown(span, ".replaceFirst takes three strings".into()));
                };
                // The naive search compares the pattern at every position.
                self.charge(
                    super::walk_work((s.len() as u64 + 1).saturating_mul(pat.len() as u64 + 1)),
                    span,
                )?;
                self.string_room((s.len() + rep.len()) as u64, span)?;
                let Some(m) = simple_regex_find(pat, s) else {
                    return match simple_regex_supported(pat) {
                        true => Ok(Value::Str(s.clone())),
                        false => Err(self.error(
                            span,
                            format!("regular expression `{pat}` is not supported"),
                            Some("supported: literal characters, `.`, `^` and `$`".into()),
                        )),
                    };
                };
                Value::Str(Rc::from(format!("{}{rep}{}", &s[..m.0], &s[m.1..])))
            }
            _ => return Err(self.unsupported(name, span)),
        })
    }

    /// Room for a string of `len` bytes about to be made at `span`: counts
    /// a step a character, an error past [`MAX_WEIGHT`] (a string doubled
    /// in a loop), a limit past the memory bound, before allocating.
    fn string_room(&mut self, len: u64, span: Span) -> R<()> {
        if len >= MAX_WEIGHT {
            return Err(self.error(
                span,
                format!("a string of {len} characters (more than {MAX_WEIGHT})"),
                Some("does a loop double a string, as (str x x) does?".into()),
            ));
        }
        self.charge(super::copy_work(len), span)?;
        self.check_limits_with(len as usize, span)
    }
}

fn simple_regex_supported(pat: &str) -> bool {
    !pat.chars().any(|c| "*+?()[]{}|\\".contains(c))
}

/// The first match of a regular expression made of literal characters,
/// `.` (any character), `^` and `$`: byte range in `s`.
fn simple_regex_find(pat: &str, s: &str) -> Option<(usize, usize)> {
    if !simple_regex_supported(pat) {
        return None;
    }
    let anchored_start = pat.starts_with('^');
    let anchored_end = pat.ends_with('$');
    let core: Vec<char> = pat
        .trim_start_matches('^')
        .trim_end_matches('$')
        .chars()
        .collect();
    let idx: Vec<(usize, char)> = s.char_indices().collect();
    let starts: Vec<usize> = if anchored_start {
        vec![0]
    } else {
        (0..=idx.len()).collect()
    };
    for st in starts {
        if st + core.len() > idx.len() {
            continue;
        }
        let ok = core
            .iter()
            .enumerate()
            .all(|(k, pc)| *pc == '.' || idx[st + k].1 == *pc);
        let end = st + core.len();
        if ok && (!anchored_end || end == idx.len()) {
            let b0 = idx.get(st).map_or(s.len(), |x| x.0);
            let b1 = idx.get(end).map_or(s.len(), |x| x.0);
            return Some((b0, b1));
        }
    }
    None
}
