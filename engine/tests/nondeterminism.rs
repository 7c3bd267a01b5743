//! Objects that break the Protocol contract are caught by the determinism
//! check (on by default in debug builds).

use std::sync::atomic::{AtomicUsize, Ordering};

use engine::{dummies, Checker, Error, Message, Protocol, Refused, RoleId};

#[derive(Clone, Debug)]
struct Ping;

static CALLS: AtomicUsize = AtomicUsize::new(0);

/// Whether a send goes through depends on a global counter, not on the
/// object's state.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Flaky {
    sent: bool,
}

impl Protocol for Flaky {
    fn roles(&self) -> Vec<String> {
        vec!["a".into(), "b".into()]
    }
    fn try_send(
        &mut self,
        role: RoleId,
        _to: RoleId,
        msg: Message,
    ) -> Result<(), Refused<Message>> {
        if role == 0 && !self.sent && CALLS.fetch_add(1, Ordering::SeqCst) & 1 == 0 {
            self.sent = true;
            Ok(())
        } else {
            Err(Refused(msg))
        }
    }
    fn try_recv(
        &mut self,
        role: RoleId,
        _from: Option<RoleId>,
    ) -> Result<(RoleId, Message), Refused> {
        if role == 1 && self.sent {
            self.sent = false;
            Ok((0, Message::new(Ping)))
        } else {
            Err(Refused(()))
        }
    }
}

/// A receive that is refused but still changes the object.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Leaky {
    polls: u8,
}

impl Protocol for Leaky {
    fn roles(&self) -> Vec<String> {
        vec!["a".into(), "b".into()]
    }
    fn try_send(&mut self, _: RoleId, _: RoleId, msg: Message) -> Result<(), Refused<Message>> {
        Err(Refused(msg))
    }
    fn try_recv(&mut self, _: RoleId, _: Option<RoleId>) -> Result<(RoleId, Message), Refused> {
        self.polls = self.polls.wrapping_add(1);
        Err(Refused(()))
    }
}

#[test]
fn nondeterminism_is_reported_naming_the_action() {
    let r = Checker::new().determinism_check(true).check(
        r#"G F "b RECV *""#,
        Flaky { sent: false },
        dummies![Ping],
    );
    match r {
        Err(Error::Nondeterminism { action, detail, .. }) => {
            assert_eq!(action, "a SEND <Ping> TO b");
            assert!(detail.contains("on one and"), "{detail}");
        }
        other => panic!("expected nondeterminism, got {other:?}"),
    }
}

#[test]
fn a_refusal_that_changes_the_object_breaks_the_contract() {
    let r = Checker::new().determinism_check(true).check(
        r#"G !"DEADLOCK""#,
        Leaky { polls: 0 },
        dummies![Ping],
    );
    match r {
        Err(e @ Error::Contract { .. }) => {
            let text = e.to_string();
            assert!(text.contains("a RECV FROM b"), "{text}");
            assert!(text.contains("refusal must leave no trace"), "{text}");
        }
        other => panic!("expected a contract error, got {other:?}"),
    }
}

/// Declares that a and b never talk, but they do.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct WrongTopology(Flaky);

impl Protocol for WrongTopology {
    fn roles(&self) -> Vec<String> {
        vec!["a".into(), "b".into(), "c".into()]
    }
    fn try_send(&mut self, role: RoleId, to: RoleId, msg: Message) -> Result<(), Refused<Message>> {
        if role == 0 && to == 1 && !self.0.sent {
            self.0.sent = true;
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
        if role == 1 && self.0.sent && from.is_none_or(|f| f == 0) {
            self.0.sent = false;
            Ok((0, Message::new(Ping)))
        } else {
            Err(Refused(()))
        }
    }
    fn peers(&self, role: RoleId) -> Option<Vec<RoleId>> {
        Some(if role == 2 { vec![] } else { vec![2] })
    }
}

/// A topology hint that leaves out the channel a → b, on which the object
/// acts: the determinism check reports it; without the check the hint is
/// trusted, the channel never probed, so nothing ever happens.
fn a_wrong_hint_is_caught<P: Protocol>(obj: P) {
    let r = Checker::new().determinism_check(true).check(
        r#"G F "b RECV *""#,
        obj.clone(),
        dummies![Ping],
    );
    match r {
        Err(e @ Error::Contract { .. }) => {
            assert!(e.to_string().contains("has no channel from a to b"), "{e}")
        }
        other => panic!("expected a contract error, got {other:?}"),
    }
    let r = Checker::new()
        .determinism_check(false)
        .check(r#"G !"* * *""#, obj, dummies![Ping])
        .unwrap();
    assert!(r.holds(), "{r}");
}

#[test]
fn a_wrong_topology_hint_is_caught_by_the_determinism_check() {
    a_wrong_hint_is_caught(WrongTopology(Flaky { sent: false }));
}

/// Declares with `sends_to` that b sends to a, but a sends to b: the
/// direction is wrong, though the pair is right.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct WrongDirection(Flaky);

/// a sends to b, one message at a time, through `WrongTopology`'s
/// operations (the objects with wrong hints below add only the hint).
macro_rules! a_sends_to_b {
    () => {
        fn roles(&self) -> Vec<String> {
            vec!["a".into(), "b".into()]
        }
        fn try_send(
            &mut self,
            role: RoleId,
            to: RoleId,
            msg: Message,
        ) -> Result<(), Refused<Message>> {
            WrongTopology(self.0.clone())
                .try_send(role, to, msg)
                .inspect(|_| self.0.sent = true)
        }
        fn try_recv(
            &mut self,
            role: RoleId,
            from: Option<RoleId>,
        ) -> Result<(RoleId, Message), Refused> {
            WrongTopology(self.0.clone())
                .try_recv(role, from)
                .inspect(|_| self.0.sent = false)
        }
    };
}

impl Protocol for WrongDirection {
    a_sends_to_b!();
    fn peers(&self, _: RoleId) -> Option<Vec<RoleId>> {
        None
    }
    fn sends_to(&self, role: RoleId) -> Option<Vec<RoleId>> {
        Some(if role == 1 { vec![0] } else { vec![] })
    }
}

#[test]
fn a_wrong_direction_in_sends_to_is_caught_by_the_determinism_check() {
    a_wrong_hint_is_caught(WrongDirection(Flaky { sent: false }));
}

/// Promises with `may_recv` that b's receive would be refused, while it
/// succeeds: a session would skip b's waiting receive and could report a
/// deadlock that is none.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct WrongRecvHint(Flaky);

impl Protocol for WrongRecvHint {
    a_sends_to_b!();
    fn may_recv(&self, _: RoleId, from: Option<RoleId>) -> bool {
        from.is_none() // wrong when the sender is named
    }
}

#[test]
fn a_wrong_receive_hint_is_caught_by_the_determinism_check() {
    let r = Checker::new().determinism_check(true).check(
        r#"G F "b RECV *""#,
        WrongRecvHint(Flaky { sent: false }),
        dummies![Ping],
    );
    match r {
        Err(e @ Error::Contract { .. }) => {
            assert!(e.to_string().contains("may_recv() said"), "{e}")
        }
        other => panic!("expected a contract error, got {other:?}"),
    }
}

/// a's send goes through only the first time it is ever tried (the count
/// is shared by every clone, and not part of the state): the search sees
/// a → b happen, but when it re-explores to build the counterexample the
/// send is refused, so the state it found is unreachable.
#[derive(Clone, Debug)]
struct OnlyOnce {
    sent: bool,
    received: bool,
    calls: std::sync::Arc<AtomicUsize>,
}

impl PartialEq for OnlyOnce {
    fn eq(&self, other: &Self) -> bool {
        (self.sent, self.received) == (other.sent, other.received)
    }
}
impl Eq for OnlyOnce {}
impl std::hash::Hash for OnlyOnce {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        (self.sent, self.received).hash(h)
    }
}

impl Protocol for OnlyOnce {
    fn roles(&self) -> Vec<String> {
        vec!["a".into(), "b".into()]
    }
    fn try_send(&mut self, role: RoleId, to: RoleId, msg: Message) -> Result<(), Refused<Message>> {
        if role == 0 && to == 1 && !self.sent && self.calls.fetch_add(1, Ordering::SeqCst) == 0 {
            self.sent = true;
            Ok(())
        } else {
            Err(Refused(msg))
        }
    }
    fn try_recv(&mut self, role: RoleId, _: Option<RoleId>) -> Result<(RoleId, Message), Refused> {
        if role == 1 && self.sent {
            self.sent = false;
            self.received = true;
            Ok((0, Message::new(Ping)))
        } else {
            Err(Refused(()))
        }
    }
}

#[test]
fn without_the_determinism_check_a_lost_counterexample_is_an_error_not_a_panic() {
    for formula in [
        // Breadth-first (safety) search: the bad state cannot be reached again.
        r#"G !"b RECV *""#,
        // Depth-first search, bad prefix: the same, found depth-first.
        r#"G !"b RECV *" & G F "a SEND *""#,
        // Depth-first search, lasso: the accepting cycle is the deadlock
        // after b's receive, and the prefix to it cannot be re-explored.
        r#"G F "a SEND *""#,
    ] {
        let obj = OnlyOnce {
            sent: false,
            received: false,
            calls: Default::default(),
        };
        let r = Checker::new()
            .determinism_check(false)
            .check(formula, obj, dummies![Ping]);
        match r {
            Err(e @ Error::Nondeterminism { .. }) => {
                let text = e.to_string();
                assert!(text.contains("PRUST_DETERMINISM=1"), "{text}");
            }
            other => panic!("{formula}: expected nondeterminism, got {other:?}"),
        }
    }
}
