//! Random LTL formulas over a protocol object's roles, for the proptests
//! that compare two searches on the same object (partial-order reduction,
//! hash compaction): one generator, so that every such comparison meets
//! the same shapes.

use engine::Protocol;
use proptest::prelude::*;

/// A formula before it meets an object: its shape, and for each of its two
/// atoms a role (0: any role), an action kind and an atom kind. The roles
/// are named by the object ([`render`]), so the same shape fits any object.
pub type Shape = (usize, [usize; 2], [usize; 2], [usize; 2]);

/// Mostly the shapes a partial-order reduction decides (safety, response,
/// recurrence, persistence, unless, release), some it must refuse (`X`, a
/// bare first step); the atoms are sends, receives, closes of one role or
/// any, `END` and `DEADLOCK`. Safety shapes run the breadth-first search,
/// the others the depth-first one.
pub fn shape() -> impl Strategy<Value = Shape> {
    (
        0..12usize,
        [0..4usize, 0..4],
        [0..3usize, 0..3],
        [0..3usize, 0..3],
    )
}

/// The formula of `shape` over `obj`'s roles.
pub fn render<P: Protocol>(obj: &P, (shape, who, kind, what): Shape) -> String {
    let roles = obj.roles();
    let atom = |i: usize| {
        let role = if who[i] == 0 {
            "*".to_string()
        } else {
            roles[who[i] % roles.len()].clone()
        };
        match what[i] {
            0 => format!(r#""{role} {} *""#, ["SEND", "RECV", "CLOSE"][kind[i]]),
            1 if kind[i] == 0 => r#""END""#.to_string(),
            1 => r#""DEADLOCK""#.to_string(),
            _ => format!(r#""{role} {} *""#, ["RECV", "SEND", "RECV"][kind[i]]),
        }
    };
    let (p, q) = (atom(0), atom(1));
    match shape {
        0 => format!("G !{p}"),
        1 => format!("F {p}"),
        2 => format!("G ({p} -> F {q})"),
        3 => format!("G F {p}"),
        4 => format!("F G !{p}"),
        5 => format!("!{p} U {q}"),
        6 => format!("!{p} W {q}"),
        7 => format!("{q} R !{p}"),
        8 => format!("G (!{p} | F {q}) & F {q}"),
        9 => format!("G ({p} -> X {q})"),
        10 => format!("!{p}"),
        _ => r#"G !"DEADLOCK""#.to_string(),
    }
}
