//! Transition-based generalised Büchi automata (TGBA) with guards over atom
//! indices: what the translator produces and the engine consumes.
//!
//! This module is the contract with the engine: fields and methods here are
//! relied upon by `engine`; change them only together.

/// Index of a state in [`Automaton::edges`].
pub type StateId = usize;

/// A set of acceptance marks (bit `i` = set `i`), at most 32 sets.
pub type AccSet = u32;

/// A conjunction of literals: every atom in `pos` holds and none in `neg`.
/// Bit `i` stands for atom `i` of [`Automaton::atoms`] (at most 64 atoms).
/// The empty cube (both zero) is `true`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Cube {
    /// Atoms that must hold.
    pub pos: u64,
    /// Atoms that must not hold.
    pub neg: u64,
}

impl Cube {
    /// The cube that every valuation satisfies.
    pub const TRUE: Cube = Cube { pos: 0, neg: 0 };

    /// Whether the valuation (bit `i` = atom `i` holds) satisfies the cube.
    pub fn eval(&self, valuation: u64) -> bool {
        valuation & self.pos == self.pos && valuation & self.neg == 0
    }
}

/// A guard in disjunctive normal form: satisfied by a valuation iff some
/// cube is. The empty disjunction is `false`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Guard {
    /// The disjuncts.
    pub cubes: Vec<Cube>,
}

impl Guard {
    /// Whether the valuation (bit `i` = atom `i` holds) satisfies the guard.
    pub fn eval(&self, valuation: u64) -> bool {
        self.cubes.iter().any(|c| c.eval(valuation))
    }
}

/// An edge: on a letter satisfying `guard`, go to `target`, visiting the
/// acceptance sets in `acc`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Edge {
    /// Where the edge leads.
    pub target: StateId,
    /// Which letters may take it.
    pub guard: Guard,
    /// The acceptance sets the edge belongs to.
    pub acc: AccSet,
}

/// A transition-based generalised Büchi automaton.
///
/// A run is accepting iff it takes, for every `i < acceptance_sets`,
/// infinitely many edges whose `acc` contains `i`. With
/// `acceptance_sets == 0` every infinite run is accepting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Automaton {
    /// Atom texts, exactly as written in the formula (without quotes);
    /// index `i` is bit `i` of the cubes.
    pub atoms: Vec<String>,
    /// The initial state.
    pub initial: StateId,
    /// Outgoing edges of each state; the number of states is `edges.len()`.
    pub edges: Vec<Vec<Edge>>,
    /// Number of acceptance sets (generalised Büchi condition).
    pub acceptance_sets: u32,
}

impl Automaton {
    /// Number of states.
    pub fn num_states(&self) -> usize {
        self.edges.len()
    }

    /// Number of edges.
    pub fn num_edges(&self) -> usize {
        self.edges.iter().map(Vec::len).sum()
    }
}

/// Whether the explicit graph `succ` (edges with acceptance marks, every
/// node reachable from the roots it was built from) has a cycle that stays
/// within the nodes satisfying `inside`, visits every set of `all`, and
/// passes through a node satisfying `need`: some strongly connected
/// component of the `inside` part must contain an edge, a `need` node and
/// every set. The emptiness check behind [`Automaton::accepts_lasso`] and
/// the WDBA construction's language checks.
pub(crate) fn has_accepting_cycle(
    succ: &[Vec<(usize, AccSet)>],
    all: AccSet,
    inside: impl Fn(usize) -> bool,
    need: impl Fn(usize) -> bool,
) -> bool {
    let plain: Vec<Vec<usize>> = succ
        .iter()
        .enumerate()
        .map(|(s, out)| {
            if inside(s) {
                out.iter().map(|&(t, _)| t).filter(|&t| inside(t)).collect()
            } else {
                Vec::new()
            }
        })
        .collect();
    let comp = crate::scc::sccs(&plain);
    let n_comp = comp.iter().copied().max().map_or(0, |m| m + 1);
    let mut union = vec![0 as AccSet; n_comp];
    let mut cyclic = vec![false; n_comp];
    let mut needed = vec![false; n_comp];
    for (s, out) in succ.iter().enumerate() {
        if !inside(s) {
            continue;
        }
        if need(s) {
            needed[comp[s]] = true;
        }
        for &(t, acc) in out {
            if inside(t) && comp[s] == comp[t] {
                cyclic[comp[s]] = true;
                union[comp[s]] |= acc;
            }
        }
    }
    (0..n_comp).any(|c| cyclic[c] && needed[c] && union[c] & all == all)
}

impl Cube {
    /// Writes the cube with `lit(atom index, positive)` for each literal,
    /// joined by `&`; `t` for the empty cube.
    fn write_with(
        &self,
        out: &mut String,
        and: &str,
        tt: &str,
        mut lit: impl FnMut(&mut String, usize, bool),
    ) {
        if self.pos == 0 && self.neg == 0 {
            out.push_str(tt);
            return;
        }
        let mut first = true;
        for i in 0..64 {
            let bit = 1u64 << i;
            if (self.pos | self.neg) & bit == 0 {
                continue;
            }
            if !first {
                out.push_str(and);
            }
            first = false;
            lit(out, i, self.pos & bit != 0);
        }
    }
}

impl Guard {
    /// The guard that every valuation satisfies.
    pub fn tt() -> Guard {
        Guard {
            cubes: vec![Cube::TRUE],
        }
    }

    fn write_with(
        &self,
        out: &mut String,
        (and, or, tt, ff): (&str, &str, &str, &str),
        mut lit: impl FnMut(&mut String, usize, bool),
    ) {
        if self.cubes.is_empty() {
            out.push_str(ff);
        }
        for (k, c) in self.cubes.iter().enumerate() {
            if k > 0 {
                out.push_str(or);
            }
            c.write_with(out, and, tt, &mut lit);
        }
    }
}

fn hoa_quote(s: &str) -> String {
    let mut q = String::with_capacity(s.len() + 2);
    q.push('"');
    for c in s.chars() {
        if c == '"' || c == '\\' {
            q.push('\\');
        }
        q.push(c);
    }
    q.push('"');
    q
}

fn dot_escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

fn acc_list(acc: AccSet, sep: &str) -> String {
    (0..32)
        .filter(|i| acc & (1 << i) != 0)
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(sep)
}

impl Automaton {
    /// The acceptance sets every accepting run must visit infinitely often,
    /// as a mask.
    pub fn all_sets(&self) -> AccSet {
        if self.acceptance_sets >= 32 {
            u32::MAX
        } else {
            (1u32 << self.acceptance_sets) - 1
        }
    }

    /// Whether the automaton accepts the ultimately periodic word
    /// `prefix · cycle^ω`; letters are valuations (bit `i` = atom `i`
    /// holds). An empty `cycle` denotes no infinite word: `false`.
    ///
    /// Decided on the product of the automaton with the lasso: some
    /// reachable strongly connected component must contain an edge and visit
    /// every acceptance set.
    pub fn accepts_lasso(&self, prefix: &[u64], cycle: &[u64]) -> bool {
        if cycle.is_empty() || self.edges.is_empty() {
            return false;
        }
        let succ = self.lasso_product(&[self.initial], prefix, cycle);
        has_accepting_cycle(&succ, self.all_sets(), |_| true, |_| true)
    }

    /// The reachable product of the automaton with the lasso `prefix ·
    /// cycle^ω` (`cycle` non-empty), from each state of `starts` at the
    /// lasso's first position: nodes `(state, position)` numbered in
    /// discovery order (the starts first), each with its edges `(node,
    /// marks)`. Shared by [`Self::accepts_lasso`] and the WDBA construction,
    /// which asks whether a cycle of letters is accepted from a set of
    /// states.
    pub(crate) fn lasso_product(
        &self,
        starts: &[StateId],
        prefix: &[u64],
        cycle: &[u64],
    ) -> Vec<Vec<(usize, AccSet)>> {
        let len = prefix.len() + cycle.len();
        let letter = |p: usize| {
            if p < prefix.len() {
                prefix[p]
            } else {
                cycle[p - prefix.len()]
            }
        };
        let succ_pos = |p: usize| if p + 1 < len { p + 1 } else { prefix.len() };
        let mut id: std::collections::HashMap<(usize, usize), usize> = Default::default();
        let mut nodes = Vec::with_capacity(starts.len());
        for &q in starts {
            id.entry((q, 0)).or_insert_with(|| {
                nodes.push((q, 0));
                nodes.len() - 1
            });
        }
        let mut succ: Vec<Vec<(usize, AccSet)>> = Vec::new();
        let mut i = 0;
        while i < nodes.len() {
            let (q, p) = nodes[i];
            let mut out = Vec::new();
            for e in &self.edges[q] {
                if e.guard.eval(letter(p)) {
                    let key = (e.target, succ_pos(p));
                    let n = *id.entry(key).or_insert_with(|| {
                        nodes.push(key);
                        nodes.len() - 1
                    });
                    out.push((n, e.acc));
                }
            }
            succ.push(out);
            i += 1;
        }
        succ
    }

    /// An equivalent automaton with at most one acceptance set (a
    /// transition-based Büchi automaton), by the usual counter construction:
    /// state `(q, i)` waits for set `i`; an edge that completes the round is
    /// accepting.
    pub fn degeneralize(&self) -> Automaton {
        let k = self.acceptance_sets;
        if k <= 1 {
            return self.clone();
        }
        let mut id: std::collections::HashMap<(usize, u32), usize> = Default::default();
        let mut states = vec![(self.initial, 0u32)];
        id.insert((self.initial, 0), 0);
        let mut edges = Vec::new();
        let mut i = 0;
        while i < states.len() {
            let (q, level) = states[i];
            let mut out = Vec::new();
            for e in &self.edges[q] {
                let mut j = level;
                while j < k && e.acc & (1 << j) != 0 {
                    j += 1;
                }
                let accepting = j == k;
                if accepting {
                    j = 0;
                }
                let key = (e.target, j);
                let t = *id.entry(key).or_insert_with(|| {
                    states.push(key);
                    states.len() - 1
                });
                out.push(Edge {
                    target: t,
                    guard: e.guard.clone(),
                    acc: u32::from(accepting),
                });
            }
            edges.push(out);
            i += 1;
        }
        Automaton {
            atoms: self.atoms.clone(),
            initial: 0,
            edges,
            acceptance_sets: 1,
        }
    }

    /// The automaton in the Hanoi Omega-Automata format, version 1, with
    /// transition-based acceptance; atomic propositions are named by their
    /// texts.
    ///
    /// ```
    /// let f = owl_lite::parse("G F a").unwrap();
    /// let a = owl_lite::translate(&f, &Default::default()).unwrap();
    /// assert_eq!(a.to_hoa(), "HOA: v1\nStates: 1\nStart: 0\nAP: 1 \"a\"\n\
    ///     acc-name: Buchi\nAcceptance: 1 Inf(0)\n\
    ///     properties: trans-labels explicit-labels trans-acc\n--BODY--\n\
    ///     State: 0\n[0] 0 {0}\n[t] 0\n--END--\n");
    /// ```
    pub fn to_hoa(&self) -> String {
        use std::fmt::Write;
        let mut s = String::new();
        let k = self.acceptance_sets;
        let _ = writeln!(s, "HOA: v1");
        let _ = writeln!(s, "States: {}", self.num_states());
        let _ = writeln!(s, "Start: {}", self.initial);
        let _ = write!(s, "AP: {}", self.atoms.len());
        for a in &self.atoms {
            let _ = write!(s, " {}", hoa_quote(a));
        }
        s.push('\n');
        let (name, cond) = match k {
            0 => ("all".to_string(), "t".to_string()),
            1 => ("Buchi".to_string(), "Inf(0)".to_string()),
            _ => (
                format!("generalized-Buchi {k}"),
                (0..k)
                    .map(|i| format!("Inf({i})"))
                    .collect::<Vec<_>>()
                    .join("&"),
            ),
        };
        let _ = writeln!(s, "acc-name: {name}");
        let _ = writeln!(s, "Acceptance: {k} {cond}");
        let _ = writeln!(s, "properties: trans-labels explicit-labels trans-acc");
        s.push_str("--BODY--\n");
        for (q, es) in self.edges.iter().enumerate() {
            let _ = writeln!(s, "State: {q}");
            for e in es {
                s.push('[');
                e.guard
                    .write_with(&mut s, ("&", " | ", "t", "f"), |o, i, pos| {
                        if !pos {
                            o.push('!');
                        }
                        let _ = write!(o, "{i}");
                    });
                let _ = write!(s, "] {}", e.target);
                if e.acc != 0 {
                    let _ = write!(s, " {{{}}}", acc_list(e.acc, " "));
                }
                s.push('\n');
            }
        }
        s.push_str("--END--\n");
        s
    }

    /// The automaton as a Graphviz digraph; edges are labelled with their
    /// guard (atom texts) and acceptance marks.
    pub fn to_dot(&self) -> String {
        use std::fmt::Write;
        let mut s = String::from("digraph automaton {\n  rankdir=LR;\n  node [shape=circle];\n");
        let _ = writeln!(
            s,
            "  label=\"{} state(s), {} acceptance set(s)\";",
            self.num_states(),
            self.acceptance_sets
        );
        let _ = writeln!(s, "  init [shape=point, label=\"\"];");
        let _ = writeln!(s, "  init -> {};", self.initial);
        for q in 0..self.num_states() {
            let _ = writeln!(s, "  {q} [label=\"{q}\"];");
        }
        for (q, es) in self.edges.iter().enumerate() {
            for e in es {
                let mut label = String::new();
                e.guard
                    .write_with(&mut label, (" & ", " | ", "true", "false"), |o, i, pos| {
                        if !pos {
                            o.push('!');
                        }
                        o.push_str(&self.atoms[i]);
                    });
                if e.acc != 0 {
                    let _ = write!(label, " {{{}}}", acc_list(e.acc, ","));
                }
                let _ = writeln!(
                    s,
                    "  {q} -> {} [label=\"{}\"];",
                    e.target,
                    dot_escape(&label)
                );
            }
        }
        s.push_str("}\n");
        s
    }
}
