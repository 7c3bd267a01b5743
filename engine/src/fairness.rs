//! [`Fairness`]: which infinite runs count as counterexamples to a liveness
//! property. One type with one parser, used by
//! [`Checker::fairness`](crate::Checker::fairness), `PRUST_FAIRNESS` and the
//! CLI's `--fairness`.
//!
//! What the search does with it, and why that is exact, is on [`Fairness`];
//! the roles' marks of a step, as a [`ProductGraph`](crate::ProductGraph)
//! gives them, are here too.

use std::fmt;
use std::str::FromStr;

use crate::alphabet::{Alphabet, LetterId};

/// Which runs may refute a property: every run ([`None`](Self::None), the
/// default, as in SPIN without `-f` and in Prut4j), or only weakly fair ones
/// ([`Weak`](Self::Weak)).
///
/// # Weak fairness over roles, exactly
///
/// A run is *weakly fair* when no role is enabled (has an action it can
/// take) in every state from some point on and yet never moves. Under
/// [`Fairness::Weak`] only weakly fair runs can violate a property.
///
/// The search adds one acceptance mark per role to the generalised Büchi
/// acceptance of the automaton of the negated formula: a product
/// transition from object state `p` by a step of role `s` carries the mark
/// of role `r` when `r = s` (it moves) or `r` has no enabled action in `p`
/// (stutter steps carry every role's mark: nobody is enabled). Couvreur's
/// search then reports a cycle only in a strongly connected component
/// whose transitions carry every mark, the automaton's and the roles'.
///
/// Why that is exactly weak fairness:
/// - A weakly fair accepting run visits, from some point on, only
///   transitions of one SCC of the product, each infinitely often; for
///   each role it moves infinitely often or is disabled infinitely often
///   (else it is enabled from some point on and never moves), so those
///   transitions carry every role's mark, and every automaton mark: the
///   search finds that SCC.
/// - Conversely, an SCC whose transitions carry every mark has a cycle
///   through one transition of each mark (it is strongly connected); that
///   cycle repeated forever moves every role infinitely often or passes
///   infinitely often a state where it is disabled, so no role is enabled
///   from some point on without moving: a weakly fair accepting run. The
///   counterexample's cycle is built that way (one path per missing mark,
///   then back to its start), so it is itself fair.
///
/// A [`ProductGraph`](crate::ProductGraph) puts the same marks on its
/// edges, so a search of one's own over it (the distributed search of
/// `prust-distributed`) looks for the same fair cycles, and its report
/// checks each step's marks on the object.
///
/// Safety properties (a violation is a finite bad prefix) are unaffected:
/// every finite run extends to a weakly fair one (always schedule, of the
/// enabled roles, the one that has waited longest; a run that stops
/// stutters with nobody enabled), so a bad prefix is a violation with or
/// without fairness, and their breadth-first search is the same.
///
/// Partial-order reduction does not keep fair runs fair (an ample set may
/// postpone a role for good), so it is not run with the roles' marks:
/// the reduced search without them decides when the property holds for
/// every run or its counterexample starves nobody, the full search with
/// them otherwise. The example that rules out the plain combination and
/// why this order is exact are in [`crate::por`] ("Under weak fairness").
/// The marks are one per role beside the automaton's acceptance sets, 32
/// in all: an object with more roles is still checked where the reduced
/// search decides (it needs no marks), and refused (`Error::Fairness`)
/// only where the full search would have to.
///
/// # What changes on the bundled suites
///
/// Every liveness property (a formula with `F` or `U`) of the bundled
/// `.owl` suites (`tests/owl/`), on each of its protocols, both runtimes
/// and both semantics, checked with `--fairness none` and `--fairness
/// weak` (`bench/fairness_table.py target/release/prust` from the
/// repository root: a script that runs `prust check PROTOCOL FORMULA
/// --runtime R --semantics S --fairness F` for each and compares the exit
/// codes): 400 checks of 100 property × protocol pairs; one changes.
///
/// | suite | test | protocol | runtime | semantics | none | weak | the unfair cycle starves |
/// |---|---|---|---|---|---|---|---|
/// | games/rock-paper-scissors.owl | eventual_reception | rock-paper-scissors:3 | liberal | omega | violated | holds | player_0_ |
///
/// `G ("player_2_ SEND * TO player_0_" -> F "player_0_ RECV * FROM
/// player_2_")`: on the liberal object `player_1_` and `player_2_` can
/// play on for ever while `player_0_`, its item waiting in its inbox, is
/// able to receive at every step and never does; weak fairness rules that
/// run out. Under the stutter semantics the property stays violated with
/// fairness: a liberal run can also deadlock with the item unreceived, and
/// a run that stops starves nobody. Everywhere else the verdicts do not
/// depend on fairness: the strict objects of the bundled protocols let
/// only one role move at a time, or their liveness properties fail (or
/// hold) on runs that are fair anyway. (The four `typos.owl` checks of
/// `recv_to` are errors with and without fairness, as that suite means.)
///
/// ```
/// use engine::Fairness;
/// let f: Fairness = "weak".parse().unwrap();
/// assert_eq!(f, Fairness::Weak);
/// assert_eq!(f.to_string(), "weak");
/// assert_eq!(Fairness::default(), Fairness::None);
/// assert!("strong".parse::<Fairness>().unwrap_err().to_string().contains("none or weak"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum Fairness {
    /// Every run counts, however it schedules the roles.
    #[default]
    None,
    /// Only weakly fair runs count: no role may be enabled in every state
    /// from some point on and never move.
    Weak,
}

impl Fairness {
    /// Every fairness, in the order the help lists them.
    pub const ALL: [Fairness; 2] = [Fairness::None, Fairness::Weak];

    /// The canonical name: `none` or `weak` (what [`FromStr`] reads back).
    pub fn name(self) -> &'static str {
        match self {
            Fairness::None => "none",
            Fairness::Weak => "weak",
        }
    }

    /// A one-line description, for `--help` texts.
    pub fn describe(self) -> &'static str {
        match self {
            Fairness::None => "every run counts (SPIN's default, Prut4j)",
            Fairness::Weak => {
                "only runs in which no role stays enabled without ever moving (SPIN's -f, per role)"
            }
        }
    }
}

impl fmt::Display for Fairness {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is not a [`Fairness`]; its message lists the accepted names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownFairness {
    /// The text that did not parse.
    pub given: String,
}

impl fmt::Display for UnknownFairness {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown fairness `{}`: expected none or weak",
            self.given
        )
    }
}

impl std::error::Error for UnknownFairness {}

impl FromStr for Fairness {
    type Err = UnknownFairness;

    /// Case-insensitive.
    fn from_str(s: &str) -> Result<Fairness, UnknownFairness> {
        match s.trim().to_ascii_lowercase().as_str() {
            "none" => Ok(Fairness::None),
            "weak" => Ok(Fairness::Weak),
            _ => Err(UnknownFairness {
                given: s.to_string(),
            }),
        }
    }
}

/// Under weak fairness (`fair`: the roles' bits and where their marks
/// start, from [`fair_marks_layout`](crate::search::fair_marks_layout)),
/// the roles that move in `letters` (the steps an object has enabled, the
/// automaton's wishes aside), a bit per role; 0 without fairness (`fair.0
/// == 0`). For searches over [`ProductGraph`](crate::ProductGraph).
pub(crate) fn enabled_roles(
    a: &Alphabet,
    fair: (u32, u32),
    letters: impl Iterator<Item = LetterId>,
) -> u32 {
    if fair.0 == 0 {
        return 0;
    }
    letters
        .filter(|&l| (l as usize) < a.num_actions())
        .fold(0, |m, l| m | 1 << a.letter(l).role)
}

/// The roles' marks of a step by `letter` from an object whose enabled
/// roles are `enabled` ([`enabled_roles`]): a role's when it moves or
/// cannot (every role's on END or DEADLOCK), shifted past the automaton's
/// marks, as [`Fairness`] says; 0 without fairness.
pub(crate) fn role_marks(
    a: &Alphabet,
    (roles, shift): (u32, u32),
    enabled: u32,
    letter: LetterId,
) -> u32 {
    if roles == 0 {
        return 0;
    }
    let moved = if (letter as usize) < a.num_actions() {
        1u32 << a.letter(letter).role
    } else {
        0
    };
    ((!enabled | moved) & roles) << shift
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_reads_back() {
        for f in Fairness::ALL {
            assert_eq!(f.name().parse::<Fairness>(), Ok(f));
            assert_eq!(f.to_string().to_uppercase().parse::<Fairness>(), Ok(f));
        }
        assert!("".parse::<Fairness>().is_err());
    }
}
