//! The brute-force reference checker the differential tests compare the
//! engine with, written once for every crate's tests: an explicit product
//! of an LTS ([`engine::testing::Lts`]) and the automaton of the negated
//! formula (translated by owl-lite), its SCCs by Tarjan's algorithm, an
//! accepting SCC by definition (with weak fairness over roles if asked),
//! and a direct evaluator of LTL formulas on lassos. Written separately
//! from the engine and kept simple enough to be obviously correct.
//!
//! Atoms name roles `r0`, `r1`, … and types `T0`, `T1`, … (the names of
//! [`Lts`]); a test on an object with other names renders its formula
//! twice, once for the object and once for the reference.

use std::collections::HashMap;

use engine::testing::{Label, Lts};
use engine::{ActionKind, Counterexample, CounterexampleStep, Ending};
use owl_lite::{Kind, Ltl};

/// A letter of a run as the tests see it: an action, or a stutter step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Letter {
    /// An action of the LTS.
    Act(Label),
    /// A stutter step at a terminal state.
    End,
    /// A stutter step at a deadlock.
    Deadlock,
}

/// Independent matcher for the atom forms the tests generate:
/// `ROLE ACTION TYPE [TO|FROM PEER]` with whole-word `*`, `<Tn>` types,
/// and `END`, `DEADLOCK`, `True`, `False`.
pub fn atom_holds(atom: &str, letter: Letter) -> bool {
    let w: Vec<&str> = atom.split_whitespace().collect();
    match (w.as_slice(), letter) {
        (["True"], _) => true,
        (["False"], _) => false,
        (["END"], l) => l == Letter::End,
        (["DEADLOCK"], l) => l == Letter::Deadlock,
        (_, Letter::End | Letter::Deadlock) => false,
        ([role, action, ty, rest @ ..], Letter::Act(l)) => {
            let kind = match *action {
                "SEND" => Some(ActionKind::Send),
                "RECV" => Some(ActionKind::Recv),
                "CLOSE" => Some(ActionKind::Close),
                "*" => None,
                _ => panic!("test atom {atom:?}"),
            };
            let role_ok = *role == "*" || *role == Lts::role_name(l.role);
            let kind_ok = kind.is_none_or(|k| k == l.kind);
            let ty_ok = *ty == "*"
                || (l.kind != ActionKind::Close && *ty == format!("<{}>", Lts::type_name(l.ty)));
            let peer_ok = match rest {
                [] => true,
                [dir, p] => {
                    let to = *dir == "TO";
                    to == (l.kind != ActionKind::Recv)
                        && (*p == "*" || *p == Lts::role_name(l.peer))
                }
                _ => panic!("test atom {atom:?}"),
            };
            role_ok && kind_ok && ty_ok && peer_ok
        }
        _ => panic!("test atom {atom:?}"),
    }
}

/// Direct evaluation of an LTL formula at position 0 of the word
/// `prefix · cycle^ω` (cycle non-empty), by fixpoints over the lasso's
/// positions.
pub fn eval_lasso(f: &Ltl, prefix: &[Letter], cycle: &[Letter]) -> bool {
    assert!(!cycle.is_empty());
    let word: Vec<Letter> = prefix.iter().chain(cycle).copied().collect();
    let n = word.len();
    let succ = |i: usize| if i + 1 < n { i + 1 } else { prefix.len() };
    let mut memo: HashMap<Ltl, Vec<bool>> = HashMap::new();
    eval(f, &word, &succ, &mut memo)[0]
}

fn eval(
    f: &Ltl,
    w: &[Letter],
    succ: &dyn Fn(usize) -> usize,
    memo: &mut HashMap<Ltl, Vec<bool>>,
) -> Vec<bool> {
    if let Some(v) = memo.get(f) {
        return v.clone();
    }
    let n = w.len();
    let mut sub = |g: &Ltl| eval(g, w, succ, memo);
    // Least (strong) or greatest (weak) fixpoint of v[i] = step(i, v[succ(i)]).
    let fix = |init: bool, step: &dyn Fn(usize, bool) -> bool| {
        let mut v = vec![init; n];
        loop {
            let next: Vec<bool> = (0..n).map(|i| step(i, v[succ(i)])).collect();
            if next == v {
                return v;
            }
            v = next;
        }
    };
    let v: Vec<bool> = match f.kind() {
        Kind::True => vec![true; n],
        Kind::False => vec![false; n],
        Kind::Atom(a) => w.iter().map(|&l| atom_holds(a, l)).collect(),
        Kind::Not(g) => sub(g).into_iter().map(|b| !b).collect(),
        Kind::And(gs) => {
            let vs: Vec<Vec<bool>> = gs.iter().map(&mut sub).collect();
            (0..n).map(|i| vs.iter().all(|v| v[i])).collect()
        }
        Kind::Or(gs) => {
            let vs: Vec<Vec<bool>> = gs.iter().map(&mut sub).collect();
            (0..n).map(|i| vs.iter().any(|v| v[i])).collect()
        }
        Kind::Implies(a, b) => {
            let (a, b) = (sub(a), sub(b));
            (0..n).map(|i| !a[i] || b[i]).collect()
        }
        Kind::Equiv(a, b) => {
            let (a, b) = (sub(a), sub(b));
            (0..n).map(|i| a[i] == b[i]).collect()
        }
        Kind::Xor(a, b) => {
            let (a, b) = (sub(a), sub(b));
            (0..n).map(|i| a[i] != b[i]).collect()
        }
        Kind::Next(g) => {
            let g = sub(g);
            (0..n).map(|i| g[succ(i)]).collect()
        }
        Kind::Finally(g) => {
            let g = sub(g);
            fix(false, &|i, nx| g[i] || nx)
        }
        Kind::Globally(g) => {
            let g = sub(g);
            fix(true, &|i, nx| g[i] && nx)
        }
        Kind::Until(a, b) => {
            let (a, b) = (sub(a), sub(b));
            fix(false, &|i, nx| b[i] || (a[i] && nx))
        }
        Kind::WeakUntil(a, b) => {
            let (a, b) = (sub(a), sub(b));
            fix(true, &|i, nx| b[i] || (a[i] && nx))
        }
        Kind::Release(a, b) => {
            let (a, b) = (sub(a), sub(b));
            fix(true, &|i, nx| b[i] && (a[i] || nx))
        }
        Kind::StrongRelease(a, b) => {
            let (a, b) = (sub(a), sub(b));
            fix(false, &|i, nx| b[i] && (a[i] || nx))
        }
    };
    memo.insert(f.clone(), v.clone());
    v
}

/// The brute-force reference: builds the whole product of the LTS and the
/// automaton of the negated formula (translated by owl-lite), computes its
/// SCCs with Tarjan's algorithm, and reports a violation iff an SCC that is
/// reachable from the initial state has an internal edge in every
/// acceptance set (and at least one internal edge).
pub fn reference_violated(lts: &Lts, formula: &str, stutter: bool) -> bool {
    reference_violated_under(lts, formula, stutter, false)
}

/// [`reference_violated`], with weak fairness over roles if `fair`: then
/// the SCC must also contain, for every role, an internal edge on which
/// that role moves or which leaves a state where the role has no
/// transition (the definition: such an SCC holds a cycle through all those
/// edges, on which no role stays enabled without moving).
pub fn reference_violated_under(lts: &Lts, formula: &str, stutter: bool, fair: bool) -> bool {
    let f = owl_lite::parse(formula).expect("test formulas parse");
    let aut = owl_lite::translate(&f.negate(), &owl_lite::TranslateOptions::default())
        .expect("translates");
    let val = |l: Letter| -> u64 {
        aut.atoms
            .iter()
            .enumerate()
            .filter(|(_, a)| atom_holds(a, l))
            .fold(0, |v, (i, _)| v | 1 << i)
    };
    let k = aut.num_states();
    let node = |s: usize, q: usize| s * k + q;
    let n = lts.trans.len() * k;
    // Explicit product graph.
    let mut succ: Vec<Vec<(usize, u64)>> = vec![Vec::new(); n];
    for s in 0..lts.trans.len() {
        for (letter, t) in moves(lts, s, stutter) {
            let v = val(letter);
            let fair_bits = fair_marks(lts, s, letter, fair, aut.acceptance_sets as usize);
            for q in 0..k {
                for e in &aut.edges[q] {
                    if e.guard.eval(v) {
                        succ[node(s, q)].push((node(t, e.target), u64::from(e.acc) | fair_bits));
                    }
                }
            }
        }
    }
    // Reachable nodes.
    let start = node(0, aut.initial);
    let mut reach = vec![false; n];
    let mut todo = vec![start];
    reach[start] = true;
    while let Some(x) = todo.pop() {
        for &(y, _) in &succ[x] {
            if !reach[y] {
                reach[y] = true;
                todo.push(y);
            }
        }
    }
    // Tarjan (recursive: graphs here have at most a few thousand nodes).
    struct T<'a> {
        succ: &'a [Vec<(usize, u64)>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        comp: Vec<usize>,
        ncomp: usize,
    }
    fn strong(t: &mut T, v: usize) {
        t.index[v] = Some(t.next);
        t.low[v] = t.next;
        t.next += 1;
        t.stack.push(v);
        t.on[v] = true;
        for &(w, _) in t.succ[v].iter() {
            match t.index[w] {
                None => {
                    strong(t, w);
                    t.low[v] = t.low[v].min(t.low[w]);
                }
                Some(i) if t.on[w] => t.low[v] = t.low[v].min(i),
                _ => {}
            }
        }
        if Some(t.low[v]) == t.index[v] {
            loop {
                let w = t.stack.pop().unwrap();
                t.on[w] = false;
                t.comp[w] = t.ncomp;
                if w == v {
                    break;
                }
            }
            t.ncomp += 1;
        }
    }
    let mut t = T {
        succ: &succ,
        index: vec![None; n],
        low: vec![0; n],
        on: vec![false; n],
        stack: vec![],
        next: 0,
        comp: vec![usize::MAX; n],
        ncomp: 0,
    };
    strong(&mut t, start);
    let marks = aut.acceptance_sets as usize + if fair { lts.roles } else { 0 };
    let all: u64 = (1u64 << marks) - 1;
    let mut acc = vec![0u64; t.ncomp];
    let mut has_edge = vec![false; t.ncomp];
    for x in (0..n).filter(|&x| reach[x]) {
        for &(y, a) in &succ[x] {
            if t.comp[x] == t.comp[y] {
                has_edge[t.comp[x]] = true;
                acc[t.comp[x]] |= a;
            }
        }
    }
    (0..t.ncomp).any(|c| has_edge[c] && acc[c] & all == all)
}

/// The letters of a counterexample, as a lasso `prefix · cycle^ω` that is
/// a run of `lts`. A bad prefix (`Ending::AnyContinuation`) is completed
/// with a run of the LTS: the first transition of each state, until a
/// state repeats (the cycle) or the run stops (stutter steps).
pub fn lasso_letters(lts: &Lts, c: &Counterexample) -> (Vec<Letter>, Vec<Letter>) {
    lasso_letters_by(lts, c, |s| {
        s.type_name
            .as_deref()
            .map_or(0, |t| t[1..].parse::<usize>().unwrap())
    })
}

/// [`lasso_letters`] for a counterexample of an object whose message
/// types are not named `T0`, `T1`, …: `type_of` gives the index in `lts`
/// of a step's type (any index for a close).
pub fn lasso_letters_by(
    lts: &Lts,
    c: &Counterexample,
    type_of: impl Fn(&CounterexampleStep) -> usize,
) -> (Vec<Letter>, Vec<Letter>) {
    let conv = |s: &CounterexampleStep| {
        Letter::Act(Label {
            role: s.role,
            kind: s.kind,
            ty: if s.kind == ActionKind::Close {
                0
            } else {
                type_of(s)
            },
            peer: s.peer,
        })
    };
    let mut prefix: Vec<Letter> = c.prefix.iter().map(conv).collect();
    match &c.ending {
        Some(Ending::Terminated) => (prefix, vec![Letter::End]),
        Some(Ending::Deadlock { .. }) => (prefix, vec![Letter::Deadlock]),
        None => (prefix, c.cycle.iter().map(conv).collect()),
        Some(Ending::AnyContinuation) => {
            let mut s = 0;
            for l in &prefix {
                let Letter::Act(label) = l else {
                    unreachable!()
                };
                s = lts.trans[s]
                    .iter()
                    .find(|(t, _)| t == label)
                    .expect("the prefix is a run")
                    .1;
            }
            let mut seen: Vec<usize> = Vec::new();
            let mut path: Vec<Letter> = Vec::new();
            loop {
                if let Some(i) = seen.iter().position(|&x| x == s) {
                    prefix.extend_from_slice(&path[..i]);
                    return (prefix, path[i..].to_vec());
                }
                match lts.trans[s].first() {
                    None => {
                        prefix.extend(path);
                        let stop = if lts.terminal[s] {
                            Letter::End
                        } else {
                            Letter::Deadlock
                        };
                        return (prefix, vec![stop]);
                    }
                    Some(&(label, t)) => {
                        seen.push(s);
                        path.push(Letter::Act(label));
                        s = t;
                    }
                }
            }
        }
    }
}

/// Whether `formula` (text, as the tests write it) holds at position 0 of
/// `prefix · cycle^ω`: [`eval_lasso`] for tests without owl-lite at hand.
pub fn formula_holds_on_lasso(formula: &str, prefix: &[Letter], cycle: &[Letter]) -> bool {
    let f = owl_lite::parse(formula).expect("test formulas parse");
    eval_lasso(&f, prefix, cycle)
}

/// The lengths of a shortest counterexample, in actions (stutter steps
/// count none), by brute force: what [`reference_shortest`] returns. An
/// *anchor* is a product state whose automaton state is universal (under
/// the stutter convention: a bad prefix), or one through which some
/// closed walk carries every acceptance mark; the lasso through an anchor
/// is a shortest path to it and a shortest such walk from it, and the
/// shortest counterexample is a lasso of fewest actions in all, of those
/// one with the fewest in its prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShortestLengths {
    /// The actions from the initial state to the anchor.
    pub prefix: usize,
    /// The actions of the closed walk from the anchor (0 for a universal
    /// state, and for a finite run's stutter steps).
    pub cycle: usize,
}

impl ShortestLengths {
    /// Prefix and cycle together.
    pub fn total(&self) -> usize {
        self.prefix + self.cycle
    }
}

/// The shortest counterexample of `formula` on `lts` by brute force, with
/// weak fairness over roles if `fair` (the marks of
/// [`reference_violated_under`]), or `None` if the formula holds. The
/// product is built explicitly; a universal automaton state (a self-loop
/// that every letter of the object takes, with every automaton mark) is,
/// under the stutter convention, a dead end where a violation is certain;
/// every other anchor is tried directly: a shortest-path search over
/// (state, marks seen) pairs from it back to it. Distances are pairs
/// (actions, steps), compared in that order.
pub fn reference_shortest(
    lts: &Lts,
    formula: &str,
    stutter: bool,
    fair: bool,
) -> Option<ShortestLengths> {
    let f = owl_lite::parse(formula).expect("test formulas parse");
    let aut = owl_lite::translate(&f.negate(), &owl_lite::TranslateOptions::default())
        .expect("translates");
    reference_shortest_on(lts, &aut, stutter, fair)
}

/// [`reference_shortest`] in the product with `aut`, an automaton of the
/// negated formula (its atoms read on this reference's own letters): two
/// automata of one language can give lassos of different lengths (one
/// may need a cycle more to settle), so a search that claims the
/// shortest lasso of its product is compared with the product of its
/// own automaton.
pub fn reference_shortest_on(
    lts: &Lts,
    aut: &owl_lite::Automaton,
    stutter: bool,
    fair: bool,
) -> Option<ShortestLengths> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    let val = |l: Letter| -> u64 {
        aut.atoms
            .iter()
            .enumerate()
            .filter(|(_, a)| atom_holds(a, l))
            .fold(0, |v, (i, _)| v | 1 << i)
    };
    let aut_all: u64 = (1u64 << aut.acceptance_sets) - 1;
    // Every letter of the object: each role's send, receive (of each
    // type) and close to every other role, and the two stutter letters.
    let mut letters = vec![Letter::End, Letter::Deadlock];
    for role in 0..lts.roles {
        for peer in (0..lts.roles).filter(|&p| p != role) {
            for ty in 0..lts.types {
                for kind in [ActionKind::Send, ActionKind::Recv] {
                    letters.push(Letter::Act(Label {
                        role,
                        kind,
                        ty,
                        peer,
                    }));
                }
            }
            letters.push(Letter::Act(Label {
                role,
                kind: ActionKind::Close,
                ty: 0,
                peer,
            }));
        }
    }
    let universal: Vec<bool> = (0..aut.num_states())
        .map(|q| {
            stutter
                && aut.edges[q].iter().any(|e| {
                    e.target == q
                        && u64::from(e.acc) & aut_all == aut_all
                        && letters.iter().all(|&l| e.guard.eval(val(l)))
                })
        })
        .collect();
    let k = aut.num_states();
    let node = |s: usize, q: usize| s * k + q;
    let n = lts.trans.len() * k;
    // (target, marks, actions of the step)
    let mut succ: Vec<Vec<(usize, u64, u32)>> = vec![Vec::new(); n];
    for s in 0..lts.trans.len() {
        for (letter, t) in moves(lts, s, stutter) {
            let v = val(letter);
            let fair_bits = fair_marks(lts, s, letter, fair, aut.acceptance_sets as usize);
            let actions = u32::from(matches!(letter, Letter::Act(_)));
            for q in (0..k).filter(|&q| !universal[q]) {
                for e in &aut.edges[q] {
                    if e.guard.eval(v) {
                        succ[node(s, q)].push((
                            node(t, e.target),
                            u64::from(e.acc) | fair_bits,
                            actions,
                        ));
                    }
                }
            }
        }
    }
    let marks = aut.acceptance_sets as usize + if fair { lts.roles } else { 0 };
    let all: u64 = (1u64 << marks) - 1;
    // Distances from the start.
    let start = node(0, aut.initial);
    let mut dist: Vec<Option<(u32, u32)>> = vec![None; n];
    dist[start] = Some((0, 0));
    let mut heap = BinaryHeap::from([Reverse(((0u32, 0u32), start))]);
    while let Some(Reverse((d, x))) = heap.pop() {
        if dist[x] != Some(d) {
            continue;
        }
        for &(y, _, a) in &succ[x] {
            let nd = (d.0 + a, d.1 + 1);
            if dist[y].is_none_or(|old| nd < old) {
                dist[y] = Some(nd);
                heap.push(Reverse((nd, y)));
            }
        }
    }
    // The fewest actions of a closed walk from `c` with every mark.
    let cycle = |c: usize| -> Option<u32> {
        let mut best: HashMap<(usize, u64), (u32, u32)> = HashMap::new();
        best.insert((c, 0), (0, 0));
        let mut heap = BinaryHeap::from([Reverse(((0u32, 0u32), c, 0u64))]);
        let mut found: Option<u32> = None;
        while let Some(Reverse((d, x, m))) = heap.pop() {
            if best[&(x, m)] != d || found.is_some_and(|f| d.0 >= f) {
                continue;
            }
            for &(y, acc, a) in &succ[x] {
                let nd = (d.0 + a, d.1 + 1);
                let nm = m | (acc & all);
                if y == c && nm == all {
                    found = Some(found.map_or(nd.0, |f| f.min(nd.0)));
                }
                if best.get(&(y, nm)).is_none_or(|&old| nd < old) {
                    best.insert((y, nm), nd);
                    heap.push(Reverse((nd, y, nm)));
                }
            }
        }
        found
    };
    let mut reached: Vec<usize> = (0..n).filter(|&x| dist[x].is_some()).collect();
    reached.sort_by_key(|&x| dist[x].expect("reached").0);
    let mut answer: Option<ShortestLengths> = None;
    for x in reached {
        let prefix = dist[x].expect("reached").0 as usize;
        // Nearest first: an anchor as far as the shortest lasso is long
        // cannot give a shorter one.
        if answer.is_some_and(|a| prefix >= a.total()) {
            break;
        }
        let c = if universal[x % k] { Some(0) } else { cycle(x) };
        if let Some(c) = c {
            let here = ShortestLengths {
                prefix,
                cycle: c as usize,
            };
            if answer.is_none_or(|a| here.total() < a.total()) {
                answer = Some(here);
            }
        }
    }
    answer
}

/// The steps of `s` in the product: its transitions, or, with `stutter`,
/// the END or DEADLOCK step to itself where it has none.
fn moves(lts: &Lts, s: usize, stutter: bool) -> Vec<(Letter, usize)> {
    if !lts.trans[s].is_empty() {
        return lts.trans[s]
            .iter()
            .map(|&(l, t)| (Letter::Act(l), t))
            .collect();
    }
    if !stutter {
        return Vec::new();
    }
    let l = if lts.terminal[s] {
        Letter::End
    } else {
        Letter::Deadlock
    };
    vec![(l, s)]
}

/// The weak-fairness marks of a step of `s` by `letter` (none without
/// `fair`): one bit per role from bit `first` on, set when the role
/// moves in the step or cannot move in `s`.
fn fair_marks(lts: &Lts, s: usize, letter: Letter, fair: bool, first: usize) -> u64 {
    if !fair {
        return 0;
    }
    let enabled = |r: usize| lts.trans[s].iter().any(|(l, _)| l.role == r);
    (0..lts.roles)
        .filter(|&r| matches!(letter, Letter::Act(l) if l.role == r) || !enabled(r))
        .fold(0u64, |m, r| m | 1 << (r + first))
}
