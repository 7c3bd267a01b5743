//! The tableau itself: expanding a formula into terms and building the
//! raw automaton state by state. Its own file because it is the one place
//! that knows the fixpoint laws; [`super::translate`] only orchestrates it
//! and the reductions.

use std::sync::Arc;

use hashbrown::HashMap;

use super::terms::{prune, prune_covered, reasserts, sorted_union, Term};
use crate::automaton::Cube;
use crate::error::TranslateError;
use crate::ltl::{Kind, Ltl};
use crate::raw::{Exclusions, RawAutomaton, RawEdge};
use crate::simplify::Simplifier;

/// Limits that turn a hopeless construction into an error, not a hang.
const MAX_TERMS: usize = 1 << 16;
const MAX_STATES: usize = 100_000;

pub(super) struct Builder<'o> {
    pub(super) simp: Simplifier,
    pub(super) atom_index: HashMap<String, u32>,
    pub(super) excl: &'o Exclusions,
    pub(super) eventualities: HashMap<Ltl, u32>,
    pub(super) memo: HashMap<Ltl, Arc<Vec<Term>>>,
}

/// The tables of one construction: the states found, their numbers, their
/// edges, the conjunctions of successor sets made.
#[derive(Default)]
pub(super) struct Tables {
    ids: HashMap<Ltl, usize>,
    states: Vec<Ltl>,
    raw: Vec<Vec<RawEdge>>,
    next_memo: HashMap<Vec<Ltl>, Ltl>,
}

impl Builder<'_> {
    /// Hands the memo tables to [`crate::stop::discard`]: the translation
    /// was interrupted, and freeing them here would keep the caller past
    /// its deadline (see [`Self::construct`]).
    pub(super) fn discard(&mut self) {
        crate::stop::discard((
            std::mem::take(&mut self.memo),
            std::mem::replace(&mut self.simp, Simplifier::new()),
            std::mem::take(&mut self.eventualities),
        ));
    }

    fn eventuality(&mut self, f: &Ltl) -> Result<u64, TranslateError> {
        let n = self.eventualities.len() as u32;
        let id = *self.eventualities.entry(f.clone()).or_insert(n);
        if id >= 64 {
            return Err(TranslateError::TooManyAcceptanceSets {
                count: id as usize + 1,
            });
        }
        Ok(1u64 << id)
    }

    fn product(&self, a: &[Term], b: &[Term]) -> Result<Vec<Term>, TranslateError> {
        if a.len() * b.len() > MAX_TERMS {
            return Err(TranslateError::TooLarge);
        }
        let mut out = Vec::with_capacity(a.len() * b.len());
        for x in a {
            crate::stop::check()?;
            for y in b {
                let cube = Cube {
                    pos: x.cube.pos | y.cube.pos,
                    neg: x.cube.neg | y.cube.neg,
                };
                if !self.excl.possible(cube) {
                    continue;
                }
                out.push(Term {
                    cube: self.excl.normalize(cube),
                    next: sorted_union(&x.next, &y.next),
                    prom: x.prom | y.prom,
                });
            }
        }
        Ok(prune(out))
    }

    fn postpone(f: &Ltl, prom: u64) -> Vec<Term> {
        vec![Term {
            cube: Cube::TRUE,
            next: vec![f.clone()],
            prom,
        }]
    }

    /// The next state: the conjunction of the obligations, simplified
    /// *without* losing pending eventualities.
    ///
    /// Conjuncts are never dropped because another one implies them: the
    /// implication may hold only *through* the obligation being dropped
    /// (`G (c M X G z) ⇒ G z` because `c M X G z` promises `X G z`; dropping
    /// the `G z` it generates means `z` is never checked), or a pending
    /// `F p2` absorbed by `F (p1 & X F p2)` could be renewed for ever while
    /// `p2` never holds. Only a conjunct that another one re-asserts
    /// verbatim at this very step goes (see `reasserts`).
    fn state_and(&mut self, next: Vec<Ltl>) -> Ltl {
        let Some(v) = crate::ltl::conjuncts(next) else {
            return Ltl::ff();
        };
        let (gs, mut rest): (Vec<Ltl>, Vec<Ltl>) = v.into_iter().partition(
            |f| matches!(f.kind(), Kind::Globally(g) if !matches!(g.kind(), Kind::Finally(_))),
        );
        if gs.len() > 1 {
            // G a & G b = G (a & b), without rewriting the operands.
            let mut inner: Vec<Ltl> = Vec::new();
            for g in &gs {
                match g.children()[0].kind() {
                    Kind::And(xs) => inner.extend(xs.iter().cloned()),
                    _ => inner.push(g.children()[0].clone()),
                }
            }
            inner.sort();
            inner.dedup();
            rest.push(Ltl::globally(Ltl::and(inner)));
        } else {
            rest.extend(gs);
        }
        let mut v = rest;
        v.sort();
        v.dedup();
        if v.iter().any(Ltl::is_false) {
            return Ltl::ff();
        }
        v.retain(|f| !f.is_true());
        for i in 0..v.len() {
            for j in i + 1..v.len() {
                if matches!(v[i].kind(), Kind::Not(x) if *x == v[j])
                    || matches!(v[j].kind(), Kind::Not(x) if *x == v[i])
                {
                    return Ltl::ff();
                }
            }
        }
        let mut i = 0;
        while i < v.len() {
            let redundant = (0..v.len()).any(|j| j != i && reasserts(&v[j], &v[i]));
            if redundant {
                v.remove(i);
            } else {
                i += 1;
            }
        }
        Ltl::and(v)
    }

    /// Explores the states reachable from `start`.
    ///
    /// With `exprop`, the edges of a state are computed letter by letter:
    /// for each valuation of the atoms its terms mention, the terms that
    /// apply are grouped by the eventualities they postpone, and each group
    /// becomes one edge to the *disjunction* of its targets. (Sound: an
    /// accepting run through disjunctions contains, by König's lemma, an
    /// accepting run of the plain construction.) Returns `None` when a state
    /// has too many terms × valuations for this to pay.
    pub(super) fn construct(
        &mut self,
        start: &Ltl,
        simplify: bool,
        exprop: bool,
    ) -> Result<Option<RawAutomaton>, TranslateError> {
        let mut tables = Tables::default();
        let result = self.construct_in(&mut tables, start, simplify, exprop);
        if result.is_err() {
            // millions of small allocations: freeing them would overshoot
            // the caller's deadline by a large fraction of a second
            crate::stop::discard(tables);
        }
        result
    }

    /// [`Self::construct`], in `tables`.
    fn construct_in(
        &mut self,
        tables: &mut Tables,
        start: &Ltl,
        simplify: bool,
        exprop: bool,
    ) -> Result<Option<RawAutomaton>, TranslateError> {
        let Tables {
            ids,
            states,
            raw,
            next_memo,
        } = tables;
        states.push(start.clone());
        ids.insert(start.clone(), 0);
        let mut i = 0;
        while i < states.len() {
            if exprop && states.len() > 2000 {
                return Ok(None);
            }
            if states.len() > MAX_STATES {
                return Err(TranslateError::TooLarge);
            }
            crate::stop::check()?;
            let s = states[i].clone();
            let terms = prune_covered(self.expand(&s)?.to_vec(), self.excl);
            let mut targets = Vec::with_capacity(terms.len());
            for t in terms.iter() {
                let target = if simplify {
                    match next_memo.get(&t.next) {
                        Some(f) => f.clone(),
                        None => {
                            let f = self.state_and(t.next.clone());
                            next_memo.insert(t.next.clone(), f.clone());
                            f
                        }
                    }
                } else {
                    Ltl::and(t.next.iter().cloned())
                };
                targets.push(target);
            }
            let mut out = Vec::with_capacity(terms.len());
            let mut add = |target: Ltl, cube: Cube, prom: u64, out: &mut Vec<RawEdge>| {
                if target.is_false() {
                    return;
                }
                let id = *ids.entry(target.clone()).or_insert_with(|| {
                    states.push(target);
                    states.len() - 1
                });
                out.push(RawEdge {
                    target: id,
                    cubes: vec![cube],
                    acc: prom,
                });
            };
            if exprop {
                let used = terms.iter().fold(0u64, |m, t| m | t.cube.pos | t.cube.neg);
                let vars: Vec<u32> = (0..64).filter(|v| used & (1u64 << v) != 0).collect();
                if vars.len() > 10 || (terms.len() << vars.len()) > 16_384 {
                    return Ok(None);
                }
                for m in 0..1usize << vars.len() {
                    let val = vars
                        .iter()
                        .enumerate()
                        .filter(|(bit, _)| m & (1 << bit) != 0)
                        .fold(0u64, |acc, (_, &v)| acc | 1 << v);
                    let cube = Cube {
                        pos: val,
                        neg: used & !val,
                    };
                    if !self.excl.possible(cube) {
                        continue;
                    }
                    let mut groups: Vec<(u64, Vec<Ltl>)> = Vec::new();
                    for (t, target) in terms.iter().zip(&targets) {
                        if !t.cube.eval(val) || target.is_false() {
                            continue;
                        }
                        match groups.iter_mut().find(|g| g.0 == t.prom) {
                            Some(g) => g.1.push(target.clone()),
                            None => groups.push((t.prom, vec![target.clone()])),
                        }
                    }
                    let groups: Vec<(u64, Ltl)> = groups
                        .into_iter()
                        .map(|(p, v)| (p, self.state_or(v)))
                        .collect();
                    // Drop a group dominated by another: more postponed
                    // eventualities and a target implying the other's.
                    for (k, (p, target)) in groups.iter().enumerate() {
                        let dominated = groups.iter().enumerate().any(|(l, (q, other))| {
                            l != k
                                && q & !p == 0
                                && (q != p || l < k)
                                && self.simp.implies(target, other)
                        });
                        if !dominated {
                            add(target.clone(), self.excl.normalize(cube), *p, &mut out);
                        }
                    }
                }
            } else {
                for (t, target) in terms.iter().zip(targets) {
                    add(target, t.cube, t.prom, &mut out);
                }
            }
            raw.push(out);
            i += 1;
        }
        // Acceptance: set e holds the edges that do not postpone eventuality e.
        let n_ev = self.eventualities.len();
        let all = if n_ev == 64 {
            u64::MAX
        } else {
            (1u64 << n_ev) - 1
        };
        for edges in raw.iter_mut() {
            for e in edges.iter_mut() {
                e.acc = !e.acc & all;
            }
        }
        Ok(Some(RawAutomaton {
            edges: std::mem::take(raw),
            initial: 0,
            acceptance_sets: n_ev as u32,
        }))
    }

    /// The disjunction of state formulas, without rewriting them (only
    /// dropping a disjunct that implies another, which keeps every run of
    /// the remaining ones).
    fn state_or(&mut self, mut v: Vec<Ltl>) -> Ltl {
        v.sort();
        v.dedup();
        if v.iter().any(Ltl::is_true) {
            return Ltl::tt();
        }
        v.retain(|f| !f.is_false());
        let mut i = 0;
        while i < v.len() {
            let redundant = (0..v.len()).any(|j| j != i && self.simp.implies(&v[i], &v[j]));
            if redundant {
                v.remove(i);
            } else {
                i += 1;
            }
        }
        Ltl::or(v)
    }

    /// The expansion of an NNF formula.
    fn expand(&mut self, f: &Ltl) -> Result<Arc<Vec<Term>>, TranslateError> {
        if let Some(r) = self.memo.get(f) {
            return Ok(r.clone());
        }
        crate::stop::check()?;
        let lit = |pos: u64, neg: u64| {
            vec![Term {
                cube: Cube { pos, neg },
                next: vec![],
                prom: 0,
            }]
        };
        let terms: Vec<Term> = match f.kind() {
            Kind::True => lit(0, 0),
            Kind::False => vec![],
            Kind::Atom(s) => lit(1 << self.atom_index[s.as_str()], 0),
            Kind::Not(a) => match a.kind() {
                Kind::Atom(s) => lit(0, 1 << self.atom_index[s.as_str()]),
                _ => unreachable!("negation normal form"),
            },
            Kind::And(v) => {
                let mut acc = lit(0, 0);
                for c in v {
                    let e = self.expand(c)?;
                    acc = self.product(&acc, &e)?;
                }
                acc
            }
            Kind::Or(v) => {
                let mut acc = vec![];
                for c in v {
                    acc.extend(self.expand(c)?.iter().cloned());
                }
                prune(acc)
            }
            Kind::Next(a) => vec![Term {
                cube: Cube::TRUE,
                next: if a.is_true() { vec![] } else { vec![a.clone()] },
                prom: 0,
            }],
            Kind::Finally(b) => {
                let p = self.eventuality(f)?;
                let mut v = self.expand(b)?.to_vec();
                v.extend(Self::postpone(f, p));
                prune(v)
            }
            Kind::Globally(b) => {
                let e = self.expand(b)?;
                self.product(&e, &Self::postpone(f, 0))?
            }
            Kind::Until(a, b) | Kind::WeakUntil(a, b) => {
                let p = if matches!(f.kind(), Kind::Until(..)) {
                    self.eventuality(f)?
                } else {
                    0
                };
                let ea = self.expand(a)?;
                let mut v = self.product(&ea, &Self::postpone(f, p))?;
                v.extend(self.expand(b)?.iter().cloned());
                prune(v)
            }
            Kind::Release(a, b) | Kind::StrongRelease(a, b) => {
                let p = if matches!(f.kind(), Kind::StrongRelease(..)) {
                    self.eventuality(f)?
                } else {
                    0
                };
                let mut alt = self.expand(a)?.to_vec();
                alt.extend(Self::postpone(f, p));
                let alt = prune(alt);
                let eb = self.expand(b)?;
                self.product(&eb, &alt)?
            }
            Kind::Implies(..) | Kind::Equiv(..) | Kind::Xor(..) => {
                unreachable!("negation normal form")
            }
        };
        let r = Arc::new(terms);
        self.memo.insert(f.clone(), r.clone());
        Ok(r)
    }
}
