//! Objects that break the Protocol contract are caught by the determinism
//! check (on by default in debug builds).

use std::sync::atomic::{AtomicUsize, Ordering};

use crate::common;

use common::wrapped::{Twist, Wrapped};
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

/// a sends to b, one message at a time, and b receives it: the object
/// that the objects with wrong hints below wrap (unlike [`Flaky`], it
/// keeps the contract).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct AToB {
    sent: bool,
}

impl Protocol for AToB {
    fn roles(&self) -> Vec<String> {
        vec!["a".into(), "b".into()]
    }
    fn try_send(&mut self, role: RoleId, to: RoleId, msg: Message) -> Result<(), Refused<Message>> {
        if role == 0 && to == 1 && !self.sent {
            self.sent = true;
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
        if role == 1 && self.sent && from.is_none_or(|f| f == 0) {
            self.sent = false;
            Ok((0, Message::new(Ping)))
        } else {
            Err(Refused(()))
        }
    }
}

/// Adds a role c and declares that a and b never talk (each talks only
/// with c), but they do.
#[derive(Clone, Debug)]
struct WrongTopology;

impl Twist<AToB> for WrongTopology {
    fn roles(&self, _: &AToB) -> Vec<String> {
        vec!["a".into(), "b".into(), "c".into()]
    }
    fn peers(&self, _: &AToB, role: RoleId) -> Option<Vec<RoleId>> {
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
    a_wrong_hint_is_caught(Wrapped::new(AToB { sent: false }, WrongTopology));
}

/// Declares with `sends_to` that b sends to a, but a sends to b: the
/// direction is wrong, though the pair is right.
#[derive(Clone, Debug)]
struct WrongDirection;

impl Twist<AToB> for WrongDirection {
    fn sends_to(&self, _: &AToB, role: RoleId) -> Option<Vec<RoleId>> {
        Some(if role == 1 { vec![0] } else { vec![] })
    }
}

#[test]
fn a_wrong_direction_in_sends_to_is_caught_by_the_determinism_check() {
    a_wrong_hint_is_caught(Wrapped::new(AToB { sent: false }, WrongDirection));
}

/// Promises with `may_recv` that b's receive would be refused, while it
/// succeeds: a session would skip b's waiting receive and could report a
/// deadlock that is none.
#[derive(Clone, Debug)]
struct WrongRecvHint;

impl Twist<AToB> for WrongRecvHint {
    fn may_recv(&self, _: &AToB, _: RoleId, from: Option<RoleId>) -> bool {
        from.is_none() // wrong when the sender is named
    }
}

#[test]
fn a_wrong_receive_hint_is_caught_by_the_determinism_check() {
    let r = Checker::new().determinism_check(true).check(
        r#"G F "b RECV *""#,
        Wrapped::new(AToB { sent: false }, WrongRecvHint),
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
        // One thread: the parallel search keeps every state's parent and
        // builds the counterexample from what it saw, never re-exploring,
        // so it has no counterexample to lose.
        let r =
            Checker::new()
                .determinism_check(false)
                .threads(1)
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

/// Two ways to n = 1, a's send (`hidden` false) and b's send (`hidden`
/// true), but `Eq`/`Hash` see only `n`: the search stores one of the two
/// and takes its successors for both. Only with `hidden` may a send again,
/// so "b sends, then a sends" is a run the merged state space lacks.
#[derive(Clone, Debug)]
struct HiddenField {
    n: u8,
    hidden: bool,
}

impl PartialEq for HiddenField {
    fn eq(&self, other: &Self) -> bool {
        self.n == other.n
    }
}
impl Eq for HiddenField {}
impl std::hash::Hash for HiddenField {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.n.hash(h)
    }
}

impl Protocol for HiddenField {
    fn roles(&self) -> Vec<String> {
        vec!["a".into(), "b".into()]
    }
    fn try_send(&mut self, role: RoleId, to: RoleId, msg: Message) -> Result<(), Refused<Message>> {
        match (self.n, role, to) {
            (0, _, _) if role != to => {
                self.n = 1;
                self.hidden = role == 1;
                Ok(())
            }
            (1, 0, 1) if self.hidden => {
                self.n = 2;
                Ok(())
            }
            _ => Err(Refused(msg)),
        }
    }
    fn try_recv(&mut self, _: RoleId, _: Option<RoleId>) -> Result<(RoleId, Message), Refused> {
        Err(Refused(()))
    }
}

#[test]
fn equal_objects_that_behave_differently_are_caught_on_the_revisit() {
    // The property is violated (b sends, then a sends), but the merged
    // state space cannot show it.
    let formula = r#"G ("b SEND *" -> X !"a SEND *")"#;
    let obj = HiddenField {
        n: 0,
        hidden: false,
    };
    let r = Checker::new()
        .determinism_check(true)
        .check(formula, obj.clone(), dummies![Ping]);
    match r {
        Err(e @ Error::Nondeterminism { .. }) => {
            let text = e.to_string();
            assert!(text.contains("`b SEND <Ping> TO a`"), "{text}");
            assert!(text.contains("stored protocol state #1"), "{text}");
            assert!(
                text.contains("`a SEND <Ping> TO b` was refused on the stored object and succeeded on the new one"),
                "{text}"
            );
            assert!(text.contains("Eq/Hash"), "{text}");
        }
        other => panic!("expected nondeterminism, got {other:?}"),
    }
    // Why it matters: without the check the verdict is wrong.
    let r = Checker::new()
        .determinism_check(false)
        .check(formula, obj, dummies![Ping])
        .unwrap();
    assert!(r.holds(), "{r}");
}

/// Counts its clones in a field that `Eq`/`Hash` ignore, and refuses the
/// n-th send on an object cloned fewer than n times. The search probes
/// fresh clones of stored states, one clone further down the path at each
/// step, so it always sees the send go through; a run performs the steps
/// on one object, which was cloned once, and gets stuck at the third.
#[derive(Debug)]
struct CloneCounted {
    n: u8,
    clones: u8,
}

impl Clone for CloneCounted {
    fn clone(&self) -> Self {
        CloneCounted {
            n: self.n,
            clones: self.clones.saturating_add(1),
        }
    }
}
impl PartialEq for CloneCounted {
    fn eq(&self, other: &Self) -> bool {
        self.n == other.n
    }
}
impl Eq for CloneCounted {}
impl std::hash::Hash for CloneCounted {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.n.hash(h)
    }
}

impl Protocol for CloneCounted {
    fn roles(&self) -> Vec<String> {
        vec!["a".into(), "b".into()]
    }
    fn try_send(&mut self, role: RoleId, to: RoleId, msg: Message) -> Result<(), Refused<Message>> {
        if (role, to) == (0, 1) && self.n < 3 && self.clones >= self.n {
            self.n += 1;
            Ok(())
        } else {
            Err(Refused(msg))
        }
    }
    fn try_recv(&mut self, _: RoleId, _: Option<RoleId>) -> Result<(RoleId, Message), Refused> {
        Err(Refused(()))
    }
}

#[test]
fn behaviour_that_depends_on_the_number_of_clones_is_caught_on_the_counterexample() {
    let r = Checker::new().determinism_check(true).check(
        r#"G !"DEADLOCK""#,
        CloneCounted { n: 0, clones: 0 },
        dummies![Ping],
    );
    match r {
        Err(e @ Error::Nondeterminism { .. }) => {
            let text = e.to_string();
            assert!(text.contains("`a SEND <Ping> TO b`"), "{text}");
            assert!(text.contains("re-executed"), "{text}");
            assert!(
                text.contains("step 3 could not be replayed (it was refused)"),
                "{text}"
            );
        }
        other => panic!("expected nondeterminism, got {other:?}"),
    }
}

/// a's first send goes through only for the first four attempts in the
/// process (a `static` count, not part of the state): the search probes it
/// twice (two clones, which agree) and twice again to build the
/// counterexample, so it sees a consistent object; the run of the
/// counterexample made afterwards is refused. (Should the engine probe
/// more often, the error would come from the search instead and the
/// assertion on the message would say so.)
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Dwindling {
    sent: bool,
}

static DWINDLING_CALLS: AtomicUsize = AtomicUsize::new(0);

impl Protocol for Dwindling {
    fn roles(&self) -> Vec<String> {
        vec!["a".into(), "b".into()]
    }
    fn try_send(&mut self, role: RoleId, to: RoleId, msg: Message) -> Result<(), Refused<Message>> {
        // The count is read only for the one send that matters, so that
        // other probes do not use up its attempts.
        if (role, to) == (0, 1) && !self.sent && DWINDLING_CALLS.fetch_add(1, Ordering::SeqCst) < 4
        {
            self.sent = true;
            return Ok(());
        }
        Err(Refused(msg))
    }
    fn try_recv(&mut self, _: RoleId, _: Option<RoleId>) -> Result<(RoleId, Message), Refused> {
        Err(Refused(()))
    }
}

#[test]
fn behaviour_that_depends_on_a_global_counter_is_caught_on_the_counterexample() {
    let r = Checker::new().determinism_check(true).check(
        r#"G !"a SEND *""#,
        Dwindling { sent: false },
        dummies![Ping],
    );
    match r {
        Err(e @ Error::Nondeterminism { .. }) => {
            let text = e.to_string();
            assert!(text.contains("`a SEND <Ping> TO b`"), "{text}");
            assert!(
                text.contains("step 1 could not be replayed (it was refused)"),
                "{text}"
            );
        }
        other => panic!("expected nondeterminism, got {other:?}"),
    }
}
