//! The blocking API: real threads communicating through a protocol object.
//!
//! # Using it
//!
//! A session takes a protocol object and hands out one endpoint per role. A
//! thread owns its endpoint and calls `send(to, value)`, `recv()`,
//! `recv_from(from)` and `close(to)`; each call waits until the protocol
//! allows the operation. Roles are named by their names (`"white"`) or, in
//! hot loops, by the [`RoleId`] that `peer` resolves once.
//!
//! There are two sessions, one per runtime model:
//!
//! - [`Session`] takes any [`Protocol`](engine::Protocol) object (a
//!   [`Strict`](crate::Strict) one, or your own) and keeps it under one lock:
//!   every operation is checked against the one global state.
//! - [`SplitSession`] takes an object that comes apart into roles
//!   ([`Split`]: a [`Liberal`](crate::Liberal) one): each [`SplitEndpoint`]
//!   owns its role's local state, roles share only one inbox per role, each
//!   under its own lock, and no lock is common to all roles on the way of a
//!   successful operation.
//!
//! ```
//! use protocols::session::SplitSession;
//! #[derive(Clone, Debug)]
//! struct Move(&'static str);
//!
//! let session = SplitSession::new(protocols::chess::spec().liberal().unwrap());
//! let mut white = session.endpoint("white").unwrap();
//! let mut black = session.endpoint("black").unwrap();
//! drop(session); // every role has its endpoint
//! std::thread::scope(|s| {
//!     s.spawn(move || white.send("black", Move("e4")).unwrap());
//!     s.spawn(move || {
//!         let m = black.recv_from("white").unwrap();
//!         assert_eq!(m.downcast_ref::<Move>().unwrap().0, "e4");
//!     });
//! });
//! ```
//!
//! # The code that is checked is the code that runs
//!
//! Every blocking call is a loop over the object's own non-blocking
//! try-operations ([`engine::Protocol::try_send`] and friends), the very
//! operations the model checker probes (a [`SplitSession`] runs the step
//! functions that the object's try-operations are made of). An operation
//! that is refused leaves the object unchanged (the `Protocol` contract) and
//! parks the thread (crossbeam-utils `Parker`). In a [`Session`], the thread whose
//! operation changes the object then re-tries every parked operation under
//! the same lock, completes those the protocol now allows, and unparks their
//! owners ("hand-off"): a parked thread is woken only when its operation has
//! happened, never to find it still refused.
//!
//! # Run-time deadlock detection
//!
//! When every *live* endpoint is blocked, nobody can ever change the object
//! again, so every blocked call returns [`Error::Deadlock`], which names each
//! blocked role and what it waits for; the session is then poisoned (later
//! calls fail with the same error), as a `Mutex` is by a panic. An endpoint
//! that has been dropped (its thread finished) is not live. A role whose
//! endpoint was never taken is live while the `Session` value exists
//! (another thread may still take it) and not live after it is dropped.
//!
//! **No false alarm.** The classic mistake (the race the Discourje paper
//! describes) is to count blocked threads: a thread that has just made
//! progress, and thereby enabled a waiter, can still be counted as blocked,
//! or two threads can each believe they are the last to block. Both
//! sessions instead keep an *epoch*, bumped after every operation that
//! changes the object, and a waiter counts as blocked only if its refused
//! try saw the object as it is at the current epoch:
//!
//! - In a [`Session`], tries, epoch bumps, registrations and the decision
//!   all happen under the one lock. At a decision no operation is half-done;
//!   every live endpoint is registered as waiting (a thread between
//!   operations, or one whose operation was completed by a hand-off but has
//!   not woken yet, counts as running and prevents the decision); and each
//!   waiter's operation was refused on the object exactly as it is now
//!   (or, for a receive, the object promised by
//!   [`may_recv`](engine::Protocol::may_recv) that it would be: the session
//!   takes that promise instead of a try, which the determinism check of
//!   the model checker holds the object to).
//! - In a [`SplitSession`] there is no common lock; each role has a status
//!   word: *running*, *dead*, or *waiting at epoch E*. A thread sets its
//!   status to running before it tries anything, reads the epoch *before*
//!   each try, bumps the epoch *after* each successful step, and registers
//!   "waiting at E" (E being the value read before its refused try) only
//!   after that try. The decision reads the epoch (E), every status, and the
//!   epoch again, all sequentially consistent; it declares a deadlock only
//!   if both epoch reads give E and every live role was seen waiting at E.
//!   Then no step can have been performed after the E-th bump: take the
//!   first one, by role x. A role between a step and its bump is running
//!   all along, so every step performed before the E-th bump was bumped
//!   before the scan; x was seen waiting at E, so its status at the scan came
//!   from a refused try made after the E-th bump, and x's step, which comes
//!   later, is a new try; both tries saw the same state (nothing happened in
//!   between, by the choice of x), so the step was refused. Contradiction:
//!   nothing can happen any more, every live role waits.
//!
//! In both cases, the try-operations being deterministic, each waiter would
//! be refused again, and no thread is left that could change anything. That
//! is a deadlock.
//!
//! **No missed deadlock, no hang.** The decision is taken whenever the last
//! live endpoint could have become blocked: when a thread registers as
//! waiting, when an endpoint is dropped, and when the session is dropped.
//! In a [`Session`], after every change all waiters are re-tried until none
//! can go on, so when changes stop every waiter is at the current epoch. In
//! a [`SplitSession`], the decision is run by the role whose registration
//! (or drop) leaves no role running (a counter of running roles says which);
//! a step wakes the role it may have enabled (the receiver of a send, if it
//! waits for that sender or for anyone: each role announces whom it waits
//! for before its last try, so a sender either sees the announcement or
//! pushed before that try), and counts the woken role as running on its
//! behalf from then on, so that no decision is run while the woken role
//! waits for a processor (one would find its refusal stale and wake every
//! stale waiter for nothing). That only makes a role running earlier than
//! it would make itself, and the role then tries again and registers
//! afresh, so it neither raises an alarm nor hides a deadlock. When every
//! live role is waiting but some
//! refusals are older than the current epoch, the decision wakes exactly
//! those waiters to try again instead of declaring anything; they leave
//! the waiting state, try, and register afresh, and the last of them decides
//! again. Once steps stop, epochs stop, and the last registration declares
//! the deadlock. A waiter parks only after registering, and `Parker` keeps
//! an unpark that arrives before the park, so no wake-up is lost.
//!
//! A waiter parks at once, without spinning or yielding first. Yielding
//! before parking (as crossbeam's `Backoff::snooze` does) pays on a quiet
//! machine with more threads than cores, but when other processes compete
//! for the cores a yield can cost the waiter a whole time slice after its
//! message has arrived, while a parked thread that is woken runs soon; a
//! short spin alone did not pay (measured: see the `session_overhead`
//! bench in `BENCHMARKS.md`).
//!
//! # Panics
//!
//! *In protocol code.* If protocol code panics inside a try-operation of a
//! [`Session`], the session is poisoned with [`Error::Panicked`] and every
//! waiter is released (at the latest when the panicking thread's endpoint
//! is dropped during unwinding). Likewise in a [`SplitSession`]: a step
//! (the object's protocol code) that panics may leave its role's local
//! state or the inbox it holds half-updated, so it poisons the session
//! with [`Error::Panicked`] and releases every waiter.
//!
//! *In the thread's own code.* A panic outside any operation ends only
//! that role, which is then *dead* (never acts again, so it does not keep
//! a deadlock from being reported) and listed in [`Deadlock::panicked`],
//! not in [`Deadlock::finished`]; the others go on, or get a deadlock
//! report. The session learns of the panic in one of two ways:
//!
//! - the endpoint is dropped while its thread unwinds (the endpoint's
//!   `Drop` sees [`std::thread::panicking`]): the usual case, an endpoint
//!   moved into the thread;
//! - a [`PanicGuard`] (from `panic_guard()` on the endpoint) is dropped
//!   while its thread unwinds: for an endpoint that outlives the thread
//!   (kept in an `Arc`, a `static`, a structure owned elsewhere). The role
//!   is declared panicked only if its endpoint is *idle* at that moment:
//!   not inside an operation (then another thread is using it, and the
//!   role lives on there) and not dropped normally already (then it had
//!   finished). Every later operation on the endpoint fails with
//!   [`Error::RolePanicked`].
//!
//! The guard and the endpoint's operations agree through one atomic word
//! per role (idle, in an operation, panicked, dropped), changed only by
//! compare-and-swap: an operation starts only from idle, and the guard
//! declares the role panicked only from idle. So a role declared panicked
//! never starts another try, and a role that is trying or waiting is never
//! declared panicked; a declaration therefore removes a live role exactly
//! as dropping its endpoint would (in a [`Session`], under the lock: its
//! slot becomes dead and the decision runs; in a [`SplitSession`]: its
//! status becomes dead, which uncounts it, and the role that takes the
//! count to zero decides), and the deadlock argument above holds as it is.
//!
//! A layer that shares one endpoint between threads (the typed ends of
//! `prust::channel`, whose senders and receivers of one role may live on
//! several threads) needs an exclusion of its own, and takes over this
//! word for it ([`BlockingEndpoint::share_use`], [`RoleUse`]): it begins
//! each operation on the word (held for a blocking operation or for a
//! poll) and ends it there, and the endpoint leaves the word alone. One
//! compare-and-swap then does both jobs, and the guard's rule is the same:
//! it declares the role panicked only while no holder is inside an
//! operation.
//!
//! What cannot be detected: a panic in a thread whose endpoint is *not*
//! dropped by the unwinding (it lives on elsewhere) and that holds no
//! [`PanicGuard`] (or whose guard was leaked, or is kept outside the
//! unwinding stack); the session then counts the role as running and a
//! peer that waits for it waits forever. Nor a thread that ends without
//! a panic (returns, or is blocked on something else) while its endpoint
//! lives on: that role is still live, as far as anyone can tell. A panic
//! that unwinds past a guard declares the role panicked even if a
//! `catch_unwind` further out stops it. With `panic = "abort"` the process
//! ends at the panic anyway. In a [`SplitSession`], a role declared
//! panicked by its guard keeps its local state in its endpoint, so the
//! deadlock report cannot tell whether the protocol had terminated (it
//! says it had not).
//!
//! # Seeing a close
//!
//! `close(to)` ends this role's channel to `to` for good: a later
//! `send(to, ..)` by the same endpoint fails with
//! [`Error::SendAfterClose`] (the message never reaches the object). That
//! promise is what lets the receiving side see the close:
//!
//! - `recv_from(from)` fails with [`Error::Closed`] (naming `from`) once
//!   `from` has closed its channel to the receiver and nothing is left in
//!   it. Messages sent before the close are received first, in order; a
//!   receiver that waits when the close comes is woken and gets the
//!   error. So `while let Ok(m) = ep.recv_from("boss")` ends when the
//!   boss closes (match on `Error::Closed` to tell it from a deadlock).
//! - `recv()` from anyone fails with [`Error::Closed`] (no sender named)
//!   only once *every* role that may send to the receiver (by the
//!   object's [`sends_to`](engine::Protocol::sends_to); every other role
//!   if the object does not say) has closed its channel to it and none of
//!   those channels holds a message. While some sender has not closed,
//!   `recv()` waits as before, and still takes messages left in the
//!   closed channels.
//! - `Closed` is an answer, not a failure: the session is not poisoned,
//!   and the role may go on with other operations.
//! - "Nothing is left" is the object's
//!   [`is_channel_empty`](engine::Protocol::is_channel_empty) (for a
//!   [`SplitSession`], [`Split::inbox_empty_from`]); the strict and
//!   liberal objects answer it. An object that keeps the default (`false`)
//!   never lets a receiver see a close: the receive waits, and a deadlock
//!   is reported as before.
//!
//! ```
//! use engine::Message;
//! use protocols::session::{BlockingEndpoint, Error, SplitSession};
//! use protocols::spec::{close, msg, seq, Spec};
//! let spec = Spec::new("jobs", seq([msg("Job", "boss", "hand").star(), close("boss", "hand")]));
//! let [mut boss, mut hand] = SplitSession::new(protocols::Liberal::from_spec(&spec).unwrap())
//!     .into_endpoints()
//!     .try_into()
//!     .unwrap();
//! let t = std::thread::spawn(move || {
//!     let mut jobs = 0;
//!     loop {
//!         match hand.recv_from("boss") {
//!             Ok(_) => jobs += 1,
//!             Err(Error::Closed { .. }) => return jobs, // the boss is done
//!             Err(e) => panic!("{e}"),
//!         }
//!     }
//! });
//! for i in 0..3 {
//!     boss.send("hand", Message::named("Job", i)).unwrap();
//! }
//! boss.close("hand").unwrap();
//! assert_eq!(t.join().unwrap(), 3);
//! assert!(matches!(boss.send("hand", Message::named("Job", 9)), Err(Error::SendAfterClose { .. })));
//! ```
//!
//! `prust::explore` gives its endpoints the same semantics.
//!
//! # Select
//!
//! `select(&[Alternative])` waits for the first of several receives, each
//! a sender and optionally a message type (Discourje's `alts!!`): it takes
//! the first alternative, in the order given, whose sender's next message
//! has the type and that the protocol allows now, and returns its index
//! with the message. A typed alternative looks at the message before it
//! receives, so a message of another type stays for a later receive. It
//! fails with [`Error::Closed`] once every alternative's sender has closed
//! its channel to this role with nothing left in it. In a deadlock report
//! it waits for [`WaitsFor::Select`]. Under `prust::explore` a select
//! branches over every alternative that is possible, not only the first.
//!
//! ```
//! use engine::Message;
//! use protocols::session::{Alternative, BlockingEndpoint, Session};
//! use protocols::spec::{msg, par, Spec};
//! let spec = Spec::new("two", par([msg("A", "p", "r"), msg("B", "q", "r")])).roles(["p", "q", "r"]);
//! let [mut p, mut q, mut r] = Session::new(protocols::Strict::from_spec(&spec).unwrap())
//!     .into_endpoints()
//!     .try_into()
//!     .unwrap();
//! q.send("r", Message::named("B", ())).unwrap();
//! let alts = [
//!     Alternative::sender("p").of_type("A"), // by name, or by index (`p.role()`)
//!     Alternative::sender("q").of_type("B"),
//! ];
//! let (i, m) = r.select(&alts).unwrap(); // only q's B is there
//! assert_eq!((i, m.type_name()), (1, "B"));
//! p.send("r", Message::named("A", ())).unwrap();
//! assert_eq!(r.select(&alts).unwrap().0, 0);
//! ```
//!
//! # Async operations
//!
//! Both sessions also run an operation as a future's poll
//! ([`BlockingEndpoint::poll_op`] with an [`AsyncOp`], for any runtime:
//! only the task's waker is used). A poll tries the operation as a blocking
//! call does; where the call would park, the poll registers the waker in
//! the role's list (next to the parkers) and returns `Pending`, and where
//! the parked thread would be unparked, the registration is woken.
//!
//! - For the deadlock detection a role with registrations waits once every
//!   one of them was refused at the current epoch (a [`Session`] brings
//!   each to the current epoch after every change, trying it on a clone of
//!   the object; a [`SplitSession`] wakes a registration refused earlier
//!   than the others, so that it tries again); a woken registration counts
//!   as running until its owner polls it. The argument above holds with
//!   "registered" for "parked". A deadlock wakes every registration, whose
//!   next poll returns the error.
//! - A registered operation is never performed by another thread (a
//!   [`Session`]'s hand-off only wakes it): so a future dropped before it
//!   is ready, which gives its registration up
//!   ([`BlockingEndpoint::cancel_op`]), has done nothing.
//! - While a role has registrations, its blocking calls fail with
//!   [`Error::AsyncPending`]: the role is one actor.
//!
//! # Limitations
//!
//! A thread that waits on something other than its endpoint (a lock, I/O,
//! another session) is not blocked as far as the session can tell, so a
//! deadlock that involves it is not detected. A protocol violation (an
//! operation the protocol never allows) blocks like any other refused
//! operation; it is reported as part of a deadlock once the other roles are
//! blocked or finished, with [`Deadlock::terminated`] telling whether the
//! protocol had already ended.
//!
//! A send returns as soon as the object has taken the message, for
//! synchronous (unbuffered) communications too: the protocol object, not the
//! blocking API, keeps the sender from taking another step before the
//! receive (the strict object does; the liberal one does not, see
//! [`crate::liberal`]).

mod channels;
mod closed;
mod endpoint;
mod error;
mod locked;
mod op;
mod panic;
mod pending;
mod role_use;
mod select;
mod split;

pub use closed::Closes;
pub use error::{Blocked, Deadlock, Error, ToRole, WaitsFor};
pub use locked::{Endpoint, Session};
pub use panic::PanicGuard;
pub use pending::{AsyncOp, Done, Request};
pub use role_use::{Began, Refusal, RoleUse};
pub use select::Alternative;
pub use split::{Split, SplitEndpoint, SplitSession};

use std::task::{Context, Poll};

use engine::{Message, Payload, RoleId};

/// The blocking operations of an endpoint of either session, for code that
/// runs on both runtimes (`fn white(ep: &mut impl BlockingEndpoint)`).
pub trait BlockingEndpoint: Send {
    /// This endpoint's role.
    fn role(&self) -> RoleId;
    /// The role names of the session, indexed by [`RoleId`].
    fn roles(&self) -> &[String];
    /// The name of role `role`; `None` for an index the session does not
    /// have.
    ///
    /// ```
    /// use protocols::session::{BlockingEndpoint, Session};
    /// use protocols::spec::{msg, Spec};
    /// let object = protocols::Strict::from_spec(&Spec::new("ping", msg("Ping", "a", "b"))).unwrap();
    /// let [a, _b] = Session::new(object).into_endpoints().try_into().unwrap();
    /// assert_eq!((a.role_name(1), a.role_name(2)), (Some("b"), None));
    /// ```
    fn role_name(&self, role: RoleId) -> Option<&str> {
        self.roles().get(role).map(String::as_str)
    }
    /// The message types (short names) that `from` may ever send to `to`
    /// by the protocol, if the object says
    /// ([`Protocol::channel_types`](engine::Protocol::channel_types));
    /// `None` if it does not (the default).
    fn channel_types(&self, from: RoleId, to: RoleId) -> Option<Vec<String>> {
        let _ = (from, to);
        None
    }
    /// Whether `from` may ever close its channel to `to` by the protocol,
    /// if the object says; `None` if it does not (the default).
    fn may_close(&self, from: RoleId, to: RoleId) -> Option<bool> {
        let _ = (from, to);
        None
    }
    /// Resolves a peer's name once, for hot loops.
    fn peer(&self, role: impl ToRole) -> Result<RoleId, Error>;
    /// Sends `value` to `to`, waiting until the protocol allows it.
    fn send<T: Payload>(&mut self, to: impl ToRole, value: T) -> Result<(), Error>;
    /// Sends `msg` to `to` as [`send`](Self::send) does, and hands the
    /// message back with the error if the send fails (for
    /// `std::sync::mpsc`-shaped senders, whose error returns the value).
    /// The sessions' endpoints give back the message they were handed;
    /// the default sends a clone and keeps the original.
    ///
    /// ```
    /// use engine::Message;
    /// use protocols::session::{BlockingEndpoint, Error, SplitSession};
    /// use protocols::spec::{close, msg, seq, Spec};
    /// let spec = Spec::new("pings", seq([msg("Ping", "a", "b").star(), close("a", "b")]));
    /// let object = protocols::Liberal::new(spec.compile().unwrap());
    /// let mut a = SplitSession::new(object).endpoint("a").unwrap();
    /// a.close(1).unwrap();
    /// let (e, back) = a.send_back(1, Message::named("Ping", 7u8)).unwrap_err();
    /// assert!(matches!(e, Error::SendAfterClose { .. }), "{e}");
    /// assert_eq!(back.downcast::<u8>().unwrap(), 7);
    /// ```
    fn send_back(&mut self, to: RoleId, msg: Message) -> Result<(), (Error, Message)> {
        let keep = msg.clone();
        self.send(to, msg).map_err(|e| (e, keep))
    }
    /// Receives the next message the protocol allows, from any sender.
    fn recv(&mut self) -> Result<(RoleId, Message), Error>;
    /// Receives the next message from `from`.
    fn recv_from(&mut self, from: impl ToRole) -> Result<Message, Error>;
    /// Closes this role's channel to `to`.
    fn close(&mut self, to: impl ToRole) -> Result<(), Error>;
    /// Receives the first of several alternatives (sender, and optionally
    /// type) that the protocol allows; the index of the one taken and the
    /// message. See [`Alternative`].
    fn select(&mut self, alternatives: &[Alternative]) -> Result<(usize, Message), Error>;
    /// As [`select`](Self::select), without waiting: `Ok(None)` if the
    /// protocol allows none of the alternatives now (the role is not
    /// counted as blocked: it goes on running). The default fails with
    /// [`Error::Unsupported`]: an endpoint that can only wait (as under
    /// `prust::explore`) keeps it.
    fn try_select(
        &mut self,
        alternatives: &[Alternative],
    ) -> Result<Option<(usize, Message)>, Error> {
        let _ = alternatives;
        Err(Error::Unsupported {
            role: self.role_name(self.role()).unwrap_or("?").to_string(),
            what: "receive without waiting (it only has blocking operations)",
        })
    }
    /// A guard that declares this role panicked if its thread panics; see
    /// [`PanicGuard`].
    fn panic_guard(&self) -> PanicGuard;
    /// Drives an async operation (see [`AsyncOp`]): `Ready` once done or
    /// failed; `Pending` with `cx`'s waker registered, the role counting
    /// as waiting on it, if the protocol does not allow it now. The
    /// default is ready at once with [`Error::Unsupported`]: an endpoint
    /// without async operations (as under `prust::explore`, for now)
    /// says so instead of waiting.
    fn poll_op(&mut self, cx: &mut Context<'_>, op: &mut AsyncOp) -> Poll<Result<Done, Error>> {
        let _ = (cx, op);
        Poll::Ready(Err(Error::Unsupported {
            role: self.role_name(self.role()).unwrap_or("?").to_string(),
            what: "await a session operation (it only has blocking operations)",
        }))
    }
    /// Gives up an async operation whose future is dropped before it was
    /// ready; a registered operation has done nothing (no message taken,
    /// none sent). The default does nothing.
    fn cancel_op(&mut self, op: &mut AsyncOp) {
        let _ = op;
    }
    /// Hands the role's use word to a layer that shares this endpoint
    /// between threads, which then begins and ends every operation on it
    /// (see [`RoleUse`]); `None` (the default) if the endpoint has no word
    /// to share, and the layer keeps one of its own
    /// ([`RoleUse::standalone`]).
    ///
    /// From then on the endpoint leaves the word to its holders for good:
    /// an operation called on it without a [`Began`] of the word is not
    /// marked in use (a panic guard may declare the role panicked under
    /// it, and a blocking call is not refused while futures are
    /// registered). Call it only to hand every operation to such a layer,
    /// as `prust::channel::Ends::new` does.
    fn share_use(&mut self) -> Option<RoleUse> {
        None
    }
    /// Whether async operations of this endpoint are registered (futures
    /// between polls). The default: `false`.
    fn has_registered_ops(&self) -> bool {
        false
    }
}

macro_rules! blocking_endpoint {
    ($ty:ident, $bound:path) => {
        impl<P: $bound> BlockingEndpoint for $ty<P> {
            fn role(&self) -> RoleId {
                $ty::role(self)
            }
            fn roles(&self) -> &[String] {
                $ty::roles(self)
            }
            fn channel_types(&self, from: RoleId, to: RoleId) -> Option<Vec<String>> {
                $ty::channel_types(self, from, to)
            }
            fn may_close(&self, from: RoleId, to: RoleId) -> Option<bool> {
                $ty::may_close(self, from, to)
            }
            fn try_select(
                &mut self,
                alternatives: &[Alternative],
            ) -> Result<Option<(usize, Message)>, Error> {
                $ty::try_select(self, alternatives)
            }
            fn peer(&self, role: impl ToRole) -> Result<RoleId, Error> {
                $ty::peer(self, role)
            }
            fn send<T: Payload>(&mut self, to: impl ToRole, value: T) -> Result<(), Error> {
                $ty::send(self, to, value)
            }
            #[inline]
            fn send_back(&mut self, to: RoleId, msg: Message) -> Result<(), (Error, Message)> {
                $ty::send_back(self, to, msg)
            }
            fn recv(&mut self) -> Result<(RoleId, Message), Error> {
                $ty::recv(self)
            }
            fn recv_from(&mut self, from: impl ToRole) -> Result<Message, Error> {
                $ty::recv_from(self, from)
            }
            fn close(&mut self, to: impl ToRole) -> Result<(), Error> {
                $ty::close(self, to)
            }
            fn select(&mut self, alternatives: &[Alternative]) -> Result<(usize, Message), Error> {
                $ty::select(self, alternatives)
            }
            fn panic_guard(&self) -> PanicGuard {
                $ty::panic_guard(self)
            }
            fn poll_op(
                &mut self,
                cx: &mut Context<'_>,
                op: &mut AsyncOp,
            ) -> Poll<Result<Done, Error>> {
                $ty::poll_op(self, cx, op)
            }
            fn cancel_op(&mut self, op: &mut AsyncOp) {
                $ty::cancel_op(self, op)
            }
            fn share_use(&mut self) -> Option<RoleUse> {
                Some($ty::share_use(self))
            }
            #[inline]
            fn has_registered_ops(&self) -> bool {
                $ty::has_registered_ops(self)
            }
        }
    };
}

blocking_endpoint!(Endpoint, engine::Protocol);
blocking_endpoint!(SplitEndpoint, Split);
