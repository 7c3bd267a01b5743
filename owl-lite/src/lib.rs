//! owl-lite: LTL in Owl syntax, parsed, simplified and translated to Büchi
//! automata.
//!
//! Pipeline: text ──[`ltl_parse`]──▶ [`Ltl`] ──simplify/negate──▶ [`Ltl`]
//! ──translate──▶ [`Automaton`] (a transition-based generalised Büchi
//! automaton with guards over atom indices) ──▶ HOA / DOT.

pub mod automaton;

pub use automaton::{AccSet, Automaton, Cube, Edge, Guard, StateId};
