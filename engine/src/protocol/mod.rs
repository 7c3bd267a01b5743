//! The contract between the checker and the objects it checks.
//!
//! A protocol object holds *all* the communication state of a program: the
//! control state of every role and every message in transit. Its identity
//! (`Eq + Hash`) is that state; the engine explores the object's runs by
//! cloning it and probing non-blocking try-operations, the very operations
//! that real threads run (in a loop, with parking) through the blocking API.

use std::hash::Hash;

mod action;
mod message;
mod message_enum;
mod message_type;
pub mod origin;

pub use action::{ActionKind, ActionRef, Independence};
pub use message::{interned_type_path, Message, Payload};
#[doc(hidden)]
pub use message_enum::EnumEntry;
pub use message_enum::MessageEnum;
pub use message_type::MessageType;

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
/// - **Payloads stay where `==` says**: an object that keeps payloads hands
///   them out as its state says and does not move them where `==` cannot
///   see (say, swap two queued messages of another channel when a send
///   arrives). The checker never looks at payloads, but `prust::explore`
///   takes two steps whose two orders give equal objects for independent
///   and runs one order only. It keeps both orders where it can tell that
///   payloads may differ: a step that makes a message (a copy of one put
///   on another channel), or looks into a payload, or a receive that gets
///   another message in each order, or two orders that leave payloads in
///   other places where the object's `==` compares the messages it holds
///   (a derived `==` over them; see `origin::Origins::strictly`). An
///   object whose `==` does not compare its messages (it compares their
///   types, kept apart) must also keep each payload where the steps of
///   its own channel put it: two steps of different channels that put
///   payloads into one sequence (a broker's queue that two senders feed)
///   go unseen there. Payloads are values: an object does not write into
///   one it holds (a write through a `Cell` in a payload the object
///   reached without looking into it would go unseen).
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

    /// The capacity of the channel from `from` to `to`, if it is a plain
    /// bounded buffer: `Some(c)` promises that the channel holds exactly
    /// the messages sent on it and not yet received (nothing else puts
    /// one there or takes one away), and that a send on it is refused
    /// while it holds `c` or more; the same `c` in every state of the
    /// object (a capacity that shrinks or grows breaks the order below).
    /// `None`, the default, promises nothing.
    ///
    /// `prust::explore`'s DPOR reads it to know that a send on a full
    /// channel waits for the receiver's receive: the `n`-th send needs the
    /// `(n - c)`-th receive first, in every execution, so the two are
    /// never reordered, and a send that waits for room is judged where it
    /// is taken (without the word, every step before such a send is
    /// explored in every order, which is sound, and slower). A wrong
    /// `Some` makes DPOR skip orders: leave the default unless both
    /// promises hold, with one `c`, in every state.
    ///
    /// ```
    /// use engine::{Message, Protocol, Refused, RoleId};
    ///
    /// /// One channel from role 0 to role 1 that holds one message.
    /// #[derive(Clone, Debug, PartialEq, Eq, Hash)]
    /// struct Slot(Option<Message>);
    ///
    /// impl Protocol for Slot {
    ///     fn roles(&self) -> Vec<String> {
    ///         vec!["a".into(), "b".into()]
    ///     }
    ///     fn try_send(&mut self, role: RoleId, to: RoleId, m: Message) -> Result<(), Refused<Message>> {
    ///         if (role, to) != (0, 1) || self.0.is_some() {
    ///             return Err(Refused(m));
    ///         }
    ///         self.0 = Some(m);
    ///         Ok(())
    ///     }
    ///     fn try_recv(&mut self, role: RoleId, from: Option<RoleId>) -> Result<(RoleId, Message), Refused> {
    ///         match (role, from) {
    ///             (1, None | Some(0)) => self.0.take().map(|m| (0, m)).ok_or(Refused(())),
    ///             _ => Err(Refused(())),
    ///         }
    ///     }
    ///     fn is_channel_empty(&self, from: RoleId, to: RoleId) -> bool {
    ///         (from, to) != (0, 1) || self.0.is_none()
    ///     }
    ///     fn channel_capacity(&self, from: RoleId, to: RoleId) -> Option<usize> {
    ///         ((from, to) == (0, 1)).then_some(1)
    ///     }
    /// }
    ///
    /// assert_eq!(Slot(None).channel_capacity(0, 1), Some(1));
    /// assert_eq!(Slot(None).channel_capacity(1, 0), None);
    /// ```
    fn channel_capacity(&self, from: RoleId, to: RoleId) -> Option<usize> {
        let _ = (from, to);
        None
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

    /// The message types (short names, sorted) that `from` may ever send
    /// to `to`, if the object knows them; `None`, the default, if not.
    /// Typed channel ends (`prust::channel`) use it to refuse a receiver
    /// of a type that can never arrive, and to receive without a type
    /// test where the channel carries one type only. A list that leaves
    /// out a type the object does send makes those ends refuse it.
    fn channel_types(&self, from: RoleId, to: RoleId) -> Option<Vec<String>> {
        let _ = (from, to);
        None
    }

    /// Whether `from` may ever close its channel to `to`, if the object
    /// knows; `None`, the default, if not.
    fn may_close(&self, from: RoleId, to: RoleId) -> Option<bool> {
        let _ = (from, to);
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

    /// Whether `action` is enabled, where the object can tell at once;
    /// `None` (the default): ask [`enabled`](Self::enabled), or probe.
    ///
    /// `prust::explore` asks this for the few operations its roles are
    /// waiting on at each scheduling point, where listing every action
    /// of every role (`enabled`) cost more than the rest of the step on
    /// objects with many channels. The answer must be exact, as the list
    /// must: `Some(true)` where the try-operation accepts, `Some(false)`
    /// where it refuses. Debug builds probe as well and report the first
    /// action on which the answer and the try-operation differ (for the
    /// operations the roles wait on: those are all it asks). The checker
    /// (`engine::check`) reads only `enabled`, and its determinism check
    /// does not look at the answers.
    ///
    /// A send is asked by its type's index into
    /// [`type_names`](Self::type_names): the first declared name equal to
    /// the message's short name, then any later one equal to it. A send
    /// of a type the object does not declare, and a select, are probed
    /// whatever the object answers.
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
    ///     fn is_enabled(&self, action: Enabled) -> Option<bool> {
    ///         Some(match action {
    ///             Enabled::Send { role: 0, to: 1, ty: 0 } => !self.sent,
    ///             Enabled::Recv { role: 1, from: 0 } => self.sent && !self.received,
    ///             _ => false,
    ///         })
    ///     }
    /// }
    /// let start = Once { sent: false, received: false };
    /// assert_eq!(start.is_enabled(Enabled::Send { role: 0, to: 1, ty: 0 }), Some(true));
    /// assert_eq!(start.is_enabled(Enabled::Recv { role: 1, from: 0 }), Some(false));
    /// ```
    fn is_enabled(&self, action: Enabled) -> Option<bool> {
        let _ = action;
        None
    }

    /// Opt-in partial-order reduction: the object's *components* in this
    /// state, sets of actions that nothing else interferes with until one
    /// of them happens (see [`Independence`] and the
    /// [`por`](crate::por) module for exactly what is assumed). The search
    /// then expands, where that is sound, only one component's enabled
    /// actions. `None`, the default, declares nothing: the search is full.
    /// The determinism check tests the declaration in every state where it
    /// is used (both orders on clones) and reports a wrong one as
    /// [`Error::Contract`](crate::Error::Contract).
    fn independence(&self) -> Option<Independence> {
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

    /// Whether the bytes of [`encode`](Self::encode) name the state by
    /// themselves, so that another process, which built the same initial
    /// object, decodes them to the same state (`true`, the default); or
    /// only in this process (`false`): numbers handed out as states are
    /// met, say, which mean another state, or none, elsewhere. A check
    /// spread over several processes (`prust-distributed`) sends states
    /// between them as bytes, and refuses an object that says `false`
    /// rather than explore states that are not the object's.
    fn bytes_are_portable(&self) -> bool {
        true
    }
}

/// An action that an object lists as enabled ([`Protocol::enabled`]), or
/// is asked about ([`Protocol::is_enabled`]).
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
