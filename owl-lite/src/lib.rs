//! owl-lite: LTL in Owl syntax, parsed, simplified and translated to Büchi
//! automata.
//!
//! Pipeline: text ──[`parse`]──▶ [`Ltl`] ──[`Ltl::simplify`] /
//! [`Ltl::negate`]──▶ [`Ltl`] ──[`translate`]──▶ [`Automaton`] (a
//! transition-based generalised Büchi automaton with guards over atom
//! indices) ──[`Automaton::to_hoa`] / [`Automaton::to_dot`]──▶ text.
//!
//! ```
//! use owl_lite::{parse, translate, TranslateOptions};
//!
//! let f = parse(r#"G ("req" -> F "ack")"#).unwrap();
//! let aut = translate(&f.negate(), &TranslateOptions::default()).unwrap();
//! // The violations: some request is never acknowledged.
//! assert_eq!(aut.atoms, vec!["req".to_string(), "ack".to_string()]);
//! assert!(aut.accepts_lasso(&[0b01], &[0b00]));   // req, then silence
//! assert!(!aut.accepts_lasso(&[0b01], &[0b10]));  // req, then ack forever
//! ```
//!
//! # Syntax
//!
//! | form | meaning |
//! |------|---------|
//! | `true`, `tt`, `1` / `false`, `ff`, `0` | constants |
//! | `p0`, `req_1`, `aB` | atom: a lower-case letter or `_`, then letters, digits, `_` |
//! | `"black SEND <Move>"` | quoted atom: any text without an unescaped `"`; `\"` is a quote, `\\` a backslash |
//! | `!f` | not |
//! | `f & g`, `f && g` | and |
//! | `f \| g`, `f \|\| g` | or |
//! | `f -> g`, `f => g` | implies |
//! | `f <-> g`, `f <=> g` | equivalent |
//! | `f ^ g` | exclusive or |
//! | `X f`, `F f`, `G f` | next, finally (eventually), globally (always) |
//! | `f U g`, `f W g` | until, weak until |
//! | `f R g`, `f M g` | release, strong release |
//! | `( f )` | grouping; formulas may span several lines |
//!
//! ## Precedence
//!
//! From the loosest to the tightest binding (Owl's order: the binary
//! temporal operators and the implications bind *tighter* than `&` and `|`):
//!
//! | level | operators | associativity | example | reads as |
//! |-------|-----------|---------------|---------|----------|
//! | 1 | `\|` `\|\|` | n-ary | `a \| b & c` | `a \| (b & c)` |
//! | 2 | `&` `&&` | n-ary | `a & b U c` | `a & (b U c)` |
//! | 3 | `->` `<->` `^` `U` `W` `R` `M` | right | `a U b U c` | `a U (b U c)` |
//! |   |   |   | `a -> b U c` | `a -> (b U c)` |
//! |   |   |   | `a U b -> c` | `a U (b -> c)` |
//! |   |   |   | `a & b -> c` | `a & (b -> c)` |
//! | 4 | `!` `X` `F` `G` | prefix | `!a U b` | `(!a) U b` |
//! |   |   |   | `F a U G b` | `(F a) U (G b)` |
//! |   |   |   | `G F a -> X b` | `(G (F a)) -> (X b)` |
//!
//! When in doubt, parenthesise: `Display` for [`Ltl`] prints parentheses
//! around every nested binary operator.
//!
//! ```
//! use owl_lite::parse;
//! assert_eq!(parse("a & b U c").unwrap(), parse("a & (b U c)").unwrap());
//! assert_eq!(parse("a U b U c").unwrap(), parse("a U (b U c)").unwrap());
//! assert_eq!(parse("!a U b").unwrap(), parse("(!a) U b").unwrap());
//! assert_eq!(parse("a & b -> c").unwrap(), parse("a & (b -> c)").unwrap());
//! ```
//!
//! ## Errors
//!
//! [`parse`] never panics. Errors carry the line, column, the offending text
//! and what was expected, and display the line with a caret:
//!
//! ```
//! let err = owl_lite::parse("G (a ->\n     F )").unwrap_err();
//! assert_eq!((err.line(), err.column()), (2, 8));
//! println!("{err}");
//! // syntax error at line 2, column 8: expected a formula (an atom, a constant,
//! // a unary operator or '('), found ')'
//! //        F )
//! //          ^
//! ```
//!
//! # Formulas
//!
//! [`Ltl`] values are hash-consed: equal subformulas are one shared
//! allocation, equality is a pointer comparison. [`Ltl::nnf`],
//! [`Ltl::negate`] and [`Ltl::simplify`] (the rules are listed in
//! [`simplify`]) rewrite them; [`Ltl::map_atoms`] substitutes atoms.
//!
//! # Translation
//!
//! [`translate`] simplifies the formula (syntactic rules, then
//! `&`/`|` subformulas that are constant found by the emptiness of their
//! automata), builds a transition-based generalised Büchi automaton with
//! Couvreur's tableau construction (states are simplified formulas, one
//! acceptance set per eventuality; a term of a state's expansion is dropped
//! when, letter by letter, terms asking less cover it), also tries, when
//! that automaton is nondeterministic, a letter-by-letter variant whose
//! edges lead to disjunctions of formulas and keeps the smaller result,
//! and then reduces it (see [`reduce`]: direct and reverse simulation
//! among others). Finally, when the language is an obligation,
//! it tries the minimal weak deterministic Büchi automaton (Dax, Eisinger
//! and Klaedtke's powerset construction, as Spot's `minimize_obligation`)
//! and keeps it when smaller and provably equivalent
//! ([`TranslateOptions::wdba`]). On the benchmark set of the project (189
//! formulas) the automata total 1,368 states, as many as Spot's, no
//! family larger, with no language difference from Spot's. Callers that know more about the
//! atoms than a generic translator can say so in [`TranslateOptions`]:
//! with [`TranslateOptions::mutually_exclusive`], impossible edges are
//! dropped.
//!
//! # Limitations
//!
//! At most 64 distinct atoms per formula and 32 acceptance sets per
//! automaton; a construction that would exceed 65,536 edges out of one state
//! or 100,000 states stops (typed [`TranslateError`]s, never a hang).
//! Parentheses nest at most [`ltl_parse::MAX_NESTING`] deep. Guards are
//! compared semantically (truth tables) only when an automaton uses at most
//! 12 atoms; above that, state merging and simulation are syntactic or
//! skipped, so automata are correct but may be larger.

// A model checker's verdicts rest on safe Rust: no crate here needs unsafe.
#![forbid(unsafe_code)]

pub mod automaton;
mod constants;
mod cosim;
mod error;
mod hierarchy;
mod isop;
pub mod ltl;
pub mod ltl_parse;
mod raw;
pub mod reduce;
mod scc;
pub mod simplify;
mod simulation;
mod stop;
mod translate;
mod wdba;

pub use automaton::{AccSet, Automaton, Cube, Edge, Guard, StateId};
pub use ltl::{Kind, Ltl};
pub use ltl_parse::{parse, ParseError, ParseErrorKind};
pub use translate::{translate, TranslateError, TranslateOptions};

/// The negation of a formula, in negation normal form (same as
/// [`Ltl::negate`]).
pub fn negate(f: &Ltl) -> Ltl {
    f.negate()
}

#[cfg(test)]
mod layering {
    use std::collections::{BTreeMap, BTreeSet};

    /// The modules each file's library code names with `crate::…` (its
    /// test module and comments left out: tests may use the layers above).
    fn imports() -> BTreeMap<String, BTreeSet<String>> {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src");
        let mut graph = BTreeMap::new();
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_stem().unwrap().to_string_lossy().to_string();
            if path.extension().is_none_or(|e| e != "rs") || name == "lib" {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let code = text.split("#[cfg(test)]").next().unwrap();
            let mut uses = BTreeSet::new();
            for line in code.lines().filter(|l| !l.trim_start().starts_with("//")) {
                for part in line.split("crate::").skip(1) {
                    let m: String = part
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                        .collect();
                    if m != name && m.chars().next().is_some_and(|c| c.is_ascii_lowercase()) {
                        uses.insert(m);
                    }
                }
            }
            graph.insert(name, uses);
        }
        graph
    }

    /// No two files import each other, directly or through others: each
    /// layer can be read (and changed) knowing only the layers below.
    #[test]
    fn files_import_one_way() {
        let graph = imports();
        assert!(graph.len() > 10, "{graph:?}");
        // Depth-first search for a back edge.
        fn visit<'a>(
            m: &'a str,
            graph: &'a BTreeMap<String, BTreeSet<String>>,
            path: &mut Vec<&'a str>,
            done: &mut BTreeSet<&'a str>,
        ) {
            if done.contains(m) {
                return;
            }
            if let Some(i) = path.iter().position(|p| *p == m) {
                panic!("import circle: {}", path[i..].join(" -> ") + " -> " + m);
            }
            path.push(m);
            for next in graph.get(m).into_iter().flatten() {
                visit(next, graph, path, done);
            }
            path.pop();
            done.insert(m);
        }
        let mut done = BTreeSet::new();
        for m in graph.keys() {
            visit(m, &graph, &mut Vec::new(), &mut done);
        }
    }
}
