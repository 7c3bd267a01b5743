//! `causality`: an action by p (a send, a close, or a handshake of p with
//! q) right after a step that p (or, for a handshake, neither p nor q)
//! took part in, when the two steps cannot be swapped to reach the same
//! state — p could not have known that the other step happened, so
//! nothing in the protocol makes p wait for it.
//!
//! Discourje's formula, per channel p→q:
//! `AG ((handshake p q → AY (init ∨ act p ∨ act q) ∨ diamond) ∧
//! (send p q ∨ close p q → AY (init ∨ act p) ∨ diamond))`, where `diamond`
//! holds when every previous step `b` whose roles are disjoint from those
//! of p's step `a` can be swapped with it: `s0 -b-> s1 -a-> s2` and also
//! `s0 -a-> x -b-> s2`. A step's roles are the sender of a send or a
//! close, the receiver of a receive, and both ends of a handshake. Since
//! `b` not involving p (or p and q) is the same as `b`'s roles being
//! disjoint from `a`'s, the formula fails exactly where some such pair of
//! consecutive steps has no swap; that is what is searched here, one pass
//! over the pairs of consecutive steps of reachable states, in
//! breadth-first order so that the first violation per channel has a
//! shortest witness.
//!
//! A handshake is one step in Discourje's LTS and two in prust's (the send,
//! marked synchronous, then at once its receive: [`Label::is_sync`]), so the
//! search runs on the LTS with each handshake's two steps taken as one
//! (the state between them is never a place where another step can come),
//! and a witness shows both halves. Without the bit, the step before an
//! action of p would be the handshake's receive, by q, and every
//! `sync(T, q, p); sync(U, p, r)` would be a false alarm.
//!
//! Differs from Discourje on purpose where the initial state is entered
//! again: Discourje's `diamond` asks every previous step for a step before
//! it, which the initial state's "no step yet" has not, so an action right
//! after a step that returns to the initial state is reported even when
//! the two can be swapped. Two independent loops of handshakes,
//! `(p⇄q)* ∥ (r⇄s)*`, get a finding from Discourje for both channels, and
//! none here (the last example below).
//!
//! ```
//! use protocols::lint::{lint, Check, Options};
//! use protocols::spec::{msg, par, sync, Spec};
//! let only = Options::only([Check::Causality]);
//! // a→b, then c→d: c acts right after a step it took no part in
//! let lts = Spec::new("x", msg("M", "a", "b").then(msg("N", "c", "d"))).compile().unwrap();
//! let f = lint(&lts, &only);
//! assert_eq!(f.len(), 1);
//! assert_eq!(f[0].channel, Some(("c".into(), "d".into())));
//! // a handshake b→a, then a→c: a took part in the handshake
//! let lts = Spec::new("y", sync("M", "b", "a").then(sync("N", "a", "c"))).compile().unwrap();
//! assert!(lint(&lts, &only).is_empty());
//! // independent loops: every step can be swapped with the one before
//! let loops = par([sync("A", "p", "q").star(), sync("B", "r", "s").star()]);
//! let lts = Spec::new("z", loops).compile().unwrap();
//! assert!(lint(&lts, &only).is_empty());
//! ```

use std::collections::HashSet;

use crate::ids::{RoleIndex, StateId};
use crate::limits::Budget;
use crate::lts::{Action, Label, Lts};
use crate::Error;

use super::finding::{Finding, Step};
use super::{Check, MAX_WITNESSES};

/// One step of the LTS with handshakes taken whole: `label` from the state
/// the step leaves to `to`, through `between` (the state after the send)
/// for a handshake.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Whole {
    label: Label,
    between: Option<StateId>,
    to: StateId,
}

/// The steps of `s`, a handshake's send and receive taken as one.
fn wholes(lts: &Lts, s: StateId, out: &mut Vec<Whole>) {
    out.clear();
    for &(label, t) in lts.transitions(s) {
        if label.is_sync() {
            // the receive is the only step after the send (prust writes it
            // so and the `.aut` reader makes it so); any other step there
            // would not be part of the handshake
            for &(r, u) in lts.transitions(t) {
                if r == label.receive() {
                    out.push(Whole {
                        label,
                        between: Some(t),
                        to: u,
                    });
                }
            }
        } else {
            out.push(Whole {
                label,
                between: None,
                to: t,
            });
        }
    }
}

/// The roles that take part in a step, as a pair (the second equal to the
/// first when only one does).
fn roles(l: &Label) -> (RoleIndex, RoleIndex) {
    match l.action {
        Action::Send if l.is_sync() => (l.from, l.to),
        Action::Send | Action::Close => (l.from, l.from),
        Action::Recv => (l.to, l.to),
    }
}

fn disjoint(a: &Label, b: &Label) -> bool {
    let (a1, a2) = roles(a);
    let (b1, b2) = roles(b);
    a1 != b1 && a1 != b2 && a2 != b1 && a2 != b2
}

/// The witness steps of one whole step from `from`.
fn push_steps(lts: &Lts, steps: &mut Vec<Step>, from: StateId, w: Whole) {
    match w.between {
        Some(m) => {
            steps.push(Step::new(lts, from, w.label, m));
            steps.push(Step::new(lts, m, w.label.receive(), w.to));
        }
        None => steps.push(Step::new(lts, from, w.label, w.to)),
    }
}

/// One finding per channel p→q of the first (shortest) violation; the
/// first [`MAX_WITNESSES`] found (the shortest) with a witness, the others
/// without, pushed on `out` in channel order. Each finding counts against
/// `budget`'s memory, each state is a tick of its clock: a limit stops the
/// search with its error, and the findings made before are pushed.
pub(crate) fn causality(
    lts: &Lts,
    budget: &mut Budget,
    out: &mut Vec<Finding>,
) -> Result<(), Error> {
    let mut findings = Vec::new();
    let stopped = search(lts, budget, &mut findings);
    findings.sort_by(|x, y| x.channel.cmp(&y.channel));
    out.extend(findings);
    stopped
}

fn search(lts: &Lts, budget: &mut Budget, findings: &mut Vec<Finding>) -> Result<(), Error> {
    let n = lts.num_states();
    // breadth-first tree of shortest paths over whole steps
    const NONE: StateId = StateId::new(u32::MAX);
    let mut parent: Vec<(StateId, Option<Whole>)> = vec![(NONE, None); n];
    let mut order = vec![lts.initial()];
    parent[lts.initial().index()].0 = lts.initial();
    let mut out = Vec::new();
    let mut i = 0;
    while i < order.len() {
        let s = order[i];
        i += 1;
        wholes(lts, s, &mut out);
        for &w in &out {
            if parent[w.to.index()].0 == NONE {
                parent[w.to.index()] = (s, Some(w));
                order.push(w.to);
            }
        }
    }
    let path = |mut s: StateId| {
        let mut back = Vec::new();
        while let (p, Some(w)) = parent[s.index()] {
            back.push((p, w));
            s = p;
        }
        let mut steps = Vec::new();
        for &(p, w) in back.iter().rev() {
            push_steps(lts, &mut steps, p, w);
        }
        steps
    };
    let mut reported: HashSet<(RoleIndex, RoleIndex)> = HashSet::new();
    let (mut from_s0, mut from_s1, mut from_x) = (Vec::new(), Vec::new(), Vec::new());
    for &s0 in &order {
        budget.tick()?;
        wholes(lts, s0, &mut from_s0);
        for &b in &from_s0 {
            wholes(lts, b.to, &mut from_s1);
            for &a in &from_s1 {
                if a.label.action == Action::Recv
                    || !disjoint(&a.label, &b.label)
                    || reported.contains(&(a.label.from, a.label.to))
                {
                    continue;
                }
                let swapped = from_s0.iter().filter(|x| x.label == a.label).any(|x| {
                    wholes(lts, x.to, &mut from_x);
                    from_x.iter().any(|y| y.label == b.label && y.to == a.to)
                });
                if swapped {
                    continue;
                }
                reported.insert((a.label.from, a.label.to));
                let omitted = findings.len() >= MAX_WITNESSES;
                let mut witness = Vec::new();
                if !omitted {
                    witness = path(s0);
                    push_steps(lts, &mut witness, s0, b);
                    push_steps(lts, &mut witness, b.to, a);
                }
                let f = finding(lts, &a.label, &b.label, witness, omitted);
                // the set of reported channels grows with the findings
                budget.add_bytes(f.bytes() + 3 * std::mem::size_of::<(RoleIndex, RoleIndex)>())?;
                findings.push(f);
            }
        }
    }
    Ok(())
}

fn finding(lts: &Lts, a: &Label, b: &Label, witness: Vec<Step>, omitted: bool) -> Finding {
    let roles = lts.roles();
    let (p, q) = (&roles[a.from.index()], &roles[a.to.index()]);
    let done = super::finding::describe(lts, b);
    let summary = if a.is_sync() {
        format!(
            "{p} and {q} hand over right after a step neither took part in ({done}), \
             and the two cannot be swapped"
        )
    } else {
        format!("{p} acts right after a step it took no part in ({done}), and the two cannot be swapped")
    };
    Finding {
        check: Check::Causality,
        channel: Some((p.clone(), q.clone())),
        summary,
        witness,
        cycle_start: None,
        witness_omitted: omitted,
    }
}
