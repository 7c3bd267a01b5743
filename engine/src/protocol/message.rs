//! Messages: a boxed payload that knows its (interned) type, and the
//! dummies a check sends.

use std::any::Any;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use dyn_clone::DynClone;

use super::message_type::MessageType;
use super::origin;

/// What a message payload must be: clonable (the engine clones dummies),
/// sendable between threads, printable in traces.
pub trait Payload: DynClone + Any + Send + fmt::Debug {
    /// The payload as `Any`, for downcasting.
    fn as_any(&self) -> &dyn Any;
    /// The boxed payload as `Any`, for downcasting by value.
    fn into_any(self: Box<Self>) -> Box<dyn Any>;
}

impl<T: Clone + Any + Send + fmt::Debug> Payload for T {
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn into_any(self: Box<Self>) -> Box<dyn Any> {
        self
    }
}

dyn_clone::clone_trait_object!(Payload);

/// A message: a boxed payload that knows the name of its type.
///
/// The type name defaults to the Rust type's path (`chess::Move`); its last
/// segment is the short name used in formulas (`<Move>`). Set it explicitly
/// with [`Message::named`] (a `bool` dummy called `Boolean`).
///
/// Messages compare and hash by **type path only**: a protocol's state
/// depends on which types are in transit, not on payload values. (A
/// recording window of [`origin`](crate::origin) may also compare where
/// payloads came from, for the checker's own compares:
/// [`Origins::strictly`](crate::origin::Origins::strictly).)
///
/// The type path is interned ([`MessageType`]): a message is a pointer to
/// its type plus its boxed payload (24 bytes), equality is a pointer
/// compare and the hash a number computed once per type. Cloning a message
/// whose payload has no data (`()`, a unit struct: every dummy the engine
/// makes) allocates nothing, and a `()` payload is not boxed at all: such
/// a message is cloned and dropped without a call through the payload's
/// vtable. A payload with data is cloned with it (a payload need only be
/// `Send`, not `Sync`, so clones that may go to other threads cannot
/// share it).
///
/// ```
/// use engine::Message;
/// #[derive(Clone, Debug)]
/// struct Move;
/// let m = Message::new(Move);
/// assert_eq!(m.type_name(), "Move");
/// let b = Message::named("Boolean", true);
/// assert_eq!(b.type_name(), "Boolean");
/// assert_eq!(b.downcast_ref::<bool>(), Some(&true));
/// ```
pub struct Message {
    ty: MessageType,
    /// The payload; `None` for `()` (see [`Message::payload`]). Why: a
    /// search clones and drops the messages in transit with every
    /// successor it makes, and a boxed payload's clone and drop are calls
    /// through its vtable, even for a payload with no data; `None` is
    /// cloned and dropped by copying and forgetting a word. Every dummy
    /// the engine makes, and every message an object rebuilds from its type
    /// ([`Message::with_type`]`(ty, ())`), is one. (`None` takes the box's
    /// null niche, so a message stays 24 bytes.)
    payload: Option<Box<dyn Payload>>,
}

impl Message {
    /// A message whose type name is the Rust type's path, without generic
    /// arguments (`alloc::vec::Vec<u8>` is `alloc::vec::Vec`, short name `Vec`),
    /// or for a value of a [`MessageEnum`](crate::MessageEnum) its variant's
    /// (`app::Cmd::Job`, short name `Job`; see [`MessageType::of_value`]).
    /// A `Message` passed in is returned as it is (so [`dummies!`](crate::dummies!) takes both).
    pub fn new<T: Payload>(value: T) -> Self {
        // A `Message` is taken out of an `Option` seen as `Any` (no box to
        // allocate, whatever the optimizer does).
        let mut slot = Some(value);
        if let Some(m) = (&mut slot as &mut dyn Any).downcast_mut::<Option<Message>>() {
            return m.take().expect("just put in");
        }
        let value = slot.expect("taken only if a Message");
        Message::with_type(MessageType::of_value(&value), value)
    }

    /// A message with an explicit type name (a short name or a `::` path).
    pub fn named<T: Payload>(type_name: impl AsRef<str>, value: T) -> Self {
        Message::with_type(MessageType::of(type_name.as_ref()), value)
    }

    /// A message of the interned type `ty`: what an object that keeps only
    /// the types of the messages in transit hands back on a receive
    /// (`Message::with_type(ty, ())` allocates nothing).
    ///
    /// ```
    /// use engine::{Message, MessageType};
    /// let ping = MessageType::of("net::Ping");
    /// let m = Message::with_type(ping, ());
    /// assert_eq!(m, Message::named("net::Ping", 7));
    /// assert_eq!(m.message_type(), ping);
    /// ```
    pub fn with_type<T: Payload>(ty: MessageType, value: T) -> Self {
        let payload = if std::any::TypeId::of::<T>() == std::any::TypeId::of::<()>() {
            None
        } else {
            let boxed = Box::new(value) as Box<dyn Payload>;
            if std::mem::size_of::<T>() != 0 {
                origin::made(&*boxed);
            }
            Some(boxed)
        };
        Message { ty, payload }
    }

    /// As [`with_type`](Self::with_type), with the payload boxed by the
    /// caller (who may have reused an allocation for it; `()` is still
    /// kept unboxed).
    ///
    /// ```
    /// use engine::{Message, MessageType};
    /// let job = MessageType::of("Job");
    /// let m = Message::with_boxed(job, Box::new(7u64));
    /// assert_eq!(m.downcast_box::<u64>().ok().map(|b| *b), Some(7));
    /// ```
    pub fn with_boxed<T: Payload>(ty: MessageType, value: Box<T>) -> Self {
        if std::any::TypeId::of::<T>() == std::any::TypeId::of::<()>() {
            return Message { ty, payload: None };
        }
        // Fresh even at the address of a payload that was taken out
        // (`downcast_box`): the caller may have changed it.
        let boxed = value as Box<dyn Payload>;
        if std::mem::size_of::<T>() != 0 {
            origin::made(&*boxed);
        }
        Message {
            ty,
            payload: Some(boxed),
        }
    }

    /// The payload still boxed, if it is a boxed `T` (the message back
    /// otherwise, also for `()`, which is not boxed): for a caller that
    /// reuses the allocation.
    pub fn downcast_box<T: Any>(self) -> Result<Box<T>, Message> {
        let Message { ty, payload } = self;
        match payload {
            Some(boxed) if (&*boxed as &dyn Any).is::<T>() => {
                let any: Box<dyn Any> = boxed;
                match any.downcast::<T>() {
                    Ok(b) => Ok(b),
                    Err(_) => unreachable!("checked with is::<T>() just before"),
                }
            }
            payload => Err(Message { ty, payload }),
        }
    }

    /// The boxed payload; `None` for `()`, which is not boxed.
    #[inline]
    pub(crate) fn boxed_payload(&self) -> Option<&dyn Payload> {
        self.payload.as_deref()
    }

    /// The payload: the boxed one, or `()` (which is kept as `None`).
    #[inline]
    fn payload(&self) -> &dyn Payload {
        match &self.payload {
            Some(b) => &**b,
            None => &(),
        }
    }

    /// The short type name: the last `::` segment of the type path.
    pub fn type_name(&self) -> &str {
        self.ty.name()
    }

    /// The full type path as given or derived.
    pub fn type_path(&self) -> &str {
        self.ty.path()
    }

    /// The interned type: equal for two messages iff their type paths are.
    pub fn message_type(&self) -> MessageType {
        self.ty
    }

    /// Whether the payload is `()`: such a message is all type, and an
    /// object may keep its [`message_type`](Self::message_type) alone and
    /// rebuild it with [`Message::with_type`].
    ///
    /// ```
    /// use engine::Message;
    /// assert!(Message::named("Ping", ()).is_unit());
    /// assert!(!Message::named("Ping", 1).is_unit());
    /// ```
    pub fn is_unit(&self) -> bool {
        self.payload.is_none()
    }

    /// The payload, if it is a `T`.
    pub fn downcast_ref<T: Any>(&self) -> Option<&T> {
        if self.payload.is_some() {
            origin::looked();
        }
        self.payload().as_any().downcast_ref::<T>()
    }

    /// The payload by value, if it is a `T`; the message back otherwise.
    pub fn downcast<T: Any>(self) -> Result<T, Message> {
        let Message { ty, payload } = self;
        let Some(boxed) = payload else {
            let unit: Box<dyn Any> = Box::new(());
            return unit
                .downcast::<T>()
                .map(|b| *b)
                .map_err(|_| Message { ty, payload: None });
        };
        // One call through the vtable to ask the type (the upcast to `Any`
        // is a pointer copy), where `as_any` then `into_any` made three.
        if (&*boxed as &dyn Any).is::<T>() {
            let any: Box<dyn Any> = boxed;
            match any.downcast::<T>() {
                Ok(b) => Ok(*b),
                Err(_) => unreachable!("checked with is::<T>() just before"),
            }
        } else {
            Err(Message {
                ty,
                payload: Some(boxed),
            })
        }
    }
}

impl Message {
    /// Whether the two messages have one type: a pointer compare.
    pub(crate) fn shares_path(&self, other: &Message) -> bool {
        self.ty == other.ty
    }

    /// A unit-payload message whose type path is the interned one
    /// ([`interned_type_path`]): what the engine's own dummies are.
    pub(crate) fn interned(path: &str) -> Message {
        Message::with_type(MessageType::of(path), ())
    }

    /// Whether this message's type path *is* `path` (the same allocation),
    /// a pointer compare. With `path` from [`interned_type_path`], every
    /// message of that type answers `true` (type paths are interned, see
    /// [`MessageType`], which is the cheaper handle to keep).
    ///
    /// ```
    /// use engine::{declared_dummies, interned_type_path, Message};
    /// # use engine::{Protocol, Refused, RoleId};
    /// # #[derive(Clone, Debug, PartialEq, Eq, Hash)]
    /// # struct Quiet;
    /// # impl Protocol for Quiet {
    /// #     fn roles(&self) -> Vec<String> { vec!["a".into(), "b".into()] }
    /// #     fn type_names(&self) -> Vec<String> { vec!["Ping".into()] }
    /// #     fn try_send(&mut self, _: RoleId, _: RoleId, m: Message) -> Result<(), Refused<Message>> { Err(Refused(m)) }
    /// #     fn try_recv(&mut self, _: RoleId, _: Option<RoleId>) -> Result<(RoleId, Message), Refused> { Err(Refused(())) }
    /// # }
    /// let ping = interned_type_path("Ping");
    /// assert!(declared_dummies(&Quiet)[0].has_type_path(&ping));
    /// assert!(Message::named("Ping", ()).has_type_path(&ping));
    /// assert!(!Message::named("x::Ping", ()).has_type_path(&ping));
    /// ```
    pub fn has_type_path(&self, path: &Arc<str>) -> bool {
        Arc::ptr_eq(&self.ty.0.path, path)
    }
}

/// The process-wide shared allocation of the type path `path`: every call
/// with an equal path returns a clone of one `Arc` (that of its
/// [`MessageType`], kept for the life of the process). See
/// [`Message::has_type_path`].
pub fn interned_type_path(path: &str) -> Arc<str> {
    MessageType::of(path).0.path.clone()
}

impl Clone for Message {
    fn clone(&self) -> Self {
        let payload = self.payload.clone();
        if let (Some(from), Some(copy)) = (&self.payload, &payload) {
            origin::cloned(&**from, &**copy);
        }
        Message {
            ty: self.ty,
            payload,
        }
    }

    /// As `*self = source.clone()`, but a payload of no size (a unit
    /// struct such as a `Token`) of the same type as the one held is kept
    /// instead of being cloned and dropped through its vtable: a value of
    /// a zero-sized type is all there is of it, so the two are the same
    /// payload. Why: the search makes most successors of an object by
    /// `clone_from` into a spare one ([`Protocol`](crate::Protocol)'s docs), and the
    /// messages in transit are most of what it copies. The type is told
    /// by the two boxes' pointers, vtable included (no call: asking each
    /// payload its `type_id` cost more than the clone it saved): a vtable
    /// is one type's (it holds that type's `type_id`), and two vtables of
    /// one type only make the payload be cloned as before.
    #[inline]
    fn clone_from(&mut self, source: &Self) {
        self.ty = source.ty;
        let kept = match (&self.payload, &source.payload) {
            (None, None) => true,
            (Some(a), Some(b)) => {
                std::mem::size_of_val(&**b) == 0
                    && std::ptr::eq(&**a as *const dyn Payload, &**b as *const dyn Payload)
            }
            _ => false,
        };
        if !kept {
            self.payload.clone_from(&source.payload);
            if let (Some(from), Some(copy)) = (&source.payload, &self.payload) {
                origin::cloned(&**from, &**copy);
            }
        }
    }
}

impl PartialEq for Message {
    fn eq(&self, other: &Self) -> bool {
        // Payloads count only in a strict compare (`origin`): two units
        // never reach it.
        self.ty == other.ty
            && ((self.payload.is_none() && other.payload.is_none()) || origin::same(self, other))
    }
}
impl Eq for Message {}
impl Hash for Message {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.ty.hash(state);
    }
}
impl fmt::Debug for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.payload.is_some() {
            origin::looked();
        }
        write!(f, "<{}>({:?})", self.type_name(), self.payload())
    }
}

/// Builds the list of dummy messages, one per message type, for a check.
///
/// `dummies![]` (no arguments) is an empty list, which a check of an object
/// that declares its types ([`Protocol::type_names`](crate::Protocol::type_names)) reads as "the
/// object's own" ([`declared_dummies`](crate::declared_dummies)). For an object that declares
/// nothing it is an error ([`Error::Dummies`](crate::Error::Dummies)):
/// there would be no message type to send.
///
/// ```
/// use engine::{dummies, Message};
/// #[derive(Clone, Debug)]
/// struct Move;
/// let d = dummies![Move, Message::named("Boolean", true)];
/// assert_eq!(d.len(), 2);
/// assert_eq!(d[1].type_name(), "Boolean");
/// let none = dummies![];
/// assert!(none.is_empty());
/// ```
#[macro_export]
macro_rules! dummies {
    () => {
        ::std::vec::Vec::<$crate::Message>::new()
    };
    ($($e:expr),+ $(,)?) => {
        ::std::vec![$($crate::Message::new($e)),*]
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_types_are_interned_once_per_path() {
        #[derive(Clone, Debug)]
        struct Move;
        let by_type = Message::new(Move);
        let by_name = Message::named(by_type.type_path(), 3u8);
        // One record per path: the same pointer, whichever way it was made
        // and on whichever thread.
        assert!(std::ptr::eq(by_type.ty.0, by_name.ty.0));
        let path = by_type.type_path().to_string();
        let other_thread = std::thread::spawn(move || MessageType::of(&path))
            .join()
            .unwrap();
        assert!(std::ptr::eq(other_thread.0, by_type.ty.0));
        assert_eq!(by_type, by_name);
        assert_ne!(by_type.message_type(), MessageType::of("Move"));
        assert_eq!(by_type.type_name(), "Move");
        // The hash is the path's, not the record's address: equal across
        // runs, equal for equal paths.
        let h = |m: &Message| {
            let mut h = std::hash::DefaultHasher::new();
            m.hash(&mut h);
            h.finish()
        };
        assert_eq!(h(&by_type), h(&by_name));
        assert_eq!(MessageType::of("a::B").0.hash, 0x1905_bf82_dcfb_32de);
    }

    #[test]
    fn a_message_of_an_interned_type_is_rebuilt_without_its_payload() {
        let ty = MessageType::of("net::Ping");
        let m = Message::with_type(ty, ());
        assert!(m.is_unit());
        assert_eq!((m.type_path(), m.type_name()), ("net::Ping", "Ping"));
        assert!(!Message::with_type(ty, 1u8).is_unit());
        assert_eq!(m, Message::named("net::Ping", "payload"));
        assert!(m.has_type_path(&interned_type_path("net::Ping")));
    }

    /// A unit payload is kept unboxed: the message is no larger for it.
    #[test]
    fn a_message_is_three_words_with_or_without_a_payload() {
        assert_eq!(std::mem::size_of::<Message>(), 24);
        assert_eq!(std::mem::size_of::<Option<Message>>(), 24);
    }

    /// A payload of each kind: `()` (kept unboxed), a unit struct, data.
    #[derive(Clone, Debug)]
    enum Made {
        Unit,
        UnitStruct,
        Byte(u8),
        Text(String),
    }

    #[derive(Clone, Debug, PartialEq)]
    struct Token;

    fn made() -> impl proptest::strategy::Strategy<Value = Made> {
        use proptest::prelude::*;
        prop_oneof![
            Just(Made::Unit),
            Just(Made::UnitStruct),
            any::<u8>().prop_map(Made::Byte),
            "[a-z]{0,8}".prop_map(Made::Text),
        ]
    }

    const PATHS: [&str; 3] = ["net::Ping", "Ping", "net::Pong"];

    fn message(path: usize, m: &Made) -> Message {
        let path = PATHS[path];
        match m {
            Made::Unit => Message::named(path, ()),
            Made::UnitStruct => Message::named(path, Token),
            Made::Byte(b) => Message::named(path, *b),
            Made::Text(t) => Message::named(path, t.clone()),
        }
    }

    fn hash_of(m: &Message) -> u64 {
        let mut h = std::hash::DefaultHasher::new();
        m.hash(&mut h);
        h.finish()
    }

    proptest::proptest! {
        /// Clones, equality, hashes, downcasts and the printed form, for
        /// every kind of payload: a `()` payload (not boxed) behaves as a
        /// boxed one does.
        #[test]
        fn messages_clone_compare_hash_and_downcast_by_their_payload(
            msgs in proptest::collection::vec((0..PATHS.len(), made()), 1..6)
        ) {
            let built: Vec<Message> = msgs.iter().map(|(p, m)| message(*p, m)).collect();
            for ((path, made), m) in msgs.iter().zip(&built) {
                let c = m.clone().clone();
                proptest::prop_assert_eq!(&c, m);
                // `clone_from` over any other message: the same message,
                // payload and all (a unit struct's is kept when it may be).
                for other in &built {
                    let mut into = other.clone();
                    into.clone_from(m);
                    proptest::prop_assert_eq!(&into, m);
                    proptest::prop_assert_eq!(format!("{into:?}"), format!("{m:?}"));
                    proptest::prop_assert_eq!(into.is_unit(), m.is_unit());
                    proptest::prop_assert_eq!(into.downcast_ref::<Token>().is_some(), m.downcast_ref::<Token>().is_some());
                }
                proptest::prop_assert_eq!(hash_of(&c), hash_of(m));
                proptest::prop_assert_eq!(c.type_path(), PATHS[*path]);
                let payload = match made {
                    Made::Unit => "()".to_string(),
                    Made::UnitStruct => "Token".to_string(),
                    Made::Byte(b) => format!("{b:?}"),
                    Made::Text(t) => format!("{t:?}"),
                };
                proptest::prop_assert_eq!(format!("{c:?}"), format!("<{}>({payload})", c.type_name()));
                proptest::prop_assert_eq!(c.is_unit(), matches!(made, Made::Unit));
                proptest::prop_assert_eq!(c.downcast_ref::<()>().is_some(), matches!(made, Made::Unit));
                proptest::prop_assert_eq!(
                    c.downcast_ref::<Token>().is_some(),
                    matches!(made, Made::UnitStruct)
                );
                proptest::prop_assert_eq!(c.downcast_ref::<u8>().copied(), match made {
                    Made::Byte(b) => Some(*b),
                    _ => None,
                });
                proptest::prop_assert_eq!(c.downcast_ref::<String>(), match made {
                    Made::Text(t) => Some(t),
                    _ => None,
                });
                // By value: the payload, or the message back unchanged.
                match (c.clone().downcast::<()>(), made) {
                    (Ok(()), Made::Unit) => {}
                    (Err(back), Made::UnitStruct | Made::Byte(_) | Made::Text(_)) => {
                        proptest::prop_assert_eq!(format!("{back:?}"), format!("{c:?}"));
                    }
                    (r, _) => proptest::prop_assert!(false, "downcast::<()>: {r:?}"),
                }
                match (c.clone().downcast::<u8>(), made) {
                    (Ok(v), Made::Byte(b)) => proptest::prop_assert_eq!(v, *b),
                    (Err(back), Made::Unit | Made::UnitStruct | Made::Text(_)) => {
                        proptest::prop_assert_eq!(format!("{back:?}"), format!("{c:?}"));
                        proptest::prop_assert_eq!(back.is_unit(), c.is_unit());
                    }
                    (r, _) => proptest::prop_assert!(false, "downcast::<u8>: {r:?}"),
                }
                proptest::prop_assert_eq!(c.clone().downcast::<Token>().is_ok(), matches!(made, Made::UnitStruct));
                // Rebuilt from its type with `()`: equal, and unit.
                let rebuilt = Message::with_type(c.message_type(), ());
                proptest::prop_assert_eq!(&rebuilt, m);
                proptest::prop_assert!(rebuilt.is_unit());
            }
            // Equal exactly when the type paths are, whatever the payloads.
            for ((p, _), m) in msgs.iter().zip(&built) {
                for ((q, _), n) in msgs.iter().zip(&built) {
                    proptest::prop_assert_eq!(m == n, p == q);
                    if p == q {
                        proptest::prop_assert_eq!(hash_of(m), hash_of(n));
                    }
                }
            }
        }
    }
}
