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
//! Each role has one FIFO inbox (a `VecDeque`) of [`Envelope`]s. A send puts
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
//! 1's item). `tests/it/liberal_differs.rs` shows it. Synchronous
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
//! let mut ttt = protocols::tic_tac_toe::spec().liberal().unwrap();
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
mod protocol;

use std::collections::VecDeque;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use engine::{Message, Refused, RoleId};

use crate::ids::TypeIndex;
use crate::lts::Lts;
use crate::packed::{Kept, Layout, Packed};
use crate::{Error, Spec};
use engine::Limits;

pub(crate) use projection::Inbox;
pub use projection::{Envelope, Projection};

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
    #[inline]
    pub fn try_send(
        &mut self,
        to: RoleId,
        msg: Message,
        inbox_of_to: &mut VecDeque<Envelope>,
    ) -> Result<(), Refused<Message>> {
        self.proj
            .send(self.role, &mut self.state, to, msg, inbox_of_to)
    }

    /// Receives from `inbox` (this role's own inbox): the first message
    /// (from `from`, if given) that is the first of its sender in the inbox
    /// and that this role may take now. Otherwise nothing changes.
    #[inline]
    pub fn try_recv(
        &mut self,
        from: Option<RoleId>,
        inbox: &mut VecDeque<Envelope>,
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
///
/// Compact while it is checked: every role's local state and every
/// envelope in every inbox, as `(receiver, sender, tag, type id)`, packed
/// into as few bytes as the projection's sizes need, in one inline buffer
/// (no heap allocation up to 30 bytes, beyond which it moves to the heap).
/// A message a receive can
/// rebuild from its type id (a dummy: every message of a check with the
/// object's own dummies) is not kept; any other is kept beside, outside
/// the object's identity. So a clone is a copy, equality compares bytes
/// and the hash is one pass over them.
#[derive(Clone)]
pub struct Liberal {
    proj: Arc<Projection>,
    /// A local state: field 0 is the state.
    states: Layout,
    /// An envelope: `(receiver, sender, tag, type id)`.
    envelopes: Layout,
    /// The local state of every role (role order), then the envelopes of
    /// every inbox, by receiver, each inbox in arrival order.
    buf: Packed<30>,
    /// The messages a receive cannot rebuild from their type id, at the
    /// index of their envelope; `None` when there is none, so that a clone
    /// allocates nothing. Not part of the object's identity (messages
    /// compare by type).
    payloads: Kept,
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
        let most = proj.locals.iter().map(|l| l.sets.len()).max().unwrap_or(0);
        let types = proj.lts.type_names().len();
        let mut object = Liberal {
            states: Layout::new([most, 0, 0, 0]),
            envelopes: Layout::new([n, n, proj.tags.len(), types]),
            buf: Packed::default(),
            payloads: Kept::default(),
            proj,
        };
        let w = object.states.width();
        for r in 0..n {
            let s = object.proj.initial(r);
            object
                .buf
                .insert_at(r * w, w, object.states.pack([s, 0, 0, 0]));
        }
        object
    }

    /// The dummies for checking this object: one `Message::named(type, ())`
    /// per message type of its LTS (what an empty dummy list means to the
    /// engine; see [`engine::declared_dummies`]).
    ///
    /// ```
    /// let two_buyer = protocols::two_buyer::spec().liberal().unwrap();
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

    /// The local state of every role, in role order.
    ///
    /// ```
    /// let ttt = protocols::tic_tac_toe::spec().liberal().unwrap();
    /// let p = ttt.projection();
    /// assert_eq!(ttt.local_states(), [p.initial(0), p.initial(1)]);
    /// ```
    pub fn local_states(&self) -> Vec<u32> {
        (0..self.n()).map(|r| self.state(r)).collect()
    }

    /// The inbox of every role, in role order (built: the object keeps
    /// its envelopes packed).
    ///
    /// ```
    /// use engine::{Message, Protocol};
    /// let mut ttt = protocols::tic_tac_toe::spec().liberal().unwrap();
    /// ttt.try_send(1, 0, Message::named("Move", 5)).unwrap();
    /// let inboxes = ttt.inboxes();
    /// assert_eq!((inboxes[0].len(), inboxes[1].len()), (1, 0));
    /// assert_eq!(inboxes[0][0].from, 1);
    /// assert_eq!(inboxes[0][0].msg.downcast_ref::<i32>(), Some(&5));
    /// ```
    pub fn inboxes(&self) -> Vec<Inbox> {
        let mut inboxes = vec![Inbox::new(); self.n()];
        for j in 0..self.num_envelopes() {
            let (to, from, tag, ty) = self.envelope(j);
            inboxes[to as usize].push_back(Envelope {
                from: from as RoleId,
                tag,
                ty: TypeIndex::new(ty),
                msg: self.message(j),
            });
        }
        inboxes
    }

    /// The roles (for threads to own) and their inboxes (to share), in
    /// role order, in their current states.
    pub fn split(self) -> (Vec<LocalRole>, Vec<Inbox>) {
        let roles = (0..self.n())
            .map(|role| LocalRole {
                proj: self.proj.clone(),
                role,
                state: self.state(role),
            })
            .collect();
        (roles, self.inboxes())
    }

    /// The number of roles.
    #[inline]
    fn n(&self) -> usize {
        self.proj.locals.len()
    }

    /// The local state of `role`.
    #[inline]
    fn state(&self, role: RoleId) -> u32 {
        let w = self.states.width();
        self.states.field(self.buf.read(role * w, w), 0)
    }

    fn set_state(&mut self, role: RoleId, state: u32) {
        let w = self.states.width();
        let v = self.states.pack([state, 0, 0, 0]);
        self.buf.write_at(role * w, w, v);
    }

    /// Where the envelopes start in `buf`.
    #[inline]
    fn base(&self) -> usize {
        self.n() * self.states.width()
    }

    fn num_envelopes(&self) -> usize {
        (self.buf.bytes().len() - self.base()) / self.envelopes.width()
    }

    /// Envelope `j` as `(receiver, sender, tag, type id)`.
    #[inline]
    fn envelope(&self, j: usize) -> (u32, u32, u32, u32) {
        let [to, from, tag, ty] = self.envelope_at(self.base() + j * self.envelopes.width());
        (to, from, tag, ty)
    }

    /// The envelope whose record starts at byte `at` of `buf`, as
    /// `[receiver, sender, tag, type id]`.
    #[inline]
    fn envelope_at(&self, at: usize) -> [u32; 4] {
        let l = self.envelopes;
        l.unpack(self.buf.read(at, l.width()))
    }

    /// The receiver of envelope `j` (all a search for an inbox reads).
    #[inline]
    fn receiver(&self, j: usize) -> u32 {
        let (l, w) = (self.envelopes, self.envelopes.width());
        l.field(self.buf.read(self.base() + j * w, w), 0)
    }

    /// The first envelope among `lo..hi` whose receiver is at least `r`
    /// (`after`: greater than `r`); envelopes are sorted by receiver.
    #[inline]
    fn bound(&self, mut lo: usize, mut hi: usize, r: u32, after: bool) -> usize {
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let to = self.receiver(mid);
            if to < r || (after && to == r) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// The envelopes of `role`'s inbox, as indices, in arrival order.
    fn inbox(&self, role: RoleId) -> std::ops::Range<usize> {
        let r = role as u32;
        // The first envelope to `role` or after, then the first after.
        let lo = self.bound(0, self.num_envelopes(), r, false);
        lo..self.bound(lo, self.num_envelopes(), r, true)
    }

    /// The message of envelope `j`: the one kept beside, else rebuilt.
    fn message(&self, j: usize) -> Message {
        if let Some(m) = self.payloads.get(j) {
            return m.clone();
        }
        self.rebuilt(self.envelope(j).3)
    }

    /// The message of type id `ty` a receive rebuilds.
    fn rebuilt(&self, ty: u32) -> Message {
        let ty = TypeIndex::new(ty);
        // Only envelopes whose message had this interned type and a unit
        // payload are kept without their message (see `try_send`).
        let t = self
            .proj
            .lts
            .message_type(ty)
            .expect("kept only if interned");
        Message::with_type(t, ())
    }
}

/// Equal iff of the same projection with the same local states and
/// inboxes, messages compared by type (a compare of the packed bytes; the
/// messages kept beside do not count, as [`Message`]s compare by type).
impl PartialEq for Liberal {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.proj, &other.proj) && self.buf == other.buf
    }
}
impl Eq for Liberal {}

impl Hash for Liberal {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.buf.hash(h);
    }
}

impl fmt::Debug for Liberal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Liberal")
            .field("local_states", &self.local_states())
            .field("inboxes", &self.inboxes())
            .finish()
    }
}

// The packed object against the plain steps the threads take (the
// projection's own `send` and `recv` over built inboxes).
#[cfg(test)]
mod tests;
