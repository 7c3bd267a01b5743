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
