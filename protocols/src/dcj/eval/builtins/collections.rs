//! The collection builtins (`range`, `set`, `conj`, `disj`, `nth`, `map`,
//! `reduce`, `union`, `power-set`, ...).

use super::super::{Ctx, R};
use crate::dcj::value::Value;
use crate::dcj::Span;

impl Ctx<'_> {
    /// The collection builtins: building (`range`, `set`, `vector`, ...),
    /// taking apart (`first`, `rest`, `nth`, `get`), combining (`conj`,
    /// `disj`, `into`, `union`, `power-set`, ...) and the higher-order ones
    /// (`map`, `filter`, `reduce`, `every?`, `some`).
    pub(super) fn collection_builtin(
        &mut self,
        name: &str,
        args: Vec<Value>,
        span: Span,
    ) -> R<Value> {
        let n = args.len();
        let need = |ok: bool| self.need_args(ok, name, n, span);
        use std::cmp::Ordering::*;
        Ok(match name {
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
            "empty-set" => Value::set(Vec::new()),
            _ => return Err(self.unsupported(name, span)),
        })
    }
}
