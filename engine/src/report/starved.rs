//! Which roles a counterexample's cycle starves: enabled in every state
//! of the cycle and moving in none of its steps. Such a cycle is not a
//! weakly fair run (see [`Fairness`](crate::Fairness)), so the report says
//! so: without fairness the user learns why a liveness verdict may not be
//! the one a scheduler would give.

use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::alphabet::LetterId;
use crate::ids::ProtoId;
use crate::protocol::Protocol;
use crate::successors::Successors;

use super::RawLasso;

/// The roles (by name, in role order) that the cycle of `raw` starves;
/// empty for a finite run (its stutter steps leave nobody enabled) and a
/// bad prefix.
///
/// The run is re-executed on a fresh clone of the initial object and the
/// objects of the cycle probed there, in every probe slot, as the search
/// probes them: the stored states may be fingerprints only (hash
/// compaction) or kept apart by a parallel search. A run that does not
/// re-execute, or a probe that panics, gives no claim (empty), never a
/// wrong one: the verdict stands either way.
pub(crate) fn starved_roles<P: Protocol>(
    ex: &Successors<P>,
    initial: ProtoId,
    raw: &RawLasso,
) -> Vec<String> {
    let a = &ex.alphabet;
    match starved_mask(ex, initial, raw) {
        Some(starved) => (0..a.roles.len())
            .filter(|&r| starved[r])
            .map(|r| a.roles[r].clone())
            .collect(),
        None => Vec::new(),
    }
}

/// Per role, whether the cycle of `raw` starves it (all `false` for a
/// finite run and a bad prefix); `None` when the run does not re-execute
/// (a step refused, an object unequal to the one stored, a cycle that
/// does not close) or a probe panics: unknown, which a caller that needs a *fair* run
/// must take as "not known to be fair".
pub(crate) fn starved_mask<P: Protocol>(
    ex: &Successors<P>,
    initial: ProtoId,
    raw: &RawLasso,
) -> Option<Vec<bool>> {
    let a = &ex.alphabet;
    let stutter = |l: LetterId| l == a.end() || l == a.deadlock();
    let roles = a.roles.len();
    if raw.cycle.is_empty()
        || raw
            .prefix
            .iter()
            .chain(&raw.cycle)
            .any(|s| stutter(s.letter))
    {
        return Some(vec![false; roles]);
    }
    let found = catch_unwind(AssertUnwindSafe(|| {
        // Each step must give the object the search stored, and the cycle
        // must close on the object it started from: otherwise the run
        // probed is not the lasso found (a fingerprint collision under
        // hash compaction, an object that is not deterministic), and its
        // fairness says nothing about the lasso.
        let mut obj = ex.store.get(initial).clone();
        for s in &raw.prefix {
            ex.step_on(&mut obj, s.letter).ok()?;
            ex.store.matches(s.proto, &obj).then_some(())?;
        }
        let anchor = obj.clone();
        // Candidates: the roles that never move in the cycle, then those
        // of them enabled in each of its states (the cycle's last step
        // comes back to its first state, so its sources are all of them).
        let mut starved: Vec<bool> = vec![true; roles];
        for s in &raw.cycle {
            starved[a.letter(s.letter).role] = false;
        }
        for s in &raw.cycle {
            let enabled = ex.enabled_roles_on(&obj);
            for (r, e) in starved.iter_mut().zip(enabled) {
                *r &= e;
            }
            ex.step_on(&mut obj, s.letter).ok()?;
            ex.store.matches(s.proto, &obj).then_some(())?;
        }
        (obj == anchor).then_some(starved)
    }));
    found.ok().flatten()
}
