//! Formula text → automaton of its negation, with the atoms resolved
//! against the protocol's alphabet.

use owl_lite::{Automaton, Ltl, TranslateError, TranslateOptions};

use crate::alphabet::Alphabet;
use crate::budget::Watch;
use crate::error::Error;
use crate::pattern::{resolve_atoms, Atom, Valuation};

/// Parses `formula`, checks its atoms and translates its negation. The
/// returned atoms are in the automaton's atom order.
#[cfg(test)]
pub(crate) fn automaton_for(
    formula: &str,
    alphabet: &Alphabet,
) -> Result<(Automaton, Vec<Atom>), Error> {
    automaton_within(formula, alphabet, None)
}

/// [`automaton_for`], the translation stopped when `watch` says a limit is
/// reached (then an [`Error::Translate`]; the caller asks the watch which
/// limit it was).
pub(crate) fn automaton_within(
    formula: &str,
    alphabet: &Alphabet,
    watch: Option<&Watch>,
) -> Result<(Automaton, Vec<Atom>), Error> {
    let ltl = owl_lite::parse(formula).map_err(|e| Error::Parse {
        formula: formula.to_string(),
        message: e.to_string(),
        line: e.line(),
        column: e.column(),
    })?;
    let texts = ltl.atoms();
    let atoms = resolve_atoms(&texts, alphabet).map_err(|error| Error::Atom {
        formula: formula.to_string(),
        error: Box::new(error),
    })?;
    let constant = |t: &str| match texts.iter().position(|x| x == t).map(|i| &atoms[i]) {
        Some(Atom::True) => Some(Ltl::tt()),
        Some(Atom::False) => Some(Ltl::ff()),
        _ => None,
    };
    let negated = ltl.map_atoms(constant).negate();

    let mut opts = TranslateOptions::default();
    if let Some(w) = watch {
        let w = w.clone();
        opts = opts.interrupt(move || w.stop());
    }
    for group in exclusive_groups(&texts, &atoms, alphabet) {
        opts = opts.mutually_exclusive(group);
    }
    let aut = owl_lite::translate(&negated, &opts).map_err(|e| match e {
        TranslateError::TooManyAtoms { count } => Error::TooManyAtoms {
            formula: formula.to_string(),
            count,
        },
        other => Error::Translate {
            formula: formula.to_string(),
            message: format!("{other:?}"),
        },
    })?;
    let aut_atoms = aut
        .atoms
        .iter()
        .map(|t| {
            let i = texts
                .iter()
                .position(|x| x == t)
                .expect("the automaton's atoms come from the formula");
            atoms[i].clone()
        })
        .collect();
    Ok((aut, aut_atoms))
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
