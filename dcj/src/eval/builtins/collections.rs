//! The collection builtins (`range`, `set`, `conj`, `disj`, `nth`, `map`,
//! `reduce`, `union`, `power-set`, ...). Each counts its work before doing
//! it: the elements it makes or copies ([`Ctx::room_values`]), the elements
//! it hashes or compares (their weight), so that no call can run long or
//! allocate much unseen by the evaluator's bounds.

use std::collections::HashMap;
use std::rc::Rc;

use super::super::{Ctx, MAX_WEIGHT, R};
use crate::value::Value;
use crate::Span;

impl Ctx<'_> {
    /// The collection builtins: building (`range`, `set`, `vector`, ...),
    /// taking apart (`first`, `rest`, `nth`, `get`), combining (`conj`,
    /// `disj`, `into`, `union`, `power-set`, ...) and the higher-order ones
    /// (`map`, `filter`, `reduce`, `every?`, `some`).
    pub(super) fn collection_builtin(
        &mut self,
        name: &str,
        mut args: Vec<Value>,
        span: Span,
    ) -> R<Value> {
        let n = args.len();
        use std::cmp::Ordering::*;
        Ok(match name {
            "range" => {
                self.need_args((1..=3).contains(&n), name, n, span)?;
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
                self.room_values(len as usize, span)?;
                Value::list(
                    (0..len as i64)
                        .map(|i| Value::Int(start + i * step))
                        .collect(),
                )
            }
            "set" | "into-set" => {
                self.need_args(n == 1, name, n, span)?;
                let items = self.coll(&args[0], span)?;
                self.make_set(None, items, span)?
            }
            "hash-set" => self.make_set(None, args, span)?,
            "list" | "vector" => {
                self.room_values(n, span)?;
                Value::list(args)
            }
            "vec" => {
                self.need_args(n == 1, name, n, span)?;
                match &args[0] {
                    Value::List(_) => args[0].clone(),
                    other => Value::list(self.coll(other, span)?),
                }
            }
            "seq" => {
                self.need_args(n == 1, name, n, span)?;
                if self.coll_len(&args[0], span)? == 0 {
                    Value::Nil
                } else if matches!(args[0], Value::List(_)) {
                    args[0].clone()
                } else {
                    Value::list(self.coll(&args[0], span)?)
                }
            }
            "count" => {
                self.need_args(n == 1, name, n, span)?;
                Value::Int(self.coll_len(&args[0], span)? as i64)
            }
            "empty?" => {
                self.need_args(n == 1, name, n, span)?;
                Value::Bool(self.coll_len(&args[0], span)? == 0)
            }
            "first" | "second" | "last" => {
                self.need_args(n == 1, name, n, span)?;
                let v = self.coll_ref(&args[0], span)?;
                let x = match name {
                    "first" => v.first(),
                    "second" => v.get(1),
                    _ => v.last(),
                };
                x.cloned().unwrap_or(Value::Nil)
            }
            "rest" | "next" => {
                self.need_args(n == 1, name, n, span)?;
                let len = self.coll_len(&args[0], span)?;
                self.room_values(len.saturating_sub(1), span)?;
                let v = self.coll_ref(&args[0], span)?;
                let r = v.get(1..).unwrap_or(&[]).to_vec();
                if r.is_empty() && name == "next" {
                    Value::Nil
                } else {
                    Value::list(r)
                }
            }
            "nth" => {
                self.need_args(n == 2 || n == 3, name, n, span)?;
                let i = self.int(&args[1], span)?;
                let v = self.coll_ref(&args[0], span)?;
                match usize::try_from(i).ok().and_then(|i| v.get(i)) {
                    Some(x) => x.clone(),
                    None if n == 3 => args[2].clone(),
                    None => return Err(self.thrown(span, format!("index {i} out of bounds"))),
                }
            }
            "cons" => {
                self.need_args(n == 2, name, n, span)?;
                let rest = self.coll_ref(&args[1], span)?;
                let mut v = Vec::with_capacity(rest.len() + 1);
                v.push(args[0].clone());
                v.extend(rest.iter().cloned());
                self.room_values(v.len(), span)?;
                Value::list(v)
            }
            "conj" => {
                self.need_args(n >= 1, name, n, span)?;
                let more: Vec<Value> = args.drain(1..).collect();
                let first = args.pop().expect("one argument");
                self.conj(first, more, span)?
            }
            "disj" => {
                self.need_args(n >= 1, name, n, span)?;
                let gone = self.make_set(None, args[1..].to_vec(), span)?;
                let Value::Set(gone) = gone else {
                    unreachable!("make_set makes a set")
                };
                let v = self.coll_ref(&args[0], span)?;
                let w = args[0].weight();
                self.charge(super::walk_work(w), span)?;
                let kept: Vec<Value> = v
                    .iter()
                    .filter(|x| Value::set_find(&gone, x).is_none())
                    .cloned()
                    .collect();
                // A set's elements stay in order (the sort finds them sorted).
                self.make_set(None, kept, span)?
            }
            "contains?" => {
                self.need_args(n == 2, name, n, span)?;
                self.walk(&args[1], span)?;
                match &args[0] {
                    Value::Map(m) => {
                        self.charge(super::walk_work(m.weight()), span)?;
                        Value::Bool(m.iter().any(|(k, _)| *k == args[1]))
                    }
                    Value::List(v) => Value::Bool(
                        matches!(args[1], Value::Int(i) if i >= 0 && (i as usize) < v.len()),
                    ),
                    Value::Set(s) => Value::Bool(Value::set_find(s, &args[1]).is_some()),
                    other => {
                        self.walk(other, span)?;
                        Value::Bool(self.coll_ref(other, span)?.contains(&args[1]))
                    }
                }
            }
            "remove" | "filter" | "map" | "every?" | "some" => {
                self.need_args(n == 2, name, n, span)?;
                let f = args[0].clone();
                let v = self.coll_ref(&args[1], span)?;
                let mut out = Vec::new();
                for x in v.iter() {
                    let r = self.apply(f.clone(), vec![x.clone()], span)?;
                    match name {
                        "map" => out.push(r),
                        "filter" if r.truthy() => out.push(x.clone()),
                        "remove" if !r.truthy() => out.push(x.clone()),
                        "every?" if !r.truthy() => return Ok(Value::Bool(false)),
                        "some" if r.truthy() => return Ok(r),
                        _ => {}
                    }
                }
                match name {
                    "every?" => Value::Bool(true),
                    "some" => Value::Nil,
                    _ => {
                        self.room_values(out.len(), span)?;
                        Value::list(out)
                    }
                }
            }
            "reduce" => {
                self.need_args(n == 2 || n == 3, name, n, span)?;
                let f = args[0].clone();
                let coll = args.pop().expect("a collection");
                let v = self.coll_ref(&coll, span)?;
                let mut v = v.iter().cloned();
                let mut acc = if n == 3 {
                    args.pop().expect("an initial value")
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
                self.need_args(n == 2, name, n, span)?;
                let from = args.pop().expect("two arguments");
                let to = args.pop().expect("two arguments");
                let more = self.coll(&from, span)?;
                self.conj(to, more, span)?
            }
            "concat" => {
                let mut total = 0usize;
                for a in &args {
                    total = total.saturating_add(self.coll_len(a, span)?);
                }
                self.room_values(total, span)?;
                let mut v = Vec::with_capacity(total);
                for a in &args {
                    v.extend(self.coll_ref(a, span)?.iter().cloned());
                }
                Value::list(v)
            }
            "reverse" => {
                self.need_args(n == 1, name, n, span)?;
                let mut v = self.coll(&args[0], span)?;
                v.reverse();
                Value::list(v)
            }
            "sort" => {
                self.need_args(n == 1, name, n, span)?;
                let mut v = self.coll(&args[0], span)?;
                self.charge(2 * super::sort_work(v.len()), span)?;
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
                self.need_args(n == 1, name, n, span)?;
                self.walk(&args[0], span)?;
                let v = self.coll_ref(&args[0], span)?;
                // Kept elements by hash: each element is compared only with
                // the kept ones of its hash.
                let mut by_hash: HashMap<i32, Vec<usize>> = HashMap::new();
                let mut out: Vec<Value> = Vec::new();
                for x in v.iter() {
                    let same = by_hash.entry(x.hash()).or_default();
                    self.charge(super::walk_work(same.len() as u64), span)?;
                    if !same.iter().any(|&i| out[i] == *x) {
                        same.push(out.len());
                        out.push(x.clone());
                    }
                }
                self.room_values(out.len(), span)?;
                Value::list(out)
            }
            "union" | "difference" | "intersection" => {
                self.need_args(n >= 1, name, n, span)?;
                let mut v = self.coll(&args[0], span)?;
                for a in &args[1..] {
                    if name == "union" {
                        let more = self.coll_ref(a, span)?;
                        self.room_values(v.len() + more.len(), span)?;
                        v.extend(more.iter().cloned());
                        continue;
                    }
                    let other = match a {
                        Value::Set(_) => a.clone(),
                        _ => {
                            let items = self.coll(a, span)?;
                            self.make_set(None, items, span)?
                        }
                    };
                    let Value::Set(other) = other else {
                        unreachable!("a set")
                    };
                    let w = v.iter().fold(0u64, |w, x| w.saturating_add(x.weight()));
                    self.charge(super::walk_work(w), span)?;
                    let keep_found = name == "intersection";
                    v.retain(|x| Value::set_find(&other, x).is_some() == keep_found);
                }
                self.make_set(None, v, span)?
            }
            "power-set" => {
                self.need_args(n == 1, name, n, span)?;
                let set = match &args[0] {
                    Value::Set(_) => args[0].clone(),
                    other => {
                        let items = self.coll(other, span)?;
                        self.make_set(None, items, span)?
                    }
                };
                let Value::Set(v) = &set else {
                    unreachable!("a set")
                };
                if v.len() > 20 {
                    return Err(self.error(
                        span,
                        format!("the power set of {} elements is too large", v.len()),
                        None,
                    ));
                }
                // Each element is in half of the subsets.
                let subsets = 1u64 << v.len();
                let weight = (set.weight() - 1)
                    .saturating_mul(subsets / 2)
                    .saturating_add(subsets * 2);
                if weight > MAX_WEIGHT {
                    return Err(self.error(
                        span,
                        format!(
                            "the power set of {} elements would weigh more than {MAX_WEIGHT} elements and characters",
                            v.len()
                        ),
                        None,
                    ));
                }
                self.room_values((subsets / 2 * v.len() as u64 + subsets) as usize, span)?;
                let mut all = Vec::with_capacity(subsets as usize);
                for bits in 0..subsets {
                    let subset: Vec<Value> = v
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| bits & (1 << i) != 0)
                        .map(|(_, x)| x.clone())
                        .collect();
                    all.push(self.make_set(None, subset, span)?);
                }
                self.make_set(None, all, span)?
            }
            "get" => {
                self.need_args(n == 2 || n == 3, name, n, span)?;
                let dflt = args.get(2).cloned().unwrap_or(Value::Nil);
                self.walk(&args[1], span)?;
                match &args[0] {
                    Value::Map(m) => {
                        self.charge(super::walk_work(m.weight()), span)?;
                        m.iter()
                            .find(|(k, _)| *k == args[1])
                            .map_or(dflt, |(_, v)| v.clone())
                    }
                    Value::Set(s) => Value::set_find(s, &args[1]).cloned().unwrap_or(dflt),
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

    /// `(conj to x...)` and `(into to xs)`: a set gains the elements it
    /// lacks; a list (or `nil`, or a map, taken as its entries) gets them
    /// appended, in place when nothing else holds it (`(reduce conj [] xs)`
    /// is linear), else on a copy.
    fn conj(&mut self, to: Value, more: Vec<Value>, span: Span) -> R<Value> {
        match to {
            Value::Set(mut s) => {
                // In place when nothing else holds the set and few are
                // added (`(reduce conj #{} xs)`): each costs a search and a
                // move of the elements after it, not a copy of the set.
                if more.len() <= 8 && s.has_keys() {
                    if let Some(items) = Rc::get_mut(&mut s) {
                        self.bounded((items.len() + more.len()) as i128, span)?;
                        for x in more {
                            self.charge(super::walk_work(x.weight()), span)?;
                            let moved = items.set_insert(x).unwrap_or(0);
                            self.charge(1 + moved as u64 / 256, span)?;
                        }
                        return Ok(Value::Set(s));
                    }
                }
                self.make_set(Some(&s), more, span)
            }
            Value::List(mut v) => {
                self.bounded((v.len() + more.len()) as i128, span)?;
                if let Some(items) = Rc::get_mut(&mut v) {
                    self.room_values(more.len(), span)?;
                    for x in more {
                        items.push(x);
                    }
                    return Ok(Value::List(v));
                }
                self.room_values(v.len() + more.len(), span)?;
                let mut all = Vec::with_capacity(v.len() + more.len());
                all.extend(v.iter().cloned());
                all.extend(more);
                Ok(Value::list(all))
            }
            other => {
                let mut all = self.coll(&other, span)?;
                self.room_values(all.len() + more.len(), span)?;
                all.extend(more);
                Ok(Value::list(all))
            }
        }
    }
}
