//! `causality`: an action by p (a send or a close) right after a step that
//! p took no part in, when the two steps cannot be swapped to reach the
//! same state — p could not have known that the other step happened, so
//! nothing in the protocol makes p wait for it.
//!
//! Discourje's formula, per channel p→q: `AG ((send ∨ close) → (AY (init ∨
//! act p) ∨ diamond))`, where `diamond` holds when every previous step `b`
//! that p did not take part in can be swapped with p's step `a`:
//! `s0 -b-> s1 -a-> s2` and also `s0 -a-> x -b-> s2`. Here it is one pass
//! over the pairs of consecutive transitions of reachable states, in
//! breadth-first order so that the first violation per channel has a
//! shortest witness.
//!
//! Not yet distinguished: synchronous communications. Discourje counts a
//! handshake p→q as an action of both p and q; prust's LTS writes it as
//! the send followed by its receive, so after `sync(T, p, q)` an action by
//! p follows q's receive and may be reported although p took part. This is
//! why `causality` is not in the default set (see the crate's issue 15: LTS
//! labels will carry a synchronous bit).

use crate::lts::{Action, Lts};

use super::finding::{Finding, Step};
use super::Check;

/// One finding per channel p→q of the first (shortest) violation.
pub(crate) fn causality(lts: &Lts) -> Vec<Finding> {
    let n = lts.num_states();
    // breadth-first tree of shortest paths
    const NONE: u32 = u32::MAX;
    let mut parent: Vec<(u32, u32)> = vec![(NONE, NONE); n];
    let mut order = vec![lts.initial()];
    parent[lts.initial() as usize] = (lts.initial(), NONE);
    let mut i = 0;
    while i < order.len() {
        let s = order[i];
        i += 1;
        for (j, (_, t)) in lts.transitions(s).iter().enumerate() {
            if parent[*t as usize].0 == NONE {
                parent[*t as usize] = (s, j as u32);
                order.push(*t);
            }
        }
    }
    let path = |mut s: u32| {
        let mut steps = Vec::new();
        while parent[s as usize].1 != NONE {
            let (p, j) = parent[s as usize];
            let (l, _) = lts.transitions(p)[j as usize];
            steps.push(Step::new(lts, p, l, s));
            s = p;
        }
        steps.reverse();
        steps
    };
    let mut reported: Vec<(u32, u32)> = Vec::new();
    let mut findings = Vec::new();
    for &s0 in &order {
        for &(b, s1) in lts.transitions(s0) {
            for &(a, s2) in lts.transitions(s1) {
                if a.action == Action::Recv || b.actor() == a.from {
                    continue;
                }
                if reported.contains(&(a.from, a.to)) {
                    continue;
                }
                let swapped = lts.transitions(s0).iter().any(|&(a2, x)| {
                    a2 == a && lts.transitions(x).iter().any(|&(b2, y)| b2 == b && y == s2)
                });
                if swapped {
                    continue;
                }
                reported.push((a.from, a.to));
                let mut witness = path(s0);
                witness.push(Step::new(lts, s0, b, s1));
                witness.push(Step::new(lts, s1, a, s2));
                let roles = lts.roles();
                findings.push(Finding {
                    check: Check::Causality,
                    channel: Some((roles[a.from as usize].clone(), roles[a.to as usize].clone())),
                    summary: format!(
                        "{} acts right after a step it took no part in ({}), and the two cannot be swapped",
                        roles[a.from as usize],
                        super::finding::describe(lts, &b)
                    ),
                    witness,
                    cycle_start: None,
                });
            }
        }
    }
    findings.sort_by(|x, y| x.channel.cmp(&y.channel));
    findings
}
