//! Partial-order reduction: a reduced search gives the verdicts of the full
//! one, with fewer states, only where the formula and the object's
//! declaration allow it, and a wrong declaration is an error, never a
//! verdict.

use engine::{
    ActionKind, ActionRef, Checker, Enabled, Error, Independence, Message, Protocol,
    ReductionStatus, Refused, Report, RoleId, Verdict,
};

/// `k` pairs of roles `a_i`, `b_i`: in each round `a_i` sends `Ping` to
/// `b_i`, which replies `Pong`. `rounds` rounds (or forever when
/// `looping`); the pair `stuck` (if any) never sends its last `Pong`, a
/// deadlock once every other pair is done. Each pair is a component.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Pairs {
    phase: Vec<u8>,
    rounds: u8,
    looping: bool,
    stuck: Option<usize>,
    /// Declares the components (off: the object declares nothing).
    declare: bool,
    /// Lists its enabled actions (`Protocol::enabled`; off: probed).
    lists: bool,
}

impl Pairs {
    fn new(k: usize, rounds: u8) -> Pairs {
        Pairs {
            phase: vec![0; k],
            rounds,
            looping: false,
            stuck: None,
            declare: true,
            lists: false,
        }
    }

    fn done(&self, i: usize) -> bool {
        !self.looping && self.phase[i] == 4 * self.rounds
    }

    /// Advances pair `i` if it is at `step` of a round.
    fn step(&mut self, i: usize, step: u8) -> bool {
        if self.done(i) || self.phase[i] % 4 != step {
            return false;
        }
        if step == 2 && self.stuck == Some(i) && self.phase[i] + 2 == 4 * self.rounds {
            return false;
        }
        self.phase[i] = if self.looping {
            (self.phase[i] + 1) % 4
        } else {
            self.phase[i] + 1
        };
        true
    }
}

impl Protocol for Pairs {
    fn roles(&self) -> Vec<String> {
        (0..self.phase.len())
            .flat_map(|i| [format!("a_{i}"), format!("b_{i}")])
            .collect()
    }

    fn type_names(&self) -> Vec<String> {
        vec!["Ping".into(), "Pong".into()]
    }

    fn try_send(&mut self, role: RoleId, to: RoleId, msg: Message) -> Result<(), Refused<Message>> {
        let i = role / 2;
        let ok = to == (role ^ 1)
            && msg.type_name()
                == if role.is_multiple_of(2) {
                    "Ping"
                } else {
                    "Pong"
                }
            && self.step(i, if role.is_multiple_of(2) { 0 } else { 2 });
        if ok {
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
        let i = role / 2;
        if from.is_some_and(|f| f != role ^ 1) {
            return Err(Refused(()));
        }
        let (step, ty) = if role % 2 == 1 {
            (1, "Ping")
        } else {
            (3, "Pong")
        };
        if self.step(i, step) {
            Ok((role ^ 1, Message::named(ty, ())))
        } else {
            Err(Refused(()))
        }
    }

    fn is_terminated(&self) -> bool {
        (0..self.phase.len()).all(|i| self.done(i))
    }

    fn peers(&self, role: RoleId) -> Option<Vec<RoleId>> {
        Some(vec![role ^ 1])
    }

    fn enabled(&self, out: &mut Vec<Enabled>) -> bool {
        if !self.lists {
            return false;
        }
        for i in 0..self.phase.len() {
            let (a, b) = (2 * i, 2 * i + 1);
            if self.clone().step(i, self.phase[i] % 4) {
                out.push(match self.phase[i] % 4 {
                    0 => Enabled::Send {
                        role: a,
                        to: b,
                        ty: 0,
                    },
                    1 => Enabled::Recv { role: b, from: a },
                    2 => Enabled::Send {
                        role: b,
                        to: a,
                        ty: 1,
                    },
                    _ => Enabled::Recv { role: a, from: b },
                });
            }
        }
        true
    }

    fn independence(&self) -> Option<Independence> {
        if !self.declare {
            return None;
        }
        let mut ind = Independence::new();
        for i in 0..self.phase.len() {
            let (a, b) = (2 * i, 2 * i + 1);
            ind = ind.component([
                ActionRef::new(a, ActionKind::Send, b),
                ActionRef::new(b, ActionKind::Recv, a),
                ActionRef::new(b, ActionKind::Send, a),
                ActionRef::new(a, ActionKind::Recv, b),
            ]);
        }
        Some(ind)
    }
}

fn check(obj: Pairs, formula: &str, por: bool) -> Report {
    Checker::new()
        .determinism_check(true)
        .partial_order(por)
        .max_states(1_000_000)
        .check(formula, obj, vec![])
        .unwrap_or_else(|e| panic!("{formula}: {e}"))
}

/// The verdict without its counterexample.
fn kind(r: &Report) -> &'static str {
    match r.verdict {
        Verdict::Holds => "holds",
        Verdict::HoldsProbabilistic { .. } => "holds-probabilistic",
        Verdict::HoldsOnShare { .. } => "holds-on-share",
        Verdict::Violated(_) => "violated",
        Verdict::Inconclusive { .. } => "inconclusive",
    }
}

/// Formulas the reduction decides (no `X`, blind to where unseen steps
/// fall), safety and liveness, with atoms that see some pairs and not
/// others.
const REDUCIBLE: [&str; 8] = [
    r#"G !"DEADLOCK""#,
    r#"F "END""#,
    r#"G !"b_1 SEND *""#,
    r#"G ("a_0 SEND *" -> F "a_0 RECV *")"#,
    r#"G F "a_0 RECV *""#,
    r#"F G !"a_1 SEND *""#,
    r#"!"b_0 RECV *" U "a_1 RECV *""#,
    r#"G ("b_1 RECV *" -> F "a_1 RECV <Pong>")"#,
];

#[test]
fn reduced_and_full_searches_agree_and_the_reduced_one_stores_fewer_states() {
    let mut fewer = 0;
    for k in 2..=3 {
        for rounds in 1..=2 {
            for stuck in [None, Some(0), Some(k - 1)] {
                for looping in [false, true] {
                    let obj = Pairs {
                        looping,
                        stuck: if looping { None } else { stuck },
                        ..Pairs::new(k, rounds)
                    };
                    for f in REDUCIBLE {
                        let (full, reduced) =
                            (check(obj.clone(), f, false), check(obj.clone(), f, true));
                        assert_eq!(
                            kind(&full),
                            kind(&reduced),
                            "{f} on {obj:?}\n{full}\n{reduced}"
                        );
                        assert!(
                            matches!(reduced.stats.reduction, ReductionStatus::On { .. }),
                            "{reduced}"
                        );
                        // (A violation may be met later on another path.)
                        if full.holds() {
                            assert!(reduced.stats.product_states <= full.stats.product_states);
                        }
                        if reduced.stats.product_states < full.stats.product_states {
                            fewer += 1;
                        }
                        if let Some(c) = reduced.counterexample() {
                            // A real run of the object.
                            c.try_replay(obj.clone())
                                .unwrap_or_else(|e| panic!("{f}: {e}"));
                        }
                    }
                }
            }
        }
    }
    assert!(
        fewer > 50,
        "the reduction saved states in only {fewer} checks"
    );
}

/// An object that lists its enabled actions has its ample set chosen from
/// the list, and only the ample set's successors are built, outside the
/// determinism check (which builds them all to test the declaration): the
/// same reduced graph either way, with every successor built or only those
/// kept, and the same verdicts as the full search. `"a_1 RECV <Pong>"` sees
/// one type of a receive, which the list cannot tell apart from the other:
/// there the state's successors are built first.
#[test]
fn an_object_that_lists_its_actions_has_only_its_ample_successors_built() {
    let mut fewer = 0;
    for k in 2..=3 {
        for stuck in [None, Some(0), Some(k - 1)] {
            for looping in [false, true] {
                let probed = Pairs {
                    looping,
                    stuck: if looping { None } else { stuck },
                    ..Pairs::new(k, 2)
                };
                let listed = Pairs {
                    lists: true,
                    ..probed.clone()
                };
                for f in REDUCIBLE {
                    let verified = check(probed.clone(), f, true);
                    let full = check(listed.clone(), f, false);
                    let r = Checker::new()
                        .determinism_check(false)
                        .max_states(1_000_000)
                        .check(f, listed.clone(), vec![])
                        .unwrap_or_else(|e| panic!("{f}: {e}"));
                    assert_eq!(kind(&r), kind(&full), "{f} on {listed:?}\n{full}\n{r}");
                    assert_eq!(r.stats.reduction, verified.stats.reduction, "{f}\n{r}");
                    assert_eq!(r.stats.product_states, verified.stats.product_states);
                    assert_eq!(r.stats.transitions, verified.stats.transitions);
                    if let Some(c) = r.counterexample() {
                        c.try_replay(listed.clone())
                            .unwrap_or_else(|e| panic!("{f}: {e}"));
                    }
                    assert!(
                        r.stats.protocol_states <= verified.stats.protocol_states,
                        "{f}\n{r}\n{verified}"
                    );
                    // Some successor was never built.
                    if r.stats.protocol_states < verified.stats.protocol_states {
                        fewer += 1;
                    }
                }
            }
        }
    }
    assert!(fewer > 50, "only {fewer} checks built fewer states");
}

#[test]
fn independent_pairs_are_searched_in_linear_instead_of_exponential_states() {
    let obj = Pairs::new(6, 1);
    let full = check(obj.clone(), r#"G !"DEADLOCK""#, false);
    let reduced = check(obj.clone(), r#"G !"DEADLOCK""#, true);
    assert!(full.holds() && reduced.holds());
    // Every combination of the pairs' five points, against one pair
    // after the other.
    assert_eq!(full.stats.product_states, 5u64.pow(6));
    assert_eq!(reduced.stats.product_states, 4 * 6 + 1, "{reduced}");
    // Every state but those of the last pair (whose component is then all
    // that is enabled: nothing to reduce) and the end.
    assert_eq!(
        reduced.stats.reduction,
        ReductionStatus::On {
            ample_states: 4 * 5
        }
    );
    assert!(
        reduced.to_string().contains("partial-order reduction on"),
        "{reduced}"
    );
}

#[test]
fn every_deadlock_is_found_by_the_reduced_search() {
    let obj = Pairs {
        stuck: Some(3),
        ..Pairs::new(6, 2)
    };
    let r = check(obj.clone(), r#"G !"DEADLOCK""#, true);
    let c = r.counterexample().unwrap_or_else(|| panic!("{r}"));
    assert!(c.to_string().contains("deadlock"), "{c}");
    c.try_replay(obj).expect("a real run");
}

#[test]
fn formulas_with_x_or_that_see_the_first_step_are_searched_in_full() {
    let obj = Pairs::new(3, 1);
    for (f, why) in [
        (r#"G ("a_0 SEND *" -> X "b_0 RECV *")"#, "formula uses X"),
        (r#"!"a_2 SEND *""#, "not stutter-invariant"),
    ] {
        let full = check(obj.clone(), f, false);
        let r = check(obj.clone(), f, true);
        assert_eq!(r.stats.product_states, full.stats.product_states, "{f}");
        let ReductionStatus::Off(reason) = &r.stats.reduction else {
            panic!("{r}")
        };
        assert!(reason.contains(why), "{reason}");
        // The formula decides it, and the report says that no switch helps.
        assert!(
            reason.contains("no option turns the reduction on"),
            "{reason}"
        );
        assert!(
            r.to_string().contains("partial-order reduction off: "),
            "{r}"
        );
    }
    // "The first step is not a_2's send" is violated (a_2 may go first):
    // reordering the unseen steps of the other pairs before it would hide
    // that, which is why the formula is searched in full.
    assert!(!check(obj, r#"!"a_2 SEND *""#, true).holds());
}

#[test]
fn the_reduction_can_be_switched_off_and_objects_that_declare_nothing_are_searched_in_full() {
    let obj = Pairs::new(3, 1);
    let off = check(obj.clone(), r#"G !"DEADLOCK""#, false);
    // The reason names the ways a library user switches the reduction off
    // (the command line's report names `--no-por` instead), so that who
    // sees it knows how to switch it back on.
    assert!(
        matches!(&off.stats.reduction, ReductionStatus::Off(w) if w.contains("switched off")
            && !w.contains("--no-por")
            && w.contains("PRUST_POR=0")
            && w.contains("Checker::partial_order(false)")),
        "{:?}",
        off.stats.reduction
    );
    let silent = Pairs {
        declare: false,
        ..obj
    };
    let r = check(silent, r#"G !"DEADLOCK""#, true);
    assert_eq!(r.stats.reduction, ReductionStatus::NotDeclared);
    // Printed on its own, it says how an object opts in.
    assert!(
        ReductionStatus::NotDeclared
            .to_string()
            .contains("Protocol::independence opts in"),
        "{}",
        ReductionStatus::NotDeclared
    );
    assert_eq!(r.stats.product_states, off.stats.product_states);
    assert!(!r.to_string().contains("partial-order"), "{r}");
}

/// Two clients race for one slot: whoever sends first takes it, and the
/// other's send is refused from then on. Declaring each client a component
/// is wrong (each disables the other).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Race {
    taken: Option<RoleId>,
}

impl Protocol for Race {
    fn roles(&self) -> Vec<String> {
        vec!["c0".into(), "c1".into(), "slot".into()]
    }
    fn type_names(&self) -> Vec<String> {
        vec!["Take".into()]
    }
    fn try_send(&mut self, role: RoleId, to: RoleId, msg: Message) -> Result<(), Refused<Message>> {
        if role < 2 && to == 2 && self.taken.is_none() {
            self.taken = Some(role);
            Ok(())
        } else {
            Err(Refused(msg))
        }
    }
    fn try_recv(&mut self, _: RoleId, _: Option<RoleId>) -> Result<(RoleId, Message), Refused> {
        Err(Refused(()))
    }
    fn independence(&self) -> Option<Independence> {
        Some(
            Independence::new()
                .component([ActionRef::new(0, ActionKind::Send, 2)])
                .component([ActionRef::new(1, ActionKind::Send, 2)]),
        )
    }
}

#[test]
fn a_wrong_declaration_is_an_error_not_a_verdict() {
    // Without reduction: c1 may take the slot, so this is violated.
    let formula = r#"G !"c1 SEND *""#;
    let full = Checker::new()
        .partial_order(false)
        .check(formula, Race { taken: None }, vec![])
        .unwrap();
    assert!(!full.holds());
    // `"c1 SEND *"` is visible, so c0's send alone would be the ample set:
    // the determinism check tests the declaration and refuses it.
    let e = Checker::new()
        .determinism_check(true)
        .check(r#"G !"DEADLOCK""#, Race { taken: None }, vec![])
        .unwrap_err();
    assert!(matches!(e, Error::Contract { .. }), "{e}");
    let text = e.to_string();
    assert!(text.contains("independence()"), "{text}");
    assert!(text.contains("c1 SEND <Take> TO slot"), "{text}");
}
