//! The temporal operators' smart constructors (`X`, `F`, `G`, `U`, `W`,
//! `R`, `M`). Its own file because each carries the rules of its operator
//! (eventual/universal absorption, suspension, chains), apart from the
//! boolean ones.

use super::{is_eventual, is_suspendable, is_universal, Simplifier};
use crate::ltl::{Kind, Ltl};

impl Simplifier {
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
}
