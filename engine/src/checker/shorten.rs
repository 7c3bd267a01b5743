//! The check's side of the shortest counterexample: whether to shorten
//! the violation a search found (the option, or by default its cost), and
//! the replay on the object that a shorter one must pass before it is
//! shown.

use crate::hint::Setting;
use crate::ids::ProtoId;
use crate::protocol::Protocol;
use crate::report::{reexecute, starved_roles, steps_of, Counterexample, RawLasso, Shortness};
use crate::search::{Search, Shortening, Stop};
use crate::successors::Successors;

use super::Checker;

/// By default the shortening may visit this many product states and
/// (state, marks) pairs, or one and a half times the search's states if
/// that is more: a few milliseconds of work is worth a shortest trace
/// even after a search that found its violation at once.
const DEFAULT_FLOOR: u64 = 4_096;

/// What the shortening decided, before the object has replayed it.
pub(super) enum Pick {
    /// Show the violation found: it is a shortest one (of this length in
    /// the product), or why not.
    Found(Shortness, Option<(u64, u64)>),
    /// A strictly shorter violation, still to be replayed, and the length
    /// of the product's shortest.
    Shorter(RawLasso, (u64, u64)),
}

/// Shortens `found` as `checker` asks (see [`Checker::shortest`]), with the
/// search that found it (its budget, stats and successors).
pub(super) fn shorten<P: Protocol>(
    search: &mut Search<'_, P>,
    checker: &Checker,
    max_states: u64,
    initial: ProtoId,
    found: &RawLasso,
) -> Pick {
    let (allowance, is_limit) = match checker.shortest {
        Some(false) => return Pick::Found(Shortness::Unknown, None),
        Some(true) => (max_states, true),
        None => {
            let share = search.stats.product_states.saturating_mul(3) / 2;
            let allowance = share.max(DEFAULT_FLOOR);
            if allowance >= max_states {
                (max_states, true)
            } else {
                (allowance, false)
            }
        }
    };
    let audience = checker.audience;
    match search.shortest(initial, allowance, is_limit) {
        Shortening::Exact(short) => {
            let length = search.product_length(&short);
            // Folded, either may be the shorter run: the shortening's is
            // the product's shortest, not the run's.
            let short = search.folded(short, initial);
            let folded = search.folded(found.clone(), initial);
            let best = if search.shown_length(&folded) < search.shown_length(&short) {
                folded
            } else {
                short
            };
            if search.shown_length(&best) < search.shown_length(found) {
                Pick::Shorter(best, length)
            } else {
                // As short as the one found: the search's stays, the same
                // trace as without shortening.
                Pick::Found(Shortness::Shortest, Some(length))
            }
        }
        Shortening::Stopped(stop) => Pick::Found(
            Shortness::NotShown(match stop {
                Stop::Allowance(n) => format!(
                    "shortening it would visit more than {n} product states, over one and a half \
                 times the search's; ask for a shortest one with {}",
                    Setting::Shortest.named(audience)
                ),
                Stop::Limit(limit) => {
                    format!("shortening it stopped at {}", limit.explained(audience))
                }
                Stop::Probe(why) => format!("shortening it stopped: {why}"),
            }),
            None,
        ),
    }
}

/// The violation to show, whether it is a shortest one, and the product's
/// shortest length: a shorter one if it replays on a fresh clone of the
/// initial object (step by step, the cycle closing on an equal object, the
/// ending holding), else the one found, saying why.
pub(super) fn settle<P: Protocol>(
    ex: &Successors<P>,
    checker: &Checker,
    initial: ProtoId,
    found: RawLasso,
    pick: Pick,
) -> (RawLasso, Shortness, Option<(u64, u64)>) {
    let (short, length) = match pick {
        Pick::Found(shortness, length) => return (found, shortness, length),
        Pick::Shorter(short, length) => (short, length),
    };
    let replayed = crate::quiet::quietly(|| {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            // The check's own re-execution, which also compares each
            // object with the stored one, where the found one gets it.
            if checker.determinism || ex.store.is_compacted() {
                reexecute(ex, initial, &short).map_err(|e| e.to_string())?;
            }
            let fresh = ex.store.get(initial).clone();
            counterexample(ex, checker, initial, &short, Shortness::Shortest, None)
                .replay_showing(fresh, |_| String::new())
                .map(|_| ())
                .map_err(|e| e.message)
        }))
    });
    let why = match replayed {
        Ok(Ok(())) => return (short, Shortness::Shortest, Some(length)),
        Ok(Err(why)) => why,
        Err(payload) => format!(
            "the object panicked: {}",
            crate::panic_message(payload.as_ref())
        ),
    };
    (
        found,
        Shortness::NotShown(format!(
            "a shorter one was found but did not replay on the object ({why}), so this is the \
             one the search found"
        )),
        None,
    )
}

/// The report's counterexample of `raw`, with the length of the product's
/// shortest (see [`Counterexample::product_length`]).
pub(super) fn counterexample<P: Protocol>(
    ex: &Successors<P>,
    checker: &Checker,
    initial: ProtoId,
    raw: &RawLasso,
    shortness: Shortness,
    product_length: Option<(u64, u64)>,
) -> Counterexample {
    let (prefix, cycle, ending) = steps_of(ex, raw);
    let starved = starved_roles(ex, initial, raw);
    let dummies = ex
        .alphabet
        .types
        .iter()
        .filter_map(|t| t.dummy.clone())
        .collect();
    Counterexample {
        prefix,
        cycle,
        ending,
        starved,
        audience: checker.audience,
        dummies,
        roles: ex.alphabet.roles.clone(),
        shortness,
        product_length,
    }
}
