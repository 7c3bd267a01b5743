//! Formulas whose violations are accepting cycles: the distributed
//! search's OWCTY against the one-machine search, on every bundled
//! protocol and runtime, under both semantics, on one and three workers.

use engine::{Checker, Semantics, Verdict};
use prust_distributed::{check, Cluster};

/// The bundled protocols' defaults are small; a bigger one is left out
/// rather than slow the tests.
pub(crate) const MAX_STATES: u64 = 20_000;

/// Liveness formulas over the roles `roles`: progress of one role,
/// response, eventual ending, persistence, and a conjunction of two
/// infinitely-often (two acceptance sets).
pub(crate) fn formulas(roles: &[String]) -> Vec<String> {
    let mut f = vec![r#"F "END""#.to_string(), r#"F G !"END""#.to_string()];
    for r in roles.iter().take(2) {
        f.push(format!(r#"G F "{r} SEND *""#));
        f.push(format!(r#"F G !"{r} RECV *""#));
    }
    if let [a, b, ..] = roles {
        f.push(format!(r#"G ("{a} SEND *" -> F "{b} RECV *")"#));
        f.push(format!(r#"G F "{a} RECV *" -> G F "{b} SEND *""#));
        f.push(format!(r#"!(G F "{a} SEND *" & G F "{b} SEND *")"#));
    }
    f
}

fn checker(semantics: Semantics) -> Checker {
    Checker::new()
        .max_states(MAX_STATES)
        .partial_order(false)
        .semantics(semantics)
}

#[test]
fn accepting_cycles_agree_with_one_machine() {
    let (mut holds, mut violated) = (0, 0);
    for info in protocols::bundled::list() {
        let spec = protocols::bundled::spec_by_name(info.name).unwrap();
        for (runtime, semantics) in [
            ("strict", Semantics::Stutter),
            ("liberal", Semantics::Stutter),
            ("strict", Semantics::InfiniteRunsOnly),
        ] {
            let make = {
                let spec = spec.clone();
                move || -> Result<engine::CheckSession<protocols::Object>, engine::Error> {
                    let obj = crate::object(&spec, runtime);
                    checker(semantics).session(obj, Vec::new())
                }
            };
            for formula in formulas(&info.roles) {
                let one = make().unwrap().check(&formula).unwrap();
                if matches!(one.verdict, Verdict::Inconclusive { .. }) {
                    continue;
                }
                for threads in [1, 3] {
                    let ctx = format!(
                        "{} {runtime} {} `{formula}` on {threads} workers",
                        info.name,
                        semantics.name()
                    );
                    let o = check(&Cluster::threads(threads), &formula, make.clone())
                        .unwrap_or_else(|e| panic!("{ctx}: {e}"));
                    match (&one.verdict, &o.report.verdict) {
                        (Verdict::Holds, Verdict::Holds) => {
                            holds += 1;
                            assert_eq!(
                                o.report.stats.product_states, one.stats.product_states,
                                "{ctx}"
                            );
                        }
                        (Verdict::Violated(_), Verdict::Violated(c)) => {
                            violated += 1;
                            // Replayed by the engine before it was shown.
                            assert!(!c.cycle.is_empty() || c.ending.is_some(), "{ctx}");
                        }
                        _ => panic!("{ctx}:\n{}\n---\n{one}", o.report),
                    }
                }
            }
        }
    }
    assert!(
        holds > 40 && violated > 40,
        "{holds} hold, {violated} violated"
    );
}

/// Two acceptance sets that only a cycle through both roles' sends meets:
/// the cycle shown takes both.
#[test]
fn a_cycle_takes_every_acceptance_set() {
    let spec = protocols::bundled::spec_by_name("ring-buffered:3").unwrap();
    let roles = engine::Protocol::roles(&spec.liberal().unwrap());
    let formula = format!(
        r#"!(G F "{} SEND *" & G F "{} SEND *")"#,
        roles[0], roles[1]
    );
    for threads in [1, 2, 4] {
        let o = check(&Cluster::threads(threads), &formula, {
            let spec = spec.clone();
            move || Checker::new().session(spec.liberal().unwrap(), Vec::new())
        })
        .unwrap();
        let Verdict::Violated(c) = &o.report.verdict else {
            panic!("{}", o.report)
        };
        let cycle: Vec<String> = c.cycle.iter().map(|s| s.to_string()).collect();
        for r in &roles[..2] {
            let send = format!("{r} SEND");
            assert!(
                cycle.iter().any(|s| s.contains(&send)),
                "{threads} workers: no `{send}` in the cycle {cycle:?}"
            );
        }
    }
}
