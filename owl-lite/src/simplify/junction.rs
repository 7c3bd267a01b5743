//! Conjunction and disjunction: flattening, absorption, complements and
//! the merging rules. Its own file because `&` and `|` are each other's
//! duals and share one implementation, steered by [`Junction`].

use super::{is_eventual, is_suspendable, is_universal, literal_complement, Simplifier};
use crate::ltl::{Kind, Ltl};

impl Simplifier {
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
