//! The distributed search against the one-machine check on the `.owl`
//! suites' own formulas: every bundled protocol a suite names, both
//! compiled runtimes, the suite's semantics and fairness, each formula on 1, 2 or 4
//! workers in turn. The same verdict; where it holds the same number of
//! states; where it is violated a shortest counterexample on both sides,
//! of the same length in the product (`Counterexample::product_length`:
//! what both minimise before each shows its lasso folded).

use prust::engine::{Checker, Report, Shortness, Verdict};
use prust::protocols::bundled::spec_by_name;
use prust::protocols::Object;
use prust_distributed::{check, Cluster};

/// What a report says, to compare: the verdict, the states where it
/// holds. A violation's length is compared apart: either side may stop
/// looking for a shortest one at the state limit (both count the pairs
/// of its search against it, but not alike).
#[derive(Debug, PartialEq)]
enum Said {
    Holds(u64),
    Violated,
    Inconclusive,
}

fn said(r: &Report) -> Said {
    match &r.verdict {
        Verdict::Holds => Said::Holds(r.stats.product_states),
        Verdict::Violated(_) => Said::Violated,
        _ => Said::Inconclusive,
    }
}

/// The product length of a shortest violation, where the report says it
/// is one.
fn shortest(r: &Report) -> Option<(u64, u64)> {
    match &r.verdict {
        Verdict::Violated(c) if c.shortness == Shortness::Shortest => {
            Some(c.product_length.expect("a shortest violation's length"))
        }
        _ => None,
    }
}

#[test]
fn suite_formulas_agree_with_one_machine_on_1_2_and_4_workers() {
    let files = crate::owl_files();
    let (mut compared, mut violated, mut lengths, mut turn) = (0, 0, 0, 0usize);
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let Ok(suite) = prust::suite::parse(&text) else {
            continue; // suites of parse errors are tested elsewhere
        };
        let fairness = suite.fairness.unwrap_or_default();
        for decl in &suite.protocols {
            let Ok(spec) = spec_by_name(&decl.spec) else {
                continue; // an `.aut` file: the command-line test has those
            };
            for runtime in ["strict", "liberal"] {
                for &semantics in &suite.semantics {
                    let make = {
                        let spec = spec.clone();
                        move || {
                            let obj: Object = if runtime == "strict" {
                                spec.strict().unwrap().into()
                            } else {
                                spec.liberal().unwrap().into()
                            };
                            Checker::new()
                                .semantics(semantics)
                                .fairness(fairness)
                                .partial_order(false)
                                .shortest(true)
                                .max_states(20_000)
                                .session(obj, Vec::new())
                        }
                    };
                    let mut one = make().unwrap();
                    for entry in &suite.entries {
                        let f = &entry.formula;
                        let Ok(want) = one.check(f) else {
                            continue; // an error in the formula: the same on both sides
                        };
                        if said(&want) == Said::Inconclusive {
                            continue;
                        }
                        let workers = [1, 2, 4][turn % 3];
                        turn += 1;
                        let ctx = format!(
                            "{} {} {runtime} {} `{f}` on {workers} workers",
                            file.display(),
                            decl.spec,
                            semantics.name()
                        );
                        let got = check(&Cluster::threads(workers), f, make.clone())
                            .unwrap_or_else(|e| panic!("{ctx}: {e}"));
                        assert_eq!(
                            said(&got.report),
                            said(&want),
                            "{ctx}\n{}\n---\n{want}",
                            got.report
                        );
                        if let (Some(a), Some(b)) = (shortest(&got.report), shortest(&want)) {
                            assert_eq!(a, b, "{ctx}\n{}\n---\n{want}", got.report);
                            lengths += 1;
                        }
                        compared += 1;
                        violated += usize::from(said(&want) == Said::Violated);
                    }
                }
            }
        }
    }
    assert!(
        compared > 600 && violated > 200 && lengths > 200,
        "{compared} compared, {violated} violated, {lengths} lengths"
    );
}
