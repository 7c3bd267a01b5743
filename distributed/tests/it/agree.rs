//! Verdicts and shortest-counterexample lengths equal to the one-machine
//! search's, whatever the number of workers, on every bundled protocol
//! and runtime, for safety formulas over its roles.

use engine::{Checker, Report, Verdict};
use prust_distributed::{check, Cluster};

/// States a check may store: the bundled protocols' defaults are small,
/// and a bigger one is left out rather than slow the tests.
const MAX_STATES: u64 = 60_000;

/// Safety formulas over the roles `roles` and the types `types`: the
/// deadlock freedom, a role never sending, a type never received, and
/// a send that never comes before a receive (weak until).
fn formulas(roles: &[String], types: &[String]) -> Vec<String> {
    let mut f = vec![
        r#"G !"DEADLOCK""#.to_string(),
        r#"G !"END""#.to_string(),
        r#"G ("END" -> G "END")"#.to_string(),
    ];
    for r in roles.iter().take(3) {
        f.push(format!(r#"G !"{r} SEND *""#));
    }
    for t in types.iter().take(2) {
        f.push(format!(r#"G !"* RECV <{t}>""#));
    }
    if let [a, b, ..] = roles {
        f.push(format!(r#"!"{a} SEND *" W "{b} RECV *""#));
        f.push(format!(r#"G ("{a} RECV *" -> X !"{b} RECV *")"#));
    }
    f
}

/// The reference explores every state (the distributed search does not
/// reduce), so that the state counts compare too.
fn checker() -> Checker {
    Checker::new().max_states(MAX_STATES).partial_order(false)
}

/// The length of a violation as shown, or `None`: its actions (a finite
/// run's stutter steps are its ending, not steps).
fn violation_length(r: &Report) -> Option<usize> {
    match &r.verdict {
        Verdict::Violated(c) => Some(c.prefix.len() + c.cycle.len()),
        _ => None,
    }
}

#[derive(Debug, PartialEq)]
enum Kind {
    Holds,
    Violated(Option<usize>),
    Inconclusive,
}

fn kind(r: &Report) -> Kind {
    match &r.verdict {
        Verdict::Holds => Kind::Holds,
        Verdict::Violated(_) => Kind::Violated(violation_length(r)),
        _ => Kind::Inconclusive,
    }
}

#[test]
fn every_bundled_protocol_agrees_with_one_machine() {
    let mut compared = 0;
    let mut violated = 0;
    for info in protocols::bundled::list() {
        let spec = protocols::bundled::spec_by_name(info.name).unwrap();
        let types: Vec<String> = info.types.clone();
        for runtime in ["strict", "liberal"] {
            let make = {
                let spec = spec.clone();
                move || -> Result<engine::CheckSession<protocols::Object>, engine::Error> {
                    let obj = crate::object(&spec, runtime);
                    checker().session(obj, Vec::new())
                }
            };
            for formula in formulas(&info.roles, &types) {
                let one = make().unwrap().check(&formula).unwrap();
                if kind(&one) == Kind::Inconclusive {
                    continue;
                }
                for threads in [1, 3] {
                    let m = make.clone();
                    let got = check(&Cluster::threads(threads), &formula, m);
                    let ctx = format!("{} {runtime} `{formula}` on {threads} workers", info.name);
                    match got {
                        Ok(o) => {
                            assert_eq!(
                                kind(&o.report),
                                kind(&one),
                                "{ctx}:\n{}\n---\n{one}",
                                o.report
                            );
                            if kind(&one) == Kind::Holds {
                                // The same state space, every state of it.
                                let (got, want) =
                                    (o.report.stats.product_states, one.stats.product_states);
                                assert_eq!(got, want, "{ctx}\n{}\n---\n{one}", o.report);
                            }
                            compared += 1;
                            violated += usize::from(violation_length(&one).is_some());
                        }
                        other => panic!("{ctx}: {other:?}"),
                    }
                }
            }
        }
    }
    assert!(
        compared > 100 && violated > 20,
        "{compared} compared, {violated} violated"
    );
}

/// A path that is not a run of the product is an error, never a
/// counterexample: the report replays what it shows.
#[test]
fn a_path_that_is_not_a_run_is_refused() {
    let spec = protocols::bundled::spec_by_name("chess").unwrap();
    let obj: protocols::Object = spec.strict().unwrap().into();
    let mut session = checker().session(obj, Vec::new()).unwrap();
    let mut graph = session.product_graph(r#"G !"black SEND *""#).unwrap();
    // The first path to a bad state, breadth first.
    let (obj, q) = graph.initial();
    let mut level = vec![(obj, q, Vec::new())];
    let mut edges = Vec::new();
    let path: Vec<(u32, u32)> = 'search: loop {
        let mut next = Vec::new();
        for (obj, q, path) in level {
            graph.successors(&obj, q, &mut edges).unwrap();
            for e in edges.drain(..) {
                let mut p: Vec<(u32, u32)> = path.clone();
                p.push((e.letter, e.state));
                if graph.is_bad(e.state) {
                    break 'search p;
                }
                next.push((e.object, e.state, p));
            }
        }
        level = next;
    };
    assert_eq!(path.len(), 3, "white sends, black receives, black sends");
    let stats = engine::Stats::default();
    let not_bad = graph.violated(&path[..2], stats.clone());
    assert!(
        matches!(&not_bad, Err(engine::Error::Nondeterminism { detail, .. })
            if detail.contains("does not end in a state that violates")),
        "{not_bad:?}"
    );
    // Black receiving before white sent is no run of the object.
    let wrong = graph.violated(&path[1..], stats.clone());
    assert!(
        matches!(&wrong, Err(engine::Error::Nondeterminism { detail, .. })
            if detail.contains("step 1 of the path found could not be replayed")),
        "{wrong:?}"
    );
    let report = graph.violated(&path, stats).unwrap();
    let c = report.counterexample().expect("a counterexample");
    assert_eq!(c.prefix.len(), 3);
}

/// Levels of thousands of states a worker: batches are sent while the
/// level is expanded, and taken in as they arrive.
#[test]
fn large_levels_agree_with_one_machine() {
    let spec = protocols::bundled::spec_by_name("npb-cg-concurrent:4").unwrap();
    let make = move || -> Result<engine::CheckSession<protocols::Object>, engine::Error> {
        let obj: protocols::Object = spec.liberal().unwrap().into();
        Checker::new().partial_order(false).session(obj, Vec::new())
    };
    let formula = r#"G !"DEADLOCK""#;
    let one = make().unwrap().check(formula).unwrap();
    assert!(one.holds(), "{one}");
    let o = check(&Cluster::threads(2), formula, make).unwrap();
    assert!(o.report.holds(), "{}", o.report);
    assert_eq!(o.report.stats.product_states, one.stats.product_states);
    assert_eq!(o.report.stats.transitions, one.stats.transitions);
}

/// A state limit below the state count never gives "holds", on any
/// number of workers and wherever in a level a worker fills up.
#[test]
fn a_binding_state_limit_is_never_holds() {
    // Levels of thousands of states: a worker fills up while batches are
    // still coming in, between two of its looks at the clock.
    let spec = protocols::bundled::spec_by_name("token-full-mesh:6").unwrap();
    let formula = r#"G !"DEADLOCK""#;
    let whole = {
        let obj: protocols::Object = spec.liberal().unwrap().into();
        let one = Checker::new().partial_order(false);
        one.check(formula, obj, Vec::new()).unwrap()
    };
    assert!(whole.holds(), "{whole}");
    let n = whole.stats.product_states;
    for threads in 1..=3 {
        for k in [1, 1000, n / 2, n - 5000, n - 1000, n - 100, n - 10, n - 1] {
            let spec = spec.clone();
            let make = move || {
                let obj: protocols::Object = spec.liberal().unwrap().into();
                Checker::new().max_states(k).session(obj, Vec::new())
            };
            let o = check(&Cluster::threads(threads), formula, make).unwrap();
            assert!(
                matches!(o.report.verdict, Verdict::Inconclusive { .. }),
                "{k} states of {n}, {threads} workers:\n{}",
                o.report
            );
        }
    }
}
