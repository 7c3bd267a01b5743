//! Probe slots: which try-operations the successor generator runs, and in
//! which order. A slot is a send of one type to one peer, the receive from
//! one sender (whatever type comes out: the slot of type 0 stands for
//! every type), or a close to one peer.

use crate::alphabet::{ActionKind, Alphabet, LetterId};

/// The letters an automaton state can use, as a bitset over probe slots
/// (for receives, the slot of type 0 stands for every type).
pub(crate) type Wanted<'a> = &'a [u64];

#[inline]
pub(super) fn bit(set: &[u64], l: LetterId) -> bool {
    set[l as usize >> 6] >> (l & 63) & 1 != 0
}

/// One probe slot to walk: a send of one type to one peer, the receive
/// from one sender (whatever type comes out), or a close to one peer.
#[derive(Clone, Copy, Debug)]
pub(super) struct ProbeSlot {
    pub(super) slot: LetterId,
    pub(super) kind: ActionKind,
    pub(super) role: u32,
    pub(super) peer: u32,
    pub(super) ty: u32,
    /// Receives: index in the list one past the role's last receive slot.
    pub(super) recv_end: u32,
}

/// The slots worth probing, in slot order: sends and closes along the
/// channels of [`Alphabet::channel`], receives against them (every pair
/// under the determinism check, which probes them all to verify the
/// topology hints), sends only of the types that have a dummy.
pub(super) fn probe_slots(a: &Alphabet, determinism: bool) -> Vec<ProbeSlot> {
    let (n, nt) = (a.roles.len(), a.types.len());
    // `from` may send or close to `to` (and `to` receive from `from`).
    let channel = |from: usize, to: usize| from != to && (determinism || a.channel[from * n + to]);
    let mut out = Vec::new();
    let push =
        |out: &mut Vec<ProbeSlot>, slot: usize, kind, role: usize, peer: usize, ty: usize| {
            out.push(ProbeSlot {
                slot: slot as LetterId,
                kind,
                role: role as u32,
                peer: peer as u32,
                ty: ty as u32,
                recv_end: 0,
            })
        };
    for role in 0..n {
        let base = role * (2 * n * nt + n);
        for to in (0..n).filter(|&to| channel(role, to)) {
            for ty in 0..a.sendable {
                push(
                    &mut out,
                    base + to * nt + ty,
                    ActionKind::Send,
                    role,
                    to,
                    ty,
                );
            }
        }
        let first = out.len();
        for from in (0..n).filter(|&from| channel(from, role)) {
            let slot = a.recv(role, from, 0) as usize;
            push(&mut out, slot, ActionKind::Recv, role, from, 0);
        }
        let end = out.len() as u32;
        out[first..].iter_mut().for_each(|s| s.recv_end = end);
        for to in (0..n).filter(|&to| channel(role, to)) {
            push(
                &mut out,
                base + 2 * n * nt + to,
                ActionKind::Close,
                role,
                to,
                0,
            );
        }
    }
    debug_assert!(out.windows(2).all(|w| w[0].slot < w[1].slot));
    debug_assert!(out.iter().all(|s| a.letter(s.slot).kind == s.kind));
    out
}

/// A probe slot as people read it (receives without a type: it is the
/// object that picks one).
pub(super) fn describe_slot(a: &Alphabet, slot: LetterId) -> String {
    let l = a.letter(slot);
    if l.kind == ActionKind::Recv {
        format!("{} RECV FROM {}", a.roles[l.role], a.roles[l.peer])
    } else {
        a.describe(slot)
    }
}

/// The probe slot of a letter: receives are probed once per sender, in the
/// slot of type 0, whatever type comes out.
#[inline]
pub(crate) fn probe_slot(a: &Alphabet, l: LetterId) -> LetterId {
    let letter = a.letter(l);
    if letter.kind == ActionKind::Recv {
        a.recv(letter.role, letter.peer, 0)
    } else {
        l
    }
}

/// The probe slot after the one of letter `l`.
#[inline]
pub(crate) fn next_slot(a: &Alphabet, l: LetterId) -> LetterId {
    let letter = a.letter(l);
    if letter.kind == ActionKind::Recv {
        a.recv(letter.role, letter.peer, 0) + a.types.len() as LetterId
    } else {
        l + 1
    }
}
