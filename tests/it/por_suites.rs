//! Partial-order reduction against the full search on every bundled
//! protocol of the `.owl` suites × every formula of its suite × both
//! semantics, on the two objects that declare their independence (the
//! strict object built on the fly and the liberal object): the same
//! verdict (or the same error), and reduced counterexamples that replay;
//! and every bundled protocol (also those no suite names) × formulas over
//! its roles, on the strict object built on the fly.

use prust::engine::{Checker, Protocol, Report, Semantics, Verdict};
use prust::protocols::bundled::spec_by_name;
use prust::{Liberal, Strict};

fn kind(r: &Result<Report, prust::engine::Error>) -> String {
    match r {
        Ok(r) => match r.verdict {
            Verdict::Holds => "holds".into(),
            Verdict::HoldsProbabilistic { .. } => "holds-probabilistic".into(),
            Verdict::HoldsOnShare { .. } => "holds-on-share".into(),
            Verdict::Violated(_) => "violated".into(),
            Verdict::Inconclusive { .. } => "inconclusive".into(),
        },
        Err(e) => format!("error: {e}"),
    }
}

/// Checks every formula on `obj` with and without the reduction; returns
/// how many checks the reduction applied to.
fn agree<P: Protocol + std::fmt::Debug>(
    obj: &P,
    formulas: &[String],
    what: &str,
    semantics: &[Semantics],
    max_states: u64,
) -> usize {
    let mut reduced_checks = 0;
    for &semantics in semantics {
        let checker = Checker::new().semantics(semantics).max_states(max_states);
        let mut full = checker
            .clone()
            .partial_order(false)
            .session(obj.clone(), vec![])
            .unwrap();
        let mut reduced = checker
            .partial_order(true)
            .session(obj.clone(), vec![])
            .unwrap();
        for f in formulas {
            let (a, b) = (full.check(f), reduced.check(f));
            assert_eq!(kind(&a), kind(&b), "{what}, {semantics:?}: {f}");
            if let Ok(r) = &b {
                if matches!(r.stats.reduction, prust::engine::ReductionStatus::On { .. }) {
                    reduced_checks += 1;
                }
                if let Some(c) = r.counterexample() {
                    c.try_replay(obj.clone())
                        .unwrap_or_else(|e| panic!("{what}, {semantics:?}: {f}: {e}"));
                }
            }
        }
    }
    reduced_checks
}

/// Runs [`agree`] on every bundled protocol of every suite: on the fly
/// always, liberal if asked; returns (protocols, checks reduced).
fn every_suite(liberal: bool, semantics: &[Semantics], max_states: u64) -> (usize, usize) {
    let files = crate::owl_files();
    let (mut protocols, mut reduced) = (0, 0);
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let Ok(suite) = prust::suite::parse(&text) else {
            continue; // suites of parse errors are tested elsewhere
        };
        let formulas: Vec<String> = suite.entries.iter().map(|e| e.formula.clone()).collect();
        for decl in &suite.protocols {
            let Ok(spec) = spec_by_name(&decl.spec) else {
                continue; // an `.aut` file: no bundled specification
            };
            let what = format!("{} on {}", file.display(), decl.spec);
            protocols += 1;
            let otf = Strict::on_the_fly(&spec).unwrap();
            let w = format!("{what} (on the fly)");
            reduced += agree(&otf, &formulas, &w, semantics, max_states);
            if liberal {
                let lib = Liberal::from_spec(&spec).unwrap();
                let w = format!("{what} (liberal)");
                reduced += agree(&lib, &formulas, &w, semantics, max_states);
            }
        }
    }
    (protocols, reduced)
}

/// The strict objects built on the fly, default semantics: kept fast.
#[test]
fn reduced_and_full_searches_agree_on_every_suite() {
    let (protocols, reduced) = every_suite(false, &[Semantics::Stutter], 20_000);
    assert!(
        protocols >= 10,
        "only {protocols} bundled protocols in the suites"
    );
    assert!(
        reduced > 50,
        "the reduction applied to only {reduced} checks"
    );
}

/// Both objects that declare independence, both semantics, larger bound
/// (about 90 s in a debug build: `cargo test --test por_suites -- --ignored`).
#[test]
#[ignore]
fn soak_reduced_and_full_searches_agree_on_every_suite_both_runtimes_and_semantics() {
    let (protocols, reduced) = every_suite(true, &Semantics::ALL, 200_000);
    assert!(
        protocols >= 10,
        "only {protocols} bundled protocols in the suites"
    );
    assert!(
        reduced > 100,
        "the reduction applied to only {reduced} checks"
    );
}

/// Formulas over the roles of any protocol: safety, response, recurrence,
/// persistence, until, about its first and its last role (a role that
/// talks to all, or one that waits for the others), the order of two
/// roles' steps, and one with `X`, which the reduction must refuse.
fn generic_formulas(roles: &[String]) -> Vec<String> {
    let mut fs = vec![
        r#"G !"DEADLOCK""#.to_string(),
        r#"F "END""#.to_string(),
        r#"G F "* SEND *""#.to_string(),
    ];
    for r in [roles.first(), roles.last()].into_iter().flatten() {
        fs.extend([
            format!(r#"G !"{r} SEND *""#),
            format!(r#"G ("{r} SEND *" -> F "{r} RECV *")"#),
            format!(r#"G F "{r} RECV *""#),
            format!(r#"F G !"{r} SEND *""#),
            format!(r#"!"{r} RECV *" U "{r} SEND *""#),
            format!(r#"G ("{r} SEND *" -> X !"{r} SEND *")"#),
        ]);
    }
    // The order of two roles' steps: what a reduction that reorders
    // visible steps would get wrong. The second role and the last are two
    // workers where there are several.
    let (second, last) = (&roles[1.min(roles.len() - 1)], &roles[roles.len() - 1]);
    for (a, b) in [(second, last), (last, second), (&roles[0], last)] {
        fs.extend([
            format!(r#"!"{a} SEND *" U "{b} SEND *""#),
            format!(r#"!"{a} RECV *" W "{b} RECV *""#),
            format!(r#"G ("{a} RECV *" -> F "{b} SEND *")"#),
        ]);
    }
    fs
}

/// Like [`agree`], but a check that a limit cuts short on either side is
/// left out (the reduced search may decide what the full one cannot
/// within the bound, and the other way round on the way to a violation);
/// returns (checks compared, checks reduced).
fn agree_within<P: Protocol + std::fmt::Debug>(
    obj: &P,
    formulas: &[String],
    what: &str,
    max_states: u64,
) -> (usize, usize) {
    let (mut compared, mut reduced_checks) = (0, 0);
    let checker = Checker::new()
        .determinism_check(true)
        .max_states(max_states);
    let mut full = checker
        .clone()
        .partial_order(false)
        .session(obj.clone(), vec![])
        .unwrap();
    let mut reduced = checker
        .partial_order(true)
        .session(obj.clone(), vec![])
        .unwrap();
    for f in formulas {
        let (a, b) = (full.check(f), reduced.check(f));
        let cut = |r: &Result<Report, prust::engine::Error>| matches!(r, Ok(r) if matches!(r.verdict, Verdict::Inconclusive { .. }));
        if let Ok(r) = &b {
            if let Some(c) = r.counterexample() {
                c.try_replay(obj.clone())
                    .unwrap_or_else(|e| panic!("{what}: {f}: {e}"));
            }
            if matches!(r.stats.reduction, prust::engine::ReductionStatus::On { .. }) {
                reduced_checks += 1;
                assert!(!f.contains('X'), "{what}: {f} reduced\n{r}");
            }
        }
        if cut(&a) || cut(&b) {
            continue;
        }
        compared += 1;
        assert_eq!(kind(&a), kind(&b), "{what}: {f}");
    }
    (compared, reduced_checks)
}

/// Every bundled protocol (`prust list`), not only those the suites name
/// (the concurrent NAS benchmarks and the buffered and unbuffered rings
/// and stars are in no suite), at its default size, strict object built
/// on the fly × formulas over its roles: reduced and full searches agree,
/// reduced counterexamples replay, and formulas with `X` are searched in
/// full.
#[test]
fn reduced_and_full_searches_agree_on_every_bundled_protocol() {
    let (mut compared, mut reduced) = (0, 0);
    let names: Vec<_> = prust::protocols::bundled::list()
        .iter()
        .map(|p| p.name)
        .collect();
    for name in &names {
        let spec = spec_by_name(name).unwrap();
        let otf = Strict::on_the_fly(&spec).unwrap();
        let formulas = generic_formulas(&otf.roles());
        let (c, r) = agree_within(&otf, &formulas, &format!("{name} (on the fly)"), 5_000);
        compared += c;
        reduced += r;
    }
    assert!(names.len() >= 22, "only {} bundled protocols", names.len());
    assert!(compared >= 300, "only {compared} checks compared");
    assert!(
        reduced >= 250,
        "the reduction applied to only {reduced} checks"
    );
}
