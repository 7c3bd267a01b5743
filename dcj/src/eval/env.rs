//! Local bindings: the persistent environment (innermost first) that
//! expressions, session bodies and loops are evaluated in, and the text
//! key of its visible bindings that tells instances apart.

use std::collections::HashSet;
use std::rc::Rc;

use crate::value::Value;

/// Local bindings: a persistent list, innermost first.
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
    pub(super) fn visible(&self) -> Vec<(Rc<str>, Value)> {
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

    pub(super) fn names(&self) -> Vec<String> {
        let mut v = Vec::new();
        let mut e = self;
        while let Some(n) = &e.0 {
            v.push(n.name.to_string());
            e = &n.next;
        }
        v
    }
}
