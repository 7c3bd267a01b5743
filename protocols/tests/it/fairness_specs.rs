//! Weak fairness over roles on the objects of the spec language: random
//! small specifications compiled to strict (built on the fly, declaring
//! its parallel branches independent) and liberal objects, each explored
//! whole by cloning and probing it into an explicit LTS, and the engine's
//! verdict with fairness none/weak × partial-order reduction on/off
//! compared with the brute-force reference (`testkit::reference`: the
//! explicit product with the automaton of the negated formula, SCCs, a
//! fair accepting SCC by definition). Every counterexample replays on a
//! fresh object, violates the formula on its lasso, names exactly the
//! roles its cycle starves, and starves nobody under fairness.

use std::collections::HashMap;

use crate::common;

use engine::por::ReductionStatus;
use engine::testing::{Label, Lts};
use engine::{ActionKind, Checker, Fairness, Message, Protocol, Report, Semantics, Verdict};
use proptest::prelude::*;
use proptest::test_runner::Config;
use protocols::{spec::Spec, Liberal, Strict};
use testkit::fair_tally::{run_tallied, FairTally};
use testkit::reference::{formula_holds_on_lasso, lasso_letters_by, reference_violated_under};

/// Objects with more reachable states than this are skipped (a liberal
/// object of a one-sided loop is unbounded).
const MAX_STATES: usize = 400;

/// The reachable part of `obj` as an explicit LTS (state 0 the initial
/// one), probing as the engine does: a send of each type to each other
/// role, a receive from each other role, a close to each other role. `None`
/// past [`MAX_STATES`].
fn explicit<P: Protocol>(obj: &P, dummies: &[Message]) -> Option<Lts> {
    let type_of = |m: &Message| {
        dummies
            .iter()
            .position(|d| d.type_name() == m.type_name())
            .expect("a received type is declared")
    };
    let n = obj.roles().len();
    let mut ids: HashMap<P, usize> = HashMap::from([(obj.clone(), 0)]);
    let mut states = vec![obj.clone()];
    let (mut trans, mut terminal) = (Vec::new(), Vec::new());
    let mut i = 0;
    while i < states.len() {
        let p = states[i].clone();
        let mut out = Vec::new();
        for role in 0..n {
            for peer in (0..n).filter(|&q| q != role) {
                let mut moves = Vec::new();
                for (ty, d) in dummies.iter().enumerate() {
                    let mut c = p.clone();
                    if c.try_send(role, peer, d.clone()).is_ok() {
                        moves.push((ActionKind::Send, ty, c));
                    }
                }
                let mut c = p.clone();
                if let Ok((_, m)) = c.try_recv(role, Some(peer)) {
                    moves.push((ActionKind::Recv, type_of(&m), c));
                }
                let mut c = p.clone();
                if c.try_close(role, peer).is_ok() {
                    moves.push((ActionKind::Close, 0, c));
                }
                for (kind, ty, c) in moves {
                    let next = ids.len();
                    let to = *ids.entry(c.clone()).or_insert_with(|| {
                        states.push(c);
                        next
                    });
                    let label = Label {
                        role,
                        kind,
                        ty,
                        peer,
                    };
                    out.push((label, to));
                }
            }
        }
        if states.len() > MAX_STATES {
            return None;
        }
        terminal.push(out.is_empty() && p.is_terminated());
        trans.push(out);
        i += 1;
    }
    Some(Lts {
        roles: n,
        types: dummies.len(),
        trans,
        terminal,
    })
}

/// An atom: `(role, kind, type, peer)`, each an index (reduced modulo the
/// object's count when rendered) or `None` for `*`; kind 0–2 a send,
/// receive or close, 3 any action, 4 `END`, 5 `DEADLOCK`.
type Atom = (Option<usize>, u8, Option<usize>, Option<usize>);

/// A formula over [`Atom`]s, rendered for the object and the reference.
#[derive(Debug, Clone)]
enum Ltl {
    Atom(Atom),
    Un(&'static str, Box<Ltl>),
    Bin(&'static str, Box<Ltl>, Box<Ltl>),
}

/// Random formulas, half of them the liveness shapes fairness decides
/// (eventually, recurrence, response), the others any shape.
fn formula() -> impl Strategy<Value = Ltl> {
    let idx = || prop::option::weighted(0.7, 0..3usize);
    let atom = (idx(), 0..6u8, idx(), prop::option::weighted(0.3, 0..3usize)).prop_map(Ltl::Atom);
    let un = |op, a| Ltl::Un(op, Box::new(a));
    let live = prop_oneof![
        atom.clone().prop_map(move |a| un("F", a)),
        atom.clone().prop_map(move |a| un("G", un("F", a))),
        (atom.clone(), atom.clone())
            .prop_map(move |(a, b)| un("G", Ltl::Bin("->", Box::new(a), Box::new(un("F", b))))),
    ];
    prop_oneof![live, any_formula(atom)]
}

fn any_formula(atom: impl Strategy<Value = Ltl> + 'static) -> impl Strategy<Value = Ltl> {
    atom.prop_recursive(3, 10, 2, |inner| {
        prop_oneof![
            (
                prop::sample::select(vec!["!", "X", "F", "G"]),
                inner.clone()
            )
                .prop_map(|(op, a)| Ltl::Un(op, Box::new(a))),
            (
                prop::sample::select(vec!["&", "|", "->", "U", "R", "W"]),
                inner.clone(),
                inner
            )
                .prop_map(|(op, a, b)| Ltl::Bin(op, Box::new(a), Box::new(b))),
        ]
    })
}

/// `f` with roles named by `role` and types by `ty` (indices reduced
/// modulo `roles` and `types`).
fn render(
    f: &Ltl,
    (roles, types): (usize, usize),
    role: &dyn Fn(usize) -> String,
    ty: &dyn Fn(usize) -> String,
) -> String {
    let r = |f: &Ltl| render(f, (roles, types), role, ty);
    match f {
        Ltl::Atom((_, 4, _, _)) => r#""END""#.to_string(),
        Ltl::Atom((_, 5, _, _)) => r#""DEADLOCK""#.to_string(),
        Ltl::Atom((who, kind, what, peer)) => {
            let name = |i: Option<usize>, n: usize, by: &dyn Fn(usize) -> String| {
                i.map_or("*".to_string(), |i| by(i % n))
            };
            let who = name(*who, roles, role);
            let what = match what {
                Some(t) if *kind != 2 => format!("<{}>", ty(t % types)),
                _ => "*".to_string(),
            };
            let (kw, dir) = [
                ("SEND", "TO"),
                ("RECV", "FROM"),
                ("CLOSE", "TO"),
                ("*", "TO"),
            ][*kind as usize];
            match peer {
                Some(p) => format!(r#""{who} {kw} {what} {dir} {}""#, role(p % roles)),
                None => format!(r#""{who} {kw} {what}""#),
            }
        }
        Ltl::Un(op, a) => format!("{op} ({})", r(a)),
        Ltl::Bin(op, a, b) => format!("({}) {op} ({})", r(a), r(b)),
    }
}

/// The roles the lasso cycle of `c` starves in `lts` (by the object's
/// names), from the definition: enabled in every state the cycle passes
/// and moving in none of its steps.
fn starved_in(
    lts: &Lts,
    c: &engine::Counterexample,
    type_of: &dyn Fn(&engine::CounterexampleStep) -> usize,
    names: &[String],
) -> Vec<String> {
    if c.ending.is_some() {
        return Vec::new();
    }
    let mut s = 0;
    let mut sources = Vec::new();
    for (i, step) in c.prefix.iter().chain(&c.cycle).enumerate() {
        if i >= c.prefix.len() {
            sources.push(s);
        }
        let ty = if step.kind == ActionKind::Close {
            0
        } else {
            type_of(step)
        };
        s = lts.trans[s]
            .iter()
            .find(|(l, _)| (l.role, l.kind, l.ty, l.peer) == (step.role, step.kind, ty, step.peer))
            .expect("the counterexample is a run of the object")
            .1;
    }
    (0..lts.roles)
        .filter(|&r| {
            c.cycle.iter().all(|st| st.role != r)
                && sources
                    .iter()
                    .all(|&s| lts.trans[s].iter().any(|(l, _)| l.role == r))
        })
        .map(|r| names[r].clone())
        .collect()
}

/// Checks `f` on `obj` with fairness none and weak × the reduction on and
/// off against the reference on its explicit LTS; returns what the weakly
/// fair reduced check did.
fn agree<P: Protocol + std::fmt::Debug>(
    obj: &P,
    f: &Ltl,
    semantics: Semantics,
    main: &protocols::spec::Term,
) -> Result<FairTally, TestCaseError> {
    let dummies = common::dummies(obj);
    prop_assume!(!dummies.is_empty());
    let Some(lts) = explicit(obj, &dummies) else {
        return Err(TestCaseError::reject("too many states"));
    };
    let names = obj.roles();
    let types: Vec<String> = dummies.iter().map(|d| d.type_name().to_string()).collect();
    let counts = (lts.roles, lts.types);
    let for_obj = render(f, counts, &|r| names[r].clone(), &|t| types[t].clone());
    let for_ref = render(f, counts, &Lts::role_name, &Lts::type_name);
    let type_of = |s: &engine::CounterexampleStep| {
        let t = s
            .type_name
            .as_deref()
            .expect("a send or receive has a type");
        types.iter().position(|n| n == t).expect("a declared type")
    };
    let mut tally = FairTally::default();
    for fairness in Fairness::ALL {
        let expected = reference_violated_under(
            &lts,
            &for_ref,
            semantics == Semantics::Stutter,
            fairness == Fairness::Weak,
        );
        let mut states = [0u64; 2];
        let mut status = ReductionStatus::NotDeclared;
        for por in [false, true] {
            let report: Report = Checker::new()
                .determinism_check(true)
                .partial_order(por)
                .semantics(semantics)
                .fairness(fairness)
                .check(&for_obj, obj.clone(), dummies.clone())
                .map_err(|e| TestCaseError::fail(format!("{for_obj}: {e}")))?;
            states[usize::from(por)] = report.stats.product_states;
            if por {
                status = report.stats.reduction.clone();
            }
            let why = format!("{main:?}\n{for_obj} ({fairness}, por {por})\n{report}");
            match &report.verdict {
                Verdict::Holds => prop_assert!(!expected, "engine holds, reference not: {}", why),
                Verdict::Violated(c) => {
                    prop_assert!(expected, "engine violated, reference not: {}", why);
                    let replayed = c.try_replay(obj.clone());
                    prop_assert!(replayed.is_ok(), "{:?}: {}", replayed.err(), why);
                    let (prefix, cycle) = lasso_letters_by(&lts, c, type_of);
                    let holds = formula_holds_on_lasso(&for_ref, &prefix, &cycle);
                    prop_assert!(!holds, "the lasso satisfies the formula: {}", why);
                    prop_assert_eq!(
                        &c.starved,
                        &starved_in(&lts, c, &type_of, &names),
                        "{}",
                        why
                    );
                    if fairness == Fairness::Weak {
                        prop_assert!(c.starved.is_empty(), "an unfair cycle: {}", why);
                    }
                }
                _ => prop_assert!(false, "unexpected verdict: {}", why),
            }
        }
        if fairness == Fairness::Weak && semantics == Semantics::InfiniteRunsOnly {
            tally.count(&status, states);
        }
    }
    Ok(tally)
}

/// One case: the strict object built on the fly, or the liberal one.
fn case(spec: &Spec, f: &Ltl, liberal: bool, omega: bool) -> Result<FairTally, TestCaseError> {
    let lts = common::gen::compile_or_skip(spec)?;
    let semantics = if omega {
        Semantics::InfiniteRunsOnly
    } else {
        Semantics::Stutter
    };
    if liberal {
        // Liberal objects of larger specs are mostly past the bound.
        prop_assume!(lts.num_states() <= 60);
        agree(&Liberal::new(lts), f, semantics, spec.main())
    } else {
        let obj = Strict::on_the_fly(spec).expect("compiles, so builds on the fly");
        agree(&obj, f, semantics, spec.main())
    }
}

/// Runs `cases` cases (rejecting at most `rejects`); the tally of all.
fn run(cases: u32, rejects: u32) -> FairTally {
    let config = Config {
        cases,
        max_global_rejects: rejects,
        ..Config::default()
    };
    let strategy = (
        common::gen::spec(),
        formula(),
        prop::bool::ANY,
        prop::bool::ANY,
    );
    run_tallied(config, &strategy, |(spec, f, liberal, omega)| {
        case(&spec, &f, liberal, omega)
    })
}

#[test]
fn fair_verdicts_on_random_specifications_agree_with_the_reference() {
    // The floor on the weakly fair checks that the reduced search decides
    // with fewer states: without it the test could compare the full
    // search with itself and pass.
    run(1500, 20_000).assert_at_least(50, 2);
}

#[test]
#[ignore = "soak: cargo test -p prust-protocols --test it fairness_specs -- --ignored"]
fn fair_verdicts_on_random_specifications_agree_with_the_reference_soak() {
    run(10_000, 200_000).assert_at_least(50, 2);
}
