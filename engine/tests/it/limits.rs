//! Limits make a check inconclusive, never "holds".

use crate::common;

use std::time::Duration;

use common::small::{Chess, Move};

use engine::{check, dummies, Checker, Limit, Message, Protocol, Refused, RoleId, Verdict};

#[derive(Clone, Debug)]
struct Tick;

/// An unbounded counter: `clock` sends ticks to `watch` forever, and the
/// object counts them, so the state space is infinite.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Counter {
    ticks: u64,
    pending: bool,
}

impl Protocol for Counter {
    fn roles(&self) -> Vec<String> {
        vec!["clock".into(), "watch".into()]
    }
    fn try_send(&mut self, role: RoleId, _: RoleId, msg: Message) -> Result<(), Refused<Message>> {
        if role == 0 && !self.pending {
            self.pending = true;
            self.ticks += 1;
            Ok(())
        } else {
            Err(Refused(msg))
        }
    }
    fn try_recv(&mut self, role: RoleId, _: Option<RoleId>) -> Result<(RoleId, Message), Refused> {
        if role == 1 && self.pending {
            self.pending = false;
            Ok((0, Message::new(Tick)))
        } else {
            Err(Refused(()))
        }
    }
}

fn counter() -> Counter {
    Counter {
        ticks: 0,
        pending: false,
    }
}

#[test]
fn the_state_limit_gives_inconclusive() {
    let r = Checker::new()
        .max_states(1000)
        .check(r#"G !"DEADLOCK""#, counter(), dummies![Tick])
        .unwrap();
    match r.verdict {
        Verdict::Inconclusive {
            limit: Limit::States(1000),
            explored,
        } => assert_eq!(explored, 1000),
        ref v => panic!("{v:?}"),
    }
    assert!(r.to_string().contains("inconclusive"), "{r}");
    assert!(r.to_string().contains("PRUST_MAX_STATES"), "{r}");
}

#[test]
fn the_depth_limit_gives_inconclusive() {
    let r = Checker::new()
        .max_depth(50)
        .check(r#"G F "watch RECV *""#, counter(), dummies![Tick])
        .unwrap();
    assert!(
        matches!(
            r.verdict,
            Verdict::Inconclusive {
                limit: Limit::Depth(50),
                ..
            }
        ),
        "{r}"
    );
    assert_eq!(r.stats.max_depth, 50, "{r}");
}

#[test]
fn the_time_limit_gives_inconclusive() {
    let r = Checker::new()
        .timeout(Duration::from_millis(20))
        .max_states(u64::MAX)
        .check(r#"G !"DEADLOCK""#, counter(), dummies![Tick])
        .unwrap();
    assert!(
        matches!(
            r.verdict,
            Verdict::Inconclusive {
                limit: Limit::Time(_),
                ..
            }
        ),
        "{r}"
    );
}

#[test]
fn a_violation_within_the_limits_is_still_found() {
    // Depth-limited, but the lasso is short: the second step violates the
    // property, and the product cycles back after four more.
    let r = Checker::new()
        .max_depth(8)
        .check(r#"G !"black RECV *""#, Chess::new(), dummies![Move])
        .unwrap();
    let c = r.counterexample().expect("violated");
    assert_eq!(
        c.steps().nth(1).unwrap().to_string(),
        "black RECV <Move> FROM white",
        "{c}"
    );
}

#[test]
fn a_safety_violation_on_an_infinite_state_object_is_found() {
    // The bad step is enough under the stutter convention: no lasso needed.
    let r = Checker::new()
        .max_depth(10)
        .check(r#"G !"watch RECV *""#, counter(), dummies![Tick])
        .unwrap();
    let c = r.counterexample().expect("violated");
    assert_eq!(c.prefix.len(), 2, "{c}");
    // Infinite runs only: a violation must be shown as a lasso, and this
    // object has none, so the limit makes it inconclusive.
    let r = Checker::new()
        .max_depth(10)
        .semantics(engine::Semantics::InfiniteRunsOnly)
        .check(r#"G !"watch RECV *""#, counter(), dummies![Tick])
        .unwrap();
    assert!(
        matches!(
            r.verdict,
            Verdict::Inconclusive {
                limit: Limit::Depth(10),
                ..
            }
        ),
        "{r}"
    );
}

#[test]
fn a_liveness_violation_without_a_lasso_stays_inconclusive() {
    // Every run of the counter violates this, but no run is a lasso: within
    // the depth limit there is no cycle to show (a known limitation, see
    // the crate docs).
    let r = Checker::new()
        .max_depth(10)
        .check(r#"F G !"watch RECV *""#, counter(), dummies![Tick])
        .unwrap();
    assert!(
        matches!(
            r.verdict,
            Verdict::Inconclusive {
                limit: Limit::Depth(10),
                ..
            }
        ),
        "{r}"
    );
}

#[test]
#[should_panic(expected = "inconclusive")]
fn check_panics_when_inconclusive() {
    // The default state limit applies; keep it small through the builder's
    // environment default being overridden here by a tiny explicit limit.
    let r = Checker::new()
        .max_states(10)
        .check(r#"G !"DEADLOCK""#, counter(), dummies![Tick])
        .unwrap();
    if !r.holds() {
        panic!("{r}");
    }
    check(r#"G !"DEADLOCK""#, counter(), dummies![Tick]);
}

/// Every role talks to every other in any of `types` message types, and
/// nothing is ever enabled: all that matters is the size of its alphabet.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Crowd {
    roles: usize,
    types: usize,
}

impl Protocol for Crowd {
    fn roles(&self) -> Vec<String> {
        (0..self.roles).map(|r| format!("r{r}")).collect()
    }
    fn type_names(&self) -> Vec<String> {
        (0..self.types).map(|t| format!("T{t}")).collect()
    }
    fn try_send(&mut self, _: RoleId, _: RoleId, msg: Message) -> Result<(), Refused<Message>> {
        Err(Refused(msg))
    }
    fn try_recv(&mut self, _: RoleId, _: Option<RoleId>) -> Result<(RoleId, Message), Refused> {
        Err(Refused(()))
    }
}

#[test]
fn an_object_with_more_actions_than_letter_ids_is_an_error_not_a_panic() {
    // 1,000 roles, all 999,000 channels, 2,200 types: about 4.4 G action
    // letters, past the 32-bit letter ids (it used to be an `expect`).
    let crowd = Crowd {
        roles: 1000,
        types: 2200,
    };
    let e = Checker::new()
        .session(crowd, vec![])
        .err()
        .expect("an error");
    assert!(
        matches!(
            e,
            engine::Error::TooManyActions {
                roles: 1000,
                types: 2200,
                channels: 999_000,
            }
        ),
        "{e:?}"
    );
    assert!(
        e.to_string().contains("hint: declare only the channels"),
        "{e}"
    );
    // The same types among ten roles fit.
    let fits = Crowd {
        roles: 10,
        types: 2200,
    };
    assert!(Checker::new().session(fits, vec![]).is_ok());
}
