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

use hashbrown::HashMap;

use crate::ltl::{Kind, Ltl};

/// Whether `f` is a syntactic safety formula: every violation has a bad
/// finite prefix.
#[cfg(test)]
pub(crate) fn is_safety(f: &Ltl) -> bool {
    Classes::default().safety(f)
}

/// Whether `f` is a syntactic guarantee formula: every model has a good
/// finite prefix.
#[cfg(test)]
pub(crate) fn is_guarantee(f: &Ltl) -> bool {
    Classes::default().guarantee(f)
}

/// Whether `f` is a syntactic obligation formula: a Boolean combination
/// (under `X` too) of safety and guarantee formulas. Its language is then
/// recognised by a weak deterministic Büchi automaton.
pub(crate) fn is_obligation(f: &Ltl) -> bool {
    Classes::default().obligation(f)
}

/// The classes of the nodes of one formula, each decided once. Formulas
/// are DAGs: the negation normal form of a chain of `n` `<->` or `^` shares
/// every operand twice, a tree of `2^n` nodes, and a walk of the tree took
/// minutes on a 600-byte formula.
#[derive(Default)]
pub(crate) struct Classes {
    safety: HashMap<Ltl, bool>,
    guarantee: HashMap<Ltl, bool>,
    obligation: HashMap<Ltl, bool>,
    /// Nodes classified (each at most once per class), for the tests.
    pub(crate) visits: u64,
}

impl Classes {
    /// See [`is_safety`].
    pub(crate) fn safety(&mut self, f: &Ltl) -> bool {
        if let Some(&r) = self.safety.get(f) {
            return r;
        }
        self.visits += 1;
        let r = match f.kind() {
            Kind::True | Kind::False | Kind::Atom(_) => true,
            Kind::Not(x) => self.guarantee(x),
            Kind::And(v) | Kind::Or(v) => v.iter().all(|x| self.safety(x)),
            Kind::Next(x) | Kind::Globally(x) => self.safety(x),
            Kind::WeakUntil(a, b) | Kind::Release(a, b) => self.safety(a) && self.safety(b),
            Kind::Implies(a, b) => self.guarantee(a) && self.safety(b),
            _ => false,
        };
        self.safety.insert(f.clone(), r);
        r
    }

    /// See [`is_guarantee`].
    pub(crate) fn guarantee(&mut self, f: &Ltl) -> bool {
        if let Some(&r) = self.guarantee.get(f) {
            return r;
        }
        self.visits += 1;
        let r = match f.kind() {
            Kind::True | Kind::False | Kind::Atom(_) => true,
            Kind::Not(x) => self.safety(x),
            Kind::And(v) | Kind::Or(v) => v.iter().all(|x| self.guarantee(x)),
            Kind::Next(x) | Kind::Finally(x) => self.guarantee(x),
            Kind::Until(a, b) | Kind::StrongRelease(a, b) => self.guarantee(a) && self.guarantee(b),
            Kind::Implies(a, b) => self.safety(a) && self.guarantee(b),
            _ => false,
        };
        self.guarantee.insert(f.clone(), r);
        r
    }

    /// See [`is_obligation`].
    pub(crate) fn obligation(&mut self, f: &Ltl) -> bool {
        if let Some(&r) = self.obligation.get(f) {
            return r;
        }
        self.visits += 1;
        let r = self.safety(f)
            || self.guarantee(f)
            || match f.kind() {
                Kind::Not(x) | Kind::Next(x) => self.obligation(x),
                Kind::And(v) | Kind::Or(v) => v.iter().all(|x| self.obligation(x)),
                Kind::Implies(a, b) | Kind::Equiv(a, b) | Kind::Xor(a, b) => {
                    self.obligation(a) && self.obligation(b)
                }
                _ => false,
            };
        self.obligation.insert(f.clone(), r);
        r
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

    #[test]
    fn shared_subformulas_are_classified_once() {
        // The negation normal form of 40 `<->` shares each operand twice:
        // a tree of 2^40 nodes that the classification walked.
        let text: Vec<&str> = (0..40).map(|i| ["F a", "G b"][i % 2]).collect();
        let f = parse(&text.join(" <-> ")).unwrap().nnf();
        let mut nodes = hashbrown::HashSet::new();
        let mut stack = vec![f.clone()];
        while let Some(g) = stack.pop() {
            if nodes.insert(g.clone()) {
                stack.extend(g.children());
            }
        }
        let mut classes = Classes::default();
        // A Boolean combination of safety and guarantee formulas.
        assert!(classes.obligation(&f));
        assert!(!classes.safety(&f) && !classes.guarantee(&f));
        let nodes = nodes.len() as u64;
        assert!(nodes < 1000, "{nodes}");
        assert!(
            classes.visits <= 3 * nodes,
            "{} visits for {nodes} nodes",
            classes.visits
        );
    }
}
