//! [`PackedRing`] and [`PackedStar`]: the states of [`Ring`](super::Ring)
//! and [`Star`](super::Star) as bitmasks. Its own file: one representation.

use engine::{Message, Protocol, Refused, RoleId};

use super::shared::{pred, ring_peers, star_peers, star_sends_to, succ, token, TOKEN};

/// [`Ring`](super::Ring) as two bitmasks (n <= 32).
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

/// [`Star`](super::Star) as a counter and a bitmask (n <= 32 leaves).
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
