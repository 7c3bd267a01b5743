//! `protocols::lint`: each check on a small spec that has the mistake (with
//! its shortest witness) and one that does not; the two-buyer protocol with
//! closes and its successive fixes; and agreement with the LTL model
//! checker where a check is an LTL property.

use crate::common;

use protocols::lint::{lint, Check, Finding, Options};
use protocols::spec::{alt, call, close, end, msg, par, seq, Spec, Term};
use protocols::Lts;

fn compile(main: Term) -> Lts {
    Spec::new("t", main).compile().unwrap()
}

fn only(lts: &Lts, check: Check) -> Vec<Finding> {
    lint(lts, &Options::only([check]))
}

fn texts(f: &Finding) -> Vec<String> {
    f.witness_texts()
}

#[test]
fn deadlock_free_is_clean_on_specs_and_aut_files() {
    // A compiled sequence ends normally, and a state without transitions of
    // an .aut file is an end; stuck non-final states come from hand-built
    // LTSs (the unit tests of `lint/termination.rs`).
    let aut = "des (0, 2, 3)\n(0,\"!(A,p,q)\",1)\n(1,\"?(A,p,q)\",2)\n";
    assert!(only(&Lts::from_aut(aut).unwrap(), Check::DeadlockFree).is_empty());
    let lts = compile(seq([msg("A", "p", "q"), msg("B", "q", "p")]));
    assert!(only(&lts, Check::DeadlockFree).is_empty());
}

#[test]
fn must_terminate_reports_a_loop_that_never_ends_as_a_lasso() {
    let lts = compile(seq([msg("A", "p", "q").star(), close("p", "q")]));
    let f = only(&lts, Check::MustTerminate);
    assert_eq!(f.len(), 1, "{f:?}");
    // the shortest lasso: straight into the loop
    assert_eq!(f[0].cycle_start, Some(0));
    assert_eq!(texts(&f[0]), ["p SEND <A> TO q", "q RECV <A> FROM p"]);
    assert!(
        f[0].to_string().contains("-- cycle starts here --"),
        "{}",
        f[0]
    );
    let ok = compile(seq([msg("A", "p", "q"), close("p", "q")]));
    assert!(only(&ok, Check::MustTerminate).is_empty());
}

#[test]
fn may_terminate_reports_a_state_from_which_no_end_is_reachable() {
    // after B the protocol loops for ever; after A it ends
    let lts = Spec::new(
        "t",
        alt([
            msg("A", "p", "q"),
            msg("B", "p", "q").then(call("loop", [])),
        ]),
    )
    .define("loop", 0, |_| msg("C", "q", "p").then(call("loop", [])))
    .compile()
    .unwrap();
    let f = only(&lts, Check::MayTerminate);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(texts(&f[0]), ["p SEND <B> TO q"]);
    // the same loop with an exit may always end
    let ok = compile(seq([msg("C", "q", "p").star(), msg("A", "p", "q")]));
    assert!(only(&ok, Check::MayTerminate).is_empty());
    // ... but must-terminate still sees the loop that may not stop
    assert_eq!(only(&ok, Check::MustTerminate).len(), 1);
}

#[test]
fn cant_terminate_reports_a_run_that_ends_and_is_not_a_default_check() {
    let lts = compile(msg("A", "p", "q"));
    let f = only(&lts, Check::CantTerminate);
    assert_eq!(texts(&f[0]), ["p SEND <A> TO q", "q RECV <A> FROM p"]);
    assert!(!Options::default().checks.contains(&Check::CantTerminate));
    let forever = Spec::new("t", call("loop", []))
        .define("loop", 0, |_| msg("A", "p", "q").then(call("loop", [])))
        .compile()
        .unwrap();
    assert!(only(&forever, Check::CantTerminate).is_empty());
}

#[test]
fn close_after_send_reports_an_unclosed_channel_with_where_the_run_ends() {
    let lts = compile(seq([
        msg("A", "p", "q"),
        msg("B", "q", "p"),
        close("p", "q"),
    ]));
    let f = only(&lts, Check::CloseAfterSend);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].channel, Some(("q".into(), "p".into())));
    assert_eq!(f[0].cycle_start, None);
    assert_eq!(
        texts(&f[0]),
        [
            "p SEND <A> TO q",
            "q RECV <A> FROM p",
            "q SEND <B> TO p",
            "p RECV <B> FROM q",
            "p CLOSE TO q"
        ]
    );
    // a channel closed on one branch only
    let lts = compile(seq([
        msg("A", "p", "q"),
        alt([close("p", "q"), msg("B", "q", "r")]),
    ]));
    let f = only(&lts, Check::CloseAfterSend);
    assert_eq!(
        texts(&f[0]),
        [
            "p SEND <A> TO q",
            "q RECV <A> FROM p",
            "q SEND <B> TO r",
            "r RECV <B> FROM q"
        ]
    );
    // runs are maximal: a final state that can still close does not end one
    let lts = compile(seq([msg("A", "p", "q"), alt([close("p", "q"), end()])]));
    assert!(only(&lts, Check::CloseAfterSend).is_empty());
    let ok = compile(seq([
        msg("A", "p", "q"),
        msg("B", "q", "p"),
        close("p", "q"),
        close("q", "p"),
    ]));
    assert!(only(&ok, Check::CloseAfterSend).is_empty());
}

#[test]
fn send_before_close_reports_a_close_of_an_unused_channel() {
    let lts = compile(alt([msg("A", "p", "q"), msg("B", "p", "r")]).then(close("p", "q")));
    let f = only(&lts, Check::SendBeforeClose);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].channel, Some(("p".into(), "q".into())));
    assert_eq!(
        texts(&f[0]),
        ["p SEND <B> TO r", "r RECV <B> FROM p", "p CLOSE TO q"]
    );
    let ok = compile(seq([msg("A", "p", "q"), close("p", "q")]));
    assert!(only(&ok, Check::SendBeforeClose).is_empty());
}

#[test]
fn send_before_close_has_no_false_alarm_on_loops() {
    // Discourje's past operator reports this close (a backward path may go
    // round the c→d loop for ever); every run sends on a→b first.
    let lts = compile(seq([
        msg("A", "a", "b"),
        msg("C", "c", "d").star(),
        close("a", "b"),
    ]));
    assert!(only(&lts, Check::SendBeforeClose).is_empty());
}

#[test]
fn no_act_after_close_reports_a_send_or_a_second_close() {
    let lts = compile(seq([close("p", "q"), msg("A", "p", "q")]));
    let f = only(&lts, Check::NoActAfterClose);
    assert_eq!(texts(&f[0]), ["p CLOSE TO q", "p SEND <A> TO q"]);
    assert!(f[0].summary.contains("used after"), "{}", f[0]);
    let lts = compile(par([close("p", "q"), close("p", "q")]));
    let f = only(&lts, Check::NoActAfterClose);
    assert_eq!(texts(&f[0]), ["p CLOSE TO q", "p CLOSE TO q"]);
    assert!(f[0].summary.contains("twice"), "{}", f[0]);
    // receiving what was sent before the close is not a use
    let ok = compile(par([msg("A", "p", "q"), end()]).then(close("p", "q")));
    assert!(only(&ok, Check::NoActAfterClose).is_empty());
    let drained =
        Lts::from_aut("des (0, 3, 4)\n(0,\"!(A,p,q)\",1)\n(1,\"C(p,q)\",2)\n(2,\"?(A,p,q)\",3)\n")
            .unwrap();
    assert!(only(&drained, Check::NoActAfterClose).is_empty());
}

/// The two-buyer protocol with closes, as Discourje's lint demonstration
/// develops it: without closes, then closing each channel, then fixing a
/// close on a branch that never used its channel.
#[test]
fn two_buyer_with_closes_and_its_fixes() {
    let body = || {
        vec![
            msg("Title", "buyer1", "seller"),
            par([
                seq([
                    msg("Quote", "seller", "buyer1"),
                    msg("Contribution", "buyer1", "buyer2"),
                ]),
                msg("Quote", "seller", "buyer2"),
            ]),
            msg("Decision", "buyer2", "seller"),
        ]
    };
    // sorted: channels come in role order, and roles in order of appearance
    let names = |fs: &[Finding]| -> Vec<(Check, String)> {
        let mut v: Vec<(Check, String)> = fs
            .iter()
            .map(|f| {
                let (p, q) = f.channel.clone().unwrap_or_default();
                (f.check, format!("{p}→{q}"))
            })
            .collect();
        v.sort();
        v
    };
    // The channel checks only: the closes here come one after another by
    // different roles, which causality reports (Discourje's own
    // demonstration, with causality, is tests/lint_discourje.rs).
    let defaults = Options::only(
        Options::default()
            .checks
            .into_iter()
            .filter(|&c| c != Check::Causality),
    );
    // 0: no closes — every used channel is reported
    let v0 = compile(seq(body()));
    let f = lint(&v0, &defaults);
    assert_eq!(
        names(&f),
        [
            (Check::CloseAfterSend, "buyer1→buyer2".to_string()),
            (Check::CloseAfterSend, "buyer1→seller".into()),
            (Check::CloseAfterSend, "buyer2→seller".into()),
            (Check::CloseAfterSend, "seller→buyer1".into()),
            (Check::CloseAfterSend, "seller→buyer2".into()),
        ]
    );
    // 1: closes added, but buyer1→seller closed too early: a use after it
    let mut v1 = body();
    v1.insert(1, close("buyer1", "seller"));
    v1.push(msg("Ok", "buyer1", "seller"));
    v1.extend([
        close("buyer1", "buyer2"),
        close("buyer2", "seller"),
        close("seller", "buyer1"),
        close("seller", "buyer2"),
    ]);
    let f = lint(&compile(seq(v1)), &defaults);
    assert_eq!(
        names(&f),
        [
            (Check::CloseAfterSend, "buyer1→seller".into()),
            (Check::NoActAfterClose, "buyer1→seller".to_string())
        ]
    );
    // 2: the close moved to the end, plus a close of a channel never used
    let mut v2 = body();
    v2.push(msg("Ok", "buyer1", "seller"));
    v2.extend([
        close("buyer1", "seller"),
        close("buyer1", "buyer2"),
        close("buyer2", "seller"),
        close("buyer2", "buyer1"),
        close("seller", "buyer1"),
        close("seller", "buyer2"),
    ]);
    let f = lint(&compile(seq(v2)), &defaults);
    assert_eq!(
        names(&f),
        [(Check::SendBeforeClose, "buyer2→buyer1".to_string())]
    );
    // 3: fixed
    let mut v3 = body();
    v3.push(msg("Ok", "buyer1", "seller"));
    v3.extend([
        close("buyer1", "seller"),
        close("buyer1", "buyer2"),
        close("buyer2", "seller"),
        close("seller", "buyer1"),
        close("seller", "buyer2"),
    ]);
    assert_eq!(lint(&compile(seq(v3)), &defaults), []);
}

#[test]
fn findings_print_like_a_counterexample() {
    let lts = compile(msg("Ping", "a", "b"));
    let f = &lint(&lts, &Options::default())[0];
    assert_eq!(
        f.to_string(),
        "close-after-send (channel a→b): the channel is used and the run ends in state 2 without closing it\n  \
         1. a SEND <Ping> TO b\n  2. b RECV <Ping> FROM a\n"
    );
}

#[test]
fn every_check_has_a_name_that_reads_back() {
    for c in Check::ALL {
        assert_eq!(Check::from_name(c.name()), Some(c));
    }
}

/// The LTL form of a channel check on channel `p→q`, as the model checker
/// reads it: each holds exactly when lint reports nothing for the channel.
fn ltl(check: Check, p: &str, q: &str) -> String {
    let (send, close) = (
        format!("\"{p} SEND * TO {q}\""),
        format!("\"{p} CLOSE TO {q}\""),
    );
    match check {
        Check::CloseAfterSend => format!("G ({send} -> F {close})"),
        Check::SendBeforeClose => format!("G !{close} | (!{close} U {send})"),
        Check::NoActAfterClose => format!("G ({close} -> X G !({send} | {close}))"),
        Check::CantTerminate => "G !\"END\"".into(),
        _ => unreachable!("not an LTL property over actions"),
    }
}

/// Lint and `engine::check` agree on every bundled protocol (a small
/// instance of each) for the checks that are LTL properties over actions.
#[test]
fn lint_and_the_model_checker_agree_on_the_bundled_protocols() {
    for info in protocols::bundled::list() {
        let name = common::small_instance(&info, 2);
        let lts = protocols::bundled::by_name(&name).unwrap();
        let object = protocols::Strict::new(lts.clone());
        let dummies = engine::declared_dummies(&object);
        let mut session = engine::Checker::new().session(object, dummies).unwrap();
        let roles = lts.roles().to_vec();
        let findings = lint(&lts, &Options::only(Check::ALL));
        // (`cant-terminate` is not `G !"END"` here: the model checker's END
        // is a state without transitions, lint's end any final state.)
        let mut cases = vec![];
        for p in &roles {
            for q in roles.iter().filter(|q| *q != p) {
                for c in [
                    Check::CloseAfterSend,
                    Check::SendBeforeClose,
                    Check::NoActAfterClose,
                ] {
                    cases.push((c, Some((p.clone(), q.clone()))));
                }
            }
        }
        for (check, channel) in cases {
            let formula = match &channel {
                Some((p, q)) => ltl(check, p, q),
                None => ltl(check, "", ""),
            };
            let report = session.check(&formula).unwrap();
            assert!(
                !matches!(report.verdict, engine::Verdict::Inconclusive { .. }),
                "{name}: {formula}"
            );
            let found = findings
                .iter()
                .any(|f| f.check == check && f.channel == channel);
            assert_eq!(
                found,
                !report.holds(),
                "{name}: {formula}: lint found {found}"
            );
        }
    }
}

/// Checks on `lts` that lint's channel findings are the model checker's
/// violations, channel by channel; the first disagreement as an error.
fn agree_with_engine(lts: &Lts) -> Result<(), String> {
    let object = protocols::Strict::new(lts.clone());
    let dummies = engine::declared_dummies(&object);
    let mut session = engine::Checker::new()
        .session(object, dummies)
        .map_err(|e| e.to_string())?;
    let findings = lint(lts, &Options::default());
    let roles = lts.roles().to_vec();
    for p in &roles {
        for q in roles.iter().filter(|q| *q != p) {
            for check in [
                Check::CloseAfterSend,
                Check::SendBeforeClose,
                Check::NoActAfterClose,
            ] {
                let formula = ltl(check, p, q);
                let report = session.check(&formula).map_err(|e| e.to_string())?;
                if matches!(report.verdict, engine::Verdict::Inconclusive { .. }) {
                    return Err(format!("{formula}: inconclusive"));
                }
                let channel = Some((p.clone(), q.clone()));
                let found = findings
                    .iter()
                    .any(|f| f.check == check && f.channel == channel);
                if found == report.holds() {
                    return Err(format!("{formula}: lint found {found}, engine: {report:?}"));
                }
            }
        }
    }
    Ok(())
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 48, ..Default::default() })]

    /// On random specifications (every construct, closes and synchronous
    /// communications included), lint and the model checker agree.
    #[test]
    fn lint_and_the_model_checker_agree_on_random_specs(spec in common::gen::spec()) {
        let lts = common::gen::compile_or_skip(&spec)?;
        proptest::prop_assume!(
            lts.roles().len() >= 2 && !lts.type_names().is_empty(),
            "the model checker needs roles and message types"
        );
        proptest::prop_assume!(lts.num_states() <= 300, "kept small: one search per channel and check");
        let r = agree_with_engine(&lts);
        proptest::prop_assert!(r.is_ok(), "{:?}: {}", spec.main(), r.unwrap_err());
    }
}

#[test]
fn causality_reports_an_action_that_its_role_cannot_know_it_may_take() {
    // r sends after q's receive, which r cannot observe
    let lts = compile(seq([msg("A", "p", "q"), msg("B", "r", "s")]));
    let f = only(&lts, Check::Causality);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].channel, Some(("r".into(), "s".into())));
    assert_eq!(
        texts(&f[0]),
        ["p SEND <A> TO q", "q RECV <A> FROM p", "r SEND <B> TO s"]
    );
    assert!(f[0].summary.contains("(q RECV <A> FROM p)"), "{}", f[0]);
    // q answers what it received: caused
    let ok = compile(seq([msg("A", "p", "q"), msg("B", "q", "p")]));
    assert!(only(&ok, Check::Causality).is_empty());
    // independent steps can be swapped: no order is implied
    let ok = compile(par([msg("A", "p", "q"), msg("B", "r", "s")]));
    assert!(only(&ok, Check::Causality).is_empty());
    // a default check, now that labels mark handshakes
    assert!(Options::default().checks.contains(&Check::Causality));
}

/// Prut4j's one-order NPB specs make each worker reply in turn, after the
/// master's receive from the previous worker, which it cannot observe;
/// the concurrent versions let workers reply in any order, and what is
/// left is the closes of the exit phase, which both versions order after
/// the master's last receive (a real finding in both).
#[test]
fn npb_one_order_specs_violate_causality_and_the_concurrent_ones_only_at_exit() {
    let one_order = protocols::bundled::by_name("npb-cg:2").unwrap();
    let f = only(&one_order, Check::Causality);
    assert!(
        f.iter()
            .any(|f| f.witness.last().unwrap().text == "worker_1_ SEND <DoneMessage> TO master"),
        "{f:?}"
    );
    let concurrent = protocols::bundled::by_name("npb-cg-concurrent:2").unwrap();
    let f = only(&concurrent, Check::Causality);
    assert!(!f.is_empty());
    for f in &f {
        let last = &f.witness.last().unwrap().label;
        assert_eq!(last.action, protocols::Action::Close, "{f}");
    }
}
