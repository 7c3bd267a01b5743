//! Rings: the token ring and the directed ring with 1-slot channels.

use engine::{Message, Protocol, Refused, RoleId};

#[derive(Clone, Debug)]
pub struct Token;

/// A token ring of `n` roles `p0..`: the holder sends the token to its
/// successor, which then receives it and becomes the holder.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TokenRing {
    pub n: usize,
    pub holder: usize,
    pub in_transit: bool,
}

impl TokenRing {
    pub fn new(n: usize) -> Self {
        TokenRing {
            n,
            holder: 0,
            in_transit: false,
        }
    }
}

impl Protocol for TokenRing {
    fn roles(&self) -> Vec<String> {
        (0..self.n).map(|i| format!("p{i}")).collect()
    }
    fn try_send(&mut self, role: RoleId, to: RoleId, msg: Message) -> Result<(), Refused<Message>> {
        if role == self.holder
            && !self.in_transit
            && to == (role + 1) % self.n
            && msg.type_name() == "Token"
        {
            self.in_transit = true;
            Ok(())
        } else {
            Err(Refused(msg))
        }
    }
    fn try_recv(
        &mut self,
        role: RoleId,
        from: Option<RoleId>,
    ) -> Result<(RoleId, Message), Refused> {
        let sender = self.holder;
        if self.in_transit && role == (sender + 1) % self.n && from.is_none_or(|f| f == sender) {
            self.in_transit = false;
            self.holder = role;
            Ok((sender, Message::new(Token)))
        } else {
            Err(Refused(()))
        }
    }
}

#[derive(Clone, Debug)]
pub struct Msg;

/// The directed ring with 1-slot channels: role `i` loops "send to i+1,
/// then receive from i-1". Its state space has C(2n, n) states.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SlotRing {
    /// Bit i: role i has sent and waits to receive.
    pub waiting: u32,
    /// Bit i: the channel from i to i+1 holds a message.
    pub full: u32,
    pub n: u8,
}

impl SlotRing {
    pub fn new(n: usize) -> Self {
        SlotRing {
            waiting: 0,
            full: 0,
            n: n as u8,
        }
    }
}

impl Protocol for SlotRing {
    fn roles(&self) -> Vec<String> {
        (0..self.n).map(|i| format!("r{i}")).collect()
    }
    fn try_send(&mut self, role: RoleId, to: RoleId, msg: Message) -> Result<(), Refused<Message>> {
        let n = self.n as usize;
        if to == (role + 1) % n && self.waiting & 1 << role == 0 && self.full & 1 << role == 0 {
            self.waiting |= 1 << role;
            self.full |= 1 << role;
            Ok(())
        } else {
            Err(Refused(msg))
        }
    }
    fn try_recv(
        &mut self,
        role: RoleId,
        from: Option<RoleId>,
    ) -> Result<(RoleId, Message), Refused> {
        let n = self.n as usize;
        let prev = (role + n - 1) % n;
        if self.waiting & 1 << role != 0
            && self.full & 1 << prev != 0
            && from.is_none_or(|f| f == prev)
        {
            self.waiting &= !(1 << role);
            self.full &= !(1 << prev);
            Ok((prev, Message::new(Msg)))
        } else {
            Err(Refused(()))
        }
    }
    fn peers(&self, role: RoleId) -> Option<Vec<RoleId>> {
        let n = self.n as usize;
        Some(vec![(role + 1) % n, (role + n - 1) % n])
    }
}
