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

    /// Simplified conjunction of simplified NNF operands.
    pub fn and(&mut self, operands: Vec<Ltl>) -> Ltl {
        let Some(v) = crate::ltl::conjuncts(operands) else {
            return Ltl::ff();
        };
        // G a & G b = G (a & b) and X a & X b = X (a & b).
        let v = self.merge_operands(
            Junction::And,
            v,
            |f| matches!(f.kind(), Kind::Globally(g) if !is_eventual(g)),
            |_| false,
            |g| g.children()[0].clone(),
            Self::globally,
        );
        let v = self.merge_operands(
            Junction::And,
            v,
            |f| matches!(f.kind(), Kind::Next(_)),
            |_| false,
            |x| x.children()[0].clone(),
            Self::next,
        );
        self.finish_junction(Junction::And, v)
    }

    /// Simplified disjunction of simplified NNF operands.
    pub fn or(&mut self, operands: Vec<Ltl>) -> Ltl {
        let Some(v) = crate::ltl::disjuncts(operands) else {
            return Ltl::tt();
        };
        // F a | F b = F (a | b), taking the suspendable operands along
        // (F a | s = F (a | s)); X a | X b = X (a | b); G F a | G F b =
        // G F (a | b).
        let v = self.merge_operands(
            Junction::Or,
            v,
            |f| matches!(f.kind(), Kind::Finally(_)),
            is_suspendable,
            |f| f.children()[0].clone(),
            Self::finally,
        );
        let v = self.merge_operands(
            Junction::Or,
            v,
            |f| matches!(f.kind(), Kind::Next(_)),
            |_| false,
            |x| x.children()[0].clone(),
            Self::next,
        );
        let v = self.merge_operands(
            Junction::Or,
            v,
            |f| matches!(f.kind(), Kind::Globally(g) if matches!(g.kind(), Kind::Finally(_))),
            |_| false,
            |gf| gf.children()[0].children()[0].clone(),
            |s, a| {
                let f = s.finally(a);
                s.globally(f)
            },
        );
        self.finish_junction(Junction::Or, v)
    }

    /// `j` of `operands`: [`Self::and`] or [`Self::or`].
    fn junction(&mut self, j: Junction, operands: Vec<Ltl>) -> Ltl {
        match j {
            Junction::And => self.and(operands),
            Junction::Or => self.or(operands),
        }
    }

    /// Merges the operands that `pick` selects into one under their common
    /// operator: the `j` of their `operand`s, rewrapped by `wrap`. Once one
    /// operand is picked, those that `rides_along` selects join the merge
    /// as they are. One picked operand alone stays as it is.
    fn merge_operands(
        &mut self,
        j: Junction,
        v: Vec<Ltl>,
        pick: impl Fn(&Ltl) -> bool,
        rides_along: impl Fn(&Ltl) -> bool,
        operand: impl Fn(&Ltl) -> Ltl,
        wrap: impl Fn(&mut Self, Ltl) -> Ltl,
    ) -> Vec<Ltl> {
        let (picked, rest): (Vec<Ltl>, Vec<Ltl>) = v.into_iter().partition(|f| pick(f));
        let (riders, mut rest): (Vec<Ltl>, Vec<Ltl>) = if picked.is_empty() {
            (vec![], rest)
        } else {
            rest.into_iter().partition(|f| rides_along(f))
        };
        if picked.len() + riders.len() > 1 {
            let inner = picked.iter().map(operand).chain(riders).collect();
            let inner = self.junction(j, inner);
            let merged = wrap(self, inner);
            rest.push(merged);
        } else {
            rest.extend(picked);
        }
        rest
    }

    /// The rules every conjunction (disjunction) ends with: idempotence,
    /// constants, complements, the pair rewrite of [`Self::pair_rewrite`]
    /// and absorption of an operand implied by (implying) another.
    fn finish_junction(&mut self, j: Junction, mut v: Vec<Ltl>) -> Ltl {
        v.sort();
        v.dedup();
        if v.iter().any(|f| j.is_absorbing(f)) {
            return j.absorbing();
        }
        v.retain(|f| !j.is_neutral(f));
        for i in 0..v.len() {
            for k in i + 1..v.len() {
                if literal_complement(&v[i], &v[k]) {
                    return j.absorbing();
                }
            }
        }
        if self.has_complements(&v) {
            return j.absorbing();
        }
        if let Some(m) = self.pair_rewrite(&v, j) {
            return m;
        }
        let mut i = 0;
        while i < v.len() {
            let redundant = (0..v.len()).any(|k| {
                k != i
                    && match j {
                        Junction::And => self.implies(&v[k], &v[i]),
                        Junction::Or => self.implies(&v[i], &v[k]),
                    }
            });
            if redundant {
                v.remove(i);
            } else {
                i += 1;
            }
        }
        match j {
            Junction::And => Ltl::and(v),
            Junction::Or => Ltl::or(v),
        }
    }

    /// The pair rewrites, written once for both junctions: in a
    /// disjunction `G a | (a U b) = a W b`, and `G !x | F (x & e) =
    /// !x W (x & e)` for eventual `e` (at the first `x`, `e` already holds
    /// if it ever does); dually in a conjunction `F a & (a R b) = a M b`,
    /// and `F x & G (!x | u) = x M (!x | u)` for universal `u`. Returns the
    /// rewritten junction if a pair matched.
    fn pair_rewrite(&mut self, v: &[Ltl], d: Junction) -> Option<Ltl> {
        for (i, g) in v.iter().enumerate() {
            let Some(a) = d.outer(g) else {
                continue;
            };
            for (j, h) in v.iter().enumerate() {
                let b = if let Some(b) = d.binary(h, a) {
                    b.clone()
                } else if let Some(b) = d.inner(h) {
                    let parts = d.parts(b);
                    let trigger = parts
                        .iter()
                        .position(|x| !d.rides(x) && self.simp_nnf(&x.negate()) == *a);
                    match trigger {
                        Some(k) if parts.iter().enumerate().all(|(l, c)| l == k || d.rides(c)) => {
                            b.clone()
                        }
                        _ => continue,
                    }
                } else {
                    continue;
                };
                let merged = match d {
                    Junction::Or => self.weak_until(a.clone(), b),
                    Junction::And => self.strong_release(a.clone(), b),
                };
                let mut rest: Vec<Ltl> = v
                    .iter()
                    .enumerate()
                    .filter(|(k, _)| *k != i && *k != j)
                    .map(|(_, f)| f.clone())
                    .collect();
                rest.push(merged);
                return Some(self.junction(d, rest));
            }
        }
        None
    }

    /// Whether some operand is (syntactically, after simplification) the
    /// negation of another: `f & !f = false`, `f | !f = true`.
    fn has_complements(&mut self, v: &[Ltl]) -> bool {
        if v.len() < 2 || v.len() > 16 {
            return false;
        }
        // Literals were checked already, and the negation of a (simplified)
        // non-literal is no literal: with fewer than two non-literal
        // operands there is nothing to find, and no negation to build.
        let literal = |f: &Ltl| matches!(f.kind(), Kind::Atom(_) | Kind::Not(_));
        if v.iter().filter(|f| !literal(f)).count() < 2 {
            return false;
        }
        for i in 0..v.len() {
            if matches!(v[i].kind(), Kind::Atom(_) | Kind::Not(_)) {
                continue; // literals were checked already
            }
            let n = v[i].negate();
            let n = self.simp_nnf(&n);
            if v.contains(&n) {
                return true;
            }
        }
        false
    }

    /// Simplified `X a`.
    pub fn next(&mut self, a: Ltl) -> Ltl {
        if is_suspendable(&a) {
            // Prefix- and suffix-invariant: X s = s (also X true = true).
            return a;
        }
        Ltl::next(a)
    }

    /// Simplified `F a`.
    pub fn finally(&mut self, a: Ltl) -> Ltl {
        if is_eventual(&a) {
            return a;
        }
        match a.kind() {
            Kind::Until(_, b) => self.finally(b.clone()),
            Kind::StrongRelease(x, y) => {
                let c = self.and(vec![x.clone(), y.clone()]);
                self.finally(c)
            }
            Kind::Next(b) => {
                let f = self.finally(b.clone());
                self.next(f)
            }
            Kind::And(v) if v.iter().any(is_suspendable) => {
                let (s, rest): (Vec<Ltl>, Vec<Ltl>) = v.iter().cloned().partition(is_suspendable);
                let rest = self.and(rest);
                let mut parts = s;
                parts.push(self.finally(rest));
                self.and(parts)
            }
            Kind::Or(v) if v.iter().any(|x| is_eventual(x) && !is_universal(x)) => {
                // F (a | e) = F a | e (suspendable operands stay inside).
                let (e, rest): (Vec<Ltl>, Vec<Ltl>) = v
                    .iter()
                    .cloned()
                    .partition(|x| is_eventual(x) && !is_universal(x));
                let rest = self.or(rest);
                let mut parts = e;
                parts.push(self.finally(rest));
                self.or(parts)
            }
            _ => Ltl::finally(a),
        }
    }

    /// Simplified `G a`.
    pub fn globally(&mut self, a: Ltl) -> Ltl {
        if is_universal(&a) {
            return a;
        }
        match a.kind() {
            Kind::Release(_, b) => self.globally(b.clone()),
            Kind::WeakUntil(x, y) => {
                let c = self.or(vec![x.clone(), y.clone()]);
                self.globally(c)
            }
            Kind::Next(b) => {
                let f = self.globally(b.clone());
                self.next(f)
            }
            Kind::Or(v) if v.iter().any(is_suspendable) => {
                let (s, rest): (Vec<Ltl>, Vec<Ltl>) = v.iter().cloned().partition(is_suspendable);
                let rest = self.or(rest);
                let mut parts = s;
                parts.push(self.globally(rest));
                self.or(parts)
            }
            Kind::And(v) if v.iter().any(is_universal) => {
                // G (a & u) = G a & u
                let (u, rest): (Vec<Ltl>, Vec<Ltl>) = v.iter().cloned().partition(is_universal);
                let rest = self.and(rest);
                let mut parts = u;
                parts.push(self.globally(rest));
                self.and(parts)
            }
            Kind::And(v) if v.len() > 1 && v.iter().any(is_eventual) => {
                // G (a & e) = G a & G e, and G e stays apart (G F-like).
                let (e, rest): (Vec<Ltl>, Vec<Ltl>) = v.iter().cloned().partition(is_eventual);
                let rest = self.and(rest);
                let mut parts: Vec<Ltl> = e.into_iter().map(|x| self.globally(x)).collect();
                parts.push(self.globally(rest));
                self.and(parts)
            }
            Kind::Finally(x) if !is_eventual(x) => {
                // G F (a & e) = G F a & G e for eventual e (e holds at every
                // position up to any position where it holds).
                if let Kind::And(v) = x.kind() {
                    if v.iter().any(is_eventual) {
                        let (e, rest): (Vec<Ltl>, Vec<Ltl>) =
                            v.iter().cloned().partition(is_eventual);
                        let rest = self.and(rest);
                        let f = self.finally(rest);
                        let mut parts: Vec<Ltl> = e.into_iter().map(|x| self.globally(x)).collect();
                        parts.push(self.globally(f));
                        return self.and(parts);
                    }
                }
                Ltl::globally(a)
            }
            _ => Ltl::globally(a),
        }
    }

    /// Simplified `a U b`.
    pub fn until(&mut self, a: Ltl, b: Ltl) -> Ltl {
        if b.is_true() || b.is_false() || a.is_false() || a == b {
            return b;
        }
        if a.is_true() {
            return self.finally(b);
        }
        if self.implies(&a, &b) {
            return b;
        }
        if matches!(b.kind(), Kind::Until(x, _) if *x == a) {
            return b;
        }
        // a U (b | G a) = a W b, a U G a = G a
        let ga = Ltl::globally(a.clone());
        if b == ga {
            return b;
        }
        if let Kind::Or(v) = b.kind() {
            if v.contains(&ga) {
                let rest = self.or(v.iter().filter(|x| **x != ga).cloned().collect());
                return self.weak_until(a, rest);
            }
        }
        if let (Kind::Next(x), Kind::Next(y)) = (a.kind(), b.kind()) {
            let u = self.until(x.clone(), y.clone());
            return self.next(u);
        }
        if is_eventual(&b) && is_universal(&b) {
            // a U s = s for suspendable s? Not in general (a U F G x needs
            // nothing of a): indeed a U b holds as soon as b does, and b is
            // prefix-closed, so a U b = b.
            return b;
        }
        Ltl::until(a, b)
    }

    /// Simplified `a W b`.
    pub fn weak_until(&mut self, a: Ltl, b: Ltl) -> Ltl {
        if b.is_true() || a.is_false() || a == b {
            return b;
        }
        if a.is_true() {
            return a;
        }
        if b.is_false() {
            return self.globally(a);
        }
        if self.implies(&a, &b) {
            return b;
        }
        if matches!(b.kind(), Kind::WeakUntil(x, _) if *x == a) {
            return b;
        }
        if let (Kind::Next(x), Kind::Next(y)) = (a.kind(), b.kind()) {
            let u = self.weak_until(x.clone(), y.clone());
            return self.next(u);
        }
        Ltl::weak_until(a, b)
    }

    /// Simplified `a R b`.
    pub fn release(&mut self, a: Ltl, b: Ltl) -> Ltl {
        if b.is_true() || b.is_false() || a.is_true() || a == b {
            return b;
        }
        if a.is_false() {
            return self.globally(b);
        }
        if self.implies(&b, &a) {
            return b;
        }
        if matches!(b.kind(), Kind::Release(x, _) if *x == a) {
            return b;
        }
        // a R (b & F a) = a M b, a R F a = F a
        let fa = Ltl::finally(a.clone());
        if b == fa {
            return b;
        }
        if let Kind::And(v) = b.kind() {
            if v.contains(&fa) {
                let rest = self.and(v.iter().filter(|x| **x != fa).cloned().collect());
                return self.strong_release(a, rest);
            }
        }
        if let (Kind::Next(x), Kind::Next(y)) = (a.kind(), b.kind()) {
            let u = self.release(x.clone(), y.clone());
            return self.next(u);
        }
        Ltl::release(a, b)
    }

    /// Simplified `a M b`.
    pub fn strong_release(&mut self, a: Ltl, b: Ltl) -> Ltl {
        if b.is_false() || a.is_false() || a.is_true() || a == b {
            return if a.is_false() { a } else { b };
        }
        if b.is_true() {
            return self.finally(a);
        }
        if self.implies(&b, &a) {
            return b;
        }
        if matches!(b.kind(), Kind::StrongRelease(x, _) if *x == a) {
            return b;
        }
        if let (Kind::Next(x), Kind::Next(y)) = (a.kind(), b.kind()) {
            let u = self.strong_release(x.clone(), y.clone());
            return self.next(u);
        }
        Ltl::strong_release(a, b)
    }

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

/// Conjunction or disjunction: the rules of [`Simplifier::and`] and
/// [`Simplifier::or`] are each other's duals, and this says which side
/// plays which part (in [`Simplifier::pair_rewrite`]: `G a | (a U b)` or
/// `G a | F b` in a disjunction, `F a & (a R b)` or `F a & G b` in a
/// conjunction).
#[derive(Clone, Copy)]
enum Junction {
    And,
    Or,
}

impl Junction {
    /// The constant that absorbs the junction: `false` for `&`.
    fn absorbing(self) -> Ltl {
        match self {
            Junction::And => Ltl::ff(),
            Junction::Or => Ltl::tt(),
        }
    }

    /// Whether `f` is [`Self::absorbing`].
    fn is_absorbing(self, f: &Ltl) -> bool {
        match self {
            Junction::And => f.is_false(),
            Junction::Or => f.is_true(),
        }
    }

    /// Whether `f` is the junction's neutral constant: `true` for `&`.
    fn is_neutral(self, f: &Ltl) -> bool {
        match self {
            Junction::And => f.is_true(),
            Junction::Or => f.is_false(),
        }
    }

    /// `a` of the outer `F a` / `G a`.
    fn outer(self, f: &Ltl) -> Option<&Ltl> {
        match (self, f.kind()) {
            (Junction::Or, Kind::Globally(a)) | (Junction::And, Kind::Finally(a)) => Some(a),
            _ => None,
        }
    }

    /// `b` of `a R b` / `a U b` with the given `a`.
    fn binary<'f>(self, f: &'f Ltl, a: &Ltl) -> Option<&'f Ltl> {
        match (self, f.kind()) {
            (Junction::Or, Kind::Until(x, b)) | (Junction::And, Kind::Release(x, b)) if x == a => {
                Some(b)
            }
            _ => None,
        }
    }

    /// `b` of the other unary operator: `G b` / `F b`.
    fn inner(self, f: &Ltl) -> Option<&Ltl> {
        match (self, f.kind()) {
            (Junction::Or, Kind::Finally(b)) | (Junction::And, Kind::Globally(b)) => Some(b),
            _ => None,
        }
    }

    /// The disjuncts / conjuncts of `b`.
    fn parts(self, b: &Ltl) -> Vec<Ltl> {
        match (self, b.kind()) {
            (Junction::Or, Kind::And(c)) | (Junction::And, Kind::Or(c)) => c.clone(),
            _ => vec![b.clone()],
        }
    }

    /// Universal / eventual: the parts that may ride along.
    fn rides(self, f: &Ltl) -> bool {
        match self {
            Junction::Or => is_eventual(f),
            Junction::And => is_universal(f),
        }
    }
}
