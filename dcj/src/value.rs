//! The values of the expression subset: numbers, strings, keywords,
//! symbols (class names), collections, functions and roles.
//!
//! Sets are kept in Clojure's iteration order ([`hash_order`]), so that
//! iterating a [`Value::Set`] is iterating the Clojure set; the same order
//! is sorted by hash, so a set is built, searched and compared in
//! `O(n log n)`, not `O(n²)`.
//!
//! Every collection carries its [weight](Value::weight) (how many
//! elements and characters it holds, everything nested in it counted as
//! often as it occurs) and its [depth](Value::depth), kept as it is built.
//! Values share their parts, so `(conj v v)` doubles the weight at the cost
//! of one element: the evaluator bounds the weight and the depth of every
//! value it makes, which bounds whatever walks a value (printing, hashing,
//! `=`) and the recursion of that walk.

use std::cell::{Cell, OnceCell};
use std::collections::HashSet;
use std::ops::Deref;
use std::rc::Rc;

use super::hash_order::{self, hash_long};
use super::read::Form;

mod display;

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
    List(Rc<Items<Value>>),
    /// A set, in Clojure's iteration order, without duplicates.
    Set(Rc<Items<Value>>),
    /// A map, as key/value pairs in insertion order.
    Map(Rc<Items<(Value, Value)>>),
    /// A function: a user `defn` or an `fn`.
    Fn(Rc<Closure>),
    /// A role: name keyword and index values (`(::worker 1)`).
    Role(Rc<str>, Rc<Items<Value>>),
}

thread_local! {
    /// Bytes held by the element buffers of the collections alive on this
    /// thread (the importer's thread owns every value it makes).
    static LIVE_BYTES: Cell<usize> = const { Cell::new(0) };
}

/// Bytes held now by the element buffers of this thread's collection
/// values: what the importer charges against its memory limit.
pub fn live_bytes() -> usize {
    LIVE_BYTES.with(Cell::get)
}

/// The elements of a collection value, with the weight, depth and hash that
/// the evaluator's bounds need without walking them. Dereferences to the
/// elements.
#[derive(Debug)]
pub struct Items<T> {
    items: Vec<T>,
    weight: u64,
    depth: u32,
    bytes: usize,
    hash: OnceCell<i32>,
    /// A set's elements' [`hash_order::trie_key`]s, in order (empty for
    /// other collections): searched and merged without hashing again.
    keys: Vec<u64>,
}

/// The weight and depth of what a collection holds.
pub trait Part {
    /// Elements and characters, counted as often as they occur.
    fn weight(&self) -> u64;
    /// Nesting of collections (a scalar: 0).
    fn depth(&self) -> u32;
}

impl Part for Value {
    fn weight(&self) -> u64 {
        Value::weight(self)
    }
    fn depth(&self) -> u32 {
        Value::depth(self)
    }
}

impl Part for (Value, Value) {
    fn weight(&self) -> u64 {
        self.0.weight().saturating_add(self.1.weight())
    }
    fn depth(&self) -> u32 {
        self.0.depth().max(self.1.depth())
    }
}

impl<T: Part> Items<T> {
    /// The collection of `items`.
    pub fn new(items: Vec<T>) -> Items<T> {
        let mut weight = 1u64;
        let mut depth = 0;
        for x in &items {
            weight = weight.saturating_add(x.weight());
            depth = depth.max(x.depth());
        }
        let bytes = items.capacity() * std::mem::size_of::<T>();
        LIVE_BYTES.with(|b| b.set(b.get().saturating_add(bytes)));
        Items {
            items,
            weight,
            depth: depth.saturating_add(1),
            bytes,
            hash: OnceCell::new(),
            keys: Vec::new(),
        }
    }

    /// Elements and characters held, counted as often as they occur, plus
    /// one for the collection.
    pub fn weight(&self) -> u64 {
        self.weight
    }

    /// Appends `x` in place (the caller holds the only reference).
    pub(crate) fn push(&mut self, x: T) {
        let at = self.items.len();
        self.insert(at, x);
    }

    fn insert(&mut self, at: usize, x: T) {
        self.weight = self.weight.saturating_add(x.weight());
        self.depth = self.depth.max(x.depth().saturating_add(1));
        self.hash = OnceCell::new();
        self.items.insert(at, x);
        let bytes = self.items.capacity() * std::mem::size_of::<T>();
        LIVE_BYTES.with(|b| b.set(b.get().saturating_sub(self.bytes).saturating_add(bytes)));
        self.bytes = bytes;
    }
}

impl Items<Value> {
    /// Adds `x` in place to a set's elements (the caller holds the only
    /// reference), after the elements of its hash, unless it has an equal
    /// one: the elements moved to make room, or `None` if it was there.
    pub(crate) fn set_insert(&mut self, x: Value) -> Option<usize> {
        let key = hash_order::trie_key(x.hash() as u32);
        let at = self.keys.partition_point(|k| *k < key);
        let run = self.keys[at..].iter().take_while(|k| **k == key).count();
        if self.items[at..at + run].contains(&x) {
            return None;
        }
        let at = at + run;
        self.keys.insert(at, key);
        self.insert(at, x);
        Some(self.items.len() - at)
    }

    /// Whether these are a set's elements with their keys.
    pub(crate) fn has_keys(&self) -> bool {
        self.keys.len() == self.items.len()
    }
}

impl<T> Drop for Items<T> {
    fn drop(&mut self) {
        LIVE_BYTES.with(|b| b.set(b.get().saturating_sub(self.bytes)));
    }
}

impl<T> Deref for Items<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        &self.items
    }
}

/// A user function with the environment it closes over.
#[derive(Debug)]
pub struct Closure {
    /// The name, for messages.
    pub name: String,
    /// One `(params body...)` per arity; `&` rest parameters are allowed.
    pub arities: Vec<(Vec<String>, Option<String>, Vec<Form>)>,
    /// The captured local bindings.
    pub env: Env,
}

impl Value {
    /// A set of `items` (duplicates dropped, in Clojure's order).
    pub fn set(items: Vec<Value>) -> Value {
        Value::set_with(&[], items)
    }

    /// The set of `old` (a set's elements, in its order) with `new` added:
    /// sorted by hash and merged, so `O((n + k) log k)` for `k` new
    /// elements, plus the comparisons within runs of equal hashes. Equal
    /// hashes keep the order of insertion (a collision node does), old
    /// elements first.
    pub fn set_with(old: &[Value], new: Vec<Value>) -> Value {
        Value::set_within(old, new, u64::MAX).expect("no bound").0
    }

    /// [`set_with`](Self::set_with) that gives up (`None`) past `max_work`
    /// units of work (elements placed and compared), else also says how
    /// many it took: within a run of equal hashes every new element is
    /// compared with the run, which hostile keys (strings of equal Java
    /// hash) make quadratic.
    pub fn set_within(old: &[Value], new: Vec<Value>, max_work: u64) -> Option<(Value, u64)> {
        let keys: Vec<u64> = old
            .iter()
            .map(|x| hash_order::trie_key(x.hash() as u32))
            .collect();
        Value::merge_set(old, &keys, new, max_work)
    }

    /// [`set_within`](Self::set_within) adding to a set (its elements and
    /// keys kept, not hashed again).
    pub fn set_add_within(
        old: &Items<Value>,
        new: Vec<Value>,
        max_work: u64,
    ) -> Option<(Value, u64)> {
        Value::merge_set(old, &old.keys, new, max_work)
    }

    fn merge_set(
        old: &[Value],
        old_keys: &[u64],
        new: Vec<Value>,
        max_work: u64,
    ) -> Option<(Value, u64)> {
        // The copy of `old` is the caller's to count.
        let mut work = new.len() as u64;
        let mut keyed: Vec<(u64, Value)> = new
            .into_iter()
            .map(|x| (hash_order::trie_key(x.hash() as u32), x))
            .collect();
        keyed.sort_by_key(|(k, _)| *k);
        let mut out: Vec<Value> = Vec::with_capacity(old.len() + keyed.len());
        let mut keys: Vec<u64> = Vec::with_capacity(old.len() + keyed.len());
        let mut old = old.iter().zip(old_keys).peekable();
        let mut new = keyed.into_iter().peekable();
        while let Some((key, _)) = new.peek() {
            let key = *key;
            while let Some((o, k)) = old.next_if(|(_, k)| **k <= key) {
                out.push(o.clone());
                keys.push(*k);
            }
            let run_start = keys.iter().rposition(|k| *k != key).map_or(0, |i| i + 1);
            while let Some((_, x)) = new.next_if(|(k, _)| *k == key) {
                work = work.saturating_add((out.len() - run_start) as u64);
                if work > max_work {
                    return None;
                }
                if !out[run_start..].contains(&x) {
                    out.push(x);
                    keys.push(key);
                }
            }
        }
        for (o, k) in old {
            out.push(o.clone());
            keys.push(*k);
        }
        let mut items = Items::new(out);
        items.keys = keys;
        Some((Value::Set(Rc::new(items)), work))
    }

    /// A list of `items`.
    pub fn list(items: Vec<Value>) -> Value {
        Value::List(Rc::new(Items::new(items)))
    }

    /// A map of key/value `pairs`, in this order.
    pub fn map(pairs: Vec<(Value, Value)>) -> Value {
        Value::Map(Rc::new(Items::new(pairs)))
    }

    /// A role of keyword `k` with indices `idx`.
    pub fn role(k: Rc<str>, idx: Vec<Value>) -> Value {
        Value::Role(k, Rc::new(Items::new(idx)))
    }

    /// How much the value holds: 1 for a scalar, 1 + the length for a
    /// string, keyword or symbol, 1 + the weights of the elements for a
    /// collection (saturating; shared parts count each time they occur).
    /// Printing, hashing or comparing a value costs about its weight.
    pub fn weight(&self) -> u64 {
        match self {
            Value::Str(s) | Value::Keyword(s) | Value::Symbol(s) => 1 + s.len() as u64,
            Value::List(v) | Value::Set(v) => v.weight,
            Value::Map(m) => m.weight,
            Value::Role(k, idx) => idx.weight.saturating_add(k.len() as u64),
            _ => 1,
        }
    }

    /// How deep collections nest in the value (a scalar: 0).
    pub fn depth(&self) -> u32 {
        match self {
            Value::List(v) | Value::Set(v) | Value::Role(_, v) => v.depth,
            Value::Map(m) => m.depth,
            _ => 0,
        }
    }

    /// The element equal to `x` of a [`Value::Set`]'s elements, found by
    /// hash in `O(log n)`.
    pub fn set_find<'a>(items: &'a Items<Value>, x: &Value) -> Option<&'a Value> {
        let key = hash_order::trie_key(x.hash() as u32);
        if items.keys.len() != items.len() {
            // Not a set's elements: no keys to search.
            return items.iter().find(|y| *y == x);
        }
        let at = items.keys.partition_point(|k| *k < key);
        items.keys[at..]
            .iter()
            .take_while(|k| **k == key)
            .zip(&items[at..])
            .map(|(_, y)| y)
            .find(|y| *y == x)
    }

    /// Clojure's `hash` (`hasheq`) where this module knows it; other values
    /// hash by their printed form, which keeps sets of them deterministic.
    /// A collection's hash is computed once and kept.
    pub fn hash(&self) -> i32 {
        match self {
            Value::Nil => 0,
            Value::Bool(true) => 1231,
            Value::Bool(false) => 1237,
            Value::Int(n) => hash_long(*n),
            // -0.0 = 0.0, so they hash alike.
            Value::Float(x) if *x == 0.0 => 0,
            Value::Float(x) => hash_order::hash_double(*x),
            Value::Keyword(k) => hash_order::hash_keyword(k),
            Value::Str(s) => hash_order::hash_int(hash_order::java_string_hash(s)),
            Value::List(v) => *v
                .hash
                .get_or_init(|| hash_order::hash_ordered(v.iter().map(Value::hash))),
            Value::Set(v) => *v
                .hash
                .get_or_init(|| hash_order::hash_unordered(v.iter().map(Value::hash))),
            // A map entry hashes as the vector [k v] (Clojure's map hash),
            // whatever the order of the entries.
            Value::Map(m) => *m.hash.get_or_init(|| {
                hash_order::hash_unordered(
                    m.iter()
                        .map(|(k, v)| hash_order::hash_ordered([k.hash(), v.hash()])),
                )
            }),
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
            Value::List(v) | Value::Set(v) => Some(v.to_vec()),
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
            (List(a), List(b)) => a.len() == b.len() && a.iter().zip(b.iter()).all(|(x, y)| x == y),
            (Set(a), Set(b)) => {
                a.len() == b.len()
                    && self.hash() == other.hash()
                    && a.iter().all(|x| Value::set_find(b, x).is_some())
            }
            (Map(a), Map(b)) => {
                a.len() == b.len() && self.hash() == other.hash() && {
                    // Entries sorted by the hash of their key, then looked up.
                    let mut sorted: Vec<(i32, usize)> = b
                        .iter()
                        .enumerate()
                        .map(|(i, (k, _))| (k.hash(), i))
                        .collect();
                    sorted.sort_unstable();
                    a.iter().all(|(k, v)| {
                        let h = k.hash();
                        let at = sorted.partition_point(|(x, _)| *x < h);
                        sorted[at..]
                            .iter()
                            .take_while(|(x, _)| *x == h)
                            .any(|&(_, i)| b[i].0 == *k && b[i].1 == *v)
                    })
                }
            }
            (Fn(a), Fn(b)) => Rc::ptr_eq(a, b),
            (Role(a, i), Role(b, j)) => {
                a == b && i.len() == j.len() && i.iter().zip(j.iter()).all(|(x, y)| x == y)
            }
            _ => false,
        }
    }
}

/// Local bindings: a persistent list, innermost first.
///
/// Defined next to [`Value`] and [`Closure`] because the three are one
/// recursive type family: a closure captures an `Env`, an `Env` holds
/// values, and values hold closures.
#[derive(Clone, Debug, Default)]
pub struct Env(Option<Rc<EnvNode>>);

#[derive(Debug)]
struct EnvNode {
    name: Rc<str>,
    value: Value,
    next: Env,
}

impl Env {
    /// The value bound to `name`.
    pub fn get(&self, name: &str) -> Option<&Value> {
        let mut e = self;
        while let Some(n) = &e.0 {
            if &*n.name == name {
                return Some(&n.value);
            }
            e = &n.next;
        }
        None
    }

    /// `self` with `name` bound to `value`.
    pub fn bind(&self, name: &str, value: Value) -> Env {
        Env(Some(Rc::new(EnvNode {
            name: Rc::from(name),
            value,
            next: self.clone(),
        })))
    }

    /// The visible bindings (each name's innermost one).
    pub(crate) fn visible(&self) -> Vec<(Rc<str>, Value)> {
        let mut seen = HashSet::new();
        let mut v = Vec::new();
        let mut e = self;
        while let Some(n) = &e.0 {
            if seen.insert(n.name.clone()) {
                v.push((n.name.clone(), n.value.clone()));
            }
            e = &n.next;
        }
        v
    }

    pub(crate) fn names(&self) -> Vec<String> {
        let mut v = Vec::new();
        let mut e = self;
        while let Some(n) = &e.0 {
            v.push(n.name.to_string());
            e = &n.next;
        }
        v
    }
}

/// The module's example of use: a unit test, since the module is private.
#[cfg(test)]
#[test]
fn example() {
    use crate::value::Value;
    let s = Value::set((0..4).map(Value::Int).collect());
    assert_eq!(s.to_string(), "#{0 1 3 2}");
}
