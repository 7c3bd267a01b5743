//! Explicit global labelled transition systems: [`Lts`] and its labels
//! (re-exported at the crate root, where they are documented).

use std::fmt::{self, Write as _};

use crate::ids::{RoleIndex, StateId, TypeIndex};

mod build;
mod determinise;
pub(crate) use build::{interned, type_of, LtsBuilder};

/// [`Error::StateBound`]'s `what` for [`Lts::determinise`].
pub(crate) const DETERMINISED: crate::Built = crate::Built::DeterminisedLts;

/// What a transition does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Action {
    /// `from` puts a message of type `ty` into the channel to `to`.
    Send,
    /// `to` takes the message of type `ty` from the channel from `from`.
    Recv,
    /// `from` closes its channel to `to`.
    Close,
}

/// `ty` of a close label, which carries no message.
pub(crate) const NO_TYPE: TypeIndex = TypeIndex::NONE;

/// A transition label. Roles and types are indices into [`Lts::roles`] and
/// [`Lts::type_names`]. For every action `from` is the sender (the owner of
/// the channel) and `to` the receiver, as in the `.aut` labels.
///
/// A send may be *synchronous*: the send of a handshake (`sync` in the
/// spec language), whose receive follows at once; [`Label::is_sync`] tells,
/// and `.aut` writes it `‽(Type,sender,receiver)`. The bit is private, so a
/// label is made by a constructor ([`Label::send`], [`Label::handshake`],
/// [`Label::recv`], [`Label::close`], [`Label::new`]) that cannot forget it.
/// Only the sanity checks of [`crate::lint`] read the bit: the runtimes
/// (and so the model checker) treat a synchronous send as the send it is
/// (see [`Label::asynchronous`]).
///
/// ```
/// use protocols::{RoleIndex, TypeIndex};
/// use protocols::{Action, Label};
/// let (ty, p, q) = (TypeIndex::new(0), RoleIndex::new(1), RoleIndex::new(2));
/// let hs = Label::handshake(ty, p, q);
/// assert!(hs.is_sync() && hs.action == Action::Send);
/// assert_ne!(hs, Label::send(ty, p, q));
/// assert_eq!(hs.asynchronous(), Label::send(ty, p, q));
/// // the receive of a handshake is an ordinary receive
/// assert_eq!(hs.receive(), Label::recv(ty, p, q));
/// assert!(!hs.receive().is_sync());
/// ```
///
/// Labels sort by their fields in the order above: action, type, sender,
/// receiver, then the synchronous bit (how an LTS sorts its edges, and so
/// how [`Lts::transitions`] lists them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Label {
    /// Send, receive or close.
    pub action: Action,
    /// Message type ([`TypeIndex::NONE`] for a close).
    pub ty: TypeIndex,
    /// The sending role (channel owner).
    pub from: RoleIndex,
    /// The receiving role.
    pub to: RoleIndex,
    /// Whether this is the send of a handshake (only ever set on a send).
    sync: bool,
}

/// As the fields compare one after the other, but as one number: every
/// step of a runtime object's search is a binary search of a state's edges
/// by label, where the field-by-field compare was a chain of branches.
impl Ord for Label {
    #[inline]
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.key().cmp(&other.key())
    }
}

impl PartialOrd for Label {
    #[inline]
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Label {
    /// The fields in one number, the first the most significant, each in
    /// bits of its own: numbers order as the fields do.
    #[inline]
    const fn key(&self) -> u128 {
        (self.action as u128) << 97
            | (self.ty.raw() as u128) << 65
            | (self.from.raw() as u128) << 33
            | (self.to.raw() as u128) << 1
            | self.sync as u128
    }

    /// `action` of a `ty` from `from` to `to`; `sync` marks the send of a
    /// handshake and is ignored for a receive or a close, which are never
    /// synchronous. For a close, `ty` should be [`TypeIndex::NONE`].
    pub const fn new(
        action: Action,
        ty: TypeIndex,
        from: RoleIndex,
        to: RoleIndex,
        sync: bool,
    ) -> Label {
        Label {
            action,
            ty,
            from,
            to,
            sync: sync && matches!(action, Action::Send),
        }
    }

    /// `!(ty,from,to)`: an asynchronous send.
    pub const fn send(ty: TypeIndex, from: RoleIndex, to: RoleIndex) -> Label {
        Label::new(Action::Send, ty, from, to, false)
    }

    /// `‽(ty,from,to)`: the send of a handshake (its receive follows at
    /// once).
    pub const fn handshake(ty: TypeIndex, from: RoleIndex, to: RoleIndex) -> Label {
        Label::new(Action::Send, ty, from, to, true)
    }

    /// `?(ty,from,to)`: `to` receives the `ty` that `from` sent.
    pub const fn recv(ty: TypeIndex, from: RoleIndex, to: RoleIndex) -> Label {
        Label::new(Action::Recv, ty, from, to, false)
    }

    /// `C(from,to)`: `from` closes its channel to `to`.
    pub const fn close(from: RoleIndex, to: RoleIndex) -> Label {
        Label::new(Action::Close, NO_TYPE, from, to, false)
    }

    /// Whether this is the send of a handshake.
    pub const fn is_sync(&self) -> bool {
        self.sync
    }

    /// The same label without the synchronous bit: what the runtimes (and
    /// so the model checker) see, where a handshake's send is a send.
    pub const fn asynchronous(self) -> Label {
        Label {
            sync: false,
            ..self
        }
    }

    /// The receive that matches this send (same type and channel; never
    /// synchronous).
    pub const fn receive(self) -> Label {
        Label::recv(self.ty, self.from, self.to)
    }

    /// The role that performs this action: the sender for a send or a
    /// close, the receiver for a receive.
    pub fn actor(&self) -> RoleIndex {
        match self.action {
            Action::Recv => self.to,
            Action::Send | Action::Close => self.from,
        }
    }
}

/// How many role or type names [`Lts::stats`] shows.
pub(crate) const STATS_NAMES: usize = 16;

/// An explicit global labelled transition system.
///
/// An [`Lts`] is the global behaviour of a protocol: states, an initial
/// state, which states are *final* (the protocol may end there), and
/// transitions labelled by [`Label`]s — `!(T,p,q)` (p sends a `T` to q),
/// `?(T,p,q)` (q receives the `T` that p sent) and `C(p,q)` (p closes its
/// channel to q). It comes from a compiled [`Spec`](crate::Spec) or from an
/// Aldebaran `.aut` file ([`Lts::from_aut`]), and it is what the strict and
/// liberal runtimes execute (after [`Lts::determinise`]).
///
/// States, roles and types are small integers, each its own type
/// ([`StateId`], [`RoleIndex`], [`TypeIndex`]); transitions are stored per
/// state in one flat array (compressed sparse rows), so that an `Arc<Lts>`
/// shared by millions of protocol objects costs nothing to clone.
///
/// ```
/// use protocols::Lts;
/// let lts = Lts::from_aut("des (0, 2, 3)\n(0,\"!(Move,white,black)\",1)\n(1,\"?(Move,white,black)\",2)\n").unwrap();
/// assert_eq!((lts.num_states(), lts.num_transitions()), (3, 2));
/// assert_eq!(lts.roles(), ["white", "black"]);
/// assert!(lts.is_final(protocols::StateId::new(2)));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lts {
    roles: Vec<String>,
    types: Vec<String>,
    /// `types`, interned ([`engine::interned_type_path`]): the engine's
    /// dummies carry these very allocations, so [`Lts::type_of`] finds a
    /// dummy's type by pointer.
    type_paths: Vec<Option<engine::MessageType>>,
    initial: StateId,
    /// `edges[offsets[s]..offsets[s + 1]]` are the transitions of `s`,
    /// sorted by label then target.
    offsets: Vec<u32>,
    edges: Vec<(Label, StateId)>,
    finals: Vec<bool>,
    /// [`Lts::channels_from`] of each role, computed with the LTS (one pass
    /// over the edges): a pass per role made asking every role's channels
    /// quadratic, minutes for a ring of 50,000 roles.
    channels: Vec<Vec<RoleIndex>>,
    /// What each channel carries, for [`Lts::channel_types`] and
    /// [`Lts::closes_channel`]: `(from, to, type)` of every send and
    /// `(from, to, NONE)` of every close, sorted (one pass with the LTS).
    uses: Vec<(RoleIndex, RoleIndex, TypeIndex)>,
}

impl Lts {
    /// Number of states.
    pub fn num_states(&self) -> usize {
        self.finals.len()
    }

    /// Every state, in order.
    pub fn states(&self) -> impl Iterator<Item = StateId> {
        (0..self.num_states()).map(StateId::from_index)
    }

    /// Number of transitions.
    pub fn num_transitions(&self) -> usize {
        self.edges.len()
    }

    /// Role names; a [`Label`]'s `from`/`to` index this list.
    pub fn roles(&self) -> &[String] {
        &self.roles
    }

    /// The roles at the other end of `role`'s channels: those some
    /// transition sends or closes to from `role`, or receives at from
    /// `role` (the directed topology, for
    /// [`Protocol::sends_to`](engine::Protocol::sends_to)).
    ///
    /// ```
    /// use protocols::spec::{msg, Spec};
    /// let lts = Spec::new("ping", msg("Ping", "a", "b")).compile().unwrap();
    /// use protocols::RoleIndex;
    /// let (a, b) = (RoleIndex::new(0), RoleIndex::new(1));
    /// assert_eq!(lts.channels_from(a), [b]);
    /// assert!(lts.channels_from(b).is_empty());
    /// ```
    pub fn channels_from(&self, role: RoleIndex) -> &[RoleIndex] {
        self.channels.get(role.index()).map_or(&[], Vec::as_slice)
    }

    /// The message types some transition sends from `from` to `to`, by
    /// name, in the order of [`Lts::type_names`].
    ///
    /// ```
    /// use protocols::spec::{msg, seq, Spec};
    /// let lts = Spec::new("two", seq([msg("Job", "a", "b"), msg("Stop", "a", "b")]))
    ///     .compile()
    ///     .unwrap();
    /// use protocols::RoleIndex;
    /// let (a, b) = (RoleIndex::new(0), RoleIndex::new(1));
    /// assert_eq!(lts.channel_types(a, b).collect::<Vec<_>>(), ["Job", "Stop"]);
    /// assert_eq!(lts.channel_types(b, a).count(), 0);
    /// ```
    pub fn channel_types(&self, from: RoleIndex, to: RoleIndex) -> impl Iterator<Item = &str> {
        let start = self.uses.partition_point(|u| (u.0, u.1) < (from, to));
        self.uses[start..]
            .iter()
            .take_while(move |u| (u.0, u.1) == (from, to))
            .filter_map(|u| self.types.get(u.2.index()).map(String::as_str))
    }

    /// Whether some transition closes the channel from `from` to `to`.
    ///
    /// ```
    /// use protocols::spec::{close, msg, seq, Spec};
    /// let lts = Spec::new("one", seq([msg("Job", "a", "b"), close("a", "b")]))
    ///     .compile()
    ///     .unwrap();
    /// use protocols::RoleIndex;
    /// let (a, b) = (RoleIndex::new(0), RoleIndex::new(1));
    /// assert!(lts.closes_channel(a, b));
    /// assert!(!lts.closes_channel(b, a));
    /// ```
    pub fn closes_channel(&self, from: RoleIndex, to: RoleIndex) -> bool {
        self.uses
            .binary_search(&(from, to, TypeIndex::NONE))
            .is_ok()
    }

    /// Message type names; a [`Label`]'s `ty` indexes this list.
    pub fn type_names(&self) -> &[String] {
        &self.types
    }

    /// The initial state.
    pub fn initial(&self) -> StateId {
        self.initial
    }

    /// Whether the protocol may end in `state`. For a compiled
    /// specification: the residual term may terminate and no message is in
    /// transit. For an `.aut` file: the state has no outgoing transitions.
    pub fn is_final(&self, state: StateId) -> bool {
        self.finals[state.index()]
    }

    /// The transitions leaving `state`, sorted by label.
    pub fn transitions(&self, state: StateId) -> &[(Label, StateId)] {
        let s = state.index();
        &self.edges[self.offsets[s] as usize..self.offsets[s + 1] as usize]
    }

    /// The index of a role name.
    pub fn role_id(&self, name: &str) -> Option<RoleIndex> {
        self.roles
            .iter()
            .position(|r| r == name)
            .map(RoleIndex::from_index)
    }

    /// The index of a message type name.
    pub fn type_id(&self, name: &str) -> Option<TypeIndex> {
        self.types
            .iter()
            .position(|t| t == name)
            .map(TypeIndex::from_index)
    }

    /// The index of the type of `msg` (by its short name): a pointer
    /// compare for the engine's own dummies and their clones (see
    /// [`engine::Message::has_type_path`]), names compared only for other
    /// messages.
    ///
    /// ```
    /// use engine::Message;
    /// let lts = protocols::chess::spec().compile().unwrap();
    /// let dummy = &protocols::chess::strict().dummies()[0];
    /// let of = |m| lts.type_of(m).map(|t| t.index());
    /// assert_eq!(of(dummy), Some(0));
    /// assert_eq!(of(&Message::named("chess::Move", ())), Some(0));
    /// assert_eq!(lts.type_of(&Message::named("Castle", ())), None);
    /// ```
    pub fn type_of(&self, msg: &engine::Message) -> Option<TypeIndex> {
        type_of(&self.type_paths, &self.types, msg)
    }

    /// The interned type of type number `ty`, if messages can have it
    /// (see [`interned`]): what a runtime that keeps only type numbers
    /// hands back on a receive.
    pub(crate) fn message_type(&self, ty: TypeIndex) -> Option<engine::MessageType> {
        self.type_paths.get(ty.index()).copied().flatten()
    }

    /// Whether no state has two transitions with the same label.
    pub fn is_deterministic(&self) -> bool {
        self.states()
            .all(|s| self.transitions(s).windows(2).all(|w| w[0].0 != w[1].0))
    }

    /// The label in `.aut` notation: `!(Move,white,black)`,
    /// `?(Move,white,black)`, `C(white,black)`, and `‽(Move,white,black)`
    /// for the send of a handshake.
    pub fn label_text(&self, l: &Label) -> String {
        let (p, q) = (&self.roles[l.from.index()], &self.roles[l.to.index()]);
        match l.action {
            Action::Send if l.sync => format!("‽({},{p},{q})", self.types[l.ty.index()]),
            Action::Send => format!("!({},{p},{q})", self.types[l.ty.index()]),
            Action::Recv => format!("?({},{p},{q})", self.types[l.ty.index()]),
            Action::Close => format!("C({p},{q})"),
        }
    }

    /// Graphviz DOT: final states are double circles.
    pub fn to_dot(&self) -> String {
        let mut out = String::from("digraph lts {\n  rankdir=LR;\n  node [shape=circle];\n");
        let _ = writeln!(out, "  init [shape=point];\n  init -> s{};", self.initial);
        for s in self.states() {
            let shape = if self.is_final(s) {
                "doublecircle"
            } else {
                "circle"
            };
            let _ = writeln!(out, "  s{s} [label=\"{s}\", shape={shape}];");
        }
        for s in self.states() {
            for (l, t) in self.transitions(s) {
                let _ = writeln!(out, "  s{s} -> s{t} [label=\"{}\"];", self.label_text(l));
            }
        }
        out.push_str("}\n");
        out
    }

    /// Aldebaran `.aut`: `des (initial, transitions, states)` then one
    /// `(from,"label",to)` per line. The format has no notion of final
    /// states: a reader takes the states without outgoing transitions as
    /// the normal ends, so a compiled state that may end but may also
    /// continue is written as an ordinary state, and a stuck non-final
    /// state (a specification that deadlocks) reads back as an end.
    pub fn to_aut(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "des ({}, {}, {})",
            self.initial,
            self.num_transitions(),
            self.num_states()
        );
        for s in self.states() {
            for (l, t) in self.transitions(s) {
                let _ = writeln!(out, "({s},\"{}\",{t})", self.label_text(l));
            }
        }
        out
    }

    /// Whether some transition is the send of a handshake
    /// ([`Label::is_sync`]).
    pub fn has_sync(&self) -> bool {
        self.edges.iter().any(|(l, _)| l.sync)
    }

    /// The same LTS with every handshake's send made an ordinary send
    /// ([`Label::asynchronous`]): the LTS the runtimes execute, exactly the
    /// one prust built before labels carried the bit (so no verdict of the
    /// model checker depends on it). Two transitions of a state that then
    /// coincide are kept once.
    pub fn asynchronous(&self) -> Lts {
        let mut b = LtsBuilder::new(self.roles.clone(), self.types.clone());
        for s in self.states() {
            let edges = self
                .transitions(s)
                .iter()
                .map(|&(l, t)| (l.asynchronous(), t))
                .collect();
            b.add_state(self.is_final(s), edges);
        }
        b.finish(self.initial)
    }

    /// One-line statistics: states, transitions, roles, types (at most
    /// 16 names of each, then how many more: a ring of 60,000
    /// roles made a line of 700 KB).
    ///
    /// ```
    /// let lts = protocols::bundled::by_name("token-directed-ring:40").unwrap();
    /// let line = lts.stats();
    /// assert!(line.starts_with("80 states, 80 transitions, 40 roles (worker_0_, "), "{line}");
    /// assert!(line.contains("worker_15_, and 24 more)"), "{line}");
    /// ```
    pub fn stats(&self) -> String {
        fn some(names: &[String]) -> String {
            let shown = names[..names.len().min(STATS_NAMES)].join(", ");
            match names.len().checked_sub(STATS_NAMES) {
                Some(more) if more > 0 => format!("{shown}, and {more} more"),
                _ => shown,
            }
        }
        format!(
            "{} states, {} transitions, {} roles ({}), {} types ({}), {}",
            self.num_states(),
            self.num_transitions(),
            self.roles.len(),
            some(&self.roles),
            self.types.len(),
            some(&self.types),
            if self.is_deterministic() {
                "deterministic"
            } else {
                "non-deterministic"
            }
        )
    }
}

impl fmt::Display for Lts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_aut())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn label() -> impl Strategy<Value = Label> {
        // Small numbers and the extremes (`NO_TYPE`, the top bits of each
        // field), so that equal fields and carries across fields occur.
        let num = prop_oneof![0u32..4, Just(u32::MAX), Just(u32::MAX - 1), any::<u32>()];
        let action = prop_oneof![Just(Action::Send), Just(Action::Recv), Just(Action::Close)];
        (action, num.clone(), num.clone(), num, any::<bool>()).prop_map(
            |(a, ty, from, to, sync)| {
                Label::new(
                    a,
                    TypeIndex::new(ty),
                    RoleIndex::new(from),
                    RoleIndex::new(to),
                    sync,
                )
            },
        )
    }

    /// Naming the integers costs no memory: a label and a transition are
    /// as small as they were with bare `u32`s (an LTS holds millions).
    #[test]
    fn typed_ids_do_not_grow_labels_or_transitions() {
        assert_eq!(std::mem::size_of::<StateId>(), 4);
        assert_eq!(std::mem::size_of::<Label>(), 16);
        assert_eq!(std::mem::size_of::<(Label, StateId)>(), 20);
        assert_eq!(std::mem::size_of::<Option<TypeIndex>>(), 8);
    }

    proptest! {
        /// The one-number order is the order of the fields, compared one
        /// after the other (what a derived order would be).
        #[test]
        fn labels_order_as_their_fields(a in label(), b in label()) {
            let fields = |l: &Label| (l.action, l.ty, l.from, l.to, l.is_sync());
            prop_assert_eq!(a.cmp(&b), fields(&a).cmp(&fields(&b)));
            prop_assert_eq!(a.partial_cmp(&b), Some(a.cmp(&b)));
            prop_assert_eq!(a == b, a.cmp(&b).is_eq());
        }
    }
}
