//! The values of the expression subset: numbers, strings, keywords,
//! symbols (class names), collections, functions and roles.
//!
//! Sets are kept in Clojure's iteration order ([`hash_order`]), so that
//! iterating a [`Value::Set`] is iterating the Clojure set.
//!
//! ```
//! use protocols::dcj::value::Value;
//! let s = Value::set((0..4).map(Value::Int).collect());
//! assert_eq!(s.to_string(), "#{0 1 3 2}");
//! ```

use std::fmt;
use std::rc::Rc;

use super::hash_order::{self, hash_long};
use super::read::Form;

/// A value.
#[derive(Clone, Debug)]
pub enum Value {
    /// `nil`.
    Nil,
    /// A boolean.
    Bool(bool),
    /// A long.
    Int(i64),
    /// A ratio `num/den` (den > 1, in lowest terms), as `(/ 7 2)` makes.
    Ratio(i64, i64),
    /// A double.
    Float(f64),
    /// A string.
    Str(Rc<str>),
    /// A keyword, fully qualified (`ns/name` or `name`).
    Keyword(Rc<str>),
    /// A quoted symbol or a class name (`Boolean`, `x.y.Move`).
    Symbol(Rc<str>),
    /// A list, vector or seq (Clojure's `=` does not tell them apart).
    List(Rc<Vec<Value>>),
    /// A set, in Clojure's iteration order, without duplicates.
    Set(Rc<Vec<Value>>),
    /// A map, as key/value pairs in insertion order.
    Map(Rc<Vec<(Value, Value)>>),
    /// A function: a user `defn` or an `fn`.
    Fn(Rc<Closure>),
    /// A role: name keyword and index values (`(::worker 1)`).
    Role(Rc<str>, Rc<Vec<Value>>),
}

/// A user function with the environment it closes over.
#[derive(Debug)]
pub struct Closure {
    /// The name, for messages.
    pub name: String,
    /// One `(params body...)` per arity; `&` rest parameters are allowed.
    pub arities: Vec<(Vec<String>, Option<String>, Vec<Form>)>,
    /// The captured local bindings.
    pub env: super::eval::Env,
}

impl Value {
    /// A set of `items` (duplicates dropped, in Clojure's order).
    pub fn set(items: Vec<Value>) -> Value {
        let mut out: Vec<Value> = Vec::with_capacity(items.len());
        for x in items {
            if !out.contains(&x) {
                out.push(x);
            }
        }
        hash_order::sort_like_clojure_set(&mut out, |x| x.hash() as u32);
        Value::Set(Rc::new(out))
    }

    /// A list of `items`.
    pub fn list(items: Vec<Value>) -> Value {
        Value::List(Rc::new(items))
    }

    /// Clojure's `hash` (`hasheq`) where this module knows it; other values
    /// hash by their printed form, which keeps sets of them deterministic.
    pub fn hash(&self) -> i32 {
        match self {
            Value::Nil => 0,
            Value::Bool(true) => 1231,
            Value::Bool(false) => 1237,
            Value::Int(n) => hash_long(*n),
            Value::Float(x) => hash_order::hash_double(*x),
            Value::Keyword(k) => hash_order::hash_keyword(k),
            Value::Str(s) => hash_order::hash_int(hash_order::java_string_hash(s)),
            Value::List(v) => hash_order::hash_ordered(v.iter().map(Value::hash)),
            Value::Set(v) => hash_order::hash_unordered(v.iter().map(Value::hash)),
            other => hash_order::java_string_hash(&other.to_string()),
        }
    }

    /// Clojure's truthiness: everything but `nil` and `false`.
    pub fn truthy(&self) -> bool {
        !matches!(self, Value::Nil | Value::Bool(false))
    }

    /// The elements of a collection (`nil` is empty), or `None`.
    pub fn items(&self) -> Option<Vec<Value>> {
        match self {
            Value::Nil => Some(Vec::new()),
            Value::List(v) | Value::Set(v) => Some(v.as_ref().clone()),
            Value::Map(m) => Some(
                m.iter()
                    .map(|(k, v)| Value::list(vec![k.clone(), v.clone()]))
                    .collect(),
            ),
            Value::Str(s) => Some(
                s.chars()
                    .map(|c| Value::Str(Rc::from(c.to_string())))
                    .collect(),
            ),
            _ => None,
        }
    }

    /// A short description of the kind, for messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Nil => "nil",
            Value::Bool(_) => "a boolean",
            Value::Int(_) => "a long",
            Value::Ratio(..) => "a ratio",
            Value::Float(_) => "a double",
            Value::Str(_) => "a string",
            Value::Keyword(_) => "a keyword",
            Value::Symbol(_) => "a symbol",
            Value::List(_) => "a list",
            Value::Set(_) => "a set",
            Value::Map(_) => "a map",
            Value::Fn(_) => "a function",
            Value::Role(..) => "a role",
        }
    }
}

/// Clojure's `=`: numbers of different kinds are different (`(= 1 1.0)` is
/// false), lists and vectors with equal elements are equal, sets compare
/// as sets.
impl PartialEq for Value {
    fn eq(&self, other: &Value) -> bool {
        use Value::*;
        match (self, other) {
            (Nil, Nil) => true,
            (Bool(a), Bool(b)) => a == b,
            (Int(a), Int(b)) => a == b,
            (Ratio(a, b), Ratio(c, d)) => a == c && b == d,
            (Float(a), Float(b)) => a == b,
            (Str(a), Str(b)) | (Keyword(a), Keyword(b)) | (Symbol(a), Symbol(b)) => a == b,
            (List(a), List(b)) => a == b,
            (Set(a), Set(b)) => a.len() == b.len() && a.iter().all(|x| b.contains(x)),
            (Map(a), Map(b)) => {
                a.len() == b.len()
                    && a.iter()
                        .all(|(k, v)| b.iter().any(|(k2, v2)| k == k2 && v == v2))
            }
            (Fn(a), Fn(b)) => Rc::ptr_eq(a, b),
            (Role(a, i), Role(b, j)) => a == b && i == j,
            _ => false,
        }
    }
}

fn write_items(
    f: &mut fmt::Formatter<'_>,
    open: &str,
    items: &[Value],
    close: &str,
) -> fmt::Result {
    f.write_str(open)?;
    for (i, x) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(" ")?;
        }
        write!(f, "{x}")?;
    }
    f.write_str(close)
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
            Value::List(v) => write_items(f, "(", v, ")"),
            Value::Set(v) => write_items(f, "#{", v, "}"),
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
