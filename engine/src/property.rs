//! A formula made ready to check against one protocol's alphabet: parsed
//! once, its atoms resolved, its negation translated. The search and the
//! partial-order reduction's analysis both read this one value, so the text
//! is never parsed twice and the two can never disagree about what the
//! formula says.

use owl_lite::{Automaton, Ltl, TranslateError, TranslateOptions};

use crate::alphabet::Alphabet;
use crate::budget::Watch;
use crate::error::Error;
use crate::pattern::{resolve_atoms, Atom, Valuation};

/// A formula prepared for one alphabet.
pub(crate) struct Property {
    /// The text as the user wrote it (for the report).
    pub text: String,
    /// The formula with its constant atoms (`"True"`, `"False"`) folded, as
    /// the automaton has them: what the reduction's analysis reads.
    pub folded: Ltl,
    /// The automaton of the negated formula.
    pub automaton: Automaton,
    /// The automaton's atoms, in its atom order.
    pub atoms: Vec<Atom>,
}

impl Property {
    /// Parses `formula`, checks its atoms against `alphabet` and translates
    /// its negation, stopped when `watch` says a limit is reached (then an
    /// [`Error::Translate`]; the caller asks the watch which limit it was).
    pub fn prepare(
        formula: &str,
        alphabet: &Alphabet,
        watch: Option<&Watch>,
    ) -> Result<Property, Error> {
        let ltl = parse(formula).map_err(|e| Error::Parse {
            formula: formula.to_string(),
            message: e.to_string(),
            line: e.line(),
            column: e.column(),
        })?;
        let texts = ltl.atoms();
        let resolved = resolve_atoms(&texts, alphabet).map_err(|error| Error::Atom {
            formula: formula.to_string(),
            error: Box::new(error),
        })?;
        let constant = |t: &str| match texts.iter().position(|x| x == t).map(|i| &resolved[i]) {
            Some(Atom::True) => Some(Ltl::tt()),
            Some(Atom::False) => Some(Ltl::ff()),
            _ => None,
        };
        let folded = ltl.map_atoms(constant);
        let negated = folded.negate();

        let mut opts = TranslateOptions::default();
        if let Some(w) = watch {
            let w = w.clone();
            opts = opts.interrupt(move || w.stop());
        }
        for group in exclusive_groups(&texts, &resolved, alphabet) {
            opts = opts.mutually_exclusive(group);
        }
        let automaton = owl_lite::translate(&negated, &opts).map_err(|e| match e {
            TranslateError::TooManyAtoms { count } => Error::TooManyAtoms {
                formula: formula.to_string(),
                count,
            },
            other => Error::Translate {
                formula: formula.to_string(),
                message: format!("{other:?}"),
            },
        })?;
        let atoms = automaton
            .atoms
            .iter()
            .map(|t| {
                let i = texts
                    .iter()
                    .position(|x| x == t)
                    .expect("the automaton's atoms come from the formula");
                resolved[i].clone()
            })
            .collect();
        Ok(Property {
            text: formula.to_string(),
            folded,
            automaton,
            atoms,
        })
    }

    /// A property from an automaton made by hand, for tests of the search
    /// on automata no formula translates to; `formula` stands for it in
    /// the report and the reduction's analysis.
    #[cfg(test)]
    pub fn from_parts(formula: &str, automaton: Automaton, atoms: Vec<Atom>) -> Property {
        let ltl = parse(formula).expect("a formula that parses");
        let folded = ltl.map_atoms(|t| match crate::pattern::parse_atom(t) {
            Ok(Atom::True) => Some(Ltl::tt()),
            Ok(Atom::False) => Some(Ltl::ff()),
            _ => None,
        });
        Property {
            text: formula.to_string(),
            folded,
            automaton,
            atoms,
        }
    }

    /// Why partial-order reduction cannot be used for this formula, if it
    /// cannot (see [`crate::por`]).
    pub fn reduction_applicability(&self) -> Result<(), String> {
        crate::por::applicability(&self.folded)
    }
}

/// Parses formula text: the one place the engine does, so that tests can
/// count the parses of a check.
fn parse(formula: &str) -> Result<Ltl, owl_lite::ParseError> {
    #[cfg(test)]
    PARSES.with(|n| n.set(n.get() + 1));
    owl_lite::parse(formula)
}

#[cfg(test)]
thread_local! {
    /// Formulas parsed on this thread (a check parses on its caller's).
    pub(crate) static PARSES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Groups of atoms of which at most one holds on any letter: one action per
/// step, and the stutter steps carry no action. Computed from the letters
/// themselves, so overlapping patterns (`"a SEND *"`, `"* SEND <M>"`) are
/// never claimed exclusive. Each group starts at one atom and greedily adds
/// every later atom that is disjoint from all members so far.
fn exclusive_groups(texts: &[String], atoms: &[Atom], alphabet: &Alphabet) -> Vec<Vec<String>> {
    let candidates: Vec<usize> = (0..atoms.len())
        .filter(|&i| !matches!(atoms[i], Atom::True | Atom::False))
        .collect();
    if candidates.len() < 2 || atoms.len() > 64 {
        return Vec::new();
    }
    // overlap[i]: the atoms that hold together with atom i on some letter.
    let mut overlap = vec![0u64; atoms.len()];
    let table = Valuation::new(alphabet, atoms);
    for l in 0..alphabet.len() {
        let v = table.of(alphabet, l);
        for &i in &candidates {
            if v >> i & 1 != 0 {
                overlap[i] |= v;
            }
        }
    }
    let mut groups = Vec::new();
    for (n, &i) in candidates.iter().enumerate() {
        let mut group = vec![i];
        let mut clash = overlap[i];
        for &j in &candidates[n + 1..] {
            if clash >> j & 1 == 0 && overlap[j] & group.iter().fold(0, |m, &g| m | 1 << g) == 0 {
                group.push(j);
                clash |= overlap[j];
            }
        }
        if group.len() >= 2 {
            groups.push(group.into_iter().map(|g| texts[g].clone()).collect());
        }
    }
    groups
}
