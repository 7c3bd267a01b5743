//! The truth of every subformula of an LTL formula at every step of a run,
//! for the page's per-step columns.
//!
//! A counterexample is an ultimately periodic word: a lasso `prefix ·
//! cycle^ω`, or a finite run followed by its stutter letter forever (one
//! more position that loops to itself). On such a word every subformula has
//! an exact truth value at every position, computed backwards with a
//! fixpoint over the cycle. A bad prefix (violated whatever comes next) has
//! no known continuation: the positions past its end are unknown, and so
//! is every value that depends on them (Kleene's three-valued logic). An
//! atom whose truth cannot be read off a step (a type path where only the
//! short name is known) is unknown too: the page shows "?" rather than
//! guess.

use std::collections::HashMap;

use owl_lite::{Kind, Ltl};

/// A truth value of Kleene's three-valued logic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Truth {
    False,
    Unknown,
    True,
}

use Truth::{False as F, True as T, Unknown as U};

impl Truth {
    pub(crate) fn of(b: bool) -> Truth {
        if b {
            T
        } else {
            F
        }
    }
    fn flip(self) -> Truth {
        match self {
            T => F,
            F => T,
            U => U,
        }
    }
    fn and(self, o: Truth) -> Truth {
        self.min(o)
    }
    fn or(self, o: Truth) -> Truth {
        self.max(o)
    }
    fn rank(self) -> u8 {
        match self {
            F => 0,
            U => 1,
            T => 2,
        }
    }
    fn min(self, o: Truth) -> Truth {
        if self.rank() <= o.rank() {
            self
        } else {
            o
        }
    }
    fn max(self, o: Truth) -> Truth {
        if self.rank() >= o.rank() {
            self
        } else {
            o
        }
    }
    /// `T`, `F` or `?`.
    pub(crate) fn symbol(self) -> &'static str {
        match self {
            T => "T",
            F => "F",
            U => "?",
        }
    }
}

/// The shape of the word: its positions are `0..len`, and after the last
/// one comes `loop_to` (a lasso, or the stutter position looping to
/// itself) or nothing known (a bad prefix).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Word {
    pub len: usize,
    pub loop_to: Option<usize>,
}

/// Every subformula's values along `word`, keyed by the subformula;
/// `atom(text, i)` gives an atom's truth at position `i`.
pub(crate) fn evaluate(
    f: &Ltl,
    word: Word,
    atom: &dyn Fn(&str, usize) -> Truth,
) -> HashMap<Ltl, Vec<Truth>> {
    let mut memo = HashMap::new();
    eval(f, word, atom, &mut memo);
    memo
}

fn eval(
    f: &Ltl,
    w: Word,
    atom: &dyn Fn(&str, usize) -> Truth,
    memo: &mut HashMap<Ltl, Vec<Truth>>,
) -> Vec<Truth> {
    if let Some(v) = memo.get(f) {
        return v.clone();
    }
    let n = w.len;
    let kids: Vec<Vec<Truth>> = f
        .children()
        .iter()
        .map(|c| eval(c, w, atom, memo))
        .collect();
    let pointwise = |op: &dyn Fn(usize) -> Truth| (0..n).map(op).collect::<Vec<_>>();
    let v = match f.kind() {
        Kind::True => vec![T; n],
        Kind::False => vec![F; n],
        Kind::Atom(text) => pointwise(&|i| atom(text, i)),
        Kind::Not(_) => pointwise(&|i| kids[0][i].flip()),
        Kind::And(_) => pointwise(&|i| kids.iter().fold(T, |acc, k| acc.and(k[i]))),
        Kind::Or(_) => pointwise(&|i| kids.iter().fold(F, |acc, k| acc.or(k[i]))),
        Kind::Implies(..) => pointwise(&|i| kids[0][i].flip().or(kids[1][i])),
        Kind::Equiv(..) => pointwise(&|i| {
            let (a, b) = (kids[0][i], kids[1][i]);
            a.and(b).or(a.flip().and(b.flip()))
        }),
        Kind::Xor(..) => pointwise(&|i| {
            let (a, b) = (kids[0][i], kids[1][i]);
            a.and(b.flip()).or(a.flip().and(b))
        }),
        Kind::Next(_) => {
            let a = &kids[0];
            pointwise(&|i| next(w, i).map_or(U, |j| a[j]))
        }
        // φ = b ∨ (a ∧ Xφ), least (strong) or greatest (weak) fixpoint.
        Kind::Finally(_) => fix(w, &|_| T, &kids[0], false),
        Kind::Globally(_) => fix(w, &|i| kids[0][i], &vec![F; n], true),
        Kind::Until(..) => fix(w, &|i| kids[0][i], &kids[1], false),
        Kind::WeakUntil(..) => fix(w, &|i| kids[0][i], &kids[1], true),
        // a R b = b ∧ (a ∨ Xφ) = ¬(¬a U ¬b); a M b = ¬(¬a W ¬b).
        Kind::Release(..) | Kind::StrongRelease(..) => {
            let na: Vec<Truth> = kids[0].iter().map(|t| t.flip()).collect();
            let nb: Vec<Truth> = kids[1].iter().map(|t| t.flip()).collect();
            let weak = matches!(f.kind(), Kind::StrongRelease(..));
            fix(w, &|i| na[i], &nb, weak)
                .into_iter()
                .map(Truth::flip)
                .collect()
        }
    };
    memo.insert(f.clone(), v.clone());
    v
}

/// The position after `i`, if known.
fn next(w: Word, i: usize) -> Option<usize> {
    if i + 1 < w.len {
        Some(i + 1)
    } else {
        w.loop_to
    }
}

/// Values of `φ = b ∨ (a ∧ Xφ)`: the least fixpoint (`a U b`) or the
/// greatest (`a W b`). On the cycle the fixpoint is iterated from `F` (least)
/// or `T` (greatest) until stable; values only move one way in the order
/// F < ? < T (or back), so at most `2 × len` rounds are needed. Past the end
/// of a bad prefix the value is unknown.
fn fix(w: Word, a: &dyn Fn(usize) -> Truth, b: &[Truth], greatest: bool) -> Vec<Truth> {
    let n = w.len;
    let start = if greatest { T } else { F };
    let mut v = vec![start; n];
    let step = |v: &Vec<Truth>, i: usize| {
        let later = next(w, i).map_or(U, |j| v[j]);
        b[i].or(a(i).and(later))
    };
    if let Some(l) = w.loop_to {
        for _ in 0..2 * (n - l) + 2 {
            let mut changed = false;
            for i in (l..n).rev() {
                let x = step(&v, i);
                changed |= x != v[i];
                v[i] = x;
            }
            if !changed {
                break;
            }
        }
        for i in (0..l).rev() {
            v[i] = step(&v, i);
        }
    } else {
        for i in (0..n).rev() {
            v[i] = step(&v, i);
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `word` of atoms: each position the set of atoms (chars) that hold.
    fn run(formula: &str, word: &[&str], loop_to: Option<usize>) -> Vec<Truth> {
        let f = owl_lite::parse(formula).unwrap();
        let w = Word {
            len: word.len(),
            loop_to,
        };
        let word: Vec<String> = word.iter().map(|s| s.to_string()).collect();
        let atom = move |a: &str, i: usize| Truth::of(word[i].contains(a));
        evaluate(&f, w, &atom)[&f].clone()
    }

    #[test]
    fn until_and_globally_on_a_lasso_are_exact() {
        // p, q, then the cycle (p)(-) forever.
        let w = ["p", "q", "p", ""];
        assert_eq!(run("p U q", &w, Some(2)), vec![T, T, F, F]);
        assert_eq!(run("G F p", &w, Some(2)), vec![T; 4]);
        assert_eq!(run("F G p", &w, Some(2)), vec![F; 4]);
        assert_eq!(run("G p", &w, Some(2)), vec![F; 4]);
        assert_eq!(run("X q", &w, Some(2)), vec![T, F, F, F]);
        // The last position's next is the loop's start.
        assert_eq!(run("X p", &w, Some(2)), vec![F, T, F, T]);
        assert_eq!(run("p W q", &["p", "p"], Some(0)), vec![T, T]);
        assert_eq!(run("p U q", &["p", "p"], Some(0)), vec![F, F]);
        assert_eq!(run("q R p", &["p", "p"], Some(0)), vec![T, T]);
        assert_eq!(run("q M p", &["p", "p"], Some(0)), vec![F, F]);
        assert_eq!(run("q M p", &["p", "pq"], Some(0)), vec![T, T]);
    }

    #[test]
    fn a_bad_prefix_leaves_the_future_unknown() {
        let w = ["p", "q"];
        // Decided within the prefix: known.
        assert_eq!(run("F q", &w, None), vec![T, T]);
        assert_eq!(run("G p", &w, None), vec![F, F]);
        // Depends on what comes after: unknown, never guessed.
        assert_eq!(run("G !r", &w, None), vec![U, U]);
        assert_eq!(run("X X p", &w, None), vec![U, U]);
    }
}
