//! The benchmark's protocol objects, written by hand against
//! [`engine::Protocol`], and a reference explorer that counts their states.
//!
//! Each model comes in two representations with the same behaviour:
//! - [`Ring`], [`Star`]: what a straightforward hand-written object keeps,
//!   a control flag or counter per role in a `Vec` and, per 1-capacity
//!   channel, the [`Message`] in transit (a receive hands back exactly what
//!   was sent);
//! - [`PackedRing`], [`PackedStar`]: the same states as bitmasks. Faithful
//!   too, because the only message type is the unit struct [`Token`]: a bit
//!   says all there is to say about a channel's content.
//!
//! The Stateright models in `bench/peers/stateright` mirror both state for
//! state; SPIN's Promela models in `bench/peers/spin` have one (SPIN's own)
//! representation.

use std::collections::{HashSet, VecDeque};
use std::hash::BuildHasher;

use hashbrown::hash_table::Entry;
use hashbrown::{DefaultHashBuilder, HashTable};

use engine::{Enabled, Message, Protocol, Refused, RoleId};

/// The one message type of both models.
#[derive(Clone, Debug)]
pub struct Token;

/// The only type name the objects accept (the short name of [`Token`]).
const TOKEN: &str = "Token";

/// Directed ring of `n` roles with 1-capacity channels: role i loops "send
/// to i+1 mod n, then receive from i-1 mod n". Exactly C(2n, n) states.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Ring {
    /// Per role: whether its next step is the send (else the receive).
    sending: Vec<bool>,
    /// `chan[i]`: the message in transit from role i to role i+1.
    chan: Vec<Option<Message>>,
}

/// By hand, for `clone_from`: the search makes most successors by
/// `clone_from` into an object it no longer needs, and `Vec::clone_from`
/// reuses the vectors' buffers, so such a successor allocates nothing
/// (`#[derive(Clone)]` keeps the default, `*self = source.clone()`, which
/// allocates both vectors anew). What any user of a heap-holding object
/// can write; the engine is correct with either.
impl Clone for Ring {
    fn clone(&self) -> Ring {
        Ring {
            sending: self.sending.clone(),
            chan: self.chan.clone(),
        }
    }

    fn clone_from(&mut self, source: &Ring) {
        self.sending.clone_from(&source.sending);
        self.chan.clone_from(&source.chan);
    }
}

impl Ring {
    /// A ring of `n` roles.
    pub fn new(n: usize) -> Ring {
        assert!(n >= 2, "a ring needs two roles");
        Ring {
            sending: vec![true; n],
            chan: vec![None; n],
        }
    }

    /// The number of reachable states: C(2n, n).
    pub fn expected_states(n: usize) -> u64 {
        binomial(2 * n as u64, n as u64)
    }

    fn n(&self) -> usize {
        self.sending.len()
    }
}

impl Protocol for Ring {
    fn roles(&self) -> Vec<String> {
        (0..self.n()).map(|i| format!("r{i}")).collect()
    }

    fn type_names(&self) -> Vec<String> {
        vec![TOKEN.to_string()]
    }

    fn peers(&self, role: RoleId) -> Option<Vec<RoleId>> {
        Some(ring_peers(role, self.n()))
    }

    fn sends_to(&self, role: RoleId) -> Option<Vec<RoleId>> {
        Some(vec![succ(role, self.n())])
    }

    fn try_send(&mut self, role: RoleId, to: RoleId, msg: Message) -> Result<(), Refused<Message>> {
        let n = self.n();
        if role >= n
            || to != succ(role, n)
            || !self.sending[role]
            || self.chan[role].is_some()
            || msg.type_name() != TOKEN
        {
            return Err(Refused(msg));
        }
        self.chan[role] = Some(msg);
        self.sending[role] = false;
        Ok(())
    }

    fn try_recv(
        &mut self,
        role: RoleId,
        from: Option<RoleId>,
    ) -> Result<(RoleId, Message), Refused> {
        let n = self.n();
        if role >= n || self.sending[role] {
            return Err(Refused(()));
        }
        let src = pred(role, n);
        if from.is_some_and(|f| f != src) {
            return Err(Refused(()));
        }
        let msg = self.chan[src].take().ok_or(Refused(()))?;
        self.sending[role] = true;
        Ok((src, msg))
    }

    /// The enabled actions, as Stateright's model lists them: role i sends
    /// when its next step is the send and its channel is empty, receives
    /// when its next step is the receive and its predecessor's channel is
    /// full. The engine then performs only these (no probe of the others);
    /// the determinism check compares this list with probing in every
    /// state. `Probed` hides it, for the probed figure.
    fn enabled(&self, out: &mut Vec<Enabled>) -> bool {
        let n = self.n();
        for role in 0..n {
            if self.sending[role] {
                if self.chan[role].is_none() {
                    out.push(Enabled::Send {
                        role,
                        to: succ(role, n),
                        ty: 0,
                    });
                }
            } else if self.chan[pred(role, n)].is_some() {
                out.push(Enabled::Recv {
                    role,
                    from: pred(role, n),
                });
            }
        }
        true
    }

    /// Two bits a role (its next step, its outgoing channel's contents),
    /// packed: 3 bytes at n = 12, where the object is 48 bytes plus two
    /// heap blocks.
    fn encode(&self, out: &mut Vec<u8>) -> bool {
        let bits = self
            .sending
            .iter()
            .copied()
            .chain(self.chan.iter().map(Option::is_some));
        pack(bits, out);
        true
    }

    /// The messages in transit are tokens (the only type `try_send`
    /// accepts), so the bits say everything.
    fn decode(&self, bytes: &[u8]) -> Option<Ring> {
        let n = self.n();
        let bit = |i: usize| Some(bytes.get(i / 8)? >> (i % 8) & 1 != 0);
        Some(Ring {
            sending: (0..n).map(bit).collect::<Option<_>>()?,
            chan: (n..2 * n)
                .map(|i| bit(i).map(|full| full.then(|| Message::new(Token))))
                .collect::<Option<_>>()?,
        })
        .filter(|_| bytes.len() == (2 * n).div_ceil(8))
    }
}

/// Appends `bits` to `out`, eight a byte, the first in the lowest bit.
/// Each byte is made in a register and pushed whole: or-ing every bit
/// into the last byte of `out` put a store and a reload in the way of each
/// bit (a quarter of a collapsed `ring` search's lookup time).
fn pack(bits: impl Iterator<Item = bool>, out: &mut Vec<u8>) {
    let (mut byte, mut n) = (0u8, 0);
    for b in bits {
        byte |= u8::from(b) << n;
        n += 1;
        if n == 8 {
            out.push(byte);
            (byte, n) = (0, 0);
        }
    }
    if n > 0 {
        out.push(byte);
    }
}

/// A star: the hub (role 0) sends to leaves 1..=n round-robin, each leaf
/// loops receiving from the hub. Exactly n * 2^n states.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Star {
    /// The leaf (0-based) the hub sends to next.
    next: usize,
    /// `chan[l]`: the message in transit from the hub to leaf l (role l+1).
    chan: Vec<Option<Message>>,
}

impl Star {
    /// A star of `leaves` leaves around the hub.
    pub fn new(leaves: usize) -> Star {
        assert!(leaves >= 1, "a star needs a leaf");
        Star {
            next: 0,
            chan: vec![None; leaves],
        }
    }

    /// The number of reachable states: n * 2^n.
    pub fn expected_states(n: usize) -> u64 {
        (n as u64) << n
    }
}

impl Protocol for Star {
    fn roles(&self) -> Vec<String> {
        let leaves = (1..=self.chan.len()).map(|l| format!("leaf{l}"));
        std::iter::once("hub".to_string()).chain(leaves).collect()
    }

    fn type_names(&self) -> Vec<String> {
        vec![TOKEN.to_string()]
    }

    fn peers(&self, role: RoleId) -> Option<Vec<RoleId>> {
        Some(star_peers(role, self.chan.len()))
    }

    fn sends_to(&self, role: RoleId) -> Option<Vec<RoleId>> {
        Some(star_sends_to(role, self.chan.len()))
    }

    fn try_send(&mut self, role: RoleId, to: RoleId, msg: Message) -> Result<(), Refused<Message>> {
        if role != 0
            || to != self.next + 1
            || self.chan[self.next].is_some()
            || msg.type_name() != TOKEN
        {
            return Err(Refused(msg));
        }
        self.chan[self.next] = Some(msg);
        self.next = (self.next + 1) % self.chan.len();
        Ok(())
    }

    fn try_recv(
        &mut self,
        role: RoleId,
        from: Option<RoleId>,
    ) -> Result<(RoleId, Message), Refused> {
        if role == 0 || role > self.chan.len() || from.is_some_and(|f| f != 0) {
            return Err(Refused(()));
        }
        let msg = self.chan[role - 1].take().ok_or(Refused(()))?;
        Ok((0, msg))
    }

    /// The hub's next leaf as a little-endian `u16`, then a bit a channel.
    fn encode(&self, out: &mut Vec<u8>) -> bool {
        out.extend_from_slice(&(self.next as u16).to_le_bytes());
        pack(self.chan.iter().map(Option::is_some), out);
        true
    }

    /// As for the ring: every message in transit is a token.
    fn decode(&self, bytes: &[u8]) -> Option<Star> {
        let leaves = self.chan.len();
        let (next, bits) = bytes.split_first_chunk::<2>()?;
        let next = u16::from_le_bytes(*next) as usize;
        if next >= leaves || bits.len() != leaves.div_ceil(8) {
            return None;
        }
        let chan = (0..leaves)
            .map(|l| (bits[l / 8] >> (l % 8) & 1 != 0).then(|| Message::new(Token)))
            .collect();
        Some(Star { next, chan })
    }
}

/// `P` with its topology hidden: [`Protocol::peers`] keeps the default
/// ("every other role"), as for an object that does not declare it, so the
/// engine probes every pair of roles.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AllPeers<P>(pub P);

impl<P: Protocol> Protocol for AllPeers<P> {
    fn roles(&self) -> Vec<String> {
        self.0.roles()
    }

    fn type_names(&self) -> Vec<String> {
        self.0.type_names()
    }

    fn try_send(&mut self, role: RoleId, to: RoleId, msg: Message) -> Result<(), Refused<Message>> {
        self.0.try_send(role, to, msg)
    }

    fn try_recv(
        &mut self,
        role: RoleId,
        from: Option<RoleId>,
    ) -> Result<(RoleId, Message), Refused> {
        self.0.try_recv(role, from)
    }

    fn try_close(&mut self, role: RoleId, to: RoleId) -> Result<(), Refused> {
        self.0.try_close(role, to)
    }

    fn is_terminated(&self) -> bool {
        self.0.is_terminated()
    }

    fn is_finished(&self, role: RoleId) -> bool {
        self.0.is_finished(role)
    }
}

/// `P` probed: [`Protocol::enabled`] keeps the default (lists nothing), as
/// for an object that does not list its actions, so the engine finds them
/// by probing every channel. Everything else, the codec included, is
/// `P`'s.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Probed<P>(pub P);

impl<P: Protocol> Protocol for Probed<P> {
    fn roles(&self) -> Vec<String> {
        self.0.roles()
    }

    fn type_names(&self) -> Vec<String> {
        self.0.type_names()
    }

    fn peers(&self, role: RoleId) -> Option<Vec<RoleId>> {
        self.0.peers(role)
    }

    fn sends_to(&self, role: RoleId) -> Option<Vec<RoleId>> {
        self.0.sends_to(role)
    }

    fn try_send(&mut self, role: RoleId, to: RoleId, msg: Message) -> Result<(), Refused<Message>> {
        self.0.try_send(role, to, msg)
    }

    fn try_recv(
        &mut self,
        role: RoleId,
        from: Option<RoleId>,
    ) -> Result<(RoleId, Message), Refused> {
        self.0.try_recv(role, from)
    }

    fn try_close(&mut self, role: RoleId, to: RoleId) -> Result<(), Refused> {
        self.0.try_close(role, to)
    }

    fn is_terminated(&self) -> bool {
        self.0.is_terminated()
    }

    fn is_finished(&self, role: RoleId) -> bool {
        self.0.is_finished(role)
    }

    fn encode(&self, out: &mut Vec<u8>) -> bool {
        self.0.encode(out)
    }

    fn decode(&self, bytes: &[u8]) -> Option<Self> {
        self.0.decode(bytes).map(Probed)
    }
}

thread_local! {
    /// The token a packed object hands out on a receive (cloning a
    /// `Message` is a reference-count increment; `Message::new` allocates).
    static TOKEN_MSG: Message = Message::new(Token);
}

fn token() -> Message {
    TOKEN_MSG.with(Message::clone)
}

/// [`Ring`] as two bitmasks (n <= 32).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PackedRing {
    n: u8,
    /// Bit i: role i's next step is the send.
    sending: u32,
    /// Bit i: the channel from role i to role i+1 holds the token.
    full: u32,
}

impl PackedRing {
    /// A ring of `n` roles.
    pub fn new(n: usize) -> PackedRing {
        assert!((2..=32).contains(&n), "a packed ring has 2..=32 roles");
        let all = u32::MAX >> (32 - n);
        PackedRing {
            n: n as u8,
            sending: all,
            full: 0,
        }
    }
}

impl Protocol for PackedRing {
    /// `false`: a few bytes with nothing on the heap, kept whole (and so
    /// searched on every core by default: `Checker::threads`).
    fn prefers_bytes(&self) -> bool {
        false
    }

    fn roles(&self) -> Vec<String> {
        (0..self.n).map(|i| format!("r{i}")).collect()
    }

    fn type_names(&self) -> Vec<String> {
        vec![TOKEN.to_string()]
    }

    fn peers(&self, role: RoleId) -> Option<Vec<RoleId>> {
        Some(ring_peers(role, self.n as usize))
    }

    fn sends_to(&self, role: RoleId) -> Option<Vec<RoleId>> {
        Some(vec![succ(role, self.n as usize)])
    }

    fn try_send(&mut self, role: RoleId, to: RoleId, msg: Message) -> Result<(), Refused<Message>> {
        let n = self.n as usize;
        let bit = 1u32.checked_shl(role as u32).unwrap_or(0);
        if role >= n
            || to != succ(role, n)
            || self.sending & bit == 0
            || self.full & bit != 0
            || msg.type_name() != TOKEN
        {
            return Err(Refused(msg));
        }
        self.full |= bit;
        self.sending &= !bit;
        Ok(())
    }

    fn try_recv(
        &mut self,
        role: RoleId,
        from: Option<RoleId>,
    ) -> Result<(RoleId, Message), Refused> {
        let n = self.n as usize;
        if role >= n || self.sending & (1 << role) != 0 {
            return Err(Refused(()));
        }
        let src = pred(role, n);
        if from.is_some_and(|f| f != src) || self.full & (1 << src) == 0 {
            return Err(Refused(()));
        }
        self.full &= !(1 << src);
        self.sending |= 1 << role;
        Ok((src, token()))
    }
}

/// [`Star`] as a counter and a bitmask (n <= 32 leaves).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PackedStar {
    leaves: u8,
    next: u8,
    /// Bit l: the channel from the hub to leaf l (role l+1) holds the token.
    full: u32,
}

impl PackedStar {
    /// A star of `leaves` leaves around the hub.
    pub fn new(leaves: usize) -> PackedStar {
        assert!(
            (1..=32).contains(&leaves),
            "a packed star has 1..=32 leaves"
        );
        PackedStar {
            leaves: leaves as u8,
            next: 0,
            full: 0,
        }
    }
}

impl Protocol for PackedStar {
    /// `false`: a few bytes with nothing on the heap, kept whole (and so
    /// searched on every core by default: `Checker::threads`).
    fn prefers_bytes(&self) -> bool {
        false
    }

    fn roles(&self) -> Vec<String> {
        let leaves = (1..=self.leaves).map(|l| format!("leaf{l}"));
        std::iter::once("hub".to_string()).chain(leaves).collect()
    }

    fn type_names(&self) -> Vec<String> {
        vec![TOKEN.to_string()]
    }

    fn peers(&self, role: RoleId) -> Option<Vec<RoleId>> {
        Some(star_peers(role, self.leaves as usize))
    }

    fn sends_to(&self, role: RoleId) -> Option<Vec<RoleId>> {
        Some(star_sends_to(role, self.leaves as usize))
    }

    fn try_send(&mut self, role: RoleId, to: RoleId, msg: Message) -> Result<(), Refused<Message>> {
        let next = self.next as usize;
        if role != 0 || to != next + 1 || self.full & (1 << next) != 0 || msg.type_name() != TOKEN {
            return Err(Refused(msg));
        }
        self.full |= 1 << next;
        self.next = ((next + 1) % self.leaves as usize) as u8;
        Ok(())
    }

    fn try_recv(
        &mut self,
        role: RoleId,
        from: Option<RoleId>,
    ) -> Result<(RoleId, Message), Refused> {
        if role == 0 || role > self.leaves as usize || from.is_some_and(|f| f != 0) {
            return Err(Refused(()));
        }
        let bit = 1 << (role - 1);
        if self.full & bit == 0 {
            return Err(Refused(()));
        }
        self.full &= !bit;
        Ok((0, token()))
    }
}

/// `(i + 1) % n` without a division (probes run hundreds of times per state).
fn succ(i: usize, n: usize) -> usize {
    if i + 1 == n {
        0
    } else {
        i + 1
    }
}

/// `(i + n - 1) % n` without a division.
fn pred(i: usize, n: usize) -> usize {
    if i == 0 {
        n - 1
    } else {
        i - 1
    }
}

/// `n` choose `k`.
pub fn binomial(n: u64, k: u64) -> u64 {
    (0..k).fold(1, |acc, i| acc * (n - i) / (i + 1))
}

/// What [`explore`] found.
pub struct Explored {
    /// States reached.
    pub states: u64,
    /// Transitions taken.
    pub transitions: u64,
    /// States in which no action is enabled.
    pub stuck: u64,
}

/// Probe pruning for [`explore`], to measure what each would save an
/// engine. Neither is in the engine; both are sound only under an
/// assumption stated with the field.
#[derive(Clone, Copy, Debug, Default)]
pub struct Pruning {
    /// Probe only along the channels that [`Protocol::sends_to`] (or else
    /// [`Protocol::peers`]) declares (the object's static communication
    /// topology), as the engine does.
    pub peers: bool,
    /// Probe `try_recv(role, None)` first and skip the role's per-sender
    /// receive probes when it is refused (sound if `None` means "from any
    /// sender", as the trait's documentation says).
    pub recv_any: bool,
    /// Not a pruning: take states last-in first-out (a depth-first order
    /// of expansion) instead of breadth-first, to see what the order does
    /// to the cache behaviour of the visited set.
    pub lifo: bool,
}

fn ring_peers(role: RoleId, n: usize) -> Vec<RoleId> {
    let mut p = vec![succ(role, n), pred(role, n)];
    p.dedup();
    p
}

/// The hub sends to every leaf; the leaves only receive.
fn star_sends_to(role: RoleId, leaves: usize) -> Vec<RoleId> {
    if role == 0 {
        (1..=leaves).collect()
    } else {
        vec![]
    }
}

fn star_peers(role: RoleId, leaves: usize) -> Vec<RoleId> {
    if role == 0 {
        (1..=leaves).collect()
    } else {
        vec![0]
    }
}

/// How [`explore`] stores the states it has seen, to measure what the
/// layout of a visited set costs with everything else equal.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Store {
    /// `std::collections::HashSet<P>` (SipHash), objects inline.
    #[default]
    Std,
    /// `hashbrown::HashSet<P>` (foldhash), objects inline.
    Inline,
    /// Objects in a `Vec<P>`, a `hashbrown::HashTable<u32>` of their
    /// indices (foldhash): the engine's interning layout, where a lookup
    /// that finds the state reads the table and then the `Vec`.
    Interned,
}

/// A set of seen states behind one of the [`Store`] layouts.
enum Seen<P> {
    Std(HashSet<P>),
    Inline(hashbrown::HashSet<P>),
    Interned {
        table: HashTable<u32>,
        objects: Vec<P>,
        hasher: DefaultHashBuilder,
    },
}

impl<P: Protocol> Seen<P> {
    fn new(store: Store) -> Self {
        match store {
            Store::Std => Seen::Std(HashSet::new()),
            Store::Inline => Seen::Inline(hashbrown::HashSet::new()),
            Store::Interned => Seen::Interned {
                table: HashTable::new(),
                objects: Vec::new(),
                hasher: DefaultHashBuilder::default(),
            },
        }
    }

    /// Whether `p` is new; stores a clone of it if so.
    fn insert(&mut self, p: &P) -> bool {
        match self {
            Seen::Std(s) => !s.contains(p) && s.insert(p.clone()),
            Seen::Inline(s) => !s.contains(p) && s.insert(p.clone()),
            Seen::Interned {
                table,
                objects,
                hasher,
            } => {
                let entry = table.entry(
                    hasher.hash_one(p),
                    |&i| objects[i as usize] == *p,
                    |&i| hasher.hash_one(&objects[i as usize]),
                );
                match entry {
                    Entry::Occupied(_) => false,
                    Entry::Vacant(v) => {
                        v.insert(objects.len() as u32);
                        objects.push(p.clone());
                        true
                    }
                }
            }
        }
    }

    fn len(&self) -> usize {
        match self {
            Seen::Std(s) => s.len(),
            Seen::Inline(s) => s.len(),
            Seen::Interned { objects, .. } => objects.len(),
        }
    }
}

/// Reference explorer, independent of the engine: breadth-first search over
/// the object's states through its try-operations alone, probing every
/// action of the full alphabet (sends with each dummy to every other role,
/// receives from every other role, closes to every other role), less what
/// `pruning` skips.
///
/// It probes in place on one working copy and clones only when a probe
/// succeeds: the trait's contract says a refused operation leaves the
/// object unchanged. Unpruned, this is the floor for any try-op based
/// search that probes the whole alphabet in every state.
pub fn explore<P: Protocol>(
    init: P,
    dummies: &[Message],
    pruning: Pruning,
    store: Store,
) -> Explored {
    let roles = init.roles().len();
    // The channels out of each role (`sends_to`, else `peers`, else every
    // other role), and into it.
    let outgoing: Vec<Vec<RoleId>> = (0..roles)
        .map(|r| {
            let all = || (0..roles).filter(|&p| p != r).collect();
            if pruning.peers {
                init.sends_to(r)
                    .or_else(|| init.peers(r))
                    .unwrap_or_else(all)
            } else {
                all()
            }
        })
        .collect();
    let incoming: Vec<Vec<RoleId>> = (0..roles)
        .map(|r| (0..roles).filter(|&f| outgoing[f].contains(&r)).collect())
        .collect();
    let mut seen = Seen::new(store);
    let mut queue = VecDeque::new();
    seen.insert(&init);
    queue.push_back(init);
    let (mut transitions, mut stuck) = (0, 0);
    let mut spare: Vec<Option<Message>> = vec![None; dummies.len()];
    while let Some(state) = if pruning.lifo {
        queue.pop_back()
    } else {
        queue.pop_front()
    } {
        let mut work = state.clone();
        let mut enabled = 0;
        let mut found = |succ: &mut P, enabled: &mut u64| {
            *enabled += 1;
            let next = std::mem::replace(succ, state.clone());
            if seen.insert(&next) {
                queue.push_back(next);
            }
        };
        for role in 0..roles {
            for &peer in &outgoing[role] {
                for (ty, dummy) in dummies.iter().enumerate() {
                    // A refusal gives the message back for the next probe.
                    let msg = spare[ty].take().unwrap_or_else(|| dummy.clone());
                    match work.try_send(role, peer, msg) {
                        Ok(()) => found(&mut work, &mut enabled),
                        Err(Refused(msg)) => spare[ty] = Some(msg),
                    }
                }
            }
            // The receive probe with `None` succeeds iff one with some
            // sender does; on success, undo it by starting afresh.
            let may_recv = !pruning.recv_any || {
                let ok = work.try_recv(role, None).is_ok();
                if ok {
                    work = state.clone();
                }
                ok
            };
            if may_recv {
                for &from in &incoming[role] {
                    if work.try_recv(role, Some(from)).is_ok() {
                        found(&mut work, &mut enabled);
                    }
                }
            }
            for &peer in &outgoing[role] {
                if work.try_close(role, peer).is_ok() {
                    found(&mut work, &mut enabled);
                }
            }
        }
        transitions += enabled;
        stuck += u64::from(enabled == 0);
    }
    Explored {
        states: seen.len() as u64,
        transitions,
        stuck,
    }
}
