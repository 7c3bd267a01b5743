//! Typed channels over protocol sessions: a program written as with
//! `std::sync::mpsc` or crossbeam-channel, every send and receive checked
//! against the protocol.
//!
//! # From `std::sync::mpsc` to `prust::channel`
//!
//! A boss hands jobs to a worker and collects their squares. With std:
//!
//! ```
//! use std::sync::mpsc;
//!
//! let (jobs_tx, jobs_rx) = mpsc::channel::<u32>();
//! let (done_tx, done_rx) = mpsc::channel::<u64>();
//! let worker = std::thread::spawn(move || {
//!     for job in jobs_rx.iter() {
//!         done_tx.send(u64::from(job) * u64::from(job)).unwrap();
//!     }
//! });
//! let mut sum = 0;
//! for i in 1..=3 {
//!     jobs_tx.send(i).unwrap();
//!     sum += done_rx.recv().unwrap();
//! }
//! drop(jobs_tx); // the worker's loop ends
//! worker.join().unwrap();
//! assert_eq!(sum, 14);
//! ```
//!
//! With `prust::channel` the roles and what they may send are the
//! protocol's; a message's protocol type is its Rust type's name (so the
//! payloads get names, `Job` and `Done`). Only the lines that make the
//! channels and the threads change:
//!
//! ```
//! use channel::Ends;
//! use protocols::session::{BlockingEndpoint, Session};
//! use protocols::spec::{close, msg, seq, Spec};
//!
//! #[derive(Clone, Debug)]
//! struct Job(u32);
//! #[derive(Clone, Debug)]
//! struct Done(u64);
//!
//! // Jobs and answers alternate, until the boss closes the job channel.
//! let spec = Spec::new(
//!     "squares",
//!     seq([
//!         seq([msg("Job", "boss", "worker"), msg("Done", "worker", "boss")]).star(),
//!         close("boss", "worker"),
//!     ]),
//! );
//! let object = protocols::Strict::from_spec(&spec).unwrap();
//! let [boss, worker] = Session::new(object).into_endpoints().try_into().unwrap();
//!
//! fn worker_role<E: BlockingEndpoint + 'static>(ends: Ends<E>) {
//!     let (jobs_rx, done_tx) = (ends.receiver::<Job>("boss").unwrap(), ends.sender::<Done>("boss").unwrap());
//!     for Job(job) in jobs_rx.iter() {
//!         done_tx.send(Done(u64::from(job) * u64::from(job))).unwrap();
//!     }
//! }
//! let worker = std::thread::spawn(move || worker_role(Ends::new(worker)));
//! let boss = Ends::new(boss);
//! let (jobs_tx, done_rx) = (boss.sender::<Job>("worker").unwrap(), boss.receiver::<Done>("worker").unwrap());
//! let mut sum = 0;
//! for i in 1..=3 {
//!     jobs_tx.send(Job(i)).unwrap();
//!     sum += done_rx.recv().unwrap().0;
//! }
//! drop(jobs_tx); // the last sender: closes boss → worker, and the worker's loop ends
//! worker.join().unwrap();
//! assert_eq!(sum, 14);
//! ```
//!
//! The same `worker_role` runs under `prust::explore`
//! (`roles.spawn("worker", |ep| worker_role(Ends::new(ep)))`), where every
//! send and receive is a scheduling point.
//!
//! The `prust` crate's guide has this side by side as a chapter,
//! `prust::guide::from_mpsc`, with the role functions left untouched (only
//! the import of `Sender` and `Receiver` and the lines that make the
//! channels differ), and the worked examples `worker_pool`, `pipeline` and
//! `server` in its `examples/`.
//!
//! # What maps to what
//!
//! - [`Ends::new`] takes a role's endpoint (of a
//!   [`Session`](protocols::session::Session), a
//!   [`SplitSession`](protocols::session::SplitSession) or
//!   `prust::explore`), and [`SessionEnds`] makes them straight from a
//!   session (`session.ends("worker")`); [`Ends::sender`] and [`Ends::receiver`] make the
//!   typed halves of the role's channel to or from a peer. Making an end
//!   checks the role and the type against the protocol: a type the
//!   protocol never sends on that channel is an [`Error`] at once, with
//!   the closest type it does send.
//! - [`Sender::send`] waits until the protocol allows the send (a
//!   protocol's channel need not be buffered); a failure hands the value
//!   back. Dropping the last sender of a channel closes it where the
//!   protocol has a close (see [`Sender`]).
//! - [`Receiver::recv`], [`try_recv`](Receiver::try_recv),
//!   [`recv_timeout`](Receiver::recv_timeout) and
//!   [`iter`](Receiver::iter) are std's; [`RecvError::Closed`] is std's
//!   disconnect: the peer closed and everything it sent was received.
//!   A receiver takes only its own type: with several types on one
//!   channel, each has its receiver, and a message waits for the receiver
//!   of its type.
//! - [`select!`] is crossbeam's, with `recv` arms.
//! - A deadlock is an error, never a hang: every blocked operation of the
//!   session returns it ([`RecvError::deadlock`], [`Error::deadlock`]).
//!
//! # Message enums
//!
//! A program's messages are often one enum, matched with `match`. With
//! `#[derive(prust::Message)]` each variant is one protocol message type,
//! named by the variant: a `Sender<Cmd>` sends `Cmd::Job(3)` as a `Job`
//! and `Cmd::Stop` as a `Stop`, and one `Receiver<Cmd>` takes every
//! message of a variant's type from its peer, and no other (a message of
//! another type at the head of the channel is left for its own receiver).
//! Making an end of an enum fails only if the channel carries none of its
//! variants; a variant sent where the protocol does not allow it blocks
//! as any such send does (and is reported with the deadlock).
//!
//! ```
//! # use protocols::spec::{msg, seq, Spec};
//! # use protocols::session::SplitSession;
//! #[derive(Clone, Debug, PartialEq, prust_derive::Message)]
//! # #[message(crate = "engine")]
//! enum Cmd {
//!     Job(u32),
//!     Stop,
//! }
//!
//! let spec = Spec::new("jobs", seq([msg("Job", "boss", "hand").star(), msg("Stop", "boss", "hand")]));
//! let object = protocols::Liberal::new(spec.compile().unwrap());
//! let [boss, hand] = SplitSession::new(object).into_endpoints().try_into().unwrap();
//! let (boss, hand) = (channel::Ends::new(boss), channel::Ends::new(hand));
//! let cmds = boss.sender::<Cmd>("hand").unwrap();
//! cmds.send(Cmd::Job(1)).unwrap();
//! cmds.send(Cmd::Stop).unwrap();
//! let inbox = hand.receiver::<Cmd>("boss").unwrap();
//! let mut jobs = 0;
//! loop {
//!     match inbox.recv().unwrap() {
//!         Cmd::Job(n) => jobs += n,
//!         Cmd::Stop => break,
//!     }
//! }
//! assert_eq!(jobs, 1);
//! ```
//!
//! (Through the `prust` crate the derive is `#[derive(prust::Message)]`
//! with no `#[message(crate = ...)]`.) A formula names the variants
//! (`"hand RECV <Job>"`), and a check's dummies are the enum's values
//! (`dummies![Cmd::Job(0), Cmd::Stop]`).
//!
//! # Threads
//!
//! A role is one sequential thread of the protocol. Its ends are
//! `Send + Sync` and may move between threads, but one role's endpoint
//! does one operation at a time: an operation that finds the endpoint in
//! use on another thread fails with [`Error::Busy`] instead of waiting
//! (where the session could not see the wait). Several roles that share a
//! queue (the Rust book's worker pool, `Arc<Mutex<Receiver>>`) are not a
//! session channel: write in the specification who may take the next job
//! (each worker's loop of a job and its result side by side, `par_every`,
//! the master giving the next job to the worker whose result came in, by
//! `select!`; an `alt_every` inside one loop would make the workers take
//! turns), or add a dispatcher role. The `prust` crate's
//! `examples/worker_pool.rs` is the book's pool written the first way.
//!
//! # Async tasks
//!
//! [`Sender::send_async`] and [`Receiver::recv_async`] are the same
//! operations as futures, for tasks of any runtime (tokio, async-std,
//! smol: they use only the task's waker). The same [`Ends`] serve threads
//! and tasks, and a role may be a task while its peers are threads.
//!
//! - A task pending on a session operation counts as waiting, as a blocked
//!   thread does: a deadlock makes its futures ready with the deadlock
//!   error. One task may await several receives of its role at once
//!   (`tokio::select!`); the role waits until one of them can go on.
//! - Cancellation is safe: a future dropped before it is ready has done
//!   nothing (a receive took no message, a send sent none), because a
//!   pending operation is performed only by its own poll, which then
//!   returns ready.
//! - A role is still one sequential actor: a blocking call on a role
//!   whose future is pending fails at once
//!   ([`Error::Session`]`(AsyncPending)`), and a poll while a blocking call
//!   of the role runs on another thread fails with [`Error::Busy`].
//! - A task that awaits a session operation *together with* something
//!   else (a timer, a socket, in one `select!`) counts as waiting on the
//!   session alone: a deadlock may then be declared that the other branch
//!   would have ended.
//!
//! # Under `prust::explore`
//!
//! `send_async` and `recv_async` run in roles spawned with
//! `Roles::spawn_async` (the explorer's own executor: each is a
//! scheduling point, a `select!` over several receives one choice); in a
//! thread role (`Roles::spawn`) they fail at once with
//! [`Error::Session`]`(Unsupported)`.
//! `try_recv` and `recv_timeout` fail with
//! [`Error::Session`]`(Unsupported)` there: whether a message has arrived
//! yet is the explorer's choice, not something to poll.

mod endpoint_lock;
mod ends;
mod error;
mod pending;
mod raw;
mod receiver;
mod select;
mod sender;
mod session_ends;
mod spare;

pub use ends::Ends;
pub use error::{Error, RecvError, RecvTimeoutError, SendError, TryRecvError};
pub use receiver::{Iter, Receiver};
pub use sender::Sender;
pub use session_ends::SessionEnds;

#[doc(hidden)]
pub use receiver::__finish;
#[doc(hidden)]
pub use select::__select;
