//! Tautology and contradiction detection of subformulas by their automata
//! (the language-containment checks of Spot's simplifier, restricted to
//! the cheapest case): a disjunction whose negation has an empty automaton
//! is `true`, a conjunction whose automaton is empty is `false`.
//!
//! Syntactic rules miss these: `(X p0 U p1) | !X (p0 U (p0 & p1))` holds on
//! every word (if `p1` holds at 1 the first disjunct's `X p0 U p1` needs
//! … the case analysis is over three positions), and inside
//! `G (p0 -> F p1) & …` it keeps the automaton at 6 states instead of 2.
//!
//! Each check is a translation, so only the nodes that can be constant for
//! a non-obvious reason are checked: `&` and `|` nodes with at least two
//! temporal operands that share an atom (operands over disjoint atoms
//! that are not constant themselves cannot make a constant), of bounded
//! size. The checks translate without reductions, WDBA minimisation or
//! further constant detection: emptiness needs none of them.

use hashbrown::HashMap;

use crate::ltl::{Kind, Ltl};

/// Nodes this large or larger (counting shared subformulas once per
/// occurrence) are not checked: the translation would cost more than the
/// rare constant saves, and a node of a few dozen operators can already
/// need thousands of states (`F a & F b & …`).
const MAX_NODE_SIZE: usize = 24;

fn is_temporal(f: &Ltl) -> bool {
    !matches!(
        f.kind(),
        Kind::True | Kind::False | Kind::Atom(_) | Kind::Not(_)
    ) && !matches!(f.kind(), Kind::And(v) | Kind::Or(v) if v.iter().all(|c| !is_temporal(c)))
}

/// The number of operators and leaves of `f` as a tree, counted only up
/// to `limit` (a shared DAG can be exponentially larger as a tree).
fn size_up_to(f: &Ltl, limit: usize) -> usize {
    let mut n = 1;
    for c in f.children() {
        if n >= limit {
            break;
        }
        n += size_up_to(&c, limit - n);
    }
    n
}

/// Whether the node deserves a check: two temporal operands with a
/// common atom, and not too large.
fn worth_checking(operands: &[Ltl]) -> bool {
    // The size first: it is bounded, the rest then runs on small formulas.
    let mut size = 0;
    for c in operands {
        if size >= MAX_NODE_SIZE {
            return false;
        }
        size += size_up_to(c, MAX_NODE_SIZE - size);
    }
    if size >= MAX_NODE_SIZE {
        return false;
    }
    let temporal: Vec<Vec<String>> = operands
        .iter()
        .filter(|c| is_temporal(c))
        .map(|c| c.atoms())
        .collect();
    temporal.iter().enumerate().any(|(i, a)| {
        temporal[i + 1..]
            .iter()
            .any(|b| a.iter().any(|x| b.contains(x)))
    })
}

/// `f` (in negation normal form) with its constant `&` and `|` nodes
/// replaced by `false` and `true`; the caller simplifies the result again.
/// `unsatisfiable` tells whether a formula has no model (the translation
/// does: it is passed in, so that this module does not import the
/// translation that calls it).
pub(crate) fn replace_constants(f: &Ltl, unsatisfiable: &dyn Fn(&Ltl) -> bool) -> Ltl {
    let mut memo = HashMap::new();
    walk(f, unsatisfiable, &mut memo)
}

fn walk(f: &Ltl, unsatisfiable: &dyn Fn(&Ltl) -> bool, memo: &mut HashMap<Ltl, Ltl>) -> Ltl {
    if let Some(r) = memo.get(f) {
        return r.clone();
    }
    let r = match f.kind() {
        Kind::True | Kind::False | Kind::Atom(_) | Kind::Not(_) => f.clone(),
        Kind::And(v) | Kind::Or(v) => {
            let cs: Vec<Ltl> = v.iter().map(|c| walk(c, unsatisfiable, memo)).collect();
            let and = matches!(f.kind(), Kind::And(_));
            let node = if and {
                Ltl::and(cs.clone())
            } else {
                Ltl::or(cs.clone())
            };
            if !worth_checking(&cs) {
                node
            } else if and && unsatisfiable(&node) {
                Ltl::ff()
            } else if !and && unsatisfiable(&node.negate()) {
                Ltl::tt()
            } else {
                node
            }
        }
        Kind::Next(a) => Ltl::next(walk(a, unsatisfiable, memo)),
        Kind::Finally(a) => Ltl::finally(walk(a, unsatisfiable, memo)),
        Kind::Globally(a) => Ltl::globally(walk(a, unsatisfiable, memo)),
        Kind::Until(a, b) => Ltl::until(walk(a, unsatisfiable, memo), walk(b, unsatisfiable, memo)),
        Kind::WeakUntil(a, b) => {
            Ltl::weak_until(walk(a, unsatisfiable, memo), walk(b, unsatisfiable, memo))
        }
        Kind::Release(a, b) => {
            Ltl::release(walk(a, unsatisfiable, memo), walk(b, unsatisfiable, memo))
        }
        Kind::StrongRelease(a, b) => {
            Ltl::strong_release(walk(a, unsatisfiable, memo), walk(b, unsatisfiable, memo))
        }
        Kind::Implies(a, b) => {
            Ltl::implies(walk(a, unsatisfiable, memo), walk(b, unsatisfiable, memo))
        }
        Kind::Equiv(a, b) => Ltl::equiv(walk(a, unsatisfiable, memo), walk(b, unsatisfiable, memo)),
        Kind::Xor(a, b) => Ltl::xor(walk(a, unsatisfiable, memo), walk(b, unsatisfiable, memo)),
    };
    memo.insert(f.clone(), r.clone());
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse;
    use crate::translate::{translate, TranslateOptions};

    fn states(text: &str) -> usize {
        translate(&parse(text).unwrap(), &TranslateOptions::default())
            .unwrap()
            .num_states()
    }

    #[test]
    fn a_tautology_inside_a_conjunction_disappears() {
        // Spot: 2 states (the automaton of `G (p0 -> F p1)` alone).
        assert_eq!(
            states("G (p0 -> F p1) & ((X p0 U p1) | !X (p0 U (p0 & p1)))"),
            2
        );
        assert_eq!(states("G (p0 -> F p1)"), 2);
    }

    #[test]
    fn a_contradiction_inside_a_disjunction_disappears() {
        // The negation of the tautology above is empty: it vanishes.
        let f = "G (p0 -> F p1) | ((!X p0 R !p1) & X (p0 U (p0 & p1)))";
        assert_eq!(states(f), states("G (p0 -> F p1)"));
    }

    #[test]
    fn only_shared_temporal_operands_are_checked() {
        let f = |s: &str| parse(s).unwrap().nnf();
        let ops = |g: Ltl| g.children();
        assert!(worth_checking(&ops(f("F a | G a"))));
        assert!(!worth_checking(&ops(f("F a | G b"))), "no common atom");
        assert!(!worth_checking(&ops(f("a | G a"))), "one temporal operand");
    }
}
