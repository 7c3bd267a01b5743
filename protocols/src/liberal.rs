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

use std::collections::VecDeque;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use engine::{Message, Protocol, Refused, RoleId};
use hashbrown::{HashMap, HashSet};

use crate::limits::{self, Budget, Limits};
use crate::lts::{Action, Label, Lts, NO_TYPE};
use crate::{Error, Spec};

/// [`Error::StateBound`]'s `what` for a [`Projection`].
const PROJECTION: &str = "liberal projection";

/// A message in an inbox: who sent it, the tag of its send (see the
/// [module docs](self)) and the message.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Envelope {
    /// The sender.
    pub from: RoleId,
    /// The set of global states the send led to, as a tag number of the
    /// [`Projection`].
    pub tag: u32,
    /// The message.
    pub msg: Message,
}

/// A role's inbox: envelopes in arrival order.
pub type Inbox = VecDeque<Envelope>;

/// Receive transitions of one local state: `((label, tag), next)`, sorted.
type Receives = Vec<((Label, u32), u32)>;

/// The projection of one role.
#[derive(Debug)]
struct Local {
    /// Local state → set of global states (sorted).
    sets: Vec<Vec<u32>>,
    initial: u32,
    /// Per local state: own sends and closes `(label, next, tag)`, sorted.
    out: Vec<Vec<(Label, u32, u32)>>,
    /// Per local state: receives `((label, tag), next)`, sorted.
    inp: Vec<Receives>,
}

/// The projections of all roles of a global LTS, shared (read-only) by
/// every liberal object and every [`LocalRole`] made from it.
pub struct Projection {
    lts: Arc<Lts>,
    locals: Vec<Local>,
    tags: Vec<Vec<u32>>,
}

impl fmt::Debug for Projection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Projection")
            .field("roles", &self.lts.roles())
            .field(
                "local_states",
                &self.locals.iter().map(|l| l.sets.len()).collect::<Vec<_>>(),
            )
            .field("tags", &self.tags.len())
            .finish()
    }
}

impl Projection {
    /// Projects `lts` (determinised first if needed) on every role. Fails
    /// if the local state spaces together exceed `max_states` (the other
    /// [limits](Limits) are the defaults).
    pub fn new(lts: impl Into<Arc<Lts>>, max_states: usize) -> Result<Projection, Error> {
        Projection::new_with(lts, &Limits::default().max_states(max_states))
    }

    /// [`Projection::new`] within `limits`: the determinisation and the
    /// projection each may make `limits.max_states` states (local states
    /// of all roles together, for the projection) and tables of
    /// `limits.max_memory` bytes, and both stop at `limits.deadline`, with
    /// [`Error::StateBound`], [`Error::MemoryBound`] or [`Error::Timeout`].
    /// The projection of a heavily interleaved protocol can take time and
    /// memory far beyond its global LTS (a local state is a set of global
    /// states, and so is each tag), so these bounds matter even for an LTS
    /// of a few hundred states.
    ///
    /// ```
    /// use protocols::{token, Error, Limits, Projection};
    /// let lts = token::spec(token::Topology::FullMesh, 3).compile().unwrap();
    /// let p = Projection::new_with(lts.clone(), &Limits::default()).unwrap();
    /// assert!(p.num_local_states(0) > 1);
    /// let e = Projection::new_with(lts, &Limits::default().max_states(2)).unwrap_err();
    /// assert!(matches!(e, Error::StateBound { limit: 2, what: "liberal projection" }));
    /// ```
    pub fn new_with(lts: impl Into<Arc<Lts>>, limits: &Limits) -> Result<Projection, Error> {
        let lts = crate::strict::deterministic(lts.into(), limits)?;
        Builder::new(&lts, limits).run(lts.clone())
    }

    /// The deterministic global LTS.
    pub fn lts(&self) -> &Arc<Lts> {
        &self.lts
    }

    /// Number of local states of `role`.
    pub fn num_local_states(&self, role: RoleId) -> usize {
        self.locals[role].sets.len()
    }

    /// The global states that local state `state` of `role` stands for.
    pub fn global_states(&self, role: RoleId, state: u32) -> &[u32] {
        &self.locals[role].sets[state as usize]
    }

    /// The global states a tag stands for.
    pub fn tag_states(&self, tag: u32) -> &[u32] {
        &self.tags[tag as usize]
    }

    /// The initial local state of `role`.
    pub fn initial(&self, role: RoleId) -> u32 {
        self.locals[role].initial
    }

    fn valid(&self, a: RoleId, b: RoleId) -> bool {
        a < self.locals.len() && b < self.locals.len() && a != b
    }

    fn own(&self, role: RoleId, state: u32, label: Label) -> Option<(u32, u32)> {
        let out = &self.locals[role].out[state as usize];
        out.binary_search_by(|(l, _, _)| l.cmp(&label))
            .ok()
            .map(|i| (out[i].1, out[i].2))
    }

    fn accept(&self, role: RoleId, state: u32, env: &Envelope) -> Option<u32> {
        let ty = self.lts.type_id(env.msg.type_name())?;
        let label = Label {
            action: Action::Recv,
            ty,
            from: env.from as u32,
            to: role as u32,
        };
        let inp = &self.locals[role].inp[state as usize];
        inp.binary_search_by(|(k, _)| k.cmp(&(label, env.tag)))
            .ok()
            .map(|i| inp[i].1)
    }

    /// The send step of `role` in local state `*state`; see [`LocalRole::try_send`].
    pub fn send(
        &self,
        role: RoleId,
        state: &mut u32,
        to: RoleId,
        msg: Message,
        inbox_of_to: &mut Inbox,
    ) -> Result<(), Refused<Message>> {
        if !self.valid(role, to) {
            return Err(Refused(msg));
        }
        let Some(ty) = self.lts.type_id(msg.type_name()) else {
            return Err(Refused(msg));
        };
        let label = Label {
            action: Action::Send,
            ty,
            from: role as u32,
            to: to as u32,
        };
        match self.own(role, *state, label) {
            Some((next, tag)) => {
                *state = next;
                inbox_of_to.push_back(Envelope {
                    from: role,
                    tag,
                    msg,
                });
                Ok(())
            }
            None => Err(Refused(msg)),
        }
    }

    /// The receive step of `role`; see [`LocalRole::try_recv`].
    pub fn recv(
        &self,
        role: RoleId,
        state: &mut u32,
        from: Option<RoleId>,
        inbox: &mut Inbox,
    ) -> Result<(RoleId, Message), Refused> {
        if role >= self.locals.len() {
            return Err(Refused(()));
        }
        let mut seen: u64 = 0; // senders already met (their later messages are not heads)
        let mut seen_big: Vec<RoleId> = Vec::new();
        for i in 0..inbox.len() {
            let env = &inbox[i];
            if from.is_some_and(|p| p != env.from) {
                continue;
            }
            let first = if env.from < 64 {
                let bit = 1u64 << env.from;
                let f = seen & bit == 0;
                seen |= bit;
                f
            } else if seen_big.contains(&env.from) {
                false
            } else {
                seen_big.push(env.from);
                true
            };
            if !first {
                continue;
            }
            if let Some(next) = self.accept(role, *state, env) {
                *state = next;
                let env = inbox.remove(i).expect("index in range");
                return Ok((env.from, env.msg));
            }
            if from.is_some() {
                break;
            }
        }
        Err(Refused(()))
    }

    /// The close step of `role`; see [`LocalRole::try_close`].
    pub fn close(&self, role: RoleId, state: &mut u32, to: RoleId) -> Result<(), Refused> {
        if !self.valid(role, to) {
            return Err(Refused(()));
        }
        let label = Label {
            action: Action::Close,
            ty: NO_TYPE,
            from: role as u32,
            to: to as u32,
        };
        match self.own(role, *state, label) {
            Some((next, _)) => {
                *state = next;
                Ok(())
            }
            None => Err(Refused(())),
        }
    }

    /// Whether `role` in local state `state` can never act again: no global
    /// state it considers possible has an action of `role` (local states
    /// are closed under the other roles' actions, so this covers the
    /// future).
    pub fn finished(&self, role: RoleId, state: u32) -> bool {
        self.locals[role].sets[state as usize].iter().all(|&g| {
            self.lts
                .transitions(g)
                .iter()
                .all(|(l, _)| l.actor() != role as u32)
        })
    }

    /// Whether the local states `states` (one per role) share a final
    /// global state.
    pub fn may_end(&self, states: &[u32]) -> bool {
        let Some((first, rest)) = states.split_first() else {
            return true;
        };
        self.locals[0].sets[*first as usize].iter().any(|&g| {
            self.lts.is_final(g)
                && rest.iter().enumerate().all(|(r, &s)| {
                    self.locals[r + 1].sets[s as usize]
                        .binary_search(&g)
                        .is_ok()
                })
        })
    }
}

/// Computes all projections together: a role's receives depend on the tags
/// of the other roles' sends, which depend on their local states, which
/// depend on their receives — so a worklist runs to the fixpoint.
struct Builder<'a> {
    lts: &'a Lts,
    budget: Budget,
    sets: Vec<Vec<Vec<u32>>>,
    index: Vec<HashMap<Vec<u32>, u32>>,
    out: Vec<Vec<Vec<(Label, u32, u32)>>>,
    inp: Vec<Vec<Receives>>,
    /// Local states whose own steps are still to be computed.
    fresh: Vec<(usize, u32)>,
    tags: Vec<Vec<u32>>,
    tag_index: HashMap<(Vec<u32>, Label), u32>,
    /// Per tag: the global states reachable from it (bitset).
    reach: Vec<Vec<u64>>,
    /// Per tag: the send label that made it.
    tag_label: Vec<Label>,
}

impl<'a> Builder<'a> {
    fn new(lts: &'a Lts, limits: &Limits) -> Self {
        let n = lts.roles().len();
        Builder {
            lts,
            budget: Budget::new(limits, PROJECTION),
            sets: vec![Vec::new(); n],
            index: vec![HashMap::new(); n],
            out: vec![Vec::new(); n],
            inp: vec![Vec::new(); n],
            fresh: Vec::new(),
            tags: Vec::new(),
            tag_index: HashMap::new(),
            reach: Vec::new(),
            tag_label: Vec::new(),
        }
    }

    fn closure(&self, role: u32, seeds: impl IntoIterator<Item = u32>) -> Vec<u32> {
        let mut seen: HashSet<u32> = HashSet::new();
        let mut stack: Vec<u32> = seeds.into_iter().filter(|&s| seen.insert(s)).collect();
        while let Some(s) = stack.pop() {
            for (l, t) in self.lts.transitions(s) {
                if l.actor() != role && seen.insert(*t) {
                    stack.push(*t);
                }
            }
        }
        let mut v: Vec<u32> = seen.into_iter().collect();
        v.sort_unstable();
        v
    }

    fn local(&mut self, role: usize, set: Vec<u32>) -> Result<u32, Error> {
        if let Some(&id) = self.index[role].get(&set) {
            return Ok(id);
        }
        self.budget.add_state(limits::indexed::<u32>(set.len()))?;
        let id = self.sets[role].len() as u32;
        self.fresh.push((role, id));
        self.index[role].insert(set.clone(), id);
        self.sets[role].push(set);
        self.out[role].push(Vec::new());
        self.inp[role].push(Vec::new());
        Ok(id)
    }

    fn tag(&mut self, set: Vec<u32>, label: Label) -> Result<u32, Error> {
        if let Some(&id) = self.tag_index.get(&(set.clone(), label)) {
            return Ok(id);
        }
        let n = self.lts.num_states();
        // the set twice, and a bit per global state: counted before the
        // bitset is allocated
        self.budget
            .add_bytes(limits::indexed::<u32>(set.len()) + n.div_ceil(64) * 8)?;
        let mut bits = vec![0u64; n.div_ceil(64)];
        let mut stack = set.clone();
        for &s in &set {
            bits[s as usize / 64] |= 1 << (s % 64);
        }
        while let Some(s) = stack.pop() {
            for &(_, t) in self.lts.transitions(s) {
                let (w, b) = (t as usize / 64, 1u64 << (t % 64));
                if bits[w] & b == 0 {
                    bits[w] |= b;
                    stack.push(t);
                }
            }
        }
        let id = self.tags.len() as u32;
        self.tag_index.insert((set.clone(), label), id);
        self.tags.push(set);
        self.reach.push(bits);
        self.tag_label.push(label);
        Ok(id)
    }

    fn run(mut self, lts: Arc<Lts>) -> Result<Projection, Error> {
        let n = self.lts.roles().len();
        let mut initial = Vec::with_capacity(n);
        for r in 0..n {
            let set = self.closure(r as u32, [self.lts.initial()]);
            initial.push(self.local(r, set)?);
        }
        // A worklist: every new local state gets its own steps, and every
        // (local state, tag) pair of a receiver is examined exactly once —
        // when the later of the two appears.
        let mut states_by_recv: HashMap<Label, Vec<u32>> = HashMap::new();
        let mut tags_by_recv: HashMap<Label, Vec<u32>> = HashMap::new();
        let mut pairs: Vec<(u32, u32)> = Vec::new();
        // the pairs' high-water mark, as counted against the memory bound
        let mut pairs_counted = 0;
        loop {
            self.budget
                .add_bytes(pairs.len().saturating_sub(pairs_counted) * 8)?;
            pairs_counted = pairs_counted.max(pairs.len());
            if let Some((r, s)) = self.fresh.pop() {
                let mut own: Vec<(Label, u32)> = self.sets[r][s as usize]
                    .iter()
                    .flat_map(|&g| self.lts.transitions(g).iter().copied())
                    .filter(|(l, _)| l.actor() == r as u32)
                    .collect();
                own.sort_unstable();
                own.dedup();
                let mut j = 0;
                while j < own.len() {
                    let label = own[j].0;
                    let mut targets = Vec::new();
                    while j < own.len() && own[j].0 == label {
                        targets.push(own[j].1);
                        j += 1;
                    }
                    match label.action {
                        Action::Recv => {
                            states_by_recv.entry(label).or_default().push(s);
                            let tags = tags_by_recv.get(&label).map_or(&[][..], Vec::as_slice);
                            pairs.extend(tags.iter().map(|&t| (s, t)));
                        }
                        Action::Send | Action::Close => {
                            let tag = if label.action == Action::Send {
                                let before = self.tags.len();
                                let tag = self.tag(targets.clone(), label)?;
                                if self.tags.len() > before {
                                    let recv = Label {
                                        action: Action::Recv,
                                        ..label
                                    };
                                    tags_by_recv.entry(recv).or_default().push(tag);
                                    let states =
                                        states_by_recv.get(&recv).map_or(&[][..], Vec::as_slice);
                                    pairs.extend(states.iter().map(|&q| (q, tag)));
                                }
                                tag
                            } else {
                                u32::MAX
                            };
                            let set = self.closure(r as u32, targets);
                            let next = self.local(r, set)?;
                            self.out[r][s as usize].push((label, next, tag));
                        }
                    }
                }
            } else if let Some((s, tag)) = pairs.pop() {
                // a pair is examined once, but there can be as many pairs
                // as local states times tags
                self.budget.tick()?;
                let send = self.tag_label[tag as usize];
                let r = send.to as usize;
                let recv = Label {
                    action: Action::Recv,
                    ..send
                };
                let reach = &self.reach[tag as usize];
                let targets: Vec<u32> = self.sets[r][s as usize]
                    .iter()
                    .filter(|&&h| reach[h as usize / 64] & (1 << (h % 64)) != 0)
                    .flat_map(|&h| {
                        self.lts
                            .transitions(h)
                            .iter()
                            .filter(|(l, _)| *l == recv)
                            .map(|&(_, t)| t)
                    })
                    .collect();
                if !targets.is_empty() {
                    let set = self.closure(r as u32, targets);
                    let next = self.local(r, set)?;
                    self.inp[r][s as usize].push(((recv, tag), next));
                }
            } else {
                break;
            }
        }
        let locals = (0..n)
            .map(|r| {
                let mut out = std::mem::take(&mut self.out[r]);
                out.iter_mut().for_each(|v| v.sort_unstable());
                let mut inp = std::mem::take(&mut self.inp[r]);
                inp.iter_mut().for_each(|v| v.sort_unstable());
                Local {
                    sets: std::mem::take(&mut self.sets[r]),
                    initial: initial[r],
                    out,
                    inp,
                }
            })
            .collect();
        Ok(Projection {
            lts,
            locals,
            tags: self.tags,
        })
    }
}

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

    fn is_terminated(&self) -> bool {
        self.inboxes.iter().all(|i| i.is_empty()) && self.proj.may_end(&self.states)
    }

    fn is_finished(&self, role: RoleId) -> bool {
        role < self.states.len()
            && self.inboxes[role].is_empty()
            && self.proj.finished(role, self.states[role])
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
