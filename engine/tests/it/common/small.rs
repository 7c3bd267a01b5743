//! Small hand-written protocol objects.

use engine::{Message, Protocol, Refused, RoleId};

#[derive(Clone, Debug)]
pub struct Move;

#[derive(Clone, Debug)]
pub struct Req;

/// Chess by mail: white and black alternate moves through a one-slot
/// channel each way. Roles: white (0), black (1).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Chess {
    /// Whose turn it is to send (0 white, 1 black).
    pub turn: usize,
    /// A move is in transit to `1 - turn`.
    pub in_transit: bool,
}

impl Chess {
    pub fn new() -> Self {
        Chess {
            turn: 0,
            in_transit: false,
        }
    }
}

impl Protocol for Chess {
    fn roles(&self) -> Vec<String> {
        vec!["white".into(), "black".into()]
    }
    fn type_names(&self) -> Vec<String> {
        vec!["Move".into()]
    }
    fn try_send(&mut self, role: RoleId, to: RoleId, msg: Message) -> Result<(), Refused<Message>> {
        if role == self.turn && to == 1 - role && !self.in_transit && msg.type_name() == "Move" {
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
        if self.in_transit && role == 1 - self.turn && from.is_none_or(|f| f == self.turn) {
            let sender = self.turn;
            self.in_transit = false;
            self.turn = role;
            Ok((sender, Message::new(Move)))
        } else {
            Err(Refused(()))
        }
    }
}

/// `client` sends a request to `server`, which receives it; then, if
/// `deadlock`, both wait for each other forever, otherwise the protocol
/// terminates.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct OneShot {
    pub step: u8,
    pub deadlock: bool,
}

impl Protocol for OneShot {
    fn roles(&self) -> Vec<String> {
        vec!["client".into(), "server".into()]
    }
    fn try_send(&mut self, role: RoleId, to: RoleId, msg: Message) -> Result<(), Refused<Message>> {
        if self.step == 0 && role == 0 && to == 1 {
            self.step = 1;
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
        if self.step == 1 && role == 1 && from.is_none_or(|f| f == 0) {
            self.step = 2;
            Ok((0, Message::new(Req)))
        } else {
            Err(Refused(()))
        }
    }
    fn is_terminated(&self) -> bool {
        self.step == 2 && !self.deadlock
    }
}
