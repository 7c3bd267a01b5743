//! [`Ring`] and [`Star`] as a straightforward hand-written object keeps
//! them: a control flag or counter per role in a `Vec` and the
//! [`Message`] in transit per channel. Its own file: one representation.

use engine::{Enabled, Message, Protocol, Refused, RoleId};

use super::shared::{binomial, pred, ring_peers, star_peers, star_sends_to, succ, Token, TOKEN};

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
