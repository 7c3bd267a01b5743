//! Which roles' threads panicked: a [`PanicGuard`] declares its role
//! panicked through the role's use word (`role_use`), which the endpoint's
//! operations hold, so that a role is declared panicked only while nobody
//! is using its endpoint (see the module docs of [`session`](super),
//! "Panics").

use std::sync::Arc;

use engine::RoleId;

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
/// with [`Error::RolePanicked`](super::Error::RolePanicked). A guard dropped without a panic does
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
