//! A scheduling point not recorded before: its pending operations, the
//! choices the object enables among them, and whether the execution ends
//! there.

use engine::{Protocol, RoleId};

use super::enabled::{enabled, Listing};
use super::end::End;
use super::ending::{stuck_end, waits_for};
use super::endpoint::{Ctl, Slot};
use super::op::{same_op, Op};
use super::step::Alt;
use super::violation::Never;

/// A point's pending operations (borrowed) and enabled choices.
pub(crate) type Point<'a> = (Vec<(RoleId, &'a Op)>, Vec<Alt>);

/// The pending operations in `slots`, by role.
fn in_slots(slots: &[Slot]) -> impl Iterator<Item = (RoleId, &Op)> {
    slots.iter().enumerate().filter_map(|(r, s)| match s {
        Slot::Pending(op) => Some((r, op)),
        _ => None,
    })
}

/// The pending operations by role, borrowed from `cloned` (the clones
/// taken where a close may answer one) or else from the slots, into
/// `out` (empty): cloning every pending message at every step was a
/// tenth of an execution's work.
pub(crate) fn pending<'a>(
    cloned: Option<&'a [(RoleId, Op)]>,
    ctl: &'a Ctl,
    out: &mut Vec<(RoleId, &'a Op)>,
) {
    match cloned {
        Some(p) => out.extend(p.iter().map(|(r, op)| (*r, op))),
        None => out.extend(in_slots(&ctl.slots)),
    }
}

/// The pending operations in `slots`, by role (cloned).
pub(crate) fn pending_ops(ctl: &Ctl) -> Vec<(RoleId, Op)> {
    in_slots(&ctl.slots)
        .map(|(r, op)| (r, op.clone()))
        .collect()
}

/// Whether the pending operations in `slots` are `recorded` (same roles,
/// operations, peers and message types; payload values are not compared:
/// objects do not look at them, see the `Protocol` contract).
pub(crate) fn same_pending(recorded: &[(RoleId, Op)], slots: &[Slot]) -> bool {
    let mut now = in_slots(slots);
    recorded.iter().all(|(r, op)| {
        now.next()
            .is_some_and(|(role, current)| role == *r && same_op(op, current))
    }) && now.next().is_none()
}

/// The enabled choices among `now` (the operations pending at point
/// `step`), and the end of the execution if it ends here: a send or
/// close that the object can never accept is a violation at once (see
/// `violation.rs`), and no choice at all is success, a deadlock or an
/// unfinished protocol. `Err`: the object's list of its enabled actions
/// or its answers disagree with its try-operations (see [`Listing`]). `prev` is the
/// role that made the last step; `alts` an empty vector to fill (given
/// for its allocation).
#[allow(clippy::too_many_arguments)]
pub(crate) fn survey<P: Protocol>(
    obj: &P,
    now: &[(RoleId, &Op)],
    ctl: &Ctl,
    names: &[String],
    (prev, step): (Option<RoleId>, usize),
    listing: &mut Listing,
    never: &mut Never<P>,
    alts: Vec<Alt>,
) -> Result<(Vec<Alt>, Option<End>), End> {
    let alts = enabled(obj, now, prev, names, listing, alts).map_err(|found| End::Diverged {
        step: step + 1,
        expected: "the object's enabled actions (its `is_enabled` answers, its `enabled` list) \
                   to agree with its try-operations"
            .into(),
        found,
    })?;
    let end = match now
        .iter()
        .find(|(r, op)| !alts.iter().any(|a| a.role == *r) && never.never_accepted(obj, *r, op))
    {
        Some((role, op)) => Some(End::Violation {
            role: *role,
            op: waits_for(op, names),
        }),
        None if alts.is_empty() => Some(stuck_end(ctl, names, obj, now)),
        None => None,
    };
    Ok((alts, end))
}

/// Spare vectors for a point's pending operations and choices, kept
/// empty between points: most steps of an execution that keeps no
/// history (no DPOR) would otherwise allocate both afresh, a third of
/// the execution's allocations.
#[derive(Default)]
pub(crate) struct Spare {
    /// The allocation of a vector of borrowed pending operations, held as
    /// one of plain words of the same layout: a stored reference would
    /// need a lifetime, and `Op` is not `Sync`.
    pending: Vec<[usize; 2]>,
    pub(crate) alts: Vec<Alt>,
    /// The roles an execution starts, in order (`Exec`'s), kept for the
    /// next execution's.
    pub(crate) spawned: Vec<RoleId>,
}

impl Spare {
    /// An empty vector for a point's pending operations, borrowed for `'a`.
    pub(crate) fn pending<'a>(&mut self) -> Vec<(RoleId, &'a Op)> {
        relabel(std::mem::take(&mut self.pending))
    }

    /// Takes back a point's vectors, emptied.
    pub(crate) fn keep(&mut self, pending: Vec<(RoleId, &Op)>, alts: Vec<Alt>) {
        self.pending = relabel(pending);
        self.alts = relabel(alts);
    }
}

/// `v` emptied, as a vector of another element type, in the same
/// allocation where the layouts agree: collecting a vector's own
/// iterator into a vector of an element of the same size and alignment
/// reuses its buffer (the standard library's in-place collection; were
/// it ever not to, this would allocate, never misbehave).
fn relabel<T, U>(mut v: Vec<T>) -> Vec<U> {
    v.clear();
    v.into_iter().map(|_| unreachable!("emptied")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A point's spare vectors keep their allocation from one point to the
    /// next (two allocations a step, most of what a step without DPOR
    /// allocated): the relabelled vector is the same buffer, empty.
    #[test]
    fn a_spare_vector_keeps_its_allocation() {
        let op = Op::Close { to: 1 };
        let mut spare = Spare::default();
        let mut now = spare.pending();
        now.extend([(0, &op), (2, &op), (1, &op)]);
        let (buffer, capacity) = (now.as_ptr() as usize, now.capacity());
        let mut alts = Vec::with_capacity(5);
        alts.push(Alt {
            role: 0,
            from: None,
            pick: None,
        });
        let alts_buffer = alts.as_ptr() as usize;
        spare.keep(now, alts);
        let again = spare.pending();
        assert!(again.is_empty() && spare.alts.is_empty());
        assert_eq!(
            (again.as_ptr() as usize, again.capacity()),
            (buffer, capacity)
        );
        assert_eq!(spare.alts.as_ptr() as usize, alts_buffer);
    }
}
