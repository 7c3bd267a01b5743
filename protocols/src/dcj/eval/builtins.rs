//! The core library that expressions may call (`range`, `set`, `disj`,
//! `map`, `str`, `Math/pow`, `power-set`, ...): what each builtin computes
//! and the argument checks that turn misuse into errors or exceptions.

use std::rc::Rc;

use super::num::Num;
use super::{Ctx, R};
use crate::dcj::names::local_name;
use crate::dcj::value::Value;
use crate::dcj::Span;

pub(super) const BUILTINS: &[&str] = &[
    "+",
    "-",
    "*",
    "/",
    "inc",
    "dec",
    "mod",
    "rem",
    "quot",
    "max",
    "min",
    "abs",
    "=",
    "not=",
    "==",
    "<",
    ">",
    "<=",
    ">=",
    "not",
    "zero?",
    "pos?",
    "neg?",
    "even?",
    "odd?",
    "identity",
    "range",
    "set",
    "hash-set",
    "list",
    "vector",
    "vec",
    "seq",
    "count",
    "empty?",
    "first",
    "second",
    "last",
    "rest",
    "next",
    "nth",
    "cons",
    "conj",
    "disj",
    "contains?",
    "remove",
    "filter",
    "map",
    "into",
    "concat",
    "reverse",
    "sort",
    "distinct",
    "union",
    "difference",
    "intersection",
    "power-set",
    "get",
    "reduce",
    "every?",
    "some",
    "str",
    "subs",
    "long",
    "int",
    "double",
    "name",
    "keyword",
    "nil?",
    "some?",
    "Math/ceil",
    "Math/floor",
    "Math/sqrt",
    "Math/pow",
    "Math/abs",
    "Math/round",
    "Long/parseLong",
    "Integer/parseInt",
    "Long/toBinaryString",
    "Integer/toBinaryString",
    ".replaceFirst",
    "empty-set",
];

impl Ctx<'_> {
    pub(super) fn coll(&self, v: &Value, span: Span) -> R<Vec<Value>> {
        v.items().ok_or_else(|| {
            self.thrown(
                span,
                format!("expected a collection, found {} `{v}`", v.kind()),
            )
        })
    }

    pub(super) fn builtin(&mut self, name: &str, args: Vec<Value>, span: Span) -> R<Value> {
        let n = args.len();
        let need = |ok: bool| -> R<()> {
            if ok {
                Ok(())
            } else {
                Err(self.thrown(span, format!("wrong number of arguments ({n}) to `{name}`")))
            }
        };
        use std::cmp::Ordering::*;
        Ok(match name {
            "+" | "-" | "*" | "/" => self.arith(name, &args, span)?,
            "inc" | "dec" => {
                need(n == 1)?;
                self.arith(
                    if name == "inc" { "+" } else { "-" },
                    &[args[0].clone(), Value::Int(1)],
                    span,
                )?
            }
            "mod" | "rem" | "quot" => {
                need(n == 2)?;
                let (a, b) = (self.int(&args[0], span)?, self.int(&args[1], span)?);
                if b == 0 {
                    return Err(self.thrown(span, "divide by zero".into()));
                }
                Value::Int(match name {
                    "mod" => a
                        .checked_rem_euclid(b)
                        .map(|r| if r != 0 && b < 0 { r + b } else { r })
                        .unwrap_or(0),
                    "rem" => a.checked_rem(b).unwrap_or(0),
                    _ => a
                        .checked_div(b)
                        .ok_or_else(|| self.thrown(span, "integer overflow".into()))?,
                })
            }
            "max" | "min" => {
                need(n >= 1)?;
                let mut best = args[0].clone();
                for x in &args[1..] {
                    let o = self.compare(x, &best, span)?;
                    if (name == "max" && o == Greater) || (name == "min" && o == Less) {
                        best = x.clone();
                    }
                }
                best
            }
            "abs" | "Math/abs" => {
                need(n == 1)?;
                match &args[0] {
                    Value::Int(x) => Value::Int(
                        x.checked_abs()
                            .ok_or_else(|| self.thrown(span, "integer overflow".into()))?,
                    ),
                    Value::Float(x) => Value::Float(x.abs()),
                    other => {
                        return Err(self.thrown(span, format!("expected a number, found `{other}`")))
                    }
                }
            }
            "=" => Value::Bool(args.windows(2).all(|w| w[0] == w[1])),
            "not=" => Value::Bool(!args.windows(2).all(|w| w[0] == w[1])),
            "==" | "<" | ">" | "<=" | ">=" => {
                let mut ok = true;
                for w in args.windows(2) {
                    let o = self.compare(&w[0], &w[1], span)?;
                    ok &= match name {
                        "==" => o == Equal,
                        "<" => o == Less,
                        ">" => o == Greater,
                        "<=" => o != Greater,
                        _ => o != Less,
                    };
                }
                Value::Bool(ok)
            }
            "not" => {
                need(n == 1)?;
                Value::Bool(!args[0].truthy())
            }
            "nil?" => {
                need(n == 1)?;
                Value::Bool(matches!(args[0], Value::Nil))
            }
            "some?" => {
                need(n == 1)?;
                Value::Bool(!matches!(args[0], Value::Nil))
            }
            "zero?" | "pos?" | "neg?" => {
                need(n == 1)?;
                let o = self.compare(&args[0], &Value::Int(0), span)?;
                Value::Bool(match name {
                    "zero?" => o == Equal,
                    "pos?" => o == Greater,
                    _ => o == Less,
                })
            }
            "even?" | "odd?" => {
                need(n == 1)?;
                Value::Bool((self.int(&args[0], span)? % 2 == 0) == (name == "even?"))
            }
            "identity" => {
                need(n == 1)?;
                args[0].clone()
            }
            "range" => {
                need((1..=3).contains(&n))?;
                let ints: Vec<i64> = args.iter().map(|a| self.int(a, span)).collect::<R<_>>()?;
                let (start, end, step) = match ints.as_slice() {
                    [e] => (0, *e, 1),
                    [s, e] => (*s, *e, 1),
                    [s, e, st] => (*s, *e, *st),
                    _ => unreachable!("checked"),
                };
                if step == 0 {
                    return Err(self.error(span, "(range a b 0) is infinite".into(), None));
                }
                let len = if (step > 0 && end > start) || (step < 0 && end < start) {
                    (i128::from(end) - i128::from(start) + i128::from(step)
                        - i128::from(step.signum()))
                        / i128::from(step)
                } else {
                    0
                };
                self.bounded(len, span)?;
                Value::list(
                    (0..len as i64)
                        .map(|i| Value::Int(start + i * step))
                        .collect(),
                )
            }
            "set" | "into-set" => {
                need(n == 1)?;
                Value::set(self.coll(&args[0], span)?)
            }
            "hash-set" => Value::set(args),
            "list" | "vector" => Value::list(args),
            "vec" => {
                need(n == 1)?;
                Value::list(self.coll(&args[0], span)?)
            }
            "seq" => {
                need(n == 1)?;
                let v = self.coll(&args[0], span)?;
                if v.is_empty() {
                    Value::Nil
                } else {
                    Value::list(v)
                }
            }
            "count" => {
                need(n == 1)?;
                Value::Int(self.coll(&args[0], span)?.len() as i64)
            }
            "empty?" => {
                need(n == 1)?;
                Value::Bool(self.coll(&args[0], span)?.is_empty())
            }
            "first" | "second" | "last" => {
                need(n == 1)?;
                let v = self.coll(&args[0], span)?;
                let x = match name {
                    "first" => v.first(),
                    "second" => v.get(1),
                    _ => v.last(),
                };
                x.cloned().unwrap_or(Value::Nil)
            }
            "rest" | "next" => {
                need(n == 1)?;
                let v = self.coll(&args[0], span)?;
                let r: Vec<Value> = v.into_iter().skip(1).collect();
                if r.is_empty() && name == "next" {
                    Value::Nil
                } else {
                    Value::list(r)
                }
            }
            "nth" => {
                need(n == 2 || n == 3)?;
                let v = self.coll(&args[0], span)?;
                let i = self.int(&args[1], span)?;
                match usize::try_from(i).ok().and_then(|i| v.get(i)) {
                    Some(x) => x.clone(),
                    None if n == 3 => args[2].clone(),
                    None => return Err(self.thrown(span, format!("index {i} out of bounds"))),
                }
            }
            "cons" => {
                need(n == 2)?;
                let mut v = vec![args[0].clone()];
                v.extend(self.coll(&args[1], span)?);
                Value::list(v)
            }
            "conj" | "disj" => {
                need(n >= 1)?;
                let is_set = matches!(args[0], Value::Set(_)) || name == "disj";
                let mut v = self.coll(&args[0], span)?;
                if name == "conj" {
                    v.extend(args[1..].iter().cloned());
                } else {
                    v.retain(|x| !args[1..].contains(x));
                }
                if is_set {
                    Value::set(v)
                } else {
                    Value::list(v)
                }
            }
            "contains?" => {
                need(n == 2)?;
                match &args[0] {
                    Value::Map(m) => Value::Bool(m.iter().any(|(k, _)| *k == args[1])),
                    Value::List(v) => Value::Bool(
                        matches!(args[1], Value::Int(i) if i >= 0 && (i as usize) < v.len()),
                    ),
                    other => Value::Bool(self.coll(other, span)?.contains(&args[1])),
                }
            }
            "remove" | "filter" | "map" | "every?" | "some" => {
                need(n == 2)?;
                let f = args[0].clone();
                let v = self.coll(&args[1], span)?;
                let mut out = Vec::new();
                for x in v {
                    let r = self.apply(f.clone(), vec![x.clone()], span)?;
                    match name {
                        "map" => out.push(r),
                        "filter" if r.truthy() => out.push(x),
                        "remove" if !r.truthy() => out.push(x),
                        "every?" if !r.truthy() => return Ok(Value::Bool(false)),
                        "some" if r.truthy() => return Ok(r),
                        _ => {}
                    }
                }
                match name {
                    "every?" => Value::Bool(true),
                    "some" => Value::Nil,
                    _ => Value::list(out),
                }
            }
            "reduce" => {
                need(n == 2 || n == 3)?;
                let f = args[0].clone();
                let mut v = self.coll(&args[n - 1], span)?.into_iter();
                let mut acc = if n == 3 {
                    args[1].clone()
                } else {
                    match v.next() {
                        Some(x) => x,
                        None => return self.apply(f, vec![], span),
                    }
                };
                for x in v {
                    acc = self.apply(f.clone(), vec![acc, x], span)?;
                }
                acc
            }
            "into" => {
                need(n == 2)?;
                let mut v = self.coll(&args[0], span)?;
                v.extend(self.coll(&args[1], span)?);
                if matches!(args[0], Value::Set(_)) {
                    Value::set(v)
                } else {
                    Value::list(v)
                }
            }
            "concat" => {
                let mut v = Vec::new();
                for a in &args {
                    v.extend(self.coll(a, span)?);
                }
                Value::list(v)
            }
            "reverse" => {
                need(n == 1)?;
                let mut v = self.coll(&args[0], span)?;
                v.reverse();
                Value::list(v)
            }
            "sort" => {
                need(n == 1)?;
                let mut v = self.coll(&args[0], span)?;
                let mut bad = None;
                v.sort_by(|a, b| {
                    self.compare(a, b, span).unwrap_or_else(|_| {
                        bad = Some(());
                        Equal
                    })
                });
                if bad.is_some() {
                    return Err(self.thrown(span, "sort compares numbers only".into()));
                }
                Value::list(v)
            }
            "distinct" => {
                need(n == 1)?;
                let mut out: Vec<Value> = Vec::new();
                for x in self.coll(&args[0], span)? {
                    if !out.contains(&x) {
                        out.push(x);
                    }
                }
                Value::list(out)
            }
            "union" | "difference" | "intersection" => {
                need(n >= 1)?;
                let mut v = self.coll(&args[0], span)?;
                for a in &args[1..] {
                    let other = self.coll(a, span)?;
                    match name {
                        "union" => v.extend(other),
                        "difference" => v.retain(|x| !other.contains(x)),
                        _ => v.retain(|x| other.contains(x)),
                    }
                }
                Value::set(v)
            }
            "power-set" => {
                need(n == 1)?;
                let v = match &args[0] {
                    Value::Set(_) => self.coll(&args[0], span)?,
                    other => match Value::set(self.coll(other, span)?) {
                        Value::Set(s) => s.as_ref().clone(),
                        _ => unreachable!("set"),
                    },
                };
                if v.len() > 20 {
                    return Err(self.error(
                        span,
                        format!("the power set of {} elements is too large", v.len()),
                        None,
                    ));
                }
                let subsets = (0..1u32 << v.len())
                    .map(|bits| {
                        Value::set(
                            v.iter()
                                .enumerate()
                                .filter(|(i, _)| bits & (1 << i) != 0)
                                .map(|(_, x)| x.clone())
                                .collect(),
                        )
                    })
                    .collect();
                Value::set(subsets)
            }
            "get" => {
                need(n == 2 || n == 3)?;
                let dflt = args.get(2).cloned().unwrap_or(Value::Nil);
                match &args[0] {
                    Value::Map(m) => m
                        .iter()
                        .find(|(k, _)| *k == args[1])
                        .map_or(dflt, |(_, v)| v.clone()),
                    Value::Set(s) => s.iter().find(|x| **x == args[1]).cloned().unwrap_or(dflt),
                    Value::List(v) => match &args[1] {
                        Value::Int(i) if *i >= 0 => v.get(*i as usize).cloned().unwrap_or(dflt),
                        _ => dflt,
                    },
                    _ => dflt,
                }
            }
            "str" => {
                let mut s = String::new();
                for a in &args {
                    match a {
                        Value::Nil => {}
                        Value::Str(x) => s.push_str(x),
                        other => s.push_str(&other.to_string()),
                    }
                }
                Value::Str(Rc::from(s))
            }
            "subs" => {
                need(n == 2 || n == 3)?;
                let Value::Str(s) = &args[0] else {
                    return Err(self.thrown(span, "subs takes a string".into()));
                };
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
            "long" | "int" | "Math/round" => {
                need(n == 1)?;
                match self.num(&args[0], span)? {
                    Num::Exact(a, b) => Value::Int((a / b) as i64),
                    Num::Float(x) if x.is_finite() && x.abs() < 9.2e18 => {
                        Value::Int(if name == "Math/round" {
                            x.round()
                        } else {
                            x.trunc()
                        } as i64)
                    }
                    Num::Float(x) => {
                        return Err(self.thrown(span, format!("{x} does not fit a long")))
                    }
                }
            }
            "double" => {
                need(n == 1)?;
                Value::Float(self.num(&args[0], span)?.float())
            }
            "Math/ceil" | "Math/floor" | "Math/sqrt" => {
                need(n == 1)?;
                let x = self.num(&args[0], span)?.float();
                Value::Float(match name {
                    "Math/ceil" => x.ceil(),
                    "Math/floor" => x.floor(),
                    _ => x.sqrt(),
                })
            }
            "Math/pow" => {
                need(n == 2)?;
                Value::Float(
                    self.num(&args[0], span)?
                        .float()
                        .powf(self.num(&args[1], span)?.float()),
                )
            }
            "Long/parseLong" | "Integer/parseInt" => {
                need(n == 1 || n == 2)?;
                let Value::Str(s) = &args[0] else {
                    return Err(self.thrown(span, format!("`{name}` takes a string")));
                };
                let radix = if n == 2 {
                    self.int(&args[1], span)?
                } else {
                    10
                };
                if !(2..=36).contains(&radix) {
                    return Err(self.thrown(span, format!("radix {radix} out of range")));
                }
                let parsed = i64::from_str_radix(s, radix as u32)
                    .ok()
                    .filter(|v| name == "Long/parseLong" || i32::try_from(*v).is_ok());
                match parsed {
                    Some(v) => Value::Int(v),
                    None => {
                        return Err(self.thrown(
                            span,
                            format!("NumberFormatException: For input string: \"{s}\""),
                        ))
                    }
                }
            }
            "Long/toBinaryString" | "Integer/toBinaryString" => {
                need(n == 1)?;
                let v = self.int(&args[0], span)?;
                Value::Str(Rc::from(if name == "Long/toBinaryString" {
                    format!("{:b}", v as u64)
                } else {
                    format!("{:b}", v as u32)
                }))
            }
            ".replaceFirst" => {
                need(n == 3)?;
                let (Value::Str(s), Value::Str(pat), Value::Str(rep)) =
                    (&args[0], &args[1], &args[2])
                else {
                    return Err(self.thrown(span, ".replaceFirst takes three strings".into()));
                };
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
            "empty-set" => Value::set(Vec::new()),
            _ => return Err(self.error(span, format!("unsupported function `{name}`"), None)),
        })
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
