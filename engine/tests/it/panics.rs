//! Protocol code that panics while being explored is reported with the
//! trace that led there.

use crate::common;

use common::ring::{Token, TokenRing};
use common::wrapped::{Twist, Wrapped};
use engine::{check, dummies, try_check, Checker, Error, Message, Protocol, Refused, RoleId};

/// A token ring whose third role panics when it tries to pass the token on.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Faulty {
    holder: usize,
    in_transit: bool,
}

impl Protocol for Faulty {
    fn roles(&self) -> Vec<String> {
        vec!["p0".into(), "p1".into(), "p2".into()]
    }
    fn try_send(&mut self, role: RoleId, to: RoleId, msg: Message) -> Result<(), Refused<Message>> {
        if role == self.holder && !self.in_transit && to == (role + 1) % 3 {
            let table = [1, 2];
            // The bug: indexes past the end for the last role.
            let _next = table[role];
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
        if self.in_transit && role == (self.holder + 1) % 3 && from.is_none_or(|f| f == self.holder)
        {
            let sender = self.holder;
            self.in_transit = false;
            self.holder = role;
            Ok((sender, Message::new(Token)))
        } else {
            Err(Refused(()))
        }
    }
}

fn faulty() -> Faulty {
    Faulty {
        holder: 0,
        in_transit: false,
    }
}

#[test]
fn a_panic_is_an_error_with_its_trace() {
    match try_check(r#"G F "p0 SEND *""#, faulty(), dummies![Token]) {
        Err(Error::ProtocolPanic {
            action,
            message,
            trace,
        }) => {
            assert_eq!(action, "p2 SEND <Token> TO p0");
            assert!(message.contains("index out of bounds"), "{message}");
            assert_eq!(
                trace,
                vec![
                    "p0 SEND <Token> TO p1",
                    "p1 RECV <Token> FROM p0",
                    "p1 SEND <Token> TO p2",
                    "p2 RECV <Token> FROM p1"
                ]
            );
        }
        other => panic!("expected a protocol panic, got {other:?}"),
    }
}

#[test]
#[should_panic(expected = "protocol code panicked while probing `p2 SEND <Token> TO p0`")]
fn check_reports_the_panic() {
    check(r#"G F "p0 SEND *""#, faulty(), dummies![Token]);
}

/// The same report from every search path: the SCC search (a liveness
/// property) and the breadth-first one (a safety property), each with and
/// without the determinism check (which decides whether a state's actions
/// are probed one at a time or all in one pass), and with and without
/// hash compaction (whose breadth-first search has let the panicking
/// state's id go by the time it expands it).
#[test]
fn every_search_path_reports_the_panic_with_its_trace() {
    for formula in [
        r#"G F "p0 SEND *""#,
        r#"G !"DEADLOCK""#,
        r#"G !"p2 CLOSE *""#,
    ] {
        for (determinism, compact) in [(true, false), (false, false), (true, true), (false, true)] {
            let r = Checker::new()
                .determinism_check(determinism)
                .hash_compaction(compact)
                .check(formula, faulty(), dummies![Token]);
            let case = format!("{formula}, determinism {determinism}, compaction {compact}");
            match r {
                Err(Error::ProtocolPanic { action, trace, .. }) => {
                    assert_eq!(action, "p2 SEND <Token> TO p0", "{case}");
                    assert_eq!(trace.len(), 4, "{case}: {trace:?}");
                    assert_eq!(trace[3], "p2 RECV <Token> FROM p1");
                }
                other => panic!("{case}: got {other:?}"),
            }
        }
    }
}

/// Sends once, then nothing is enabled, and asking whether it terminated
/// panics.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct BadEnd {
    sent: bool,
}

impl Protocol for BadEnd {
    fn roles(&self) -> Vec<String> {
        vec!["a".into(), "b".into()]
    }
    fn try_send(&mut self, role: RoleId, _: RoleId, msg: Message) -> Result<(), Refused<Message>> {
        if role == 0 && !self.sent {
            self.sent = true;
            Ok(())
        } else {
            Err(Refused(msg))
        }
    }
    fn try_recv(&mut self, _: RoleId, _: Option<RoleId>) -> Result<(RoleId, Message), Refused> {
        Err(Refused(()))
    }
    fn is_terminated(&self) -> bool {
        panic!("is_terminated is not implemented")
    }
}

#[test]
fn a_panic_in_is_terminated_is_an_error_not_a_crash() {
    // Breadth-first (safety) and depth-first (liveness) searches both ask
    // it of the state where nothing is enabled.
    for formula in [r#"G !"DEADLOCK""#, r#"G F "a SEND *""#] {
        match try_check(formula, BadEnd { sent: false }, dummies![Token]) {
            Err(e @ Error::ProtocolPanic { .. }) => {
                let text = e.to_string();
                assert!(text.contains("is_terminated()"), "{text}");
                assert!(text.contains("is not implemented"), "{text}");
                assert!(text.contains("a SEND <Token> TO b"), "{text}");
            }
            other => panic!("{formula}: expected a protocol panic, got {other:?}"),
        }
    }
}

/// Which of its own operations a [`Fragile`] object breaks in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Breaks {
    /// `Hash` of the state where p2 holds the token.
    Hash,
    /// `Clone` of that state.
    Clone,
    /// `roles()`.
    Roles,
}

/// How the token ring of three ([`TokenRing`]) breaks: its Hash or Clone
/// panics once p2 holds the token (or its `roles()` always does): code
/// the engine runs on every state it stores, outside any try-operation.
#[derive(Clone, Copy, Debug)]
struct Fragile(Breaks);

impl Fragile {
    /// The ring of three that breaks so.
    fn new(breaks: Breaks) -> Wrapped<TokenRing, Fragile> {
        Wrapped::new(TokenRing::new(3), Fragile(breaks))
    }
    fn broken(&self, ring: &TokenRing, op: Breaks) -> bool {
        self.0 == op && ring.holder == 2
    }
}

impl Twist<TokenRing> for Fragile {
    fn clone_twist(&self, ring: &TokenRing) -> Self {
        assert!(!self.broken(ring, Breaks::Clone), "cannot clone p2's turn");
        *self
    }
    fn hash_state(&self, ring: &TokenRing, state: &mut dyn std::hash::Hasher) {
        assert!(!self.broken(ring, Breaks::Hash), "cannot hash p2's turn");
        let mut state = state;
        std::hash::Hash::hash(ring, &mut state);
    }
    fn roles(&self, ring: &TokenRing) -> Vec<String> {
        assert!(self.0 != Breaks::Roles, "no roles today");
        ring.roles()
    }
}

/// The name the engine gives a [`Fragile`] object.
fn fragile_name() -> &'static str {
    std::any::type_name::<Wrapped<TokenRing, Fragile>>()
}

#[test]
fn a_panic_in_the_objects_hash_or_clone_is_an_error_naming_it() {
    // A safety formula (breadth-first search) and a liveness one (nested
    // depth-first search) reach the state by different paths through the
    // engine; both name the object, the operation and the way there.
    for formula in [r#"G !"DEADLOCK""#, r#"G F "p0 SEND *""#] {
        for (breaks, operation, message) in [
            (
                Breaks::Hash,
                "Hash or Eq (storing the state that `p2 RECV FROM p1` leads to)",
                "cannot hash p2's turn",
            ),
            (
                Breaks::Clone,
                "Clone (of the state reached, to probe it)",
                "cannot clone p2's turn",
            ),
        ] {
            let e = try_check(formula, Fragile::new(breaks), dummies![Token]).unwrap_err();
            let Error::ObjectPanic {
                object,
                operation: op,
                message: m,
                trace,
            } = &e
            else {
                panic!("{formula}, {breaks:?}: expected the object's panic, got {e:?}");
            };
            assert_eq!(object, fragile_name());
            assert_eq!(op, operation, "{formula}, {breaks:?}");
            assert!(m.contains(message), "{m}");
            let to_p2 = ["p0 SEND <Token> TO p1", "p1 RECV <Token> FROM p0"];
            let expected: Vec<&str> = match breaks {
                // stored on the way: the trace leads to the state probed
                Breaks::Hash => to_p2
                    .iter()
                    .copied()
                    .chain(["p1 SEND <Token> TO p2"])
                    .collect(),
                // cloned to be probed: the trace leads to that state
                _ => to_p2
                    .iter()
                    .copied()
                    .chain(["p1 SEND <Token> TO p2", "p2 RECV <Token> FROM p1"])
                    .collect(),
            };
            assert_eq!(trace, &expected, "{formula}, {breaks:?}");
            let text = e.to_string();
            assert!(
                text.contains(&format!(
                    "the protocol object `{}` panicked in ",
                    fragile_name()
                )),
                "{text}"
            );
        }
    }
}

#[test]
fn a_panic_in_the_initial_states_hash_or_in_roles_is_an_error_not_a_crash() {
    let e = Checker::new()
        .session(
            Wrapped::new(
                TokenRing {
                    holder: 2,
                    ..TokenRing::new(3)
                },
                Fragile(Breaks::Hash),
            ),
            dummies![Token],
        )
        .err()
        .expect("an error");
    assert!(
        matches!(&e, Error::ObjectPanic { operation, .. }
            if operation == "Hash or Eq (storing the initial state)"),
        "{e:?}"
    );
    let e = try_check(
        r#"G !"DEADLOCK""#,
        Fragile::new(Breaks::Roles),
        dummies![Token],
    );
    assert!(
        matches!(&e, Err(Error::ObjectPanic { operation, message, .. })
            if operation == "roles()" && message.contains("no roles today")),
        "{e:?}"
    );
}

/// The panic hook prints each panic of the object once: the engine runs
/// the object's code again on some error paths (to tell a panicking Clone
/// from a panicking probe, to rebuild the trace to the panic), and those
/// re-runs must not print the same message again. What the hook prints
/// goes to the process's stderr, so the checks run in a child process (this
/// test binary, running only this test) and the parent counts.
#[test]
fn each_panic_of_the_object_is_printed_once() {
    const CHILD: &str = "PRUST_TEST_PANICS_CHILD";
    if std::env::var_os(CHILD).is_some() {
        // Safety (breadth-first) and liveness (depth-first) searches.
        for (formula, bad_end) in [
            (r#"G !"DEADLOCK""#, r#"G !"DEADLOCK""#),
            (r#"G F "p0 SEND *""#, r#"G F "a SEND *""#),
        ] {
            try_check(formula, Fragile::new(Breaks::Clone), dummies![Token]).unwrap_err();
            try_check(bad_end, BadEnd { sent: false }, dummies![Token]).unwrap_err();
            Checker::new()
                .threads(1)
                .check(formula, faulty(), dummies![Token])
                .unwrap_err();
        }
        return;
    }
    let out = std::process::Command::new(std::env::current_exe().expect("the test binary"))
        .args([
            "--exact",
            "panics::each_panic_of_the_object_is_printed_once",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, "1")
        .env("RUST_BACKTRACE", "0")
        .output()
        .expect("the test binary runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    // One check per formula and object, each stopped by one panic.
    for message in [
        "cannot clone p2's turn",
        "is_terminated is not implemented",
        "index out of bounds",
    ] {
        assert_eq!(stderr.matches(message).count(), 2, "{message}:\n{stderr}");
    }
}

/// The one panic hook (`engine::quiet`, which the explorer uses too): a
/// panic on a quiet thread is noted with its place (the explorer's reports
/// show it), nesting restores the thread's setting, also on unwinding, and
/// a place is taken once.
#[test]
fn quiet_panics_are_located_and_quiet_nests() {
    use engine::quiet::{quietly, set_quiet, take_location};
    std::thread::spawn(|| {
        assert_eq!(take_location(), None);
        let line = line!() + 1;
        let r = quietly(|| std::panic::catch_unwind(|| panic!("kept quiet")));
        assert!(r.is_err());
        let at = take_location().expect("the quiet panic's place");
        assert!(at.contains(&format!("panics.rs:{line}:")), "{at}");
        assert_eq!(take_location(), None, "taken once");

        // Nested and unwinding: the outer setting comes back.
        assert!(!set_quiet(true));
        let _ = std::panic::catch_unwind(|| quietly(|| panic!("inner")));
        assert!(set_quiet(false), "still quiet after the inner quietly");
        assert!(!set_quiet(false));
    })
    .join()
    .unwrap();
}
