//! How Discourje names become prust names, as Prut4j flattens them, so
//! that formulas written for Prut4j run unchanged on imported specs.

use super::value::Value;

/// The flat name of role `base` with indices: Prut4j writes Discourje's
/// `worker[1]` as `worker_1_` (each `[` and `]` becomes `_`).
pub fn role_name(base: &str, indices: &[Value]) -> String {
    let mut s = base.to_string();
    for i in indices {
        let text = match i {
            Value::Str(t) => t.to_string(),
            Value::Keyword(k) => k.rsplit('/').next().unwrap_or(k).to_string(),
            other => other.to_string(),
        };
        s.push('_');
        s.push_str(&text);
        s.push('_');
    }
    s
}

/// A message type from a class symbol: its last segment (`a.b.Move` →
/// `Move`; a nested class `Outer$Inner` → `Inner`).
pub fn type_name(class: &str) -> String {
    let last = class.rsplit('.').next().unwrap_or(class);
    last.rsplit('$').next().unwrap_or(last).to_string()
}

/// The name part of a keyword or symbol (`ns/worker` → `worker`).
pub fn local_name(qualified: &str) -> &str {
    match qualified.split_once('/') {
        Some((_, n)) if !n.is_empty() => n,
        _ => qualified,
    }
}

/// The module's example of use: a unit test, since the module is private.
#[cfg(test)]
#[test]
fn example() {
    use crate::names::{role_name, type_name};
    use crate::value::Value;
    assert_eq!(role_name("worker", &[Value::Int(1)]), "worker_1_");
    assert_eq!(
        role_name("grid", &[Value::Int(1), Value::Int(2)]),
        "grid_1__2_"
    );
    assert_eq!(role_name("dealer", &[]), "dealer");
    assert_eq!(type_name("discourje.examples.chess.Move"), "Move");
    assert_eq!(type_name("java.lang.Boolean"), "Boolean");
}
