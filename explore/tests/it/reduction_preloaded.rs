//! Objects whose channels hold messages that no step of the program
//! sent: a message there from the start. The k-th receive from a sender
//! then need not wait for the sender's k-th send, so DPOR may not take
//! that send to come before it in every execution.

use std::collections::VecDeque;

use prust::explore::{Handle, Roles};
use prust::session::BlockingEndpoint;
use prust::{Message, Protocol, Refused, RoleId};

use super::support::agree::{assert_agree, disagreements};

/// Roles x (0), r (1) and y (2), FIFO channels x → r and y → r, and x
/// may send to r only while r has taken nothing from x. Two ways of
/// holding a message x never sent: `preloaded` starts with `Init` on
/// x → r and lets r receive only once someone has sent; `relay` puts a
/// `Copy` on x → r with each send of y.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Unsent {
    from_x: VecDeque<Message>,
    from_y: VecDeque<Message>,
    opened: bool,
    x_taken: bool,
    copy_y_sends: bool,
}

impl Unsent {
    fn preloaded() -> Self {
        Unsent {
            from_x: VecDeque::from([Message::named("Init", ())]),
            from_y: VecDeque::new(),
            opened: false,
            x_taken: false,
            copy_y_sends: false,
        }
    }
    fn relay() -> Self {
        Unsent {
            from_x: VecDeque::new(),
            from_y: VecDeque::new(),
            opened: true,
            x_taken: false,
            copy_y_sends: true,
        }
    }
}

impl Protocol for Unsent {
    fn roles(&self) -> Vec<String> {
        ["x", "r", "y"].map(String::from).to_vec()
    }
    fn try_send(&mut self, role: RoleId, to: RoleId, msg: Message) -> Result<(), Refused<Message>> {
        match (role, to) {
            (0, 1) if !self.x_taken => self.from_x.push_back(msg),
            (2, 1) => {
                self.from_y.push_back(msg);
                if self.copy_y_sends {
                    self.from_x.push_back(Message::named("Copy", ()));
                }
            }
            _ => return Err(Refused(msg)),
        }
        self.opened = true;
        Ok(())
    }
    fn try_recv(
        &mut self,
        role: RoleId,
        from: Option<RoleId>,
    ) -> Result<(RoleId, Message), Refused> {
        if role != 1 || !self.opened {
            return Err(Refused(()));
        }
        for f in [0, 2] {
            if from.is_some_and(|n| n != f) {
                continue;
            }
            let q = if f == 0 {
                &mut self.from_x
            } else {
                &mut self.from_y
            };
            if let Some(m) = q.pop_front() {
                self.x_taken |= f == 0;
                return Ok((f, m));
            }
        }
        Err(Refused(()))
    }
    fn is_channel_empty(&self, from: RoleId, to: RoleId) -> bool {
        match (from, to) {
            (0, 1) => self.from_x.is_empty(),
            (2, 1) => self.from_y.is_empty(),
            _ => true,
        }
    }
    fn is_terminated(&self) -> bool {
        true
    }
}

/// x and y each send one message to r, which receives from x, then
/// from y: the order "y, r, r" leaves x's send refused for ever.
fn program(r: &mut Roles<'_, Unsent>) -> Handle<String> {
    r.spawn("x", |mut ep| ep.send("r", Message::named("A", ())).unwrap());
    r.spawn("y", |mut ep| ep.send("r", Message::named("B", ())).unwrap());
    r.spawn("r", |mut ep| {
        let a = ep.recv_from("x").unwrap();
        let b = ep.recv_from("y").unwrap();
        format!("{} {}", a.type_name(), b.type_name())
    })
}

/// y sends, r takes `Init` before x has sent, and x's send is refused for
/// ever: a deadlock that only that order shows. With x's send taken to
/// come before r's first receive from x in every execution (the first
/// receive from a sender needs its first send, for objects that start
/// empty), the reductions never ran y first.
#[test]
fn a_receive_of_a_message_there_from_the_start_needs_no_send() {
    assert_agree(disagreements(
        &Unsent::preloaded(),
        program,
        &[None, Some(0), Some(1)],
        None,
    ));
}

/// y sends (and the object puts `Copy` on x → r), r takes `Copy` from x
/// before x has sent, and x's send is refused for ever. x's send does
/// not come before r's first receive from x in every execution here
/// either; the race is judged where the receive is accepted (after y's
/// send), so it is reversed.
#[test]
fn a_receive_of_a_message_the_object_made_needs_no_send() {
    assert_agree(disagreements(
        &Unsent::relay(),
        program,
        &[None, Some(0), Some(1)],
        None,
    ));
}
