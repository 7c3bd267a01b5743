//! Memory follows the object, not the square of its roles. A test binary
//! of its own: it measures the resident memory of the whole process, which
//! other tests running alongside would disturb.

use engine::{dummies, Checker, Limit, Message, Protocol, Refused, RoleId, Verdict};

#[derive(Clone, Debug)]
struct Token;

/// A star of `n` roles: the hub (role 0) passes a token to each leaf in
/// turn and gets it back, forever. It declares its channels.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Star {
    n: usize,
    /// The leaf that holds the token, or 0 for the hub.
    at: usize,
    /// The next leaf the hub sends to.
    next: usize,
    in_flight: Option<(usize, usize)>,
}

impl Protocol for Star {
    fn roles(&self) -> Vec<String> {
        (0..self.n).map(|i| format!("r{i}")).collect()
    }
    fn try_send(&mut self, role: RoleId, to: RoleId, msg: Message) -> Result<(), Refused<Message>> {
        let ok = self.in_flight.is_none()
            && self.at == role
            && if role == 0 { to == self.next } else { to == 0 };
        if !ok {
            return Err(Refused(msg));
        }
        self.in_flight = Some((role, to));
        if role == 0 {
            self.next = self.next % (self.n - 1) + 1;
        }
        Ok(())
    }
    fn try_recv(
        &mut self,
        role: RoleId,
        from: Option<RoleId>,
    ) -> Result<(RoleId, Message), Refused> {
        match self.in_flight {
            Some((f, t)) if t == role && from.is_none_or(|x| x == f) => {
                self.in_flight = None;
                self.at = role;
                Ok((f, Message::new(Token)))
            }
            _ => Err(Refused(())),
        }
    }
    fn peers(&self, role: RoleId) -> Option<Vec<RoleId>> {
        Some(if role == 0 {
            (1..self.n).collect()
        } else {
            vec![0]
        })
    }
}

#[test]
fn a_thousand_roles_need_no_roles_squared_tables() {
    // The memory limit is the process's resident size: alone in a child
    // process, no other test's memory counts.
    if !testkit::alone::in_child(
        module_path!(),
        "a_thousand_roles_need_no_roles_squared_tables",
    ) {
        return;
    }
    // The alphabet of 1,000 roles has 3 M letters. Stored as a table they
    // took 96 MiB (and the whole check ~150 MiB) before the first state;
    // now a letter is computed from its number. The memory limit turns a
    // regression into a wrong verdict here, without timing anything.
    let n = 1000;
    let star = Star {
        n,
        at: 0,
        next: 1,
        in_flight: None,
    };
    let r = Checker::new()
        .max_states(50)
        .max_memory(96 << 20)
        .determinism_check(false)
        .check(r#"G !"DEADLOCK""#, star, dummies![Token])
        .unwrap();
    assert!(
        matches!(
            r.verdict,
            Verdict::Inconclusive {
                limit: Limit::States(50),
                ..
            }
        ),
        "{r}"
    );
}
