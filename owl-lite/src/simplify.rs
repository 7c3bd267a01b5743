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
        // Merge G's, X's and F G's.
        let (gs, rest): (Vec<Ltl>, Vec<Ltl>) = v
            .into_iter()
            .partition(|f| matches!(f.kind(), Kind::Globally(g) if !is_eventual(g)));
        let mut v = rest;
        if gs.len() > 1 {
            let inner = gs.iter().map(|g| g.children()[0].clone()).collect();
            let inner = self.and(inner);
            v.push(self.globally(inner));
        } else {
            v.extend(gs);
        }
        let (xs, rest): (Vec<Ltl>, Vec<Ltl>) = v
            .into_iter()
            .partition(|f| matches!(f.kind(), Kind::Next(_)));
        let mut v = rest;
        if xs.len() > 1 {
            let inner = xs.iter().map(|g| g.children()[0].clone()).collect();
            let inner = self.and(inner);
            v.push(self.next(inner));
        } else {
            v.extend(xs);
        }
        v.sort();
        v.dedup();
        if v.iter().any(Ltl::is_false) {
            return Ltl::ff();
        }
        v.retain(|f| !f.is_true());
        for i in 0..v.len() {
            for j in i + 1..v.len() {
                if literal_complement(&v[i], &v[j]) {
                    return Ltl::ff();
                }
            }
        }
        if self.has_complements(&v) {
            return Ltl::ff();
        }
        if let Some(m) = self.strong_release_from_and(&v) {
            return m;
        }
        // Drop operands implied by another one.
        let mut i = 0;
        while i < v.len() {
            let redundant = (0..v.len()).any(|j| j != i && self.implies(&v[j], &v[i]));
            if redundant {
                v.remove(i);
            } else {
                i += 1;
            }
        }
        Ltl::and(v)
    }

    /// Simplified disjunction of simplified NNF operands.
    pub fn or(&mut self, operands: Vec<Ltl>) -> Ltl {
        let Some(v) = crate::ltl::disjuncts(operands) else {
            return Ltl::tt();
        };
        // Merge F's (with the suspendable operands: F a | s = F (a | s)),
        // X's, and G F's.
        let (fs, rest): (Vec<Ltl>, Vec<Ltl>) = v
            .into_iter()
            .partition(|f| matches!(f.kind(), Kind::Finally(_)));
        let (ss, rest): (Vec<Ltl>, Vec<Ltl>) = if fs.is_empty() {
            (vec![], rest)
        } else {
            rest.into_iter().partition(is_suspendable)
        };
        let mut v = rest;
        if fs.len() + ss.len() > 1 {
            let inner = fs
                .iter()
                .map(|g| g.children()[0].clone())
                .chain(ss)
                .collect();
            let inner = self.or(inner);
            v.push(self.finally(inner));
        } else {
            v.extend(fs);
        }
        let (xs, rest): (Vec<Ltl>, Vec<Ltl>) = v
            .into_iter()
            .partition(|f| matches!(f.kind(), Kind::Next(_)));
        let mut v = rest;
        if xs.len() > 1 {
            let inner = xs.iter().map(|g| g.children()[0].clone()).collect();
            let inner = self.or(inner);
            v.push(self.next(inner));
        } else {
            v.extend(xs);
        }
        let (gfs, rest): (Vec<Ltl>, Vec<Ltl>) = v.into_iter().partition(
            |f| matches!(f.kind(), Kind::Globally(g) if matches!(g.kind(), Kind::Finally(_))),
        );
        let mut v = rest;
        if gfs.len() > 1 {
            let inner = gfs
                .iter()
                .map(|g| g.children()[0].children()[0].clone())
                .collect();
            let inner = self.or(inner);
            let f = self.finally(inner);
            v.push(self.globally(f));
        } else {
            v.extend(gfs);
        }
        v.sort();
        v.dedup();
        if v.iter().any(Ltl::is_true) {
            return Ltl::tt();
        }
        v.retain(|f| !f.is_false());
        for i in 0..v.len() {
            for j in i + 1..v.len() {
                if literal_complement(&v[i], &v[j]) {
                    return Ltl::tt();
                }
            }
        }
        if self.has_complements(&v) {
            return Ltl::tt();
        }
        if let Some(w) = self.weak_until_from_or(&v) {
            return w;
        }
        // Drop operands that imply another one.
        let mut i = 0;
        while i < v.len() {
            let redundant = (0..v.len()).any(|j| j != i && self.implies(&v[i], &v[j]));
            if redundant {
                v.remove(i);
            } else {
                i += 1;
            }
        }
        Ltl::or(v)
    }

    /// `G a | (a U b) = a W b`, and `G !x | F (x & e) = !x W (x & e)` for
    /// eventual `e` (at the first `x`, `e` already holds if it ever does).
    /// Returns the rewritten disjunction if a pair matched.
    fn weak_until_from_or(&mut self, v: &[Ltl]) -> Option<Ltl> {
        self.pair_rewrite(v, Dual::WeakUntil)
    }

    /// The dual of [`Self::weak_until_from_or`]: `F a & (a R b) = a M b`,
    /// and `F x & G (!x | u) = x M (!x | u)` for universal `u`.
    fn strong_release_from_and(&mut self, v: &[Ltl]) -> Option<Ltl> {
        self.pair_rewrite(v, Dual::StrongRelease)
    }

    /// The rewrite of [`Self::weak_until_from_or`] and its dual, written
    /// once: `d` says which operators play which part.
    fn pair_rewrite(&mut self, v: &[Ltl], d: Dual) -> Option<Ltl> {
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
                        .position(|x| !d.absorbing(x) && self.simp_nnf(&x.negate()) == *a);
                    match trigger {
                        Some(k)
                            if parts
                                .iter()
                                .enumerate()
                                .all(|(l, c)| l == k || d.absorbing(c)) =>
                        {
                            b.clone()
                        }
                        _ => continue,
                    }
                } else {
                    continue;
                };
                let merged = match d {
                    Dual::WeakUntil => self.weak_until(a.clone(), b),
                    Dual::StrongRelease => self.strong_release(a.clone(), b),
                };
                let mut rest: Vec<Ltl> = v
                    .iter()
                    .enumerate()
                    .filter(|(k, _)| *k != i && *k != j)
                    .map(|(_, f)| f.clone())
                    .collect();
                rest.push(merged);
                return Some(match d {
                    Dual::WeakUntil => self.or(rest),
                    Dual::StrongRelease => self.and(rest),
                });
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

/// Which of the two dual pair rewrites [`Simplifier::pair_rewrite`] does:
/// in a disjunction `G a | (a U b)` or `G a | F b` (`WeakUntil`), or in a
/// conjunction `F a & (a R b)` or `F a & G b` (`StrongRelease`).
#[derive(Clone, Copy)]
enum Dual {
    WeakUntil,
    StrongRelease,
}

impl Dual {
    /// `a` of the outer `G a` / `F a`.
    fn outer(self, f: &Ltl) -> Option<&Ltl> {
        match (self, f.kind()) {
            (Dual::WeakUntil, Kind::Globally(a)) | (Dual::StrongRelease, Kind::Finally(a)) => {
                Some(a)
            }
            _ => None,
        }
    }

    /// `b` of `a U b` / `a R b` with the given `a`.
    fn binary<'f>(self, f: &'f Ltl, a: &Ltl) -> Option<&'f Ltl> {
        match (self, f.kind()) {
            (Dual::WeakUntil, Kind::Until(x, b)) | (Dual::StrongRelease, Kind::Release(x, b))
                if x == a =>
            {
                Some(b)
            }
            _ => None,
        }
    }

    /// `b` of the other unary operator: `F b` / `G b`.
    fn inner(self, f: &Ltl) -> Option<&Ltl> {
        match (self, f.kind()) {
            (Dual::WeakUntil, Kind::Finally(b)) | (Dual::StrongRelease, Kind::Globally(b)) => {
                Some(b)
            }
            _ => None,
        }
    }

    /// The conjuncts / disjuncts of `b`.
    fn parts(self, b: &Ltl) -> Vec<Ltl> {
        match (self, b.kind()) {
            (Dual::WeakUntil, Kind::And(c)) | (Dual::StrongRelease, Kind::Or(c)) => c.clone(),
            _ => vec![b.clone()],
        }
    }

    /// Eventual / universal: the parts that may ride along.
    fn absorbing(self, f: &Ltl) -> bool {
        match self {
            Dual::WeakUntil => is_eventual(f),
            Dual::StrongRelease => is_universal(f),
        }
    }
}

/// Here rather than in `ltl.rs`, so that the formula module does not
/// import its simplifier (which imports it).
impl Ltl {
    /// The formula simplified with the standard rewrite rules (in negation
    /// normal form); see [`crate::simplify`].
    pub fn simplify(&self) -> Ltl {
        Simplifier::new().simplify(self)
    }
}
