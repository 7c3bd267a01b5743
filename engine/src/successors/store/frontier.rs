//! The store's side of a breadth-first search that holds its frontier's
//! objects itself: objects taken out as they are made, lent back while
//! their state is expanded, swept once it is; and, under hash compaction
//! with the search's own set of fingerprints, ids only for what the
//! search holds now (transient ids), freed when nothing names them.

use crate::ids::ProtoId;
use crate::protocol::Protocol;

use super::fingerprints::Keys;
use super::Store;

impl<P: Protocol> Store<P> {
    /// Hands the object of `id`, just made by a probe (or resident), to a
    /// search that holds it outside the store until it expands the state
    /// ([`lend`](Self::lend)), instead of [`pin`](Self::pin)ning it: the
    /// breadth-first frontier. `None` for a store that keeps every object
    /// (nothing to hold), and for a state whose object was already handed
    /// out since the last [`sweep`](Self::sweep) (the caller holds it),
    /// however many times it was made.
    pub(crate) fn take_made(&mut self, id: ProtoId) -> Option<P> {
        let f = self.fp.as_mut()?;
        if let Some((j, p)) = &f.lent {
            // A state that is its own successor (a stutter step).
            if *j == id {
                return Some(p.clone());
            }
        }
        if let Some(r) = f.resident.get(&id) {
            return Some(r.p.clone());
        }
        let i = f.fresh.iter().rposition(|(j, _)| *j == id)?;
        if let Some(t) = &mut f.transient {
            t.taken.push(id);
        }
        let taken = f.fresh.swap_remove(i).1;
        // An object made twice since the sweep (two actions to one state)
        // has a copy per making: all go, so that a second take finds none
        // and the search knows that a second entry names the same id
        // (it frees a frontier state's id after the last such entry).
        while let Some(k) = f.fresh.iter().position(|(j, _)| *j == id) {
            let (_, extra) = f.fresh.swap_remove(k);
            self.spares.put(extra);
        }
        Some(taken)
    }

    /// Whether a breadth-first search from one state holds its frontier's
    /// objects itself ([`take_made`](Self::take_made), [`lend`](Self::lend))
    /// rather than [`pin`](Self::pin)ning them in the store's map of
    /// resident objects: under collapse, and under hash compaction once
    /// the search keeps its own set of fingerprints
    /// ([`transient_ids`](Self::transient_ids)), where the frontier's
    /// objects are then all the store would hold. Not where the store keeps
    /// every object anyway.
    pub(crate) fn lends_frontier(&self) -> bool {
        self.fp.as_ref().is_some_and(|f| match f.keys {
            Keys::Fp(_) => f.transient.is_some(),
            Keys::Bytes { .. } => true,
        })
    }

    /// Makes `p` the object of `id` while the search expands it (see
    /// [`take_made`](Self::take_made)); given back by
    /// [`take_lent`](Self::take_lent). Only for a store that drops objects.
    #[inline]
    pub(crate) fn lend(&mut self, id: ProtoId, p: P) {
        if let Some(f) = &mut self.fp {
            f.lent = Some((id, p));
        }
    }

    /// Ends a [`lend`](Self::lend): the object is the caller's again.
    #[inline]
    pub(crate) fn take_lent(&mut self) -> Option<P> {
        self.fp.as_mut()?.lent.take().map(|(_, p)| p)
    }

    /// Drops the objects made since the last sweep that the search did not
    /// pin: states it had seen before, whose object it does not need. The
    /// first few become spares ([`recycle`](Self::recycle)).
    #[inline]
    pub(crate) fn sweep(&mut self) {
        if let Some(f) = &mut self.fp {
            let transient = f.transient.is_some();
            let mut gone = std::mem::take(&mut f.fresh);
            // The taken ids first: an object made twice (interned again
            // while made) leaves one copy in `fresh` when the frontier
            // takes the other, and its id must not be freed with that copy.
            if let Some(t) = &mut f.transient {
                let mut taken = std::mem::take(&mut t.taken);
                for id in taken.drain(..) {
                    f.release(id, false);
                }
                if let Some(t) = &mut f.transient {
                    t.taken = taken;
                }
            }
            for (id, p) in gone.drain(..) {
                self.spares.put(p);
                if transient {
                    f.release(id, true);
                }
            }
            // The list's allocation, for the next state's successors.
            f.fresh = gone;
        }
    }

    /// Hands the transient id of a state the search took
    /// ([`take_made`](Self::take_made)) back for reuse, once nothing names
    /// it: the breadth-first search, after expanding the last frontier
    /// entry that names it. Ids the store still knows (permanent, resident,
    /// lent, in use) are left alone. Nothing to do without transient ids.
    pub(crate) fn free(&mut self, id: ProtoId) {
        if let Some(f) = &mut self.fp {
            f.free(id);
        }
    }

    /// Calls `forget` with each id that names another object now than
    /// when it was last drained (a transient id handed out again), and
    /// returns the id from which every id does (transient ids ended), if
    /// any: whoever remembers something by id must forget it.
    pub(crate) fn drain_renamed(&mut self, mut forget: impl FnMut(ProtoId)) -> Option<usize> {
        let f = self.fp.as_mut()?;
        if let Some(t) = &mut f.transient {
            t.renamed.drain(..).for_each(&mut forget);
        }
        f.renamed_from.take()
    }

    /// Whether transient ids ran out (see `Transient`): the search holds
    /// as many states as ids exist, and must stop as at a state limit,
    /// because ids handed out since are not unique.
    pub(crate) fn ids_exhausted(&self) -> bool {
        self.fp
            .as_ref()
            .and_then(|f| f.transient.as_ref())
            .is_some_and(|t| t.exhausted)
    }

    /// Gives ids only to the objects the search holds from now on (see
    /// `Transient`), until the next [`reset_residents`](Self::reset_residents):
    /// for a search that keeps its own set of states
    /// ([`fp_of`](Self::fp_of) names them). Nothing to do unless the store
    /// keeps fingerprints.
    pub(crate) fn transient_ids(&mut self) {
        if let Some(f) = &mut self.fp {
            f.set_transient(true);
        }
    }

    /// The id under which the store knows `id`'s object now: the one an
    /// equal object interned gets, which is what a walk that meets the
    /// state again by interning (the counterexample's rebuild) sees.
    /// `id` itself but under hash compaction with transient ids, for a
    /// state whose id was released while the search held its object (the
    /// breadth-first frontier's, lent while it is expanded): the object is
    /// interned again, under a new id. Only for such a walk: from here
    /// on the store keeps every object ([`keep_all`](Self::keep_all)),
    /// so that the id stays.
    pub(crate) fn id_now(&mut self, id: ProtoId) -> ProtoId {
        self.keep_all();
        let released = self.fp.as_ref().is_some_and(|f| {
            f.transient
                .as_ref()
                .is_some_and(|t| id.index() >= t.base && !t.live.contains_key(&id))
        });
        if !released {
            return id;
        }
        let p = self.copy_of(id);
        self.intern(p)
    }

    /// Whether a breadth-first search that holds its frontier's objects
    /// ([`lends_frontier`](Self::lends_frontier)) keeps them as the bytes
    /// they write ([`Protocol::encode`]), decoding each when its state is
    /// expanded: under hash compaction, for an object that prefers its
    /// states stored as bytes and writes them (as the collapse store is
    /// picked without hash compaction).
    pub(crate) fn frontier_as_bytes(&self) -> bool {
        self.fp.as_ref().is_some_and(|f| f.frontier_bytes)
    }

    /// Reports a state that did not come back from its bytes (found by
    /// the determinism check): the check ends with a contract error
    /// ([`codec_error`](Self::codec_error)). The first one is kept.
    pub(crate) fn note_codec_error(&mut self, detail: String) {
        if let Some(f) = &mut self.fp {
            f.codec_error.get_or_insert(detail);
        }
    }
}
