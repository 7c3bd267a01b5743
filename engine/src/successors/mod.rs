//! The protocol side of the search: interning protocol objects and probing
//! their actions, with a bounded successor cache.
//!
//! Every distinct protocol object is stored once ([`store`]) and named by
//! its index everywhere else; a product state is then two small integers.
//!
//! Probing is *resumable*: the search asks for "the first enabled action at
//! or after letter `l` that the automaton state wants", so a search frame
//! needs only a letter cursor, never a copy of its successor list. The
//! probes run on one scratch clone (a refused operation leaves the object
//! unchanged, so the scratch is reused until a probe succeeds). Complete
//! successor lists are cached ([`cache`]). The walk over the probe slots is
//! in [`probe`], the slots themselves in [`slots`], the determinism check
//! in [`contract`].
//!
//! An object that lists its enabled actions ([`Protocol::enabled`]) is not
//! probed at all outside the determinism check: [`listed`] turns its list
//! into probe slots and performs only those actions. The determinism check
//! probes as ever and compares the list with what it finds.
//!
//! [`Successors`] holds the store and the cache, and one value per job
//! besides: the probing scratch ([`probe::Probing`]), an object's listing
//! ([`listed::Listing`]), the determinism check's bookkeeping
//! ([`contract::DeterminismCheck`]) and what protocol code is running in
//! case it panics ([`blame`]).

mod blame;
mod cache;
mod contract;
mod graph;
mod listed;
mod owned;
mod probe;
mod slots;
mod store;
#[cfg(test)]
mod tests;

use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::alphabet::{Alphabet, LetterId};
use crate::error::ProbeError;
use crate::protocol::Protocol;

use blame::Blame;
use cache::Cache;
use contract::DeterminismCheck;
pub(crate) use graph::Graph;
use listed::Listing;
use probe::Probing;
use slots::{bit, Wanted};
pub(crate) use slots::{next_slot, probe_slot};
pub(crate) use store::{mix, omission_bound, Spares, Store};

pub(crate) use crate::ids::ProtoId;

/// The successor generator of protocol states: the interned objects, the
/// probes that find their enabled actions, and a cache of the results.
pub(crate) struct Successors<P> {
    pub alphabet: Alphabet,
    /// The interned protocol objects.
    pub store: Store<P>,
    cache: Cache,
    /// Complete successor lists computed ahead of the search on several
    /// threads (the parallel liveness check); read before the cache and
    /// whether or not the caller asks for the cache, since they are what
    /// probing would give.
    pub graph: Option<Box<Graph>>,
    probing: Probing<P>,
    listing: Listing,
    determinism: DeterminismCheck,
    blame: Blame,
}

impl<P: Protocol> Successors<P> {
    /// Successors of the objects kept in `store`; `cache_limit`: successor
    /// entries (8 bytes each) the cache may hold.
    pub fn new(alphabet: Alphabet, store: Store<P>, cache_limit: usize, determinism: bool) -> Self {
        Successors {
            store,
            cache: Cache::new(alphabet.len(), cache_limit),
            graph: None,
            probing: Probing::new(&alphabet),
            listing: Listing::new(),
            determinism: DeterminismCheck::new(determinism),
            blame: Blame::new(),
            alphabet,
        }
    }

    /// Records that `p` is being expanded; returns whether it had been
    /// before. A state expanded once is probed lazily (it may never be
    /// needed again); a state expanded again — with another automaton state
    /// or for another formula — is worth caching.
    ///
    /// Under hash compaction (and collapse) always `false`: the cache names its targets
    /// by id, and the object of an id may be gone; a probe makes each
    /// target object anew, which the search needs to expand it.
    #[inline]
    pub fn mark_expanded(&mut self, p: ProtoId) -> bool {
        if self.store.drops_objects() {
            return false;
        }
        self.cache.mark_expanded(p)
    }

    /// Forgets what was worked out under an id that the store has given
    /// to another object since ([`Store::drain_renamed`]: hash compaction
    /// reuses the ids of the states its breadth-first search let go): an
    /// object's listing, the scratch clone kept between probes, and the
    /// determinism check's marks. Kept, they were taken for the new
    /// object's: its listing the old one's (a state with actions taken
    /// for a deadlock) or its check skipped.
    #[inline]
    fn forget_renamed(&mut self) {
        let Successors {
            store,
            probing,
            listing,
            determinism,
            ..
        } = self;
        let mut forget = |gone: &dyn Fn(ProtoId) -> bool| {
            if listing.of.is_some_and(gone) {
                listing.of = None;
            }
            if probing.scratch.as_ref().is_some_and(|(q, _)| gone(*q)) {
                probing.scratch = None;
            }
        };
        let from = store.drain_renamed(|id| {
            forget(&|q| q == id);
            contract::forget(&mut determinism.verified, id);
            contract::forget(&mut determinism.revisited, id);
        });
        if let Some(base) = from {
            forget(&|q| q.index() >= base);
            contract::forget_from(&mut determinism.verified, base);
            contract::forget_from(&mut determinism.revisited, base);
        }
    }

    /// Whether the successors of `p` are cached.
    pub fn is_cached(&self, p: ProtoId) -> bool {
        self.graph.as_ref().is_some_and(|g| g.contains(p)) || self.cache.get(p).is_some()
    }

    /// The complete successor list of `p` if one is known without
    /// probing: from the graph, or (with `use_cache`) from the cache.
    #[inline]
    fn known(&self, p: ProtoId, use_cache: bool) -> Option<&[(LetterId, ProtoId)]> {
        self.graph
            .as_ref()
            .and_then(|g| g.get(p))
            .or_else(|| use_cache.then(|| self.cache.get(p)).flatten())
    }

    /// Probes the whole alphabet on `p` and caches the successors.
    pub fn fill(&mut self, p: ProtoId) -> Result<(), ProbeError> {
        let mut arena = self.cache.take_arena(self.alphabet.len());
        let start = arena.len();
        let walked = self.probe_all(p, None, &mut arena);
        if walked.is_err() {
            arena.truncate(start);
        }
        self.cache
            .put_back(arena, walked.is_ok().then_some((p, start)));
        walked
    }

    /// The first enabled action of `p` at or after letter `*cursor` that
    /// `wanted` contains (all, if `None`), with its target; `*cursor` is
    /// left at that letter's probe slot.
    #[inline]
    pub fn next_enabled(
        &mut self,
        p: ProtoId,
        cursor: &mut LetterId,
        wanted: Option<Wanted>,
        use_cache: bool,
    ) -> Result<Option<(LetterId, ProtoId)>, ProbeError> {
        if let Some(list) = self.known(p, use_cache) {
            let from = list.partition_point(|&(l, _)| l < *cursor);
            let a = &self.alphabet;
            let found = list[from..]
                .iter()
                .copied()
                .find(|&(l, _)| wanted.is_none_or(|w| bit(w, probe_slot(a, l))));
            if let Some((l, _)) = found {
                *cursor = probe_slot(a, l);
            }
            return Ok(found);
        }
        self.probe_from(p, cursor, wanted)
    }

    /// Appends every enabled action of `p` that `wanted` contains (all, if
    /// `None`), with its interned target, to `out`, in letter order.
    ///
    /// The same successors as repeated [`next_enabled`](Self::next_enabled)
    /// calls, but the alphabet is walked in one pass under one
    /// `catch_unwind`: a breadth-first search needs all successors at once,
    /// and the per-call bookkeeping (cursor, scratch hand-over, unwinding
    /// guard) was a fifth of its time.
    pub fn successors(
        &mut self,
        p: ProtoId,
        wanted: Option<Wanted>,
        use_cache: bool,
        out: &mut Vec<(LetterId, ProtoId)>,
    ) -> Result<(), ProbeError> {
        if let Some(list) = self.known(p, use_cache) {
            let a = &self.alphabet;
            out.extend(
                list.iter()
                    .filter(|&&(l, _)| wanted.is_none_or(|w| bit(w, probe_slot(a, l)))),
            );
            return Ok(());
        }
        let start = out.len();
        self.probe_all(p, wanted, out)
            .inspect_err(|_| out.truncate(start))
    }

    /// `p.is_terminated()`, with a panic in it reported like one in a
    /// probe (as the probe of the END letter) instead of escaping the check.
    pub fn is_terminated(&mut self, p: ProtoId) -> Result<bool, ProbeError> {
        self.blame.letter = self.alphabet.end();
        let obj = self.store.get(p);
        let r = catch_unwind(AssertUnwindSafe(|| Ok(obj.is_terminated())));
        self.unwound(r)
    }

    /// Whether the determinism check is on.
    pub fn determinism(&self) -> bool {
        self.determinism.on
    }

    /// Whether some action at all is enabled in `p`.
    pub fn any_enabled(&mut self, p: ProtoId) -> Result<bool, ProbeError> {
        let mut cursor = 0;
        Ok(self.next_enabled(p, &mut cursor, None, true)?.is_some())
    }
}
