//! What the threads of one parallel search share: the store, the level
//! being expanded, the hand-over queues, the limits reached and the
//! earliest event.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, PoisonError, RwLock};

use crate::error::ProbeError;
use crate::product::Prepared;
use crate::protocol::Protocol;

use super::*;
use crate::search::sharded::{Key, Sharded, StateId};

/// What a thread met while expanding the current level.
pub(super) enum Found {
    /// Expanding the state failed (protocol code panicked, broke a
    /// contract): the search stops with the error, traced to the state.
    Error(ProbeError, StateId),
    /// A successor in a universal automaton state: a violation.
    Bad(StateId),
}

/// An event and where the one-thread search would meet it: the parent's
/// position in the level, then 0 for an error in expanding it, or one
/// more than the successor's index for a violation (an error in a state
/// is met before any of its successors).
pub(super) struct Event {
    pub(super) at: (u64, u32),
    pub(super) found: Found,
}

/// The state shared by the threads of one search.
pub(super) struct Shared<'s, P> {
    pub(super) store: Sharded<P>,
    pub(super) aut: &'s Prepared,
    pub(super) stutter: bool,
    /// The level being expanded, in the one-thread order.
    pub(super) level: RwLock<Vec<StateId>>,
    pub(super) depth: AtomicU64,
    /// Threads sharing the current level (the calling thread included).
    pub(super) parties: AtomicU64,
    /// Per thread: the successors the others made in its shards, in
    /// batches (each in the key order of its maker).
    pub(super) inbox: Vec<Mutex<Vec<Batch<P>>>>,
    /// Per thread: its batches back, emptied, with the objects they held
    /// that were not stored. glibc's allocator slows down badly (a sixth
    /// of the time, in `malloc_consolidate` and `unlink_chunk`) when
    /// threads free each other's blocks, so each thread frees what it made.
    pub(super) returned: Mutex<Vec<Vec<Returned<P>>>>,
    /// Per thread: the new states of its shards, sorted by key.
    pub(super) found: Mutex<Vec<Vec<(Key, StateId)>>>,
    /// Stop expanding: a limit was reached.
    pub(super) stop: AtomicBool,
    /// The state limit was reached.
    pub(super) full: AtomicBool,
    /// A state past the depth limit was left out.
    pub(super) truncated: AtomicBool,
    /// A search over bytes cannot go on (see the module docs): why.
    pub(super) fallback: Mutex<Option<&'static str>>,
    pub(super) transitions: AtomicU64,
    pub(super) event: Mutex<Option<Event>>,
    /// Positions after this one need not be expanded: an event at it (or
    /// before) comes first.
    pub(super) bound: AtomicU64,
    pub(super) phase: Mutex<Phase>,
    pub(super) start: Condvar,
    pub(super) done: Condvar,
}

impl<P: Protocol> Shared<'_, P> {
    pub(super) fn record(&self, at: (u64, u32), found: Found) {
        let mut ev = self.event.lock().unwrap_or_else(PoisonError::into_inner);
        if ev.as_ref().is_none_or(|e| at < e.at) {
            *ev = Some(Event { at, found });
        }
        self.bound.fetch_min(at.0, Ordering::Relaxed);
    }

    /// Stops the search: it goes back to one thread, for `why`.
    pub(super) fn fall_back(&self, why: &'static str) {
        let mut f = self.fallback.lock().unwrap_or_else(PoisonError::into_inner);
        f.get_or_insert(why);
        self.stop.store(true, Ordering::Relaxed);
    }
}
