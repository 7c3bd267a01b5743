//! Probing: running the object's try-operations on a scratch clone, slot
//! after slot, under `catch_unwind`, and interning what succeeds. Two walks
//! of the same slots: [`probe_loop`](Successors::probe_loop), resumable and
//! with every check, and [`probe_every_slot`](Successors::probe_every_slot),
//! the plain loop of the breadth-first search's hot path.

use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::alphabet::{Alphabet, LetterId};
use crate::error::{ObjectOp, ProbeError};
use crate::protocol::ActionKind;
use crate::protocol::{Message, Protocol, Refused};

use super::contract::first_time;
use super::slots::{recv_letter, ProbeSlot, Wanted};
use super::{ProtoId, Spares, Successors};

/// What probing needs besides the store: the slots to walk and the
/// objects and messages it reuses from probe to probe.
pub(super) struct Probing<P> {
    /// A clone of a stored object (with its id), kept between probes.
    pub scratch: Option<(ProtoId, P)>,
    /// One reusable message per sendable type (given back by refusals).
    pub msgs: Vec<Option<Message>>,
    /// The probe slots to walk, in slot order (see
    /// [`probe_slots`](super::slots::probe_slots)).
    pub probes: Vec<ProbeSlot>,
    /// `role_probes[r]..role_probes[r + 1]`: the probes of role `r` (the
    /// slots of a role are contiguous). A probe is found from a letter by a
    /// binary search within its role's few probes; a table indexed by
    /// letter (the alphabet grows with roles²) cost 4 bytes a letter.
    pub role_probes: Vec<u32>,
    /// Successor objects of one walk, before they are interned.
    pub batch: Vec<(LetterId, P)>,
}

impl<P> Probing<P> {
    pub fn new(alphabet: &Alphabet) -> Self {
        let probes = super::slots::probe_slots(alphabet);
        let n = alphabet.roles.len();
        let role_probes = (0..=n)
            .map(|r| probes.partition_point(|s| (s.role as usize) < r) as u32)
            .collect();
        Probing {
            scratch: None,
            msgs: vec![None; alphabet.sendable],
            probes,
            role_probes,
            batch: Vec::new(),
        }
    }
}

impl<P: Protocol> Successors<P> {
    /// Index in `probes` of the first probe whose slot is at or after
    /// letter `l`.
    #[inline]
    pub(super) fn first_probe_at(&self, l: LetterId) -> usize {
        if l as usize >= self.alphabet.num_actions() {
            return self.probing.probes.len();
        }
        let role = self.alphabet.letter(l).role;
        let (lo, hi) = (
            self.probing.role_probes[role] as usize,
            self.probing.role_probes[role + 1] as usize,
        );
        lo + self.probing.probes[lo..hi].partition_point(|s| s.slot < l)
    }

    /// Probes slots from `*cursor` on, under `catch_unwind`.
    pub(super) fn probe_from(
        &mut self,
        p: ProtoId,
        cursor: &mut LetterId,
        wanted: Option<Wanted>,
    ) -> Result<Option<(LetterId, ProtoId)>, ProbeError> {
        let r = catch_unwind(AssertUnwindSafe(|| {
            if self.determinism.on {
                // Probing decides, and the listing is compared with it.
                self.verify_once(p)?;
            } else if let Some(found) = self.list_from(p, cursor, wanted)? {
                return Ok(found);
            }
            self.probe_loop(p, cursor, wanted, None)
        }));
        let r = self.unwound(r);
        self.blame_clone(p, r)
    }

    /// Probes every slot, collecting the successors into `out`, under one
    /// `catch_unwind`.
    pub(super) fn probe_all(
        &mut self,
        p: ProtoId,
        wanted: Option<Wanted>,
        out: &mut Vec<(LetterId, ProtoId)>,
    ) -> Result<(), ProbeError> {
        let mut cursor = 0;
        let r = catch_unwind(AssertUnwindSafe(|| {
            if self.determinism.on {
                self.verify_once(p)?;
            } else if self.list_all(p, wanted, out)? {
                return Ok(());
            }
            if wanted.is_none() && !self.determinism.on {
                self.probe_every_slot(p, out)
            } else {
                self.probe_loop(p, &mut cursor, wanted, Some(out))
                    .map(|_| ())
            }
        }));
        let r = self.unwound(r);
        self.blame_clone(p, r)
    }

    /// A panic while probing `p` is put down to the probed try-operation;
    /// but each probe first copies `p` (a clone, or `clone_from` into a
    /// spare object), and the object's Clone may be what panicked. Clone is
    /// deterministic like the rest of the object, so copying `p` once more
    /// both ways tells (only on this error path: the probes themselves pay
    /// nothing for it).
    #[cold]
    pub(super) fn blame_clone<T>(
        &mut self,
        p: ProtoId,
        r: Result<T, ProbeError>,
    ) -> Result<T, ProbeError> {
        match r {
            Err(ProbeError::Panic { letter, message }) => {
                let obj = self.store.get(p);
                // The first panic was printed already: this one is not.
                let again = crate::quiet::quietly(|| {
                    catch_unwind(AssertUnwindSafe(|| {
                        let mut copy = obj.clone();
                        copy.clone_from(obj);
                    }))
                });
                match again {
                    Ok(()) => Err(ProbeError::Panic { letter, message }),
                    Err(_) => Err(ProbeError::Object {
                        op: ObjectOp::Clone,
                        letter,
                        object: std::any::type_name::<P>(),
                        message,
                    }),
                }
            }
            r => r,
        }
    }

    /// The hot path of [`probe_all`](Self::probe_all): every slot wanted, no
    /// determinism check (release builds, breadth-first search). The same
    /// probes in the same order as [`probe_loop`](Self::probe_loop), as a
    /// plain loop: the successors are collected as objects first and
    /// interned after the walk, so the walk borrows the original object
    /// instead of looking it up again for every fresh scratch clone. Kept
    /// as a second walk for speed, so pinned to the first by a test on
    /// random objects (`successors::tests`).
    pub(super) fn probe_every_slot(
        &mut self,
        p: ProtoId,
        out: &mut Vec<(LetterId, ProtoId)>,
    ) -> Result<(), ProbeError> {
        let mut batch = std::mem::take(&mut self.probing.batch);
        batch.clear();
        let mut spares = self.store.take_spares();
        let original = self.store.get(p);
        let walked = walk_every_slot(
            &self.probing.probes,
            &mut self.probing.msgs,
            &self.alphabet,
            &mut self.blame.letter,
            original,
            &mut spares,
            &mut batch,
        );
        self.store.put_spares(spares);
        if walked.is_ok() {
            self.intern_batch(&mut batch, out);
        }
        self.probing.batch = batch;
        walked
    }

    /// Interns the successors made by a walk (`batch`, emptied) into
    /// `out`, in order. They are made first and interned after so that the
    /// walk looks the original object up once, not once per successor
    /// (under collapse a lookup is a hash-map probe).
    pub(super) fn intern_batch(
        &mut self,
        batch: &mut Vec<(LetterId, P)>,
        out: &mut Vec<(LetterId, ProtoId)>,
    ) {
        self.blame.interning = true;
        self.store.intern_batch(batch, &mut self.blame.letter, out);
        self.blame.interning = false;
    }

    /// The result of a probe run under `catch_unwind`, a panic turned into
    /// [`ProbeError::Panic`].
    pub(super) fn unwound<T>(
        &mut self,
        r: std::thread::Result<Result<T, ProbeError>>,
    ) -> Result<T, ProbeError> {
        match r {
            Ok(r) => r,
            Err(payload) => {
                // The unwound closure may have lost the scratch and a
                // reusable message; start the next probe afresh.
                self.probing.scratch = None;
                self.listing.of = None;
                self.probing.msgs.iter_mut().for_each(|m| *m = None);
                Err(self.blame.error::<P>(payload.as_ref()))
            }
        }
    }

    /// A copy of stored state `p` to probe: made in a spare object
    /// ([`Store::copy_of`](super::Store::copy_of)), but a plain clone under
    /// the determinism check, which explores with clones and checks
    /// `clone_from` on its own (`check_clone_from`): a wrong `clone_from`
    /// is then reported as itself, not as the probe it would spoil.
    #[inline]
    pub(super) fn copy(&mut self, p: ProtoId) -> P {
        if self.determinism.on {
            self.store.get(p).clone()
        } else {
            self.store.copy_of(p)
        }
    }

    pub(super) fn take_scratch(&mut self, p: ProtoId) -> P {
        self.forget_renamed();
        match self.probing.scratch.take() {
            Some((q, s)) if q == p => s,
            _ => self.copy(p),
        }
    }

    /// Walks the probe slots from `*cursor` on in alphabet order (per role:
    /// sends by receiver and type, receives by sender, closes by peer) and
    /// stops at the first enabled one that `wanted` contains; or, with
    /// `all`, collects every such one there and walks on. Only the slots of
    /// [`probe_slots`] are walked: pairs outside the topology cost nothing.
    pub(super) fn probe_loop(
        &mut self,
        p: ProtoId,
        cursor: &mut LetterId,
        wanted: Option<Wanted>,
        mut all: Option<&mut Vec<(LetterId, ProtoId)>>,
    ) -> Result<Option<(LetterId, ProtoId)>, ProbeError> {
        // The scratch clone is made when a probe needs it: after a success
        // in `all` mode the next one may never come.
        let mut scratch = Some(self.take_scratch(p));
        macro_rules! scratch {
            () => {
                scratch.get_or_insert_with(|| self.copy(p))
            };
        }
        // A probe succeeded: the scratch is the successor. Stop there, or
        // collect it and walk on.
        macro_rules! found {
            ($slot:expr, $letter:expr) => {{
                let successor = scratch.take().expect("the probe ran on the scratch");
                let s = self.found(successor, $letter)?;
                match all.as_deref_mut() {
                    Some(out) => out.push(s),
                    None => {
                        *cursor = $slot;
                        return Ok(Some(s));
                    }
                }
            }};
        }
        let want =
            |slot: LetterId| wanted.is_none_or(|w| w[slot as usize >> 6] >> (slot & 63) & 1 != 0);
        let mut i = self.first_probe_at(*cursor);
        while let Some(&s) = self.probing.probes.get(i) {
            let (role, peer) = (s.role as usize, s.peer as usize);
            match s.kind {
                ActionKind::Send => {
                    if want(s.slot) && {
                        let sc = scratch!();
                        self.probe_send(p, sc, role, peer, s.ty as usize, s.slot)?
                    } {
                        found!(s.slot, s.slot);
                    }
                }
                ActionKind::Recv => {
                    // The role's receive slots from here on, one per sender.
                    let end = s.recv_end as usize;
                    let any_wanted = self.probing.probes[i..end].iter().any(|r| want(r.slot));
                    // One probe with `from: None` tells whether any sender is
                    // possible at all (contract of `try_recv`); the
                    // determinism check verifies that instead of relying on it.
                    // With one sender it would only repeat the probe of that
                    // sender, and its success would cost a fresh clone.
                    let none_refused = any_wanted && !self.determinism.on && end - i > 1 && {
                        self.blame.letter = s.slot;
                        match scratch!().try_recv(role, None) {
                            Err(_) => true,
                            Ok(_) => {
                                scratch = None;
                                false
                            }
                        }
                    };
                    if any_wanted && !none_refused {
                        for j in i..end {
                            let r = self.probing.probes[j];
                            if want(r.slot) {
                                let sc = scratch!();
                                if let Some(letter) =
                                    self.probe_recv(p, sc, role, r.peer as usize, r.slot)?
                                {
                                    found!(r.slot, letter);
                                }
                            }
                        }
                    }
                    i = end;
                    continue;
                }
                ActionKind::Close => {
                    if want(s.slot) && {
                        let sc = scratch!();
                        self.probe_close(p, sc, role, peer, s.slot)?
                    } {
                        found!(s.slot, s.slot);
                    }
                }
            }
            i += 1;
        }
        *cursor = self.alphabet.num_actions() as LetterId;
        if let Some(sc) = scratch {
            self.probing.scratch = Some((p, sc));
        }
        Ok(None)
    }

    /// A probe of `letter` succeeded: checks it against the topology and
    /// interns the successor.
    #[inline]
    pub(super) fn found(
        &mut self,
        successor: P,
        letter: LetterId,
    ) -> Result<(LetterId, ProtoId), ProbeError> {
        if !self.determinism.on {
            self.blame.interning = true;
            let id = self.store.intern(successor);
            self.blame.interning = false;
            return Ok((letter, id));
        }
        self.blame.interning = true;
        let interned = self.store.intern_or_give_back(successor);
        self.blame.interning = false;
        match interned {
            Ok(id) => Ok((letter, id)),
            Err((id, successor)) => {
                self.forget_renamed();
                if first_time(&mut self.determinism.revisited, id) {
                    // A panic in protocol code during this extra check is
                    // left to the search, which reports it with the trace
                    // to the state where it happens when it probes there
                    // (the stored state, equal to this one); reported from
                    // here it would name the wrong state, and an error
                    // that is being reported (whose trace is rebuilt by
                    // re-probing) would lose its trace.
                    let checked = catch_unwind(AssertUnwindSafe(|| {
                        self.check_revisit(id, &successor, letter)
                    }));
                    if let Ok(r) = checked {
                        r?;
                    }
                }
                // A state stored already: `successor` is a spare now.
                self.store.recycle(successor);
                Ok((letter, id))
            }
        }
    }

    pub(super) fn probe_send(
        &mut self,
        p: ProtoId,
        scratch: &mut P,
        role: usize,
        to: usize,
        ty: usize,
        l: LetterId,
    ) -> Result<bool, ProbeError> {
        self.blame.letter = l;
        let msg = match self.probing.msgs[ty].take() {
            Some(m) => m,
            None => self.dummy(ty),
        };
        match scratch.try_send(role, to, msg) {
            Err(Refused(m)) => {
                self.probing.msgs[ty] = Some(m);
                if self.determinism.on {
                    self.check_refusal(p, scratch, l, |o, d| {
                        o.try_send(role, to, d.unwrap()).is_err()
                    })?;
                }
                Ok(false)
            }
            Ok(()) => {
                if self.determinism.on {
                    let d = self.dummy(ty);
                    self.check_success(p, scratch, l, move |o| o.try_send(role, to, d).is_ok())?;
                }
                Ok(true)
            }
        }
    }

    pub(super) fn probe_close(
        &mut self,
        p: ProtoId,
        scratch: &mut P,
        role: usize,
        to: usize,
        l: LetterId,
    ) -> Result<bool, ProbeError> {
        self.blame.letter = l;
        match scratch.try_close(role, to) {
            Err(Refused(())) => {
                if self.determinism.on {
                    self.check_refusal(p, scratch, l, |o, _| o.try_close(role, to).is_err())?;
                }
                Ok(false)
            }
            Ok(()) => {
                if self.determinism.on {
                    self.check_success(p, scratch, l, move |o| o.try_close(role, to).is_ok())?;
                }
                Ok(true)
            }
        }
    }

    /// Probes a receive from `from`; the letter depends on the type that
    /// comes out.
    pub(super) fn probe_recv(
        &mut self,
        p: ProtoId,
        scratch: &mut P,
        role: usize,
        from: usize,
        l: LetterId,
    ) -> Result<Option<LetterId>, ProbeError> {
        self.blame.letter = l;
        match scratch.try_recv(role, Some(from)) {
            Err(Refused(())) => {
                if self.determinism.on {
                    self.check_refusal(p, scratch, l, |o, _| {
                        o.try_recv(role, Some(from)).is_err()
                    })?;
                }
                Ok(None)
            }
            Ok((sender, msg)) => {
                let letter = recv_letter(&self.alphabet, l, role, from, sender, &msg)?;
                if self.determinism.on {
                    let original = self.store.get(p);
                    if original.clone().try_recv(role, None).is_err() {
                        return Err(ProbeError::Contract {
                            letter: l,
                            detail: "try_recv(from: None) was refused, but naming this sender succeeded \
                                     (None must mean \"from any sender\")"
                                .into(),
                        });
                    }
                    if !(original.may_recv(role, Some(from)) && original.may_recv(role, None)) {
                        return Err(ProbeError::Contract {
                            letter: l,
                            detail: "it succeeded, but the object's may_recv() said that it \
                                     would be refused"
                                .into(),
                        });
                    }
                    let path = msg.type_path().to_string();
                    self.check_success(p, scratch, l, move |o| {
                        matches!(o.try_recv(role, Some(from)), Ok((s, m)) if s == from && m.type_path() == path)
                    })?;
                }
                Ok(Some(letter))
            }
        }
    }

    pub(super) fn dummy(&self, ty: usize) -> Message {
        self.alphabet.dummy(ty)
    }
}

/// The walk of [`Successors::probe_every_slot`] on an object held anywhere
/// (a stored one, or one a parallel search's worker owns): every probe
/// slot on copies of `original` (made in `spares` where there are any),
/// each successor pushed to `batch` as an object, not interned. `current` is the letter being probed, for the
/// report if protocol code panics (the caller runs this under
/// `catch_unwind`).
pub(super) fn walk_every_slot<P: Protocol>(
    probes: &[ProbeSlot],
    msgs: &mut [Option<Message>],
    alphabet: &Alphabet,
    current: &mut LetterId,
    original: &P,
    spares: &mut Spares<P>,
    batch: &mut Vec<(LetterId, P)>,
) -> Result<(), ProbeError> {
    // The scratch is cloned when a probe needs it, not after each success:
    // the successor of the last enabled slot would otherwise leave behind
    // a clone that no probe uses (a clone and a drop per state, for
    // objects whose clone allocates).
    let mut scratch: Option<P> = None;
    let mut i = 0;
    while let Some(&s) = probes.get(i) {
        *current = s.slot;
        let (role, peer) = (s.role as usize, s.peer as usize);
        match s.kind {
            ActionKind::Send => {
                let ty = s.ty as usize;
                let msg = msgs[ty].take().unwrap_or_else(|| alphabet.dummy(ty));
                let sc = scratch.get_or_insert_with(|| spares.copy_of(original));
                match sc.try_send(role, peer, msg) {
                    Ok(()) => batch.push((s.slot, scratch.take().expect("probed just now"))),
                    Err(Refused(m)) => msgs[ty] = Some(m),
                }
            }
            ActionKind::Recv => {
                // As in `probe_loop`: with more than one sender, one probe
                // with `from: None` first.
                let end = s.recv_end as usize;
                let any = end - i == 1 || {
                    let sc = scratch.get_or_insert_with(|| spares.copy_of(original));
                    let ok = sc.try_recv(role, None).is_ok();
                    if ok {
                        // Changed by the receive: good only as a spare.
                        spares.put(scratch.take().expect("probed just now"));
                    }
                    ok
                };
                if any {
                    for r in &probes[i..end] {
                        *current = r.slot;
                        let from = r.peer as usize;
                        let sc = scratch.get_or_insert_with(|| spares.copy_of(original));
                        if let Ok((sender, msg)) = sc.try_recv(role, Some(from)) {
                            let letter = recv_letter(alphabet, r.slot, role, from, sender, &msg)?;
                            batch.push((letter, scratch.take().expect("probed just now")));
                        }
                    }
                }
                i = end;
                continue;
            }
            ActionKind::Close => {
                let sc = scratch.get_or_insert_with(|| spares.copy_of(original));
                if sc.try_close(role, peer).is_ok() {
                    batch.push((s.slot, scratch.take().expect("probed just now")));
                }
            }
        }
        i += 1;
    }
    Ok(())
}
