//! The graph algorithms the checks are made of, each linear in the size of
//! the LTS (times two for the product with one bit): breadth-first search
//! for shortest witnesses, backward reachability, and Tarjan's strongly
//! connected components for "a run that goes on forever".

use crate::ids::StateId;
use crate::lts::{Label, Lts};

use super::finding::Step;

/// "Not visited" in the parent arrays.
const NONE: u32 = u32::MAX;

/// Where a product search stopped: the steps from the initial state and the
/// state and bit they reach.
pub(crate) struct Found {
    pub(crate) steps: Vec<Step>,
    pub(crate) state: StateId,
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
    start: (StateId, u8),
    step: impl Fn(u8, &Label, StateId) -> Option<u8>,
    goal: impl Fn(StateId, u8) -> bool,
    goal_edge: impl Fn(u8, &Label) -> bool,
) -> Option<Found> {
    bfs_with(lts, start, step, goal, goal_edge, true)
}

/// [`bfs`], with the witness steps only if `witness` (without, `steps` is
/// empty: a finding past the cap on witnesses costs no run of its own).
pub(crate) fn bfs_with(
    lts: &Lts,
    start: (StateId, u8),
    step: impl Fn(u8, &Label, StateId) -> Option<u8>,
    goal: impl Fn(StateId, u8) -> bool,
    goal_edge: impl Fn(u8, &Label) -> bool,
    witness: bool,
) -> Option<Found> {
    let node = |s: StateId, b: u8| s.index() * 2 + b as usize;
    // parent node and the index of the transition within the parent's
    let mut parent: Vec<(u32, u32)> = vec![(NONE, NONE); lts.num_states() * 2];
    let first = node(start.0, start.1);
    parent[first] = (first as u32, NONE);
    let mut queue = std::collections::VecDeque::from([start]);
    let path = |parent: &[(u32, u32)], mut n: usize| {
        let mut steps = Vec::new();
        if !witness {
            return steps;
        }
        while parent[n].1 != NONE {
            let (p, i) = parent[n];
            let from = StateId::new(p / 2);
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
                if witness {
                    steps.push(Step::new(lts, s, *label, *t));
                }
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
    start: StateId,
    keep: impl Fn(StateId) -> bool,
    edge: impl Fn(&Label) -> bool,
    goal: impl Fn(StateId) -> bool,
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

/// The states reachable from the initial state.
pub(crate) fn reachable(lts: &Lts) -> Vec<bool> {
    let mut seen = vec![false; lts.num_states()];
    seen[lts.initial().index()] = true;
    let mut stack = vec![lts.initial()];
    while let Some(s) = stack.pop() {
        for &(_, t) in lts.transitions(s) {
            if !seen[t.index()] {
                seen[t.index()] = true;
                stack.push(t);
            }
        }
    }
    seen
}

/// The states from which some state with `target` is reachable through
/// transitions with `edge` (the targets included).
pub(crate) fn backward(lts: &Lts, target: &[bool], edge: impl Fn(&Label) -> bool) -> Vec<bool> {
    let n = lts.num_states();
    // the reverse graph, as compressed rows
    let mut count = vec![0u32; n + 1];
    for s in lts.states() {
        for (l, t) in lts.transitions(s) {
            if edge(l) {
                count[t.index() + 1] += 1;
            }
        }
    }
    for i in 0..n {
        count[i + 1] += count[i];
    }
    let mut fill = count.clone();
    let mut preds = vec![StateId::default(); count[n] as usize];
    for s in lts.states() {
        for (l, t) in lts.transitions(s) {
            if edge(l) {
                preds[fill[t.index()] as usize] = s;
                fill[t.index()] += 1;
            }
        }
    }
    let mut seen = target.to_vec();
    let mut stack: Vec<StateId> = lts.states().filter(|&s| target[s.index()]).collect();
    while let Some(t) = stack.pop() {
        for &p in &preds[count[t.index()] as usize..count[t.index() + 1] as usize] {
            if !seen[p.index()] {
                seen[p.index()] = true;
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
    keep: impl Fn(StateId) -> bool,
    edge: impl Fn(&Label) -> bool,
) -> Vec<bool> {
    let n = lts.num_states();
    let mut index = vec![NONE; n];
    let mut low = vec![0u32; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<StateId> = Vec::new();
    let mut cyclic = vec![false; n];
    let mut next = 0u32;
    // (state, position in its transitions)
    let mut calls: Vec<(StateId, usize)> = Vec::new();
    for root in lts.states() {
        if index[root.index()] != NONE || !keep(root) {
            continue;
        }
        calls.push((root, 0));
        index[root.index()] = next;
        low[root.index()] = next;
        next += 1;
        stack.push(root);
        on_stack[root.index()] = true;
        while let Some(&mut (s, ref mut pos)) = calls.last_mut() {
            let ts = lts.transitions(s);
            if *pos < ts.len() {
                let (l, t) = ts[*pos];
                *pos += 1;
                if !edge(&l) || !keep(t) {
                    continue;
                }
                if t == s {
                    cyclic[s.index()] = true;
                }
                if index[t.index()] == NONE {
                    index[t.index()] = next;
                    low[t.index()] = next;
                    next += 1;
                    stack.push(t);
                    on_stack[t.index()] = true;
                    calls.push((t, 0));
                } else if on_stack[t.index()] {
                    low[s.index()] = low[s.index()].min(index[t.index()]);
                }
                continue;
            }
            calls.pop();
            if let Some(&(p, _)) = calls.last() {
                low[p.index()] = low[p.index()].min(low[s.index()]);
            }
            if low[s.index()] == index[s.index()] {
                let mut members = Vec::new();
                loop {
                    let m = stack.pop().expect("s is on the stack");
                    on_stack[m.index()] = false;
                    members.push(m);
                    if m == s {
                        break;
                    }
                }
                if members.len() > 1 {
                    for m in members {
                        cyclic[m.index()] = true;
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
    s: StateId,
    keep: impl Fn(StateId) -> bool,
    edge: impl Fn(&Label) -> bool,
) -> Vec<Step> {
    let mut parent: Vec<(StateId, u32)> = vec![(StateId::new(NONE), NONE); lts.num_states()];
    parent[s.index()] = (s, NONE);
    let mut queue = std::collections::VecDeque::from([s]);
    while let Some(u) = queue.pop_front() {
        for (i, (l, t)) in lts.transitions(u).iter().enumerate() {
            if !edge(l) || !keep(*t) {
                continue;
            }
            if *t == s {
                let mut steps = vec![Step::new(lts, u, *l, s)];
                let mut v = u;
                while parent[v.index()].1 != NONE {
                    let (p, j) = parent[v.index()];
                    let (pl, _) = lts.transitions(p)[j as usize];
                    steps.push(Step::new(lts, p, pl, v));
                    v = p;
                }
                steps.reverse();
                return steps;
            }
            if parent[t.index()].0 == StateId::new(NONE) {
                parent[t.index()] = (u, i as u32);
                queue.push_back(*t);
            }
        }
    }
    Vec::new()
}
