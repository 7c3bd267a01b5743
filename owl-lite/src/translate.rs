//! LTL → transition-based generalised Büchi automaton.
//!
//! The construction is Couvreur's symbolic tableau (FM'99), the one behind
//! Spot's `ltl_to_tgba_fm`: a state *is* a simplified formula (the
//! conjunction of what must still hold), and its outgoing edges come from
//! the formula's *expansion* into terms `letter-cube ∧ X(next) ∧ promises`,
//! following the fixpoint laws
//!
//! ```text
//! a U b = b | (a & X(a U b))      F b = b | X F b        (postponing = promise)
//! a R b = b & (a | X(a R b))      G b = b & X G b
//! a W b = b | (a & X(a W b))      a M b = b & (a | X(a M b))   (promise)
//! ```
//!
//! Each eventuality (`F b`, `a U b`, `a M b`) owns an acceptance set that
//! contains exactly the edges that do *not* postpone it, so a run is
//! accepting iff no eventuality is postponed forever. Terms dominated by
//! another term of the same expansion (weaker letter, fewer obligations,
//! fewer promises) are dropped on the fly; the result then goes through the
//! reductions of [`crate::reduce`].

use std::fmt;
use std::rc::Rc;

use hashbrown::HashMap;

use crate::automaton::{Automaton, Cube};
use crate::ltl::{Kind, Ltl};
use crate::reduce::{self, RawAutomaton, RawEdge};
use crate::simplify::Simplifier;

/// Knowledge about atoms and switches for [`translate`].
///
/// ```
/// use owl_lite::{parse, translate, TranslateOptions};
/// let f = parse(r#"F ("a SEND *" & "b RECV *")"#).unwrap();
/// let opts = TranslateOptions::default().mutually_exclusive(["a SEND *", "b RECV *"]);
/// // The two atoms can never hold together: the language is empty.
/// assert_eq!(translate(&f, &opts).unwrap().num_edges(), 0);
/// ```
#[derive(Debug, Clone)]
pub struct TranslateOptions {
    exclusive: Vec<Vec<String>>,
    simplify: bool,
    reduce: bool,
}

impl Default for TranslateOptions {
    fn default() -> Self {
        TranslateOptions {
            exclusive: Vec::new(),
            simplify: true,
            reduce: true,
        }
    }
}

impl TranslateOptions {
    /// Declares that at most one of `atoms` holds in any letter. The
    /// automaton then only has to be right on words that respect this: edges
    /// whose guard needs two of them are dropped and guards are simplified
    /// accordingly. May be called several times for several groups; atoms
    /// that do not occur in the formula are ignored.
    pub fn mutually_exclusive(
        mut self,
        atoms: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        self.exclusive
            .push(atoms.into_iter().map(Into::into).collect());
        self
    }

    /// Whether to rewrite the formula with [`Ltl::simplify`] first (default
    /// `true`).
    pub fn simplify(mut self, on: bool) -> Self {
        self.simplify = on;
        self
    }

    /// Whether to reduce the automaton after the construction (default
    /// `true`): pruning, acceptance simplification, state merging.
    pub fn reduce(mut self, on: bool) -> Self {
        self.reduce = on;
        self
    }
}

/// Why a formula could not be translated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TranslateError {
    /// Cubes are 64-bit masks: at most 64 distinct atoms.
    TooManyAtoms {
        /// How many distinct atoms the formula has.
        count: usize,
    },
    /// The automaton would need more than 32 acceptance sets (or the
    /// formula has more than 64 distinct eventualities).
    TooManyAcceptanceSets {
        /// How many were needed.
        count: usize,
    },
}

impl fmt::Display for TranslateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TranslateError::TooManyAtoms { count } => write!(
                f,
                "the formula has {count} distinct atomic propositions; at most 64 are supported"
            ),
            TranslateError::TooManyAcceptanceSets { count } => write!(
                f,
                "the automaton would need {count} acceptance sets (eventualities); at most 32 \
                 are supported"
            ),
        }
    }
}

impl std::error::Error for TranslateError {}

/// One disjunct of an expansion: on letters in `cube`, move to the
/// conjunction of `next`, postponing the eventualities in `prom`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Term {
    cube: Cube,
    next: Vec<Ltl>,
    prom: u64,
}

/// Whether the formula has no eventuality (`F`, `U`, `M`) inside.
fn promise_free(f: &Ltl) -> bool {
    match f.kind() {
        Kind::Finally(_) | Kind::Until(..) | Kind::StrongRelease(..) => false,
        _ => f.children().iter().all(promise_free),
    }
}

/// Masks of mutually exclusive atoms.
#[derive(Debug, Clone, Default)]
pub(crate) struct Exclusions {
    pub groups: Vec<u64>,
}

impl Exclusions {
    /// Whether the cube can hold on a letter respecting the exclusions.
    pub fn possible(&self, c: Cube) -> bool {
        c.pos & c.neg == 0 && self.groups.iter().all(|g| (c.pos & g).count_ones() <= 1)
    }

    /// The cube without negative literals implied by a positive one.
    pub fn normalize(&self, mut c: Cube) -> Cube {
        for g in &self.groups {
            if c.pos & g != 0 {
                c.neg &= !(g & !c.pos);
            }
        }
        c
    }
}

fn cube_implies(a: Cube, b: Cube) -> bool {
    b.pos & !a.pos == 0 && b.neg & !a.neg == 0
}

/// Whether sorted `a` is a subset of sorted `b`.
fn sorted_subset(a: &[Ltl], b: &[Ltl]) -> bool {
    let mut j = 0;
    for x in a {
        while j < b.len() && b[j] < *x {
            j += 1;
        }
        if j == b.len() || b[j] != *x {
            return false;
        }
        j += 1;
    }
    true
}

fn sorted_union(a: &[Ltl], b: &[Ltl]) -> Vec<Ltl> {
    let mut v = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => {
                v.push(a[i].clone());
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                v.push(b[j].clone());
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                v.push(a[i].clone());
                i += 1;
                j += 1;
            }
        }
    }
    v.extend_from_slice(&a[i..]);
    v.extend_from_slice(&b[j..]);
    v
}

/// Drops duplicate terms and terms dominated by another one (a term that
/// needs at least as much of the letter, leaves at least the same
/// obligations and postpones at least the same eventualities).
fn prune(mut terms: Vec<Term>) -> Vec<Term> {
    terms.sort_by(|a, b| {
        (
            a.next.len(),
            a.prom.count_ones(),
            a.cube.pos.count_ones() + a.cube.neg.count_ones(),
        )
            .cmp(&(
                b.next.len(),
                b.prom.count_ones(),
                b.cube.pos.count_ones() + b.cube.neg.count_ones(),
            ))
    });
    let mut kept: Vec<Term> = Vec::with_capacity(terms.len());
    'outer: for t in terms {
        for k in &kept {
            if cube_implies(t.cube, k.cube)
                && k.prom & !t.prom == 0
                && sorted_subset(&k.next, &t.next)
            {
                continue 'outer;
            }
        }
        kept.push(t);
    }
    kept
}

struct Builder<'o> {
    simp: Simplifier,
    atom_index: HashMap<String, u32>,
    excl: &'o Exclusions,
    eventualities: HashMap<Ltl, u32>,
    memo: HashMap<Ltl, Rc<Vec<Term>>>,
}

impl Builder<'_> {
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

    fn product(&self, a: &[Term], b: &[Term]) -> Vec<Term> {
        let mut out = Vec::with_capacity(a.len() * b.len());
        for x in a {
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
        prune(out)
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
    /// Dropping a conjunct `c` because another conjunct `d` implies it is
    /// only safe if `c` or `d` is free of eventualities: otherwise a pending
    /// `F p2` absorbed by `F (p1 & X F p2)` could be renewed for ever by
    /// fulfilling the latter, and a run that never sees `p2` would accept.
    fn state_and(&mut self, next: Vec<Ltl>) -> Ltl {
        let mut v: Vec<Ltl> = Vec::with_capacity(next.len());
        for f in next {
            match f.kind() {
                Kind::True => {}
                Kind::False => return Ltl::ff(),
                Kind::And(xs) => v.extend(xs.iter().cloned()),
                _ => v.push(f),
            }
        }
        v.sort();
        v.dedup();
        let (gs, mut rest): (Vec<Ltl>, Vec<Ltl>) = v.into_iter().partition(
            |f| matches!(f.kind(), Kind::Globally(g) if !matches!(g.kind(), Kind::Finally(_))),
        );
        if gs.len() > 1 {
            // G a & G b = G (a & b): no pending eventuality lives inside a G.
            let inner = gs.iter().map(|g| g.children()[0].clone()).collect();
            let inner = self.simp.and(inner);
            rest.push(self.simp.globally(inner));
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
            let redundant = (0..v.len()).any(|j| {
                j != i
                    && (promise_free(&v[i]) || promise_free(&v[j]))
                    && self.simp.implies(&v[j], &v[i])
            });
            if redundant {
                v.remove(i);
            } else {
                i += 1;
            }
        }
        Ltl::and(v)
    }

    /// The expansion of an NNF formula.
    fn expand(&mut self, f: &Ltl) -> Result<Rc<Vec<Term>>, TranslateError> {
        if let Some(r) = self.memo.get(f) {
            return Ok(r.clone());
        }
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
                    acc = self.product(&acc, &e);
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
                self.product(&e, &Self::postpone(f, 0))
            }
            Kind::Until(a, b) | Kind::WeakUntil(a, b) => {
                let p = if matches!(f.kind(), Kind::Until(..)) {
                    self.eventuality(f)?
                } else {
                    0
                };
                let ea = self.expand(a)?;
                let mut v = self.product(&ea, &Self::postpone(f, p));
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
                self.product(&eb, &alt)
            }
            Kind::Implies(..) | Kind::Equiv(..) | Kind::Xor(..) => {
                unreachable!("negation normal form")
            }
        };
        let r = Rc::new(terms);
        self.memo.insert(f.clone(), r.clone());
        Ok(r)
    }
}

/// Translates `f` into a transition-based generalised Büchi automaton
/// accepting exactly the words that satisfy `f` (among the words that respect
/// the exclusions declared in `opts`).
///
/// The automaton's atoms are those of `f` ([`Ltl::atoms`], in that order),
/// even if simplification removes some of them.
///
/// ```
/// use owl_lite::{parse, translate, TranslateOptions};
/// let a = translate(&parse("G F p & G F q").unwrap(), &TranslateOptions::default()).unwrap();
/// assert_eq!((a.num_states(), a.acceptance_sets), (1, 2));
/// // p,q,p,q,... is accepted; p,p,p,... is not.
/// assert!(a.accepts_lasso(&[], &[0b01, 0b10]));
/// assert!(!a.accepts_lasso(&[], &[0b01]));
/// ```
pub fn translate(f: &Ltl, opts: &TranslateOptions) -> Result<Automaton, TranslateError> {
    let atoms = f.atoms();
    if atoms.len() > 64 {
        return Err(TranslateError::TooManyAtoms { count: atoms.len() });
    }
    let atom_index: HashMap<String, u32> = atoms
        .iter()
        .enumerate()
        .map(|(i, a)| (a.clone(), i as u32))
        .collect();
    let excl = Exclusions {
        groups: opts
            .exclusive
            .iter()
            .map(|g| {
                g.iter()
                    .filter_map(|a| atom_index.get(a.as_str()))
                    .fold(0u64, |m, &i| m | 1 << i)
            })
            .filter(|m| m.count_ones() > 1)
            .collect(),
    };
    let mut b = Builder {
        simp: Simplifier::new(),
        atom_index,
        excl: &excl,
        eventualities: HashMap::new(),
        memo: HashMap::new(),
    };
    let start = if opts.simplify {
        b.simp.simplify(f)
    } else {
        f.nnf()
    };
    let mut ids: HashMap<Ltl, usize> = HashMap::new();
    let mut states: Vec<Ltl> = vec![start.clone()];
    ids.insert(start, 0);
    let mut raw: Vec<Vec<RawEdge>> = Vec::new();
    let mut i = 0;
    while i < states.len() {
        let s = states[i].clone();
        let terms = b.expand(&s)?;
        let mut out = Vec::with_capacity(terms.len());
        for t in terms.iter() {
            let target = if opts.simplify {
                b.state_and(t.next.clone())
            } else {
                Ltl::and(t.next.iter().cloned())
            };
            if target.is_false() {
                continue;
            }
            let id = *ids.entry(target.clone()).or_insert_with(|| {
                states.push(target);
                states.len() - 1
            });
            out.push(RawEdge {
                target: id,
                cubes: vec![t.cube],
                acc: t.prom,
            });
        }
        raw.push(out);
        i += 1;
    }
    // Acceptance: set e holds the edges that do not postpone eventuality e.
    let n_ev = b.eventualities.len();
    let all = if n_ev == 64 {
        u64::MAX
    } else {
        (1u64 << n_ev) - 1
    };
    for edges in &mut raw {
        for e in edges.iter_mut() {
            e.acc = !e.acc & all;
        }
    }
    let raw = RawAutomaton {
        edges: raw,
        initial: 0,
        acceptance_sets: n_ev as u32,
    };
    reduce::finish(raw, atoms, &excl, opts.reduce)
}
