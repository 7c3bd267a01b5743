//! The core library that expressions may call (`range`, `set`, `disj`,
//! `map`, `str`, `Math/pow`, `power-set`, ...): what each builtin computes
//! and the argument checks that turn misuse into errors or exceptions.
//! This file holds the names of the builtins and the dispatch to their
//! families, each in its own file: `builtins/numbers.rs`,
//! `builtins/collections.rs` and `builtins/strings.rs`.

mod collections;
mod numbers;
mod strings;

use std::borrow::Cow;

use super::{Ctx, Fail, MAX_STEPS, R};
use crate::value::{Items, Value};
use crate::Span;

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

// A step is about the cost of evaluating a form, a hundred nanoseconds or
// more; the work of a builtin is counted in those units, so that the step
// bound stays a bound on time whatever the file does.

/// The steps of sorting `k` elements by a key (a comparison of two keys
/// takes a few nanoseconds).
pub(super) fn sort_work(k: usize) -> u64 {
    let k = k as u64;
    1 + k.saturating_mul(1 + u64::from(64 - k.leading_zeros())) / 16
}

/// The steps of making or copying `n` elements (a nanosecond or two each).
pub(super) fn copy_work(n: u64) -> u64 {
    1 + n / 16
}

/// The steps of hashing, comparing or printing `weight` (a few
/// nanoseconds an element or character).
pub(super) fn walk_work(weight: u64) -> u64 {
    1 + weight / 4
}

impl Ctx<'_> {
    /// The elements of a collection, copied (the copy counted).
    pub(super) fn coll(&mut self, v: &Value, span: Span) -> R<Vec<Value>> {
        Ok(self.coll_ref(v, span)?.into_owned())
    }

    /// The elements of a collection: borrowed from a list or set, made
    /// (and counted) for a map or string; `nil` is empty.
    pub(super) fn coll_ref<'v>(&mut self, v: &'v Value, span: Span) -> R<Cow<'v, [Value]>> {
        match v {
            Value::List(x) | Value::Set(x) => Ok(Cow::Borrowed(&x[..])),
            Value::Nil => Ok(Cow::Owned(Vec::new())),
            Value::Map(m) => {
                self.room_values(m.len() * 3, span)?;
                Ok(Cow::Owned(v.items().expect("a map")))
            }
            Value::Str(s) => {
                self.room_values(s.len(), span)?;
                Ok(Cow::Owned(v.items().expect("a string")))
            }
            _ => Err(self.thrown(
                span,
                format!("expected a collection, found {} `{}`", v.kind(), v.brief()),
            )),
        }
    }

    /// The number of elements of a collection, without copying them.
    pub(super) fn coll_len(&mut self, v: &Value, span: Span) -> R<usize> {
        match v {
            Value::List(x) | Value::Set(x) => Ok(x.len()),
            Value::Map(m) => Ok(m.len()),
            Value::Nil => Ok(0),
            Value::Str(s) => {
                self.charge(walk_work(s.len() as u64), span)?;
                Ok(s.chars().count())
            }
            _ => Err(self.thrown(
                span,
                format!("expected a collection, found {} `{}`", v.kind(), v.brief()),
            )),
        }
    }

    /// The set `old` (if any) with the elements `new` added, its work
    /// counted: hashing the new elements (the old ones keep their keys),
    /// sorting them, the merge, and the comparisons within runs of equal
    /// hashes.
    pub(super) fn make_set(
        &mut self,
        old: Option<&Items<Value>>,
        new: Vec<Value>,
        span: Span,
    ) -> R<Value> {
        let new_weight = new.iter().fold(0u64, |w, x| w.saturating_add(x.weight()));
        self.charge(walk_work(new_weight), span)?;
        self.charge(sort_work(new.len()), span)?;
        self.room_values(old.map_or(0, |o| o.len()) + new.len(), span)?;
        let left = MAX_STEPS.saturating_sub(self.steps);
        let made = match old {
            Some(old) => Value::set_add_within(old, new, left),
            None => Value::set_within(&[], new, left),
        };
        match made {
            Some((set, work)) => {
                self.charge(walk_work(work), span)?;
                Ok(set)
            }
            None => {
                self.charge(left.saturating_add(1), span)?;
                Err(self.error(
                    span,
                    format!("evaluation took more than {MAX_STEPS} steps"),
                    None,
                ))
            }
        }
    }

    /// Calls the builtin `name` on `args`; each family of builtins has its
    /// own file, and a name no family knows is unsupported.
    pub(super) fn builtin(&mut self, name: &str, args: Vec<Value>, span: Span) -> R<Value> {
        match name {
            "+"
            | "-"
            | "*"
            | "/"
            | "inc"
            | "dec"
            | "mod"
            | "rem"
            | "quot"
            | "max"
            | "min"
            | "abs"
            | "Math/abs"
            | "="
            | "not="
            | "=="
            | "<"
            | ">"
            | "<="
            | ">="
            | "not"
            | "nil?"
            | "some?"
            | "zero?"
            | "pos?"
            | "neg?"
            | "even?"
            | "odd?"
            | "identity"
            | "long"
            | "int"
            | "Math/round"
            | "double"
            | "Math/ceil"
            | "Math/floor"
            | "Math/sqrt"
            | "Math/pow"
            | "Long/parseLong"
            | "Integer/parseInt"
            | "Long/toBinaryString"
            | "Integer/toBinaryString" => self.number_builtin(name, args, span),
            "str" | "subs" | "name" | "keyword" | ".replaceFirst" => {
                self.string_builtin(name, args, span)
            }
            _ => self.collection_builtin(name, args, span),
        }
    }

    /// The exception for a builtin called with `n` arguments, unless `ok`.
    fn need_args(&self, ok: bool, name: &str, n: usize, span: Span) -> R<()> {
        if ok {
            Ok(())
        } else {
            Err(self.thrown(span, format!("wrong number of arguments ({n}) to `{name}`")))
        }
    }

    /// The error for a function that prust does not know.
    fn unsupported(&self, name: &str, span: Span) -> Fail {
        self.error(span, format!("unsupported function `{name}`"), None)
    }
}
