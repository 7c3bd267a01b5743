//! [`Ends`]: one role's typed ends, and the state they share (the erased
//! endpoint, and per outgoing channel how many senders are alive).

use std::collections::HashMap;
use std::fmt;
use std::marker::PhantomData;
use std::sync::{Arc, Mutex, MutexGuard};

use engine::{MessageType, Payload, RoleId};
use protocols::session::{self, Alternative, BlockingEndpoint, Refusal, ToRole};

use crate::endpoint_lock::{EndpointLock, Held};
use crate::{Error, Receiver, Sender};

/// The typed ends of one role: makes [`Sender`]s and [`Receiver`]s on
/// the role's endpoint. Cheap to clone; every clone, and every end made
/// from it, shares the one endpoint, which is dropped (the role is then
/// finished, as far as the session is concerned) with the last of them.
///
/// ```
/// use channel::Ends;
/// use protocols::session::Session;
/// use protocols::spec::{msg, Spec};
/// #[derive(Clone, Debug, PartialEq)]
/// struct Ping(u32);
///
/// let object = protocols::Strict::from_spec(&Spec::new("ping", msg("Ping", "a", "b"))).unwrap();
/// let [a, b] = Session::new(object).into_endpoints().try_into().unwrap();
/// let (a, b) = (Ends::new(a), Ends::new(b));
/// a.sender::<Ping>("b").unwrap().send(Ping(7)).unwrap();
/// assert_eq!(b.receiver::<Ping>("a").unwrap().recv(), Ok(Ping(7)));
/// assert_eq!(format!("{a:?}"), r#"Ends { role: "a" }"#);
/// ```
pub struct Ends<E> {
    pub(crate) shared: Arc<Shared>,
    _endpoint: PhantomData<fn() -> E>,
}

/// What the ends of one role share.
pub struct Shared {
    pub(crate) role: RoleId,
    pub(crate) names: Vec<String>,
    endpoint: EndpointLock,
    /// Per peer this role sends to: the senders alive, and whether the
    /// channel is done (closed through a sender, or by the last sender's
    /// drop): a drop then closes nothing more.
    out: Mutex<HashMap<RoleId, Out>>,
}

#[derive(Default)]
struct Out {
    senders: usize,
    done: bool,
    /// Whether the protocol ever closes the channel (asked when the first
    /// sender is made, so that a drop needs the endpoint only to close).
    may_close: Option<bool>,
}

impl<E> Clone for Ends<E> {
    fn clone(&self) -> Self {
        Ends {
            shared: Arc::clone(&self.shared),
            _endpoint: PhantomData,
        }
    }
}

impl<E: BlockingEndpoint + 'static> Ends<E> {
    /// The typed ends of `endpoint`'s role; they own the endpoint.
    ///
    /// ```
    /// # use protocols::session::SplitSession;
    /// # use protocols::spec::{msg, Spec};
    /// let lts = Spec::new("ping", msg("Ping", "a", "b")).compile().unwrap();
    /// let session = SplitSession::new(protocols::Liberal::new(lts));
    /// let a = channel::Ends::new(session.endpoint("a").unwrap());
    /// assert_eq!(a.name(), "a");
    /// ```
    pub fn new(endpoint: E) -> Ends<E> {
        let shared = Shared {
            role: endpoint.role(),
            names: endpoint.roles().to_vec(),
            endpoint: EndpointLock::new(Box::new(endpoint)),
            out: Mutex::new(HashMap::new()),
        };
        Ends {
            shared: Arc::new(shared),
            _endpoint: PhantomData,
        }
    }
}

impl<E> Ends<E> {
    /// A sender of `T` to `to`: each [`send`](Sender::send) sends one
    /// message of type `T`'s name (the last segment of its Rust path, as
    /// [`engine::Message::new`] names it; for a message enum, the value's
    /// variant; [`engine::Message`] itself sends messages as they are).
    /// Fails if `to` is no role, or the protocol never sends that type
    /// (any of the enum's) from this role to `to` (where the object says
    /// what its channels carry; the strict and liberal objects do).
    ///
    /// ```
    /// # use protocols::session::Session;
    /// # use protocols::spec::{msg, Spec};
    /// #[derive(Clone, Debug)]
    /// struct Pong;
    /// let object = protocols::Strict::from_spec(&Spec::new("ping", msg("Ping", "a", "b"))).unwrap();
    /// let a = channel::Ends::new(Session::new(object).endpoint("a").unwrap());
    /// let e = a.sender::<Pong>("b").unwrap_err();
    /// assert_eq!(e.to_string(), "the protocol never sends <Pong> from a to b; did you mean <Ping>? it sends: Ping");
    /// ```
    pub fn sender<T: Payload>(&self, to: impl ToRole) -> Result<Sender<T>, Error> {
        let to = self.shared.peer(to, "send to")?;
        self.shared.check_type::<T>(self.shared.role, to)?;
        self.shared.learn_close(to)?;
        Ok(Sender::new(Arc::clone(&self.shared), to))
    }

    /// A receiver of `T` from `from`: it takes exactly the messages of
    /// `T`'s type name (of its variants', for a message enum) that `from`
    /// sends to this role; a message of another type at the head of that
    /// channel is left for another receiver. Fails if `from` is no role, or the protocol never sends
    /// that type from `from` to this role (with the closest type it does
    /// send). [`engine::Message`] receives every type.
    ///
    /// ```
    /// # use protocols::session::Session;
    /// # use protocols::spec::{msg, Spec};
    /// #[derive(Clone, Debug)]
    /// struct Ping;
    /// let object = protocols::Strict::from_spec(&Spec::new("ping", msg("Ping", "a", "b"))).unwrap();
    /// let b = channel::Ends::new(Session::new(object).endpoint("b").unwrap());
    /// assert!(b.receiver::<Ping>("a").is_ok());
    /// let e = b.receiver::<Ping>("carol").unwrap_err();
    /// assert_eq!(e.to_string(), "unknown role `carol`; the protocol has: a, b");
    /// ```
    pub fn receiver<T: Payload>(&self, from: impl ToRole) -> Result<Receiver<T>, Error> {
        let from = self.shared.peer(from, "receive from")?;
        let typed = self.shared.check_type::<T>(from, self.shared.role)?;
        Ok(Receiver::new(Arc::clone(&self.shared), from, typed))
    }

    /// This role.
    pub fn role(&self) -> RoleId {
        self.shared.role
    }

    /// This role's name.
    ///
    /// ```
    /// # use protocols::session::Session;
    /// # use protocols::spec::{msg, Spec};
    /// let object = protocols::Strict::from_spec(&Spec::new("ping", msg("Ping", "a", "b"))).unwrap();
    /// let b = channel::Ends::new(Session::new(object).endpoint("b").unwrap());
    /// assert_eq!((b.role(), b.name()), (1, "b"));
    /// ```
    pub fn name(&self) -> &str {
        &self.shared.names[self.shared.role]
    }

    /// The session's role names, indexed by [`RoleId`].
    pub fn roles(&self) -> &[String] {
        &self.shared.names
    }

    /// The name of role `role`; `None` for an index the session does not
    /// have.
    ///
    /// ```
    /// # use protocols::session::Session;
    /// # use protocols::spec::{msg, Spec};
    /// let object = protocols::Strict::from_spec(&Spec::new("ping", msg("Ping", "a", "b"))).unwrap();
    /// let b = channel::Ends::new(Session::new(object).endpoint("b").unwrap());
    /// assert_eq!((b.role_name(0), b.role_name(5)), (Some("a"), None));
    /// ```
    pub fn role_name(&self, role: RoleId) -> Option<&str> {
        self.shared.names.get(role).map(String::as_str)
    }

    /// Resolves a role name (with a did-you-mean if there is no such role).
    ///
    /// ```
    /// # use protocols::session::Session;
    /// # use protocols::spec::{msg, Spec};
    /// let object = protocols::Strict::from_spec(&Spec::new("ping", msg("Ping", "boss", "hand"))).unwrap();
    /// let b = channel::Ends::new(Session::new(object).endpoint("hand").unwrap());
    /// assert_eq!(b.peer("boss").unwrap(), 0);
    /// assert!(b.peer("bos").unwrap_err().to_string().contains("did you mean `boss`?"));
    /// ```
    pub fn peer(&self, role: impl ToRole) -> Result<RoleId, Error> {
        self.shared.resolve(role)
    }
}

impl<E> fmt::Debug for Ends<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Ends").field("role", &self.name()).finish()
    }
}

/// `T`'s Rust path without generic arguments, interned, for the `Debug`
/// of an end (`Sender<Cmd>`; a message's own type is
/// [`MessageType::of_value`]'s).
pub(crate) fn message_type<T: Payload>() -> MessageType {
    let full = std::any::type_name::<T>();
    MessageType::of(full.split('<').next().unwrap_or(full))
}

/// Whether `T` is [`engine::Message`]: ends of it carry any type.
pub(crate) fn is_message<T: 'static>() -> bool {
    std::any::TypeId::of::<T>() == std::any::TypeId::of::<engine::Message>()
}

/// The `T` in `msg` (`msg` itself where `T` is [`engine::Message`]); the
/// message back if its payload is another type.
#[inline]
pub(crate) fn payload_of<T: Payload>(msg: engine::Message) -> Result<T, engine::Message> {
    if is_message::<T>() {
        // Out of an `Option` seen as `Any`: no box to allocate.
        let mut msg = Some(msg);
        let any: &mut dyn std::any::Any = &mut msg;
        let t = any.downcast_mut::<Option<T>>().expect("T is Message");
        return Ok(t.take().expect("just put in"));
    }
    // The box's block kept for the thread's next message (see `spare`);
    // a `()`, not boxed, or another type, as before.
    match msg.downcast_box::<T>() {
        Ok(b) => Ok(crate::spare::unbox(b)),
        Err(msg) => msg.downcast::<T>(),
    }
}

impl Shared {
    /// The endpoint, for one operation; [`Error::Busy`] if another thread
    /// is in an operation on it, and the session's error (as the operation
    /// itself would fail) if the role has async operations registered or
    /// panicked.
    #[inline]
    pub(crate) fn endpoint(&self) -> Result<Held<'_>, Error> {
        self.endpoint.try_take(false).map_err(|r| self.refused(r))
    }

    /// Why the endpoint could not be taken, as an error.
    #[cold]
    fn refused(&self, why: Refusal) -> Error {
        let role = self.names[self.role].clone();
        match why {
            Refusal::Busy | Refusal::Polling => Error::Busy { role },
            Refusal::AsyncPending => Error::Session(session::Error::AsyncPending(role)),
            Refusal::Panicked => Error::Session(session::Error::RolePanicked(role)),
        }
    }

    /// The endpoint, to look at what the protocol says (a channel's types,
    /// whether it closes): as for a poll, so that a look is not refused
    /// while futures of the role are registered.
    fn endpoint_to_look(&self) -> Result<Held<'_>, Error> {
        self.endpoint_for_poll()
    }

    /// The endpoint, for one poll of an async operation: waits for another
    /// poll to end (a poll is one try), but not for a blocking operation
    /// on another thread ([`Error::Busy`]: a task must not wait unseen).
    #[inline]
    pub(crate) fn endpoint_for_poll(&self) -> Result<Held<'_>, Error> {
        loop {
            match self.endpoint.try_take(true) {
                Ok(held) => return Ok(held),
                Err(Refusal::Polling) => std::thread::yield_now(),
                Err(why) => return Err(self.refused(why)),
            }
        }
    }

    /// The endpoint, waiting for another thread's operation to end (only
    /// for a dropped sender's close, which cannot report `Busy`); the
    /// session's error where waiting would not help (futures of the role
    /// registered, the role panicked).
    fn endpoint_blocking(&self) -> Result<Held<'_>, Error> {
        self.endpoint.take(false).map_err(|r| self.refused(r))
    }

    /// The endpoint, waiting for another holder: to give up a dropped
    /// future's registration (a blocking operation on a role with a
    /// registration fails at once, so the wait is short).
    pub(crate) fn endpoint_waiting(&self) -> Result<Held<'_>, Error> {
        self.endpoint.take(true).map_err(|r| self.refused(r))
    }

    pub(crate) fn resolve(&self, role: impl ToRole) -> Result<RoleId, Error> {
        role.to_role(&self.names).map_err(|e| match e {
            session::Error::UnknownRole { name, known } => Error::UnknownRole {
                hint: engine::names::closest(&name, known.iter().map(String::as_str))
                    .map(str::to_string),
                name,
                known,
            },
            e => Error::Session(e),
        })
    }

    fn peer(&self, role: impl ToRole, what: &'static str) -> Result<RoleId, Error> {
        let id = self.resolve(role)?;
        Ok(id.to_peer(self.role, &self.names, what)?)
    }

    /// Checks that the protocol sends `T` (one of its types, for a message
    /// enum) from `from` to `to`, where the object says. The answer is how
    /// a receiver of `T` receives: `None` by a plain receive from the peer
    /// (the channel carries nothing but `T`'s types, or `T` is `Message`),
    /// `Some(names)` by a select over these type names, so that a message
    /// of another type is left where it is.
    fn check_type<T: Payload>(
        &self,
        from: RoleId,
        to: RoleId,
    ) -> Result<Option<Vec<String>>, Error> {
        let carried = self.endpoint_to_look()?.channel_types(from, to);
        let Some(types) = MessageType::types_of::<T>() else {
            // An untyped end: of a channel that carries anything, or only
            // closes (its sender can close it, its receiver see the close).
            let Some(carried) = carried else {
                return Ok(None);
            };
            let closes = || {
                self.endpoint_to_look()
                    .map(|ep| ep.may_close(from, to) == Some(true))
            };
            if !carried.is_empty() || closes()? {
                return Ok(None);
            }
            return Err(self.not_on_channel("any", &["Message"], from, to, carried));
        };
        let names: Vec<&str> = types.iter().map(|t| t.name()).collect();
        let Some(carried) = carried else {
            return Ok(Some(names.iter().map(|n| n.to_string()).collect()));
        };
        let taken: Vec<String> = names
            .iter()
            .filter(|n| carried.iter().any(|c| c == *n))
            .map(|n| n.to_string())
            .collect();
        if taken.is_empty() {
            return Err(self.not_on_channel(&names.join("|"), &names, from, to, carried));
        }
        Ok((!carried.iter().all(|c| taken.contains(c))).then_some(taken))
    }

    fn not_on_channel(
        &self,
        type_name: &str,
        names: &[&str],
        from: RoleId,
        to: RoleId,
        carried: Vec<String>,
    ) -> Error {
        Error::NotOnChannel {
            type_name: type_name.to_string(),
            from: self.names[from].clone(),
            to: self.names[to].clone(),
            hint: names
                .iter()
                .find_map(|n| engine::names::closest(n, carried.iter().map(String::as_str)))
                .map(str::to_string),
            carried,
        }
    }

    /// Asks once whether the protocol ever closes the channel to `to`.
    fn learn_close(&self, to: RoleId) -> Result<(), Error> {
        if lock(&self.out)
            .get(&to)
            .is_some_and(|o| o.may_close.is_some())
        {
            return Ok(());
        }
        let may = self
            .endpoint_to_look()?
            .may_close(self.role, to)
            .unwrap_or(false);
        lock(&self.out).entry(to).or_default().may_close = Some(may);
        Ok(())
    }

    pub(crate) fn add_sender(&self, to: RoleId) {
        lock(&self.out).entry(to).or_default().senders += 1;
    }

    /// The last sender to `to` is gone: closes the channel if the protocol
    /// ever closes it and it is not closed yet (see the crate docs).
    pub(crate) fn drop_sender(&self, to: RoleId) {
        let close = {
            let mut out = lock(&self.out);
            let o = out.entry(to).or_default();
            o.senders -= 1;
            let last = o.senders == 0 && !o.done && o.may_close == Some(true);
            if last {
                o.done = true;
            }
            last
        };
        if close && !std::thread::panicking() {
            // A failure (a deadlock, a poisoned session) is the session's
            // to report: every other role's next operation gets it.
            if let Ok(mut ep) = self.endpoint_blocking() {
                let _ = ep.close(to);
            }
        }
    }

    /// An explicit close through a sender.
    pub(crate) fn close(&self, to: RoleId) -> Result<(), Error> {
        // Done even if the close fails: the closing sender's drop must not
        // try again (and wait) behind the error.
        lock(&self.out).entry(to).or_default().done = true;
        self.endpoint()?.close(to)?;
        Ok(())
    }

    pub(crate) fn alternative(&self, from: RoleId, ty: Option<&str>) -> Alternative {
        let a = Alternative::sender(from);
        match ty {
            Some(t) => a.of_type(t),
            None => a,
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}
