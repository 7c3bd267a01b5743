//! `realizable`: the liberal object's runs that the strict object refuses
//! (rock-paper-scissors:3, tic-tac-toe, a choice a role is not told of),
//! clean protocols (chess, every token topology), limits that make it
//! inconclusive, and `lint_spec` on specifications explored on the fly.

use engine::Limits;
use protocols::lint::{lint, lint_spec, lint_with, Check, Finding, Options};
use protocols::spec::{alt, msg, par, par_every, seq, Role, Spec};
use protocols::token::{self, Topology};
use protocols::{bundled, chess, rock_paper_scissors, tic_tac_toe, Built, Error, Lts, StateId};

fn realizable(lts: &Lts) -> Vec<Finding> {
    let report = lint_with(lts, &Options::only([Check::Realizable]), &Limits::default());
    assert!(report.inconclusive.is_empty(), "{:?}", report.inconclusive);
    report.findings
}

/// A protocol that loops, never closes, and runs beside 16 workers that
/// each get a job: 2 · 4^16 global states, far too many to explore.
fn looping_beside_many_workers() -> Spec {
    let jobs = par_every(0..16, |i| {
        let w = Role::indexed("worker", i);
        seq([msg("Job", "boss", w.clone()), msg("Done", w, "boss")])
    });
    Spec::new("jobs", par([msg("Ping", "a", "b").star(), jobs]))
}

#[test]
fn rock_paper_scissors_3_is_flagged_with_a_shortest_run() {
    let lts = rock_paper_scissors::spec(3).compile().unwrap();
    let f = realizable(&lts);
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].check, Check::Realizable);
    // the strict object orders player 0's two sends around player 1's
    // receive; player 0, who cannot see that receive, does not wait
    assert_eq!(
        f[0].witness_texts(),
        [
            "player_0_ SEND <Rock> TO player_1_",
            "player_0_ SEND <Rock> TO player_2_"
        ]
    );
    assert_eq!(f[0].witness[1].to, StateId::NONE);
    assert_eq!(f[0].witness[0].to, f[0].witness[1].from);
    assert!(
        f[0].summary.contains(
            "player_0_ does not wait for `player_1_ RECV <Rock> FROM player_0_`, which the protocol puts first"
        ),
        "{}",
        f[0].summary
    );
    // the engine agrees that the liberal object takes that run and the
    // strict one does not
    let d = rock_paper_scissors::strict(3).dummies();
    let formula =
        r#"!("player_0_ SEND <Rock> TO player_1_" & X "player_0_ SEND <Rock> TO player_2_")"#;
    engine::check(formula, rock_paper_scissors::strict(3), d.clone());
    engine::check_violated(formula, rock_paper_scissors::spec(3).liberal().unwrap(), d);
}

#[test]
fn tic_tac_toe_is_flagged_at_the_choice_of_who_begins() {
    let lts = tic_tac_toe::spec().compile().unwrap();
    let f = realizable(&lts);
    assert_eq!(f.len(), 1);
    assert_eq!(
        f[0].witness_texts(),
        [
            "player_1_ SEND <Move> TO player_2_",
            "player_2_ SEND <Move> TO player_1_"
        ]
    );
    assert!(
        f[0].summary.contains(
            "the runs part at the choice in strict state 0 (before step 1): the strict run takes \
             `player_1_ SEND <Move> TO player_2_`"
        ),
        "{}",
        f[0].summary
    );
    assert!(
        f[0].summary.contains("player_2_, not told"),
        "{}",
        f[0].summary
    );
}

#[test]
fn a_choice_both_roles_may_make_is_flagged_where_the_runs_part() {
    // either a or b begins; each may begin at once, not knowing the other did
    let lts = Spec::new("who begins", alt([msg("X", "a", "b"), msg("Y", "b", "a")]))
        .compile()
        .unwrap();
    let f = realizable(&lts);
    assert_eq!(f[0].witness_texts(), ["a SEND <X> TO b", "b SEND <Y> TO a"]);
    assert!(
        f[0].summary.contains(
            "the runs part at the choice in strict state 0 (before step 1): the strict run takes \
             `a SEND <X> TO b`, which rules the refused step out, but b, not told, takes it anyway"
        ),
        "{}",
        f[0].summary
    );
    // a role that acts before the step it must wait for
    let lts = Spec::new("c first", seq([msg("X", "a", "b"), msg("Y", "c", "b")]))
        .compile()
        .unwrap();
    let f = realizable(&lts);
    assert_eq!(f[0].witness_texts(), ["c SEND <Y> TO b"]);
    assert!(
        f[0].summary
            .contains("c does not wait for `a SEND <X> TO b`"),
        "{}",
        f[0].summary
    );
    // one role chooses and tells the others (the liberal object's messages
    // carry which branch was taken): realizable
    let told = Spec::new(
        "a chooses",
        alt([
            seq([msg("X", "a", "b"), msg("Y", "b", "c")]),
            seq([msg("Z", "a", "b"), msg("W", "b", "c")]),
        ]),
    )
    .compile()
    .unwrap();
    assert!(realizable(&told).is_empty());
}

#[test]
fn chess_and_every_token_topology_are_realizable() {
    assert!(realizable(&chess::spec().compile().unwrap()).is_empty());
    let all = [
        Topology::DirectedRing,
        Topology::UndirectedRing,
        Topology::Star,
        Topology::BinaryTree,
        Topology::FullMesh,
    ];
    for t in all {
        for k in 2..=5 {
            let lts = token::spec(t, k).compile().unwrap();
            assert!(realizable(&lts).is_empty(), "{} {k}", t.name());
        }
    }
}

#[test]
fn a_limit_makes_realizable_inconclusive_never_clean() {
    let only = Options::only([Check::Realizable]);
    // chess is realizable, but not within 5 states
    let lts = chess::spec().compile().unwrap();
    let r = lint_with(&lts, &only, &Limits::default().max_states(5));
    assert!(r.findings.is_empty() && !r.is_clean());
    assert_eq!(r.inconclusive.len(), 1);
    assert!(matches!(
        r.inconclusive[0].reason,
        Error::StateBound { limit: 5, .. }
    ));
    assert!(
        r.inconclusive[0]
            .to_string()
            .starts_with("realizable: the liberal projection has more than 5 states"),
        "{}",
        r.inconclusive[0]
    );
    // the projection fits, the product search does not
    let lts = token::spec(Topology::FullMesh, 4).compile().unwrap();
    let r = lint_with(&lts, &only, &Limits::default().max_states(60));
    assert!(r.findings.is_empty());
    assert!(
        matches!(
            &r.inconclusive[0].reason,
            Error::StateBound {
                limit: 60,
                what: protocols::Built::RealizableProduct
            }
        ),
        "{:?}",
        r.inconclusive
    );
    // within the default limits it is clean
    assert!(realizable(&lts).is_empty());
    assert!(lint(&lts, &only).is_empty());
}

#[test]
fn realizable_is_not_a_default_check() {
    assert!(!Options::default().checks.contains(&Check::Realizable));
    assert_eq!(Check::from_name("realizable"), Some(Check::Realizable));
    // tic-tac-toe's default lint says nothing about realizability
    let lts = tic_tac_toe::spec().compile().unwrap();
    assert!(lint(&lts, &Options::default())
        .iter()
        .all(|f| f.check != Check::Realizable));
}

#[test]
fn lint_spec_explores_the_whole_lts_when_it_fits() {
    for name in [
        "two-buyer",
        "tic-tac-toe",
        "token-star:3",
        "rock-paper-scissors:3",
    ] {
        let spec = bundled::spec_by_name(name).unwrap();
        let all = Options::only(Check::ALL);
        let on_the_fly = lint_spec(&spec, &all, &Limits::default()).unwrap();
        let compiled = lint_with(&spec.compile().unwrap(), &all, &Limits::default());
        assert!(on_the_fly.inconclusive.is_empty(), "{name}");
        // the same findings (the witnesses may differ where two shortest
        // ones exist: the states are numbered differently)
        let texts = |r: &protocols::lint::Report| -> Vec<(Check, Option<(String, String)>)> {
            r.findings
                .iter()
                .map(|f| (f.check, f.channel.clone()))
                .collect()
        };
        assert_eq!(texts(&on_the_fly), texts(&compiled), "{name}");
    }
}

#[test]
fn lint_spec_under_a_limit_is_inconclusive_but_keeps_proven_findings() {
    let spec = looping_beside_many_workers();
    let r = lint_spec(
        &spec,
        &Options::default(),
        &Limits::default().max_states(1_000),
    )
    .unwrap();
    // every check is inconclusive …
    assert_eq!(r.inconclusive.len(), Options::default().checks.len());
    assert!(r.inconclusive.iter().all(|i| matches!(
        i.reason,
        Error::StateBound {
            limit: 1_000,
            what: Built::LintExploration
        }
    )));
    // … and the Ping loop, a lasso of explored states, is a real run that
    // never ends and never closes a→b
    let found: Vec<(Check, Vec<String>, Option<usize>)> = r
        .findings
        .iter()
        .map(|f| (f.check, f.witness_texts(), f.cycle_start))
        .collect();
    let ping = vec![
        "a SEND <Ping> TO b".to_string(),
        "b RECV <Ping> FROM a".to_string(),
    ];
    assert_eq!(found[0], (Check::MustTerminate, ping, Some(0)), "{found:?}");
    let a_b = Some(("a".to_string(), "b".to_string()));
    assert!(
        r.findings
            .iter()
            .any(|f| f.check == Check::CloseAfterSend && f.channel == a_b),
        "{found:?}"
    );
    // every finding is a lasso: the runs that end (after every Done) lie
    // far beyond the limit, so no finite witness is proven
    assert!(
        r.findings.iter().all(|f| f.cycle_start.is_some()),
        "{found:?}"
    );
    // bad specifications are errors, not findings
    let bad = Spec::new("bad", msg("A", "p", "p"));
    assert!(lint_spec(&bad, &Options::default(), &Limits::default()).is_err());
}
