//! Formula simplification: negation normal form plus the standard rewrite
//! rules, applied bottom-up by smart constructors.
//!
//! Rules (all language-preserving; `e` is an *eventual* formula, one that
//! holds after any prefix if it holds at all, like `F a` or `G F a`; `u` is
//! *universal*, one that holds on every suffix if it holds, like `G a` or
//! `F G a`; `s` is both):
//!
//! | rule | example |
//! |------|---------|
//! | constant folding | `a & false = false`, `X true = true`, `a U false = false` |
//! | idempotence, complements | `a & a = a`, `a & !a = false`, `a \| !a = true` |
//! | absorption by syntactic implication | `a & (a \| b) = a`, `F a & G F a = G F a`, `a U b = b` if `a ⇒ b` |
//! | `F e = e`, `G u = u` | `F F a = F a`, `F G F a = G F a`, `G F G a = F G a` |
//! | until/release chains | `a U (a U b) = a U b`, `a R (a R b) = a R b` |
//! | eventualities of binary operators | `F (a U b) = F b`, `F (a M b) = F (a & b)`, `G (a R b) = G b`, `G (a W b) = G (a \| b)` |
//! | `X` commutes | `F X a = X F a`, `G X a = X G a`, `X a U X b = X (a U b)`, `X a & X b = X (a & b)` |
//! | merging | `G a & G b = G (a & b)`, `F a \| F b = F (a \| b)`, `G F a \| G F b = G F (a \| b)` |
//! | suspension | `F (a & s) = F a & s`, `G (a \| s) = G a \| s` |
//!
//! Syntactic implication (`f ⇒ g`) follows Somenzi and Bloem (CAV'00): it is
//! sound but incomplete, so it only ever removes operands that are truly
//! redundant.

use hashbrown::HashMap;

mod implication;
mod junction;
mod temporal;

use crate::ltl::{Kind, Ltl};

/// A simplifier with memo tables; reuse one for many related formulas.
#[derive(Default)]
pub struct Simplifier {
    simp: HashMap<Ltl, Ltl>,
    imp: HashMap<(Ltl, Ltl), bool>,
}

fn is_eventual(f: &Ltl) -> bool {
    match f.kind() {
        Kind::True | Kind::False | Kind::Finally(_) => true,
        Kind::Globally(g) | Kind::Next(g) => is_eventual(g),
        Kind::And(v) | Kind::Or(v) => v.iter().all(is_eventual),
        Kind::Until(a, b) => a.is_true() || is_eventual(b) && is_eventual(a),
        Kind::StrongRelease(a, b) => is_eventual(a) && is_eventual(b),
        _ => false,
    }
}

fn is_universal(f: &Ltl) -> bool {
    match f.kind() {
        Kind::True | Kind::False | Kind::Globally(_) => true,
        Kind::Finally(g) | Kind::Next(g) => is_universal(g),
        Kind::And(v) | Kind::Or(v) => v.iter().all(is_universal),
        Kind::Release(a, b) => a.is_false() || is_universal(a) && is_universal(b),
        Kind::WeakUntil(a, b) => is_universal(a) && is_universal(b),
        _ => false,
    }
}

fn is_suspendable(f: &Ltl) -> bool {
    is_eventual(f) && is_universal(f)
}

fn literal_complement(a: &Ltl, b: &Ltl) -> bool {
    matches!(a.kind(), Kind::Not(x) if x == b) || matches!(b.kind(), Kind::Not(x) if x == a)
}

// Here rather than in `ltl.rs`, so that the formula module does not
// import its simplifier (which imports it).
impl Ltl {
    /// The formula simplified with the standard rewrite rules (in negation
    /// normal form); see [`crate::simplify`].
    pub fn simplify(&self) -> Ltl {
        Simplifier::new().simplify(self)
    }
}

impl Simplifier {
    /// A fresh simplifier.
    pub fn new() -> Self {
        Self::default()
    }

    /// Simplifies `f` (the result is in negation normal form).
    ///
    /// ```
    /// let f = owl_lite::parse("F F a & G F G b & (c U (c U d))").unwrap();
    /// assert_eq!(f.simplify().to_string(), "F a & (c U d) & F G b");
    /// ```
    pub fn simplify(&mut self, f: &Ltl) -> Ltl {
        let n = f.nnf();
        self.simp_nnf(&n)
    }

    fn simp_nnf(&mut self, f: &Ltl) -> Ltl {
        if let Some(r) = self.simp.get(f) {
            return r.clone();
        }
        let cs: Vec<Ltl> = f.children().iter().map(|c| self.simp_nnf(c)).collect();
        let r = self.rebuild(f, cs);
        self.simp.insert(f.clone(), r.clone());
        r
    }

    fn rebuild(&mut self, f: &Ltl, mut cs: Vec<Ltl>) -> Ltl {
        let two = |cs: &mut Vec<Ltl>| {
            let b = cs.pop().expect("binary");
            (cs.pop().expect("binary"), b)
        };
        match f.kind() {
            Kind::True | Kind::False | Kind::Atom(_) | Kind::Not(_) => f.clone(),
            Kind::And(_) => self.and(cs),
            Kind::Or(_) => self.or(cs),
            Kind::Next(_) => self.next(cs.pop().expect("unary")),
            Kind::Finally(_) => self.finally(cs.pop().expect("unary")),
            Kind::Globally(_) => self.globally(cs.pop().expect("unary")),
            Kind::Until(..) => {
                let (a, b) = two(&mut cs);
                self.until(a, b)
            }
            Kind::WeakUntil(..) => {
                let (a, b) = two(&mut cs);
                self.weak_until(a, b)
            }
            Kind::Release(..) => {
                let (a, b) = two(&mut cs);
                self.release(a, b)
            }
            Kind::StrongRelease(..) => {
                let (a, b) = two(&mut cs);
                self.strong_release(a, b)
            }
            Kind::Implies(..) | Kind::Equiv(..) | Kind::Xor(..) => {
                unreachable!("not in negation normal form")
            }
        }
    }
}
