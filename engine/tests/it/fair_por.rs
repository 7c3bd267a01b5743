//! Partial-order reduction under weak fairness: two random explicit LTSs
//! side by side (disjoint roles, each declared one component), random
//! formulas over both (half of them the liveness shapes the reduction
//! applies to), both semantics, fairness none and weak × the reduction on
//! and off, against the brute-force reference on the explicit product.
//! Every counterexample replays, violates the formula, and under fairness
//! starves nobody. The test also counts the weakly fair checks that the
//! reduced search decided with fewer states than the full one and asserts
//! a floor, so that it cannot compare an unreduced search with itself.

use std::cell::Cell;

use crate::common;
use crate::differential::{formula_strategy, is_a_counterexample};

use common::{atom_strategy, lts_strategy, reference_violated_under, Label, Lts, LtsProtocol};
use engine::por::ReductionStatus;
use engine::{
    ActionKind, ActionRef, Checker, Fairness, Independence, Message, Protocol, Refused, Report,
    RoleId, Semantics, Verdict,
};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRng, TestRunner};

/// Two LTS objects side by side: roles `0..na` are `a`'s, the others
/// `b`'s (renumbered); an action between the two sides is refused. Each
/// side is a component: its steps neither change the other's state nor
/// what the other may do.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Par {
    a: LtsProtocol,
    b: LtsProtocol,
    types: usize,
}

impl Par {
    fn new(a: Lts, b: Lts) -> Par {
        let types = a.types.max(b.types);
        Par {
            a: LtsProtocol::new(a),
            b: LtsProtocol::new(b),
            types,
        }
    }

    fn na(&self) -> usize {
        self.a.lts.roles
    }

    /// The side of `role`: `a` with the role as is, or `b` renumbered.
    fn side(&mut self, role: RoleId) -> (&mut LtsProtocol, usize) {
        let na = self.na();
        if role < na {
            (&mut self.a, 0)
        } else {
            (&mut self.b, na)
        }
    }

    fn same_side(&self, x: RoleId, y: RoleId) -> bool {
        (x < self.na()) == (y < self.na())
    }

    /// The explicit product, for the reference: state `i * |b| + j`.
    fn explicit(&self) -> Lts {
        let (a, b, na) = (&self.a.lts, &self.b.lts, self.na());
        let nb = b.trans.len();
        let mut trans = Vec::new();
        let mut terminal = Vec::new();
        for i in 0..a.trans.len() {
            for j in 0..nb {
                let mut out: Vec<(Label, usize)> =
                    a.trans[i].iter().map(|&(l, i2)| (l, i2 * nb + j)).collect();
                out.extend(b.trans[j].iter().map(|&(l, j2)| {
                    let l = Label {
                        role: l.role + na,
                        peer: l.peer + na,
                        ..l
                    };
                    (l, i * nb + j2)
                }));
                trans.push(out);
                terminal.push(a.terminal[i] && b.terminal[j]);
            }
        }
        Lts {
            roles: na + b.roles,
            types: self.types,
            trans,
            terminal,
        }
    }
}

impl Protocol for Par {
    fn roles(&self) -> Vec<String> {
        (0..self.na() + self.b.lts.roles)
            .map(Lts::role_name)
            .collect()
    }
    fn type_names(&self) -> Vec<String> {
        (0..self.types).map(Lts::type_name).collect()
    }
    fn try_send(&mut self, role: RoleId, to: RoleId, msg: Message) -> Result<(), Refused<Message>> {
        if !self.same_side(role, to) {
            return Err(Refused(msg));
        }
        let (side, off) = self.side(role);
        side.try_send(role - off, to - off, msg)
    }
    fn try_recv(
        &mut self,
        role: RoleId,
        from: Option<RoleId>,
    ) -> Result<(RoleId, Message), Refused> {
        if from.is_some_and(|f| !self.same_side(role, f)) {
            return Err(Refused(()));
        }
        let (side, off) = self.side(role);
        let (peer, m) = side.try_recv(role - off, from.map(|f| f - off))?;
        Ok((peer + off, m))
    }
    fn try_close(&mut self, role: RoleId, to: RoleId) -> Result<(), Refused> {
        if !self.same_side(role, to) {
            return Err(Refused(()));
        }
        let (side, off) = self.side(role);
        side.try_close(role - off, to - off)
    }
    fn is_terminated(&self) -> bool {
        self.a.is_terminated() && self.b.is_terminated()
    }
    fn independence(&self) -> Option<Independence> {
        let (na, n) = (self.na(), self.na() + self.b.lts.roles);
        let side = |roles: std::ops::Range<usize>| {
            let peers = roles.clone();
            roles.flat_map(move |r| {
                let peers = peers.clone();
                [ActionKind::Send, ActionKind::Recv, ActionKind::Close]
                    .into_iter()
                    .flat_map(move |k| peers.clone().map(move |p| ActionRef::new(r, k, p)))
            })
        };
        Some(
            Independence::new()
                .component(side(0..na))
                .component(side(na..n)),
        )
    }
}

/// A formula over `roles` roles and `types` types: half of them the
/// liveness shapes that the reduction applies to (eventually, recurrence,
/// response, persistence), the others any shape.
fn formula(roles: usize, types: usize) -> BoxedStrategy<String> {
    let atom = || atom_strategy(roles, types).prop_map(|a| format!("\"{a}\""));
    let live = prop_oneof![
        atom().prop_map(|a| format!("F {a}")),
        atom().prop_map(|a| format!("G F {a}")),
        atom().prop_map(|a| format!("F G !{a}")),
        (atom(), atom()).prop_map(|(a, b)| format!("G ({a} -> F {b})")),
    ];
    prop_oneof![live, formula_strategy(roles, types)].boxed()
}

/// Two LTSs, a formula over both, the semantics and hash compaction.
fn par_case() -> impl Strategy<Value = (Lts, Lts, String, bool, bool)> {
    (lts_strategy(6), lts_strategy(6)).prop_flat_map(|(a, b)| {
        let f = formula(a.roles + b.roles, a.types.max(b.types));
        (Just(a), Just(b), f, any::<bool>(), any::<bool>())
    })
}

/// What the weakly fair checks with the reduction on did.
#[derive(Default, Clone, Copy, Debug)]
struct Tally {
    /// Weakly fair checks whose formula and object allow the reduction.
    applicable: usize,
    /// ... of which the reduced search decided, with fewer product
    /// states than the full search stored.
    reduced: usize,
}

fn check(
    obj: &Par,
    formula: &str,
    semantics: Semantics,
    fairness: Fairness,
    por: bool,
    compact: bool,
) -> Result<Report, TestCaseError> {
    let dummies = obj.explicit().dummies();
    Checker::new()
        .determinism_check(true)
        .hash_compaction(compact)
        .partial_order(por)
        .semantics(semantics)
        .fairness(fairness)
        .check(formula, obj.clone(), dummies)
        .map_err(|e| TestCaseError::fail(format!("{formula}: engine error: {e}")))
}

/// One case: every verdict equals the reference's, every counterexample
/// is one (and fair under fairness); returns what the fair reduced check
/// did.
fn agree(
    a: &Lts,
    b: &Lts,
    formula: &str,
    omega: bool,
    compact: bool,
) -> Result<Tally, TestCaseError> {
    let obj = Par::new(a.clone(), b.clone());
    let lts = obj.explicit();
    let semantics = if omega {
        Semantics::InfiniteRunsOnly
    } else {
        Semantics::Stutter
    };
    let mut tally = Tally::default();
    for fairness in Fairness::ALL {
        let expected = reference_violated_under(&lts, formula, !omega, fairness == Fairness::Weak);
        let mut states = [0u64; 2];
        let mut status = ReductionStatus::NotDeclared;
        for por in [false, true] {
            let report = check(&obj, formula, semantics, fairness, por, compact)?;
            states[usize::from(por)] = report.stats.product_states;
            if por {
                status = report.stats.reduction.clone();
            }
            match &report.verdict {
                Verdict::Holds | Verdict::HoldsProbabilistic { .. } => {
                    prop_assert!(
                        !expected,
                        "engine holds, reference violated (por {por})\n{report}"
                    )
                }
                Verdict::Violated(c) => {
                    prop_assert!(
                        expected,
                        "engine violated, reference holds (por {por})\n{report}"
                    );
                    // The product LTS numbers its roles as the object does.
                    is_a_counterexample(&lts, LtsProtocol::new(lts.clone()), formula, c, &report)?;
                    if fairness == Fairness::Weak {
                        prop_assert!(
                            c.starved.is_empty(),
                            "an unfair cycle (por {por})\n{report}"
                        );
                    }
                }
                other => prop_assert!(false, "unexpected verdict {other:?}\n{report}"),
            }
        }
        // Counted under the infinite-runs-only semantics, where every
        // weakly fair check searches for fair cycles (under the stutter
        // one a safety property is decided as without fairness).
        let formula_allows =
            !matches!(&status, ReductionStatus::Off(w) if !w.contains("weak fairness"));
        if fairness == Fairness::Weak && omega && formula_allows {
            tally.applicable += 1;
            if matches!(status, ReductionStatus::On { ample_states } if ample_states > 0)
                && states[1] < states[0]
            {
                tally.reduced += 1;
            }
        }
    }
    Ok(tally)
}

/// Runs `cases` cases; the tally of all of them.
fn run(cases: u32) -> Tally {
    // A fixed seed: the tally, and so the floor, is the same every run.
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    let rng = TestRng::deterministic_rng(config.rng_algorithm);
    let mut runner = TestRunner::new_with_rng(config, rng);
    let total = Cell::new(Tally::default());
    let result = runner.run(&par_case(), |(a, b, formula, omega, compact)| {
        let t = agree(&a, &b, &formula, omega, compact)?;
        let mut sum = total.get();
        sum.applicable += t.applicable;
        sum.reduced += t.reduced;
        total.set(sum);
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    total.get()
}

#[test]
fn fair_verdicts_with_the_reduction_agree_with_the_reference_and_are_reduced() {
    let t = run(300);
    // Measured (300 random cases): 6 of 83 applicable checks decided by
    // the reduced search with fewer states; the others hold with nothing
    // to reduce in objects of a few states, or are violated only by
    // cycles that starve a role. Zero would mean the reduced search never
    // ran under fairness.
    assert!(
        t.applicable >= 50 && t.reduced >= 2,
        "too few fair checks reduced: {t:?}"
    );
}

#[test]
#[ignore = "soak: cargo test -p prust-engine --test it fair_por -- --ignored"]
fn fair_verdicts_with_the_reduction_agree_with_the_reference_soak() {
    let t = run(10_000);
    assert!(t.reduced * 50 >= t.applicable, "{t:?}");
}

/// A loop of one send and its receive between roles 0 and 1, among
/// `roles` roles of which the others never act.
fn pair_loop(roles: usize) -> Lts {
    let label = |role, kind, peer| Label {
        role,
        kind,
        ty: 0,
        peer,
    };
    Lts {
        roles,
        types: 1,
        trans: vec![
            vec![(label(0, ActionKind::Send, 1), 1)],
            vec![(label(1, ActionKind::Recv, 0), 0)],
        ],
        terminal: vec![false, false],
    }
}

#[test]
fn a_fair_check_beyond_the_marks_is_decided_by_the_reduced_search_where_it_can() {
    // 34 roles: their marks do not fit the 32 a transition carries.
    let obj = Par::new(pair_loop(17), pair_loop(17));
    let omega = Semantics::InfiniteRunsOnly;
    // Every run sends for ever: the reduced search, which needs no
    // marks, proves it for every run, so for every fair one.
    let report = check(
        &obj,
        r#"G F "* SEND *""#,
        omega,
        Fairness::Weak,
        true,
        false,
    )
    .unwrap();
    assert!(matches!(report.verdict, Verdict::Holds), "{report}");
    assert!(
        matches!(report.stats.reduction, ReductionStatus::On { .. }),
        "{report}"
    );
    // Only fair runs keep the first side sending: every violation of the
    // reduced search starves it, and only the marks could decide.
    let dummies = obj.explicit().dummies();
    let error = |por: bool| {
        Checker::new()
            .partial_order(por)
            .semantics(omega)
            .fairness(Fairness::Weak)
            .check(r#"G F "r0 SEND *""#, obj.clone(), dummies.clone())
            .map(|r| r.to_string())
            .unwrap_err()
            .to_string()
    };
    let reduced = error(true);
    assert!(
        reduced.contains("more than the 32 marks") && reduced.contains("not known to be fair"),
        "{reduced}"
    );
    let full = error(false);
    assert!(
        full.contains("more than the 32 marks") && !full.contains("reduced search"),
        "{full}"
    );
}
