//! Lint against independent judges on random specifications:
//!
//! - `deadlock-free` and `cant-terminate` against `engine::check` of their
//!   LTL forms, `G !"DEADLOCK"` and `G !"END"` (the channel checks are
//!   compared the same way in `tests/lint.rs`);
//! - `realizable` against a breadth-first search of the real runtime
//!   objects: a [`Liberal`] and a [`Strict`] object driven side by side
//!   through the `Protocol` trait, the way the model checker drives them.

use crate::common;

use std::collections::{HashMap, HashSet, VecDeque};

use engine::Limits;
use protocols::lint::{lint, lint_with, Check, Options};
use protocols::{Liberal, Lts, StateId, Strict};

/// Checks `formula` on the strict object of `lts`: `Some(holds)`, or
/// `None` if the model checker gave no verdict.
fn engine_holds(lts: &Lts, formula: &str) -> Option<bool> {
    let object = Strict::new(lts.clone());
    let dummies = engine::declared_dummies(&object);
    let mut session = engine::Checker::new().session(object, dummies).ok()?;
    let report = session.check(formula).ok()?;
    (!matches!(report.verdict, engine::Verdict::Inconclusive { .. })).then(|| report.holds())
}

/// Whether every final state of the deterministic `lts` (as the runtimes
/// and lint run it) is stuck: only then is lint's "a run ends" (in a final
/// state) the model checker's `"END"` (a state in which nothing is
/// enabled).
fn finals_are_stuck(lts: &Lts) -> bool {
    let d = lts.determinise(100_000).expect("a small LTS");
    d.states()
        .all(|s| !d.is_final(s) || d.transitions(s).is_empty())
}

/// A nondeterministic LTS is linted as the runtimes run it, determinised:
/// the run that stops after the first `!A ?A` (state 2) is, for the strict
/// object, the run that goes on and closes (the states 2 and 4 are one), so
/// every run closes p→q, as the model checker says.
#[test]
fn a_nondeterministic_lts_is_linted_as_the_runtimes_run_it() {
    let lts = Lts::from_aut(
        "des (0, 5, 6)\n(0,\"!(A,p,q)\",1)\n(1,\"?(A,p,q)\",2)\n\
         (0,\"!(A,p,q)\",3)\n(3,\"?(A,p,q)\",4)\n(4,\"C(p,q)\",5)\n",
    )
    .unwrap();
    assert!(!lts.is_deterministic());
    let formula = r#"G ("p SEND * TO q" -> F "p CLOSE TO q")"#;
    assert_eq!(engine_holds(&lts, formula), Some(true));
    // (causality rightly flags the close right after q's receive, which p
    // cannot see; the point here is the runs that end)
    let options = Options::only(
        Check::ALL
            .into_iter()
            .filter(|c| c.is_default() && *c != Check::Causality),
    );
    let findings = lint(&lts, &options);
    assert!(findings.is_empty(), "{findings:?}");
}

/// The shortest run of the liberal object of `lts` whose last step the
/// strict object refuses, found by driving both runtime objects: `Ok(None)`
/// if there is none, `Ok(Some(labels))` (in `.aut` notation), or `Err` if
/// more than `limit` pairs of objects were reached first.
fn reference_realizable(lts: &Lts, limit: usize) -> Result<Option<Vec<String>>, ()> {
    let liberal = Liberal::try_new(lts.clone()).map_err(|_| ())?;
    let strict = Strict::new(lts.clone());
    let dummies = engine::declared_dummies(&liberal);
    // a compiled LTS tracks the channels, so the strict object is its state
    // (`Liberal` hashes and compares its local states and inboxes only, not
    // the shared projection whose lazily built tables clippy sees)
    #[allow(clippy::mutable_key_type)]
    let mut seen: HashSet<(Liberal, protocols::StateId)> = HashSet::new();
    let mut queue = VecDeque::from([(liberal.clone(), strict.clone(), Vec::<String>::new())]);
    seen.insert((liberal, strict.state()));
    while let Some((l, s, run)) = queue.pop_front() {
        let strict_steps: HashMap<String, Strict> =
            common::successors(&s, &dummies).into_iter().collect();
        for (label, l2) in common::successors(&l, &dummies) {
            let mut run2 = run.clone();
            run2.push(label.clone());
            let Some(s2) = strict_steps.get(&label) else {
                return Ok(Some(run2));
            };
            if seen.insert((l2.clone(), s2.state())) {
                if seen.len() > limit {
                    return Err(());
                }
                queue.push_back((l2, s2.clone(), run2));
            }
        }
    }
    Ok(None)
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 64, ..Default::default() })]

    /// `deadlock-free` is `G !"DEADLOCK"`, and `cant-terminate` is
    /// `G !"END"` where every final state is stuck.
    #[test]
    fn deadlock_free_and_cant_terminate_agree_with_the_model_checker(spec in common::gen::spec()) {
        let lts = common::gen::compile_or_skip(&spec)?;
        proptest::prop_assume!(
            lts.roles().len() >= 2 && !lts.type_names().is_empty(),
            "the model checker needs roles and message types"
        );
        proptest::prop_assume!(lts.num_states() <= 2_000);
        let findings = lint(&lts, &Options::only([Check::DeadlockFree, Check::CantTerminate]));
        let found = |c: Check| findings.iter().any(|f| f.check == c);
        let deadlock_free = engine_holds(&lts, r#"G !"DEADLOCK""#);
        proptest::prop_assert_eq!(
            deadlock_free, Some(!found(Check::DeadlockFree)), "{:?}", spec.main()
        );
        // the LTS the runtimes run (and lint judges): without the handshake
        // bit, determinised
        let runtime = lts.asynchronous().determinise_with(&Limits::default()).unwrap();
        if finals_are_stuck(&runtime) {
            let cant_terminate = engine_holds(&lts, r#"G !"END""#);
            proptest::prop_assert_eq!(
                cant_terminate, Some(!found(Check::CantTerminate)), "{:?}", spec.main()
            );
        }
    }

    /// `realizable` finds a run exactly when the runtime objects have one,
    /// of the same (shortest) length, and its witness replays: the liberal
    /// object takes every step, the strict object all but the last.
    #[test]
    fn realizable_agrees_with_the_runtime_objects(spec in common::gen::spec()) {
        let lts = common::gen::compile_or_skip(&spec)?;
        proptest::prop_assume!(lts.num_states() <= 500);
        let Ok(reference) = reference_realizable(&lts, 20_000) else {
            return Err(proptest::test_runner::TestCaseError::reject("a large liberal object"));
        };
        let report = lint_with(&lts, &Options::only([Check::Realizable]), &Limits::default().max_states(200_000));
        proptest::prop_assume!(report.inconclusive.is_empty());
        match (&reference, report.findings.first()) {
            (None, None) => {}
            (Some(run), Some(f)) => {
                proptest::prop_assert_eq!(run.len(), f.witness.len(), "{:?}: {:?} vs {}", spec.main(), run, f);
                // replay the witness on the runtime objects
                let labels: Vec<String> = f.witness.iter().map(|s| lts.label_text(&s.label)).collect();
                let mut l = Liberal::new(lts.clone());
                let mut s = Strict::new(lts.clone());
                let dummies = engine::declared_dummies(&l);
                for (i, label) in labels.iter().enumerate() {
                    let next = common::successors(&l, &dummies).into_iter().find(|(x, _)| x == label);
                    proptest::prop_assert!(next.is_some(), "liberal refuses step {} of {}", i + 1, f);
                    l = next.unwrap().1;
                    let next = common::successors(&s, &dummies).into_iter().find(|(x, _)| x == label);
                    if i + 1 < labels.len() {
                        proptest::prop_assert!(next.is_some(), "strict refuses step {} of {}", i + 1, f);
                        s = next.unwrap().1;
                    } else {
                        proptest::prop_assert!(next.is_none(), "strict takes the last step of {}", f);
                        proptest::prop_assert_eq!(f.witness[i].to, StateId::NONE);
                    }
                }
            }
            (r, f) => proptest::prop_assert!(false, "{:?}: reference {:?}, lint {:?}", spec.main(), r, f),
        }
    }
}
