//! Dynamic partial-order reduction (DPOR): after each execution, find the
//! races of its trace (two dependent steps of different roles that the
//! program's causality does not order) and mark, at the scheduling point
//! of the first step, the choices that reverse the race, so that the
//! depth-first search explores only those instead of every choice
//! (Flanagan and Godefroid, POPL'05, with the sleep sets of the search;
//! the backtrack choices form a source set in the sense of Abdulla et al.,
//! POPL'14, when the racing role is enabled there).
//!
//! The dependency relation is the sound one of issue 13: two steps are
//! dependent if they are of the same role, use the same channel, or do not
//! commute on the object (applied in both orders on clones of the object
//! as it was before the first, they must both be accepted and give equal
//! objects). Any doubt (an operation the object refuses there, a receive
//! from anyone whose sender is not known yet) counts as dependent:
//! dependency may only be over-approximated, which explores more, never
//! fewer, orders.

use engine::{Protocol, RoleId};

use super::endpoint::Op;
use super::independence::independent;
use super::step::Alt;

/// What one execution saw at each scheduling point, kept only when DPOR
/// is on (it costs a clone of the object per step).
pub(crate) struct History<P> {
    /// The object before each step, and after the last one.
    pub(crate) objects: Vec<P>,
    /// The pending operations at each scheduling point (as for `objects`).
    pub(crate) pending: Vec<Vec<(RoleId, Op)>>,
    /// The enabled choices at each scheduling point (as for `objects`).
    pub(crate) alts: Vec<Vec<Alt>>,
}

impl<P> Default for History<P> {
    fn default() -> Self {
        History {
            objects: Vec::new(),
            pending: Vec::new(),
            alts: Vec::new(),
        }
    }
}

/// Whether step `a` (taken at scheduling point `a`) and the operation `op`
/// of `alt` (of another role, at a later point) may be dependent.
fn dependent<P: Protocol>(h: &History<P>, schedule: &[Alt], a: usize, alt: Alt, op: &Op) -> bool {
    let first = schedule[a];
    if first.role == alt.role {
        return true;
    }
    match op {
        // A program's own choice touches neither the object nor a channel.
        Op::Choose { .. } => return false,
        // A receive from anyone (or a select) that has not happened: its
        // sender, so its channel, is not known.
        Op::Recv { from: None } | Op::Select { .. } if alt.from.is_none() => return true,
        _ => {}
    }
    let Some(first_op) = op_of(&h.pending[a], first.role) else {
        return true;
    };
    if matches!(first_op, Op::Choose { .. }) {
        return false;
    }
    // A receive from anyone races with every send to its role, even on
    // another channel: in the other order it may take that message.
    if feeds(first.role, first_op, alt.role, op) || feeds(alt.role, op, first.role, first_op) {
        return true;
    }
    !independent(&h.objects[a], (first, first_op), (alt, op))
}

/// Whether `op` of `role` is a receive from anyone and `other_op` of
/// `other` a send or close to `role`.
fn feeds(role: RoleId, op: &Op, other: RoleId, other_op: &Op) -> bool {
    matches!(op, Op::Recv { from: None } | Op::Select { .. })
        && matches!(other_op, Op::Send { to, .. } | Op::Close { to } if *to == role)
        && other != role
}

fn op_of(pending: &[(RoleId, Op)], role: RoleId) -> Option<&Op> {
    pending.iter().find(|(r, _)| *r == role).map(|(_, op)| op)
}

/// Every choice at every scheduling point: the backtrack choices of an
/// execution cut short, whose races cannot all be seen.
pub(crate) fn every_choice<P>(h: &History<P>) -> Vec<(usize, Vec<usize>)> {
    h.alts
        .iter()
        .enumerate()
        .map(|(k, alts)| (k, (0..alts.len()).collect()))
        .collect()
}

/// The backtrack choices that the races of one execution ask for: pairs
/// (scheduling point, indices into that point's enabled choices).
///
/// `schedule[k]` is the choice taken at point `k`; `h` has one entry per
/// point reached (one more than `schedule` when the execution ended at a
/// point where no step was taken).
pub(crate) fn backtracks<P: Protocol>(
    h: &History<P>,
    schedule: &[Alt],
) -> Vec<(usize, Vec<usize>)> {
    let n = schedule.len();
    // before[b][a]: step a happens before step b (a < b), by the
    // transitive closure of dependency between steps.
    let mut before: Vec<Vec<bool>> = Vec::with_capacity(n);
    for b in 0..n {
        let role = schedule[b].role;
        let op = op_of(&h.pending[b], role).expect("a step is a pending operation");
        let mut row = vec![false; n];
        for a in (0..b).rev() {
            if row[a] {
                continue;
            }
            if dependent(h, schedule, a, schedule[b], op) {
                row[a] = true;
                for (c, &hb) in before[a].iter().enumerate().take(a) {
                    if hb {
                        row[c] = true;
                    }
                }
            }
        }
        before.push(row);
    }
    let points = h.pending.len();
    let mut out = Vec::new();
    let roles = h
        .pending
        .iter()
        .flat_map(|p| p.iter().map(|(r, _)| *r))
        .max()
        .map_or(0, |m| m + 1);
    // Each role's pending operation stays the same from the point after
    // the role's last step (`start`) to the point where it is taken, or to
    // the last point if it never is (`end`). At each point k of that
    // window, its race is with the last earlier step of another role that
    // it depends on and that does not already happen before the role's
    // last step (Flanagan and Godefroid look at every state of the
    // search): over the window, those are the dependent steps in
    // [start, end) and the last dependent one before `start`.
    let mut last_step: Vec<Option<usize>> = vec![None; roles];
    for k in 0..points {
        for &(role, ref op) in &h.pending[k] {
            let taken_here = k < n && schedule[k].role == role;
            if !(taken_here || k + 1 == points) {
                continue;
            }
            let alt = if taken_here {
                schedule[k]
            } else {
                Alt {
                    role,
                    from: None,
                    pick: None,
                }
            };
            let start = last_step[role].map_or(0, |l| l + 1);
            let known =
                |a: usize| last_step[role].is_some_and(|l| l == a || (a < l && before[l][a]));
            let races = |a: &usize| {
                schedule[*a].role != role && !known(*a) && dependent(h, schedule, *a, alt, op)
            };
            let end = k.min(n);
            // A step that enabled the operation (it was refused before the
            // step and accepted after: the send of the message a receive
            // takes) comes before it in every order: no race to reverse.
            // Only that case is left out: skipping every step where the
            // operation was refused missed races whose dependency came from
            // that refusal (a receive of another channel, judged dependent
            // because it could not be probed there), as the soak found.
            let enabled_at = |a: usize| h.alts[a].iter().any(|x| x.role == role);
            let enabled_by = |a: usize| !enabled_at(a) && enabled_at(a + 1);
            let mut found: Vec<usize> = (start..end)
                .filter(|&a| !enabled_by(a) && races(&a))
                .collect();
            if let Some(a) = (0..start.min(end)).rev().find(races) {
                found.push(a);
            }
            for a in found {
                let alts = &h.alts[a];
                let mine: Vec<usize> = (0..alts.len()).filter(|&i| alts[i].role == role).collect();
                out.push((
                    a,
                    if mine.is_empty() {
                        (0..alts.len()).collect()
                    } else {
                        mine
                    },
                ));
            }
        }
        if k < n {
            last_step[schedule[k].role] = Some(k);
        }
    }
    out
}
