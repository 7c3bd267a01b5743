//! The graph algorithms the checks are made of, each linear in the size of
//! the LTS (times two for the product with one bit): breadth-first search
//! for shortest witnesses, backward reachability, and Tarjan's strongly
//! connected components for "a run that goes on forever".

use crate::lts::{Label, Lts};

use super::finding::Step;

/// "Not visited" in the parent arrays.
const NONE: u32 = u32::MAX;

/// Where a product search stopped: the steps from the initial state and the
/// state and bit they reach.
pub(crate) struct Found {
    pub(crate) steps: Vec<Step>,
    pub(crate) state: u32,
}

/// Breadth-first search of the product of `lts` with one bit, from
/// `(start, bit)`: `step(bit, label, target)` is the bit after a
/// transition, or `None` if the search may not take it; the search stops at the first node
/// with `goal(state, bit)`, or at the first transition with
/// `goal_edge(bit, label)` (which then ends the witness). Breadth first, so
/// the witness is a shortest one. Linear: each of the `2 × states` nodes is
/// visited once.
pub(crate) fn bfs(
    lts: &Lts,
    start: (u32, u8),
    step: impl Fn(u8, &Label, u32) -> Option<u8>,
    goal: impl Fn(u32, u8) -> bool,
    goal_edge: impl Fn(u8, &Label) -> bool,
) -> Option<Found> {
    let node = |s: u32, b: u8| s as usize * 2 + b as usize;
    // parent node and the index of the transition within the parent's
    let mut parent: Vec<(u32, u32)> = vec![(NONE, NONE); lts.num_states() * 2];
    let first = node(start.0, start.1);
    parent[first] = (first as u32, NONE);
    let mut queue = std::collections::VecDeque::from([start]);
    let path = |parent: &[(u32, u32)], mut n: usize| {
        let mut steps = Vec::new();
        while parent[n].1 != NONE {
            let (p, i) = parent[n];
            let from = p / 2;
            let (label, to) = lts.transitions(from)[i as usize];
            steps.push(Step::new(lts, from, label, to));
            n = p as usize;
        }
        steps.reverse();
        steps
    };
    while let Some((s, b)) = queue.pop_front() {
        let n = node(s, b);
        if goal(s, b) {
            return Some(Found {
                steps: path(&parent, n),
                state: s,
            });
        }
        for (i, (label, t)) in lts.transitions(s).iter().enumerate() {
            if goal_edge(b, label) {
                let mut steps = path(&parent, n);
                steps.push(Step::new(lts, s, *label, *t));
                return Some(Found { steps, state: *t });
            }
            let Some(nb) = step(b, label, *t) else {
                continue;
            };
            let m = node(*t, nb);
            if parent[m].0 == NONE {
                parent[m] = (n as u32, i as u32);
                queue.push_back((*t, nb));
            }
        }
    }
    None
}

/// Breadth-first search without a bit: from `start`, through states with
/// `keep` and transitions with `edge`, to the nearest state with `goal`.
pub(crate) fn path_to(
    lts: &Lts,
    start: u32,
    keep: impl Fn(u32) -> bool,
    edge: impl Fn(&Label) -> bool,
    goal: impl Fn(u32) -> bool,
) -> Option<Found> {
    if !keep(start) {
        return None;
    }
    bfs(
        lts,
        (start, 0),
        |_, l, t| (edge(l) && keep(t)).then_some(0),
        |s, _| goal(s),
        |_, _| false,
    )
}

/// The states from which some state with `target` is reachable through
/// transitions with `edge` (the targets included).
pub(crate) fn backward(lts: &Lts, target: &[bool], edge: impl Fn(&Label) -> bool) -> Vec<bool> {
    let n = lts.num_states();
    // the reverse graph, as compressed rows
    let mut count = vec![0u32; n + 1];
    for s in 0..n as u32 {
        for (l, t) in lts.transitions(s) {
            if edge(l) {
                count[*t as usize + 1] += 1;
            }
        }
    }
    for i in 0..n {
        count[i + 1] += count[i];
    }
    let mut fill = count.clone();
    let mut preds = vec![0u32; count[n] as usize];
    for s in 0..n as u32 {
        for (l, t) in lts.transitions(s) {
            if edge(l) {
                preds[fill[*t as usize] as usize] = s;
                fill[*t as usize] += 1;
            }
        }
    }
    let mut seen = target.to_vec();
    let mut stack: Vec<u32> = (0..n as u32).filter(|&s| target[s as usize]).collect();
    while let Some(t) = stack.pop() {
        for &p in &preds[count[t as usize] as usize..count[t as usize + 1] as usize] {
            if !seen[p as usize] {
                seen[p as usize] = true;
                stack.push(p);
            }
        }
    }
    seen
}

/// The states that lie on a cycle of the subgraph of states with `keep` and
/// transitions with `edge`: the members of its non-trivial strongly
/// connected components (Tarjan's algorithm, iterative so that a long LTS
/// cannot overflow the stack).
pub(crate) fn on_cycle(
    lts: &Lts,
    keep: impl Fn(u32) -> bool,
    edge: impl Fn(&Label) -> bool,
) -> Vec<bool> {
    let n = lts.num_states();
    let mut index = vec![NONE; n];
    let mut low = vec![0u32; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<u32> = Vec::new();
    let mut cyclic = vec![false; n];
    let mut next = 0u32;
    // (state, position in its transitions)
    let mut calls: Vec<(u32, usize)> = Vec::new();
    for root in 0..n as u32 {
        if index[root as usize] != NONE || !keep(root) {
            continue;
        }
        calls.push((root, 0));
        index[root as usize] = next;
        low[root as usize] = next;
        next += 1;
        stack.push(root);
        on_stack[root as usize] = true;
        while let Some(&mut (s, ref mut pos)) = calls.last_mut() {
            let ts = lts.transitions(s);
            if *pos < ts.len() {
                let (l, t) = ts[*pos];
                *pos += 1;
                if !edge(&l) || !keep(t) {
                    continue;
                }
                if t == s {
                    cyclic[s as usize] = true;
                }
                if index[t as usize] == NONE {
                    index[t as usize] = next;
                    low[t as usize] = next;
                    next += 1;
                    stack.push(t);
                    on_stack[t as usize] = true;
                    calls.push((t, 0));
                } else if on_stack[t as usize] {
                    low[s as usize] = low[s as usize].min(index[t as usize]);
                }
                continue;
            }
            calls.pop();
            if let Some(&(p, _)) = calls.last() {
                low[p as usize] = low[p as usize].min(low[s as usize]);
            }
            if low[s as usize] == index[s as usize] {
                let mut members = Vec::new();
                loop {
                    let m = stack.pop().expect("s is on the stack");
                    on_stack[m as usize] = false;
                    members.push(m);
                    if m == s {
                        break;
                    }
                }
                if members.len() > 1 {
                    for m in members {
                        cyclic[m as usize] = true;
                    }
                }
            }
        }
    }
    cyclic
}

/// A shortest cycle from `s` back to `s` through transitions with `edge`
/// and states with `keep` (`s` must lie on such a cycle).
pub(crate) fn cycle_from(
    lts: &Lts,
    s: u32,
    keep: impl Fn(u32) -> bool,
    edge: impl Fn(&Label) -> bool,
) -> Vec<Step> {
    let mut parent: Vec<(u32, u32)> = vec![(NONE, NONE); lts.num_states()];
    parent[s as usize] = (s, NONE);
    let mut queue = std::collections::VecDeque::from([s]);
    while let Some(u) = queue.pop_front() {
        for (i, (l, t)) in lts.transitions(u).iter().enumerate() {
            if !edge(l) || !keep(*t) {
                continue;
            }
            if *t == s {
                let mut steps = vec![Step::new(lts, u, *l, s)];
                let mut v = u;
                while parent[v as usize].1 != NONE {
                    let (p, j) = parent[v as usize];
                    let (pl, _) = lts.transitions(p)[j as usize];
                    steps.push(Step::new(lts, p, pl, v));
                    v = p;
                }
                steps.reverse();
                return steps;
            }
            if parent[*t as usize].0 == NONE {
                parent[*t as usize] = (u, i as u32);
                queue.push_back(*t);
            }
        }
    }
    Vec::new()
}
