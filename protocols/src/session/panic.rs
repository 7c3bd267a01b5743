//! Which roles' threads panicked: one atomic word per role that the
//! endpoint's operations and a [`PanicGuard`] agree through, so that a role
//! is declared panicked only while nobody is using its endpoint (see the
//! module docs of [`session`](super), "Panics").

use std::sync::atomic::{
    AtomicU8,
    Ordering::{Relaxed, Release, SeqCst},
};
use std::sync::Arc;

use engine::RoleId;

use super::Error;

/// What a role's endpoint is doing, as far as panics are concerned: one
/// word per role, so that a [`PanicGuard`] on one thread and the endpoint's
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
    /// operation), or with other async operations registered.
    #[inline]
    pub(super) fn begin_poll(&self) -> bool {
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
    #[inline]
    pub(super) fn end_poll(&self, registered: bool) {
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
        self.0.load(SeqCst) == ASYNC
    }

    pub(super) fn panicked(&self) -> bool {
        self.0.load(SeqCst) == PANICKED
    }
}

/// Ends an operation when dropped, even if the operation unwinds.
pub(super) struct InOp<'a>(&'a Use);

impl<'a> InOp<'a> {
    /// Starts an operation of `role`, or fails if it was declared panicked.
    pub(super) fn begin(role_use: &'a Use, name: &str) -> Result<InOp<'a>, Error> {
        if role_use.begin() {
            Ok(InOp(role_use))
        } else if role_use.0.load(SeqCst) == ASYNC {
            Err(Error::AsyncPending(name.to_string()))
        } else {
            Err(Error::RolePanicked(name.to_string()))
        }
    }
}

impl Drop for InOp<'_> {
    fn drop(&mut self) {
        self.0.end();
    }
}

/// A session that can be told that a role's thread panicked.
pub(super) trait PanicSink: Send + Sync {
    /// Declares `role` panicked if its endpoint is idle, and lets the
    /// other roles know (a deadlock report may follow).
    fn role_panicked(&self, role: RoleId);
}

/// Declares its role panicked if it is dropped while its thread unwinds
/// from a panic: for a thread whose endpoint lives on elsewhere (in an
/// `Arc`, a `static`, another thread), so that dropping the endpoint does
/// not tell the session. Get one from
/// [`Endpoint::panic_guard`](super::Endpoint::panic_guard) or
/// [`SplitEndpoint::panic_guard`](super::SplitEndpoint::panic_guard) and keep it on the thread's stack for as
/// long as the thread runs the role.
///
/// When the guard's thread panics, the role is declared panicked unless
/// its endpoint is in the middle of an operation at that moment (then
/// another thread is using it, and the role lives on there) or was dropped
/// already (the role had finished). A role declared panicked is dead: it no
/// longer keeps a deadlock from being reported (the report lists it under
/// [`Deadlock::panicked`](super::Deadlock::panicked)), and every later operation on its endpoint fails
/// with [`Error::RolePanicked`]. A guard dropped without a panic does
/// nothing.
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use protocols::session::{Error, SplitSession};
/// let session = SplitSession::new(protocols::chess::spec().liberal().unwrap());
/// let white = Arc::new(Mutex::new(session.endpoint("white").unwrap()));
/// let mut black = session.endpoint("black").unwrap();
/// drop(session);
/// let kept = Arc::clone(&white); // the endpoint outlives the thread
/// let t = std::thread::spawn(move || {
///     let _guard = white.lock().unwrap().panic_guard();
///     panic!("white's code has a bug");
/// });
/// assert!(t.join().is_err());
/// let Err(Error::Deadlock(d)) = black.recv_from("white") else { panic!() };
/// assert_eq!(d.panicked, ["white"]);
/// # drop(kept);
/// ```
#[must_use = "the guard acts when it is dropped: keep it alive while the thread runs the role"]
pub struct PanicGuard {
    pub(super) session: Arc<dyn PanicSink>,
    pub(super) role: RoleId,
}

/// A [`PanicSink`] made of a function: what [`PanicGuard::from_fn`] calls.
struct FnSink(Box<dyn Fn(RoleId) + Send + Sync>);

impl PanicSink for FnSink {
    fn role_panicked(&self, role: RoleId) {
        (self.0)(role)
    }
}

impl PanicGuard {
    /// A guard that calls `on_panic(role)` if it is dropped while its
    /// thread unwinds from a panic, for endpoints of other runtimes (the
    /// explorer's endpoints, which learn of panics by catching them, hand
    /// out a guard that does nothing).
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use std::sync::Arc;
    /// let seen = Arc::new(AtomicUsize::new(usize::MAX));
    /// let s = Arc::clone(&seen);
    /// let t = std::thread::spawn(move || {
    ///     let _g = protocols::session::PanicGuard::from_fn(3, move |r| s.store(r, Ordering::SeqCst));
    ///     panic!("boom");
    /// });
    /// assert!(t.join().is_err());
    /// assert_eq!(seen.load(Ordering::SeqCst), 3);
    /// ```
    pub fn from_fn(role: RoleId, on_panic: impl Fn(RoleId) + Send + Sync + 'static) -> PanicGuard {
        PanicGuard {
            session: Arc::new(FnSink(Box::new(on_panic))),
            role,
        }
    }
}

impl Drop for PanicGuard {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.session.role_panicked(self.role);
        }
    }
}

impl std::fmt::Debug for PanicGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PanicGuard")
            .field("role", &self.role)
            .finish_non_exhaustive()
    }
}
