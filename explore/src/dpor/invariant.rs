//! What DPOR may rely on whatever the object allows: the orders that
//! hold in every execution (program order, and a message's send before
//! its receive), and the conflicts of choices seen where both are
//! enabled. Orders and independence judged in other states of one
//! execution are not enough (see the module docs of `dpor`, 4 and 5).

use engine::{Protocol, RoleId};

use super::super::independence::independent;
use super::super::op::{same_op, Op};
use super::super::step::Alt;
use super::{group_of, op_of, Backtrack, History};

/// Which of the steps before an event (`op` of `alt`) come before it in
/// every execution, whatever the object allows: its role's earlier steps
/// (program order), and the send of the message it receives (the
/// receive of the k-th message from a sender needs that sender's k-th
/// send to it, on a channel that holds only what was sent on it: see
/// [`holds_only_its_sends`]), and what comes before those. `causal`
/// holds the rows of the steps so far. Orders the object makes (a step
/// that a choice allows only after another) are not in it: another
/// order of other steps may allow it without them.
pub(super) fn causal_row<P: Protocol>(
    h: &History<P>,
    schedule: &[Alt],
    causal: &[Vec<bool>],
    alt: Alt,
    op: &Op,
) -> Vec<bool> {
    let b = causal.len();
    let mut row = vec![false; b];
    let add = |q: usize, row: &mut Vec<bool>| {
        row[q] = true;
        for (c, &x) in causal[q].iter().enumerate() {
            row[c] |= x;
        }
    };
    // The role's latest earlier step carries all the ones before it.
    if let Some(q) = (0..b).rev().find(|&q| schedule[q].role == alt.role) {
        add(q, &mut row);
    }
    if let Some(from) = alt.sender(op) {
        let earlier = receives(h, &schedule[..b], alt.role, from).count();
        let send = sends(h, &schedule[..b], from, alt.role).nth(earlier);
        if let Some(q) = send.filter(|_| holds_only_its_sends(h, schedule, b, from, alt.role)) {
            add(q, &mut row);
        }
    }
    if let Some(q) = room_maker(h, schedule, b, alt.role, op) {
        add(q, &mut row);
    }
    row
}

/// The receive that a send (`op` of `role`, judged after the first `b`
/// steps) needs before it in every execution, on a channel whose object
/// gives its capacity `c` ([`Protocol::channel_capacity`]) and that held
/// only what was sent on it ([`holds_only_its_sends`]): with `n` sends on
/// it before this one, the channel holds `n - r` messages after `r`
/// receives, fewer than `c` only once `r > n - c`, so the `(n - c + 1)`-th
/// receive comes first. `None` where the channel has room for every send
/// so far, or the object does not say.
fn room_maker<P: Protocol>(
    h: &History<P>,
    schedule: &[Alt],
    b: usize,
    role: RoleId,
    op: &Op,
) -> Option<usize> {
    let Op::Send { to, .. } = op else {
        return None;
    };
    let to = *to;
    let c = capacity(h.objects.get(b)?, role, to)?;
    let sent = sends(h, &schedule[..b], role, to).count();
    let nth = sent.checked_sub(c)?;
    let q = receives(h, &schedule[..b], to, role).nth(nth)?;
    holds_only_its_sends(h, schedule, b, role, to).then_some(q)
}

/// The capacity the object gives the channel from `from` to `to`
/// ([`Protocol::channel_capacity`]); `None` for none, or for 0 (a channel
/// that refuses every send orders nothing).
fn capacity<P: Protocol>(obj: &P, from: RoleId, to: RoleId) -> Option<usize> {
    obj.channel_capacity(from, to).filter(|&c| c > 0)
}

/// Whether the channel from `from` to `to` held, at every point up to
/// `b`, what the steps before it sent there and did not receive: empty
/// by the object's exact word at the start and wherever the program's
/// count of sends and receives on it is even, and never more received
/// than sent. Only on such a channel does the k-th receive need the k-th
/// send: a message there from the start (a token the object begins
/// with), or one the object put there itself, lets a receive go before
/// any send, and a send taken to come first in every execution hid the
/// race of the two (`tests/it/reduction_preloaded.rs`). An object that
/// does not answer `is_channel_empty` gives no such order: its receives
/// race with the sends before them, which explores more, never fewer,
/// orders. Judged on this execution's first `b` points only, as the
/// rows of those steps are reused by the executions that replay them.
fn holds_only_its_sends<P: Protocol>(
    h: &History<P>,
    schedule: &[Alt],
    b: usize,
    from: RoleId,
    to: RoleId,
) -> bool {
    let mut in_transit = 0usize;
    for j in 0..=b {
        let Some(obj) = h.objects.get(j) else {
            return false;
        };
        if in_transit == 0 && !obj.is_channel_empty(from, to) {
            return false;
        }
        if j == b || j >= schedule.len() {
            break;
        }
        if is_send(h, schedule, j, from, to) {
            in_transit += 1;
        } else if is_receive(h, schedule, j, to, from) {
            let Some(left) = in_transit.checked_sub(1) else {
                return false;
            };
            in_transit = left;
        }
    }
    true
}

/// The steps of `schedule` (a prefix of the execution's) that are sends
/// of `from` to `to`.
fn sends<'a, P>(
    h: &'a History<P>,
    schedule: &'a [Alt],
    from: RoleId,
    to: RoleId,
) -> impl Iterator<Item = usize> + 'a {
    (0..schedule.len()).filter(move |&q| is_send(h, schedule, q, from, to))
}

/// Whether step `q` of `schedule` is a send of `from` to `to`.
fn is_send<P>(h: &History<P>, schedule: &[Alt], q: usize, from: RoleId, to: RoleId) -> bool {
    schedule[q].role == from
        && matches!(op_of(&h.pending[q], from), Some(Op::Send { to: t, .. }) if *t == to)
}

/// The steps of `schedule` (a prefix of the execution's) in which `role`
/// received a message of `from`.
fn receives<'a, P>(
    h: &'a History<P>,
    schedule: &'a [Alt],
    role: RoleId,
    from: RoleId,
) -> impl Iterator<Item = usize> + 'a {
    (0..schedule.len()).filter(move |&q| is_receive(h, schedule, q, role, from))
}

/// Whether step `q` of `schedule` is a receive of `role` that took a
/// message of `from`.
fn is_receive<P>(h: &History<P>, schedule: &[Alt], q: usize, role: RoleId, from: RoleId) -> bool {
    schedule[q].role == role
        && op_of(&h.pending[q], role).is_some_and(|o| schedule[q].sender(o) == Some(from))
}

/// Marks both sides of every pair of choices of different roles that are
/// not independent where they are both enabled (point `k`; by
/// `independent`, the relation the races are judged by, so that a send
/// and a receive of one channel are held to the same-channel rule here
/// too): whichever goes first there may take the other away or change
/// what it does. The races of the steps taken find most such pairs, but
/// judged where a reversal
/// would run them, which need not be this state: three choices that
/// commute pairwise after the first of them can conflict before it, and
/// no step of the execution then shows it.
pub(super) fn conflicts<P: Protocol>(
    h: &History<P>,
    schedule: &[Alt],
    k: usize,
    out: &mut Vec<Backtrack>,
) {
    let alts = &h.alts[k];
    let obj = &h.objects[k];
    for (i, &x) in alts.iter().enumerate() {
        for &y in &alts[i + 1..] {
            if x.role == y.role {
                continue;
            }
            let (Some(xo), Some(yo)) = (op_of(&h.pending[k], x.role), op_of(&h.pending[k], y.role))
            else {
                continue;
            };
            if !independent(obj, (x, xo), (y, yo), h.visible.as_deref()) {
                out.push(Backtrack {
                    point: k,
                    groups: vec![group_of(alts, x.role), group_of(alts, y.role)],
                    any_of: false,
                    racer: if schedule[k].role == x.role {
                        y.role
                    } else {
                        x.role
                    },
                });
            }
        }
    }
}

/// The alternatives of receives from anyone (and selects) at point `k`
/// that are refused there although their sender has sent the receiving
/// role more messages than it took from it (a message is in transit, by
/// the program's count, or by `is_channel_empty`): each an event of its
/// own at `k`, as if taken there (see the module docs of `dpor`, 6). An object may refuse one
/// sender while another's messages wait (a priority, a turn, a payload's
/// value): then the steps that made it so race with the alternative,
/// which is no alternative of the receive's own point in this execution.
/// At a step, those of the receive taken (its other senders); at the end
/// of an execution cut short (by the sleep sets or a bound), those of
/// every receive still pending, whose races no later step will show.
pub(super) fn blocked_alternatives<'h, P: Protocol>(
    h: &'h History<P>,
    schedule: &[Alt],
    k: usize,
) -> Vec<(Alt, &'h Op)> {
    let mut out = Vec::new();
    match schedule.get(k) {
        Some(taken) => blocked(h, schedule, k, taken.role, taken.from, &mut out),
        // A point with no record (an execution stopped before it).
        None if h.alts.len() <= k || h.objects.len() <= k => {}
        None => {
            for (role, _) in h.pending.get(k).into_iter().flatten() {
                blocked(h, schedule, k, *role, None, &mut out);
            }
        }
    }
    out
}

/// [`blocked_alternatives`] of `role`'s pending operation at `k`, save
/// those of the sender `except`.
fn blocked<'h, P: Protocol>(
    h: &'h History<P>,
    schedule: &[Alt],
    k: usize,
    role: RoleId,
    except: Option<RoleId>,
    out: &mut Vec<(Alt, &'h Op)>,
) {
    let (Some(pending), Some(enabled), Some(obj)) =
        (h.pending.get(k), h.alts.get(k), h.objects.get(k))
    else {
        return;
    };
    let Some(op) = op_of(pending, role) else {
        return;
    };
    let candidates: Vec<Alt> = match op {
        Op::Recv { from: None } => (0..obj.roles().len())
            .map(|f| Alt {
                role,
                from: Some(f),
                pick: None,
            })
            .collect(),
        Op::Select { alts } => (0..alts.len())
            .map(|i| Alt {
                role,
                from: Some(alts[i].from),
                pick: Some(i),
            })
            .collect(),
        _ => return,
    };
    let in_transit = |f: RoleId| {
        sends(h, &schedule[..k], f, role).count() > receives(h, &schedule[..k], role, f).count()
    };
    out.extend(
        candidates
            .into_iter()
            .filter(|x| {
                x.from != except
                    && x.from != Some(role)
                    && !enabled.contains(x)
                    // Or by the object's word: a message there from the
                    // start, or a copy the object made, no step sent.
                    && x.from.is_some_and(|f| in_transit(f) || !obj.is_channel_empty(f, role))
            })
            .map(|x| (x, op)),
    );
}

/// Whether the event `op` of `alt` at point `k`, refused there, is a
/// send on a full channel (by the object's capacity, see
/// [`Protocol::channel_capacity`], and the program's count of sends and
/// receives on a channel that held only what was sent on it) that its
/// role reached by its own step and takes, unchanged, as its next step:
/// only a receive on that channel makes room for it (the capacity's
/// promise), and judged where it is taken, that receive comes before it
/// in every execution ([`room_maker`]) and is replayed in front of it.
/// The counterpart of [`awaits_an_empty_channel`] for the sender: judged
/// where it was refused, every earlier step of another role was a race
/// whose every choice was explored, for the sleep sets to stop most of
/// the executions that followed.
pub(super) fn awaits_room<P: Protocol>(
    h: &History<P>,
    schedule: &[Alt],
    k: usize,
    alt: Alt,
    op: &Op,
) -> bool {
    let (Op::Send { to, .. }, Some(obj)) = (op, h.objects.get(k)) else {
        return false;
    };
    let (to, role) = (*to, alt.role);
    let Some(c) = capacity(obj, role, to) else {
        return false;
    };
    let held = sends(h, &schedule[..k], role, to)
        .count()
        .checked_sub(receives(h, &schedule[..k], to, role).count());
    held.is_some_and(|n| n >= c)
        && waits_for_its_next_step(h, schedule, k, role, op)
        && holds_only_its_sends(h, schedule, k, role, to)
}

/// Whether `role` reached `op` at point `k` by its own step (the one
/// before `k`) and takes it, unchanged, as its next step of the
/// execution: what lets a refused operation be judged where it is taken
/// instead of at `k` (see [`awaits_room`], [`awaits_an_empty_channel`]).
fn waits_for_its_next_step<P>(
    h: &History<P>,
    schedule: &[Alt],
    k: usize,
    role: RoleId,
    op: &Op,
) -> bool {
    let Some(t) = (k..schedule.len()).find(|&t| schedule[t].role == role) else {
        return false;
    };
    k > 0
        && schedule[k - 1].role == role
        && (k..=t).all(|j| op_of(&h.pending[j], role).is_some_and(|o| same_op(o, op)))
}

/// Whether the event `op` of `alt` at point `k`, refused there, is a
/// receive from one named sender whose channel is empty there (by the
/// object's exact word, and by the program's count of sends and
/// receives), and that its role takes, unchanged, as its next step of the
/// execution: only a later step that fills the channel lets it go, and
/// judged where it is taken, after that step, the receive races with the
/// same earlier steps, with the filler replayed in front of it where it
/// does not follow them. Judged here, without the filler, every earlier
/// step of another role was a race with no reversal (see the module docs
/// of `dpor`, 4), and every choice at each of them was explored for the
/// sleep sets to stop. A receive its role never takes keeps its event:
/// it may be answered by a close, which no step shows.
pub(super) fn awaits_an_empty_channel<P: Protocol>(
    h: &History<P>,
    schedule: &[Alt],
    k: usize,
    alt: Alt,
    op: &Op,
) -> bool {
    let (Op::Recv { from: Some(from) }, Some(obj)) = (op, h.objects.get(k)) else {
        return false;
    };
    let (from, role) = (*from, alt.role);
    alt.from.is_none_or(|f| f == from)
        && waits_for_its_next_step(h, schedule, k, role, op)
        && obj.is_channel_empty(from, role)
        && sends(h, &schedule[..k], from, role).count()
            <= receives(h, &schedule[..k], role, from).count()
}
