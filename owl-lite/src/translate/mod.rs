//! LTL → transition-based generalised Büchi automaton.
//!
//! The construction is Couvreur's symbolic tableau (FM'99), the one behind
//! Spot's `ltl_to_tgba_fm`: a state *is* a simplified formula (the
//! conjunction of what must still hold), and its outgoing edges come from
//! the formula's *expansion* into terms `letter-cube ∧ X(next) ∧ promises`,
//! following the fixpoint laws
//!
//! ```text
//! a U b = b | (a & X(a U b))      F b = b | X F b        (postponing = promise)
//! a R b = b & (a | X(a R b))      G b = b & X G b
//! a W b = b | (a & X(a W b))      a M b = b & (a | X(a M b))   (promise)
//! ```
//!
//! Each eventuality (`F b`, `a U b`, `a M b`) owns an acceptance set that
//! contains exactly the edges that do *not* postpone it, so a run is
//! accepting iff no eventuality is postponed forever. Terms dominated by
//! another term of the same expansion (weaker letter, fewer obligations,
//! fewer promises) are dropped on the fly; the result then goes through the
//! reductions of [`crate::reduce`].

mod tableau;
mod terms;
#[cfg(test)]
mod tests;

use hashbrown::HashMap;

use crate::automaton::Automaton;
pub use crate::error::TranslateError;
use crate::ltl::Ltl;
use crate::raw::Exclusions;
use crate::reduce;
use crate::simplify::Simplifier;
use crate::wdba::Wdba;
use tableau::Builder;

/// Knowledge about atoms and switches for [`translate`].
///
/// ```
/// use owl_lite::{parse, translate, TranslateOptions};
/// let f = parse(r#"F ("a SEND *" & "b RECV *")"#).unwrap();
/// let opts = TranslateOptions::default().mutually_exclusive(["a SEND *", "b RECV *"]);
/// // The two atoms can never hold together: the language is empty.
/// assert_eq!(translate(&f, &opts).unwrap().num_edges(), 0);
/// ```
#[derive(Debug, Clone)]
pub struct TranslateOptions {
    exclusive: Vec<Vec<String>>,
    simplify: bool,
    reduce: bool,
    wdba: bool,
    /// Tautology and contradiction detection of subformulas (see the
    /// `constants` module); off in the translations that module makes.
    constants: bool,
    /// Asked now and then whether to give up (see [`Self::interrupt`]).
    interrupt: Option<crate::stop::Interrupt>,
}

impl Default for TranslateOptions {
    fn default() -> Self {
        TranslateOptions {
            exclusive: Vec::new(),
            simplify: true,
            reduce: true,
            wdba: true,
            constants: true,
            interrupt: None,
        }
    }
}

impl TranslateOptions {
    /// Declares that at most one of `atoms` holds in any letter. The
    /// automaton then only has to be right on words that respect this: edges
    /// whose guard needs two of them are dropped and guards are simplified
    /// accordingly. May be called several times for several groups; atoms
    /// that do not occur in the formula are ignored.
    pub fn mutually_exclusive(
        mut self,
        atoms: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        self.exclusive
            .push(atoms.into_iter().map(Into::into).collect());
        self
    }

    /// Whether to rewrite the formula with [`Ltl::simplify`] first (default
    /// `true`). Simplification also replaces `&` and `|` subformulas that
    /// are contradictions or tautologies (two temporal operands over a
    /// common atom, found by translating them and checking emptiness) by
    /// `false` and `true`.
    pub fn simplify(mut self, on: bool) -> Self {
        self.simplify = on;
        self
    }

    /// Whether to reduce the automaton after the construction (default
    /// `true`): pruning, acceptance simplification, state merging.
    pub fn reduce(mut self, on: bool) -> Self {
        self.reduce = on;
        self
    }

    /// Whether to try minimising the automaton as a weak deterministic
    /// Büchi automaton (default `true`; only with [`Self::reduce`]). The
    /// minimal WDBA replaces the automaton only when it is smaller and
    /// provably has the same language: the formula is a syntactic
    /// obligation, or the products with the automata of the formula and of
    /// its negation say so. See the `wdba` module.
    ///
    /// ```
    /// use owl_lite::{parse, translate, TranslateOptions};
    /// let f = parse("F a -> (!b U a)").unwrap();
    /// let small = translate(&f, &TranslateOptions::default()).unwrap();
    /// let plain = translate(&f, &TranslateOptions::default().wdba(false)).unwrap();
    /// assert!(small.num_states() < plain.num_states());
    /// ```
    pub fn wdba(mut self, on: bool) -> Self {
        self.wdba = on;
        self
    }

    /// A test the translation calls every few hundred units of work
    /// (about every millisecond or less, in every phase); once it returns
    /// `true` the translation stops with [`TranslateError::Interrupted`].
    /// This is how a caller bounds the time or memory a translation may
    /// take: the construction is exponential in the formula for some
    /// formulas, and the built-in size limits bound its result, not its
    /// running time.
    ///
    /// ```
    /// use std::time::{Duration, Instant};
    /// use owl_lite::{parse, translate, TranslateError, TranslateOptions};
    /// let f = parse("G F p0 & G F p1 & G F p2").unwrap();
    /// let past = Instant::now() - Duration::from_secs(1);
    /// let opts = TranslateOptions::default().interrupt(move || Instant::now() > past);
    /// assert_eq!(translate(&f, &opts).unwrap_err(), TranslateError::Interrupted);
    /// ```
    pub fn interrupt(mut self, stop: impl Fn() -> bool + Send + Sync + 'static) -> Self {
        self.interrupt = Some(crate::stop::Interrupt(std::sync::Arc::new(stop)));
        self
    }
}

/// Translates `f` into a transition-based generalised Büchi automaton
/// accepting exactly the words that satisfy `f` (among the words that respect
/// the exclusions declared in `opts`).
///
/// The automaton's atoms are those of `f` ([`Ltl::atoms`], in that order),
/// even if simplification removes some of them.
///
/// ```
/// use owl_lite::{parse, translate, TranslateOptions};
/// let a = translate(&parse("G F p & G F q").unwrap(), &TranslateOptions::default()).unwrap();
/// assert_eq!((a.num_states(), a.acceptance_sets), (1, 2));
/// // p,q,p,q,... is accepted; p,p,p,... is not.
/// assert!(a.accepts_lasso(&[], &[0b01, 0b10]));
/// assert!(!a.accepts_lasso(&[], &[0b01]));
/// ```
pub fn translate(f: &Ltl, opts: &TranslateOptions) -> Result<Automaton, TranslateError> {
    let _guard = crate::stop::install(opts.interrupt.as_ref());
    let result = translate_uninterrupted(f, opts);
    // A loop that saw the interrupt ended early: whatever it left is not
    // the automaton of `f`.
    if crate::stop::stopped() {
        return Err(TranslateError::Interrupted);
    }
    result
}

/// [`translate`], under the interrupt it installed.
fn translate_uninterrupted(f: &Ltl, opts: &TranslateOptions) -> Result<Automaton, TranslateError> {
    let t0 = std::time::Instant::now();
    let atoms = f.atoms();
    if atoms.len() > 64 {
        return Err(TranslateError::TooManyAtoms { count: atoms.len() });
    }
    let atom_index: HashMap<String, u32> = atoms
        .iter()
        .enumerate()
        .map(|(i, a)| (a.clone(), i as u32))
        .collect();
    let excl = Exclusions {
        groups: opts
            .exclusive
            .iter()
            .map(|g| {
                g.iter()
                    .filter_map(|a| atom_index.get(a.as_str()))
                    .fold(0u64, |m, &i| m | 1 << i)
            })
            .filter(|m| m.count_ones() > 1)
            .collect(),
    };
    let mut b = Builder {
        simp: Simplifier::new(),
        atom_index,
        excl: &excl,
        eventualities: HashMap::new(),
        memo: HashMap::new(),
    };
    let mut start = if opts.simplify {
        b.simp.simplify(f)
    } else {
        f.nnf()
    };
    if opts.simplify && opts.constants {
        let check = TranslateOptions {
            reduce: false,
            wdba: false,
            constants: false,
            ..opts.clone()
        };
        // A translation error means "unknown": not unsatisfiable.
        let unsatisfiable = |g: &Ltl| translate(g, &check).is_ok_and(|a| a.num_edges() == 0);
        let replaced = crate::constants::replace_constants(&start, &unsatisfiable);
        if replaced != start {
            start = b.simp.simplify(&replaced);
        }
    }
    let plain = b
        .construct(&start, opts.simplify, false)
        .inspect_err(|_| b.discard())?
        .expect("no budget");
    if std::env::var_os("OWL_LITE_PROFILE").is_some() {
        eprintln!(
            "construction: {} raw states, {} raw edges, {:?}",
            plain.edges.len(),
            plain.edges.iter().map(Vec::len).sum::<usize>(),
            t0.elapsed()
        );
    }
    let mut best = reduce::finish(plain, atoms.clone(), &excl, opts.reduce)?;
    if opts.simplify && opts.reduce && best.num_states() > 2 && !deterministic(&best) {
        // The letter-by-letter construction is often smaller; keep the
        // smaller result (it gives up early when too large to be worth it).
        // Not tried when the plain automaton is already deterministic: its
        // edges then lead, letter by letter, to single states, which is
        // what the variant's disjunctions aim at; on the benchmark set and
        // 1,200 random formulas it never gave a smaller automaton there,
        // and skipping it saves about a fifth of the median translation
        // time.
        if let Some(raw) = b
            .construct(&start, true, true)
            .inspect_err(|_| b.discard())?
        {
            let other = reduce::finish(raw, atoms, &excl, true)?;
            if std::env::var_os("OWL_LITE_PROFILE").is_some() {
                eprintln!(
                    "exprop: {} states (plain {}), {:?}",
                    other.num_states(),
                    best.num_states(),
                    t0.elapsed()
                );
            }
            if (other.num_states(), other.num_edges()) < (best.num_states(), best.num_edges()) {
                best = other;
            }
        }
    }
    if opts.reduce && opts.wdba && best.num_states() > 1 {
        if let Some(min) = minimal_wdba(f, &start, &best, &excl, opts)? {
            best = min;
        }
    }
    Ok(best)
}

/// Whether no two edges of a state can be taken on one letter (checked on
/// the cubes: two cubes are disjoint when one has an atom the other
/// negates; exclusions are not used, so this may answer `false` for an
/// automaton that is deterministic on the letters that respect them).
fn deterministic(a: &Automaton) -> bool {
    a.edges.iter().all(|es| {
        es.iter().enumerate().all(|(i, e)| {
            es[i + 1..].iter().all(|f| {
                e.guard.cubes.iter().all(|c| {
                    f.guard
                        .cubes
                        .iter()
                        .all(|d| (c.pos & d.neg) | (c.neg & d.pos) != 0)
                })
            })
        })
    })
}

/// The minimal weak deterministic automaton of `best` (which translates
/// `f`, simplified to `start`), if it is smaller and has the same language.
fn minimal_wdba(
    f: &Ltl,
    start: &Ltl,
    best: &Automaton,
    excl: &Exclusions,
    opts: &TranslateOptions,
) -> Result<Option<Automaton>, TranslateError> {
    let t0 = std::time::Instant::now();
    let profile = std::env::var_os("OWL_LITE_PROFILE").is_some();
    let obligation = crate::hierarchy::is_obligation(f) || crate::hierarchy::is_obligation(start);
    let Some(w) = Wdba::build(best, excl, obligation) else {
        return Ok(None);
    };
    if profile {
        eprintln!(
            "wdba: {} states (from {}), {:?}",
            w.num_states(),
            best.num_states(),
            t0.elapsed()
        );
    }
    if w.num_states() >= best.num_states() {
        return Ok(None);
    }
    // For an obligation the construction is exact (Dax et al.); otherwise
    // the one cycle per SCC that decided its acceptance may have lied, and
    // only the two language inclusions settle it. The cheap one (against
    // `best`) goes first; the negation is translated only then, without
    // reductions (emptiness needs none) and without this step (no
    // recursion); a negation that cannot be translated means "not
    // proven": keep `best`.
    if !obligation {
        let neg_opts = TranslateOptions {
            reduce: false,
            wdba: false,
            constants: false,
            ..opts.clone()
        };
        let same = w.same_language(best, || translate(&f.negate(), &neg_opts).ok(), excl);
        if profile {
            eprintln!("wdba: language check {same}, {:?}", t0.elapsed());
        }
        if !same {
            return Ok(None);
        }
    }
    // Fewer states than `best` already; the reductions merge the guards.
    Ok(Some(reduce::finish(
        w.to_raw(),
        best.atoms.clone(),
        excl,
        true,
    )?))
}
