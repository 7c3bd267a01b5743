//! The reductions against plain search on objects that answer a
//! receive from their own state: explicit random LTSs whose receives need
//! no matching send, so the sender and type a receive gets may depend on
//! steps of other roles on other channels. The strict, liberal and
//! mailbox objects of the other reduction tests always deliver what was
//! sent on the receive's own channel, so they cannot show a step that
//! changes what another channel's receive gets and still commutes with
//! it on the object.

use std::collections::BTreeSet;

use engine::testing::{Label, Lts, LtsProtocol};
use engine::{ActionKind, Message};
use proptest::prelude::*;
use prust::explore::{choose, Exploration, Explorer, Reduction};
use prust::session::{Alternative, BlockingEndpoint};

/// The explicit LTS `trans` of `roles` roles and message types `T0` and
/// `T1` as a protocol object (the engine's test object, which declares
/// its types here), in state 0.
fn object(roles: usize, trans: Vec<Vec<(Label, usize)>>, terminal: Vec<bool>) -> LtsProtocol {
    let mut obj = LtsProtocol::new(Lts {
        roles,
        types: 2,
        trans,
        terminal,
    });
    obj.names_types = true;
    obj
}

#[derive(Debug, Clone, Copy)]
enum Op {
    Send(usize, usize),
    RecvFrom(usize),
    RecvAny,
    Close(usize),
    /// Select: a message of type `T{ty}` from the first role, or any
    /// from the second.
    Select(usize, usize, usize),
    /// `choose(2)`: 1 skips the next operation.
    Choose,
}

#[derive(Debug, Clone)]
struct Case {
    obj: LtsProtocol,
    programs: Vec<Vec<Op>>,
}

fn label() -> impl Strategy<Value = (usize, usize, usize, usize)> {
    (0usize..4, 0usize..6, 0usize..2, 1usize..4)
}

/// A random object of 2–3 roles and up to 7 states, and role programs
/// made from a random walk of it (a receive sometimes from anyone), with
/// a few random operations inserted (selects and `choose`s among them):
/// at most five a role.
fn case() -> impl Strategy<Value = Case> {
    (2usize..=3, 1usize..=7)
        .prop_flat_map(|(roles, states)| {
            (
                Just(roles),
                prop::collection::vec(prop::collection::vec((label(), 0..states), 0..5), states),
                prop::collection::vec(any::<bool>(), states),
                prop::collection::vec(0usize..100, 0..10),
                prop::collection::vec(
                    (0..roles, 0usize..6, 0usize..roles, 0usize..2, 0usize..8),
                    0..3,
                ),
            )
        })
        .prop_map(|(roles, raw, terminal, walk, extra)| {
            let kinds = [
                ActionKind::Send,
                ActionKind::Send,
                ActionKind::Recv,
                ActionKind::Recv,
                ActionKind::Close,
                ActionKind::Recv,
            ];
            let trans = raw
                .into_iter()
                .map(|out| {
                    out.into_iter()
                        .map(|((r, k, ty, d), to)| {
                            let role = r % roles;
                            let peer = (role + 1 + d % (roles - 1)) % roles;
                            let kind = kinds[k];
                            (Label::new(role, kind, ty, peer), to)
                        })
                        .collect()
                })
                .collect();
            // At most one transition per probe (the first is kept).
            let lts = Lts {
                roles,
                types: 2,
                trans,
                terminal,
            }
            .normalise();
            let obj = object(roles, lts.trans, lts.terminal);
            // A random walk, projected onto the roles.
            let mut programs = vec![Vec::new(); roles];
            let mut s = 0;
            for w in walk {
                let out = &obj.lts.trans[s];
                if out.is_empty() {
                    break;
                }
                let (l, t) = out[w % out.len()];
                programs[l.role].push(match l.kind {
                    ActionKind::Send => Op::Send(l.peer, l.ty),
                    ActionKind::Recv if w % 3 == 0 => Op::RecvAny,
                    ActionKind::Recv => Op::RecvFrom(l.peer),
                    ActionKind::Close => Op::Close(l.peer),
                });
                s = t;
            }
            for (r, k, p, ty, at) in extra {
                let peer = if p == r { (p + 1) % roles } else { p };
                let third = (0..roles).find(|&x| x != r && x != peer);
                let op = [
                    Op::Send(peer, ty),
                    Op::RecvFrom(peer),
                    Op::RecvAny,
                    Op::Close(peer),
                    third.map_or(Op::RecvAny, |t| Op::Select(peer, t, ty)),
                    Op::Choose,
                ][k];
                let prog = &mut programs[r];
                let at = at.min(prog.len());
                prog.insert(at, op);
            }
            for p in &mut programs {
                p.truncate(5);
            }
            Case { obj, programs }
        })
}

type Got = Vec<(usize, String)>;

fn run(
    case: &Case,
    reduction: Reduction,
    bound: Option<usize>,
    property: Option<&str>,
    max: usize,
) -> Exploration<Vec<Got>> {
    let programs = &case.programs;
    let mut ex = Explorer::new()
        .reduction(reduction)
        .preemption_bound(bound)
        .max_executions(max);
    if let Some(p) = property {
        ex = ex.property(p);
    }
    ex.explore(case.obj.clone(), |r| {
        let mut hs = Vec::new();
        for (i, prog) in programs.iter().enumerate() {
            let prog = prog.clone();
            hs.push(r.spawn(&Lts::role_name(i), move |mut ep| {
                let mut got: Got = Vec::new();
                let mut skip = false;
                for op in prog {
                    if std::mem::take(&mut skip) {
                        continue;
                    }
                    let ok = match op {
                        Op::Send(to, ty) => {
                            ep.send(to, Message::named(Lts::type_name(ty), ())).is_ok()
                        }
                        Op::Close(to) => ep.close(to).is_ok(),
                        Op::RecvFrom(f) => match ep.recv_from(f) {
                            Ok(m) => {
                                got.push((f, m.type_name().to_string()));
                                true
                            }
                            Err(_) => false,
                        },
                        Op::RecvAny => match ep.recv() {
                            Ok((f, m)) => {
                                got.push((f, m.type_name().to_string()));
                                true
                            }
                            Err(_) => false,
                        },
                        Op::Select(a, b, ty) => {
                            let alts = [
                                Alternative::sender(a).of_type(&Lts::type_name(ty)),
                                Alternative::sender(b),
                            ];
                            match ep.select(&alts) {
                                Ok((i, m)) => {
                                    got.push(([a, b][i], m.type_name().to_string()));
                                    true
                                }
                                Err(_) => false,
                            }
                        }
                        Op::Choose => {
                            let c = choose(2);
                            got.push((usize::MAX, format!("chose {c}")));
                            skip = c == 1;
                            true
                        }
                    };
                    if !ok {
                        break;
                    }
                }
                got
            }));
        }
        hs
    })
}

fn outcomes<T>(ex: &Exploration<T>) -> BTreeSet<String> {
    ex.failures()
        .iter()
        .map(|f| f.outcome.to_string())
        .collect()
}
fn results(ex: &Exploration<Vec<Got>>) -> BTreeSet<Vec<Got>> {
    ex.results().iter().map(|r| r.value.clone()).collect()
}

fn agree(case: &Case, bound: Option<usize>, property: Option<&str>) -> Result<(), TestCaseError> {
    let plain = run(case, Reduction::None, bound, property, 400);
    prop_assume!(plain.executions() < 400);
    for red in [Reduction::SleepSets, Reduction::Dpor] {
        let r = run(case, red, bound, property, 100_000);
        if plain.is_complete() {
            prop_assert!(r.is_complete(), "{red}: {r}");
        }
        prop_assert_eq!(
            outcomes(&plain),
            outcomes(&r),
            "{} {:?} {:?}\nplain:\n{}\nreduced:\n{}",
            red,
            bound,
            property,
            plain,
            r
        );
        prop_assert_eq!(results(&plain), results(&r), "{} {:?}: results", red, bound);
        if bound.is_none() {
            prop_assert_eq!(
                plain.final_states(),
                r.final_states(),
                "{}: final states",
                red
            );
        }
    }
    Ok(())
}

/// An object of two roles, `r0` and `r1`, that only receive, from each
/// other: in state 0, `r0` gets a `T0` (to state 1) and `r1` a `T0` (to
/// state 1); in state 1, `r0` gets a `T1` and `r1` a `T0` (both to state
/// 0). Both orders of the two first receives end in state 0, but `r0`
/// gets a `T0` if it goes first and a `T1` if it goes second. State 0 is
/// terminated.
fn receives_by_state() -> LtsProtocol {
    let recv = |role, peer, ty| Label::new(role, ActionKind::Recv, ty, peer);
    object(
        2,
        vec![
            vec![(recv(0, 1, 0), 1), (recv(1, 0, 0), 1)],
            vec![(recv(0, 1, 1), 0), (recv(1, 0, 0), 0)],
        ],
        vec![true, false],
    )
}

/// Every reduction finds both messages `r0` can get first. They were
/// called independent because both orders give equal objects, so sleep
/// sets and DPOR ran one order only and found one result (of two), and a
/// role that asserted on what it got passed "in every schedule".
#[test]
fn a_receive_that_gets_another_type_in_the_other_order_is_dependent() {
    let case = Case {
        obj: receives_by_state(),
        programs: vec![vec![Op::RecvFrom(1)], vec![Op::RecvFrom(0)]],
    };
    let first = |ex: &Exploration<Vec<Got>>| -> BTreeSet<String> {
        results(ex).into_iter().map(|r| r[0][0].1.clone()).collect()
    };
    for reduction in [Reduction::None, Reduction::SleepSets, Reduction::Dpor] {
        let ex = run(&case, reduction, None, None, 100);
        assert!(ex.is_complete(), "{ex}");
        let got = first(&ex);
        assert_eq!(
            got,
            BTreeSet::from(["T0".into(), "T1".into()]),
            "{reduction}: {ex}"
        );
    }
}

/// `r2`'s send to `r1` lets `r0` receive from `r2` (the object answers
/// that receive from its state: in state 0 `r0` can only receive from
/// `r1`, staying there; after the send, in state 2, terminated, also from
/// `r2`, back to state 0). Receiving from `r1` first, then the send, ends
/// terminated; the send first, then the receive from `r2`, does not. DPOR
/// saw no race between the receive and the send (they commute, on
/// different channels, and the send is not to `r0`), never ran the send
/// first, and said the program was correct in every schedule.
#[test]
fn dpor_runs_first_a_step_that_gives_a_receive_another_sender() {
    let (send, recv) = (ActionKind::Send, ActionKind::Recv);
    let case = Case {
        obj: object(
            3,
            vec![
                vec![
                    (Label::new(2, send, 0, 1), 2),
                    (Label::new(0, recv, 1, 1), 0),
                ],
                vec![],
                vec![
                    (Label::new(0, recv, 0, 2), 0),
                    (Label::new(0, recv, 1, 1), 2),
                ],
            ],
            vec![false, false, true],
        ),
        programs: vec![vec![Op::RecvAny], vec![], vec![Op::Send(1, 0)]],
    };
    for reduction in [Reduction::None, Reduction::SleepSets, Reduction::Dpor] {
        for bound in [None, Some(1)] {
            let ex = run(&case, reduction, bound, None, 100);
            assert!(
                ex.is_complete() && !ex.is_successful(),
                "{reduction} {bound:?}: {ex}"
            );
            assert_eq!(
                outcomes(&ex),
                BTreeSet::from(["every role returned but the protocol had not terminated \
                     (not finished: r0, r1, r2)"
                    .to_string()]),
                "{reduction} {bound:?}: {ex}"
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Random objects and programs: the reductions find the failures,
    /// results and final states of plain search.
    #[test]
    fn reductions_agree_on_objects_that_answer_from_their_state(case in case()) {
        agree(&case, None, None)?;
    }

    /// The same under a preemption bound (final states aside: the bound
    /// cuts different schedules).
    #[test]
    fn bounded_reductions_agree_on_objects_that_answer_from_their_state(
        case in case(),
        bound in 0usize..3,
    ) {
        agree(&case, Some(bound), None)?;
    }

    /// The same under a property, with or without a bound.
    #[test]
    fn reductions_under_a_property_agree_on_objects_that_answer_from_their_state(
        case in case(),
        f in 0usize..5,
        bound in prop::option::of(0usize..2),
    ) {
        let formulas = [
            r#"G ("r0 SEND *" -> F "r1 RECV *")"#,
            r#"F "r1 SEND *""#,
            r#"G !"r0 CLOSE *" U "END""#,
            r#"!"r1 RECV *" U "r0 SEND *""#,
            r#"G ("r1 * *" -> X "r0 * *")"#,
        ];
        agree(&case, bound, Some(formulas[f]))?;
    }
}

/// A receive from `r0`, whose message `r0` never sends (the object
/// answers it from its state), is refused until `r0`'s send to `r2`, or
/// `r2`'s send to `r0`, has gone (the two commute). The execution ran
/// `r0`'s send, the receive, `r2`'s send. With `r2`'s send first, the
/// receive and `r0`'s send are both enabled, and the receive first takes
/// `r0`'s send away: a deadlock. Calling the receive ordered after every
/// earlier step (its message "not sent yet") hides that `r0`'s send is
/// only this execution's enabler of it (`dpor` rule 4).
#[test]
fn dpor_finds_the_deadlock_behind_a_receive_whose_message_is_never_sent() {
    let (send, recv) = (ActionKind::Send, ActionKind::Recv);
    let a = Label::new(0, send, 0, 2);
    let c = Label::new(2, send, 1, 0);
    let r = Label::new(1, recv, 0, 0);
    let case = Case {
        obj: object(
            3,
            vec![
                vec![(a, 1), (c, 2)],
                vec![(r, 3), (c, 6)],
                vec![(a, 6), (r, 5)],
                vec![(c, 4)],
                vec![],
                vec![],
                vec![(r, 4)],
            ],
            vec![false, false, false, false, true, false, false],
        ),
        programs: vec![
            vec![Op::Send(2, 0)],
            vec![Op::RecvFrom(0)],
            vec![Op::Send(0, 1)],
        ],
    };
    for reduction in [Reduction::None, Reduction::SleepSets, Reduction::Dpor] {
        let ex = run(&case, reduction, None, None, 100);
        assert!(ex.is_complete() && !ex.is_successful(), "{reduction}: {ex}");
    }
}
