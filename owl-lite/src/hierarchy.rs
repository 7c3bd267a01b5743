//! Syntactic classes of the temporal hierarchy (Manna and Pnueli; the
//! syntactic fragments of Černá and Pelánek): which formulas are *safety*,
//! *guarantee* (co-safety) or *obligation* by their shape alone.
//!
//! Deliberately the conservative closure: literals; `&`, `|`, `X` of a
//! class stay in it; `G`, `W`, `R` of safety formulas are safety; `F`, `U`,
//! `M` of guarantee formulas are guarantee; negation swaps the two;
//! Boolean combinations of safety and guarantee formulas are obligations.
//! A formula outside these fragments may still *denote* an obligation
//! language; callers that need to know then check the automaton (the WDBA
//! minimisation does, with the automata of the formula and its negation).

use crate::ltl::{Kind, Ltl};

/// Whether `f` is a syntactic safety formula: every violation has a bad
/// finite prefix.
pub(crate) fn is_safety(f: &Ltl) -> bool {
    match f.kind() {
        Kind::True | Kind::False | Kind::Atom(_) => true,
        Kind::Not(x) => is_guarantee(x),
        Kind::And(v) | Kind::Or(v) => v.iter().all(is_safety),
        Kind::Next(x) | Kind::Globally(x) => is_safety(x),
        Kind::WeakUntil(a, b) | Kind::Release(a, b) => is_safety(a) && is_safety(b),
        Kind::Implies(a, b) => is_guarantee(a) && is_safety(b),
        _ => false,
    }
}

/// Whether `f` is a syntactic guarantee formula: every model has a good
/// finite prefix.
pub(crate) fn is_guarantee(f: &Ltl) -> bool {
    match f.kind() {
        Kind::True | Kind::False | Kind::Atom(_) => true,
        Kind::Not(x) => is_safety(x),
        Kind::And(v) | Kind::Or(v) => v.iter().all(is_guarantee),
        Kind::Next(x) | Kind::Finally(x) => is_guarantee(x),
        Kind::Until(a, b) | Kind::StrongRelease(a, b) => is_guarantee(a) && is_guarantee(b),
        Kind::Implies(a, b) => is_safety(a) && is_guarantee(b),
        _ => false,
    }
}

/// Whether `f` is a syntactic obligation formula: a Boolean combination
/// (under `X` too) of safety and guarantee formulas. Its language is then
/// recognised by a weak deterministic Büchi automaton.
pub(crate) fn is_obligation(f: &Ltl) -> bool {
    if is_safety(f) || is_guarantee(f) {
        return true;
    }
    match f.kind() {
        Kind::Not(x) | Kind::Next(x) => is_obligation(x),
        Kind::And(v) | Kind::Or(v) => v.iter().all(is_obligation),
        Kind::Implies(a, b) | Kind::Equiv(a, b) | Kind::Xor(a, b) => {
            is_obligation(a) && is_obligation(b)
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse;

    fn class(text: &str) -> (bool, bool, bool) {
        let f = parse(text).unwrap();
        (is_safety(&f), is_guarantee(&f), is_obligation(&f))
    }

    #[test]
    fn classes_of_typical_formulas() {
        assert_eq!(class("G (a -> X b)"), (true, false, true));
        assert_eq!(class("a U (b & F c)"), (false, true, true));
        assert_eq!(class("F a -> (!b U a)"), (false, false, true));
        assert_eq!(class("!(F a <-> F b)"), (false, false, true));
        // Recurrence and persistence are not obligations.
        assert_eq!(class("G F a"), (false, false, false));
        assert_eq!(class("F G a"), (false, false, false));
        assert_eq!(class("G (a -> F b)"), (false, false, false));
        // `a -> F b` is `!a | F b`, a guarantee.
        assert_eq!(class("(a -> F b) U c"), (false, true, true));
        // `(G a) U b` denotes an obligation, but outside the fragment.
        assert_eq!(class("(G a) U b"), (false, false, false));
    }
}
