//! Successors of an object held outside the store: what a worker of the
//! parallel breadth-first search needs. The states of that search live in
//! its shared store (`search::sharded`), and a worker expands clones of
//! them, so here nothing is interned: the successors come back as objects
//! for the shared store to deduplicate. The probes are the same, in the
//! same order, as [`Successors::successors`] with every letter wanted (a
//! listing object's listed actions performed, or every probe slot walked),
//! which is what makes the parallel search's successor order, and so its
//! counterexamples, those of the one-thread search.

use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::alphabet::LetterId;
use crate::error::ProbeError;
use crate::protocol::Protocol;

use super::probe::walk_every_slot;
use super::{Spares, Successors};

impl<P: Protocol> Successors<P> {
    /// Appends every enabled action of `obj` to `out` in letter order,
    /// each with its successor object. A panic in protocol code is the
    /// [`ProbeError::Panic`] of the letter being probed, as in
    /// [`successors`](Self::successors); on an error `out` is left as it
    /// was. Only for successor generators without the determinism check (its
    /// per-state bookkeeping is by stored id).
    pub(crate) fn successors_of(
        &mut self,
        obj: &P,
        out: &mut Vec<(LetterId, P)>,
    ) -> Result<(), ProbeError> {
        debug_assert!(
            !self.determinism.on,
            "the determinism check needs stored ids"
        );
        let start = out.len();
        let r = catch_unwind(AssertUnwindSafe(|| {
            if self.list_object(obj)? {
                for i in 0..self.listing.actions.len() {
                    let (slot, e) = self.listing.actions[i];
                    let s = self.perform_listed(obj.clone(), slot, e)?;
                    out.push(s);
                }
                return Ok(());
            }
            walk_every_slot(
                &self.probing.probes,
                &mut self.probing.msgs,
                &self.alphabet,
                &mut self.blame.letter,
                obj,
                // No pool: a worker's successors leave its thread.
                &mut Spares::new(),
                out,
            )
        }));
        let r = self.unwound(r);
        if r.is_err() {
            out.truncate(start);
        }
        r
    }

    /// `obj.is_terminated()`, a panic in it reported as in
    /// [`is_terminated`](Self::is_terminated).
    pub(crate) fn object_is_terminated(&mut self, obj: &P) -> Result<bool, ProbeError> {
        self.blame.letter = self.alphabet.end();
        let r = catch_unwind(AssertUnwindSafe(|| Ok(obj.is_terminated())));
        self.unwound(r)
    }

    /// Runs `f` (protocol code of a successor: its `Hash` or `Eq` while
    /// the shared store deduplicates it) with a panic reported as the
    /// [`ProbeError::Panic`] of `letter`, the action that made it.
    pub(crate) fn guarded<T>(
        &mut self,
        letter: LetterId,
        f: impl FnOnce() -> T,
    ) -> Result<T, ProbeError> {
        self.blame.letter = letter;
        let r = catch_unwind(AssertUnwindSafe(|| Ok(f())));
        self.unwound(r)
    }
}
