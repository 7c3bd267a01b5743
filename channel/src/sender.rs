//! [`Sender`]: the sending half of one channel of a role, for one type.

use std::fmt;
use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use engine::{Message, MessageType, Payload, RoleId};

use protocols::session::{AsyncOp, Done};

use crate::ends::{message_type, payload_of, Shared};
use crate::pending::OpFuture;
use crate::{Error, SendError};

/// Sends messages of type `T` from this role to one peer. Made by
/// [`Ends::sender`](crate::Ends::sender); clones send on the same channel.
///
/// **Dropping the last sender of a channel** (the last `Sender` of any type
/// from this role to that peer) closes the channel, as dropping the last
/// `std::sync::mpsc::Sender` disconnects, if the protocol has a close on
/// that channel anywhere (per the object's
/// [`may_close`](engine::Protocol::may_close)) and the channel is not
/// closed yet. Where the specification has no close on the channel, or
/// the object does not say, a drop does nothing. The close is an ordinary
/// blocking close: if the protocol does not allow it at that point, the
/// role waits there (and a deadlock is reported if it never can) — close
/// explicitly with [`close`](Sender::close), or keep a sender alive, where
/// the specification closes the channel on some paths only. A sender
/// dropped while its thread panics does not close anything. Keep one
/// sender for the whole conversation: a sender made and dropped per
/// message closes the channel after the first one where the protocol
/// allows a close there.
///
/// ```
/// use channel::{Ends, RecvError};
/// use protocols::session::Session;
/// use protocols::spec::{close, msg, seq, Spec};
/// #[derive(Clone, Debug, PartialEq)]
/// struct Job(u32);
///
/// let spec = Spec::new("jobs", seq([msg("Job", "boss", "hand").star(), close("boss", "hand")]));
/// let object = protocols::Strict::from_spec(&spec).unwrap();
/// let [boss, hand] = Session::new(object).into_endpoints().try_into().unwrap();
/// let (boss, hand) = (Ends::new(boss), Ends::new(hand));
/// let t = std::thread::spawn(move || hand.receiver::<Job>("boss").unwrap().iter().count());
/// let jobs = boss.sender::<Job>("hand").unwrap();
/// for i in 0..3 {
///     jobs.send(Job(i)).unwrap();
/// }
/// drop(jobs); // the last sender: closes boss → hand, as the protocol says
/// assert_eq!(t.join().unwrap(), 3);
/// ```
pub struct Sender<T> {
    shared: Arc<Shared>,
    to: RoleId,
    /// The protocol type of every `T` where it does not depend on the
    /// value (`T` is no message enum of several variants, nor `Message`):
    /// found once here, not per message (`Message::new` looks the type up
    /// by name each time).
    ty: Option<MessageType>,
    _type: PhantomData<fn(T) -> T>,
}

impl<T> Sender<T> {
    fn with_type(shared: Arc<Shared>, to: RoleId, ty: Option<MessageType>) -> Sender<T> {
        shared.add_sender(to);
        Sender {
            shared,
            to,
            ty,
            _type: PhantomData,
        }
    }

    /// The peer this sender sends to.
    ///
    /// ```
    /// # use protocols::session::Session;
    /// # use protocols::spec::{msg, Spec};
    /// #[derive(Clone, Debug)]
    /// struct Ping;
    /// let object = protocols::Strict::from_spec(&Spec::new("ping", msg("Ping", "a", "b"))).unwrap();
    /// let a = channel::Ends::new(Session::new(object).endpoint("a").unwrap());
    /// let s = a.sender::<Ping>("b").unwrap();
    /// assert_eq!(s.to(), 1);
    /// assert_eq!(format!("{s:?}"), r#"Sender<Ping> { role: "a", to: "b" }"#);
    /// ```
    pub fn to(&self) -> RoleId {
        self.to
    }
}

impl<T: Payload> Sender<T> {
    pub(crate) fn new(shared: Arc<Shared>, to: RoleId) -> Sender<T> {
        let ty = match MessageType::types_of::<T>() {
            Some(types) if types.len() == 1 => Some(types[0]),
            _ => None,
        };
        Sender::with_type(shared, to, ty)
    }

    /// `value` as a message: of `Message::new`'s type, without its
    /// per-message lookup where the type is known already.
    #[inline]
    fn message(&self, value: T) -> Message {
        match self.ty {
            // Boxed in the thread's spare block if it fits (see `spare`).
            Some(ty) => Message::with_boxed(ty, crate::spare::boxed(value)),
            None => Message::new(value),
        }
    }

    /// Sends `value`, waiting until the protocol allows it. On failure the
    /// value comes back in the [`SendError`] with the reason: the channel
    /// closed by this role before, a deadlock (a send the protocol never
    /// allows here waits, and is reported as part of one), a failed
    /// session, the endpoint busy on another thread.
    ///
    /// The value handed back is the one given: a send that the protocol
    /// allows at once is not paid for with a clone. (A strict `Session`'s
    /// send that has to wait keeps a clone while it waits, where another
    /// role's step may perform it; an endpoint that cannot give a failed
    /// message back, as under `prust::explore`, sends a clone.)
    ///
    /// ```
    /// # use protocols::session::SplitSession;
    /// # use protocols::spec::{close, msg, seq, Spec};
    /// #[derive(Clone, Debug, PartialEq)]
    /// struct Job(u32);
    /// let spec = Spec::new("jobs", seq([msg("Job", "boss", "hand").star(), close("boss", "hand")]));
    /// // (Liberal: the boss may close before the hand has taken the job.)
    /// let object = protocols::Liberal::new(spec.compile().unwrap());
    /// let boss = channel::Ends::new(SplitSession::new(object).endpoint("boss").unwrap());
    /// let jobs = boss.sender::<Job>("hand").unwrap();
    /// jobs.send(Job(1)).unwrap();
    /// jobs.clone().close().unwrap();
    /// let e = jobs.send(Job(2)).unwrap_err();
    /// assert!(e.error.is_closed());
    /// assert_eq!(e.into_inner(), Job(2));
    /// ```
    pub fn send(&self, value: T) -> Result<(), SendError<T>> {
        let mut ep = match self.shared.endpoint() {
            Ok(ep) => ep,
            Err(error) => return Err(SendError { value, error }),
        };
        match ep.send_back(self.to, self.message(value)) {
            Ok(()) => Ok(()),
            Err((e, msg)) => {
                drop(ep);
                Err(SendError {
                    value: payload_of::<T>(msg).expect("a sender's message holds its value"),
                    error: e.into(),
                })
            }
        }
    }

    /// Sends `value` as [`send`](Self::send) does, as a future: it waits
    /// (pending, with the task's waker registered; no thread blocks) until
    /// the protocol allows the send, in any runtime (tokio, async-std,
    /// smol). While it is pending the role counts as waiting, so a
    /// deadlock makes it ready with the deadlock error, as it does a
    /// blocked `send`.
    ///
    /// **Cancellation.** A send future dropped before it is ready (the
    /// losing branch of a `tokio::select!`) sent nothing: a pending send
    /// is performed only by its own poll, which then returns ready.
    ///
    /// A blocking call on this role while the future is pending fails at
    /// once ([`Error::Session`]`(AsyncPending)`), and a poll while a
    /// blocking call of the role runs on another thread fails with
    /// [`Error::Busy`]: never a hang. Under `prust::explore` it is a
    /// scheduling point in a role spawned with `Roles::spawn_async`, and
    /// fails with [`Error::Session`]`(Unsupported)` in a thread role.
    ///
    /// ```
    /// # use protocols::session::Session;
    /// # use protocols::spec::{msg, seq, Spec};
    /// #[derive(Clone, Debug, PartialEq)]
    /// struct Job(u32);
    /// let spec = Spec::new("jobs", seq([msg("Job", "boss", "hand"), msg("Job", "boss", "hand")]));
    /// let object = protocols::Strict::from_spec(&spec).unwrap();
    /// let [boss, hand] = Session::new(object).into_endpoints().try_into().unwrap();
    /// let (boss, hand) = (channel::Ends::new(boss), channel::Ends::new(hand));
    /// let rt = tokio::runtime::Runtime::new().unwrap();
    /// let taker = rt.spawn(async move {
    ///     let jobs = hand.receiver::<Job>("boss").unwrap();
    ///     (jobs.recv_async().await.unwrap().0, jobs.recv_async().await.unwrap().0)
    /// });
    /// rt.block_on(async {
    ///     let jobs = boss.sender::<Job>("hand").unwrap();
    ///     jobs.send_async(Job(1)).await.unwrap();
    ///     jobs.send_async(Job(2)).await.unwrap();
    /// });
    /// assert_eq!(rt.block_on(taker).unwrap(), (1, 2));
    /// ```
    pub fn send_async(&self, value: T) -> impl Future<Output = Result<(), SendError<T>>> + '_ {
        let keep = dyn_clone::clone(&value);
        SendAsync {
            op: OpFuture::new(&self.shared, AsyncOp::send(self.to, self.message(value))),
            keep: Some(keep),
        }
    }

    /// Closes this role's channel to the peer (for every sender of it),
    /// waiting until the protocol allows it. A close is final: a later
    /// send fails with a closed [`SendError`]; the peer's receivers end
    /// once they have taken what was sent before.
    ///
    /// ```
    /// # use protocols::session::Session;
    /// # use protocols::spec::{close, msg, seq, Spec};
    /// #[derive(Clone, Debug, PartialEq)]
    /// struct Job;
    /// let spec = Spec::new("jobs", seq([msg("Job", "boss", "hand").star(), close("boss", "hand")]));
    /// let object = protocols::Strict::from_spec(&spec).unwrap();
    /// let [boss, hand] = Session::new(object).into_endpoints().try_into().unwrap();
    /// let (boss, hand) = (channel::Ends::new(boss), channel::Ends::new(hand));
    /// boss.sender::<Job>("hand").unwrap().close().unwrap();
    /// assert_eq!(hand.receiver::<Job>("boss").unwrap().recv(), Err(channel::RecvError::Closed));
    /// ```
    pub fn close(self) -> Result<(), Error> {
        self.shared.close(self.to)
    }
}

/// The future of [`Sender::send_async`]: the operation, and the value to
/// hand back if it fails.
struct SendAsync<'a, T> {
    op: OpFuture<'a>,
    keep: Option<T>,
}

// Nothing is pinned through a `SendAsync`: the value is only moved out.
impl<T> Unpin for SendAsync<'_, T> {}

impl<T> Future for SendAsync<'_, T> {
    type Output = Result<(), SendError<T>>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        let keep = &mut this.keep;
        this.op.poll_with(
            cx,
            |done| {
                assert!(matches!(done, Done::Sent), "a send is done sent");
                // A `Sent` holds nothing: forgotten, which spares a call
                // of the result's drop glue per send.
                std::mem::forget(done);
                Ok(())
            },
            |error| {
                Err(SendError {
                    value: keep
                        .take()
                        .expect("a send future is polled after it was ready"),
                    error,
                })
            },
        )
    }
}

impl<T> Clone for Sender<T> {
    fn clone(&self) -> Self {
        Sender::with_type(Arc::clone(&self.shared), self.to, self.ty)
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        self.shared.drop_sender(self.to);
    }
}

impl<T: Payload> fmt::Debug for Sender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct(&format!("Sender<{}>", message_type::<T>().name()))
            .field("role", &self.shared.names[self.shared.role])
            .field("to", &self.shared.names[self.to])
            .finish()
    }
}
