//! Syntactic implication between formulas (Somenzi and Bloem, CAV'00).
//! Its own file because it is the one query (not a rewrite) the rules ask,
//! with its own memo table.

use super::Simplifier;
use crate::ltl::{Kind, Ltl};

impl Simplifier {
    /// Sound syntactic implication between NNF formulas: `true` only if
    /// every word satisfying `f` satisfies `g`.
    pub fn implies(&mut self, f: &Ltl, g: &Ltl) -> bool {
        if f == g || f.is_false() || g.is_true() {
            return true;
        }
        if f.is_true() || g.is_false() {
            return false;
        }
        let key = (f.clone(), g.clone());
        if let Some(&r) = self.imp.get(&key) {
            return r;
        }
        // Provisional answer guards against (impossible, but cheap to rule
        // out) cycles.
        self.imp.insert(key.clone(), false);
        let r = self.implies_uncached(f, g);
        self.imp.insert(key, r);
        r
    }

    fn implies_uncached(&mut self, f: &Ltl, g: &Ltl) -> bool {
        match g.kind() {
            Kind::Or(gs) if gs.iter().any(|x| self.implies(f, x)) => return true,
            Kind::And(gs) if gs.iter().all(|x| self.implies(f, x)) => return true,
            _ => {}
        }
        match f.kind() {
            Kind::Or(fs) if fs.iter().all(|x| self.implies(x, g)) => return true,
            Kind::And(fs) if fs.iter().any(|x| self.implies(x, g)) => return true,
            _ => {}
        }
        match (f.kind(), g.kind()) {
            (Kind::Next(a), Kind::Next(b)) if self.implies(a, b) => return true,
            (Kind::Finally(a), Kind::Finally(b)) if self.implies(a, b) => return true,
            (Kind::Globally(a), Kind::Globally(b)) if self.implies(a, b) => return true,
            (Kind::Until(a, b), Kind::Until(c, d))
            | (Kind::WeakUntil(a, b), Kind::WeakUntil(c, d))
            | (Kind::Until(a, b), Kind::WeakUntil(c, d))
            | (Kind::Release(a, b), Kind::Release(c, d))
            | (Kind::StrongRelease(a, b), Kind::StrongRelease(c, d))
            | (Kind::StrongRelease(a, b), Kind::Release(c, d))
                if self.implies(a, c) && self.implies(b, d) =>
            {
                return true
            }
            _ => {}
        }
        // Rules on the shape of g.
        let by_g = match g.kind() {
            // f ⇒ b suffices for F b, a U b, a W b.
            Kind::Finally(b) | Kind::Until(_, b) | Kind::WeakUntil(_, b) => {
                let eventual_g = matches!(g.kind(), Kind::Finally(_));
                self.implies(f, b)
                    // X x ⇒ F b and F x ⇒ F b if x ⇒ F b.
                    || eventual_g
                        && matches!(f.kind(), Kind::Next(x) | Kind::Finally(x) if self.implies(x, g))
            }
            // a & b ⇒ a R b, a M b
            Kind::Release(a, b) | Kind::StrongRelease(a, b) => {
                self.implies(f, a) && self.implies(f, b)
            }
            _ => false,
        };
        if by_g {
            return true;
        }
        if let Kind::WeakUntil(a, _) = g.kind() {
            // G x ⇒ a W b if x ⇒ a
            if let Kind::Globally(x) = f.kind() {
                if self.implies(x, a) {
                    return true;
                }
            }
        }
        if let Kind::Release(_, b) = g.kind() {
            if let Kind::Globally(x) = f.kind() {
                if self.implies(x, b) {
                    return true;
                }
            }
        }
        // Rules on the shape of f: what f guarantees now.
        match f.kind() {
            // G a ⇒ a
            Kind::Globally(a) => self.implies(a, g),
            // a U b and a W b ⇒ a | b now; a R b and a M b ⇒ b now.
            Kind::Until(a, b) | Kind::WeakUntil(a, b) => self.implies(a, g) && self.implies(b, g),
            Kind::Release(_, b) | Kind::StrongRelease(_, b) => self.implies(b, g),
            _ => false,
        }
    }
}
