//! The liberal runtime: every role runs its own projection of the global
//! LTS; roles share no lock.
//!
//! # Projection
//! For a role `r`, the *actions of r* are its sends and closes (`!(T,r,q)`,
//! `C(r,q)`) and its receives (`?(T,p,r)`). A *local state* of `r` is a set
//! of states of the deterministic global LTS: everything `r` considers
//! possible. It is closed under the actions of the other roles (they may
//! have happened without `r` knowing). The initial local state is the
//! closure of the initial global state; after an own action `a` the local
//! state is the closure of the `a`-successors. This is the usual subset
//! construction, computed once, eagerly, for all roles ([`Projection`]).
//!
//! # Messages and tags
//! Each role has one FIFO inbox ([`Inbox`]) of [`Envelope`]s. A send puts
//! the message into the receiver's inbox *tagged* with the set of global
//! states its send led to (a tag number). Role `q` in local state `S` may
//! take a message of type `T` from `p` with tag `G` iff some global state
//! `h` in `S` that is reachable from `G` has the transition `?(T,p,q)`; its
//! new local state is the closure of the successors of those `h`. So a role
//! never takes a message that was sent in another branch of the protocol.
//! Messages from one sender are taken in order (only the first message from
//! `p` in the inbox is a candidate), so channels stay FIFO.
//!
//! `try_recv(q, Some(p))` considers the first envelope from `p`;
//! `try_recv(q, None)` takes the first envelope in the inbox that is both
//! the first from its sender and acceptable.
//!
//! # Termination
//! [`is_terminated`](engine::Protocol::is_terminated) holds when all
//! inboxes are empty and some final global state is in every role's local
//! state. [`is_finished`](engine::Protocol::is_finished)`(r)` holds when
//! `r`'s inbox is empty and no global state of its local state has an
//! action of `r`.
//!
//! # Where the projection differs from the global protocol
//! Each role decides on its own knowledge. When a choice of the global
//! protocol is not made by one role that the others then follow (Discourje
//! calls such specifications not *realisable*), roles may take different
//! branches at the same time. Example: in `rock-paper-scissors(3)` the next
//! round is a choice among the subsets of winners; player 0 may start the
//! round `{0,1}` while player 1 starts the round `{1,2}`. The strict object
//! cannot deadlock; the liberal one can (player 0 waits forever for player
//! 1's item). `tests/liberal_differs.rs` shows it. Synchronous
//! communications are not synchronous in the liberal object: a sender's
//! local state does not wait for the receive (the blocking API may wait).
//!
//! Inboxes are unbounded. A role that may send again before anything it
//! must wait for (a one-sided loop such as `msg(T, a, b).star()`) can run
//! arbitrarily far ahead of its receiver, so the liberal object of such a
//! protocol has infinitely many states and a check of it ends
//! inconclusive at the state limit. (The strict object of the same
//! protocol is finite.) All bundled protocols have finite liberal objects.
//!
//! # Using roles without a global lock
//! The [`Liberal`] object holds all local states and all inboxes, for the
//! checker. Real threads instead each own a [`LocalRole`] (its local state
//! and a shared `Arc<Projection>`) and share only the inboxes:
//!
//! - [`LocalRole::try_send`]`(to, msg, &mut inbox_of_to)` touches only the
//!   role's own local state and the receiver's inbox;
//! - [`LocalRole::try_recv`]`(from, &mut own_inbox)` only its own local
//!   state and its own inbox;
//! - [`LocalRole::try_close`]`(to)` only its own local state.
//!
//! So the blocking API can guard each inbox by its own mutex and run every
//! role in its thread. [`Liberal`]'s `Protocol` methods call exactly these
//! functions, so what the checker explores is what the threads run.
//! [`Liberal::split`] turns an object into its roles and inboxes.
//!
//! ```
//! use engine::{Message, Protocol};
//! let mut ttt = protocols::tic_tac_toe::liberal();
//! let (p1, p2) = (0, 1);
//! ttt.try_send(p2, p1, Message::named("Move", ())).unwrap(); // player 2 begins
//! assert!(ttt.try_send(p2, p1, Message::named("Move", ())).is_err()); // then must wait
//! ttt.try_recv(p1, Some(p2)).unwrap();
//! ttt.try_send(p1, p2, Message::named("Move", ())).unwrap();
//! ```

// The projection and its steps, and how it is computed, each in its own
// file; the runtime objects built on it ([`LocalRole`], [`Liberal`]) here.
mod build;
mod independence;
mod projection;

use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use engine::{Message, Protocol, Refused, RoleId};

use crate::limits::Limits;
use crate::lts::Lts;
use crate::{Error, Spec};

pub use projection::{Envelope, Inbox, Projection};

/// One role of a liberal protocol, for a thread to own: its local state
/// and the shared projection. See the [module docs](self).
#[derive(Clone, Debug)]
pub struct LocalRole {
    proj: Arc<Projection>,
    role: RoleId,
    state: u32,
}

impl LocalRole {
    /// The role in its initial local state.
    pub fn new(proj: Arc<Projection>, role: RoleId) -> LocalRole {
        let state = proj.initial(role);
        LocalRole { proj, role, state }
    }

    /// Which role this is.
    pub fn role(&self) -> RoleId {
        self.role
    }

    /// The current local state.
    pub fn state(&self) -> u32 {
        self.state
    }

    /// The shared projection.
    pub fn projection(&self) -> &Arc<Projection> {
        &self.proj
    }

    /// Sends `msg` to `to`: if this role may send a message of that type to
    /// `to` now, moves to the next local state and appends the tagged
    /// message to `inbox_of_to` (the inbox of `to`). Otherwise nothing
    /// changes and the message comes back.
    pub fn try_send(
        &mut self,
        to: RoleId,
        msg: Message,
        inbox_of_to: &mut Inbox,
    ) -> Result<(), Refused<Message>> {
        self.proj
            .send(self.role, &mut self.state, to, msg, inbox_of_to)
    }

    /// Receives from `inbox` (this role's own inbox): the first message
    /// (from `from`, if given) that is the first of its sender in the inbox
    /// and that this role may take now. Otherwise nothing changes.
    pub fn try_recv(
        &mut self,
        from: Option<RoleId>,
        inbox: &mut Inbox,
    ) -> Result<(RoleId, Message), Refused> {
        self.proj.recv(self.role, &mut self.state, from, inbox)
    }

    /// Closes the channel to `to`, if this role may do so now.
    pub fn try_close(&mut self, to: RoleId) -> Result<(), Refused> {
        self.proj.close(self.role, &mut self.state, to)
    }
}

/// A liberal protocol object: all roles' local states and inboxes, for the
/// checker. See the [module docs](self).
#[derive(Clone)]
pub struct Liberal {
    proj: Arc<Projection>,
    states: Vec<u32>,
    inboxes: Vec<Inbox>,
}

impl Liberal {
    /// The liberal object of `lts` (determinised if needed).
    ///
    /// # Panics
    /// If a bound ([`Limits::default`]) is exceeded; use
    /// [`Liberal::try_new`] for an error instead.
    pub fn new(lts: impl Into<Arc<Lts>>) -> Liberal {
        Liberal::try_new(lts).unwrap_or_else(|e| panic!("{e}"))
    }

    /// The liberal object of `lts` (determinised if needed), within the
    /// default [limits](Limits).
    pub fn try_new(lts: impl Into<Arc<Lts>>) -> Result<Liberal, Error> {
        Liberal::try_new_with(lts, &Limits::default())
    }

    /// The liberal object of `lts`, its determinisation and projection
    /// within `limits` (see [`Projection::new_with`]).
    pub fn try_new_with(lts: impl Into<Arc<Lts>>, limits: &Limits) -> Result<Liberal, Error> {
        Ok(Liberal::from_projection(Arc::new(Projection::new_with(
            lts, limits,
        )?)))
    }

    /// Compiles `spec` and returns its liberal object.
    pub fn from_spec(spec: &Spec) -> Result<Liberal, Error> {
        Liberal::try_new(spec.compile()?)
    }

    /// All roles in their initial local states, all inboxes empty.
    pub fn from_projection(proj: Arc<Projection>) -> Liberal {
        let n = proj.locals.len();
        let states = (0..n).map(|r| proj.initial(r)).collect();
        Liberal {
            proj,
            states,
            inboxes: vec![Inbox::new(); n],
        }
    }

    /// The dummies for checking this object: one `Message::named(type, ())`
    /// per message type of its LTS (what an empty dummy list means to the
    /// engine; see [`engine::declared_dummies`]).
    ///
    /// ```
    /// let two_buyer = protocols::two_buyer::liberal();
    /// let names: Vec<_> = two_buyer.dummies().iter().map(|m| m.type_name().to_string()).collect();
    /// assert_eq!(names, ["Title", "Quote", "Contribution", "Decision"]);
    /// ```
    pub fn dummies(&self) -> Vec<Message> {
        engine::declared_dummies(self)
    }

    /// The shared projection.
    pub fn projection(&self) -> &Arc<Projection> {
        &self.proj
    }

    /// The local state of every role.
    pub fn local_states(&self) -> &[u32] {
        &self.states
    }

    /// The inbox of every role.
    pub fn inboxes(&self) -> &[Inbox] {
        &self.inboxes
    }

    /// The roles (for threads to own) and their inboxes (to share), in
    /// role order, in their current states.
    pub fn split(self) -> (Vec<LocalRole>, Vec<Inbox>) {
        let roles = self
            .states
            .iter()
            .enumerate()
            .map(|(role, &state)| LocalRole {
                proj: self.proj.clone(),
                role,
                state,
            })
            .collect();
        (roles, self.inboxes)
    }
}

impl Protocol for Liberal {
    fn roles(&self) -> Vec<String> {
        self.proj.lts.roles().to_vec()
    }

    fn sends_to(&self, role: RoleId) -> Option<Vec<RoleId>> {
        Some(self.proj.lts.channels_from(role))
    }

    fn type_names(&self) -> Vec<String> {
        self.proj.lts.type_names().to_vec()
    }

    fn try_send(&mut self, role: RoleId, to: RoleId, msg: Message) -> Result<(), Refused<Message>> {
        if role >= self.states.len() || to >= self.inboxes.len() {
            return Err(Refused(msg));
        }
        self.proj
            .send(role, &mut self.states[role], to, msg, &mut self.inboxes[to])
    }

    fn try_recv(
        &mut self,
        role: RoleId,
        from: Option<RoleId>,
    ) -> Result<(RoleId, Message), Refused> {
        if role >= self.states.len() {
            return Err(Refused(()));
        }
        self.proj
            .recv(role, &mut self.states[role], from, &mut self.inboxes[role])
    }

    fn try_close(&mut self, role: RoleId, to: RoleId) -> Result<(), Refused> {
        if role >= self.states.len() {
            return Err(Refused(()));
        }
        self.proj.close(role, &mut self.states[role], to)
    }

    /// No envelope from `from` is in `to`'s inbox.
    fn is_channel_empty(&self, from: RoleId, to: RoleId) -> bool {
        self.inboxes
            .get(to)
            .is_none_or(|inbox| inbox.iter().all(|e| e.from != from))
    }

    /// Every role's own sends and closes from its local state, and the
    /// receives its inbox offers: read off the projection's tables, no
    /// probe and no type name compared.
    fn enabled(&self, out: &mut Vec<engine::Enabled>) -> bool {
        for (role, (&state, inbox)) in self.states.iter().zip(&self.inboxes).enumerate() {
            self.proj.enabled(role, state, inbox, out);
        }
        true
    }

    fn is_terminated(&self) -> bool {
        self.inboxes.iter().all(|i| i.is_empty()) && self.proj.may_end(&self.states)
    }

    fn is_finished(&self, role: RoleId) -> bool {
        role < self.states.len()
            && self.inboxes[role].is_empty()
            && self.proj.finished(role, self.states[role])
    }

    /// Each role whose next steps nothing else can interfere with (see
    /// `independence.rs`): a role is one process with its own local state
    /// and inbox, and the others touch it only by appending to its inbox.
    fn independence(&self) -> Option<engine::Independence> {
        Some(self.components())
    }
}

impl PartialEq for Liberal {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.proj, &other.proj)
            && self.states == other.states
            && self.inboxes == other.inboxes
    }
}
impl Eq for Liberal {}

impl Hash for Liberal {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.states.hash(h);
        self.inboxes.hash(h);
    }
}

impl fmt::Debug for Liberal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Liberal")
            .field("local_states", &self.states)
            .field("inboxes", &self.inboxes)
            .finish()
    }
}
