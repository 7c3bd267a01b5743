//! The contract between the checker and the objects it checks.
//!
//! A protocol object holds *all* the communication state of a program: the
//! control state of every role and every message in transit. Its identity
//! (`Eq + Hash`) is that state; the engine explores the object's runs by
//! cloning it and probing non-blocking try-operations, the very operations
//! that real threads run (in a loop, with parking) through the blocking API.

use std::any::Any;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use dyn_clone::DynClone;

/// A role, identified by its index in [`Protocol::roles`].
///
/// Indices keep the hot loop free of string comparisons; names are for
/// people and for atomic propositions.
pub type RoleId = usize;

/// An operation that cannot complete now. It leaves the object unchanged
/// and gives back what it was handed (the message, for a send), so that the
/// caller can retry it later.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Refused<T = ()>(pub T);

/// A protocol object: the communication of a program, explorable by the
/// model checker and usable by real threads.
///
/// # Contract
/// - **Non-blocking**: every try-operation returns at once.
/// - **Deterministic**: the same call on equal objects gives equal results
///   and equal objects. Every choice (which sender, which receiver, which
///   message type) is an argument; the engine enumerates them.
/// - **Refusal leaves no trace**: a refused operation leaves the object
///   exactly as it was (the engine relies on this to probe cheaply, the
///   blocking API to retry).
/// - **State is identity**: two objects are equal iff every future behaviour
///   is the same; `Hash` agrees with `Eq`. Messages compare by type name
///   (see [`Message`]), so objects are compared by what is in transit, not by
///   payload values.
/// - The role list never changes over the life of the object.
/// - **`clone_from` makes an equal object**, as `clone` does (the default,
///   `*self = source.clone()`, does; the determinism check verifies a
///   hand-written one).
///
/// # Tip: implement `clone_from` to let the search reuse your allocations
/// The search makes each successor as a copy of the state it expands, and
/// most successors are states seen before, dropped right after they are
/// looked up. It keeps a few such objects and makes the next successor by
/// [`Clone::clone_from`] into one of them. `#[derive(Clone)]` keeps the
/// default `clone_from`, which clones anew (the allocations of every
/// `Vec`, `String` or `Box` in the object); written by hand with the
/// fields' own `clone_from` (`Vec::clone_from` reuses the buffer), a
/// successor allocates and frees nothing:
///
/// ```
/// #[derive(Debug, PartialEq, Eq, Hash)]
/// struct Ring {
///     sending: Vec<bool>,
///     chan: Vec<Option<engine::Message>>,
/// }
///
/// impl Clone for Ring {
///     fn clone(&self) -> Self {
///         Ring { sending: self.sending.clone(), chan: self.chan.clone() }
///     }
///     fn clone_from(&mut self, source: &Self) {
///         self.sending.clone_from(&source.sending);
///         self.chan.clone_from(&source.chan);
///     }
/// }
/// # let a = Ring { sending: vec![true], chan: vec![None] };
/// # let mut b = Ring { sending: vec![false, true], chan: vec![] };
/// # b.clone_from(&a);
/// # assert_eq!(a, b);
/// ```
///
/// Measured on the benchmark's `ring` (two `Vec`s an object): no malloc
/// or free left in the search's profile (BENCHMARKS.md).
pub trait Protocol: Clone + Eq + Hash + Send + 'static {
    /// Names of the roles; the index of a name is its [`RoleId`].
    fn roles(&self) -> Vec<String>;

    /// Names of the message types the protocol uses, if it knows them
    /// (short names, as [`Message::type_name`] gives). Asked once per check.
    ///
    /// An object that declares its types (a non-empty list; the strict and
    /// liberal objects of the `protocols` crate do) gets its dummies
    /// checked: a check's dummies must stand for exactly these types, one
    /// dummy per type (a dummy stands for the type that is its short name
    /// or its full path), or the check fails with [`Error::Dummies`]
    /// instead of exploring only some of the sends. An empty dummy list
    /// then means the object's own: [`declared_dummies`]. The determinism
    /// check also verifies that no receive returns a message of another
    /// type.
    ///
    /// The default, an empty list, declares nothing: the dummies are then
    /// the message types, whatever they are. **A type without a dummy is
    /// never sent** by such a check: its sends are not probed, so the check
    /// covers only the runs that use the types given, and a property that
    /// fails only on the other runs "holds". Declare the types to be told.
    ///
    /// [`Error::Dummies`]: crate::Error::Dummies
    fn type_names(&self) -> Vec<String> {
        Vec::new()
    }

    /// Whether [`type_names`](Self::type_names) is the complete list of the
    /// object's message types even when it is empty. An object whose only
    /// actions are closes sends no message: it says so by returning `true`
    /// here and no types, and is checked with no dummies (an empty dummy
    /// list is then its own). The default, `false`, keeps an empty list
    /// meaning "declares nothing", so that an object that forgot to
    /// declare its types and got no dummies is an [`Error::Dummies`], not
    /// a check that never sends.
    ///
    /// [`Error::Dummies`]: crate::Error::Dummies
    fn declares_types(&self) -> bool {
        false
    }

    /// `role` sends `msg` to `to`.
    fn try_send(&mut self, role: RoleId, to: RoleId, msg: Message) -> Result<(), Refused<Message>>;

    /// `role` receives a message, from `from` if given, otherwise from any
    /// sender the protocol allows (the engine probes each sender explicitly,
    /// so `None` is for real threads that do not care). A refusal with
    /// `None` must mean that no sender is possible: the engine then skips
    /// the per-sender probes (the determinism check verifies this).
    fn try_recv(
        &mut self,
        role: RoleId,
        from: Option<RoleId>,
    ) -> Result<(RoleId, Message), Refused>;

    /// `role` closes its channel to `to`. Objects without closes keep the
    /// default, which always refuses.
    fn try_close(&mut self, role: RoleId, to: RoleId) -> Result<(), Refused> {
        let _ = (role, to);
        Err(Refused(()))
    }

    /// A hint for the blocking API: `false` promises that `try_recv(role,
    /// from)` would be refused now (typically: no message for `role`, from
    /// `from` if named, is in transit), so a waiting receive need not be
    /// tried again until this changes. `true`, the default, promises
    /// nothing. A session re-tries every waiting operation after every
    /// change of the object; with many threads waiting to receive, this
    /// hint spares most of those tries. The determinism check verifies it:
    /// a receive that succeeds where the hint said `false` is reported as a
    /// contract violation.
    fn may_recv(&self, role: RoleId, from: Option<RoleId>) -> bool {
        let _ = (role, from);
        true
    }

    /// Whether the channel from `from` to `to` holds no message (none sent
    /// on it is waiting to be received). `false`, the default, means "not
    /// known to be empty".
    ///
    /// Sessions and `prust::explore` ask it after `from` has closed its
    /// channel to `to`: a receive on a closed channel that holds nothing
    /// can never succeed, so the receiver is told the channel is closed
    /// instead of waiting for ever. An object that keeps the default never
    /// lets a receiver see a close (it waits, as before). `true` must be
    /// exact: a message still in the channel but not receivable yet (the
    /// protocol wants another receive first) makes it `false`. The strict
    /// and liberal objects of the `protocols` crate answer it.
    fn is_channel_empty(&self, from: RoleId, to: RoleId) -> bool {
        let _ = (from, to);
        false
    }

    /// Whether the protocol has ended normally. Consulted only in states in
    /// which no action is enabled: such a state is *terminated* if this says
    /// so and *deadlocked* otherwise.
    fn is_terminated(&self) -> bool {
        false
    }

    /// Whether `role` has finished its part of the protocol. Used only to
    /// name the roles that are still waiting when a run deadlocks; the
    /// default (`false`) lists every role as waiting.
    fn is_finished(&self, role: RoleId) -> bool {
        let _ = role;
        false
    }

    /// The roles that `role` may ever send to, receive from or close a
    /// channel to, if the object knows its topology (`None`, the default:
    /// every other role). Asked once per check. The engine probes only
    /// these pairs, so the cost per state grows with the number of channels
    /// instead of roles²; a list that leaves out a pair that can act is a
    /// contract violation (the determinism check probes every pair and
    /// reports it).
    fn peers(&self, role: RoleId) -> Option<Vec<RoleId>> {
        let _ = role;
        None
    }

    /// The roles at the other end of `role`'s outgoing channels, if the
    /// object knows them: every role that `role` may ever send to or close
    /// a channel to, and so every role that may ever receive from `role`.
    /// The directed form of [`peers`](Self::peers), which is precise where
    /// `peers` is symmetric: the engine then probes a send or close only
    /// along these channels and a receive only against them (on a ring,
    /// half of what `peers` leaves). `None` (the default) leaves `role`'s
    /// channels to `peers`. As with `peers`, a list that leaves out a pair
    /// that can act is a contract violation, which the determinism check
    /// reports.
    ///
    /// ```
    /// use engine::{Message, Protocol, Refused, RoleId};
    /// /// `ping` sends to `pong`, never the other way round.
    /// #[derive(Clone, Debug, PartialEq, Eq, Hash)]
    /// struct OneWay { in_transit: bool }
    /// impl Protocol for OneWay {
    ///     fn roles(&self) -> Vec<String> { vec!["ping".into(), "pong".into()] }
    ///     fn try_send(&mut self, role: RoleId, to: RoleId, msg: Message)
    ///         -> Result<(), Refused<Message>> {
    ///         if (role, to) != (0, 1) || self.in_transit { return Err(Refused(msg)); }
    ///         self.in_transit = true;
    ///         Ok(())
    ///     }
    ///     fn try_recv(&mut self, role: RoleId, from: Option<RoleId>)
    ///         -> Result<(RoleId, Message), Refused> {
    ///         if role != 1 || from.is_some_and(|f| f != 0) || !self.in_transit {
    ///             return Err(Refused(()));
    ///         }
    ///         self.in_transit = false;
    ///         Ok((0, Message::named("Ping", ())))
    ///     }
    ///     fn sends_to(&self, role: RoleId) -> Option<Vec<RoleId>> {
    ///         Some(if role == 0 { vec![1] } else { vec![] })
    ///     }
    /// }
    /// let r = engine::check(r#"G F "pong RECV *""#, OneWay { in_transit: false },
    ///                       vec![Message::named("Ping", ())]);
    /// assert!(r.holds());
    /// ```
    fn sends_to(&self, role: RoleId) -> Option<Vec<RoleId>> {
        let _ = role;
        None
    }

    /// Lists the actions enabled now, for an object that knows its moves
    /// (the strict and liberal objects read them off their LTS): appends
    /// to `out` every action whose try-operation would succeed, and
    /// returns `true`. The default lists nothing and returns `false`: the
    /// engine then finds the enabled actions by probing every channel with
    /// every dummy, as it does for any object.
    ///
    /// Why: probing costs one try-operation per channel and type in every
    /// state (48,768 of them in a full mesh of 128 roles, to find the one
    /// action enabled); a listing costs what the object's own lookup costs.
    /// The engine still performs each listed action through the
    /// try-operations, on a clone, so what it explores is what the
    /// try-operations do.
    ///
    /// The list must be exact: a [`Enabled::Send`] for each type (an index
    /// into [`type_names`](Self::type_names)) and receiver `try_send`
    /// would accept, a [`Enabled::Recv`] for each sender that
    /// `try_recv(role, Some(from))` would take a message from, an
    /// [`Enabled::Close`] for each close that `try_close` would accept; in
    /// any order. An action the try-operation then refuses, or one along a
    /// pair of roles that is not a channel ([`peers`](Self::peers),
    /// [`sends_to`](Self::sends_to)), is reported as a contract
    /// violation. An action left out is never explored (the search would
    /// miss runs), so the determinism check (on by default in debug
    /// builds, `PRUST_DETERMINISM=1`) compares the list with what probing
    /// finds in every state and reports the first action on which they
    /// differ.
    ///
    /// ```
    /// use engine::{Enabled, Message, Protocol, Refused, RoleId};
    /// /// `ping` sends one `Ping` to `pong`, which receives it.
    /// #[derive(Clone, Debug, PartialEq, Eq, Hash)]
    /// struct Once { sent: bool, received: bool }
    /// impl Protocol for Once {
    ///     fn roles(&self) -> Vec<String> { vec!["ping".into(), "pong".into()] }
    ///     fn type_names(&self) -> Vec<String> { vec!["Ping".into()] }
    ///     fn try_send(&mut self, role: RoleId, to: RoleId, msg: Message)
    ///         -> Result<(), Refused<Message>> {
    ///         if (role, to) != (0, 1) || self.sent { return Err(Refused(msg)); }
    ///         self.sent = true;
    ///         Ok(())
    ///     }
    ///     fn try_recv(&mut self, role: RoleId, from: Option<RoleId>)
    ///         -> Result<(RoleId, Message), Refused> {
    ///         if role != 1 || from.is_some_and(|f| f != 0) || !self.sent || self.received {
    ///             return Err(Refused(()));
    ///         }
    ///         self.received = true;
    ///         Ok((0, Message::named("Ping", ())))
    ///     }
    ///     fn is_terminated(&self) -> bool { self.received }
    ///     fn enabled(&self, out: &mut Vec<Enabled>) -> bool {
    ///         if !self.sent {
    ///             out.push(Enabled::Send { role: 0, to: 1, ty: 0 });
    ///         } else if !self.received {
    ///             out.push(Enabled::Recv { role: 1, from: 0 });
    ///         }
    ///         true
    ///     }
    /// }
    /// let start = Once { sent: false, received: false };
    /// assert!(engine::check(r#"F "END""#, start, vec![]).holds());
    /// ```
    fn enabled(&self, out: &mut Vec<Enabled>) -> bool {
        let _ = out;
        false
    }

    /// Opt-in partial-order reduction: the object's *components* in this
    /// state, sets of actions that nothing else interferes with until one
    /// of them happens (see [`Independence`](crate::Independence) and the
    /// [`por`](crate::por) module for exactly what is assumed). The search
    /// then expands, where that is sound, only one component's enabled
    /// actions. `None`, the default, declares nothing: the search is full.
    /// The determinism check tests the declaration in every state where it
    /// is used (both orders on clones) and reports a wrong one as
    /// [`Error::Contract`](crate::Error::Contract).
    fn independence(&self) -> Option<crate::Independence> {
        None
    }

    /// Opt-in compact storage (SPIN's state vector): appends the object's
    /// state to `out` as plain bytes and returns `true`; `false`, the
    /// default, means the object does not do it. An object that does is
    /// stored by the engine as those bytes in one arena — a few bytes a
    /// state instead of the object and its heap allocations — and only the
    /// states the search is working on are kept as objects (see
    /// [`Checker::collapse`](crate::Checker::collapse)).
    ///
    /// Whether the engine stores bytes is decided on the initial object. A
    /// later state may still return `false` (say, one holding a message
    /// that bytes cannot rebuild): the engine then keeps that state as its
    /// object, for the rest of the check, beside the others' bytes. An
    /// object equal to such a kept one is that state whatever it writes.
    ///
    /// The bytes must name the state exactly: equal objects give equal
    /// bytes, and [`decode`](Self::decode) gives back an equal object. The
    /// determinism check verifies `decode(encode(x)) == x` for every new
    /// state (so two unequal objects never share bytes, which would merge
    /// their states) and reports a failure as
    /// [`Error::Contract`](crate::Error::Contract).
    ///
    /// ```
    /// use engine::{Message, Protocol, Refused, RoleId};
    /// #[derive(Clone, Debug, PartialEq, Eq, Hash)]
    /// struct Counter(u8);
    /// impl Protocol for Counter {
    ///     fn roles(&self) -> Vec<String> { vec!["a".into(), "b".into()] }
    ///     fn try_send(&mut self, _: RoleId, _: RoleId, m: Message) -> Result<(), Refused<Message>> {
    ///         if self.0 < 3 { self.0 += 1; Ok(()) } else { Err(Refused(m)) }
    ///     }
    ///     fn try_recv(&mut self, _: RoleId, _: Option<RoleId>) -> Result<(RoleId, Message), Refused> {
    ///         Err(Refused(()))
    ///     }
    ///     fn encode(&self, out: &mut Vec<u8>) -> bool {
    ///         out.push(self.0);
    ///         true
    ///     }
    ///     fn decode(&self, bytes: &[u8]) -> Option<Self> {
    ///         Some(Counter(*bytes.first()?))
    ///     }
    /// }
    /// #[derive(Clone, Debug)]
    /// struct Tick;
    /// let r = engine::check(r#"F "DEADLOCK""#, Counter(0), engine::dummies![Tick]);
    /// assert_eq!(r.stats.protocol_states, 4);
    /// ```
    fn encode(&self, out: &mut Vec<u8>) -> bool {
        let _ = out;
        false
    }

    /// Whether the engine stores this object's states as bytes by default
    /// when it [encodes](Self::encode) them (`true`, the default): where
    /// the object is large or holds heap allocations, the bytes are a
    /// fraction of it. An object that is already a few dozen bytes with
    /// nothing on the heap returns `false`: its bytes save little, and
    /// keeping objects is faster (no encoding, no map of the objects the
    /// search holds) and lets a safety search run on several threads.
    /// [`Checker::collapse`](crate::Checker::collapse) and
    /// `PRUST_COLLAPSE` override it for every object.
    fn prefers_bytes(&self) -> bool {
        true
    }

    /// The object whose [`encode`](Self::encode) wrote `bytes`, rebuilt
    /// with `self` (an object of the same check: its initial one) for what
    /// the bytes leave out (role names, a shared specification). `None` if
    /// the bytes are not such an encoding. Only asked where `encode` is.
    fn decode(&self, bytes: &[u8]) -> Option<Self> {
        let _ = bytes;
        None
    }
}

/// An action that an object lists as enabled ([`Protocol::enabled`]).
/// Types and roles are numbers, so the engine turns a listed action into
/// its letter without comparing a string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Enabled {
    /// `role` may send a message of type `ty` (an index into
    /// [`Protocol::type_names`]) to `to`.
    Send {
        /// The sender.
        role: RoleId,
        /// The receiver.
        to: RoleId,
        /// The message type, as an index into [`Protocol::type_names`].
        ty: usize,
    },
    /// `role` may receive a message from `from` (which type comes out is
    /// the object's business, as with `try_recv`).
    Recv {
        /// The receiver.
        role: RoleId,
        /// The sender.
        from: RoleId,
    },
    /// `role` may close its channel to `to`.
    Close {
        /// The role that closes.
        role: RoleId,
        /// The other end of the channel.
        to: RoleId,
    },
}

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
/// depends on which types are in transit, not on payload values.
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
    /// arguments (`alloc::vec::Vec<u8>` is `alloc::vec::Vec`, short name `Vec`).
    /// A `Message` passed in is returned as it is (so [`dummies!`](crate::dummies!) takes both).
    pub fn new<T: Payload>(value: T) -> Self {
        if std::any::TypeId::of::<T>() == std::any::TypeId::of::<Message>() {
            let any: Box<dyn Any> = Box::new(value);
            return *any
                .downcast::<Message>()
                .expect("TypeId checked just before");
        }
        let full = std::any::type_name::<T>();
        let path = full.split('<').next().unwrap_or(full);
        Message::with_type(MessageType::of(path), value)
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
            Some(Box::new(value) as Box<dyn Payload>)
        };
        Message { ty, payload }
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
        self.payload().as_any().downcast_ref::<T>()
    }

    /// The payload by value, if it is a `T`; the message back otherwise.
    pub fn downcast<T: Any>(self) -> Result<T, Message> {
        if self.payload().as_any().is::<T>() {
            let boxed = match self.payload {
                Some(b) => b,
                None => Box::new(()),
            };
            match boxed.into_any().downcast::<T>() {
                Ok(b) => Ok(*b),
                Err(_) => unreachable!("checked with is::<T>() just before"),
            }
        } else {
            Err(self)
        }
    }
}

/// A message type path, interned: one shared record per distinct path in
/// the process, so that a type is compared by pointer and hashed by a
/// number computed once, never by its string. [`Message::message_type`]
/// gives a message's; objects resolve the types they know to these once,
/// when they are set up, and then look a message's type up by it.
///
/// Every distinct path ever given to [`MessageType::of`] (and so to
/// [`Message::new`], [`Message::named`]) stays in memory for the life of
/// the process, as string interning in a compiler does: a program has few
/// message types. The pointer never moves, so copies are free to share
/// between threads.
///
/// ```
/// use engine::{Message, MessageType};
/// let a = MessageType::of("chess::Move");
/// assert_eq!(a, MessageType::of("chess::Move"));
/// assert_ne!(a, MessageType::of("Move"));
/// assert_eq!((a.path(), a.name()), ("chess::Move", "Move"));
/// assert_eq!(Message::named("chess::Move", ()).message_type(), a);
/// ```
#[derive(Clone, Copy)]
pub struct MessageType(&'static TypeEntry);

/// What [`MessageType`] points to.
struct TypeEntry {
    /// The path, as an `Arc` so that [`interned_type_path`] can hand out
    /// clones of it.
    path: Arc<str>,
    /// Where the short name starts in `path`.
    short: usize,
    /// FNV-1a of the path: fixed across runs (a `Hash` of an object does
    /// not depend on where the record was allocated).
    hash: u64,
}

impl MessageType {
    /// The interned type of the path `path` (a short name or a `::` path).
    ///
    /// Looked up in a per-thread cache first (a hash of the string, no
    /// lock), then in the process-wide table under a lock.
    pub fn of(path: &str) -> MessageType {
        use std::cell::RefCell;
        thread_local! {
            static LOCAL: RefCell<hashbrown::HashMap<&'static str, MessageType>> =
                RefCell::new(hashbrown::HashMap::new());
        }
        // `try_with`: a message built while the thread's locals are torn
        // down (in a destructor) goes to the shared table directly.
        if let Ok(Some(t)) = LOCAL.try_with(|m| m.borrow().get(path).copied()) {
            return t;
        }
        let t = MessageType::of_shared(path);
        let _ = LOCAL.try_with(|m| m.borrow_mut().insert(t.path(), t));
        t
    }

    fn of_shared(path: &str) -> MessageType {
        use std::sync::{Mutex, OnceLock};
        static TYPES: OnceLock<Mutex<hashbrown::HashMap<&'static str, MessageType>>> =
            OnceLock::new();
        let mut types = TYPES
            .get_or_init(Default::default)
            .lock()
            // The table is never left half-changed: a panic elsewhere
            // cannot have broken it.
            .unwrap_or_else(|e| e.into_inner());
        if let Some(&t) = types.get(path) {
            return t;
        }
        let hash = path.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        });
        let entry: &'static TypeEntry = Box::leak(Box::new(TypeEntry {
            path: Arc::from(path),
            short: path.len() - short_name(path).len(),
            hash,
        }));
        let t = MessageType(entry);
        types.insert(t.path(), t);
        t
    }

    /// The full type path.
    pub fn path(self) -> &'static str {
        &self.0.path
    }

    /// The short name: the last `::` segment of the path.
    pub fn name(self) -> &'static str {
        &self.0.path[self.0.short..]
    }
}

impl PartialEq for MessageType {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.0, other.0)
    }
}
impl Eq for MessageType {}
impl Hash for MessageType {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.0.hash);
    }
}
impl fmt::Debug for MessageType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "<{}>", self.path())
    }
}

/// The last `::` segment of a path: `path.rsplit("::").next()`, without
/// the substring searcher that `rsplit` sets up on every call (computed
/// once per type, when it is interned).
fn short_name(path: &str) -> &str {
    let b = path.as_bytes();
    let mut i = b.len();
    while i >= 2 {
        if b[i - 1] == b':' && b[i - 2] == b':' {
            // Both bytes are ASCII, so `i` is a char boundary.
            return &path[i..];
        }
        i -= 1;
    }
    path
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
        Message {
            ty: self.ty,
            payload: self.payload.clone(),
        }
    }

    /// As `*self = source.clone()`, but a payload of no size (a unit
    /// struct such as a `Token`) of the same type as the one held is kept
    /// instead of being cloned and dropped through its vtable: a value of
    /// a zero-sized type is all there is of it, so the two are the same
    /// payload. Why: the search makes most successors of an object by
    /// `clone_from` into a spare one ([`Protocol`]'s docs), and the
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
        }
    }
}

impl PartialEq for Message {
    fn eq(&self, other: &Self) -> bool {
        self.ty == other.ty
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
        write!(f, "<{}>({:?})", self.type_name(), self.payload())
    }
}

/// The object's own dummies: one `Message::named(type, ())` per type it
/// declares ([`Protocol::type_names`], duplicates dropped), in its order;
/// empty if it declares none. What an empty dummy list means to a check of
/// an object that declares its types; front ends that build the dummy list
/// themselves use this too.
///
/// ```
/// use engine::{declared_dummies, Message, Protocol, Refused, RoleId};
/// #[derive(Clone, Debug, PartialEq, Eq, Hash)]
/// struct Quiet;
/// impl Protocol for Quiet {
///     fn roles(&self) -> Vec<String> { vec!["a".into(), "b".into()] }
///     fn type_names(&self) -> Vec<String> { vec!["Ping".into(), "Pong".into()] }
///     fn try_send(&mut self, _: RoleId, _: RoleId, m: Message) -> Result<(), Refused<Message>> {
///         Err(Refused(m))
///     }
///     fn try_recv(&mut self, _: RoleId, _: Option<RoleId>) -> Result<(RoleId, Message), Refused> {
///         Err(Refused(()))
///     }
/// }
/// let d = declared_dummies(&Quiet);
/// assert_eq!(d, vec![Message::named("Ping", ()), Message::named("Pong", ())]);
/// ```
pub fn declared_dummies<P: Protocol>(proto: &P) -> Vec<Message> {
    let mut names = proto.type_names();
    let mut seen = std::collections::HashSet::new();
    names.retain(|n| seen.insert(n.clone()));
    // Interned paths: objects that keep the interned paths of their types
    // resolve these dummies by pointer ([`Message::has_type_path`]).
    names.iter().map(|n| Message::interned(n)).collect()
}

/// Builds the list of dummy messages, one per message type, for a check.
///
/// `dummies![]` (no arguments) is an empty list, which a check of an object
/// that declares its types ([`Protocol::type_names`]) reads as "the
/// object's own" ([`declared_dummies`]). For an object that declares
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

    #[test]
    fn short_name_is_the_last_path_segment_like_rsplit() {
        for path in [
            "",
            "Move",
            "chess::Move",
            "a::b::C",
            "::X",
            "X::",
            "a:b",
            "a:::b",
            "a::::b",
            ":",
            "::",
            ":::",
            "ü::ß",
            "a:b::c:d",
        ] {
            let expected = path.rsplit("::").next().unwrap_or(path);
            assert_eq!(short_name(path), expected, "path {path:?}");
            assert_eq!(Message::named(path, ()).type_name(), expected);
        }
    }
}
