//! The determinism check: every probe twice, on two clones, with the same
//! outcome; a refusal leaves no trace; equal objects behave the same; and
//! a counterexample re-executes on one object as a run would.

use crate::alphabet::LetterId;
use crate::error::ProbeError;
use crate::protocol::ActionKind;
use crate::protocol::{Message, Protocol};

use super::slots::describe_slot;
use super::{ProtoId, Successors};

/// The determinism check's state (see
/// [`Checker::determinism_check`](crate::Checker::determinism_check)):
/// whether it is on, and which stored states it has already checked.
pub(super) struct DeterminismCheck {
    pub on: bool,
    /// Bit per protocol state: its listing has been compared with probing
    /// and its pairs off the channels probed.
    pub verified: Vec<u64>,
    /// Bit per protocol state: a revisit of it has been re-probed (see
    /// [`Successors::check_revisit`]); only the first revisit is, to bound
    /// the cost to one extra walk per stored state.
    pub revisited: Vec<u64>,
}

impl DeterminismCheck {
    pub fn new(on: bool) -> Self {
        DeterminismCheck {
            on,
            verified: Vec::new(),
            revisited: Vec::new(),
        }
    }
}

/// Clears `p`'s bit in `bits` (its id names another object now).
pub(super) fn forget(bits: &mut [u64], p: ProtoId) {
    if let Some(w) = bits.get_mut(p.index() / 64) {
        *w &= !(1 << (p.raw() % 64));
    }
}

/// Clears the bits of every id from `base` up.
pub(super) fn forget_from(bits: &mut Vec<u64>, base: usize) {
    let (w, b) = (base / 64, base % 64);
    bits.truncate(w + usize::from(b > 0));
    if let Some(x) = bits.get_mut(w).filter(|_| b > 0) {
        *x &= (1 << b) - 1;
    }
}

/// Sets `p`'s bit in `bits`; whether it was clear.
pub(super) fn first_time(bits: &mut Vec<u64>, p: ProtoId) -> bool {
    let (w, b) = (p.index() / 64, p.raw() % 64);
    if w >= bits.len() {
        bits.resize((w + 1).max(bits.len() * 2), 0);
    }
    let first = bits[w] >> b & 1 == 0;
    bits[w] |= 1 << b;
    first
}

impl<P: Protocol> Successors<P> {
    /// Determinism check on a revisit: `again`, reached by `letter`, is
    /// equal (`Eq`) to the stored state `id`, so the search will take the
    /// stored state's successors for it; it must then behave the same. Both
    /// are probed in every probe slot the successor generator walks and must agree on
    /// every outcome and give equal successors. Two equal objects that
    /// behave differently mean that `Eq` (or `Hash`) ignores something that
    /// decides what the object can do — which the two-probe check cannot
    /// see, as it only ever probes clones of one object.
    pub(super) fn check_revisit(
        &mut self,
        id: ProtoId,
        again: &P,
        letter: LetterId,
    ) -> Result<(), ProbeError> {
        let stored = self.store.get(id);
        let differ = |what: String| ProbeError::Nondeterminism {
            letter,
            detail: format!(
                "(here: the one this action led to and the equal stored protocol state #{}) \
                 behaved differently: {what}; their Eq/Hash must ignore something that decides \
                 what the object can do",
                id.raw()
            ),
        };
        if stored.is_terminated() != again.is_terminated() {
            return Err(differ(format!(
                "is_terminated() was {} on the stored object and {} on the new one",
                stored.is_terminated(),
                again.is_terminated()
            )));
        }
        let (a, b) = (self.walk(stored), self.walk(again));
        let outcome = |r: Option<&(LetterId, String, P)>, slot: LetterId| match r {
            Some((s, got, _)) if *s == slot => format!("succeeded{got}"),
            _ => "was refused".to_string(),
        };
        for i in 0..a.len().max(b.len()) {
            let (x, y) = (a.get(i), b.get(i));
            let same = match (x, y) {
                (Some((s, g, p)), Some((t, h, q))) if s == t && g == h => {
                    if p != q {
                        return Err(differ(format!(
                            "`{}` succeeded on both but left two different objects",
                            describe_slot(&self.alphabet, *s)
                        )));
                    }
                    true
                }
                _ => false,
            };
            if !same {
                // The first slot where they part: the earlier of the two.
                let slot = [x, y].into_iter().flatten().map(|e| e.0).min().unwrap_or(0);
                return Err(differ(format!(
                    "`{}` {} on the stored object and {} on the new one",
                    describe_slot(&self.alphabet, slot),
                    outcome(x, slot),
                    outcome(y, slot)
                )));
            }
        }
        Ok(())
    }

    /// The enabled actions of `obj`: `(probe slot, what came out, the
    /// successor)` for every probe slot that succeeds, in slot order. One
    /// scratch clone serves until a probe succeeds, as in the search (a
    /// refusal leaves the object unchanged), so the walk costs a clone per
    /// enabled action rather than per slot.
    pub(super) fn walk(&self, obj: &P) -> Vec<(LetterId, String, P)> {
        let mut out = Vec::new();
        let mut scratch = obj.clone();
        for s in &self.probing.probes {
            let (role, peer) = (s.role as usize, s.peer as usize);
            let got = match s.kind {
                ActionKind::Send => scratch
                    .try_send(role, peer, self.dummy(s.ty as usize))
                    .is_ok()
                    .then(String::new),
                ActionKind::Recv => scratch
                    .try_recv(role, Some(peer))
                    .ok()
                    .map(|(from, m)| format!(" with `{}` from role #{from}", m.type_path())),
                ActionKind::Close => scratch.try_close(role, peer).is_ok().then(String::new),
            };
            if let Some(got) = got {
                out.push((s.slot, got, std::mem::replace(&mut scratch, obj.clone())));
            }
        }
        out
    }

    /// Performs the action `letter` on `obj` itself (no probing, no clone),
    /// as a run of the protocol would: the re-execution of a counterexample
    /// under the determinism check. `Err` says how the object did not
    /// follow.
    pub fn step_on(&self, obj: &mut P, letter: LetterId) -> Result<(), String> {
        let l = self.alphabet.letter(letter);
        match l.kind {
            ActionKind::Send => obj
                .try_send(l.role, l.peer, self.dummy(l.ty))
                .map_err(|_| "it was refused".to_string()),
            ActionKind::Close => obj
                .try_close(l.role, l.peer)
                .map_err(|_| "it was refused".to_string()),
            ActionKind::Recv => match obj.try_recv(l.role, Some(l.peer)) {
                Err(_) => Err("it was refused".to_string()),
                Ok((from, m)) if from == l.peer && self.alphabet.type_of(&m) == Some(l.ty) => {
                    Ok(())
                }
                Ok((from, m)) => Err(format!(
                    "it received `{}` from role #{from} instead",
                    m.type_path()
                )),
            },
        }
    }

    /// The first action enabled in `obj`, probed on fresh clones in the
    /// successor generator's probe slots (so in the same places the search looks).
    pub fn first_enabled_on(&self, obj: &P) -> Option<LetterId> {
        self.probing.probes.iter().find_map(|s| {
            let mut o = obj.clone();
            let (role, peer) = (s.role as usize, s.peer as usize);
            let ok = match s.kind {
                ActionKind::Send => o.try_send(role, peer, self.dummy(s.ty as usize)).is_ok(),
                ActionKind::Recv => o.try_recv(role, Some(peer)).is_ok(),
                ActionKind::Close => o.try_close(role, peer).is_ok(),
            };
            ok.then_some(s.slot)
        })
    }

    /// For each role, whether it has an action enabled in `obj`, probed
    /// on fresh clones in every probe slot (so as the search sees it).
    pub fn enabled_roles_on(&self, obj: &P) -> Vec<bool> {
        let mut enabled = vec![false; self.alphabet.roles.len()];
        for s in &self.probing.probes {
            let role = s.role as usize;
            if enabled[role] {
                continue;
            }
            let mut o = obj.clone();
            let peer = s.peer as usize;
            enabled[role] = match s.kind {
                ActionKind::Send => o.try_send(role, peer, self.dummy(s.ty as usize)).is_ok(),
                ActionKind::Recv => o.try_recv(role, Some(peer)).is_ok(),
                ActionKind::Close => o.try_close(role, peer).is_ok(),
            };
        }
        enabled
    }

    /// Determinism check for a refusal: the object must be unchanged, and
    /// the same probe on another clone must be refused too.
    pub(super) fn check_refusal(
        &self,
        p: ProtoId,
        scratch: &P,
        letter: LetterId,
        probe: impl FnOnce(&mut P, Option<Message>) -> bool,
    ) -> Result<(), ProbeError> {
        let original = self.store.get(p);
        if scratch != original {
            return Err(ProbeError::Contract {
                letter,
                detail: "it was refused but changed the object (a refusal must leave no trace)"
                    .into(),
            });
        }
        let mut twin = original.clone();
        let l = &self.alphabet.letter(letter);
        let msg = (l.kind == ActionKind::Send).then(|| self.dummy(l.ty));
        if !probe(&mut twin, msg) {
            return Err(ProbeError::Nondeterminism {
                letter,
                detail: "was refused on one and succeeded on the other".into(),
            });
        }
        Ok(())
    }

    /// Determinism check for a success: the same probe on another clone
    /// must succeed the same way and give an equal object.
    pub(super) fn check_success(
        &self,
        p: ProtoId,
        scratch: &P,
        letter: LetterId,
        probe: impl FnOnce(&mut P) -> bool,
    ) -> Result<(), ProbeError> {
        let mut twin = self.store.get(p).clone();
        if !probe(&mut twin) {
            return Err(ProbeError::Nondeterminism {
                letter,
                detail: "succeeded on one and was refused (or gave another message) on the other"
                    .into(),
            });
        }
        if &twin != scratch {
            return Err(ProbeError::Nondeterminism {
                letter,
                detail: "succeeded on both but left two different objects".into(),
            });
        }
        Ok(())
    }
}
