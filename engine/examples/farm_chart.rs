//! Prints the message sequence chart of a counterexample of a small
//! multi-role protocol (a coordinator and three workers), to look at how
//! [`Counterexample::to_dot`] renders a long lasso:
//!
//! ```text
//! cargo run -p prust-engine --example farm_chart > farm.dot && dot -Tpng farm.dot -o farm.png
//! ```
//!
//! `--trail` prints the counterexample's trail file instead.

use engine::{check_violated, dummies, Message, Protocol, Refused, RoleId};

#[derive(Clone, Debug)]
struct Job;
#[derive(Clone, Debug)]
struct Done;

/// `coord` (role 0) first closes its channel to `spare` (role 4, which
/// never acts), then in rounds sends a Job to each worker `w1..w3` (in any
/// order) and receives a Done from each (in any order). Each worker
/// receives its Job and answers Done. Channels hold one message.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Farm {
    closed: bool,
    /// Bit w: coord sent this round's job to worker w.
    sent: u8,
    /// Bit w: a Job is in transit to worker w.
    job: u8,
    /// Bit w: a Done is in transit from worker w.
    done: u8,
    /// Bit w: coord received worker w's Done this round.
    got: u8,
}

const WORKERS: u8 = 0b1110;

impl Protocol for Farm {
    fn roles(&self) -> Vec<String> {
        ["coord", "w1", "w2", "w3", "spare"]
            .map(String::from)
            .to_vec()
    }
    fn try_send(&mut self, role: RoleId, to: RoleId, msg: Message) -> Result<(), Refused<Message>> {
        let bit = 1u8 << to.min(7);
        match (role, msg.type_name()) {
            (0, "Job") if self.closed && bit & WORKERS != 0 && self.sent & bit == 0 => {
                self.sent |= bit;
                self.job |= bit;
                Ok(())
            }
            (1..=3, "Done") if to == 0 && self.pending_reply(role) => {
                self.done |= 1 << role;
                Ok(())
            }
            _ => Err(Refused(msg)),
        }
    }
    fn try_recv(
        &mut self,
        role: RoleId,
        from: Option<RoleId>,
    ) -> Result<(RoleId, Message), Refused> {
        match role {
            1..=3 if self.job & (1 << role) != 0 && from.is_none_or(|f| f == 0) => {
                self.job &= !(1 << role);
                Ok((0, Message::new(Job)))
            }
            0 => {
                let w = (1..=3).find(|&w| self.done & (1 << w) != 0 && from.is_none_or(|f| f == w));
                let Some(w) = w else { return Err(Refused(())) };
                self.done &= !(1 << w);
                self.got |= 1 << w;
                if self.got == WORKERS {
                    self.got = 0;
                    self.sent = 0;
                }
                Ok((w, Message::new(Done)))
            }
            _ => Err(Refused(())),
        }
    }
    fn try_close(&mut self, role: RoleId, to: RoleId) -> Result<(), Refused> {
        if role == 0 && to == 4 && !self.closed {
            self.closed = true;
            Ok(())
        } else {
            Err(Refused(()))
        }
    }
}

impl Farm {
    /// Worker `w` has received this round's job and not answered yet.
    fn pending_reply(&self, w: RoleId) -> bool {
        let bit = 1 << w;
        self.sent & bit != 0 && self.job & bit == 0 && self.done & bit == 0 && self.got & bit == 0
    }
}

fn main() {
    let farm = Farm {
        closed: false,
        sent: 0,
        job: 0,
        done: 0,
        got: 0,
    };
    let formula = std::env::args()
        .nth(2)
        .unwrap_or_else(|| r#"F G !"w3 RECV *""#.to_string());
    let run = check_violated(&formula, farm.clone(), dummies![Job, Done]);
    eprintln!("{run}");
    if std::env::args().nth(1).as_deref() == Some("--trail") {
        print!("{}", run.to_trail());
    } else {
        print!("{}", run.to_dot());
    }
}
