//! OWCTY and its lasso against the one-machine search on objects bigger
//! than `random`'s (up to 60 states, mostly forward edges: chains of
//! components, which the source-component search must walk back over),
//! formulas with up to three acceptance sets, on one to four workers; and
//! the engine's refusal of a lasso that is not an accepting cycle.

use engine::testing::{Label, Lts, LtsProtocol, Rng};
use engine::{ActionKind, Checker, Semantics, Verdict};
use proptest::prelude::*;
use prust_distributed::{check, Cluster};

fn big(seed: u64, states: usize, fanout: usize) -> LtsProtocol {
    let mut rng = Rng::new(seed);
    let roles = 3;
    let types = 2;
    let mut trans = Vec::new();
    for s in 0..states {
        let mut out: Vec<(Label, usize)> = Vec::new();
        for _ in 0..rng.below(fanout + 1) {
            let role = rng.below(roles);
            let peer = (role + 1 + rng.below(roles - 1)) % roles;
            let kind = [ActionKind::Send, ActionKind::Recv, ActionKind::Close][rng.below(3)];
            let ty = rng.below(types);
            // Mostly forward, some back: chains of components.
            let to = if rng.chance(3, 4) {
                (s + 1 + rng.below(3)).min(states - 1)
            } else {
                rng.below(states)
            };
            out.push((Label::new(role, kind, ty, peer), to));
        }
        trans.push(out);
    }
    let terminal = (0..states).map(|_| rng.chance(1, 6)).collect();
    let lts = Lts {
        roles,
        types,
        trans,
        terminal,
    }
    .normalise();
    let mut o = LtsProtocol::new(lts);
    o.bytes = true;
    o.names_types = true;
    o
}

fn atom() -> impl Strategy<Value = String> {
    (0..3usize, 0..3u8, 0..2usize).prop_map(|(r, k, t)| match k {
        0 => format!("\"r{r} SEND <T{t}>\""),
        1 => format!("\"r{r} RECV *\""),
        _ => format!("\"r{r} CLOSE\""),
    })
}

fn formula() -> impl Strategy<Value = String> {
    prop_oneof![
        (atom(), atom()).prop_map(|(a, b)| format!("!(G F ({a}) & G F ({b}))")),
        (atom(), atom(), atom())
            .prop_map(|(a, b, c)| format!("!(G F ({a}) & G F ({b}) & G F ({c}))")),
        (atom(), atom()).prop_map(|(a, b)| format!("G F ({a}) -> G F ({b})")),
        (atom(), atom()).prop_map(|(a, b)| format!("G (({a}) -> F ({b}))")),
        atom().prop_map(|a| format!("F G !({a})")),
        atom().prop_map(|a| format!("F ({a})")),
        atom().prop_map(|a| format!("G !({a})")),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn bigger_objects_agree_with_one_machine(
        seed in any::<u64>(),
        states in 5..60usize,
        fanout in 1..5usize,
        formula in formula(),
        threads in 1..=4usize,
        omega in any::<bool>(),
    ) {
        let obj = big(seed, states, fanout);
        let dummies = obj.lts.dummies();
        let semantics = if omega { Semantics::InfiniteRunsOnly } else { Semantics::Stutter };
        let checker = Checker::new().partial_order(false).semantics(semantics);
        let one = match checker.clone().check(&formula, obj.clone(), dummies.clone()) {
            Ok(r) => r,
            // An atom over a role the object lacks: not this test's case.
            Err(_) => return Ok(()),
        };
        let got = check(&Cluster::threads(threads), &formula, move || {
            checker.session(obj.clone(), dummies.clone())
        });
        let o = match got {
            Ok(o) => o,
            Err(e) => return Err(TestCaseError::fail(format!("{e}\n---\n{one}"))),
        };
        let r = &o.report;
        match (&one.verdict, &r.verdict) {
            (Verdict::Holds, Verdict::Holds) | (Verdict::Violated(_), Verdict::Violated(_)) => {}
            _ => prop_assert!(false, "{}\n---\n{}", r, one),
        }
    }
}

/// The engine's replay refuses a lasso that is not an accepting one: the
/// safety net under every cycle the distributed search reports.
#[test]
fn violated_lasso_refuses_what_is_not_an_accepting_cycle() {
    let send = Label {
        role: 0,
        kind: ActionKind::Send,
        ty: 0,
        peer: 1,
    };
    let recv = Label {
        role: 1,
        kind: ActionKind::Recv,
        ty: 0,
        peer: 0,
    };
    let lts = Lts {
        roles: 2,
        types: 1,
        trans: vec![vec![(send, 1)], vec![(recv, 0)]],
        terminal: vec![false, false],
    };
    let mut obj = LtsProtocol::new(lts);
    obj.names_types = true;
    let dummies = obj.lts.dummies();
    let mut session = Checker::new().session(obj, dummies).unwrap();
    let mut graph = session.product_graph(r#"F G !"r0 SEND <T0>""#).unwrap();
    assert!(!graph.decided_by_reachability());
    assert_ne!(graph.all_marks(), 0);
    // Follow the first edge until a product state repeats.
    let (mut o, mut q) = graph.initial();
    let mut seen = vec![(o.state, q)];
    let mut steps: Vec<(u32, u32, u32)> = Vec::new();
    let mut edges = Vec::new();
    let start = loop {
        graph.successors(&o, q, &mut edges).unwrap();
        let e = edges.swap_remove(0);
        steps.push((e.letter, e.state, e.marks));
        (o, q) = (e.object, e.state);
        if let Some(i) = seen.iter().position(|&s| s == (o.state, q)) {
            break i;
        }
        seen.push((o.state, q));
    };
    let prefix: Vec<(u32, u32)> = steps[..start].iter().map(|&(l, q, _)| (l, q)).collect();
    let cycle = steps[start..].to_vec();
    let stats = engine::Stats::default;
    let not = || engine::Shortness::NotShown(String::new());
    let ok = graph.violated_lasso(&prefix, &cycle, stats(), not());
    assert!(matches!(ok.map(|r| r.verdict), Ok(Verdict::Violated(_))));
    assert!(graph.violated_lasso(&prefix, &[], stats(), not()).is_err());
    let unmarked: Vec<_> = cycle.iter().map(|&(l, q, _)| (l, q, 0)).collect();
    assert!(graph
        .violated_lasso(&prefix, &unmarked, stats(), not())
        .is_err());
    assert!(graph
        .violated_lasso(&prefix, &cycle[..cycle.len() - 1], stats(), not())
        .is_err());
}
