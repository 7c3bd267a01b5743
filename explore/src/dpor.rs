//! Dynamic partial-order reduction (DPOR): after each execution, find the
//! races of its trace (two dependent steps of different roles, the later
//! of which could have gone first) and mark, at the scheduling point of
//! the earlier step, a choice that reverses the race, so that the
//! depth-first search explores only those instead of every choice.
//!
//! What is marked are **source sets** (Abdulla, Aronis, Jonsson and
//! Sagonas, "Optimal Dynamic Partial Order Reduction", POPL'14): for a
//! race between step `a` and a later event `b`, take `v`, the steps after
//! `a` that do not happen after it, followed by `b`; any *initial* of `v`
//! (a role whose first step in `v` has no causal predecessor in `v`) can
//! start an execution that reverses the race, so one is marked only if
//! none is marked (or explored) at `a` already. With the sleep sets of
//! the search, this is Source-DPOR.
//!
//! Two steps are dependent if they are of the same role, use the same
//! channel (save a send and a receive, below), or do not commute on the
//! object (applied in both orders on clones of the object, they must both
//! be accepted and give equal objects). Any doubt (an operation the
//! object refuses, a receive from anyone whose sender is not known yet)
//! counts as dependent: dependency may only be over-approximated, which
//! explores more, never fewer, orders.
//!
//! **A send and a receive on one channel.** A producer's next send and
//! the receive of its earlier message commute on the object, but objects
//! compare messages by type only, so equal objects do not say that the
//! receiver got the same payload (a LIFO channel hands out the newest
//! message, which the send changes). Such a pair is independent only if
//! the probe also sees the same messages (`same_channel`): both orders run
//! on clones of the object inside one recording window of
//! `engine::origin`, with a clone of the real pending message; the
//! message received in each order, and every message left on **every**
//! channel (drained in passes, at most 64 a channel, after which the
//! object must say each channel is empty: an object may copy a payload
//! to another channel as it receives), must be of one type and copies of
//! one message that existed before the probe. A message the object made
//! anew (a payload taken out and boxed again) has no known origin and
//! keeps the pair dependent; so do an object that looks into a payload
//! during the probe (`downcast_ref` or `Debug`: it may read, or change
//! through a `Cell`, what no origin shows), an object that does not
//! answer `is_channel_empty`, and closes, two sends or two receives on
//! one channel. Copies of one message are one payload if payloads clone
//! honestly. Steps on different channels are watched the same way, but
//! without the drain (`independence::commute`): a step that makes a
//! message or looks into a payload, or a receive that gets another
//! message in each order, keeps the pair dependent, and the objects of
//! the two orders are compared with messages seen by origin too
//! (`Origins::strictly`): two sends on two channels that feed one queue
//! of the object leave its payloads in another order in each order.
//! Payloads an object moves, uncopied, or places where its `==` does not
//! compare messages, rest on the `Protocol` contract ("payloads stay
//! where `==` says"). Without this
//! rule every interleaving of a channel's sends and receives was run: a
//! fan-in of 2 producers of 3 messages took 516 executions for its 20
//! receive orders. A receive from anyone followed by a send of the very
//! sender it took from is then no `feeds` race either (`relation`): in
//! the other order it takes from that channel, where this rule judges.
//!
//! # Objects that disable operations
//!
//! The textbook algorithm assumes that a step never takes another role's
//! operation away. A protocol object does that all the time: of two sends
//! that are the two sides of a choice, the first disables the second, and
//! a later step (the receive of the first message) may enable it again.
//! The first version of this module followed the textbook there and
//! reported "correct in every schedule" for programs that fail (a
//! consumer that assumes which of two producers it hears from first, over
//! a specification that allows either). It was wrong in five steps, each
//! of which hid a race; each is now done the other way, and each alone
//! still misses races on programs of `tests/it/reduction_programs.rs`:
//!
//! 1. **Where a pair is judged.** A step `a` and a later operation were
//!    called independent if they commuted on the object *as it was
//!    before `a`*. But the later operation runs after the steps in
//!    between, where it may do something else (a second send of a role
//!    is refused where its first was accepted). A pair is now judged only
//!    where a reversal would run the later operation: on the object
//!    before `a`, followed by the steps in between that happen before the
//!    later operation and not after `a` (see `relation`). The steps in
//!    between that commute with the later operation are left out: taken
//!    first, one of them may take away what the operation would have
//!    done there (a close that resolves a choice the operation's send
//!    could otherwise have made).
//! 2. **Which earlier steps are compared.** Races were looked for only
//!    among the steps not already known to happen before the event
//!    through a later step. With disabling, "happens before" includes
//!    *enabling*, and an enabling step `c` that comes after `a` (the
//!    receive of the first send, after that send) hid `a`, although the
//!    event could go before `a` as well. Every earlier step of another
//!    role is now judged (the causal order still decides what `v` is).
//! 3. **Which events there are.** An operation was an event only where
//!    its role took it (or, for a maximal execution, where it was still
//!    pending at the end). A choice that a step disabled, and that some
//!    later step enabled again, was judged only where it was finally
//!    taken, behind its enabler; and a receive from anyone that took one
//!    sender's message was never judged for the other sender, whose
//!    message a step had just made unreceivable there. Now every choice
//!    that a step disabled (each sender of a receive from anyone on its
//!    own), and every operation that is refused when its role reaches
//!    it, is an event of its own at that point (see `disabled_events`).
//!
//! 4. **Which refusals order.** A step `a` and a later operation refused
//!    where a reversal would run it were called ordered. But `a` (or a
//!    step after it) may be only this execution's enabler: another step,
//!    one that came *after* the operation here and commutes with
//!    everything in between, may allow it too, and moved in front, the
//!    operation and `a` are both enabled there and can conflict. A close
//!    that a choice allows after either of two steps was missed this way
//!    (`tests/it/reduction_programs.rs`,
//!    `dpor_finds_the_violation_that_commuting_steps_expose`). Such a
//!    pair is now a race, unless `a` comes before the operation in every
//!    execution: program order, or the send of the message it receives,
//!    on a channel that held only what was sent on it (a message there
//!    from the start lets the receive go first; see `causal_row`). Its
//!    reversal is no `v` then (the operation is refused after `v`):
//!    every choice at `a` is explored. One refusal
//!    is not judged where it happens: a receive from one named sender
//!    whose channel is empty, reached by its role's own step and taken
//!    as that role's next step (`awaits_an_empty_channel`). Only a step
//!    that fills the channel lets it go, and judged where it is taken,
//!    with that step before it, it races with the same earlier steps,
//!    more precisely; judged where it was refused, every earlier step of
//!    another role was such a race, and random mailbox programs ran four
//!    executions that the sleep sets stopped for every one they run now.
//!    A receive its role never takes keeps its event: a close may answer
//!    it, which no step shows, and the refusal is then all that stands
//!    for it. The sender's counterpart needs the object's word
//!    ([`Protocol::channel_capacity`]: the channel holds what was sent
//!    on it and not received, and refuses a send while it holds `c`):
//!    then the `n`-th send needs the `(n - c)`-th receive before it in
//!    every execution (`causal_row`), and a send on a full channel that
//!    its role takes as its next step is judged there (`awaits_room`).
//!    Without the word, random mailbox programs over channels of two
//!    ran five times as many executions that the sleep sets stopped
//!    (BENCHMARKS.md, "One execution per trace").
//! 5. **Conflicts the races do not show.** Three choices can commute
//!    pairwise once the first has gone and still conflict before it; the
//!    execution then has no race at all. Every pair of choices that is
//!    not independent where both are enabled (by `independent`, the
//!    same-channel rule included) is now explored both ways at that
//!    point (see `conflicts`).
//! 6. **What the same-channel rule takes away.** With every pair on one
//!    channel dependent, a producer's send came after the receive of its
//!    earlier message in the happens-before order, which kept two kinds
//!    of races in view that the rule hides, on objects whose channels are
//!    not apart (a capacity shared by senders, a priority sender, a send
//!    gated by another channel, a receive that reads a payload's value):
//!    (a) *The state a pair is judged in* (1): a receive that commutes
//!    with the send before it is replayed where the send and a later
//!    operation are judged, and may make room that the send took (in an
//!    inbox of two shared by three senders, a second send and a third
//!    role's send conflict while the first message waits, not once it is
//!    received). A pair is now judged both with the steps in between that
//!    are a send and a receive of the earlier step's channel replayed and
//!    without them (as before the rule), and is a race if either shows
//!    one (see `relation`). And a send and a receive of one channel are
//!    dependent where either, alone, changes what another role's pending
//!    operation may do (`moves_others`), or where the earlier step takes
//!    a sender away from a later receive from anyone.
//!    (b) *The other senders of a receive from anyone*: they are its
//!    role's own alternatives, explored at its point, only if the object
//!    offers them there. One it refuses although its message waits (held
//!    back by a priority sender whose second message, commuting with the
//!    receive of the first, came in between) is never an event, so the
//!    steps that hold it back race with nothing. Each such alternative is
//!    now an event of its own where the receive is taken, and at the end
//!    of an execution cut short, for every receive pending there (see
//!    `blocked_alternatives`). On the mailbox of the tests no channel
//!    touches another and neither adds a race: one complete execution per
//!    trace on 10,000 random programs (`tests/it/trace_count.rs`); the
//!    objects above are in `tests/it/reduction_adversary.rs` and
//!    `tests/it/reduction_review.rs`.
//!
//! What is not proven: source-set DPOR is proven for a dependency that
//! holds in every state, and this one is judged in states of the
//! execution (two steps that commute in one state may conflict in
//! another). Rules 1 to 6 close every gap found so far, by random
//! programs against plain search and by review; the evidence is those
//! tests, not a proof. Sleep sets alone judge each pair where both are
//! enabled and need no such argument.
//!
//! The existing differential tests missed it because their programs ran
//! on a hand-written mailbox, which never disables a send (a full
//! channel aside) and never makes two sends the sides of one choice. The
//! Flanagan–Godefroid DPOR that was kept beside this one as a reference
//! judged pairs as in 1 and missed races too; it was removed, and plain
//! depth-first search is the reference now.
//!
//! Under a property, a step whose action an atom of the formula matches
//! is dependent on every other step (`independence::commute`, judged on
//! the actions of both orders; see `visible`), so every order of it that
//! the formula could tell apart is explored, and only orders of steps no
//! atom sees are pruned.
//!
//! Checked against plain depth-first search (the same failures, and the
//! same final states of the object) on random programs over random
//! specifications in `tests/it/reduction_programs.rs`, and on random
//! mailbox programs, with and without a preemption bound, in
//! `tests/it/reduction.rs`.

use std::sync::Arc;

use engine::{Protocol, RoleId};

use super::end::End;
use super::op::{same_op, Op};
use super::step::Alt;
use super::visible::Visibility;

mod invariant;
mod relation;

use invariant::{
    awaits_an_empty_channel, awaits_room, blocked_alternatives, causal_row, conflicts,
};
use relation::{relation, Rel};

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
    /// Under a property, the actions it sees: each is dependent on every
    /// step (see `independence::commute`), so that every order of it and
    /// another is explored.
    pub(crate) visible: Option<Arc<Visibility>>,
}

impl<P> Default for History<P> {
    fn default() -> Self {
        History {
            objects: Vec::new(),
            pending: Vec::new(),
            alts: Vec::new(),
            visible: None,
        }
    }
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
    cache: Option<&mut HbCache>,
) -> Vec<Backtrack> {
    let mut none = HbCache::default();
    let cache = cache.unwrap_or(&mut none);
    match end {
        // A panic, or a violation found early, stops every role: the
        // execution is not maximal, so the races that the other roles'
        // later steps would have shown are unknown.
        End::Panicked { .. } | End::Violation { .. } | End::Awaiting { .. } => {
            cache.clear();
            every_choice(h, schedule)
        }
        _ => source_backtracks(h, schedule, end.is_maximal(), cache),
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
    /// `causal[b][a]`: step `a` comes before step `b` in every execution
    /// (see [`causal_row`]).
    causal: Vec<Vec<bool>>,
    /// How many leading steps the next execution runs exactly as the last
    /// one did (set by the search when it backtracks).
    pub(crate) keep: usize,
    /// The earliest point at which an event was left out because its role
    /// took it later as its next step (`awaits_an_empty_channel`). That
    /// depends on the steps after the point, which the next execution may
    /// change: it judges this point again instead of keeping it.
    dropped: Option<usize>,
}

impl HbCache {
    fn clear(&mut self) {
        self.rows.clear();
        self.causal.clear();
        self.keep = 0;
        self.dropped = None;
    }
}

/// The choice indices of each role at one scheduling point.
pub(crate) fn group_of(alts: &[Alt], role: RoleId) -> Vec<usize> {
    (0..alts.len()).filter(|&i| alts[i].role == role).collect()
}

/// Source-DPOR's backtrack points for one execution (see the module docs).
///
/// Each step `b` is compared with the earlier steps from the latest
/// down: `row[a]` says that `a` happens before `b`. A dependent `a` of
/// another role that is not already known to happen before `b` through a
/// later step is in a race with `b` (no step is causally between them).
///
/// Operations that were not taken where they are judged are events too,
/// as if taken there (see [`disabled_events`]): those still pending where
/// a maximal execution ended, and those that a step disabled or that were
/// disabled when their role reached them.
pub(crate) fn source_backtracks<P: Protocol>(
    h: &History<P>,
    schedule: &[Alt],
    maximal: bool,
    cache: &mut HbCache,
) -> Vec<Backtrack> {
    let n = schedule.len();
    let mut out = Vec::new();
    // before[b][a]: step a happens before step b (a < b). The first
    // `keep` rows, and the races of those steps and of the operations
    // disabled up to point `keep`, are the last execution's.
    let keep = cache
        .keep
        .min(cache.rows.len())
        .min(cache.causal.len())
        .min(n)
        // The events of point `keep` itself are the last execution's.
        .min(cache.dropped.map_or(usize::MAX, |d| d.saturating_sub(1)));
    // No point before `keep` left an event out (`dropped` was the first).
    let mut dropped = None;
    let mut before: Vec<Vec<bool>> = std::mem::take(&mut cache.rows);
    before.truncate(keep);
    let mut causal: Vec<Vec<bool>> = std::mem::take(&mut cache.causal);
    causal.truncate(keep);
    for k in keep..=n.min(h.pending.len().saturating_sub(1)) {
        if k < n {
            conflicts(h, schedule, k, &mut out);
        }
        // Events judged at point k, against the steps before it; the step
        // taken at k (if any) last, since it extends `before`.
        let mut events: Vec<(Alt, &Op)> = Vec::new();
        if k == n && maximal {
            // The operations pending where nothing could move: each as an
            // event after the last step.
            events.extend(
                h.pending[n]
                    .iter()
                    .map(|(role, op)| (hypothetical(*role), op)),
            );
        } else if k > keep {
            events.extend(disabled_events(h, schedule, k));
        }
        if k < n || !maximal {
            events.extend(blocked_alternatives(h, schedule, k));
        }
        events.retain(|(alt, op)| {
            let awaits = awaits_an_empty_channel(h, schedule, k, *alt, op)
                || awaits_room(h, schedule, k, *alt, op);
            if awaits {
                dropped = dropped.or(Some(k));
            }
            !awaits
        });
        for (alt, op) in events {
            let order = causal_row(h, schedule, &causal, alt, op);
            let row = happens_before(h, schedule, &before, &order, alt, op, &mut out);
            debug_assert_eq!(row.len(), k);
        }
        if k < n {
            let alt = schedule[k];
            let op = op_of(&h.pending[k], alt.role).expect("a step is a pending operation");
            let order = causal_row(h, schedule, &causal, alt, op);
            let row = happens_before(h, schedule, &before, &order, alt, op, &mut out);
            before.push(row);
            causal.push(order);
        }
    }
    cache.rows = before;
    cache.causal = causal;
    cache.keep = 0;
    cache.dropped = dropped;
    out
}

/// An event for an operation of `role` that was not taken (its sender,
/// for a receive from anyone, is not known).
fn hypothetical(role: RoleId) -> Alt {
    Alt {
        role,
        from: None,
        pick: None,
    }
}

/// The choices pending at point `k` (`0 < k`) that are refused there and
/// were not refused one point earlier: the alternatives that the step
/// taken at `k - 1` disabled (a send, or one sender of a receive from
/// anyone, each as its own event), and the operations refused when their
/// role reached them (after its own step, or after an answer between the
/// points such as a receive on a closed channel).
///
/// Why they are events of their own: the execution takes such a choice,
/// if at all, only after some later step enables it again, and judged
/// there, that enabling step happens before it and hides every step
/// behind it, the one that disabled it included; and a receive from
/// anyone that takes another sender's message at its own point can no
/// longer take the disabled sender's there. Two sends of one choice are
/// the common case: `a`'s send takes `b`'s away, `c` receives `a`'s
/// message, and only then is `b`'s send accepted; judged where it is
/// taken, `b`'s send is ordered after `c`'s receive, which is ordered
/// after `a`'s send, and the race of the two sends (either can go first)
/// is never reversed. Judged where the send was disabled, `a`'s send is a
/// step it races with. (The classic DPOR looks at every point where an
/// operation is pending, which is why it did not miss this one.)
fn disabled_events<'h, P>(
    h: &'h History<P>,
    schedule: &'h [Alt],
    k: usize,
) -> impl Iterator<Item = (Alt, &'h Op)> + 'h {
    let stepped = schedule[k - 1].role;
    let enabled = move |role: RoleId| h.alts[k].iter().any(|a| a.role == role);
    h.pending[k].iter().flat_map(move |(role, op)| {
        let earlier = op_of(&h.pending[k - 1], *role);
        // Reached only now: its role took the step, or its earlier
        // operation was answered between the points.
        let reached = *role == stepped || earlier.is_none_or(|e| !same_op(e, op));
        let refused_on_arrival = (reached && !enabled(*role)).then(|| (hypothetical(*role), op));
        let taken_away = h.alts[k - 1]
            .iter()
            .filter(move |x| !reached && x.role == *role && !h.alts[k].contains(x))
            .map(move |x| (*x, op));
        refused_on_arrival.into_iter().chain(taken_away)
    })
}

/// The row of an event (`op` of `alt`, judged after the steps that
/// `before` has rows for): which of those steps happen before it. Pushes
/// the backtrack points of its races onto `out`.
fn happens_before<P: Protocol>(
    h: &History<P>,
    schedule: &[Alt],
    before: &[Vec<bool>],
    causal: &[bool],
    alt: Alt,
    op: &Op,
    out: &mut Vec<Backtrack>,
) -> Vec<bool> {
    let b = before.len();
    let mut row = vec![false; b];
    // What happens before the event's role's own earlier steps: those can
    // never follow the event (program order), so they race with it no
    // more than with those steps.
    let mut own = vec![false; b];
    for q in (0..b).filter(|&q| schedule[q].role == alt.role) {
        own[q] = true;
        for (c, &hb) in before[q].iter().enumerate().take(q) {
            own[c] |= hb;
        }
    }
    let mut races = Vec::new();
    for a in (0..b).rev() {
        // A step already known to happen before the event (through a
        // later one) is judged too, unless through the event's own role:
        // the order may be an enabling only.
        let rel = if own[a] {
            Rel::Ordered
        } else {
            relation(h, schedule, before, &row, causal[a], a, (alt, op))
        };
        if matches!(rel, Rel::Race | Rel::Enabling) {
            races.push((a, rel == Rel::Enabling));
        }
        if rel == Rel::Independent || row[a] {
            continue;
        }
        row[a] = true;
        for (c, &hb) in before[a].iter().enumerate().take(a) {
            if hb {
                row[c] = true;
            }
        }
    }
    for (a, enabling) in races {
        out.push(if enabling {
            every_choice_at(h, a, alt.role)
        } else {
            reversal(h, schedule, before, &row, a, b, alt.role)
        });
    }
    row
}

/// Every choice at point `a`, for a race with a later event of `role`
/// whose reversal no initial of `v` is known to start.
fn every_choice_at<P>(h: &History<P>, a: usize, role: RoleId) -> Backtrack {
    Backtrack {
        point: a,
        groups: vec![(0..h.alts[a].len()).collect()],
        any_of: false,
        racer: role,
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
        return every_choice_at(h, a, role);
    }
    Backtrack {
        point: a,
        groups,
        any_of: true,
        racer: role,
    }
}
