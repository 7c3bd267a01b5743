//! Probe slots: which try-operations the successor generator runs, and in
//! which order. A slot is a send of one type to one peer, the receive from
//! one sender (whatever type comes out: the slot of type 0 stands for
//! every type), or a close to one peer.

use crate::alphabet::{Alphabet, LetterId};
use crate::error::ProbeError;
use crate::protocol::ActionKind;
use crate::protocol::Message;

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

/// The slots worth probing, in slot order: the letters of the alphabet
/// (which exist only along the declared channels), receives once per
/// sender, sends only of the types that have a dummy. Pairs of roles that
/// are not channels have no letters and no slots; the determinism check
/// probes them apart ([`Successors::check_off_channels`](super::Successors)).
pub(super) fn probe_slots(a: &Alphabet) -> Vec<ProbeSlot> {
    let n = a.roles.len();
    let mut out = Vec::new();
    let push =
        |out: &mut Vec<ProbeSlot>, slot: LetterId, kind, role: usize, peer: u32, ty: usize| {
            out.push(ProbeSlot {
                slot,
                kind,
                role: role as u32,
                peer,
                ty: ty as u32,
                recv_end: 0,
            })
        };
    for role in 0..n {
        for &to in a.outs(role) {
            for ty in 0..a.sendable {
                let slot = a.send(role, to as usize, ty).expect("a channel");
                push(&mut out, slot, ActionKind::Send, role, to, ty);
            }
        }
        let first = out.len();
        // Without a type there is no receive letter, and no message to
        // receive (an object whose only actions are closes).
        let senders = if a.types.is_empty() {
            &[][..]
        } else {
            a.ins(role)
        };
        for &from in senders {
            let slot = a.recv(role, from as usize, 0).expect("a channel");
            push(&mut out, slot, ActionKind::Recv, role, from, 0);
        }
        let end = out.len() as u32;
        out[first..].iter_mut().for_each(|s| s.recv_end = end);
        for &to in a.outs(role) {
            let slot = a.close(role, to as usize).expect("a channel");
            push(&mut out, slot, ActionKind::Close, role, to, 0);
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
        l - letter.ty as LetterId
    } else {
        l
    }
}

/// The probe slot after the one of letter `l`.
#[inline]
pub(crate) fn next_slot(a: &Alphabet, l: LetterId) -> LetterId {
    let letter = a.letter(l);
    if letter.kind == ActionKind::Recv {
        l - letter.ty as LetterId + a.types.len() as LetterId
    } else {
        l + 1
    }
}

/// The letter of a receive probed in slot `l` as `try_recv(role,
/// Some(from))`, which gave `msg` from `sender`; a contract error if the
/// object answered for another sender or with a type nobody declared.
#[inline]
pub(super) fn recv_letter(
    alphabet: &Alphabet,
    l: LetterId,
    role: usize,
    from: usize,
    sender: usize,
    msg: &Message,
) -> Result<LetterId, ProbeError> {
    let Some(ty) = alphabet.type_of(msg) else {
        return Err(ProbeError::Contract {
            letter: l,
            detail: format!(
                "it received a message of type `{}`, which is neither a dummy's type nor one of the \
                 protocol's type_names()",
                msg.type_path()
            ),
        });
    };
    if alphabet.declares && !alphabet.types[ty].declared {
        // A dummy's type, but not one the object declares: its
        // type_names() are wrong, and with them the check of the dummies.
        return Err(ProbeError::Contract {
            letter: l,
            detail: format!(
                "it received a message of type `{}`, which is not one of the protocol's \
                 type_names() ({})",
                msg.type_path(),
                alphabet
                    .types
                    .iter()
                    .filter(|t| t.declared)
                    .map(|t| t.short())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        });
    }
    if sender != from {
        return Err(ProbeError::Contract {
            letter: l,
            detail: format!("try_recv(from: Some({from})) returned a message from role #{sender}"),
        });
    }
    // `l` is the receive's probe slot: the letter of type 0.
    debug_assert_eq!(alphabet.recv(role, from, 0), Some(l));
    Ok(l + ty as LetterId)
}
