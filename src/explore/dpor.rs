//! Dynamic partial-order reduction (DPOR): after each execution, find the
//! races of its trace (two dependent steps of different roles that the
//! program's causality does not order) and mark, at the scheduling point
//! of the first step, choices that reverse the race, so that the
//! depth-first search explores only those instead of every choice.
//!
//! Two ways of choosing what to mark:
//! - **source sets** ([`Flavour::Source`], the default; Abdulla, Aronis,
//!   Jonsson and Sagonas, "Optimal Dynamic Partial Order Reduction",
//!   POPL'14): for a race between step `a` and a later step `b`, take
//!   `v`, the steps after `a` that do not happen after it, followed by
//!   `b`; any *initial* of `v` (a role whose first step in `v` has no
//!   causal predecessor in `v`) can start an execution that reverses the
//!   race, so one is marked only if none is marked (or explored) at `a`
//!   already. With the sleep sets of the search, this is Source-DPOR.
//! - **classic** ([`Flavour::Classic`]; Flanagan and Godefroid, POPL'05):
//!   always mark `b`'s role at `a` (every choice there if it is not
//!   enabled), kept as the reference the tests compare source sets with.
//!
//! The dependency relation is the sound one of issue 13: two steps are
//! dependent if they are of the same role, use the same channel, or do not
//! commute on the object (applied in both orders on clones of the object
//! as it was before the first, they must both be accepted and give equal
//! objects). Any doubt (an operation the object refuses there, a receive
//! from anyone whose sender is not known yet) counts as dependent:
//! dependency may only be over-approximated, which explores more, never
//! fewer, orders. Source sets judge a pair where a reversal would run the
//! later step (see `relation`): a refusal that only waits for the later
//! step's own enabler is an order there, not a race.
//!
//! Both are checked against plain depth-first search (same outcomes) on
//! random programs in `tests/explore_reduction.rs`, with and without a
//! preemption bound, and source sets against the classic one (never more
//! executions).

use engine::{Protocol, RoleId};

use super::enabled::perform;
use super::endpoint::Op;
use super::independence::independent;
use super::scheduler::End;
use super::step::Alt;

/// Which DPOR marks the choices that reverse a race (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flavour {
    /// Flanagan and Godefroid: the racing role itself.
    Classic,
    /// Abdulla et al.: one initial of the reversing sequence, unless one
    /// is there already.
    Source,
}

/// Choices to explore at one scheduling point, asked for by a race.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Backtrack {
    /// The scheduling point (index into the execution's steps).
    pub(crate) point: usize,
    /// Candidate groups of choice indices at `point`, one group per role
    /// (a role's choices go together: its own alternatives, such as the
    /// senders of a receive from anyone, are always explored together).
    pub(crate) groups: Vec<Vec<usize>>,
    /// Source sets: mark the first group only if no choice of any group is
    /// marked at `point` already. Otherwise every group is marked.
    pub(crate) any_of: bool,
    /// The role of the later step of the race (the one to run earlier):
    /// a bounded search also marks it at the context switches before
    /// `point` (see `Dfs::conservative`).
    pub(crate) racer: RoleId,
}

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
pub(crate) fn every_choice<P>(h: &History<P>, schedule: &[Alt]) -> Vec<Backtrack> {
    h.alts
        .iter()
        .enumerate()
        .map(|(k, alts)| Backtrack {
            point: k,
            groups: vec![(0..alts.len()).collect()],
            any_of: false,
            racer: schedule.get(k).map_or(0, |a| a.role),
        })
        .collect()
}

/// The backtrack choices that the execution just run asks for.
///
/// An execution ended by a panic is not maximal (every role is stopped),
/// so the races that the other roles' later steps would have shown are
/// unknown: every choice of its prefix is explored. An execution that the
/// sleep sets cut short, or that a bound stopped, has its races between
/// steps taken, but the operations still pending at its end are not steps
/// of any maximal execution; those of an execution that ended because
/// nothing could move (success, deadlock, violation, unfinished) are, and
/// they race with the steps that disabled them.
///
/// `cache` (source sets only) carries the happens-before rows of the
/// previous execution's first `cache.keep` steps, which this execution
/// replayed unchanged (see [`HbCache`]); it is left holding this
/// execution's rows.
pub(crate) fn after_run<P: Protocol>(
    h: &History<P>,
    schedule: &[Alt],
    end: &End,
    flavour: Flavour,
    cache: Option<&mut HbCache>,
) -> Vec<Backtrack> {
    let mut none = HbCache::default();
    let cache = cache.unwrap_or(&mut none);
    match (end, flavour) {
        // A panic, or a violation found early, stops every role: the
        // execution is not maximal, so the races that the other roles'
        // later steps would have shown are unknown.
        (End::Panicked { .. } | End::Violation { .. }, _) => {
            cache.clear();
            every_choice(h, schedule)
        }
        (_, Flavour::Classic) => {
            cache.clear();
            backtracks(h, schedule)
        }
        _ => {
            let maximal = matches!(
                end,
                End::Success | End::Deadlock(_) | End::Unfinished { .. }
            );
            source_backtracks(h, schedule, maximal, cache)
        }
    }
}

/// The happens-before rows of the last execution analysed, kept by the
/// search between executions: a stateless search re-runs the same prefix
/// of choices (on the same objects), so the rows of its steps and their
/// races are the same as last time, and only the steps after the choice
/// that changed need analysing. That analysis (object probes for every
/// pair of steps) cost DPOR most of its time per execution.
#[derive(Debug, Default)]
pub(crate) struct HbCache {
    /// `rows[b][a]`: step `a` happens before step `b`.
    rows: Vec<Vec<bool>>,
    /// How many leading steps the next execution runs exactly as the last
    /// one did (set by the search when it backtracks).
    pub(crate) keep: usize,
}

impl HbCache {
    fn clear(&mut self) {
        self.rows.clear();
        self.keep = 0;
    }
}

/// The choice indices of each role at one scheduling point.
fn group_of(alts: &[Alt], role: RoleId) -> Vec<usize> {
    (0..alts.len()).filter(|&i| alts[i].role == role).collect()
}

/// Source-DPOR's backtrack points for one execution (see the module docs).
///
/// Each step `b` (and, when `maximal`, each operation still pending at
/// the end, as if it were taken last) is compared with the earlier steps
/// from the latest down: `row[a]` says that `a` happens before `b`. A
/// dependent `a` of another role that is not already known to happen
/// before `b` through a later step is in a race with `b` (no step is
/// causally between them).
pub(crate) fn source_backtracks<P: Protocol>(
    h: &History<P>,
    schedule: &[Alt],
    maximal: bool,
    cache: &mut HbCache,
) -> Vec<Backtrack> {
    let n = schedule.len();
    let mut out = Vec::new();
    // before[b][a]: step a happens before step b (a < b). The first
    // `keep` rows, and the races of those steps, are the last execution's.
    let keep = cache.keep.min(cache.rows.len()).min(n);
    let mut before: Vec<Vec<bool>> = std::mem::take(&mut cache.rows);
    before.truncate(keep);
    let mut events: Vec<(usize, Alt, &Op)> = Vec::new();
    for (b, &alt) in schedule.iter().enumerate().skip(keep) {
        let op = op_of(&h.pending[b], alt.role).expect("a step is a pending operation");
        events.push((b, alt, op));
    }
    if maximal && h.pending.len() > n {
        // The operations pending where nothing could move: each as an
        // event after the last step.
        for (role, op) in &h.pending[n] {
            let alt = Alt {
                role: *role,
                from: None,
                pick: None,
            };
            events.push((n, alt, op));
        }
    }
    for (b, alt, op) in events {
        let role = alt.role;
        let mut row = vec![false; b];
        let mut races = Vec::new();
        for a in (0..b).rev() {
            if row[a] {
                continue;
            }
            let rel = relation(h, schedule, &before, a, alt, op);
            if rel == Rel::Independent {
                continue;
            }
            row[a] = true;
            for (c, &hb) in before[a].iter().enumerate().take(a) {
                if hb {
                    row[c] = true;
                }
            }
            if rel == Rel::Race {
                races.push(a);
            }
        }
        for a in races {
            out.push(reversal(h, schedule, &before, &row, a, b, role));
        }
        if b < n {
            before.push(row);
        }
    }
    cache.rows = before;
    cache.keep = 0;
    out
}

/// How step `a` and a later operation (`op` of `alt`) of one execution
/// are related, for source-set DPOR.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rel {
    /// They commute: no order between them.
    Independent,
    /// `a` happens before the operation, and no order puts the operation
    /// first (`a`, or a step after it, is what lets it be accepted).
    Ordered,
    /// `a` happens before the operation, and the other order is possible
    /// and may differ: a race to reverse.
    Race,
}

/// The relation of step `a` with the later `op` of `alt`, judged where
/// it matters: on the object as it was before `a`, followed by the steps
/// between them that do not happen after `a` (which is where an execution
/// that reverses the race would run `op`). There, `op` must be accepted
/// (else nothing can put it first: ordered, as the send of the message a
/// receive takes) and the two must commute both ways on the object, use
/// different channels, and not be a receive from anyone followed by a
/// send to its role (in the other order the receive could take that
/// message). A send followed by a receive from anyone that took another
/// sender's message is no race: the receive's other senders are its
/// role's own alternatives, explored at its own point.
///
/// Judging it where `a` was taken instead, as the classic DPOR does, sees
/// a dependency wherever `op` was refused there only because its own
/// enabling step had not come yet; such a false order hides the real
/// races behind it once the false race is dropped. Any doubt (the steps in
/// between cannot be replayed, a pending receive from anyone whose sender
/// is unknown) is a race.
fn relation<P: Protocol>(
    h: &History<P>,
    schedule: &[Alt],
    before: &[Vec<bool>],
    a: usize,
    alt: Alt,
    op: &Op,
) -> Rel {
    let first = schedule[a];
    if first.role == alt.role {
        return Rel::Ordered;
    }
    let Some(first_op) = op_of(&h.pending[a], first.role) else {
        return Rel::Race;
    };
    if matches!(op, Op::Choose { .. }) || matches!(first_op, Op::Choose { .. }) {
        // A program's own choice touches neither the object nor a channel.
        return Rel::Independent;
    }
    // A receive from anyone, or a select, still pending at the end of a
    // maximal execution: which sender it would take is not known.
    let unknown_sender =
        matches!(op, Op::Recv { from: None } | Op::Select { .. }) && alt.from.is_none();
    let feeds_later = feeds(first.role, first_op, alt.role, op);
    // The common case, cheaply: commuting where `a` was taken.
    if !unknown_sender && !feeds_later && independent(&h.objects[a], (first, first_op), (alt, op)) {
        return Rel::Independent;
    }
    let b = before.len();
    let mut obj = h.objects[a].clone();
    for c in a + 1..b {
        if before[c][a] {
            continue;
        }
        let step = schedule[c];
        let Some(step_op) = op_of(&h.pending[c], step.role) else {
            return Rel::Race;
        };
        if perform(&mut obj, step, step_op.clone()).is_none() {
            return Rel::Race;
        }
    }
    let accepted = if let (true, Op::Select { alts }) = (unknown_sender, op) {
        alts.iter().any(|x| {
            obj.clone()
                .try_recv(alt.role, Some(x.from))
                .is_ok_and(|(_, m)| x.accepts(&m))
        })
    } else if unknown_sender {
        obj.clone().try_recv(alt.role, None).is_ok()
    } else {
        perform(&mut obj.clone(), alt, op.clone()).is_some()
    };
    if !accepted {
        Rel::Ordered
    } else if unknown_sender || feeds_later || !independent(&obj, (first, first_op), (alt, op)) {
        Rel::Race
    } else {
        Rel::Independent
    }
}

/// The backtrack point that reverses the race of step `a` with the later
/// event `b` of `role` (`row`: what happens before `b`): the initials of
/// `v` = the steps in `(a, b)` that do not happen after `a`, then `b`.
fn reversal<P>(
    h: &History<P>,
    schedule: &[Alt],
    before: &[Vec<bool>],
    row: &[bool],
    a: usize,
    b: usize,
    role: RoleId,
) -> Backtrack {
    let alts = &h.alts[a];
    let v: Vec<usize> = (a + 1..b).filter(|&c| !before[c][a]).collect();
    let mut initials: Vec<RoleId> = Vec::new();
    let mut seen: Vec<RoleId> = Vec::new();
    for (i, &c) in v.iter().enumerate() {
        let r = schedule[c].role;
        if seen.contains(&r) {
            continue;
        }
        seen.push(r);
        if !v[..i].iter().any(|&d| before[c][d]) {
            initials.push(r);
        }
    }
    if !seen.contains(&role) && !v.iter().any(|&d| row[d]) {
        // `b` itself is an initial: try it first, as the classic DPOR
        // would.
        initials.insert(0, role);
    }
    let groups: Vec<Vec<usize>> = initials
        .iter()
        .map(|&r| group_of(alts, r))
        .filter(|g| !g.is_empty())
        .collect();
    if groups.is_empty() {
        // No initial is enabled at `a` (an operation disabled there that
        // the object enables later without a dependent step, which the
        // dependency relation rules out; kept as a safety net): every
        // choice.
        return Backtrack {
            point: a,
            groups: vec![(0..alts.len()).collect()],
            any_of: false,
            racer: role,
        };
    }
    Backtrack {
        point: a,
        groups,
        any_of: true,
        racer: role,
    }
}

/// The classic (Flanagan–Godefroid) backtrack choices that the races of
/// one execution ask for.
///
/// `schedule[k]` is the choice taken at point `k`; `h` has one entry per
/// point reached (one more than `schedule` when the execution ended at a
/// point where no step was taken).
pub(crate) fn backtracks<P: Protocol>(h: &History<P>, schedule: &[Alt]) -> Vec<Backtrack> {
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
                out.push(Backtrack {
                    point: a,
                    groups: vec![if mine.is_empty() {
                        (0..alts.len()).collect()
                    } else {
                        mine
                    }],
                    any_of: false,
                    racer: role,
                });
            }
        }
        if k < n {
            last_step[schedule[k].role] = Some(k);
        }
    }
    out
}
