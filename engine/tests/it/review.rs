//! Soundness review of the engine's verdicts: bad prefixes under both
//! semantics, stuttering under guided probing, END vs DEADLOCK, limits,
//! session and cache reuse, atoms, and generalised acceptance. Every
//! verdict is checked against the brute-force reference of `common`, and
//! every counterexample is replayed and evaluated on its lasso.

use crate::common;

use std::time::Duration;

use common::small::{Chess, Move};
use common::{eval_lasso, lasso_letters, reference_violated, Label, Lts, LtsProtocol};
use engine::{
    dummies, ActionKind, AtomError, Checker, Ending, Error, Limit, NameKind, Report, Semantics,
    Verdict,
};

const BOTH: [Semantics; 2] = [Semantics::Stutter, Semantics::InfiniteRunsOnly];

fn send(role: usize, ty: usize, to: usize) -> Label {
    Label {
        role,
        kind: ActionKind::Send,
        ty,
        peer: to,
    }
}

fn recv(role: usize, ty: usize, from: usize) -> Label {
    Label {
        role,
        kind: ActionKind::Recv,
        ty,
        peer: from,
    }
}

fn close(role: usize, to: usize) -> Label {
    Label {
        role,
        kind: ActionKind::Close,
        ty: 0,
        peer: to,
    }
}

fn lts(roles: usize, trans: Vec<Vec<(Label, usize)>>, terminal: &[usize]) -> Lts {
    let n = trans.len();
    Lts {
        roles,
        types: 1,
        trans,
        terminal: (0..n).map(|s| terminal.contains(&s)).collect(),
    }
    .normalise()
}

/// `tweak`: bit 0 turns the determinism check off, bit 1 flushes the
/// successor cache constantly, bit 2 declares the topology, bit 3 the
/// directed topology.
fn checker(semantics: Semantics, tweak: u8) -> Checker {
    Checker::new()
        .semantics(semantics)
        .determinism_check(tweak & 1 == 0)
        .cache_limit(if tweak & 2 != 0 { 0 } else { 1 << 20 })
        .max_states(1_000_000)
        .progress(false)
}

fn proto(l: &Lts, tweak: u8) -> LtsProtocol {
    let mut p = LtsProtocol::new(l.clone());
    p.topology = tweak & 4 != 0;
    p.directed = tweak & 8 != 0;
    p
}

fn run(l: &Lts, formula: &str, semantics: Semantics, tweak: u8) -> Report {
    checker(semantics, tweak)
        .check(formula, proto(l, tweak), l.dummies())
        .unwrap_or_else(|e| panic!("{formula}: {e}"))
}

/// The verdict must be what the reference says; a counterexample must
/// replay, really violate the formula, and under infinite-runs-only be an
/// infinite run (a lasso, no finite ending of any kind).
fn assert_sound(l: &Lts, formula: &str, semantics: Semantics, tweak: u8, report: &Report) {
    let expected = reference_violated(l, formula, semantics == Semantics::Stutter);
    match &report.verdict {
        Verdict::HoldsProbabilistic { .. } => panic!("hash compaction was not asked for\n{report}"),
        Verdict::HoldsOnShare { .. } => panic!("no share was asked for\n{report}"),
        Verdict::Holds => assert!(
            !expected,
            "{formula} ({semantics:?}, tweak {tweak}): engine holds, reference violated\n{l:?}"
        ),
        Verdict::Violated(c) => {
            assert!(
                expected,
                "{formula} ({semantics:?}, tweak {tweak}): engine violated, reference holds\n{report}"
            );
            c.try_replay(proto(l, tweak))
                .unwrap_or_else(|e| panic!("does not replay: {e}\n{report}"));
            let (prefix, cycle) = lasso_letters(l, c);
            let f = owl_lite::parse(formula).unwrap();
            assert!(
                !eval_lasso(&f, &prefix, &cycle),
                "the counterexample satisfies {formula}\n{report}"
            );
            if semantics == Semantics::InfiniteRunsOnly {
                assert!(
                    c.ending.is_none() && !c.cycle.is_empty(),
                    "a finite run is no counterexample under infinite-runs-only\n{report}"
                );
            }
        }
        Verdict::Inconclusive { .. } => panic!("{formula}: unexpected {report}"),
    }
}

/// Checks every formula on `l` under both semantics and every tweak, and
/// returns whether each was violated (stutter, infinite-runs-only).
fn agree_all(l: &Lts, formulas: &[&str]) -> Vec<(bool, bool)> {
    formulas
        .iter()
        .map(|f| {
            let mut out = [false; 2];
            for (i, sem) in BOTH.into_iter().enumerate() {
                for tweak in 0..16 {
                    let r = run(l, f, sem, tweak);
                    assert_sound(l, f, sem, tweak, &r);
                    out[i] = r.counterexample().is_some();
                }
            }
            (out[0], out[1])
        })
        .collect()
}

// ---------------------------------------------------------------------
// 1. Bad prefixes (`Ending::AnyContinuation`) and infinite-runs-only.
// ---------------------------------------------------------------------

#[test]
fn a_violating_prefix_without_infinite_continuation_holds_under_infinite_runs_only() {
    // r0 sends once, then everything is stuck.
    let stuck = lts(2, vec![vec![(send(0, 0, 1), 1)], vec![]], &[]);
    let f = r#"G !"r0 SEND *""#;
    assert_eq!(agree_all(&stuck, &[f]), [(true, false)]);
    let r = run(&stuck, f, Semantics::Stutter, 0);
    let c = r.counterexample().unwrap();
    assert_eq!(c.prefix.len(), 1, "{r}");
    assert!(
        matches!(
            c.ending,
            Some(Ending::AnyContinuation | Ending::Deadlock { .. })
        ),
        "{r}"
    );
    assert!(run(&stuck, f, Semantics::InfiniteRunsOnly, 0).holds());

    // The same, but another branch has an infinite run without the send:
    // under infinite-runs-only the only infinite run satisfies the formula.
    let branch = lts(
        2,
        vec![
            vec![(send(0, 0, 1), 1), (send(1, 0, 0), 2)],
            vec![],
            vec![(send(1, 0, 0), 2)],
        ],
        &[1],
    );
    assert_eq!(agree_all(&branch, &[f]), [(true, false)]);

    // After the send the run goes on forever: violated under both, and
    // under omega with a real cycle.
    let live = lts(
        2,
        vec![vec![(send(0, 0, 1), 1)], vec![(recv(1, 0, 0), 1)]],
        &[],
    );
    assert_eq!(agree_all(&live, &[f]), [(true, true)]);

    // A long finite tail after the violation: still no counterexample
    // under omega (the universal automaton state is reached long before
    // the run stops).
    let mut tail: Vec<Vec<(Label, usize)>> = vec![vec![(send(0, 0, 1), 1)]];
    for s in 1..30 {
        tail.push(vec![(recv(1, 0, 0), s + 1)]);
    }
    tail.push(vec![]);
    let tail = lts(2, tail, &[30]);
    let formulas = [
        f,
        r#"G ("r0 SEND *" -> X G !"r1 RECV *")"#,
        r#"(!"r1 RECV *" U "r0 SEND *") -> G !"r1 RECV *""#,
        r#"X X X G !"r1 RECV *""#,
    ];
    for (s, o) in agree_all(&tail, &formulas) {
        assert!(s && !o);
    }
}

// ---------------------------------------------------------------------
// 2. Stutter only when no action of the whole alphabet is enabled.
// ---------------------------------------------------------------------

/// The automaton of the negation `"r0 SEND *" U "DEADLOCK"` wants only r0's
/// sends in its initial state. In each object below r0 cannot send but
/// another action (a send, a receive or a close of r1) is enabled forever:
/// there is no stutter step, so no DEADLOCK, and the property holds.
#[test]
fn no_stutter_step_when_only_unwanted_actions_are_enabled() {
    let formulas = [
        r#"!("r0 SEND *" U "DEADLOCK")"#,
        r#"!("r0 SEND *" U "END")"#,
        r#"!(("r0 SEND *" | "r0 RECV *") U ("DEADLOCK" | "END"))"#,
        r#"G ("r0 SEND *" -> F "DEADLOCK") -> G !"DEADLOCK""#,
        // The initial automaton state wants no action at all.
        r#"!"DEADLOCK" & X !"DEADLOCK""#,
    ];
    for y in [send(1, 0, 0), recv(1, 0, 0), close(1, 0)] {
        let l = lts(2, vec![vec![(y, 0)]], &[0]);
        for (s, o) in agree_all(&l, &formulas) {
            assert!(!s && !o, "{y:?}");
        }
        // With a session whose first formula fills the successor cache
        // (every letter wanted), the guided check must still see `y`.
        for tweak in 0..16 {
            let mut session = checker(Semantics::Stutter, tweak)
                .session(proto(&l, tweak), l.dummies())
                .unwrap();
            assert!(session.check(r#"G !"DEADLOCK""#).unwrap().holds());
            assert!(session.check(r#"G F "r1 * *""#).unwrap().holds());
            for f in formulas {
                let r = session.check(f).unwrap();
                assert!(r.holds(), "{f} with {y:?}, tweak {tweak}: {r}");
            }
        }
    }
    // Controls: where nothing is enabled, the same formulas are violated.
    let stuck = lts(2, vec![vec![]], &[]);
    assert_eq!(agree_all(&stuck, &formulas[..1]), [(true, false)]);
    let via = lts(
        2,
        vec![vec![(send(0, 0, 1), 1), (send(1, 0, 0), 0)], vec![]],
        &[],
    );
    assert_eq!(agree_all(&via, &formulas[..1]), [(true, false)]);
}

// ---------------------------------------------------------------------
// 3. END vs DEADLOCK.
// ---------------------------------------------------------------------

#[test]
fn is_terminated_matters_only_where_nothing_is_enabled() {
    // State 0 says it is terminated but can still send forever: no END.
    let busy = lts(2, vec![vec![(send(0, 0, 1), 0)]], &[0]);
    let formulas = [
        r#"G !"END""#,
        r#"G !"DEADLOCK""#,
        r#"F "END""#,
        r#"G F "r0 SEND *""#,
    ];
    assert_eq!(
        agree_all(&busy, &formulas),
        [(false, false), (false, false), (true, true), (false, false)]
    );
    // Terminated and stuck: END, never DEADLOCK.
    let done = lts(2, vec![vec![(send(0, 0, 1), 1)], vec![]], &[1]);
    assert_eq!(
        agree_all(&done, &formulas),
        [(true, false), (false, false), (false, false), (true, false)]
    );
    let r = run(&done, r#"G !"END""#, Semantics::Stutter, 0);
    assert!(
        matches!(r.counterexample().unwrap().ending, Some(Ending::Terminated)),
        "{r}"
    );
    // Stuck, not terminated: DEADLOCK, never END.
    let dead = lts(2, vec![vec![(send(0, 0, 1), 1)], vec![]], &[]);
    assert_eq!(
        agree_all(&dead, &formulas),
        [(false, false), (true, false), (true, false), (true, false)]
    );
}

// ---------------------------------------------------------------------
// 4. Limits: never Holds when cut short; real violations still found.
// ---------------------------------------------------------------------

/// A chain of `n` r0 sends, then `bad`, then a cycle of r0 sends.
fn chain(n: usize, bad: Label) -> Lts {
    let mut t: Vec<Vec<(Label, usize)>> = (0..n).map(|s| vec![(send(0, 0, 1), s + 1)]).collect();
    t.push(vec![(bad, n + 1)]);
    t.push(vec![(send(0, 0, 1), n + 1)]);
    lts(3, t, &[])
}

#[test]
fn the_depth_limit_never_gives_holds() {
    let l = chain(15, send(2, 0, 0));
    let f = r#"G !"r2 SEND *""#;
    for sem in BOTH {
        for tweak in 0..16 {
            let r = checker(sem, tweak)
                .max_depth(10)
                .check(f, proto(&l, tweak), l.dummies())
                .unwrap();
            assert!(
                matches!(
                    r.verdict,
                    Verdict::Inconclusive {
                        limit: Limit::Depth(10),
                        ..
                    }
                ),
                "{sem:?}: {r}"
            );
            let r = checker(sem, tweak)
                .max_depth(30)
                .check(f, proto(&l, tweak), l.dummies())
                .unwrap();
            assert_sound(&l, f, sem, tweak, &r);
            assert!(r.counterexample().is_some());
        }
    }
    // A liveness violation whose cycle closes beyond the depth limit.
    let mut t: Vec<Vec<(Label, usize)>> = vec![vec![(send(1, 0, 0), 1)]];
    for s in 1..12 {
        t.push(vec![(send(0, 0, 1), s + 1)]);
    }
    t.push(vec![(send(0, 0, 1), 1)]);
    let l = lts(2, t, &[]);
    let f = r#"G F "r1 SEND *""#;
    for sem in BOTH {
        let r = checker(sem, 0)
            .max_depth(6)
            .check(f, proto(&l, 0), l.dummies())
            .unwrap();
        assert!(matches!(r.verdict, Verdict::Inconclusive { .. }), "{r}");
        let r = run(&l, f, sem, 0);
        assert_sound(&l, f, sem, 0, &r);
        assert!(r.counterexample().is_some());
    }
}

/// A state first reached on a long path (and explored only up to the depth
/// limit there) may also be reachable on a short path; the violation below
/// it is within the limit on the short path. The verdict may be
/// inconclusive (the search does not re-explore the state), but never
/// Holds, and a violation reported must be real.
#[test]
fn a_state_seen_beyond_the_depth_limit_then_reached_shallow_is_not_holds() {
    // 0 -r0 send-> 1 -> ... -> 8 = X (long), 0 -r1 send-> X (short);
    // X -> 9 -> 10 -> 11 by r0 sends, 11 -r2 send-> 12 (bad), 12 loops.
    let mut t: Vec<Vec<(Label, usize)>> = vec![vec![(send(0, 0, 1), 1), (send(1, 0, 0), 8)]];
    for s in 1..11 {
        t.push(vec![(send(0, 0, 1), s + 1)]);
    }
    t.push(vec![(send(2, 0, 0), 12)]);
    t.push(vec![(send(0, 0, 1), 12)]);
    let l = lts(3, t, &[]);
    let f = r#"G !"r2 SEND *""#;
    for sem in BOTH {
        for tweak in 0..16 {
            let r = checker(sem, tweak)
                .max_depth(10)
                .check(f, proto(&l, tweak), l.dummies())
                .unwrap();
            match &r.verdict {
                Verdict::Holds
                | Verdict::HoldsProbabilistic { .. }
                | Verdict::HoldsOnShare { .. } => {
                    panic!("{sem:?}: holds although cut short\n{r}")
                }
                Verdict::Violated(_) => assert_sound(&l, f, sem, tweak, &r),
                Verdict::Inconclusive { .. } => {}
            }
        }
    }
}

#[test]
fn state_and_time_limits_never_give_holds() {
    // A ring of 6000 states on which `G F "r0 SEND *"` holds.
    let n = 6000;
    let t = (0..n)
        .map(|s| vec![(send(s % 2, 0, 1 - s % 2), (s + 1) % n)])
        .collect();
    let l = lts(2, t, &[]);
    let f = r#"G F "r0 SEND *""#;
    for sem in BOTH {
        let r = checker(sem, 1)
            .max_states(100)
            .check(f, proto(&l, 1), l.dummies())
            .unwrap();
        assert!(
            matches!(
                r.verdict,
                Verdict::Inconclusive {
                    limit: Limit::States(100),
                    ..
                }
            ),
            "{r}"
        );
        let r = checker(sem, 1)
            .timeout(Duration::ZERO)
            .check(f, proto(&l, 1), l.dummies())
            .unwrap();
        assert!(
            matches!(
                r.verdict,
                Verdict::Inconclusive {
                    limit: Limit::Time(_),
                    ..
                }
            ),
            "{r}"
        );
        // Exactly enough states: a proof; one fewer: inconclusive.
        let full = run(&l, f, sem, 1);
        assert!(full.holds(), "{full}");
        let k = full.stats.product_states;
        let r = checker(sem, 1)
            .max_states(k)
            .check(f, proto(&l, 1), l.dummies())
            .unwrap();
        assert!(r.holds(), "{r}");
        let r = checker(sem, 1)
            .max_states(k - 1)
            .check(f, proto(&l, 1), l.dummies())
            .unwrap();
        assert!(!r.holds(), "{r}");
    }
    // A violation within the state limit is reported as such.
    let r = checker(Semantics::Stutter, 1)
        .max_states(100)
        .check(r#"G !"r1 SEND *""#, proto(&l, 1), l.dummies())
        .unwrap();
    assert!(r.counterexample().is_some(), "{r}");
}

// ---------------------------------------------------------------------
// 5. Sessions and the successor cache.
// ---------------------------------------------------------------------

/// A tiny deterministic generator (no proptest: fixed, fast cases).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

fn random_lts(g: &mut Lcg) -> Lts {
    let roles = 2 + g.next(2);
    let types = 1 + g.next(2);
    let n = 1 + g.next(25);
    let trans = (0..n)
        .map(|_| {
            (0..g.next(4))
                .map(|_| {
                    let role = g.next(roles);
                    let peer = g.next(roles);
                    let label = match g.next(5) {
                        0 | 1 => send(role, g.next(types), peer),
                        2 | 3 => recv(role, g.next(types), peer),
                        _ => close(role, peer),
                    };
                    (label, g.next(n))
                })
                .collect()
        })
        .collect();
    let terminal = (0..n).map(|_| g.next(3) == 0).collect();
    Lts {
        roles,
        types,
        trans,
        terminal,
    }
    .normalise()
}

const SESSION_FORMULAS: [&str; 9] = [
    r#"G !"DEADLOCK""#,
    r#"G F "r0 SEND *""#,
    r#"G ("r0 SEND *" -> F "r1 RECV *")"#,
    r#"!("r1 * *" U "END")"#,
    r#"F G !"r0 CLOSE * TO *""#,
    r#"G F "r0 * *" -> G F "r1 * *""#,
    r#"G !"r1 SEND <T0> TO r0""#,
    r#"("r0 SEND *" | "r1 RECV *") R !"DEADLOCK""#,
    r#"(G F "r0 * *" & G F "r1 * *") -> G F "END""#,
];

#[test]
fn sessions_with_a_tiny_cache_agree_with_fresh_checkers() {
    let mut g = Lcg(0x5eed);
    for case in 0..60 {
        let l = random_lts(&mut g);
        for sem in BOTH {
            for tweak in [0u8, 2, 3, 6] {
                let mut session = checker(sem, tweak)
                    .session(proto(&l, tweak), l.dummies())
                    .unwrap();
                // Twice through: the second round sees a warm cache and
                // the marks left by the first.
                for f in SESSION_FORMULAS.iter().chain(&SESSION_FORMULAS) {
                    let in_session = session.check(f).unwrap();
                    let fresh = run(&l, f, sem, tweak);
                    assert_eq!(
                        in_session.holds(),
                        fresh.holds(),
                        "case {case}, {f}, {sem:?}, tweak {tweak}\nsession: {in_session}\nfresh: {fresh}\n{l:?}"
                    );
                    assert_sound(&l, f, sem, tweak, &in_session);
                }
            }
        }
    }
}

// ---------------------------------------------------------------------
// 6. Atoms.
// ---------------------------------------------------------------------

fn chess(formula: &str) -> Result<Report, Error> {
    Checker::new()
        .progress(false)
        .check(formula, Chess::new(), dummies![Move])
}

fn unknown(formula: &str) -> (NameKind, String) {
    match chess(formula) {
        Err(Error::Atom { error, .. }) => match *error {
            AtomError::UnknownName { kind, name, .. } => (kind, name),
            other => panic!("{formula}: {other:?}"),
        },
        other => panic!("{formula}: expected an unknown-name error, got {other:?}"),
    }
}

#[test]
fn special_atoms_and_action_patterns_match_in_any_case() {
    for (f, holds) in [
        (r#"G "True""#, true),
        (r#"G "true""#, true),
        (r#"F "FALSE""#, false),
        (r#"G !"end""#, true),
        (r#"G !"Deadlock""#, true),
        (r#"F "End""#, false),
        (
            r#"G ("white send <Move> to black" -> F "black Recv <Move> From white")"#,
            true,
        ),
        (
            r#"G ("white   Send   <Move>   TO   black" -> X "black recv * from white")"#,
            true,
        ),
        (r#"G !"* * * TO *""#, false),
        (r#"G !"b* RECV * FROM w*""#, false),
        (r#"G !"white CLOSE TO black""#, true),
        (r#"G !"white SEND <Move> TO white""#, true),
        (r#"G !"white * <Move> FROM black""#, false),
        (r#"G !"white * <Move> TO black""#, false),
        (r#"G !"black SEND small::Move""#, false),
        (r#"G !"black SEND common::small::Move TO white""#, false),
    ] {
        let r = chess(f).unwrap_or_else(|e| panic!("{f}: {e}"));
        assert_eq!(r.holds(), holds, "{f}: {r}");
    }
}

#[test]
fn unknown_names_in_atoms_are_errors() {
    assert_eq!(unknown(r#"G !"whit SEND *""#).0, NameKind::Role);
    assert_eq!(unknown(r#"G !"x* SEND *""#).0, NameKind::Role);
    assert_eq!(unknown(r#"G !"White SEND *""#).0, NameKind::Role);
    assert_eq!(unknown(r#"G !"white SEND * TO blak""#).0, NameKind::Peer);
    assert_eq!(unknown(r#"G !"black RECV * FROM q*""#).0, NameKind::Peer);
    assert_eq!(unknown(r#"G !"white SEND <Mov>""#).0, NameKind::Type);
    assert_eq!(unknown(r#"G !"white SEND <move>""#).0, NameKind::Type);
    assert_eq!(unknown(r#"G !"white SEND chess::Move""#).0, NameKind::Type);
}

/// An unknown name in a part of the formula that is constant anyway must
/// still be an error: the user made a typo.
#[test]
fn unknown_names_next_to_constants_are_errors() {
    for f in [
        r#"G ("True" | "whit SEND *")"#,
        r#"G !("False" & "whit SEND *")"#,
        r#"G (true | "whit SEND *")"#,
        r#"G !(false & "whit SEND *")"#,
        r#"G ("whit SEND *" -> true)"#,
        r#"F "whit SEND *" | G true"#,
    ] {
        assert_eq!(unknown(f).0, NameKind::Role, "{f}");
    }
}

// ---------------------------------------------------------------------
// 7. Generalised acceptance.
// ---------------------------------------------------------------------

#[test]
fn fairness_needs_every_acceptance_set_on_one_cycle() {
    let fairness = r#"!(G F "r0 SEND *" & G F "r1 SEND *")"#;
    let neg = owl_lite::parse(fairness).unwrap().negate();
    let aut = owl_lite::translate(&neg, &owl_lite::TranslateOptions::default()).unwrap();
    assert!(aut.acceptance_sets >= 2, "{}", aut.acceptance_sets);
    let a = send(0, 0, 1);
    let b = send(1, 0, 0);
    let c = recv(1, 0, 0);
    let formulas = [
        fairness,
        r#"(G F "r0 SEND *" & G F "r1 SEND *") -> G F "r1 RECV *""#,
        r#"G F "r0 SEND *" -> G F "r1 SEND *""#,
        r#"!(G F "r0 SEND *" & G F "r1 SEND *" & G F "r1 RECV *")"#,
    ];
    // Two separate cycles, one with a, one with b.
    let apart = lts(
        2,
        vec![vec![(a, 1), (b, 2)], vec![(a, 1)], vec![(b, 2)]],
        &[],
    );
    // a-cycle leading into a b-cycle, never back.
    let one_way = lts(2, vec![vec![(a, 0), (b, 1)], vec![(b, 1)]], &[]);
    // Both on one cycle (a figure eight through state 0).
    let eight = lts(2, vec![vec![(a, 0), (b, 1)], vec![(c, 0)]], &[]);
    // a, b and c in one SCC, but c only on a cycle without b: the cycle
    // (b a) has a and b infinitely often and never c.
    let three = lts(
        2,
        vec![vec![(a, 1), (b, 2)], vec![(c, 0)], vec![(a, 0)]],
        &[],
    );
    assert_eq!(
        agree_all(&apart, &formulas),
        [(false, false), (false, false), (true, true), (false, false)]
    );
    assert_eq!(
        agree_all(&one_way, &formulas),
        [(false, false), (false, false), (true, true), (false, false)]
    );
    assert_eq!(
        agree_all(&eight, &formulas),
        [(true, true), (false, false), (true, true), (true, true)]
    );
    assert_eq!(
        agree_all(&three, &formulas),
        [(true, true), (true, true), (true, true), (true, true)]
    );
}
