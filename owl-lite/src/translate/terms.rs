//! The terms of an expansion and their pruning: which disjuncts of a
//! state's expansion another one makes redundant. Its own file because it
//! is pure set logic on cubes and formulas, tested apart from the tableau
//! that calls it.

use crate::automaton::Cube;
use crate::ltl::{Kind, Ltl};
use crate::raw::{cube_implies, Exclusions};

/// Above this many terms, only exact duplicates are removed (domination
/// pruning is quadratic).
const PRUNE_LIMIT: usize = 2048;
/// One disjunct of an expansion: on letters in `cube`, move to the
/// conjunction of `next`, postponing the eventualities in `prom`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) struct Term {
    pub(super) cube: Cube,
    pub(super) next: Vec<Ltl>,
    pub(super) prom: u64,
}

/// Whether `d` asserts `c` afresh at every position where `d` must hold
/// now (`G c`, `a R c`, `a M c`, or `c` among their conjuncts): then a
/// pending `c` is the very obligation that `d` renews, tracked by the same
/// acceptance set, and may be dropped (`F a & G F a` is `G F a`).
pub(super) fn reasserts(d: &Ltl, c: &Ltl) -> bool {
    match d.kind() {
        Kind::Globally(x) | Kind::Release(_, x) | Kind::StrongRelease(_, x) => {
            x == c || matches!(x.kind(), Kind::And(v) if v.contains(c))
        }
        _ => false,
    }
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

pub(super) fn sorted_union(a: &[Ltl], b: &[Ltl]) -> Vec<Ltl> {
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
pub(super) fn prune(mut terms: Vec<Term>) -> Vec<Term> {
    if terms.len() > PRUNE_LIMIT {
        terms.sort_by(|a, b| (a.cube, a.prom, &a.next).cmp(&(b.cube, b.prom, &b.next)));
        terms.dedup();
        return terms;
    }
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
        if crate::stop::poll() {
            // Stopped: the result is thrown away, any list will do.
            break;
        }
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

/// Above this many terms in a state's expansion, [`prune_covered`] is
/// skipped (it compares every pair).
const COVER_LIMIT: usize = 256;
/// Budget of case splits for one cover check: past it the term is kept
/// (keeping a term is always sound).
pub(super) const COVER_SPLITS: usize = 64;

/// Whether every letter of `c` (that the exclusions allow) satisfies some
/// cube of `by`, by splitting on the variables of `by` (a tautology check
/// of `by` restricted to `c`). `false` when the budget runs out.
pub(super) fn cube_covered(c: Cube, by: &[Cube], excl: &Exclusions, budget: &mut usize) -> bool {
    if !excl.possible(c) {
        return true;
    }
    let mut rest: Vec<Cube> = Vec::with_capacity(by.len());
    for k in by {
        if k.pos & c.neg != 0 || k.neg & c.pos != 0 {
            continue;
        }
        let r = Cube {
            pos: k.pos & !c.pos,
            neg: k.neg & !c.neg,
        };
        if r == Cube::TRUE {
            return true;
        }
        rest.push(r);
    }
    if rest.is_empty() || *budget == 0 {
        return false;
    }
    *budget -= 1;
    let v = (rest[0].pos | rest[0].neg).trailing_zeros();
    let bit = 1u64 << v;
    let with = Cube {
        pos: c.pos | bit,
        neg: c.neg,
    };
    let without = Cube {
        pos: c.pos,
        neg: c.neg | bit,
    };
    cube_covered(with, &rest, excl, budget) && cube_covered(without, &rest, excl, budget)
}

/// Drops a term whose letters are each taken by *some* other term that
/// dominates it (a subset of its obligations and of its postponed
/// eventualities), even when no single one covers its whole cube: in
/// `(!p0 U p2) & (p0 R (!p2 | G !p3)) & F p0` the term `!p0 & !p3 ∧
/// X(… & G !p3)` is covered by `!p0 & !p2 ∧ X(…)` on `!p2` and by the
/// `p2` terms on `p2`. This is letter-wise the domination of [`prune`]
/// (what Spot's irredundant sum of products over the expansion gets), and
/// sound for the same reason: on each letter, a run through the dropped
/// term can take the dominating one instead, which asks less of the rest
/// of the word and postpones less. Terms are dropped one at a time, each
/// checked against those still kept, so the kept ones still cover the
/// letters of all dropped ones.
pub(super) fn prune_covered(mut terms: Vec<Term>, excl: &Exclusions) -> Vec<Term> {
    if terms.len() < 3 || terms.len() > COVER_LIMIT {
        return terms;
    }
    // Most demanding terms first: they are the likeliest to be covered.
    terms.sort_by(|a, b| {
        (b.next.len(), b.prom.count_ones()).cmp(&(a.next.len(), a.prom.count_ones()))
    });
    let mut keep = vec![true; terms.len()];
    for i in 0..terms.len() {
        if crate::stop::poll() {
            break;
        }
        let t = &terms[i];
        let by: Vec<Cube> = terms
            .iter()
            .enumerate()
            .filter(|&(j, k)| {
                j != i
                    && keep[j]
                    && k.prom & !t.prom == 0
                    && sorted_subset(&k.next, &t.next)
                    && k.cube.pos & t.cube.neg == 0
                    && k.cube.neg & t.cube.pos == 0
            })
            .map(|(_, k)| k.cube)
            .collect();
        let mut budget = COVER_SPLITS;
        if by.len() >= 2 && cube_covered(t.cube, &by, excl, &mut budget) {
            keep[i] = false;
        }
    }
    let mut k = keep.iter();
    terms.retain(|_| *k.next().expect("same length"));
    terms
}
