//! Discourje's lint demonstration (`discourje.core.lint.demonstration`),
//! as prust specs of our own: the two-buyer protocol with closes, and its
//! three successive fixes. Each test asserts the findings that Discourje
//! reports for that version — which check, on which channel — with prust's
//! witness runs.
//!
//! Discourje's `-->` is a handshake (one step of both roles), so every
//! communication here is a `sync`; its closes come in `par`. What
//! Discourje reports (worked out from its formulas in `core/lint.clj`):
//!
//! | version | findings |
//! |---|---|
//! | 0: all six channels closed at the end | `cant-terminate` (when asked), `send-before-close` buyer2→buyer1 (never used), `causality` buyer1→buyer2 and buyer1→seller (buyer1 closes right after buyer2's handshake with seller, which it takes no part in) |
//! | 1: close of buyer2→buyer1 removed | `causality` buyer1→buyer2, buyer1→seller |
//! | 2: buyer1's closes alongside buyer2's decision, the other closes after | `causality` buyer2→seller, seller→buyer1, seller→buyer2 (closes right after one of buyer1's, which they cannot see) |
//! | 3: the other closes after the decision only | none |
//!
//! prust reports the same (check, channel) pairs; it differs from
//! Discourje only in what it prints: a handshake's witness shows its two
//! steps (prust's LTS has the send and then at once its receive), and
//! `cant-terminate` is not a default check (Discourje's demonstration
//! excludes it by hand after the first run).

use protocols::lint::{lint, Check, Finding, Options};
use protocols::spec::{close, par, seq, sync, Spec, Term};
use protocols::Lts;

fn compile(main: Term) -> Lts {
    Spec::new("two-buyer", main).compile().unwrap()
}

/// The four communications every version starts with.
fn start() -> Vec<Term> {
    vec![
        sync("String", "buyer1", "seller"),
        sync("Integer", "seller", "buyer1"),
        sync("Integer", "seller", "buyer2"),
        sync("Integer", "buyer1", "buyer2"),
    ]
}

/// A version of the protocol: [`start`], then `rest` in sequence.
fn version(rest: impl IntoIterator<Item = Term>) -> Lts {
    let mut body = start();
    body.extend(rest);
    compile(seq(body))
}

/// buyer2's decision, sent to the seller.
fn decision() -> Term {
    sync("Boolean", "buyer2", "seller")
}

/// Each finding's witness is [`UP_TO_DECISION`] and then its `more`.
fn assert_witnesses_after_decision(findings: &[Finding], more: &[&[&str]]) {
    assert_eq!(findings.len(), more.len(), "{findings:?}");
    for (f, more) in findings.iter().zip(more) {
        assert_eq!(witness(f), after_decision(more), "{f}");
    }
}

/// The witness steps of `start()` and the decision, as prust prints them.
const UP_TO_DECISION: [&str; 10] = [
    "buyer1 SEND <String> TO seller",
    "seller RECV <String> FROM buyer1",
    "seller SEND <Integer> TO buyer1",
    "buyer1 RECV <Integer> FROM seller",
    "seller SEND <Integer> TO buyer2",
    "buyer2 RECV <Integer> FROM seller",
    "buyer1 SEND <Integer> TO buyer2",
    "buyer2 RECV <Integer> FROM buyer1",
    "buyer2 SEND <Boolean> TO seller",
    "seller RECV <Boolean> FROM buyer2",
];

/// `(check, "p→q")` of each finding, in the order lint reports them.
fn names(findings: &[Finding]) -> Vec<(Check, String)> {
    findings
        .iter()
        .map(|f| {
            let (p, q) = f.channel.clone().unwrap_or_default();
            (f.check, format!("{p}→{q}"))
        })
        .collect()
}

fn witness(f: &Finding) -> Vec<String> {
    f.witness_texts()
}

/// `UP_TO_DECISION` then `more`.
fn after_decision(more: &[&str]) -> Vec<String> {
    UP_TO_DECISION
        .iter()
        .chain(more)
        .map(|s| s.to_string())
        .collect()
}

/// Every check Discourje has: all of prust's but `realizable` (prust's own).
fn discourjes_checks() -> Options {
    Options::only(Check::ALL.into_iter().filter(|&c| c != Check::Realizable))
}

fn c(check: Check, channel: &str) -> (Check, String) {
    (check, channel.to_string())
}

#[test]
fn version_0_closes_a_channel_never_used_and_buyer1_closes_without_a_cause() {
    let lts = version([
        decision(),
        par([
            close("buyer1", "buyer2"),
            close("buyer1", "seller"),
            close("buyer2", "buyer1"),
            close("buyer2", "seller"),
            close("seller", "buyer1"),
            close("seller", "buyer2"),
        ]),
    ]);

    // Discourje's first call, every check
    let all = lint(&lts, &discourjes_checks());
    assert_eq!(
        names(&all),
        [
            c(Check::CantTerminate, "→"),
            c(Check::SendBeforeClose, "buyer2→buyer1"),
            c(Check::Causality, "buyer1→buyer2"),
            c(Check::Causality, "buyer1→seller"),
        ]
    );
    // a shortest run that ends: the ten steps, then the six closes
    assert_eq!(all[0].witness.len(), 16, "{}", all[0]);
    assert_eq!(witness(&all[0])[..10], after_decision(&[])[..]);

    // the default: Discourje's `:exclude #{:cant-terminate}`
    let f = lint(&lts, &Options::default());
    assert_eq!(names(&f), names(&all[1..]));
    assert_witnesses_after_decision(
        &f,
        &[
            &["buyer2 CLOSE TO buyer1"],
            &["buyer1 CLOSE TO buyer2"],
            &["buyer1 CLOSE TO seller"],
        ],
    );
    assert!(
        f[1].summary.contains("(buyer2 SEND <Boolean> TO seller)"),
        "{}",
        f[1]
    );
}

#[test]
fn version_1_without_that_close_leaves_buyer1s_closes_without_a_cause() {
    let lts = version([
        decision(),
        par([
            close("buyer1", "buyer2"),
            close("buyer1", "seller"),
            close("buyer2", "seller"),
            close("seller", "buyer1"),
            close("seller", "buyer2"),
        ]),
    ]);
    let f = lint(&lts, &Options::default());
    assert_eq!(
        names(&f),
        [
            c(Check::Causality, "buyer1→buyer2"),
            c(Check::Causality, "buyer1→seller"),
        ]
    );
    assert_witnesses_after_decision(
        &f,
        &[&["buyer1 CLOSE TO buyer2"], &["buyer1 CLOSE TO seller"]],
    );
}

#[test]
fn version_2_buyer1_closes_alongside_the_decision_but_the_other_closes_wait_for_them() {
    let lts = version([
        par([
            decision(),
            close("buyer1", "buyer2"),
            close("buyer1", "seller"),
        ]),
        par([
            close("buyer2", "seller"),
            close("seller", "buyer1"),
            close("seller", "buyer2"),
        ]),
    ]);
    let f = lint(&lts, &Options::default());
    assert_eq!(
        names(&f),
        [
            c(Check::Causality, "buyer2→seller"),
            c(Check::Causality, "seller→buyer1"),
            c(Check::Causality, "seller→buyer2"),
        ]
    );
    // the shortest runs: the decision, buyer1's two closes (in role
    // order: seller is used before buyer2), then the close that cannot
    // know buyer1 has closed
    let buyer1s = ["buyer1 CLOSE TO seller", "buyer1 CLOSE TO buyer2"];
    assert_witnesses_after_decision(
        &f,
        &[
            &[buyer1s[0], buyer1s[1], "buyer2 CLOSE TO seller"],
            &[buyer1s[0], buyer1s[1], "seller CLOSE TO buyer1"],
            &[buyer1s[0], buyer1s[1], "seller CLOSE TO buyer2"],
        ],
    );
    // Each close follows buyer1's last one.
    for f in &f {
        assert!(f.summary.contains(&format!("({})", buyer1s[1])), "{f}");
    }
}

#[test]
fn version_3_every_close_follows_a_step_of_its_role_and_lint_is_clean() {
    let lts = version([par([
        seq([
            decision(),
            par([
                close("buyer2", "seller"),
                close("seller", "buyer1"),
                close("seller", "buyer2"),
            ]),
        ]),
        close("buyer1", "buyer2"),
        close("buyer1", "seller"),
    ])]);
    assert_eq!(lint(&lts, &Options::default()), []);
    // and Discourje's `cant-terminate` is all that every check finds
    assert_eq!(
        names(&lint(&lts, &discourjes_checks())),
        [c(Check::CantTerminate, "→")]
    );
}

/// Without the synchronous bit a handshake would be its send and then its
/// receive by the other role, and the step before each action of version 3
/// would be a receive it took no part in: the same protocol with ordinary
/// (buffered) messages is not clean, for exactly that reason.
#[test]
fn the_same_protocol_with_buffered_messages_has_causality_findings() {
    use protocols::spec::msg;
    let body = vec![
        msg("String", "buyer1", "seller"),
        msg("Integer", "seller", "buyer1"),
        msg("Integer", "seller", "buyer2"),
        msg("Integer", "buyer1", "buyer2"),
        par([
            seq([
                msg("Boolean", "buyer2", "seller"),
                par([
                    close("buyer2", "seller"),
                    close("seller", "buyer1"),
                    close("seller", "buyer2"),
                ]),
            ]),
            close("buyer1", "buyer2"),
            close("buyer1", "seller"),
        ]),
    ];
    let f = lint(&compile(seq(body)), &Options::only([Check::Causality]));
    // seller sends buyer2 its quote right after buyer1's receive of its own
    let first = f
        .iter()
        .find(|f| f.channel == Some(("seller".into(), "buyer2".into())))
        .unwrap_or_else(|| panic!("{f:?}"));
    assert_eq!(
        witness(first)[2..],
        [
            "seller SEND <Integer> TO buyer1",
            "buyer1 RECV <Integer> FROM seller",
            "seller SEND <Integer> TO buyer2"
        ]
    );
}
