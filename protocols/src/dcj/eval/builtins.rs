//! The core library that expressions may call (`range`, `set`, `disj`,
//! `map`, `str`, `Math/pow`, `power-set`, ...): what each builtin computes
//! and the argument checks that turn misuse into errors or exceptions.
//! This file holds the names of the builtins and the dispatch to their
//! families, each in its own file: `builtins/numbers.rs`,
//! `builtins/collections.rs` and `builtins/strings.rs`.

mod collections;
mod numbers;
mod strings;

use super::{Ctx, Fail, R};
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
