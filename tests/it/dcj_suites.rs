//! The `.owl` suites give the same verdicts on the objects of prust's own
//! `.dcj` versions of the bundled protocols as on the bundled objects:
//! every entry of every suite whose protocols have a `.dcj` version, in
//! both runtimes and both semantics.

use std::path::Path;
use std::sync::Arc;

use prust::dcj;
use prust::protocols::Lts;
use prust::suite::parse;
use prust::{Checker, Liberal, Semantics, Strict, Verdict};

/// The `.dcj` file, session and arguments that import a bundled protocol.
fn dcj_version(bundled: &str) -> Option<(&'static str, String, Vec<i64>)> {
    let (name, k) = match bundled.split_once(':') {
        Some((n, k)) => (n, k.parse::<i64>().ok()),
        None => (bundled, None),
    };
    Some(match (name, k) {
        ("chess", None) => ("chess.dcj", "chess".into(), vec![]),
        ("tic-tac-toe", None) => ("tic-tac-toe.dcj", "tic-tac-toe".into(), vec![]),
        ("go-fish", Some(k)) => ("go-fish.dcj", "go-fish".into(), vec![k]),
        ("rock-paper-scissors", Some(k)) if k <= 3 => (
            "rock-paper-scissors.dcj",
            "rock-paper-scissors".into(),
            vec![k],
        ),
        (n, Some(k)) if n.starts_with("token-") => ("token.dcj", n.into(), vec![k, 0]),
        (n, Some(k)) if ["npb-cg", "npb-is", "npb-ft", "npb-mg"].contains(&n) => {
            ("npb.dcj", n.into(), vec![k])
        }
        _ => return None,
    })
}

fn verdict_kind(v: &Verdict) -> &'static str {
    match v {
        Verdict::Holds => "holds",
        Verdict::HoldsProbabilistic { .. } => "holds-probabilistic",
        Verdict::HoldsOnShare { .. } => "holds-on-share",
        Verdict::Violated(_) => "violated",
        Verdict::Inconclusive { .. } => "inconclusive",
    }
}

fn deterministic(lts: Lts) -> Arc<Lts> {
    Arc::new(if lts.is_deterministic() {
        lts
    } else {
        lts.determinise(1_000_000).unwrap()
    })
}

#[test]
fn suites_give_the_same_verdicts_on_imported_and_bundled_objects() {
    let compared = compare_suites(&[
        "tests/owl/games/chess.owl",
        "tests/owl/games/tic-tac-toe.owl",
        "tests/owl/games/rock-paper-scissors.owl",
        "tests/owl/games/go-fish.owl",
        "tests/owl/topologies.owl",
        "tests/owl/npb/cg.owl",
        "tests/owl/npb/is.owl",
        "tests/owl/npb/ft.owl",
    ]);
    assert!(compared > 100, "{compared}");
}

/// NPB MG's liberal object takes about a minute to check here: a soak.
#[test]
#[ignore]
fn mg_suite_gives_the_same_verdicts_on_imported_and_bundled_objects() {
    assert!(compare_suites(&["tests/owl/npb/mg.owl"]) > 10);
}

/// Compares the verdicts of every entry of `suites` on the imported and
/// the bundled objects; returns how many pairs it compared.
fn compare_suites(suites: &[&str]) -> usize {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut compared = 0;
    for &file in suites {
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        let suite = parse(&text).unwrap_or_else(|e| panic!("{file}: {e:?}"));
        for decl in &suite.protocols {
            let (dcj_file, session, args) = dcj_version(&decl.spec)
                .unwrap_or_else(|| panic!("no .dcj version of {}", decl.spec));
            let path = root.join("dcj/tests/dcj").join(dcj_file);
            let imported = dcj::load(&path, Some(&session), &args)
                .unwrap()
                .compile()
                .unwrap();
            let bundled = prust::bundled::by_name(&decl.spec).unwrap();
            let (imported, bundled) = (deterministic(imported), deterministic(bundled));
            // Objects are built once per protocol; a checker session per
            // object and semantics shares its explored states between the
            // entries, as the suite harness does.
            let strict = [
                Strict::try_new(Arc::clone(&imported)).unwrap(),
                Strict::try_new(Arc::clone(&bundled)).unwrap(),
            ];
            let liberal = [
                Liberal::try_new(Arc::clone(&imported)).unwrap(),
                Liberal::try_new(Arc::clone(&bundled)).unwrap(),
            ];
            for semantics in [Semantics::Stutter, Semantics::InfiniteRunsOnly] {
                let checker = Checker::new().progress(false).semantics(semantics);
                let mut ss: Vec<_> = strict
                    .iter()
                    .map(|o| {
                        checker
                            .session(o.clone(), prust::declared_dummies(o))
                            .unwrap()
                    })
                    .collect();
                let mut ls: Vec<_> = liberal
                    .iter()
                    .map(|o| {
                        checker
                            .session(o.clone(), prust::declared_dummies(o))
                            .unwrap()
                    })
                    .collect();
                for entry in &suite.entries {
                    let s: Vec<_> = ss
                        .iter_mut()
                        .map(|x| verdict_kind(&x.check(&entry.formula).unwrap().verdict))
                        .collect();
                    assert_eq!(
                        s[0], s[1],
                        "{file} {} on {} (strict, {semantics:?})",
                        entry.name, decl.spec
                    );
                    let l: Vec<_> = ls
                        .iter_mut()
                        .map(|x| verdict_kind(&x.check(&entry.formula).unwrap().verdict))
                        .collect();
                    assert_eq!(
                        l[0], l[1],
                        "{file} {} on {} (liberal, {semantics:?})",
                        entry.name, decl.spec
                    );
                    compared += 2;
                }
            }
        }
    }
    compared
}
