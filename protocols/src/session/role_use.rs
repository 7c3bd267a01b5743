//! What a role's endpoint is doing: one atomic word per role that the
//! endpoint's operations, a [`PanicGuard`](super::PanicGuard) and the
//! session's wakers agree through. The word is also the one exclusion a
//! layer that shares the endpoint between threads needs ([`RoleUse`]):
//! such a layer begins and ends each operation on the word itself, and
//! the endpoint then leaves the word alone, so that an operation pays one
//! compare-and-swap for both, not one for the layer's lock and one for
//! the session.

use std::sync::atomic::{
    AtomicU8,
    Ordering::{Relaxed, Release, SeqCst},
};
use std::sync::Arc;

use crossbeam_utils::CachePadded;

use super::Error;

/// What a role's endpoint is doing: one word per role, so that a
/// [`PanicGuard`](super::PanicGuard) on one thread and the endpoint's
/// operations on another agree on whether the role is still in use.
#[derive(Debug, Default)]
pub(super) struct Use(AtomicU8);

/// The endpoint exists and is between operations.
const IDLE: u8 = 0;
/// The endpoint is inside an operation (trying, waiting, or returning).
const IN_OP: u8 = 1;
/// The role was declared panicked: its endpoint's operations fail with
/// [`Error::RolePanicked`] and it counts as dead.
const PANICKED: u8 = 2;
/// The endpoint was dropped normally: the role finished.
const DONE: u8 = 3;
/// The endpoint has async operations registered (futures between polls):
/// a blocking operation now would wait where the session counts the role
/// as waiting on the futures, so it is refused; and the role is in use
/// (its task may run on another thread), so a guard does not declare it
/// panicked.
const ASYNC: u8 = 4;
/// A layer over the endpoint ([`RoleUse`]) holds it for a poll (or a
/// look at the endpoint), with no async operation registered before.
const POLLING: u8 = 5;
/// As `POLLING`, from `ASYNC`: to the session's wakers the role is still
/// between polls of its registered operations (`is_async`), as a poll
/// that leaves the word at `ASYNC` is.
const POLLING_ASYNC: u8 = 6;

impl Use {
    /// An operation starts; `false` if the role was declared panicked.
    pub(super) fn begin(&self) -> bool {
        self.0.compare_exchange(IDLE, IN_OP, SeqCst, SeqCst).is_ok()
    }

    /// The operation started by a successful [`Use::begin`] ends (also
    /// when it unwinds).
    ///
    /// A store, not a compare-and-swap (a locked instruction an operation
    /// fewer): from `IN_OP` only the endpoint's owner moves the word (a
    /// guard declares a role panicked only from `IDLE`), so nobody can
    /// have changed it since `begin`. Release: a guard that then declares
    /// the role panicked (its compare-and-swap reads this store) sees
    /// everything the operation did. A thread reading the word to decide
    /// whether to wake the role (`is_async`) needs no more: if it reads an
    /// older value, its read is ordered before the next operation's
    /// `begin` (a `SeqCst` compare-and-swap), so that operation's tries
    /// see the change the reader made before it.
    pub(super) fn end(&self) {
        debug_assert_eq!(self.0.load(Relaxed), IN_OP);
        self.0.store(IDLE, Release);
    }

    /// A poll of an async operation starts: from idle (it is then in an
    /// operation), or with other async operations registered. `shared`:
    /// the word was handed out ([`RoleUse`]), whose holder began the poll.
    #[inline]
    pub(super) fn begin_poll(&self, shared: bool) -> bool {
        if shared {
            return true;
        }
        match self.0.compare_exchange(IDLE, IN_OP, SeqCst, SeqCst) {
            Ok(_) => true,
            Err(s) => s == ASYNC || s == IN_OP,
        }
    }

    /// A poll ends: with async operations still `registered`, or none.
    ///
    /// The word is `IN_OP` or `ASYNC` here (set by `begin_poll` or an
    /// earlier poll of the owner, which alone changes it from either), so
    /// a store does, with `end`'s ordering: no locked instruction.
    /// Nothing where the word was handed out: its holder ends the poll.
    #[inline]
    pub(super) fn end_poll(&self, registered: bool, shared: bool) {
        if shared {
            return;
        }
        let to = if registered { ASYNC } else { IDLE };
        debug_assert!(matches!(self.0.load(Relaxed), IN_OP | ASYNC));
        self.0.store(to, Release);
    }

    /// A [`PanicGuard`]'s thread panicked: the role is declared panicked
    /// if its endpoint is idle (not in use by another thread, not dropped).
    pub(super) fn declare_panicked(&self) -> bool {
        self.0
            .compare_exchange(IDLE, PANICKED, SeqCst, SeqCst)
            .is_ok()
    }

    /// The endpoint is dropped, while its thread unwinds (`panicking`) or
    /// normally. Returns whether the role ends as panicked (a role declared
    /// panicked earlier stays so).
    pub(super) fn drop_endpoint(&self, panicking: bool) -> bool {
        if panicking {
            self.0.store(PANICKED, SeqCst);
            true
        } else {
            self.0
                .compare_exchange(IDLE, DONE, SeqCst, SeqCst)
                .is_err_and(|s| s == PANICKED)
        }
    }

    /// Whether the role has async operations registered and is between
    /// polls (so not in a blocking call, nor can one start before a poll).
    #[inline]
    pub(super) fn is_async(&self) -> bool {
        matches!(self.0.load(SeqCst), ASYNC | POLLING_ASYNC)
    }

    pub(super) fn panicked(&self) -> bool {
        self.0.load(SeqCst) == PANICKED
    }
}

/// Ends an operation when dropped, even if the operation unwinds; ends
/// nothing where a [`RoleUse`] holder began the operation.
pub(super) struct InOp<'a>(Option<&'a Use>);

impl<'a> InOp<'a> {
    /// Starts an operation of `role`, or fails if it was declared panicked
    /// or has async operations registered. `shared`: the endpoint's word
    /// was handed out ([`RoleUse`]), whose holder has begun the operation.
    #[inline]
    pub(super) fn begin(role_use: &'a Use, name: &str, shared: bool) -> Result<InOp<'a>, Error> {
        if shared {
            Ok(InOp(None))
        } else if role_use.begin() {
            Ok(InOp(Some(role_use)))
        } else if role_use.0.load(SeqCst) == ASYNC {
            Err(Error::AsyncPending(name.to_string()))
        } else {
            Err(Error::RolePanicked(name.to_string()))
        }
    }
}

impl Drop for InOp<'_> {
    #[inline]
    fn drop(&mut self) {
        if let Some(u) = self.0 {
            u.end();
        }
    }
}

/// The words of a session's roles, one a cache line (each is written by
/// its role's operations and read by every other role's wakes).
pub(super) type Uses = Arc<[CachePadded<Use>]>;

/// Fresh words for `n` roles, all idle.
pub(super) fn uses(n: usize) -> Uses {
    (0..n).map(|_| CachePadded::new(Use::default())).collect()
}

/// One role's use word, handed to a layer that shares the role's endpoint
/// between threads (the typed ends of `prust::channel`): the layer begins
/// each operation on the word with [`try_begin`](Self::try_begin) (a
/// blocking operation) or [`try_begin_poll`](Self::try_begin_poll) (a
/// poll), and ends it with the [`Began`] that gave it, and the endpoint,
/// told by [`BlockingEndpoint::share_use`](super::BlockingEndpoint::share_use),
/// leaves the word alone. The word then does two jobs with one
/// compare-and-swap an operation: it excludes the layer's other threads
/// (at most one [`Began`] at a time), and it tells the session that the
/// role is in use (a panic guard does not declare it panicked; see
/// [`PanicGuard`](super::PanicGuard)).
///
/// Only a [`Began`] ends a use, so a layer that lends its endpoint's
/// `&mut` to one `Began` at a time lends it to one thread at a time,
/// whoever else holds a copy of the word.
///
/// ```
/// use protocols::session::{Refusal, SplitSession};
/// use protocols::spec::{msg, Spec};
/// let lts = Spec::new("ping", msg("Ping", "a", "b")).compile().unwrap();
/// let session = SplitSession::new(protocols::Liberal::new(lts));
/// let mut a = session.endpoint("a").unwrap();
/// let word = a.share_use();
/// let began = word.try_begin().unwrap();
/// // Another thread of the layer is told that the endpoint is in use.
/// assert_eq!(word.try_begin_poll().err(), Some(Refusal::Busy));
/// a.send(1, engine::Message::named("Ping", 7u8)).unwrap();
/// began.end(false);
/// let began = word.try_begin_poll().unwrap();
/// began.end(a.has_registered_ops());
/// ```
#[derive(Clone, Debug)]
pub struct RoleUse {
    uses: Uses,
    role: usize,
}

/// A use of a role's endpoint begun on its [`RoleUse`] word: the one
/// holder, until [`end`](Self::end).
#[must_use = "the word stays held until `end`"]
#[derive(Debug)]
pub struct Began<'a> {
    word: &'a AtomicU8,
}

/// Why [`RoleUse::try_begin`] or [`RoleUse::try_begin_poll`] did not
/// begin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// Another holder is inside a blocking operation (which may last).
    Busy,
    /// Another holder is inside a poll (which ends after one try).
    Polling,
    /// A blocking operation, with async operations of the role registered
    /// ([`Error::AsyncPending`]).
    AsyncPending,
    /// The role was declared panicked, or its endpoint is gone
    /// ([`Error::RolePanicked`]).
    Panicked,
}

/// What a use begins.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Blocking,
    Poll,
}

impl RoleUse {
    pub(super) fn new(uses: &Uses, role: usize) -> RoleUse {
        RoleUse {
            uses: Arc::clone(uses),
            role,
        }
    }

    /// A word of its own, for an endpoint that has none to share (it is
    /// then nothing but the layer's lock).
    pub fn standalone() -> RoleUse {
        RoleUse {
            uses: uses(1),
            role: 0,
        }
    }

    #[inline]
    fn word(&self) -> &AtomicU8 {
        &self.uses[self.role].0
    }

    /// Begins a blocking operation (which may hold the word for long), if
    /// nobody holds the word and the role may: refused while async
    /// operations of the role are registered (the role would wait where
    /// the session counts it as waiting on them). One compare-and-swap
    /// where the word is idle (`SeqCst`, as the endpoint's own begin: a
    /// waker's read of the word before it is ordered before the
    /// operation's tries).
    #[inline]
    pub fn try_begin(&self) -> Result<Began<'_>, Refusal> {
        self.begin(Kind::Blocking)
    }

    /// Begins one poll of an async operation, the give-up of one, or a
    /// look at the endpoint: short, and allowed with async operations
    /// registered.
    #[inline]
    pub fn try_begin_poll(&self) -> Result<Began<'_>, Refusal> {
        self.begin(Kind::Poll)
    }

    #[inline]
    fn begin(&self, what: Kind) -> Result<Began<'_>, Refusal> {
        let word = self.word();
        let (from, to) = match what {
            Kind::Blocking => (IDLE, IN_OP),
            // A poll of a registered future finds the word at `ASYNC`:
            // read it first (a plain load), so that such a poll takes one
            // compare-and-swap, not a failed one and another.
            Kind::Poll if word.load(Relaxed) == ASYNC => (ASYNC, POLLING_ASYNC),
            Kind::Poll => (IDLE, POLLING),
        };
        match word.compare_exchange(from, to, SeqCst, SeqCst) {
            Ok(_) => Ok(Began { word }),
            Err(s) => self.refused(what, s),
        }
    }

    #[cold]
    fn refused(&self, what: Kind, mut s: u8) -> Result<Began<'_>, Refusal> {
        let word = self.word();
        loop {
            let (from, to) = match (s, what) {
                (IDLE, Kind::Blocking) => (IDLE, IN_OP),
                (IDLE, Kind::Poll) => (IDLE, POLLING),
                (ASYNC, Kind::Poll) => (ASYNC, POLLING_ASYNC),
                (ASYNC, Kind::Blocking) => return Err(Refusal::AsyncPending),
                (IN_OP, _) => return Err(Refusal::Busy),
                (POLLING | POLLING_ASYNC, _) => return Err(Refusal::Polling),
                _ => return Err(Refusal::Panicked),
            };
            // The word moved on since it was read (another holder ended,
            // or the role was declared panicked): judge it again.
            match word.compare_exchange(from, to, SeqCst, SeqCst) {
                Ok(_) => return Ok(Began { word }),
                Err(now) => s = now,
            }
        }
    }
}

impl Began<'_> {
    /// Ends the use: the role has async operations `registered` (as the
    /// endpoint says after a poll:
    /// [`BlockingEndpoint::has_registered_ops`](super::BlockingEndpoint::has_registered_ops)),
    /// or none (always so after a blocking operation). A store: only the
    /// holder moves the word from a held state (a guard declares a role
    /// panicked only from idle). Release: the next holder, and a guard
    /// that then declares the role panicked, see everything the use did.
    #[inline]
    pub fn end(self, registered: bool) {
        let to = if registered { ASYNC } else { IDLE };
        debug_assert!(matches!(
            self.word.load(Relaxed),
            IN_OP | POLLING | POLLING_ASYNC
        ));
        self.word.store(to, Release);
    }
}
