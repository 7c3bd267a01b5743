//! Objects that list their enabled actions ([`Protocol::enabled`]): the
//! list turned into probe slots, the listed actions performed (and only
//! those), and the determinism check's comparison of the list with what
//! probing finds. Also the determinism check's probes along the pairs of
//! roles that are not channels (they have no letters, so no probe slots).

use std::borrow::Cow;
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::alphabet::{Alphabet, LetterId};
use crate::error::ProbeError;
use crate::protocol::{Enabled, Message, Protocol, Refused};

use super::contract::first_time;
use super::slots::recv_letter;
use super::slots::{bit, Wanted};
use super::{ProtoId, Spares, Successors};

/// `enabled()`'s answer for one protocol state, as `(probe slot,
/// action)` sorted by slot: a depth-first frame asks for one successor at
/// a time, and the list is made once.
pub(super) struct Listing {
    pub actions: Vec<(LetterId, Enabled)>,
    /// The state `actions` is of.
    pub of: Option<ProtoId>,
    /// Whether `of`'s object listed at all.
    pub lists: bool,
    /// Scratch for `enabled()`.
    pub scratch: Vec<Enabled>,
}

impl Listing {
    pub fn new() -> Self {
        Listing {
            actions: Vec::new(),
            of: None,
            lists: false,
            scratch: Vec::new(),
        }
    }
}

impl<P: Protocol> Successors<P> {
    /// Makes `self.listing.actions` the sorted listing of `p`; `false` if the
    /// object does not list (it is then probed). A listed action that has
    /// no letter (a pair that is not a channel, a type out of range) is a
    /// contract violation: left out, it would silently not be explored.
    pub(super) fn list(&mut self, p: ProtoId) -> Result<bool, ProbeError> {
        self.forget_renamed();
        if self.listing.of == Some(p) {
            return Ok(self.listing.lists);
        }
        self.listing.of = None;
        let mut listing = std::mem::take(&mut self.listing.scratch);
        listing.clear();
        self.blame.other = Some(Cow::Borrowed("enabled()"));
        let lists = self.store.get(p).enabled(&mut listing);
        self.blame.other = None;
        let result = self.sort_listing(lists, &listing);
        self.listing.scratch = listing;
        if result.is_ok() {
            self.listing.of = Some(p);
            self.listing.lists = lists;
        }
        result
    }

    /// Makes `self.listing.actions` the listing of `obj`, an object held outside
    /// the store (a parallel search's worker owns it); `false` if it does
    /// not list. Not cached: the worker asks once per expansion.
    pub(super) fn list_object(&mut self, obj: &P) -> Result<bool, ProbeError> {
        self.listing.of = None;
        let mut listing = std::mem::take(&mut self.listing.scratch);
        listing.clear();
        self.blame.other = Some(Cow::Borrowed("enabled()"));
        let lists = obj.enabled(&mut listing);
        self.blame.other = None;
        let result = self.sort_listing(lists, &listing);
        self.listing.scratch = listing;
        result
    }

    /// `self.listing.actions` from an object's answer to `enabled()`: its probe
    /// slots, sorted and without repeats.
    fn sort_listing(&mut self, lists: bool, listing: &[Enabled]) -> Result<bool, ProbeError> {
        self.listing.actions.clear();
        let mut result = Ok(lists);
        if lists {
            for &e in listing {
                match self.slot_of(e) {
                    Ok(Some(slot)) => self.listing.actions.push((slot, e)),
                    Ok(None) => {}
                    Err(detail) => {
                        result = Err(ProbeError::Other {
                            action: format!("enabled() listing {}", self.describe_enabled(e)),
                            panic: false,
                            detail,
                        });
                        break;
                    }
                }
            }
            self.listing.actions.sort_unstable_by_key(|&(slot, _)| slot);
            self.listing.actions.dedup_by_key(|&mut (slot, _)| slot);
        }
        result
    }

    /// The probe slot of a listed action; `None` for a send of a type that
    /// has no dummy (never probed either); `Err` says why it has none.
    fn slot_of(&self, e: Enabled) -> Result<Option<LetterId>, String> {
        let a = &self.alphabet;
        let n = a.roles.len();
        let no_channel = |from: usize, to: usize| {
            format!(
                "the object's topology (peers() or sends_to()) has no channel from {} to {}",
                a.roles[from], a.roles[to]
            )
        };
        let (role, peer) = match e {
            Enabled::Send { role, to, .. } | Enabled::Close { role, to } => (role, to),
            Enabled::Recv { role, from } => (role, from),
        };
        if role >= n || peer >= n || role == peer {
            return Err(format!(
                "roles #{role} and #{peer} are not two of the object's {n} roles"
            ));
        }
        match e {
            Enabled::Send { role, to, ty } => {
                let Some(&t) = a.declared_index.get(ty) else {
                    return Err(format!(
                        "type #{ty} is not one of the object's {} type_names()",
                        a.declared_index.len()
                    ));
                };
                if t >= a.sendable {
                    return Ok(None);
                }
                a.send(role, to, t)
                    .map(Some)
                    .ok_or_else(|| no_channel(role, to))
            }
            Enabled::Recv { role, from } => a
                .recv(role, from, 0)
                .map(Some)
                .ok_or_else(|| no_channel(from, role)),
            Enabled::Close { role, to } => a
                .close(role, to)
                .map(Some)
                .ok_or_else(|| no_channel(role, to)),
        }
    }

    /// A listed action as people read it (for errors about the listing).
    fn describe_enabled(&self, e: Enabled) -> String {
        let role = |r: usize| {
            self.alphabet
                .roles
                .get(r)
                .cloned()
                .unwrap_or_else(|| format!("role #{r}"))
        };
        match e {
            Enabled::Send { role: r, to, ty } => {
                format!("{} SEND <type #{ty}> TO {}", role(r), role(to))
            }
            Enabled::Recv { role: r, from } => format!("{} RECV FROM {}", role(r), role(from)),
            Enabled::Close { role: r, to } => format!("{} CLOSE TO {}", role(r), role(to)),
        }
    }

    /// Performs the listed action `e` (in probe slot `slot`) on a clone of
    /// `p` through its try-operation and interns the successor. A refusal
    /// is a contract violation: the object listed an action it does not
    /// take.
    pub(super) fn take_listed(
        &mut self,
        p: ProtoId,
        slot: LetterId,
        e: Enabled,
    ) -> Result<(LetterId, ProtoId), ProbeError> {
        let next = self.copy(p);
        let (letter, next) = self.perform_listed(next, slot, e)?;
        self.blame.interning = true;
        let id = self.store.intern(next);
        self.blame.interning = false;
        Ok((letter, id))
    }

    /// Performs the listed action `e` (in probe slot `slot`) on `next`, a
    /// clone of the object that listed it, and returns the letter taken
    /// and the successor (not interned: a parallel search's worker interns
    /// it in its own store).
    pub(super) fn perform_listed(
        &mut self,
        next: P,
        slot: LetterId,
        e: Enabled,
    ) -> Result<(LetterId, P), ProbeError> {
        perform(
            &self.alphabet,
            &mut self.probing.msgs,
            &mut self.blame.letter,
            next,
            slot,
            e,
        )
    }

    /// Every listed action of `p` that `wanted` contains, performed, into
    /// `out` in slot order; `false` (and nothing done) if `p` does not
    /// list.
    pub(super) fn list_all(
        &mut self,
        p: ProtoId,
        wanted: Option<Wanted>,
        out: &mut Vec<(LetterId, ProtoId)>,
    ) -> Result<bool, ProbeError> {
        if !self.list(p)? {
            return Ok(false);
        }
        // Out of `self` while the batch is made; a probe that panics loses
        // it, and `unwound` then drops the cached listing.
        let actions = std::mem::take(&mut self.listing.actions);
        let made = self.perform_interned(
            p,
            actions
                .iter()
                .filter(|&&(slot, _)| wanted.is_none_or(|w| bit(w, slot))),
            out,
        );
        self.listing.actions = actions;
        made.map(|()| true)
    }

    /// The actions `p` lists ([`Protocol::enabled`]) with their probe
    /// slots, in slot order, into `out` (cleared), none performed; `false`
    /// if `p` does not list, or under the determinism check, which
    /// compares the listing with probing only when it expands the state in
    /// full. For a search that then performs only some of them
    /// ([`perform_some`](Self::perform_some)): the reduced search, which
    /// builds the successors of the ample set alone.
    pub(crate) fn listed(
        &mut self,
        p: ProtoId,
        out: &mut Vec<(LetterId, Enabled)>,
    ) -> Result<bool, ProbeError> {
        out.clear();
        if self.determinism.on {
            return Ok(false);
        }
        let r = catch_unwind(AssertUnwindSafe(|| self.list(p)));
        let lists = self.unwound(r)?;
        if lists {
            out.extend_from_slice(&self.listing.actions);
        }
        Ok(lists)
    }

    /// Performs `actions`, some of the listing of `p` that
    /// [`listed`](Self::listed) gave, and appends each letter taken with
    /// its interned successor to `out`, in the order given.
    pub(crate) fn perform_some(
        &mut self,
        p: ProtoId,
        actions: &[(LetterId, Enabled)],
        out: &mut Vec<(LetterId, ProtoId)>,
    ) -> Result<(), ProbeError> {
        let r = catch_unwind(AssertUnwindSafe(|| {
            self.perform_interned(p, actions.iter(), out)
        }));
        let r = self.unwound(r);
        self.blame_clone(p, r)
    }

    /// Performs `actions` of `p`'s listing, each on a clone of `p`'s
    /// object, and appends each letter taken with its interned successor
    /// to `out`, in the order given. All are made first and interned
    /// after (see `intern_batch`).
    fn perform_interned<'a>(
        &mut self,
        p: ProtoId,
        actions: impl Iterator<Item = &'a (LetterId, Enabled)>,
        out: &mut Vec<(LetterId, ProtoId)>,
    ) -> Result<(), ProbeError> {
        let mut batch = std::mem::take(&mut self.probing.batch);
        batch.clear();
        // Out of the store while `original` borrows it; back before the
        // batch is interned, which refills it with the duplicates.
        let mut spares = self.store.take_spares();
        let made = perform_batch(
            &self.alphabet,
            &mut self.probing.msgs,
            &mut self.blame.letter,
            self.store.get(p),
            &mut spares,
            actions,
            &mut batch,
        );
        self.store.put_spares(spares);
        if made.is_ok() {
            // Interning may run protocol code (Eq, Hash) but not
            // `enabled()`: the listing of `p` stays the one cached.
            self.intern_batch(&mut batch, out);
        }
        self.probing.batch = batch;
        made
    }

    /// The first listed action of `p` at or after slot `*cursor` that
    /// `wanted` contains, performed; `*cursor` is left at its slot. `None`
    /// if `p` does not list.
    pub(super) fn list_from(
        &mut self,
        p: ProtoId,
        cursor: &mut LetterId,
        wanted: Option<Wanted>,
    ) -> Result<Option<Option<(LetterId, ProtoId)>>, ProbeError> {
        if !self.list(p)? {
            return Ok(None);
        }
        let from = self
            .listing
            .actions
            .partition_point(|&(slot, _)| slot < *cursor);
        let found = self.listing.actions[from..]
            .iter()
            .copied()
            .find(|&(slot, _)| wanted.is_none_or(|w| bit(w, slot)));
        match found {
            Some((slot, e)) => {
                *cursor = slot;
                Ok(Some(Some(self.take_listed(p, slot, e)?)))
            }
            None => {
                *cursor = self.alphabet.num_actions() as LetterId;
                Ok(Some(None))
            }
        }
    }

    /// The determinism check's extra work on a protocol state, once per
    /// stored state: probes the pairs of roles that are not channels (an
    /// action there breaks the declared topology, and would never be
    /// explored), and compares the object's listing, if it lists, with the
    /// probe slots that probing finds enabled.
    pub(super) fn verify_once(&mut self, p: ProtoId) -> Result<(), ProbeError> {
        self.forget_renamed();
        if !first_time(&mut self.determinism.verified, p) {
            return Ok(());
        }
        self.check_clone_from(p)?;
        self.check_off_channels(p)?;
        if !self.list(p)? {
            return Ok(());
        }
        let probed: Vec<LetterId> = {
            let obj = self.store.get(p);
            self.walk(obj)
                .into_iter()
                .map(|(slot, _, _)| slot)
                .collect()
        };
        let listed: Vec<LetterId> = self.listing.actions.iter().map(|&(slot, _)| slot).collect();
        let only_listed = listed.iter().find(|s| !probed.contains(s));
        let only_probed = probed.iter().find(|s| !listed.contains(s));
        let first = match (only_listed, only_probed) {
            (Some(&a), Some(&b)) => Some((a.min(b), a < b)),
            (Some(&a), None) => Some((a, true)),
            (None, Some(&b)) => Some((b, false)),
            (None, None) => None,
        };
        match first {
            None => Ok(()),
            Some((slot, true)) => Err(ProbeError::Contract {
                letter: slot,
                detail: "enabled() lists it, but probing it was refused".into(),
            }),
            Some((slot, false)) => Err(ProbeError::Contract {
                letter: slot,
                detail: "probing finds it enabled, but enabled() does not list it (the search \
                         would never explore it)"
                    .into(),
            }),
        }
    }

    /// `clone_from` must give an object equal to its source, as `clone`
    /// does: outside this check the search makes most successors by
    /// `clone_from` into a spare object (one of another state), so a
    /// `clone_from` that keeps something of the spare would explore states
    /// that the object never reaches. Checked once per stored state, on a
    /// spare if there is one (there is after the first few states).
    fn check_clone_from(&mut self, p: ProtoId) -> Result<(), ProbeError> {
        let Some(mut spare) = self.store.take_spare() else {
            return Ok(());
        };
        self.blame.other = Some(Cow::Borrowed("Clone::clone_from"));
        let obj = self.store.get(p);
        spare.clone_from(obj);
        let same = spare == *obj;
        self.blame.other = None;
        self.store.recycle(spare);
        if same {
            return Ok(());
        }
        Err(ProbeError::Other {
            action: "Clone::clone_from".into(),
            panic: false,
            detail: "clone_from gave an object unequal to its source (a clone gives an equal \
                     one); the search makes successors with clone_from, so it would explore \
                     states the object never reaches"
                .into(),
        })
    }

    /// Probes every pair of distinct roles that is not a channel (sends of
    /// every type with a dummy, the receive, the close), each on a fresh
    /// clone: one that succeeds is reported. Costs nothing for an object
    /// that declares no topology (every pair is a channel).
    fn check_off_channels(&mut self, p: ProtoId) -> Result<(), ProbeError> {
        let a = &self.alphabet;
        let n = a.roles.len();
        if a.channels() == n * n.saturating_sub(1) {
            return Ok(());
        }
        let obj = self.store.get(p);
        for role in 0..n {
            for peer in (0..n).filter(|&q| q != role) {
                let mut tried: Vec<(String, bool)> = Vec::new();
                if !a.has_channel(role, peer) {
                    for ty in 0..a.sendable {
                        let what = format!(
                            "{} SEND <{}> TO {}",
                            a.roles[role],
                            a.types[ty].short(),
                            a.roles[peer]
                        );
                        self.blame.other = Some(Cow::Owned(what.clone()));
                        let ok = obj.clone().try_send(role, peer, a.dummy(ty)).is_ok();
                        tried.push((what, ok));
                    }
                    let what = format!("{} CLOSE TO {}", a.roles[role], a.roles[peer]);
                    self.blame.other = Some(Cow::Owned(what.clone()));
                    let ok = obj.clone().try_close(role, peer).is_ok();
                    tried.push((what, ok));
                }
                if !a.has_channel(peer, role) {
                    let what = format!("{} RECV FROM {}", a.roles[role], a.roles[peer]);
                    self.blame.other = Some(Cow::Owned(what.clone()));
                    let ok = obj.clone().try_recv(role, Some(peer)).is_ok();
                    tried.push((what, ok));
                }
                self.blame.other = None;
                if let Some((what, _)) = tried.into_iter().find(|(_, ok)| *ok) {
                    let (from, to) = if what.contains(" RECV ") {
                        (peer, role)
                    } else {
                        (role, peer)
                    };
                    return Err(ProbeError::Other {
                        action: what,
                        panic: false,
                        detail: format!(
                            "it succeeded, but the object's topology (peers() or sends_to()) \
                             has no channel from {} to {}",
                            a.roles[from], a.roles[to]
                        ),
                    });
                }
            }
        }
        Ok(())
    }
}

/// Performs each of `actions` (listed by `original`, with their probe
/// slots) on a copy of `original` made in `spares`, pushing the successors
/// to `batch` as objects, not interned; stops at the first refusal.
fn perform_batch<'a, P: Protocol>(
    alphabet: &Alphabet,
    msgs: &mut [Option<Message>],
    current: &mut LetterId,
    original: &P,
    spares: &mut Spares<P>,
    actions: impl Iterator<Item = &'a (LetterId, Enabled)>,
    batch: &mut Vec<(LetterId, P)>,
) -> Result<(), ProbeError> {
    for &(slot, e) in actions {
        let next = spares.copy_of(original);
        batch.push(perform(alphabet, msgs, current, next, slot, e)?);
    }
    Ok(())
}

/// Performs the listed action `e` (in probe slot `slot`) on `next`, a
/// clone of the object that listed it, through its try-operation; returns
/// the letter taken and the successor. A refusal is a contract violation:
/// the object listed an action it does not take. A free function over the
/// successor generator's fields, so that a caller may hold the stored object while it
/// runs.
fn perform<P: Protocol>(
    alphabet: &Alphabet,
    msgs: &mut [Option<Message>],
    current: &mut LetterId,
    mut next: P,
    slot: LetterId,
    e: Enabled,
) -> Result<(LetterId, P), ProbeError> {
    *current = slot;
    let refused = |what: &str| ProbeError::Contract {
        letter: slot,
        detail: format!("enabled() listed it, but {what} refused it"),
    };
    let letter = match e {
        Enabled::Send { role, to, ty } => {
            // The listing was checked when it was sorted (`slot_of`): `ty`
            // is a declared type with a dummy. Its index, not the letter
            // decoded from the slot (a search and divisions per send).
            let ty = alphabet.declared_index[ty];
            let msg = msgs[ty].take().unwrap_or_else(|| alphabet.dummy(ty));
            if let Err(Refused(m)) = next.try_send(role, to, msg) {
                msgs[ty] = Some(m);
                return Err(refused("try_send"));
            }
            slot
        }
        Enabled::Recv { role, from } => match next.try_recv(role, Some(from)) {
            Ok((sender, msg)) => recv_letter(alphabet, slot, role, from, sender, &msg)?,
            Err(_) => return Err(refused("try_recv")),
        },
        Enabled::Close { role, to } => {
            if next.try_close(role, to).is_err() {
                return Err(refused("try_close"));
            }
            slot
        }
    };
    Ok((letter, next))
}
