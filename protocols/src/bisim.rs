//! Strong bisimulation of two LTSs: "is my refactored (or imported) spec
//! the same protocol?".
//!
//! Labels are compared by their text (`!(Move,white,black)`), so two LTSs
//! whose roles or types are numbered differently can be compared; final
//! states are distinguished from non-final ones (a protocol that may stop
//! is not one that must go on).
//!
//! ```
//! use protocols::spec::{msg, Spec};
//! let a = Spec::new("a", msg("M", "p", "q").plus()).compile().unwrap();
//! let b = Spec::new("b", msg("M", "p", "q").then(msg("M", "p", "q").star())).compile().unwrap();
//! assert!(a.bisimilar(&b).is_ok());
//! let c = Spec::new("c", msg("M", "p", "q").star()).compile().unwrap();
//! let d = a.bisimilar(&c).unwrap_err();
//! assert!(d.trace.is_empty()); // they differ at the start: c may stop there
//! ```

use std::collections::{HashMap, VecDeque};
use std::fmt;

use crate::Lts;

/// Why two LTSs are not bisimilar: a shortest trace both can do from their
/// initial states to a pair of states that differ visibly, and how they
/// differ there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotBisimilar {
    /// The labels (`.aut` notation) of the trace.
    pub trace: Vec<String>,
    /// What differs after it: a label one can do and the other cannot, or
    /// one state final and the other not.
    pub difference: String,
}

impl fmt::Display for NotBisimilar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.trace.is_empty() {
            write!(
                f,
                "not bisimilar: at the initial states, {}",
                self.difference
            )
        } else {
            write!(
                f,
                "not bisimilar: after {}, {}",
                self.trace.join(" "),
                self.difference
            )
        }
    }
}

impl std::error::Error for NotBisimilar {}

impl Lts {
    /// Whether `self` and `other` are strongly bisimilar (labels compared
    /// by text, finality respected), by partition refinement on their
    /// disjoint union. On failure, a shortest distinguishing trace: the
    /// shortest run of pairs of non-bisimilar states, each step one label
    /// both take, that ends where a label or finality differs.
    pub fn bisimilar(&self, other: &Lts) -> Result<(), NotBisimilar> {
        // The disjoint union, with labels numbered by text.
        let mut label_ids: HashMap<String, u32> = HashMap::new();
        let mut label_texts: Vec<String> = Vec::new();
        let n1 = self.num_states();
        let n = n1 + other.num_states();
        let mut succ: Vec<Vec<(u32, usize)>> = Vec::with_capacity(n);
        let mut finals = Vec::with_capacity(n);
        for (lts, base) in [(self, 0), (other, n1)] {
            for s in lts.states() {
                let mut v = Vec::new();
                for (l, t) in lts.transitions(s) {
                    let text = lts.label_text(l);
                    let id = *label_ids.entry(text.clone()).or_insert_with(|| {
                        label_texts.push(text);
                        (label_texts.len() - 1) as u32
                    });
                    v.push((id, base + t.index()));
                }
                succ.push(v);
                finals.push(lts.is_final(s));
            }
        }
        // Refine until stable: a block's states agree on finality and on
        // the set of (label, block of target) they can reach.
        let mut block: Vec<usize> = finals.iter().map(|&f| usize::from(f)).collect();
        let mut count = 0;
        loop {
            let mut sigs: HashMap<(usize, Vec<(u32, usize)>), usize> = HashMap::new();
            let mut next = vec![0; n];
            for s in 0..n {
                let mut sig: Vec<(u32, usize)> =
                    succ[s].iter().map(|&(l, t)| (l, block[t])).collect();
                sig.sort_unstable();
                sig.dedup();
                let k = sigs.len();
                next[s] = *sigs.entry((block[s], sig)).or_insert(k);
            }
            let new_count = sigs.len();
            block = next;
            if new_count == count {
                break;
            }
            count = new_count;
        }
        let (i1, i2) = (self.initial().index(), n1 + other.initial().index());
        if block[i1] == block[i2] {
            return Ok(());
        }
        // Breadth-first over pairs of non-bisimilar states.
        let local_difference = |a: usize, b: usize| -> Option<String> {
            if finals[a] != finals[b] {
                let (fin, side) = if finals[a] {
                    ("the first", "second")
                } else {
                    ("the second", "first")
                };
                return Some(format!("{fin} may end here and the {side} may not"));
            }
            for (x, y, who) in [(a, b, "first"), (b, a, "second")] {
                for &(l, _) in &succ[x] {
                    if !succ[y].iter().any(|&(m, _)| m == l) {
                        return Some(format!("only the {who} can do {}", label_texts[l as usize]));
                    }
                }
            }
            None
        };
        // Each pair reached, with the pair and label it was reached by.
        type Pair = (usize, usize);
        let mut prev: HashMap<Pair, Option<(Pair, u32)>> = HashMap::new();
        let mut queue = VecDeque::new();
        prev.insert((i1, i2), None);
        queue.push_back((i1, i2));
        while let Some((a, b)) = queue.pop_front() {
            if let Some(difference) = local_difference(a, b) {
                let mut trace = Vec::new();
                let mut cur = (a, b);
                while let Some(Some((p, l))) = prev.get(&cur) {
                    trace.push(label_texts[*l as usize].clone());
                    cur = *p;
                }
                trace.reverse();
                return Err(NotBisimilar { trace, difference });
            }
            for &(l, a2) in &succ[a] {
                for &(m, b2) in &succ[b] {
                    if l == m && block[a2] != block[b2] && !prev.contains_key(&(a2, b2)) {
                        prev.insert((a2, b2), Some(((a, b), l)));
                        queue.push_back((a2, b2));
                    }
                }
            }
        }
        // Unreachable for a correct refinement: non-bisimilar states with
        // the same local behaviour have a non-bisimilar pair of successors.
        Err(NotBisimilar {
            trace: Vec::new(),
            difference: "the initial states are not bisimilar".into(),
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::spec::{alt, msg, seq, Spec};

    #[test]
    fn choice_early_or_late_is_not_bisimilar_but_trace_equivalent() {
        // a.(b + c) versus a.b + a.c: the classic pair.
        let late = Spec::new(
            "l",
            seq([
                msg("A", "p", "q"),
                alt([msg("B", "p", "q"), msg("C", "p", "q")]),
            ]),
        );
        let early = Spec::new(
            "e",
            alt([
                seq([msg("A", "p", "q"), msg("B", "p", "q")]),
                seq([msg("A", "p", "q"), msg("C", "p", "q")]),
            ]),
        );
        let d = late
            .compile()
            .unwrap()
            .bisimilar(&early.compile().unwrap())
            .unwrap_err();
        assert_eq!(d.trace, ["!(A,p,q)", "?(A,p,q)"]);
        assert!(d.difference.contains("only the"), "{d}");
        assert!(
            d.to_string()
                .starts_with("not bisimilar: after !(A,p,q) ?(A,p,q),"),
            "{d}"
        );
    }

    #[test]
    fn renumbered_roles_are_still_bisimilar() {
        let a = Spec::new("a", msg("M", "p", "q").then(msg("N", "q", "p"))).roles(["p", "q"]);
        let b = Spec::new("b", msg("M", "p", "q").then(msg("N", "q", "p"))).roles(["q", "p"]);
        a.compile()
            .unwrap()
            .bisimilar(&b.compile().unwrap())
            .unwrap();
    }

    #[test]
    fn a_different_type_shows_after_the_shared_prefix() {
        let a = Spec::new("a", seq([msg("M", "p", "q"), msg("M", "q", "p")]));
        let b = Spec::new("b", seq([msg("M", "p", "q"), msg("X", "q", "p")]));
        let d = a
            .compile()
            .unwrap()
            .bisimilar(&b.compile().unwrap())
            .unwrap_err();
        assert_eq!(d.trace, ["!(M,p,q)", "?(M,p,q)"]);
        assert_eq!(d.difference, "only the first can do !(M,q,p)");
    }
}
