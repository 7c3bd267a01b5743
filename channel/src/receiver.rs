//! [`Receiver`]: the receiving half of one channel of a role, for one type.

use std::fmt;
use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use engine::{Message, Payload, RoleId};
use protocols::session::{Alternative, AsyncOp, Done};

use crate::ends::{message_type, payload_of, Shared};
use crate::pending::OpFuture;
use crate::{Error, RecvError, RecvTimeoutError, TryRecvError};

/// Receives the messages of type `T` that one peer sends to this role.
/// Made by [`Ends::receiver`](crate::Ends::receiver).
///
/// A receiver takes only messages of `T`'s type name (the last segment of
/// its Rust path; for a message enum, any of its variants' names): where
/// the protocol sends several types on the channel, a message of another
/// type at its head is left for a receiver of that type, and this one
/// waits. ([`engine::Message`] takes every type.)
///
/// ```
/// use channel::Ends;
/// use protocols::session::SplitSession;
/// use protocols::spec::{msg, seq, Spec};
/// #[derive(Clone, Debug, PartialEq)]
/// struct Job(u32);
/// #[derive(Clone, Debug, PartialEq)]
/// struct Stop;
///
/// let spec = Spec::new("two", seq([msg("Job", "boss", "hand"), msg("Stop", "boss", "hand")]));
/// let object = protocols::Liberal::new(spec.compile().unwrap());
/// let [boss, hand] = SplitSession::new(object).into_endpoints().try_into().unwrap();
/// let (boss, hand) = (Ends::new(boss), Ends::new(hand));
/// boss.sender::<Job>("hand").unwrap().send(Job(1)).unwrap();
/// boss.sender::<Stop>("hand").unwrap().send(Stop).unwrap();
/// let stops = hand.receiver::<Stop>("boss").unwrap();
/// assert_eq!(stops.try_recv(), Err(channel::TryRecvError::Empty)); // a Job is first
/// assert_eq!(hand.receiver::<Job>("boss").unwrap().recv(), Ok(Job(1)));
/// assert_eq!(stops.recv(), Ok(Stop));
/// ```
pub struct Receiver<T> {
    shared: Arc<Shared>,
    from: RoleId,
    /// The alternatives of a receive that must look at the type first,
    /// one per type of `T` the channel carries (a message enum has
    /// several); `None` where the channel carries only `T`'s types (or `T`
    /// is `Message`), so that a plain receive from the peer is the same
    /// and cheaper.
    typed: Option<Box<[Alternative]>>,
    _type: PhantomData<fn() -> T>,
}

impl<T: Payload> Receiver<T> {
    pub(crate) fn new(
        shared: Arc<Shared>,
        from: RoleId,
        typed: Option<Vec<String>>,
    ) -> Receiver<T> {
        let typed = typed.map(|names| {
            names
                .iter()
                .map(|t| shared.alternative(from, Some(t)))
                .collect()
        });
        Receiver {
            shared,
            from,
            typed,
            _type: PhantomData,
        }
    }

    /// Receives the next `T` from the peer, waiting until the protocol
    /// allows it. Fails with [`RecvError::Closed`] once the peer has closed
    /// its channel to this role and everything it sent is received; with
    /// [`RecvError::Failed`] on a deadlock (which says who waits for what)
    /// or another failure.
    ///
    /// ```
    /// # use protocols::session::Session;
    /// # use protocols::spec::{msg, Spec};
    /// #[derive(Clone, Debug)]
    /// struct Ping;
    /// let object = protocols::Strict::from_spec(&Spec::new("ping", msg("Ping", "a", "b"))).unwrap();
    /// let [a, b] = Session::new(object).into_endpoints().try_into().unwrap();
    /// drop(a); // a leaves without sending
    /// let b = channel::Ends::new(b);
    /// let e = b.receiver::<Ping>("a").unwrap().recv().unwrap_err();
    /// assert!(e.deadlock().is_some(), "{e}");
    /// ```
    pub fn recv(&self) -> Result<T, RecvError> {
        let mut ep = self.shared.endpoint().map_err(RecvError::Failed)?;
        let msg = match &self.typed {
            None => ep.recv_from(self.from),
            Some(alts) => ep.select(alts).map(|(_, m)| m),
        };
        drop(ep);
        self.payload(msg.map_err(Error::from).map_err(RecvError::of)?)
            .map_err(RecvError::Failed)
    }

    /// Receives the next `T` as [`recv`](Self::recv) does, as a future: it
    /// waits (pending, with the task's waker registered; no thread blocks)
    /// until the protocol allows the receive, in any runtime (tokio,
    /// async-std, smol). While it is pending the role counts as waiting,
    /// so a deadlock makes it ready with the deadlock error, as it does a
    /// blocked `recv`. One task may await several receives of its role at
    /// once (`tokio::select!`); the role waits until one can go on.
    ///
    /// **Cancellation.** A receive future dropped before it is ready (the
    /// losing branch of a `tokio::select!`) took nothing: a pending
    /// receive is performed only by its own poll, which then returns
    /// ready, so the message stays for the next receive.
    ///
    /// A blocking call on this role while the future is pending fails at
    /// once ([`Error::Session`]`(AsyncPending)`), and a poll while a
    /// blocking call of the role runs on another thread fails with
    /// [`Error::Busy`]: never a hang. Under `prust::explore` it is a
    /// scheduling point in a role spawned with `Roles::spawn_async`, and
    /// fails with [`Error::Session`]`(Unsupported)` in a thread role.
    ///
    /// ```
    /// # use protocols::session::SplitSession;
    /// # use protocols::spec::{msg, par, Spec};
    /// #[derive(Clone, Debug, PartialEq)]
    /// struct Job(u32);
    /// #[derive(Clone, Debug, PartialEq)]
    /// struct Stop;
    /// let spec = Spec::new("two", par([msg("Job", "boss", "hand"), msg("Stop", "clock", "hand")]));
    /// let object = protocols::Liberal::new(spec.compile().unwrap());
    /// let [boss, hand, clock] = SplitSession::new(object).into_endpoints().try_into().unwrap();
    /// let (boss, hand, clock) = (channel::Ends::new(boss), channel::Ends::new(hand), channel::Ends::new(clock));
    /// let rt = tokio::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let (jobs, stop) = (hand.receiver::<Job>("boss").unwrap(), hand.receiver::<Stop>("clock").unwrap());
    ///     clock.sender::<Stop>("hand").unwrap().send_async(Stop).await.unwrap();
    ///     tokio::select! {
    ///         job = jobs.recv_async() => panic!("no job was sent: {job:?}"),
    ///         stop = stop.recv_async() => assert_eq!(stop, Ok(Stop)),
    ///     }
    ///     // The losing receive took nothing: the job sent now is received.
    ///     boss.sender::<Job>("hand").unwrap().send_async(Job(7)).await.unwrap();
    ///     assert_eq!(jobs.recv_async().await, Ok(Job(7)));
    /// });
    /// ```
    pub fn recv_async(&self) -> impl Future<Output = Result<T, RecvError>> + '_ {
        let op = match &self.typed {
            None => AsyncOp::recv_from(self.from),
            Some(alt) => AsyncOp::select(alt),
        };
        RecvAsync {
            op: OpFuture::new(&self.shared, op),
            receiver: self,
        }
    }

    /// Receives the next `T` if the protocol allows it now, without
    /// waiting: [`TryRecvError::Empty`] if not. Not available under
    /// `prust::explore` ([`TryRecvError::Failed`]): there, whether a
    /// message is there yet is the scheduler's choice.
    ///
    /// ```
    /// # use protocols::session::Session;
    /// # use protocols::spec::{msg, Spec};
    /// #[derive(Clone, Debug, PartialEq)]
    /// struct Ping;
    /// let object = protocols::Strict::from_spec(&Spec::new("ping", msg("Ping", "a", "b"))).unwrap();
    /// let [a, b] = Session::new(object).into_endpoints().try_into().unwrap();
    /// let (a, b) = (channel::Ends::new(a), channel::Ends::new(b));
    /// let pings = b.receiver::<Ping>("a").unwrap();
    /// assert_eq!(pings.try_recv(), Err(channel::TryRecvError::Empty));
    /// a.sender::<Ping>("b").unwrap().send(Ping).unwrap();
    /// assert_eq!(pings.try_recv(), Ok(Ping));
    /// ```
    pub fn try_recv(&self) -> Result<T, TryRecvError> {
        let alt;
        let alts = match &self.typed {
            Some(a) => &a[..],
            None => {
                alt = [self.shared.alternative(self.from, None)];
                &alt[..]
            }
        };
        let got = self
            .shared
            .endpoint()
            .map_err(TryRecvError::Failed)?
            .try_select(alts);
        match got {
            Ok(Some((_, msg))) => self.payload(msg).map_err(TryRecvError::Failed),
            Ok(None) => Err(TryRecvError::Empty),
            Err(e) => Err(match RecvError::of(e.into()) {
                RecvError::Closed => TryRecvError::Closed,
                RecvError::Failed(e) => TryRecvError::Failed(e),
            }),
        }
    }

    /// Receives the next `T`, waiting at most `timeout`. It polls (with
    /// [`try_recv`](Self::try_recv), sleeping a little longer each time, up
    /// to a millisecond): a timed wait is not a blocked role, so the
    /// session's deadlock detection counts this role as running meanwhile,
    /// and a deadlock that involves it shows as [`RecvTimeoutError::Timeout`]
    /// here. Not available under `prust::explore`.
    ///
    /// ```
    /// # use std::time::Duration;
    /// # use protocols::session::Session;
    /// # use protocols::spec::{msg, Spec};
    /// #[derive(Clone, Debug)]
    /// struct Ping;
    /// let object = protocols::Strict::from_spec(&Spec::new("ping", msg("Ping", "a", "b"))).unwrap();
    /// let [_a, b] = Session::new(object).into_endpoints().try_into().unwrap();
    /// let pings = channel::Ends::new(b).receiver::<Ping>("a").unwrap();
    /// let e = pings.recv_timeout(Duration::from_millis(1)).unwrap_err();
    /// assert_eq!(e, channel::RecvTimeoutError::Timeout);
    /// ```
    pub fn recv_timeout(&self, timeout: Duration) -> Result<T, RecvTimeoutError> {
        let deadline = Instant::now().checked_add(timeout);
        let mut nap = Duration::from_micros(10);
        loop {
            match self.try_recv() {
                Ok(v) => return Ok(v),
                Err(TryRecvError::Closed) => return Err(RecvTimeoutError::Closed),
                Err(TryRecvError::Failed(e)) => return Err(RecvTimeoutError::Failed(e)),
                Err(TryRecvError::Empty) => {}
            }
            let now = Instant::now();
            let left = match deadline {
                Some(d) if d <= now => return Err(RecvTimeoutError::Timeout),
                Some(d) => d - now,
                None => nap,
            };
            std::thread::sleep(nap.min(left));
            nap = (nap * 2).min(Duration::from_millis(1));
        }
    }

    /// The messages, each received as [`recv`](Self::recv) does, until the
    /// peer has closed its channel and everything it sent is received
    /// (std's `iter`, which ends at the disconnect). It also ends at any
    /// other failure: to tell a close from a deadlock, loop over `recv`.
    ///
    /// ```
    /// # use protocols::session::SplitSession;
    /// # use protocols::spec::{close, msg, seq, Spec};
    /// #[derive(Clone, Debug)]
    /// struct Job(u32);
    /// let spec = Spec::new("jobs", seq([msg("Job", "boss", "hand").star(), close("boss", "hand")]));
    /// // (Liberal: the jobs wait in the hand's inbox; one thread plays both roles.)
    /// let object = protocols::Liberal::new(spec.compile().unwrap());
    /// let [boss, hand] = SplitSession::new(object).into_endpoints().try_into().unwrap();
    /// let (boss, hand) = (channel::Ends::new(boss), channel::Ends::new(hand));
    /// let jobs = boss.sender::<Job>("hand").unwrap();
    /// (1..=3).for_each(|i| jobs.send(Job(i)).unwrap());
    /// jobs.close().unwrap();
    /// let total: u32 = hand.receiver::<Job>("boss").unwrap().iter().map(|j| j.0).sum();
    /// assert_eq!(total, 6);
    /// ```
    pub fn iter(&self) -> Iter<'_, T> {
        Iter { receiver: self }
    }

    /// The message as a `T` (it has `T`'s type name, but the payload could
    /// be another Rust type of that name).
    #[inline]
    fn payload(&self, msg: Message) -> Result<T, Error> {
        payload_of::<T>(msg).map_err(|m| Error::Payload {
            role: self.shared.names[self.shared.role].clone(),
            type_name: m.type_name().to_string(),
            expected: std::any::type_name::<T>(),
        })
    }
}

impl<T> Receiver<T> {
    /// The peer this receiver takes from.
    ///
    /// ```
    /// # use protocols::session::Session;
    /// # use protocols::spec::{msg, Spec};
    /// #[derive(Clone, Debug)]
    /// struct Ping;
    /// let object = protocols::Strict::from_spec(&Spec::new("ping", msg("Ping", "a", "b"))).unwrap();
    /// let b = channel::Ends::new(Session::new(object).endpoint("b").unwrap());
    /// let r = b.receiver::<Ping>("a").unwrap();
    /// assert_eq!(r.from(), 0);
    /// assert_eq!(format!("{r:?}"), r#"Receiver<Ping> { role: "b", from: "a" }"#);
    /// ```
    pub fn from(&self) -> RoleId {
        self.from
    }

    /// For `select!`: the endpoint, and the alternatives that receive what
    /// this receiver takes.
    #[doc(hidden)]
    pub fn __select_parts(&self) -> (&Arc<Shared>, Vec<Alternative>) {
        let alts = match &self.typed {
            Some(alts) => alts.to_vec(),
            None => vec![Alternative::sender(self.from)],
        };
        (&self.shared, alts)
    }
}

impl<T: Payload> fmt::Debug for Receiver<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct(&format!("Receiver<{}>", message_type::<T>().name()))
            .field("role", &self.shared.names[self.shared.role])
            .field("from", &self.shared.names[self.from])
            .finish()
    }
}

/// The future of [`Receiver::recv_async`]: the operation, and the typed
/// value made from its message in the poll that completes it.
struct RecvAsync<'a, T> {
    op: OpFuture<'a>,
    receiver: &'a Receiver<T>,
}

impl<T: Payload> Future for RecvAsync<'_, T> {
    type Output = Result<T, RecvError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        let receiver = this.receiver;
        this.op.poll_with(
            cx,
            |done| match done {
                Done::Received(_, msg) | Done::Selected(_, msg) => {
                    receiver.payload(msg).map_err(RecvError::Failed)
                }
                Done::Sent | Done::Closed => unreachable!("a receive gives a message"),
            },
            |e| Err(RecvError::of(e)),
        )
    }
}

/// The iterator of [`Receiver::iter`].
pub struct Iter<'a, T> {
    receiver: &'a Receiver<T>,
}

impl<T: Payload> Iterator for Iter<'_, T> {
    type Item = T;
    fn next(&mut self) -> Option<T> {
        self.receiver.recv().ok()
    }
}

impl<T: Payload> fmt::Debug for Iter<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Iter").field(self.receiver).finish()
    }
}

/// Turns a select's message into a `T` for `select!`'s arm.
#[doc(hidden)]
pub fn __finish<T: Payload>(
    receiver: &Receiver<T>,
    got: Result<Message, RecvError>,
) -> Result<T, RecvError> {
    receiver.payload(got?).map_err(RecvError::Failed)
}
