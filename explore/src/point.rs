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
/// taken where a close may answer one) or else from the slots: cloning
/// every pending message at every step was a tenth of an execution's
/// work.
pub(crate) fn pending<'a>(
    cloned: Option<&'a [(RoleId, Op)]>,
    ctl: &'a Ctl,
) -> Vec<(RoleId, &'a Op)> {
    match cloned {
        Some(p) => p.iter().map(|(r, op)| (*r, op)).collect(),
        None => in_slots(&ctl.slots).collect(),
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
/// disagrees with its try-operations (see [`Listing`]).
#[allow(clippy::too_many_arguments)]
pub(crate) fn survey<P: Protocol>(
    obj: &P,
    now: &[(RoleId, &Op)],
    ctl: &Ctl,
    names: &[String],
    prev: Option<RoleId>,
    step: usize,
    listing: &mut Listing,
    never: &mut Never<P>,
) -> Result<(Vec<Alt>, Option<End>), End> {
    let alts = enabled(obj, now, prev, names, listing).map_err(|found| End::Diverged {
        step: step + 1,
        expected: "the object's list of enabled actions to agree with its try-operations".into(),
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
