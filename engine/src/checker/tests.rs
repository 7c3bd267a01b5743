//! The check pipeline on hand-built automata.

use super::*;
use crate::protocol::{Message, Protocol, Refused, RoleId};
use crate::report::{Report, Verdict};
use std::time::Instant;

use owl_lite::{Automaton, Cube, Edge, Guard};

use crate::pattern::Atom;
use crate::property::Property;

#[derive(Clone, Debug)]
struct Ping;

/// a sends Ping to b through a 1-slot channel, b receives; after
/// `rounds` receptions b stops (deadlock if `rounds` is finite: a
/// cannot send into a full channel forever... it just stops).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct PingPong {
    full: bool,
    received: u8,
    rounds: Option<u8>,
}

impl Protocol for PingPong {
    fn roles(&self) -> Vec<String> {
        vec!["a".into(), "b".into()]
    }
    fn try_send(&mut self, role: RoleId, to: RoleId, msg: Message) -> Result<(), Refused<Message>> {
        if role == 0 && to == 1 && !self.full && Some(self.received) != self.rounds {
            self.full = true;
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
        if role == 1 && from.unwrap_or(0) == 0 && self.full {
            self.full = false;
            self.received += 1;
            Ok((0, Message::new(Ping)))
        } else {
            Err(Refused(()))
        }
    }
}

fn cube(pos: u64, neg: u64) -> Guard {
    Guard {
        cubes: vec![Cube { pos, neg }],
    }
}

/// F atom0 (the negation of G !atom0).
fn eventually() -> Automaton {
    Automaton {
        atoms: vec!["x".into()],
        initial: 0,
        edges: vec![
            vec![
                Edge {
                    target: 0,
                    guard: cube(0, 0),
                    acc: 0,
                },
                Edge {
                    target: 1,
                    guard: cube(1, 0),
                    acc: 0,
                },
            ],
            vec![Edge {
                target: 1,
                guard: cube(0, 0),
                acc: 1,
            }],
        ],
        acceptance_sets: 1,
    }
}

fn run(proto: PingPong, atom: Atom, semantics: Semantics) -> Report {
    let mut s = Checker::new()
        .semantics(semantics)
        .session(proto, vec![Message::new(Ping)])
        .unwrap();
    s.check_property(
        &Property::from_parts("G !x", eventually(), vec![atom]),
        Instant::now(),
    )
    .unwrap()
}

#[test]
fn deadlock_is_found_under_stutter_semantics_only() {
    let p = PingPong {
        full: false,
        received: 0,
        rounds: Some(2),
    };
    let r = run(p.clone(), Atom::Deadlock, Semantics::Stutter);
    let c = r.counterexample().expect("deadlocks after two rounds");
    assert_eq!(c.prefix.len(), 4, "{c}");
    assert!(matches!(c.ending, Some(crate::Ending::Deadlock { .. })));
    assert!(
        c.to_string()
            .contains("then nothing can happen: deadlock (waiting: a, b)"),
        "{c}"
    );
    c.replay(p.clone());
    let r = run(p, Atom::Deadlock, Semantics::InfiniteRunsOnly);
    assert!(r.holds(), "{r}");
}

#[test]
fn infinite_protocol_holds_and_violations_have_cycles() {
    let p = PingPong {
        full: false,
        received: 0,
        rounds: None,
    };
    // received wraps at 255 -> overflow in debug; keep `received` small by
    // checking only the reachable part up to a bound via the state limit.
    let mut s = Checker::new()
        .max_states(100)
        .session(p.clone(), vec![Message::new(Ping)])
        .unwrap();
    let r = s
        .check_property(
            &Property::from_parts("G !x", eventually(), vec![Atom::Deadlock]),
            Instant::now(),
        )
        .unwrap();
    assert!(matches!(r.verdict, Verdict::Inconclusive { .. }), "{r}");
}

/// A check called from code (a test) gets budgets sized for a test: a
/// minute and at most 2 GiB; the CLI's are the machine's. Only where the
/// variables are unset (a shell may set them for the whole run).
#[test]
fn the_library_budgets_are_sized_for_a_test_and_the_cli_ones_for_the_machine() {
    if std::env::var_os("PRUST_TIMEOUT").is_some() || std::env::var_os("PRUST_MAX_MEMORY").is_some()
    {
        return;
    }
    let test = Checker::from_env().unwrap().bounds();
    assert_eq!(test.timeout, Some(Duration::from_secs(60)));
    assert!(test.max_memory <= 2 << 30, "{}", test.max_memory);
    let machine = Checker::from_env_for(crate::DefaultBudgets::Machine)
        .unwrap()
        .bounds();
    assert_eq!(machine.timeout, None);
    assert!(machine.max_memory >= test.max_memory);
}

/// [`PingPong`] declaring its two actions one component, so that the
/// partial-order reduction runs where the option and formula allow it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Declaring(PingPong);

impl Protocol for Declaring {
    fn roles(&self) -> Vec<String> {
        self.0.roles()
    }
    fn try_send(&mut self, role: RoleId, to: RoleId, msg: Message) -> Result<(), Refused<Message>> {
        self.0.try_send(role, to, msg)
    }
    fn try_recv(
        &mut self,
        role: RoleId,
        from: Option<RoleId>,
    ) -> Result<(RoleId, Message), Refused> {
        self.0.try_recv(role, from)
    }
    fn independence(&self) -> Option<crate::Independence> {
        use crate::{ActionKind, ActionRef};
        Some(crate::Independence::new().component([
            ActionRef::new(0, ActionKind::Send, 1),
            ActionRef::new(1, ActionKind::Recv, 0),
        ]))
    }
}

/// A check parses its formula once: the search's automaton and the
/// reduction's analysis of the formula come from one prepared property.
#[test]
fn a_check_parses_its_formula_once_with_or_without_the_reduction() {
    let obj = Declaring(PingPong {
        full: false,
        received: 0,
        rounds: Some(3),
    });
    for por in [false, true] {
        let before = crate::property::PARSES.with(|n| n.get());
        let r = Checker::new()
            .partial_order(por)
            .check(
                r#"G ("a SEND *" -> F "b RECV *")"#,
                obj.clone(),
                vec![Message::new(Ping)],
            )
            .unwrap();
        let parses = crate::property::PARSES.with(|n| n.get()) - before;
        assert_eq!(parses, 1, "partial order {por}: {r}");
        let reduced = matches!(r.stats.reduction, crate::ReductionStatus::On { .. });
        assert_eq!(reduced, por, "{:?}", r.stats.reduction);
    }
}
